/* tr_mpi.c — the "mpi" transport: point to point through the MPI library itself, over
 * whatever it chose (shared memory within a node; TCP, UCX, … between nodes). Messages use
 * a communicator of their own, duplicated per path, and a tag per pair, so that a message
 * left over from a pair that timed out can never match another pair's. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mpi_util.h"
#include "transport.h"

enum { TAG_PING, TAG_PONG, TAG_DATA, TAG_ACK, TAG_RING, TAG_KINDS };

struct mpi_ctx {
	MPI_Comm comm;
	char *sbuf, *rbuf;   /* max_size bytes each; content is never checked */
	MPI_Request *reqs;   /* max_window + 1 */
	int tag_span;        /* pairs distinguishable by tag before wrap-around */
};

struct mpi_conn {
	struct tr_conn base;
	struct mpi_ctx *ctx;
	int tag; /* first of TAG_KINDS tags */
};

static void mpi_close(void *vctx)
{
	struct mpi_ctx *ctx = vctx;

	if (!ctx)
		return;
	if (ctx->comm != MPI_COMM_NULL)
		MPI_Comm_free(&ctx->comm);
	free(ctx->sbuf);
	free(ctx->rbuf);
	free(ctx->reqs);
	free(ctx);
}

static int mpi_check(const char *arg, char *why)
{
	if (!arg)
		return 0;
	snprintf(why, TR_WHY_MAX, "path mpi takes no argument (got mpi:%.60s)", arg);
	return FP_EUSAGE;
}

/* What the library holds of the settings that choose its transport (MPI_T): "Open MPI
 * pml=ob1 btl=tcp,self btl_tcp_if_include=eth1", the unset ones left out. Which one it then
 * selected among those allowed is not visible through MPI_T's control variables. */
static void mpi_carried(char *out, size_t len)
{
	static const char *const names[] = { "pml", "btl", "btl_tcp_if_include", "pml_ucx_tls", "pml_ucx_devices" };
	enum { N = sizeof names / sizeof names[0] };
	char v[N][96], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int known[N], any = 0, n = 0;
	size_t k;

	MPI_Get_library_version(lib, &n);
	lib[strcspn(lib, "\n,")] = 0;
	mpi_cvars_read(names, N, v[0], sizeof v[0], known);
	k = (size_t)snprintf(out, len, "%.40s", strncmp(lib, "Open MPI", 8) ? lib : "Open MPI");
	for (int i = 0; i < N; i++)
		if (known[i] && v[i][0] && k < len) {
			k += (size_t)snprintf(out + k, len - k, " %s=%s", names[i], v[i]);
			any = 1;
		}
	if (!any && k < len)
		snprintf(out + k, len - k, ": transports its own choice (no pml or btl set)");
}

static int mpi_open(const struct tr_env *env, const char *arg, void **out, struct tr_port *port)
{
	struct mpi_ctx *ctx = calloc(1, sizeof *ctx);
	int *tag_ub = NULL, flag = 0;

	if (!ctx)
		return FP_ERUNTIME;
	ctx->comm = MPI_COMM_NULL;
	if (arg) {
		LOG_ERROR("path mpi takes no argument (got mpi:%s)", arg);
		goto err;
	}
	if (MPI_Comm_dup(env->comm, &ctx->comm) != MPI_SUCCESS)
		goto err;
	MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
	ctx->tag_span = (flag && *tag_ub > 32767 ? *tag_ub : 32767) / TAG_KINDS - 1;
	ctx->sbuf = malloc(env->max_size);
	ctx->rbuf = malloc(env->max_size);
	ctx->reqs = malloc(sizeof *ctx->reqs * (size_t)(env->max_window + 1));
	if (!ctx->sbuf || !ctx->rbuf || !ctx->reqs) {
		LOG_ERROR("out of memory for %zu-byte buffers", env->max_size);
		goto err;
	}
	/* touch every page now, so that no page fault lands in a timed loop */
	memset(ctx->sbuf, 0xa5, env->max_size);
	memset(ctx->rbuf, 0, env->max_size);
	snprintf(port->dev, sizeof port->dev, "rank%d", env->ep);
	mpi_carried(port->carried, sizeof port->carried);
	/* which wire MPI picked between nodes is not visible through the MPI API */
	snprintf(port->kind, sizeof port->kind, "%s", env->single_node ? "shm" : "");
	port->rate_gbps = NAN;
	port->usable = 1;
	*out = ctx;
	return 0;
err:
	mpi_close(ctx);
	return FP_ERUNTIME;
}

static int mpi_connect(void *vctx, int peer, unsigned seq, double deadline, struct tr_conn **out,
		       char *why)
{
	struct mpi_ctx *ctx = vctx;
	struct mpi_conn *c = calloc(1, sizeof *c);

	(void)deadline;
	if (!c) {
		snprintf(why, TR_WHY_MAX, "out of memory");
		return FP_ERUNTIME;
	}
	c->base.peer = peer;
	c->ctx = ctx;
	c->tag = (int)(seq % (unsigned)ctx->tag_span) * TAG_KINDS;
	*out = &c->base;
	return 0;
}

static void mpi_disconnect(struct tr_conn *c)
{
	free(c);
}

/* Finish a wait: on failure say what was being waited for. */
static int mpi_done(struct mpi_conn *c, int rc, const char *what)
{
	if (rc == FP_ETIMEDOUT)
		snprintf(c->base.why, TR_WHY_MAX, "timed out waiting for %s", what);
	else if (rc)
		snprintf(c->base.why, TR_WHY_MAX, "MPI error waiting for %s", what);
	return rc;
}

static int mpi_roundtrip(struct tr_conn *base, size_t size, double deadline)
{
	struct mpi_conn *c = (struct mpi_conn *)base;
	MPI_Request r[2];

	CHECK_MPI(MPI_Irecv(c->ctx->rbuf, (int)size, MPI_BYTE, base->peer, c->tag + TAG_PONG,
			    c->ctx->comm, &r[0]));
	CHECK_MPI(MPI_Isend(c->ctx->sbuf, (int)size, MPI_BYTE, base->peer, c->tag + TAG_PING,
			    c->ctx->comm, &r[1]));
	return mpi_done(c, mpi_wait_deadline(r, 2, deadline), "the echo");
}

static int mpi_echo(struct tr_conn *base, size_t size, double deadline)
{
	struct mpi_conn *c = (struct mpi_conn *)base;
	MPI_Request r;
	int rc;

	CHECK_MPI(MPI_Irecv(c->ctx->rbuf, (int)size, MPI_BYTE, base->peer, c->tag + TAG_PING,
			    c->ctx->comm, &r));
	if ((rc = mpi_wait_deadline(&r, 1, deadline)))
		return mpi_done(c, rc, "the ping");
	CHECK_MPI(MPI_Isend(c->ctx->sbuf, (int)size, MPI_BYTE, base->peer, c->tag + TAG_PONG,
			    c->ctx->comm, &r));
	return mpi_done(c, mpi_wait_deadline(&r, 1, deadline), "the echo to be sent");
}

static int mpi_stream_send(struct tr_conn *base, size_t size, int window, double deadline)
{
	struct mpi_conn *c = (struct mpi_conn *)base;
	MPI_Request *r = c->ctx->reqs;

	CHECK_MPI(MPI_Irecv(c->ctx->rbuf, 1, MPI_BYTE, base->peer, c->tag + TAG_ACK, c->ctx->comm,
			    &r[window]));
	/* like osu_bw, every message of the window reads the same buffer */
	for (int i = 0; i < window; i++)
		CHECK_MPI(MPI_Isend(c->ctx->sbuf, (int)size, MPI_BYTE, base->peer, c->tag + TAG_DATA,
				    c->ctx->comm, &r[i]));
	return mpi_done(c, mpi_wait_deadline(r, window + 1, deadline), "the window's acknowledgement");
}

static int mpi_stream_recv(struct tr_conn *base, size_t size, int window, double deadline)
{
	struct mpi_conn *c = (struct mpi_conn *)base;
	MPI_Request *r = c->ctx->reqs;
	int rc;

	/* like osu_bw, the whole window lands in one buffer: the bytes are not looked at */
	for (int i = 0; i < window; i++)
		CHECK_MPI(MPI_Irecv(c->ctx->rbuf, (int)size, MPI_BYTE, base->peer, c->tag + TAG_DATA,
				    c->ctx->comm, &r[i]));
	if ((rc = mpi_wait_deadline(r, window, deadline)))
		return mpi_done(c, rc, "the window's data");
	CHECK_MPI(MPI_Isend(c->ctx->sbuf, 1, MPI_BYTE, base->peer, c->tag + TAG_ACK, c->ctx->comm, &r[0]));
	return mpi_done(c, mpi_wait_deadline(r, 1, deadline), "the acknowledgement to be sent");
}

/* The ring's step: the tags are the pair's, so to's is the one its peer receives with. */
static int mpi_exchange(struct tr_conn *tb, const void *sbuf, size_t slen, struct tr_conn *fb, void *rbuf,
			size_t rlen, double deadline)
{
	struct mpi_conn *to = (struct mpi_conn *)tb, *from = (struct mpi_conn *)fb;
	MPI_Request r[2];

	if (slen > INT_MAX || rlen > INT_MAX) {
		snprintf(fb->why, TR_WHY_MAX, "a ring step of more than INT_MAX bytes");
		return FP_ERUNTIME;
	}
	CHECK_MPI(MPI_Irecv(rbuf, (int)rlen, MPI_BYTE, fb->peer, from->tag + TAG_RING, from->ctx->comm, &r[0]));
	CHECK_MPI(MPI_Isend(sbuf, (int)slen, MPI_BYTE, tb->peer, to->tag + TAG_RING, to->ctx->comm, &r[1]));
	return mpi_done(from, mpi_wait_deadline(r, 2, deadline), "the ring's data");
}

const struct transport_ops transport_mpi = {
	.name = "mpi",
	.summary = "point to point through the MPI library (shared memory, TCP, UCX… as MPI chose)",
	.check = mpi_check,
	.open = mpi_open,
	.connect = mpi_connect,
	.roundtrip = mpi_roundtrip,
	.echo = mpi_echo,
	.stream_send = mpi_stream_send,
	.stream_recv = mpi_stream_recv,
	.exchange = mpi_exchange,
	.disconnect = mpi_disconnect,
	.close = mpi_close,
};
