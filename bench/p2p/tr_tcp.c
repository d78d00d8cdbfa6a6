/* tr_tcp.c — the "tcp:<netdev>" transport: raw TCP between the nodes' addresses on one
 * interface, so that a given wire (the 25GbE port, the IPoIB interface) is measured on its own,
 * whatever MPI would have chosen.
 *
 * Each endpoint listens on its own IPv4 address of the interface (an ephemeral port); address,
 * port and a per-run random token are exchanged over MPI at open. For a pair, the lower
 * endpoint connects from its own address (bound to the device) and says hello {token, from,
 * to, seq}; the higher accepts only that hello, closes and logs anything else, and answers one
 * byte. Latency uses TCP_NODELAY; the data path polls the socket for a short while before it
 * sleeps in poll(), so that a ping-pong is not measured through a scheduler wake-up. */
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
#include "tcp_info.h"
#include "transport.h"

#define HELLO_MAGIC 0x66707462u /* "fptb" */
#define SPIN_TRIES 2000         /* non-blocking tries before sleeping in poll() */

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
};

struct tcp_conn {
	struct tr_conn base;
	struct tcp_ctx *ctx;
	int fd;
	long streamed;           /* windows sent, for the reset fault */
};

/* ---------------------------------------------------------------- socket I/O with deadlines */

static int wait_fd(int fd, short ev, double deadline)
{
	for (;;) {
		double left = deadline - clock_now();
		struct pollfd p = { fd, ev, 0 };
		int n;

		if (left <= 0)
			return FP_ETIMEDOUT;
		n = poll(&p, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return FP_ERUNTIME;
	}
}

/* Move len bytes through fd (send or receive), polling before sleeping. */
static int xfer(struct tcp_conn *c, int sending, char *buf, size_t len, double deadline)
{
	int tries = 0;

	while (len) {
		ssize_t n = sending ? send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL)
				    : recv(c->fd, buf, len, MSG_DONTWAIT);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			tries = 0;
			continue;
		}
		if (n == 0) {
			snprintf(c->base.why, TR_WHY_MAX, "connection closed by the peer");
			return FP_EPEER;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			snprintf(c->base.why, TR_WHY_MAX, "%s: %s", sending ? "send" : "recv", strerror(errno));
			return errno == ECONNRESET || errno == EPIPE ? FP_EPEER : FP_ERUNTIME;
		}
		if (++tries < SPIN_TRIES)
			continue;
		tries = 0;
		int rc = wait_fd(c->fd, sending ? POLLOUT : POLLIN, deadline);
		if (rc) {
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

/* Listen on this node's address of the interface. Fills *me (ip 0 when not usable) and why. */
static void tcp_listen(struct tcp_ctx *ctx, struct tcp_addr *me, struct tr_port *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof sa;
	int one = 1;

	if (tcp_if_ipv4(ctx->dev, &sa.sin_addr.s_addr)) {
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
		tcp_if_describe(NULL, ctx->dev, port->kind, sizeof port->kind, &port->rate_gbps);
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
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&src, sizeof src)) {
		snprintf(c->base.why, TR_WHY_MAX, "socket on %s: %s", ctx->dev, strerror(errno));
		return FP_ERUNTIME;
	}
	/* keep the traffic on this interface even where routing would pick another (root only) */
	setsockopt(c->fd, SOL_SOCKET, SO_BINDTODEVICE, ctx->dev, (socklen_t)strlen(ctx->dev));
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

/* higher endpoint: accept until the expected peer says the right hello */
static int tcp_answer(struct tcp_ctx *ctx, struct tcp_conn *c, unsigned seq, double deadline)
{
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof from;
		struct tcp_hello h;
		int rc, fd;

		if ((rc = wait_fd(ctx->lfd, POLLIN, deadline))) {
			snprintf(c->base.why, TR_WHY_MAX, "timed out waiting for the peer to connect");
			return rc;
		}
		fd = accept4(ctx->lfd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		c->fd = fd;
		if (set_nodelay(fd) == 0 && xfer(c, 0, (char *)&h, sizeof h, deadline) == 0 &&
		    h.magic == HELLO_MAGIC && h.token == ctx->token && h.from == (uint32_t)c->base.peer &&
		    h.to == (uint32_t)ctx->me && h.seq == seq) {
			char ok = 1;

			return xfer(c, 1, &ok, 1, deadline);
		}
		LOG_WARN("tcp:%s: rejected a connection from %s:%u (not the expected peer %d of pair %u, "
			 "or a wrong token)", ctx->dev, inet_ntoa(from.sin_addr), ntohs(from.sin_port),
			 c->base.peer, seq);
		close(fd);
		c->fd = -1;
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

const struct transport_ops transport_tcp = {
	.name = "tcp",
	.summary = "raw TCP over one interface, tcp:<netdev> (Ethernet, IPoIB)",
	.open = tcp_open,
	.connect = tcp_connect,
	.roundtrip = tcp_roundtrip,
	.echo = tcp_echo,
	.stream_send = tcp_stream_send,
	.stream_recv = tcp_stream_recv,
	.disconnect = tcp_disconnect,
	.close = tcp_close,
};
