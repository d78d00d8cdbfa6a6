/* results.c — see results.h. */
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "nodename.h"
#include "opts.h"
#include "rjson.h"

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

/* 1 when the directory open as fd (taken and closed) holds nothing but . and .., 0 when it
 * holds something, -errno. */
static int dir_is_empty(int fd)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int empty = 1;

	if (!d) {
		int err = errno;

		close(fd);
		return -err;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

/* 1 when path itself (its last component) is a symbolic link; errno kept. */
static int is_link(const char *path)
{
	struct stat st;
	int e = errno, link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);

	errno = e;
	return link;
}

/* -o DIR: created if missing, then opened once as a directory that is not a symbolic link,
 * and refused unless empty. 0, FP_EUSAGE or FP_ERUNTIME with err filled. */
static int dir_given(const char *dir, char *err, size_t errlen)
{
	int rc = mkdir_p(dir), fd = rc < 0 ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		int e = rc < 0 ? -rc : errno, link = is_link(dir);
		/* a file or a link where the directory should be (or on its way) is a usage error */
		int usage = link || e == ENOTDIR || e == EEXIST || e == ELOOP;

		snprintf(err, errlen, "cannot create results directory %s: %s", dir,
			 link ? "it is a symbolic link (give the directory it points to)"
			 : usage ? "a file of that name exists" : strerror(e));
		return usage ? FP_EUSAGE : FP_ERUNTIME;
	}
	if ((rc = dir_is_empty(fd)) <= 0) {
		snprintf(err, errlen, rc == 0 ? "results directory %s is not empty: refusing to "
			 "overwrite an earlier run (choose a new -o DIR)"
			 : "cannot read results directory %s: %s", dir, strerror(-rc));
		return rc == 0 ? FP_EUSAGE : FP_ERUNTIME;
	}
	return 0;
}

int results_dir_create(const char *root, const char *name, const char *dir, time_t now,
		       char *out, size_t outlen, char *err, size_t errlen)
{
	char stamp[32];
	struct tm tm;
	int rc;

	if (dir) {
		if ((rc = dir_given(dir, err, errlen)))
			return rc;
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

/* ---------------------------------------------------------------- writing into a directory */

/* dir opened once to write file into it (by name, openat): file one name (no '/', not . or
 * ..), dir a directory and not a symbolic link. The fd, or -1 after logging. */
static int dir_open(const char *dir, const char *file)
{
	int fd;

	if (!*file || strchr(file, '/') || !strcmp(file, ".") || !strcmp(file, "..") || strlen(file) > 200) {
		LOG_ERROR("internal: cannot write %s/%s: not a file name of its own", dir, file);
		return -1;
	}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		LOG_ERROR("cannot write %s into %s: %s", file, dir, is_link(dir)
			  ? "it is a symbolic link (give the directory it points to)" : strerror(errno));
	return fd;
}

/* A new temporary for w->name in w->dirfd, named w->tmp: ".<name>.<pid>.<random>.tmp", created
 * exclusively, so that whatever was planted under any name is never opened. fd, or -1 (errno). */
static int tmp_create(struct results_file *w)
{
	for (unsigned int k = 0; k < 32; k++) {
		unsigned int r = 0;
		struct timespec ts;
		int fd;

		if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			r = (unsigned int)ts.tv_nsec ^ k * 2654435761u;
		}
		snprintf(w->tmp, sizeof w->tmp, ".%.200s.%ld.%08x.tmp", w->name, (long)getpid(), r);
		fd = openat(w->dirfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

int results_tmp_open(struct results_file *w, const char *dir, const char *file)
{
	int fd = -1;

	w->f = NULL;
	w->tmp[0] = 0;
	snprintf(w->dir, sizeof w->dir, "%s", dir);
	snprintf(w->name, sizeof w->name, "%s", file);
	if ((w->dirfd = dir_open(dir, file)) < 0)
		return FP_ERUNTIME;
	if ((fd = tmp_create(w)) < 0 || !(w->f = fdopen(fd, "w"))) {
		LOG_ERROR("cannot create a temporary for %s/%s: %s", dir, file, strerror(errno));
		if (fd >= 0)
			close(fd);
		else
			w->tmp[0] = 0; /* not ours: never removed */
		results_tmp_abort(w);
		return FP_ERUNTIME;
	}
	return 0;
}

int results_tmp_commit(struct results_file *w)
{
	int rc;

	if (!w->f) {
		results_tmp_abort(w);
		return FP_ERUNTIME;
	}
	rc = results_close(w->f, w->dir, w->name);
	w->f = NULL;
	if (rc == 0 && renameat(w->dirfd, w->tmp, w->dirfd, w->name) != 0) {
		LOG_ERROR("renaming %s/%s to %s: %s", w->dir, w->tmp, w->name, strerror(errno));
		rc = FP_ERUNTIME;
	} else if (rc == 0) {
		w->tmp[0] = 0; /* published: nothing to remove */
	}
	results_tmp_abort(w);
	return rc;
}

void results_tmp_abort(struct results_file *w)
{
	if (w->f)
		fclose(w->f);
	if (w->dirfd >= 0 && w->tmp[0])
		unlinkat(w->dirfd, w->tmp, 0);
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->f = NULL;
	w->dirfd = -1;
	w->tmp[0] = 0;
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

/* dir/file as a stream of whole rows: created new, or (fresh not NULL) this run's own file
 * continued at its end, created when it is not there yet (*fresh: it was empty). NULL after
 * logging. */
static FILE *rows_open(const char *dir, const char *file, int *fresh)
{
	static const cookie_io_functions_t io = { .write = rows_write, .close = rows_close };
	struct rows *r = calloc(1, sizeof *r);
	int dfd = r ? dir_open(dir, file) : -1;
	struct stat st;
	FILE *f = NULL;

	if (!r || dfd < 0) {
		if (!r)
			LOG_ERROR("cannot open %s/%s: out of memory", dir, file);
		free(r);
		return NULL;
	}
	/* O_EXCL: the run directory is new, so an entry here was planted or is a bug: never
	 * overwritten, nor followed. Continued: a regular file, written from its end. */
	if (fresh) {
		/* O_NONBLOCK: a FIFO planted there is refused at once, not waited on */
		r->fd = openat(dfd, file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
		if (r->fd >= 0 && (fstat(r->fd, &st) || !S_ISREG(st.st_mode) ||
				   fcntl(r->fd, F_SETFL, O_WRONLY | O_APPEND))) {
			close(r->fd);
			r->fd = -1;
			errno = EINVAL;
		}
		if (r->fd < 0)
			LOG_ERROR("cannot continue %s/%s: %s", dir, file, strerror(errno));
		else
			*fresh = (r->good = st.st_size) == 0;
	} else {
		r->fd = openat(dfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (r->fd < 0)
			LOG_ERROR("cannot create %s/%s: %s", dir, file, errno == EEXIST
				  ? "an entry of that name exists (a run's files are created new, never overwritten)"
				  : strerror(errno));
	}
	close(dfd);
	if (r->fd >= 0 && !(f = fopencookie(r, "w", io))) {
		LOG_ERROR("cannot open %s/%s: out of memory", dir, file);
		close(r->fd);
	}
	if (!f)
		free(r);
	return f;
}

FILE *results_open(const char *dir, const char *file)
{
	return rows_open(dir, file, NULL);
}

FILE *results_append(const char *dir, const char *file, int *fresh)
{
	return rows_open(dir, file, fresh);
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

FILE *results_tee_open(const struct results_tee *tee, struct results_teebuf *b)
{
	*b = (struct results_teebuf){ 0 };
	return tee && tee->fn ? (b->f = open_memstream(&b->text, &b->len)) : NULL;
}

void results_tee_done(const struct results_tee *tee, struct results_teebuf *b, const char *file)
{
	int ok = b->f && fclose(b->f) == 0;

	if (tee && tee->fn)
		tee->fn(tee->ctx, file, ok ? b->text : NULL, ok ? b->len : 0);
	free(b->text);
	*b = (struct results_teebuf){ 0 };
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
