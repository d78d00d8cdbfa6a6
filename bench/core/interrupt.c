/* interrupt.c — see interrupt.h. */
#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "results.h"

/* What the handler may touch: a signal handler reaches no struct passed down, so this is the
 * program's second piece of file-level state (log.c's identity is the first). Set before the
 * handlers are installed, cleared after they are removed. */
static atomic_int interrupt_sig; /* lock-free: two threads may take two signals at once */
static const char *volatile interrupt_dir, *volatile interrupt_head, *volatile interrupt_tail;

const char *interrupt_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "";
}

/* ---------------------------------------------------------------- async-signal-safe output */

static void put(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

static void put_num(int fd, long v, int width)
{
	char buf[24];
	int i = (int)sizeof buf - 1;

	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
		width--;
	} while ((v || width > 0) && i > 0);
	put(fd, buf + i);
}

/* "YYYY-MM-DDTHH:MM:SSZ" without gmtime (not async-signal-safe): days to a civil date */
static void put_utc(int fd, time_t t)
{
	long days = (long)(t / 86400), secs = (long)(t % 86400);
	long z = days + 719468, era = z / 146097, doe = z - era * 146097;
	long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;

	put_num(fd, yoe + era * 400 + (m <= 2), 4);
	put(fd, "-");
	put_num(fd, m, 2);
	put(fd, "-");
	put_num(fd, d, 2);
	put(fd, "T");
	put_num(fd, secs / 3600, 2);
	put(fd, ":");
	put_num(fd, secs / 60 % 60, 2);
	put(fd, ":");
	put_num(fd, secs % 60, 2);
	put(fd, "Z");
}

/* meta.json as "interrupted", written beside it and renamed over it */
static void meta_interrupted(int sig)
{
	char tmp[RESULTS_PATH_MAX + 32], path[RESULTS_PATH_MAX + 32];
	const char *dir = interrupt_dir, *head = interrupt_head, *tail = interrupt_tail;
	int fd;

	if (!dir || !head || !tail || strlen(dir) > RESULTS_PATH_MAX)
		return;
	strcpy(tmp, dir);
	strcat(tmp, "/meta.json.interrupted");
	strcpy(path, dir);
	strcat(path, "/meta.json");
	/* async-signal-safe, so not results_tmp_open; but never through what was planted there */
	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
		return;
	put(fd, head);
	put(fd, "  \"finished_utc\": \"");
	put_utc(fd, time(NULL));
	put(fd, "\",\n  \"exit_code\": ");
	put_num(fd, 128 + sig, 1);
	put(fd, ",\n  \"signal\": \"");
	put(fd, interrupt_name(sig));
	put(fd, "\",\n  \"status\": \"interrupted\",\n");
	put(fd, tail);
	if (close(fd) == 0)
		rename(tmp, path);
	else
		unlink(tmp);
}

static void on_signal(int sig)
{
	int saved = errno, none = 0;

	/* the first signal only (SIGINT from a terminal and SIGTERM from the launcher may reach
	 * two threads at once): one writer of meta.json */
	if (atomic_compare_exchange_strong(&interrupt_sig, &none, sig))
		meta_interrupted(sig);
	errno = saved;
}

void interrupt_install(const char *meta_dir, const char *meta_head, const char *meta_tail)
{
	struct sigaction sa;

	interrupt_dir = meta_dir;
	interrupt_head = meta_head;
	interrupt_tail = meta_tail;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND; /* the second one takes the default action: the process ends */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGXFSZ, SIG_IGN);
	/* under a launcher (mpirun or orted, srun's slurmstepd, hydra's proxy): when it goes
	 * without passing a signal on (mpirun, on Ctrl-C, may exit before it sends SIGTERM), the
	 * kernel sends SIGTERM, so that the run says how it ended before the MPI library ends
	 * the process. Not for a process started from a shell (a singleton): nohup must hold. */
	if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("SLURM_STEP_ID"))
		prctl(PR_SET_PDEATHSIG, SIGTERM);
}

void interrupt_uninstall(void)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	interrupt_dir = interrupt_head = interrupt_tail = NULL;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int interrupt_pending(void)
{
	return atomic_load(&interrupt_sig);
}
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the handler needs a lock-free int");
