/* watchdog.c — see watchdog.h. */
#include "watchdog.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "interrupt.h"
#include "log.h"

#define WD_ADDRS 4
#define WD_WHAT 160
#define WD_MAGIC 0x66707764u /* "fpwd" */
#define WD_ASK_S 1.0         /* how long the others have to answer */
#define WD_SIG_ASK_S 0.3     /* the same on a signal: the launcher kills after about a second */
#define WD_EXIT 3            /* a runtime error (README's exit codes) */

struct wd_addr { /* where a rank answers */
	uint32_t ip[WD_ADDRS]; /* network order */
	uint16_t port;
	int32_t n;
};

struct wd_msg {
	uint32_t magic, seq; /* seq: the sender's steps armed so far */
	int32_t rank, ask;   /* ask: 1 a question, 0 an answer */
	uint64_t token;      /* the job's */
	char what[WD_WHAT];  /* the sender's step */
};

static struct {
	pthread_t th;
	pthread_mutex_t mu;
	int fd, rank, size, running;
	uint64_t token;
	struct wd_addr *peers;
	const char *names;
	size_t stride;
	double deadline, bound; /* bounded: deadline > 0 */
	double armed_at;        /* in a step: > 0 */
	uint32_t seq;
	char what[WD_WHAT];
	void (*hook)(void *);
	void *hook_arg;
	int hook_done;
	int sig_said; /* the step at a signal said */
} wd = { .mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

/* rank r's name */
static const char *label(int r)
{
	return wd.names + (size_t)r * wd.stride;
}

/* this rank's step, copied under the lock */
static void now_step(struct wd_msg *m)
{
	pthread_mutex_lock(&wd.mu);
	m->seq = wd.seq;
	memcpy(m->what, wd.what, sizeof m->what);
	pthread_mutex_unlock(&wd.mu);
}

/* a question read from the socket answered; an answer into got (rank's slot), when asked for */
static void receive(struct wd_msg *got, int *answered)
{
	struct wd_msg m, a = { .magic = WD_MAGIC, .ask = 0 };
	struct sockaddr_in from;
	socklen_t fl = sizeof from;

	while (recvfrom(wd.fd, &m, sizeof m, MSG_DONTWAIT, (struct sockaddr *)&from, &fl) == (ssize_t)sizeof m) {
		if (m.magic != WD_MAGIC || m.token != wd.token || m.rank < 0 || m.rank >= wd.size)
			continue;
		if (m.ask) {
			a.rank = wd.rank;
			a.token = wd.token;
			now_step(&a);
			sendto(wd.fd, &a, sizeof a, 0, (struct sockaddr *)&from, fl);
		} else if (got && !answered[m.rank]) {
			m.what[WD_WHAT - 1] = 0;
			got[m.rank] = m;
			answered[m.rank] = 1;
		}
		fl = sizeof from;
	}
}

static void *hook_run(void *arg)
{
	(void)arg;
	wd.hook(wd.hook_arg);
	__atomic_store_n(&wd.hook_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* the hook, waited for at most 2 s (it may hang on what hangs the step) */
static void hook_call(void)
{
	pthread_t t;
	double until = clock_now() + 2;

	pthread_mutex_lock(&wd.mu);
	int have = wd.hook != NULL;
	pthread_mutex_unlock(&wd.mu);
	if (!have || pthread_create(&t, NULL, hook_run, NULL))
		return;
	pthread_detach(t);
	while (!__atomic_load_n(&wd.hook_done, __ATOMIC_ACQUIRE) && clock_now() < until)
		usleep(10000);
}

/* Ask the others what step they are in, waiting `wait` s; then SAY into msg (k its length) the
 * ranks missing or behind this rank's step. */
static size_t roll_call(const struct wd_msg *mine, double wait, int on_sig, char *msg, size_t size, size_t k)
{
	struct wd_msg ask = { .magic = WD_MAGIC, .rank = wd.rank, .ask = 1, .token = wd.token };
	struct wd_msg *got = calloc((size_t)wd.size, sizeof *got);
	int *answered = calloc((size_t)wd.size, sizeof *answered), named = 0, ahead = 0;
	double until = clock_now() + wait;

	if (got && answered) {
		for (int r = 0; r < wd.size; r++)
			for (int a = 0; r != wd.rank && a < wd.peers[r].n; a++) {
				struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = wd.peers[r].port,
							  .sin_addr.s_addr = wd.peers[r].ip[a] };

				sendto(wd.fd, &ask, sizeof ask, 0, (struct sockaddr *)&to, sizeof to);
			}
		while (clock_now() < until) {
			struct pollfd p = { .fd = wd.fd, .events = POLLIN };

			poll(&p, 1, 50);
			receive(got, answered);
		}
	}
#define SAY(...) (k += k < size ? (size_t)snprintf(msg + k, size - k, __VA_ARGS__) : 0)
	for (int r = 0; got && answered && r < wd.size; r++) {
		ahead += r != wd.rank && answered[r] && got[r].seq > mine->seq;
		if (r == wd.rank || (answered[r] && got[r].seq >= mine->seq))
			continue;
		named++;
		if (!answered[r])
			SAY("; rank %d (%s) did not answer (stopped, hung whole or gone)", r, label(r));
		else
			SAY("; rank %d (%s) has not arrived: still at '%s'", r, label(r), got[r].what);
	}
	if (!named && ahead == wd.size - 1 && ahead > 0)
		SAY("; every other rank is past this step: this rank is the one behind");
	else if (!named)
		SAY(on_sig ? "; every rank answered" : "; every rank answered from this step: the library did not end it");
	free(got);
	free(answered);
	return k;
}

/* msg, k long, on stderr in one write (the others' messages come at the same moment) */
static void say_line(char *msg, size_t size, size_t k)
{
	if (k >= size)
		memcpy(msg + size - 5, "...\n", 5);
	if (write(STDERR_FILENO, msg, strlen(msg)) < 0)
		return;
}

/* the step outlasted its bound: ask the others, say who is missing or behind, end this rank */
static void fire(const struct wd_msg *mine, double bound)
{
	char msg[4096];
	size_t k = 0, size = sizeof msg;

	SAY("fabprobe: rank %d (%s): '%s' did not end within %.0f s", wd.rank, label(wd.rank), mine->what, bound);
	k = roll_call(mine, WD_ASK_S, 0, msg, size, k);
	SAY("; ending this rank (exit %d)\n", WD_EXIT);
	say_line(msg, size, k);
	hook_call();
	_exit(WD_EXIT);
}

/* A signal (the launcher ending the job: a peer gone, a job's time limit) in a step: the step
 * said at once, before the launcher's SIGKILL, then who did not answer a short roll call. The
 * run ends as interrupt.h says. */
static void on_signal(const struct wd_msg *mine, double since)
{
	char msg[4096];
	size_t k = 0, size = sizeof msg;

	SAY("fabprobe: rank %d (%s): %s in '%s', %.1f s into it\n", wd.rank, label(wd.rank),
	    interrupt_name(interrupt_pending()), mine->what, since);
	say_line(msg, size, k);
	k = 0;
	SAY("fabprobe: rank %d (%s): at the %s", wd.rank, label(wd.rank), interrupt_name(interrupt_pending()));
	k = roll_call(mine, WD_SIG_ASK_S, 1, msg, size, k);
	SAY("\n");
#undef SAY
	say_line(msg, size, k);
}

static void *watch(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&wd.running, __ATOMIC_ACQUIRE)) {
		struct pollfd p = { .fd = wd.fd, .events = POLLIN };
		struct wd_msg mine = { 0 };
		double deadline, bound, armed_at;

		poll(&p, 1, 100);
		receive(NULL, NULL);
		pthread_mutex_lock(&wd.mu);
		deadline = wd.deadline, bound = wd.bound, armed_at = wd.armed_at;
		pthread_mutex_unlock(&wd.mu);
		if (deadline > 0 && clock_now() > deadline) {
			now_step(&mine);
			fire(&mine, bound);
		}
		if (armed_at > 0 && interrupt_pending() && !wd.sig_said) {
			wd.sig_said = 1;
			now_step(&mine);
			on_signal(&mine, clock_now() - armed_at);
		}
	}
	return NULL;
}

/* this rank's IPv4 addresses, loopback last, and its socket's port */
static void my_addr(struct wd_addr *a)
{
	struct ifaddrs *all, *i;
	struct sockaddr_in sa;
	socklen_t sl = sizeof sa;

	memset(a, 0, sizeof *a);
	if (!getsockname(wd.fd, (struct sockaddr *)&sa, &sl))
		a->port = sa.sin_port;
	if (getifaddrs(&all))
		return;
	for (int lo = 0; lo < 2; lo++)
		for (i = all; i && a->n < WD_ADDRS; i = i->ifa_next)
			if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
			    !(i->ifa_flags & IFF_LOOPBACK) == !lo)
				a->ip[a->n++] = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
	freeifaddrs(all);
}

int watchdog_start(MPI_Comm comm, const char *names, size_t stride)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct wd_addr mine;
	int ok;

	MPI_Comm_rank(comm, &wd.rank);
	MPI_Comm_size(comm, &wd.size);
	wd.names = names;
	wd.stride = stride;
	if (!(wd.peers = calloc((size_t)wd.size, sizeof *wd.peers))) {
		LOG_ERROR("out of memory");
		MPI_Abort(comm, WD_EXIT);
	}
	wd.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ok = wd.fd >= 0 && !bind(wd.fd, (struct sockaddr *)&any, sizeof any);
	if (ok)
		my_addr(&mine);
	else
		memset(&mine, 0, sizeof mine);
	if (wd.rank == 0 && getrandom(&wd.token, sizeof wd.token, 0) != (ssize_t)sizeof wd.token)
		wd.token = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)(clock_now() * 1e9);
	MPI_Bcast(&wd.token, 1, MPI_UINT64_T, 0, comm);
	MPI_Allgather(&mine, sizeof mine, MPI_BYTE, wd.peers, sizeof mine, MPI_BYTE, comm);
	__atomic_store_n(&wd.running, 1, __ATOMIC_RELEASE);
	if (!ok || pthread_create(&wd.th, NULL, watch, NULL)) {
		__atomic_store_n(&wd.running, 0, __ATOMIC_RELEASE);
		LOG_WARN("watchdog: not started on this rank: a hung step is bounded by the launcher alone");
		return -1;
	}
	return 0;
}

void watchdog_arm(double seconds, const char *what)
{
	pthread_mutex_lock(&wd.mu);
	wd.seq++;
	snprintf(wd.what, sizeof wd.what, "%s", what);
	wd.bound = seconds;
	wd.armed_at = clock_now();
	wd.deadline = seconds > 0 ? wd.armed_at + seconds : 0;
	pthread_mutex_unlock(&wd.mu);
}

void watchdog_hook(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&wd.mu);
	wd.hook = fn;
	wd.hook_arg = arg;
	pthread_mutex_unlock(&wd.mu);
}

void watchdog_disarm(void)
{
	pthread_mutex_lock(&wd.mu);
	wd.deadline = wd.armed_at = 0;
	pthread_mutex_unlock(&wd.mu);
}

void watchdog_stop(void)
{
	if (__atomic_exchange_n(&wd.running, 0, __ATOMIC_ACQ_REL))
		pthread_join(wd.th, NULL);
	if (wd.fd >= 0)
		close(wd.fd);
	wd.fd = -1;
	free(wd.peers);
	wd.peers = NULL;
	watchdog_disarm();
}
