/* results.c — see results.h. */
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "nodename.h"
#include "opts.h"

static int mkdir_p(const char *path)
{
	char buf[RESULTS_PATH_MAX];

	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return -errno;
	return 0;
}

/* 1 when dir exists and holds nothing but . and .., 0 when it holds something, -errno. */
static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

int results_dir_create(const char *root, const char *name, const char *dir, time_t now,
		       char *out, size_t outlen, char *err, size_t errlen)
{
	char stamp[32];
	struct tm tm;
	int rc;

	if (dir) {
		struct stat st;

		if ((rc = mkdir_p(dir)) < 0 || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
			/* a file where the directory should be (or on its way) is a usage error */
			int usage = rc == -ENOTDIR || rc == -EEXIST || rc == 0;

			snprintf(err, errlen, "cannot create results directory %s: %s", dir,
				 rc == 0 || rc == -EEXIST ? "a file of that name exists" : strerror(-rc));
			return usage ? FP_EUSAGE : FP_ERUNTIME;
		}
		if ((rc = dir_is_empty(dir)) <= 0) {
			snprintf(err, errlen, rc == 0 ? "results directory %s is not empty: refusing to "
				 "overwrite an earlier run (choose a new -o DIR)"
				 : "cannot read results directory %s: %s", dir, strerror(-rc));
			return rc == 0 ? FP_EUSAGE : FP_ERUNTIME;
		}
		if (snprintf(out, outlen, "%s", dir) >= (int)outlen)
			goto too_long;
		return 0;
	}
	if ((rc = mkdir_p(root)) < 0) {
		snprintf(err, errlen, "cannot create results root %s: %s", root, strerror(-rc));
		return FP_ERUNTIME;
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	for (int k = 1; k < 1000; k++) {
		int n = snprintf(out, outlen, "%s/%s%s%s", root, stamp, name ? "-" : "", name ? name : "");

		if (k > 1)
			n += snprintf(out + n, outlen > (size_t)n ? outlen - (size_t)n : 0, ".%d", k);
		if (n >= (int)outlen)
			goto too_long;
		if (mkdir(out, 0777) == 0)
			return 0;
		if (errno != EEXIST) {
			snprintf(err, errlen, "cannot create results directory %s: %s", out, strerror(errno));
			return FP_ERUNTIME;
		}
	}
	snprintf(err, errlen, "too many runs named %s under %s", stamp, root);
	return FP_ERUNTIME;
too_long:
	snprintf(err, errlen, "results directory path is too long");
	return FP_EUSAGE;
}

static FILE *open_path(const char *dir, const char *file, const char *suffix, const char *mode)
{
	char path[RESULTS_PATH_MAX];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s%s", dir, file, suffix);
	if (!(f = fopen(path, mode)))
		LOG_ERROR("cannot open %s: %s", path, strerror(errno));
	return f;
}

/* ---------------------------------------------------------------- streamed files: whole rows */

/* A streamed file's rows reach the disk whole or not at all: what stdio hands over is held
 * until a row ends (an LF outside double quotes, RFC 4180), and only whole rows are written;
 * a failed or short write (a full disk) is cut back to the last whole row, so that the file
 * always ends where a row ends, and the stream reports the error. */
struct rows {
	int fd;
	off_t good;       /* bytes on disk, all of them whole rows */
	char *pend;       /* bytes since the last whole row */
	size_t npend, cap;
	size_t scanned;   /* bytes of pend examined for row ends */
	int quoted;       /* inside a quoted field at pend[scanned] */
	int failed;       /* a write failed: nothing more is written */
};

/* write len bytes at r->good; on failure cut the file back to r->good */
static int rows_put(struct rows *r, const char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(r->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : ENOSPC;

			if (ftruncate(r->fd, r->good) == 0)
				lseek(r->fd, r->good, SEEK_SET);
			errno = e;
			return -1;
		}
		done += (size_t)n;
	}
	r->good += (off_t)len;
	return 0;
}

static ssize_t rows_write(void *cookie, const char *buf, size_t size)
{
	struct rows *r = cookie;
	size_t end = 0;

	if (r->failed) {
		errno = EIO;
		return -1;
	}
	if (r->npend + size > r->cap) {
		size_t cap = (r->npend + size) * 2;
		char *p = realloc(r->pend, cap);

		if (!p)
			return -1;
		r->pend = p;
		r->cap = cap;
	}
	memcpy(r->pend + r->npend, buf, size);
	r->npend += size;
	for (size_t i = r->scanned; i < r->npend; i++) {
		if (r->pend[i] == '"')
			r->quoted = !r->quoted;
		else if (r->pend[i] == '\n' && !r->quoted)
			end = i + 1;
	}
	r->scanned = r->npend;
	if (end) {
		if (rows_put(r, r->pend, end)) {
			r->failed = 1;
			return -1;
		}
		memmove(r->pend, r->pend + end, r->npend - end);
		r->npend -= end;
		r->scanned = r->npend;
	}
	return (ssize_t)size;
}

static int rows_close(void *cookie)
{
	struct rows *r = cookie;
	int rc = r->failed ? -1 : 0;

	if (r->npend && !r->failed) /* a row never ended: the file stays at its last whole row */
		LOG_WARN("a row of %zu bytes was not ended: not written", r->npend);
	if (close(r->fd) && rc == 0)
		rc = -1;
	free(r->pend);
	free(r);
	return rc;
}

FILE *results_open(const char *dir, const char *file)
{
	static const cookie_io_functions_t io = { .write = rows_write, .close = rows_close };
	char path[RESULTS_PATH_MAX];
	struct rows *r = calloc(1, sizeof *r);
	FILE *f = NULL;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	/* O_EXCL: the run directory is new, so an existing file here is a bug, never overwritten */
	if (!r || (r->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0) {
		LOG_ERROR("cannot open %s: %s", path, r ? strerror(errno) : "out of memory");
		free(r);
		return NULL;
	}
	if (!(f = fopencookie(r, "w", io))) {
		LOG_ERROR("cannot open %s: out of memory", path);
		close(r->fd);
		free(r);
	}
	return f;
}

FILE *results_tmp_open(const char *dir, const char *file)
{
	return open_path(dir, file, ".tmp", "w");
}

int results_close(FILE *f, const char *dir, const char *file)
{
	int bad = fflush(f) != 0 || ferror(f);
	int err = errno;

	if (fclose(f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (bad) {
		LOG_ERROR("writing %s/%s: %s", dir, file, strerror(err));
		return FP_ERUNTIME;
	}
	return 0;
}

int results_tmp_commit(FILE *f, const char *dir, const char *file)
{
	char tmp[RESULTS_PATH_MAX], path[RESULTS_PATH_MAX];
	int rc = results_close(f, dir, file);

	snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, file);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (rc == 0 && rename(tmp, path) != 0) {
		LOG_ERROR("renaming %s to %s: %s", tmp, path, strerror(errno));
		rc = FP_ERUNTIME;
	}
	if (rc)
		unlink(tmp);
	return rc;
}

void results_json_string(FILE *f, const char *s)
{
	escape_json_write(f, s, 0);
}

enum { RESULTS_OPT_OUTPUT = 1, RESULTS_OPT_NAME, RESULTS_OPT_ROOT, RESULTS_OPT_NODE_NAMES };

/* One of the options of results_where_group (ctx: struct results_where *; -o is --output). */
static int results_where_take(void *ctx, int opt, const char *arg, char *err)
{
	struct results_where *w = ctx;

	switch (opt == 'o' ? RESULTS_OPT_OUTPUT : opt) {
	case RESULTS_OPT_OUTPUT: w->output = arg; return opts_value("-o/--output", arg, err);
	case RESULTS_OPT_ROOT: w->root = arg; return opts_value("--results-root", arg, err);
	case RESULTS_OPT_NAME:
		w->name = arg;
		return opts_value("--name", arg, err) ? FP_EUSAGE : opts_name("--name", arg, err);
	case RESULTS_OPT_NODE_NAMES:
		if ((w->node_names = nodename_mode_parse(arg)) < 0)
			OPTS_FAIL("--node-names: '%.60s' is not one of " NODENAME_MODES, arg);
		return 0;
	default: OPTS_FAIL("internal: option %d is not a results option", opt);
	}
}

struct opts_group results_where_group(struct results_where *w, int with_o)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, RESULTS_OPT_OUTPUT },
		{ "name", required_argument, NULL, RESULTS_OPT_NAME },
		{ "results-root", required_argument, NULL, RESULTS_OPT_ROOT },
		{ "node-names", required_argument, NULL, RESULTS_OPT_NODE_NAMES },
		{ NULL, 0, NULL, 0 },
	};

	return (struct opts_group){ .longopts = lo, .shortopts = with_o ? "o:" : NULL, .take = results_where_take, .ctx = w };
}

int results_where_check(struct results_where *w, char *err)
{
	if (w->output && (w->name || w->root))
		OPTS_FAIL("-o/--output names the directory itself; it cannot be combined with %s",
			  w->name ? "--name" : "--results-root");
	if (w->output && !*w->output)
		OPTS_FAIL("-o/--output: empty directory name");
	if (w->root && !*w->root)
		OPTS_FAIL("--results-root: empty directory name");
	if (!w->root && !w->output)
		w->root = "results";
	return 0;
}

/* ---------------------------------------------------------------- how a run ended */

/* The raw text of "key": <value> in a JSON text (a string without its quotes, escapes kept;
 * or a number). Our meta.json's keys are unique. 0, or -1 when absent. */
static int json_value(const char *text, const char *key, char *out, size_t len)
{
	char pat[64];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	if (!(p = strstr(text, pat)))
		return -1;
	for (p += strlen(pat); *p == ' '; p++)
		;
	if (*p == '"')
		for (p++; *p && *p != '"' && n + 1 < len; p++) {
			if (*p == '\\' && p[1])
				out[n++] = *p++;
			if (n + 1 < len)
				out[n++] = *p;
		}
	else
		while (*p && strchr("-0123456789", *p) && n + 1 < len)
			out[n++] = *p++;
	out[n] = 0;
	return 0;
}

void results_boot_id(char *out, size_t len)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	out[n > 0 ? n : 0] = 0;
	out[strcspn(out, "\n")] = 0;
}

/* 1 when process pid on this machine (booted as boot_id) still runs. */
static int pid_alive(long pid, const char *boot_id)
{
	char now[64];

	results_boot_id(now, sizeof now);
	if (*boot_id && *now && strcmp(boot_id, now))
		return 0; /* the machine rebooted since */
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

const char *results_run_state(const char *dir, char *why, size_t len)
{
	char path[RESULTS_PATH_MAX], text[16384], status[32], pid[24], host[300], boot[64], me[256];
	int fd;
	ssize_t n;

	snprintf(path, sizeof path, "%s/meta.json", dir);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0 || json_value((text[n] = 0, text), "status", status, sizeof status)) {
		snprintf(why, len, "%s: no readable meta.json", dir);
		return "unknown";
	}
	if (strcmp(status, "running")) {
		static const char *const ended[] = { "ok", "failed", "error", "interrupted" };

		snprintf(why, len, "meta.json says %s", status);
		for (size_t i = 0; i < sizeof ended / sizeof ended[0]; i++)
			if (!strcmp(status, ended[i]))
				return ended[i];
		return "unknown";
	}
	if (json_value(text, "pid", pid, sizeof pid) || json_value(text, "pid_host", host, sizeof host)) {
		snprintf(why, len, "meta.json says running, and not which process writes it");
		return "running";
	}
	if (json_value(text, "boot_id", boot, sizeof boot))
		boot[0] = 0;
	if (gethostname(me, sizeof me) || strcmp(me, host)) {
		snprintf(why, len, "meta.json says running, on host %.200s (pid %s): cannot tell from here "
			 "whether it still runs", host, pid);
		return "running";
	}
	if (pid_alive(atol(pid), boot)) {
		snprintf(why, len, "running: process %s on this host", pid);
		return "running";
	}
	snprintf(why, len, "meta.json says running, but process %s on this host is gone (killed, or "
		 "it could not write meta.json: a full disk?): the rows it wrote are kept", pid);
	return "incomplete";
}
