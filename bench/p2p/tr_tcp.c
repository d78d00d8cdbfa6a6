/* tr_tcp.c — the "tcp:<netdev>" transport: raw TCP between the nodes' addresses on one
 * interface, so that a given wire (the 25GbE port, the IPoIB interface) is measured on its own,
 * whatever MPI would have chosen.
 *
 * Each endpoint listens on its own IPv4 address of the interface (an ephemeral port); address,
 * port and a per-run random token are exchanged over MPI at open. For a pair, the lower
 * endpoint connects from its own address (bound to the device) and says hello {token, from,
 * to, seq}; the higher accepts only that hello, closes and logs anything else, and answers one
 * byte. Latency uses TCP_NODELAY; the data path polls the socket for a short while before it
 * sleeps in poll(), so that a ping-pong is not measured through a scheduler wake-up, except
 * when the two sides share one core (env->shared_core): there it sleeps at once, handing the
 * core to the peer. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <math.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/mpi_util.h"
#include "node/inv_link.h"
#include "transport.h"

#define HELLO_MAGIC 0x66707462u /* "fptb" */
#define SPIN_TRIES 2000         /* non-blocking tries before sleeping in poll() */
#define HELLO_SECONDS 2.0       /* a peer's hello follows its connect within microseconds */

struct tcp_addr { /* what each endpoint publishes at open */
	uint32_t ip;      /* network order; 0 = not usable here */
	uint16_t port;    /* network order */
};

struct tcp_hello {
	uint32_t magic;
	uint32_t from, to, seq;
	uint64_t token;
};

struct tcp_ctx {
	int me, nep, lfd;
	char dev[IF_NAMESIZE];
	uint64_t token;
	struct tcp_addr *addrs;  /* every endpoint's */
	char *sbuf, *rbuf;
	size_t max;
	int fault;               /* test only: TR_FAULT_* for this endpoint */
	int spin;                /* non-blocking tries before poll(): SPIN_TRIES, 0 on a shared core */
	int bound;               /* sockets may be bound to dev (SO_BINDTODEVICE): both ends are */
};

struct tcp_conn {
	struct tr_conn base;
	struct tcp_ctx *ctx;
	int fd;
	int strangers[2];        /* test only (TR_FAULT_STRANGER): held open through the pair */
	long streamed;           /* windows sent, for the reset fault */
};

/* ---------------------------------------------------------------- socket I/O with deadlines */

/* Wait until one of n descriptors is ready for what it asks, or the deadline. */
static int wait_fds(struct pollfd *p, int n, double deadline)
{
	for (;;) {
		double left = deadline - clock_now();
		int k;

		if (left <= 0)
			return FP_ETIMEDOUT;
		k = poll(p, (nfds_t)n, left > 0.1 ? 100 : (int)(left * 1000) + 1);
		if (k > 0)
			return 0;
		if (k < 0 && errno != EINTR)
			return FP_ERUNTIME;
	}
}

static int wait_fd(int fd, short ev, double deadline)
{
	struct pollfd p = { fd, ev, 0 };

	return wait_fds(&p, 1, deadline);
}

/* After send() or recv() moved nothing (n <= 0): 1 to wait and try again, else FP_EPEER or
 * FP_ERUNTIME with the reason in c's why. */
static int io_again(struct tcp_conn *c, int sending, ssize_t n)
{
	if (n == 0) {
		snprintf(c->base.why, TR_WHY_MAX, "connection closed by the peer");
		return FP_EPEER;
	}
	if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
		return 1;
	snprintf(c->base.why, TR_WHY_MAX, "%s: %s", sending ? "send" : "recv", strerror(errno));
	return errno == ECONNRESET || errno == EPIPE ? FP_EPEER : FP_ERUNTIME;
}

/* Move len bytes through fd (send or receive), polling before sleeping. */
static int xfer(struct tcp_conn *c, int sending, char *buf, size_t len, double deadline)
{
	int tries = 0, rc;

	while (len) {
		ssize_t n = sending ? send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL)
				    : recv(c->fd, buf, len, MSG_DONTWAIT);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			tries = 0;
			continue;
		}
		if ((rc = io_again(c, sending, n)) != 1)
			return rc;
		if (++tries < c->ctx->spin)
			continue;
		tries = 0;
		if ((rc = wait_fd(c->fd, sending ? POLLOUT : POLLIN, deadline))) {
			snprintf(c->base.why, TR_WHY_MAX, "timed out %s", sending ? "sending" : "waiting for data");
			return rc;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- open / close */

static void tcp_close(void *vctx)
{
	struct tcp_ctx *ctx = vctx;

	if (!ctx)
		return;
	if (ctx->lfd >= 0)
		close(ctx->lfd);
	free(ctx->addrs);
	free(ctx->sbuf);
	free(ctx->rbuf);
	free(ctx);
}

/* The interface's first IPv4 address (network order). 0, or -1 when it has none. */
static int if_ipv4(const char *dev, uint32_t *ip)
{
	struct ifaddrs *all, *a;
	int rc = -1;

	if (getifaddrs(&all))
		return -1;
	for (a = all; a; a = a->ifa_next)
		if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET && !strcmp(a->ifa_name, dev)) {
			*ip = ((struct sockaddr_in *)a->ifa_addr)->sin_addr.s_addr;
			rc = 0;
			break;
		}
	freeifaddrs(all);
	return rc;
}

/* Keep a connection's traffic on the interface, where routing would pick another (two ports
 * in one subnet): the connecting and the accepting socket alike. 0, or FP_ERUNTIME with why. */
static int bind_dev(struct tcp_conn *c)
{
	struct tcp_ctx *ctx = c->ctx;

	if (!ctx->bound || !setsockopt(c->fd, SOL_SOCKET, SO_BINDTODEVICE, ctx->dev, (socklen_t)strlen(ctx->dev)))
		return 0;
	snprintf(c->base.why, TR_WHY_MAX, "SO_BINDTODEVICE %s: %s", ctx->dev, strerror(errno));
	return FP_ERUNTIME;
}

/* Whether this process may bind sockets to the interface, said in port->carried. */
static void bind_probe(struct tcp_ctx *ctx, struct tr_port *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ctx->bound = fd >= 0 && !setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ctx->dev, (socklen_t)strlen(ctx->dev));
	if (ctx->bound)
		snprintf(port->carried, TR_WHY_MAX, "TCP, both ends bound to %s", ctx->dev);
	else
		snprintf(port->carried, TR_WHY_MAX, "TCP from %s's address, not bound to it (SO_BINDTODEVICE: %s): "
			 "the routes choose the interface", ctx->dev, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Listen on this node's address of the interface. Fills *me (ip 0 when not usable) and why. */
static void tcp_listen(struct tcp_ctx *ctx, struct tcp_addr *me, struct tr_port *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof sa;
	int one = 1;

	if (if_nametoindex(ctx->dev) == 0) {
		snprintf(port->why, TR_WHY_MAX, "no such interface %s", ctx->dev);
		return;
	}
	if (if_ipv4(ctx->dev, &sa.sin_addr.s_addr)) {
		snprintf(port->why, TR_WHY_MAX, "no IPv4 address on %s", ctx->dev);
		return;
	}
	ctx->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ctx->lfd < 0 || setsockopt(ctx->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(ctx->lfd, (struct sockaddr *)&sa, sizeof sa) || listen(ctx->lfd, 64) ||
	    getsockname(ctx->lfd, (struct sockaddr *)&sa, &sl) ||
	    fcntl(ctx->lfd, F_SETFL, O_NONBLOCK)) {
		snprintf(port->why, TR_WHY_MAX, "cannot listen on %s: %s", ctx->dev, strerror(errno));
		return;
	}
	me->ip = sa.sin_addr.s_addr;
	me->port = sa.sin_port;
	port->usable = 1;
	bind_probe(ctx, port);
}

/* tcp:<netdev>: a Linux interface name (1..15 bytes, no '/', no white space, not . or ..) */
static int tcp_check(const char *arg, char *why)
{
	size_t len = arg ? strlen(arg) : 0;

	if (len == 0) {
		snprintf(why, TR_WHY_MAX, "path tcp needs an interface: tcp:<netdev>, e.g. tcp:eth0");
		return FP_EUSAGE;
	}
	if (len >= IF_NAMESIZE || !strcmp(arg, ".") || !strcmp(arg, "..") || strchr(arg, '/') ||
	    strpbrk(arg, " \t\r\n:")) {
		snprintf(why, TR_WHY_MAX, "'%.40s' is not an interface name (1 to %d characters, no '/', ':' "
			 "or white space)", arg, IF_NAMESIZE - 1);
		return FP_EUSAGE;
	}
	return 0;
}

static int tcp_open(const struct tr_env *env, const char *arg, void **out, struct tr_port *port)
{
	struct tcp_ctx *ctx = calloc(1, sizeof *ctx);
	struct tcp_addr me = { 0, 0 };

	if (!ctx)
		return FP_ERUNTIME;
	ctx->lfd = -1;
	ctx->me = env->ep;
	ctx->nep = env->nep;
	ctx->max = env->max_size;
	ctx->fault = env->fault;
	ctx->spin = env->shared_core ? 0 : SPIN_TRIES;
	ctx->addrs = calloc((size_t)env->nep, sizeof *ctx->addrs);
	if (!ctx->addrs) {
		free(ctx); /* a few bytes per endpoint: nothing can go on */
		return FP_ERUNTIME;
	}
	ctx->sbuf = malloc(env->max_size);
	ctx->rbuf = malloc(env->max_size);
	snprintf(ctx->dev, sizeof ctx->dev, "%s", arg ? arg : "");
	snprintf(port->dev, sizeof port->dev, "%s", ctx->dev);
	port->rate_gbps = NAN;
	if (!ctx->sbuf || !ctx->rbuf) /* this endpoint's pairs are skipped; the exchange goes on */
		snprintf(port->why, TR_WHY_MAX, "out of memory for two %zu-byte buffers", env->max_size);
	else if (!arg || !*arg || strlen(arg) >= IF_NAMESIZE)
		snprintf(port->why, TR_WHY_MAX, "path tcp needs an interface: tcp:<netdev>");
	else {
		struct inv_netdev nd;

		inv_netdev_read("/sys", ctx->dev, &nd);
		snprintf(port->kind, sizeof port->kind, "%s", inv_kind_name(nd.kind));
		port->rate_gbps = nd.rate_gbps;
		memset(ctx->sbuf, 0x5a, env->max_size);
		memset(ctx->rbuf, 0, env->max_size);
		tcp_listen(ctx, &me, port);
	}
	/* the token: random on endpoint 0, the same everywhere */
	if (env->ep == 0 && getrandom(&ctx->token, sizeof ctx->token, 0) != sizeof ctx->token)
		ctx->token = (uint64_t)clock_now() * 2654435761u ^ (uint64_t)getpid();
	if (MPI_Bcast(&ctx->token, 1, MPI_UINT64_T, 0, env->comm) ||
	    MPI_Allgather(&me, sizeof me, MPI_BYTE, ctx->addrs, sizeof me, MPI_BYTE, env->comm)) {
		tcp_close(ctx);
		return FP_ERUNTIME;
	}
	*out = ctx;
	return 0;
}

/* ---------------------------------------------------------------- connect */

static int set_nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) || fcntl(fd, F_SETFL, O_NONBLOCK);
}

/* test only: two connections ahead of ours that never finish a hello */
static void strangers_connect(struct tcp_conn *c, const struct sockaddr_in *dst, const struct tcp_hello *h)
{
	for (int k = 0; k < 2; k++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0 || connect(fd, (const struct sockaddr *)dst, sizeof *dst)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (k == 1) /* half a hello, then silence */
			(void)!send(fd, h, sizeof *h / 2, MSG_NOSIGNAL);
		c->strangers[k] = fd;
	}
	/* long enough for the listener to give up on them before our own connection arrives */
	clock_sleep_us((long)((HELLO_SECONDS + 0.5) * 1e6));
}

/* lower endpoint: connect from our own address on the device, say hello, wait for the byte */
static int tcp_dial(struct tcp_ctx *ctx, struct tcp_conn *c, unsigned seq, double deadline)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr.s_addr = ctx->addrs[ctx->me].ip };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_addr.s_addr = ctx->addrs[c->base.peer].ip,
				   .sin_port = ctx->addrs[c->base.peer].port };
	struct tcp_hello h = { HELLO_MAGIC, (uint32_t)ctx->me, (uint32_t)c->base.peer, seq, ctx->token };
	char ok;
	int rc, err = 0;
	socklen_t el = sizeof err;

	if (ctx->fault == TR_FAULT_BAD_TOKEN)
		h.token ^= 0xdeadbeef;
	if (ctx->fault == TR_FAULT_STRANGER)
		strangers_connect(c, &dst, &h);
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&src, sizeof src)) {
		snprintf(c->base.why, TR_WHY_MAX, "socket on %s: %s", ctx->dev, strerror(errno));
		return FP_ERUNTIME;
	}
	if (bind_dev(c))
		return FP_ERUNTIME;
	if (connect(c->fd, (struct sockaddr *)&dst, sizeof dst) && errno != EINPROGRESS) {
		snprintf(c->base.why, TR_WHY_MAX, "connect: %s", strerror(errno));
		return errno == ECONNREFUSED ? FP_EPEER : FP_ERUNTIME;
	}
	if ((rc = wait_fd(c->fd, POLLOUT, deadline))) {
		snprintf(c->base.why, TR_WHY_MAX, "timed out connecting");
		return rc;
	}
	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el) || err) {
		snprintf(c->base.why, TR_WHY_MAX, "connect: %s", strerror(err));
		return FP_EPEER;
	}
	if (set_nodelay(c->fd) || (rc = xfer(c, 1, (char *)&h, sizeof h, deadline)) ||
	    (rc = xfer(c, 0, &ok, 1, deadline))) {
		if (rc == FP_EPEER)
			snprintf(c->base.why, TR_WHY_MAX, "the peer closed the connection after the hello "
				 "(it did not accept us)");
		else if (rc == FP_ETIMEDOUT)
			snprintf(c->base.why, TR_WHY_MAX, "connected, but the peer never answered the hello");
		return rc ? rc : FP_ERUNTIME;
	}
	return 0;
}

/* ---------------------------------------------------------------- the listener
 *
 * No connection may hold the listener: every accepted connection is pending until it has said
 * its whole hello, and is polled together with the listener (and the others); a connection
 * gets HELLO_SECONDS to say it, whatever the pair deadline, and one that says something else,
 * closes, or stays silent is a stranger: logged at once and closed, while the real peer's
 * connection is served as soon as its hello arrives. */

#define PENDING_MAX 32      /* connections waiting to say their hello */

struct pending {
	int fd;
	double until;           /* its hello must be complete by then */
	size_t got;             /* bytes of the hello so far */
	struct tcp_hello h;
	struct sockaddr_in from;
};

static void stranger(struct tcp_ctx *ctx, struct pending *p, int peer, unsigned seq, const char *what)
{
	LOG_WARN("tcp:%s: rejected a connection from %s:%u: %s (expected peer %d of pair %u)", ctx->dev,
		 inet_ntoa(p->from.sin_addr), ntohs(p->from.sin_port), what, peer, seq);
	close(p->fd);
	p->fd = -1;
}

/* accept what the listener holds into the pending set */
static void accept_all(struct tcp_ctx *ctx, struct pending *p, int *np, int peer, unsigned seq)
{
	for (;;) {
		struct pending q = { .until = clock_now() + HELLO_SECONDS };
		socklen_t fl = sizeof q.from;

		q.fd = accept4(ctx->lfd, (struct sockaddr *)&q.from, &fl, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (q.fd < 0)
			return;
		if (*np == PENDING_MAX) { /* a flood: the oldest stranger makes room */
			stranger(ctx, &p[0], peer, seq, "too many connections at once");
			memmove(p, p + 1, sizeof *p * (size_t)--*np);
		}
		p[(*np)++] = q;
	}
}

/* read what a pending connection has sent: 1 when its hello is complete, 0 when not yet, -1
 * when it closed or failed (a stranger, logged and closed) */
static int hello_read(struct tcp_ctx *ctx, struct pending *p, int peer, unsigned seq)
{
	ssize_t n = recv(p->fd, (char *)&p->h + p->got, sizeof p->h - p->got, MSG_DONTWAIT);

	if (n > 0) {
		p->got += (size_t)n;
		return p->got == sizeof p->h;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	stranger(ctx, p, peer, seq, n == 0 ? "it closed before its hello" : strerror(errno));
	return -1;
}

/* Pending connections silent for too long are strangers; returns when the next one's time is
 * up (or the deadline). */
static double expire(struct tcp_ctx *ctx, struct pending *p, int *np, double now, double deadline, int peer,
		     unsigned seq)
{
	double wake = deadline;
	int k = 0;

	for (int i = 0; i < *np; i++) {
		if (now >= p[i].until) {
			char what[64];

			snprintf(what, sizeof what, "no hello within %.0f s (%zu of %zu bytes)", HELLO_SECONDS,
				 p[i].got, sizeof p[i].h);
			stranger(ctx, &p[i], peer, seq, what);
			continue;
		}
		wake = p[i].until < wake ? p[i].until : wake;
		p[k++] = p[i];
	}
	*np = k;
	return wake;
}

/* higher endpoint: the connection of the expected peer with the right hello */
static int tcp_answer(struct tcp_ctx *ctx, struct tcp_conn *c, unsigned seq, double deadline)
{
	struct pending p[PENDING_MAX];
	int np = 0, peer = c->base.peer;

	for (;;) {
		struct pollfd pfd[1 + PENDING_MAX] = { { ctx->lfd, POLLIN, 0 } };
		double now = clock_now(), wake = expire(ctx, p, &np, now, deadline, peer, seq);
		int k;

		if (now >= deadline) {
			for (int i = 0; i < np; i++)
				stranger(ctx, &p[i], peer, seq, "no hello before the pair deadline");
			snprintf(c->base.why, TR_WHY_MAX, "timed out waiting for the peer to connect");
			return FP_ETIMEDOUT;
		}
		for (int i = 0; i < np; i++)
			pfd[1 + i] = (struct pollfd){ p[i].fd, POLLIN, 0 };
		if (poll(pfd, (nfds_t)(1 + np), (int)((wake - now) * 1000) + 1) < 0 && errno != EINTR) {
			snprintf(c->base.why, TR_WHY_MAX, "poll: %s", strerror(errno));
			for (int i = 0; i < np; i++)
				close(p[i].fd);
			return FP_ERUNTIME;
		}
		for (int i = 0; i < np; i++) {
			if (!pfd[1 + i].revents || hello_read(ctx, &p[i], peer, seq) <= 0)
				continue;
			if (p[i].h.magic != HELLO_MAGIC || p[i].h.token != ctx->token) {
				stranger(ctx, &p[i], peer, seq, "a wrong token");
			} else if (p[i].h.from != (uint32_t)peer || p[i].h.to != (uint32_t)ctx->me || p[i].h.seq != seq) {
				stranger(ctx, &p[i], peer, seq, "another pair's hello");
			} else { /* the peer: the others pending are strangers */
				char ok = 1;

				c->fd = p[i].fd;
				for (int j = 0; j < np; j++)
					if (j != i && p[j].fd >= 0)
						stranger(ctx, &p[j], peer, seq, "a connection besides the peer's");
				return bind_dev(c) || set_nodelay(c->fd) ? FP_ERUNTIME : xfer(c, 1, &ok, 1, deadline);
			}
		}
		for (int i = k = 0; i < np; i++)
			if (p[i].fd >= 0)
				p[k++] = p[i];
		np = k;
		if (pfd[0].revents)
			accept_all(ctx, p, &np, peer, seq);
	}
}

static int tcp_connect(void *vctx, int peer, unsigned seq, double deadline, struct tr_conn **out, char *why)
{
	struct tcp_ctx *ctx = vctx;
	struct tcp_conn *c = calloc(1, sizeof *c);
	int rc;

	if (!c) {
		snprintf(why, TR_WHY_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	c->base.peer = peer;
	c->ctx = ctx;
	c->fd = -1;
	c->strangers[0] = c->strangers[1] = -1;
	*out = &c->base;
	if (ctx->fault == TR_FAULT_NO_CONNECT) {
		/* test only: never dial, never answer; the peer must give up at its deadline */
		while (clock_now() < deadline)
			clock_sleep_us(10000);
		snprintf(why, TR_WHY_MAX, "test fault: did not connect");
		return FP_ETIMEDOUT;
	}
	rc = ctx->me < peer ? tcp_dial(ctx, c, seq, deadline) : tcp_answer(ctx, c, seq, deadline);
	if (rc)
		snprintf(why, TR_WHY_MAX, "%s", c->base.why);
	return rc;
}

static void tcp_disconnect(struct tr_conn *base)
{
	struct tcp_conn *c = (struct tcp_conn *)base;

	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	for (int k = 0; k < 2; k++)
		if (c->strangers[k] >= 0)
			close(c->strangers[k]);
	free(c);
}

/* ---------------------------------------------------------------- data */

static int tcp_roundtrip(struct tr_conn *base, size_t size, double deadline)
{
	struct tcp_conn *c = (struct tcp_conn *)base;
	int rc = xfer(c, 1, c->ctx->sbuf, size, deadline);

	return rc ? rc : xfer(c, 0, c->ctx->rbuf, size, deadline);
}

static int tcp_echo(struct tr_conn *base, size_t size, double deadline)
{
	struct tcp_conn *c = (struct tcp_conn *)base;
	int rc = xfer(c, 0, c->ctx->rbuf, size, deadline);

	return rc ? rc : xfer(c, 1, c->ctx->sbuf, size, deadline);
}

static int tcp_stream_send(struct tr_conn *base, size_t size, int window, double deadline)
{
	struct tcp_conn *c = (struct tcp_conn *)base;
	char ack;
	int rc;

	for (int i = 0; i < window; i++) {
		if (c->ctx->fault == TR_FAULT_RESET && c->streamed == 1 && i == window / 2) {
			/* test only: reset the connection in the middle of a stream */
			struct linger lg = { 1, 0 };

			setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
			close(c->fd);
			c->fd = -1;
			snprintf(base->why, TR_WHY_MAX, "test fault: reset the connection mid-stream");
			return FP_EPEER;
		}
		if ((rc = xfer(c, 1, c->ctx->sbuf, size, deadline)))
			return rc;
	}
	c->streamed++;
	return xfer(c, 0, &ack, 1, deadline);
}

static int tcp_stream_recv(struct tr_conn *base, size_t size, int window, double deadline)
{
	struct tcp_conn *c = (struct tcp_conn *)base;
	char ack = 1;
	int rc;

	for (int i = 0; i < window; i++)
		if ((rc = xfer(c, 0, c->ctx->rbuf, size, deadline)))
			return rc;
	return xfer(c, 1, &ack, 1, deadline);
}

/* The ring's step: both directions at once, each socket as far as it goes without blocking,
 * then a wait for whichever can move. */
static int tcp_exchange(struct tr_conn *tb, const void *sbuf, size_t slen, struct tr_conn *fb, void *rbuf,
			size_t rlen, double deadline)
{
	struct tcp_conn *to = (struct tcp_conn *)tb, *from = (struct tcp_conn *)fb;
	const char *s = sbuf;
	char *r = rbuf;
	int tries = 0, rc;

	while (slen || rlen) {
		int moved = 0;

		if (slen) {
			ssize_t n = send(to->fd, s, slen, MSG_DONTWAIT | MSG_NOSIGNAL);

			if (n > 0) {
				s += n, slen -= (size_t)n, moved = 1;
			} else if ((rc = io_again(to, 1, n)) != 1) {
				return rc;
			}
		}
		if (rlen) {
			ssize_t n = recv(from->fd, r, rlen, MSG_DONTWAIT);

			if (n > 0) {
				r += n, rlen -= (size_t)n, moved = 1;
			} else if ((rc = io_again(from, 0, n)) != 1) {
				return rc;
			}
		}
		if (moved || ++tries < to->ctx->spin) {
			tries = moved ? 0 : tries;
			continue;
		}
		tries = 0;
		struct pollfd p[2];
		int np = 0;

		if (slen)
			p[np++] = (struct pollfd){ to->fd, POLLOUT, 0 };
		if (rlen)
			p[np++] = (struct pollfd){ from->fd, POLLIN, 0 };
		if ((rc = wait_fds(p, np, deadline))) {
			snprintf((rlen ? from : to)->base.why, TR_WHY_MAX, "timed out in the ring's step (%s)",
				 rlen ? "waiting for data" : "sending");
			return rc;
		}
	}
	return 0;
}

const struct transport_ops transport_tcp = {
	.name = "tcp",
	.summary = "raw TCP over one interface, tcp:<netdev> (Ethernet, IPoIB)",
	.check = tcp_check,
	.open = tcp_open,
	.connect = tcp_connect,
	.roundtrip = tcp_roundtrip,
	.echo = tcp_echo,
	.stream_send = tcp_stream_send,
	.stream_recv = tcp_stream_recv,
	.exchange = tcp_exchange,
	.disconnect = tcp_disconnect,
	.close = tcp_close,
};
