/* results_in.c — reading what a results directory holds (results.h): how the run in it ended
 * (meta.json, the writer's pid and boot), and inputs opened the one safe way (a regular file,
 * without blocking, never through a link where a results directory is read). */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "rjson.h"

/* ---------------------------------------------------------------- how a run ended */

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

/* meta.json's word for how the run ended, "running" or one of ended[]; "unknown" otherwise */
static const char *run_ended(const char *status, char *why, size_t len)
{
	static const char *const ended[] = { "ok", "failed", "error", "interrupted" };

	snprintf(why, len, "meta.json says %s", status);
	for (size_t i = 0; i < sizeof ended / sizeof ended[0]; i++)
		if (!strcmp(status, ended[i]))
			return ended[i];
	return "unknown";
}

/* A run whose meta.json says running: whether its writer (pid on pid_host) still runs. */
static const char *run_writer(const struct rjson *m, char *why, size_t len)
{
	const struct rjson *pid = rjson_get(m, "pid");
	const char *host = rjson_str(rjson_get(m, "pid_host")), *boot = rjson_str(rjson_get(m, "boot_id"));
	char me[256];
	long p;

	if (!pid || pid->type != RJSON_NUM || !host) {
		snprintf(why, len, "meta.json says running, and not which process writes it");
		return "running";
	}
	p = pid->num >= 0 && pid->num < 1e9 ? (long)pid->num : -1;
	if (gethostname(me, sizeof me) || strcmp(me, host)) {
		snprintf(why, len, "meta.json says running, on host %.200s (pid %ld): cannot tell from here "
			 "whether it still runs", host, p);
		return "running";
	}
	if (pid_alive(p, boot ? boot : "")) {
		snprintf(why, len, "running: process %ld on this host", p);
		return "running";
	}
	snprintf(why, len, "meta.json says running, but process %ld on this host is gone (killed, or "
		 "it could not write meta.json: a full disk?): the rows it wrote are kept", p);
	return "incomplete";
}

const char *results_run_state(const char *dir, char *why, size_t len)
{
	char path[RESULTS_PATH_MAX], err[320];
	struct rjson m;
	const char *status, *state;

	snprintf(path, sizeof path, "%s/meta.json", dir);
	if (rjson_load(path, 16 << 20, &m, err, sizeof err)) {
		snprintf(why, len, "%s: no readable meta.json", dir);
		return "unknown";
	}
	if (!(status = rjson_str(rjson_get(&m, "status"))))
		snprintf(why, len, "%s: no readable meta.json", dir);
	state = !status ? "unknown" : strcmp(status, "running") ? run_ended(status, why, len) : run_writer(&m, why, len);
	rjson_free(&m);
	return state;
}

int results_input_open(const char *file, unsigned how, struct stat *st, int *absent, char *err, size_t errlen)
{
	int pipes = how & RESULTS_IN_PIPE, flags,
	    fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (how & RESULTS_IN_NOLINK ? O_NOFOLLOW : 0));

	if (absent)
		*absent = fd < 0 && errno == ENOENT;
	if (fd < 0) {
		snprintf(err, errlen, "%s", errno == ELOOP && (how & RESULTS_IN_NOLINK)
			 ? "a symbolic link (a results directory holds none: not followed)" : strerror(errno));
		return FP_EUSAGE;
	}
	if (fstat(fd, st) || !(S_ISREG(st->st_mode) || (pipes && S_ISFIFO(st->st_mode)))) {
		snprintf(err, errlen, "%s", pipes ? "not a regular file or a pipe" : "not a regular file");
		close(fd);
		return FP_EUSAGE;
	}
	if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)) {
		snprintf(err, errlen, "%s", strerror(errno));
		close(fd);
		return FP_EUSAGE;
	}
	return fd;
}

long results_getline(char **buf, size_t *cap, FILE *f)
{
	size_t n = 0;
	int c;

	flockfile(f);
	while ((c = getc_unlocked(f)) != EOF) {
		if (n + 2 > *cap || !*buf) {
			size_t nc = *cap && *buf ? 2 * *cap : 256;
			char *b;

			if (n >= RESULTS_LINE_MAX) {
				funlockfile(f);
				return -2;
			}
			if (nc > (size_t)RESULTS_LINE_MAX + 2)
				nc = (size_t)RESULTS_LINE_MAX + 2;
			if (!(b = realloc(*buf, nc))) {
				funlockfile(f);
				return -3;
			}
			*buf = b, *cap = nc;
		}
		(*buf)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	funlockfile(f);
	if (!n)
		return -1;
	(*buf)[n] = 0;
	return (long)n;
}

int results_input_read(const char *file, unsigned flags, size_t max, char **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	int fd = results_input_open(file, flags, &st, NULL, err, errlen), rc = 0;
	size_t n = 0, cap;
	char *b;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	/* a regular file's size is known (one read, and one to see its end); a pipe's is not */
	cap = S_ISREG(st.st_mode) && (size_t)st.st_size < max ? (size_t)st.st_size + 1 : 4096;
	if (cap > max + 1)
		cap = max + 1;
	if (!(b = malloc(cap + 1))) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return FP_ERUNTIME;
	}
	for (;;) { /* read until the end, or one byte past max */
		ssize_t got;

		if (n == cap && cap > max) {
			snprintf(err, errlen, "more than %zu bytes", max);
			rc = FP_EUSAGE;
			break;
		}
		if (n == cap) {
			size_t ncap = cap > max / 2 ? max + 1 : cap * 2;
			char *q = realloc(b, ncap + 1);

			if (!q) {
				snprintf(err, errlen, "out of memory");
				rc = FP_ERUNTIME;
				break;
			}
			b = q;
			cap = ncap;
		}
		if ((got = read(fd, b + n, cap - n)) < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "read error: %s", strerror(errno));
			rc = FP_ERUNTIME;
			break;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (rc) {
		free(b);
		return rc;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}
