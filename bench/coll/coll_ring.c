/* coll_ring.c — the "ring" collective backend: fabprobe's own ring over one of its
 * point-to-point transports (p2p/transport.h: mpi, tcp:<netdev>, verbs:<device>:<port>), so
 * that an all-reduce is measured on the wire a path names, in the same launch as the pairs,
 * whatever the MPI library would have chosen.
 *
 * The pattern of NCCL's ring: an all-reduce is a reduce-scatter then an all-gather, n - 1
 * steps each, every rank sending one chunk to the next rank while it receives one from the
 * rank before (the transport's exchange: every hop of the ring busy at once); the reductions
 * run on the host. Ops: allreduce, reducescatter, allgather, sendrecv (one step: the ring's
 * hop alone); float, double, int32; sum, prod, max, min. Buffers follow NCCL's conventions
 * (no quirks): in place, a reduce-scatter leaves rank r's block at r x count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll_backend.h"
#include "core/clock.h"
#include "core/mpi_util.h"
#include "p2p/transport.h"

#define RING_SEG (4u << 20)     /* the transport's buffer: the most one step moves at once */
#define RING_CONNECT_S 30.0     /* a neighbour that has not connected by then is gone */
#define RING_STEP_S 60.0        /* ... nor finished one step */

struct ring {
	const struct transport_ops *t;
	void *tctx;
	struct tr_conn *to, *from; /* to rank + 1, from rank - 1: one connection when n == 2 */
	MPI_Comm comm;             /* the ranks of the ring (the caller's) */
	char *send, *recv;         /* max_bytes each */
	char *tmp, *acc;           /* a received chunk, a partial sum (a sendrecv in place: tmp) */
	int rank, n, yield;
	double rate;               /* the slowest rank's port, Gbit/s; NAN when any is unknown */
	double t0;
	char path[80];
};

#define MOD(a, n) ((((a) % (n)) + (n)) % (n))

/* first element of chunk k when total elements are cut in n */
static size_t chunk_at(uint64_t total, int n, int k)
{
	return (size_t)(total * (uint64_t)k / (uint64_t)n);
}

/* ---------------------------------------------------------------- the steps */

static int step(struct ring *x, const void *s, size_t slen, void *r, size_t rlen)
{
	int rc = x->t->exchange(x->to, s, slen, x->from, r, rlen, clock_now() + RING_STEP_S);

	if (rc)
		LOG_ERROR("ring over %s: rank %d: a step (to rank %d, from rank %d) failed: %s", x->path, x->rank,
			  x->to->peer, x->from->peer, x->from->why[0] ? x->from->why : x->to->why);
	return rc;
}

/* Reduce-scatter of in (total elements in n chunks): after n - 1 steps chunk `rank`, reduced
 * over every rank, is in dst. Step s sends chunk rank - s - 1 (the input at s = 0, then the
 * partial sum of the step before) and receives chunk rank - s - 2, which is reduced with this
 * rank's input into the next partial sum (at the last step: into dst). */
static int ring_rs(struct ring *x, const struct coll_case *c, const char *in, uint64_t total, char *dst)
{
	size_t sz = (size_t)c->dtype->size;
	int n = x->n, r = x->rank;

	if (n == 1) {
		memmove(dst, in, (size_t)total * sz);
		return 0;
	}
	for (int s = 0; s < n - 1; s++) {
		int si = MOD(r - s - 1, n), ri = MOD(r - s - 2, n);
		size_t so = chunk_at(total, n, si), sl = chunk_at(total, n, si + 1) - so;
		size_t ro = chunk_at(total, n, ri), rl = chunk_at(total, n, ri + 1) - ro;

		if (step(x, s == 0 ? in + so * sz : x->acc, sl * sz, x->tmp, rl * sz))
			return FP_ERUNTIME;
		coll_host_reduce(c->dtype->id, c->redop, s == n - 2 ? dst : x->acc, in + ro * sz, x->tmp, rl);
	}
	return 0;
}

/* All-gather in buf (total elements in n chunks, this rank's chunk in place): step s passes
 * chunk rank - s on and receives chunk rank - s - 1 where it belongs. */
static int ring_ag(struct ring *x, char *buf, uint64_t total, size_t sz)
{
	int n = x->n, r = x->rank;

	for (int s = 0; s < n - 1; s++) {
		int si = MOD(r - s, n), ri = MOD(r - s - 1, n);
		size_t so = chunk_at(total, n, si), sl = chunk_at(total, n, si + 1) - so;
		size_t ro = chunk_at(total, n, ri), rl = chunk_at(total, n, ri + 1) - ro;

		if (step(x, buf + so * sz, sl * sz, buf + ro * sz, rl * sz))
			return FP_ERUNTIME;
	}
	return 0;
}

static int ring_allreduce(void *ctx, const struct coll_case *c)
{
	struct ring *x = ctx;
	size_t sz = (size_t)c->dtype->size;
	const char *in = c->in_place ? x->recv : x->send;

	if (ring_rs(x, c, in, c->count, x->recv + chunk_at(c->count, x->n, x->rank) * sz))
		return FP_ERUNTIME;
	return ring_ag(x, x->recv, c->count, sz);
}

static int ring_reducescatter(void *ctx, const struct coll_case *c)
{
	struct ring *x = ctx;
	size_t sz = (size_t)c->dtype->size;
	const char *in = c->in_place ? x->recv : x->send;
	char *dst = c->in_place ? x->recv + (size_t)x->rank * c->count * sz : x->recv;

	return ring_rs(x, c, in, c->count * (uint64_t)x->n, dst);
}

static int ring_allgather(void *ctx, const struct coll_case *c)
{
	struct ring *x = ctx;
	size_t sz = (size_t)c->dtype->size, mine = (size_t)c->count * sz;

	if (!c->in_place)
		memcpy(x->recv + (size_t)x->rank * mine, x->send, mine);
	return ring_ag(x, x->recv, c->count * (uint64_t)x->n, sz);
}

static int ring_sendrecv(void *ctx, const struct coll_case *c)
{
	struct ring *x = ctx;
	size_t len = (size_t)c->count * (size_t)c->dtype->size;

	if (x->n == 1) {
		if (!c->in_place)
			memcpy(x->recv, x->send, len);
		return 0;
	}
	if (c->in_place) {
		memcpy(x->tmp, x->recv, len);
		return step(x, x->tmp, len, x->recv, len);
	}
	return step(x, x->send, len, x->recv, len);
}

/* ---------------------------------------------------------------- fill, check, timing */

static const char *ring_unsupported(const struct coll_case *c)
{
	static const char why[] = "fabprobe's ring reduces float, double and int32";

	if (c->dtype->id != COLL_FLOAT && c->dtype->id != COLL_DOUBLE && c->dtype->id != COLL_INT32)
		return why;
	return NULL;
}

static int ring_fill(void *ctx, const struct coll_case *c, uint32_t seed)
{
	struct ring *x = ctx;

	return coll_host_fill(x->send, x->recv, c, 0, seed);
}

static int ring_check(void *ctx, const struct coll_case *c, uint32_t seed, struct coll_check *out)
{
	return coll_host_check(((struct ring *)ctx)->recv, c, 0, seed, out);
}

static int ring_corrupt(void *ctx, const struct coll_case *c, uint64_t j)
{
	return coll_host_corrupt(((struct ring *)ctx)->recv, c, 0, j);
}

static int ring_timer_start(void *ctx)
{
	((struct ring *)ctx)->t0 = clock_now();
	return 0;
}

static int ring_timer_stop(void *ctx, double *seconds)
{
	*seconds = clock_now() - ((struct ring *)ctx)->t0;
	return 0;
}

static double ring_line_rate(void *ctx)
{
	return ((struct ring *)ctx)->rate;
}

/* ---------------------------------------------------------------- lifecycle */

static int ring_probe(const struct coll_env *env, char *why, size_t len)
{
	(void)env, (void)why, (void)len;
	return 0;
}

static void ring_close(void *ctx)
{
	struct ring *x = ctx;

	if (!x)
		return;
	if (x->t) {
		if (x->from != x->to)
			x->t->disconnect(x->from);
		x->t->disconnect(x->to);
		x->t->close(x->tctx);
	}
	if (x->yield)
		mpi_wait_yield(0);
	free(x->send);
	free(x->recv);
	free(x->tmp);
	free(x->acc);
	free(x);
}

/* The ring's connections: edge e joins ranks e and e + 1 (n == 2: one edge, both ways), in
 * rounds where no rank has two edges (even edges, odd edges, and with n odd the last edge
 * alone), since a connection is made by both of its ranks at once; a barrier between rounds.
 * Every round is gone through even after a failure, so that no neighbour waits for one that
 * gave up. */
static int ring_connect(struct ring *x)
{
	int n = x->n, r = x->rank, rc = 0;
	char why[TR_WHY_MAX] = "";

	for (int round = 0; n > 1 && round < 3; round++) {
		int right = r, left = MOD(r - 1, n); /* my two edges */
		int rr = n % 2 && right == n - 1 ? 2 : right % 2, lr = n % 2 && left == n - 1 ? 2 : left % 2;
		double deadline = clock_now() + RING_CONNECT_S;
		int e;

		if (rr == round && (n > 2 || r == 0)) {
			e = x->t->connect(x->tctx, MOD(r + 1, n), (unsigned)right, deadline, &x->to, why);
			if (e && !rc)
				LOG_ERROR("ring over %s: rank %d could not connect to rank %d: %s", x->path, r,
					  MOD(r + 1, n), why);
			rc = rc ? rc : e;
		}
		if (lr == round && (n > 2 || r == 1)) {
			e = x->t->connect(x->tctx, left, (unsigned)left, deadline, &x->from, why);
			if (e && !rc)
				LOG_ERROR("ring over %s: rank %d could not connect to rank %d: %s", x->path, r, left,
					  why);
			rc = rc ? rc : e;
		}
		/* a round starts when the last one ended everywhere: a dial for the next round must
		 * not reach a rank still waiting for this one's (it would take it for a stranger) */
		if (MPI_RC(MPI_Barrier(x->comm)))
			rc = rc ? rc : FP_ERUNTIME;
	}
	if (n == 2)
		x->to ? (void)(x->from = x->to) : (void)(x->to = x->from);
	return rc;
}

/* Every rank: 0 when no rank failed (mine: 1 when this one did, for mywhy), else 1 with the
 * first failed rank's reason in out. */
static int first_why(const struct coll_env *env, int mine, const char *mywhy, char *out, size_t len)
{
	int me = mine ? env->rank : INT32_MAX, first = INT32_MAX;
	char msg[TR_WHY_MAX + 64];

	CHECK_MPI(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, env->comm));
	if (first == INT32_MAX)
		return 0;
	if (env->rank == first)
		snprintf(msg, sizeof msg, "rank %d (%.40s): %.*s", first, env->host ? env->host : "", TR_WHY_MAX,
			 mywhy);
	CHECK_MPI(MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, env->comm));
	snprintf(out, len, "%s", msg);
	return 1;
}

static int ring_open(const struct coll_env *env, void **out, char *why, size_t len)
{
	const char *path = env->path ? env->path : "mpi", *arg = strchr(path, ':');
	const struct transport_ops *t = transport_find(path);
	struct ring *x = calloc(1, sizeof *x);
	size_t per = (size_t)env->max_bytes;
	struct tr_port port = { .usable = 0 };
	char twhy[TR_WHY_MAX] = "";
	int bad, rc;
	double rate[2], all[2];

	*out = NULL;
	if (!t || t->absent || !t->exchange) { /* the same answer on every rank */
		snprintf(why, len, "%s", !t ? "no such transport" : t->absent ? t->absent : "its transport has no ring");
		free(x);
		return 1;
	}
	if (x) {
		x->rank = env->rank;
		x->n = env->nranks;
		x->comm = env->comm;
		snprintf(x->path, sizeof x->path, "%s", path);
		x->send = malloc(per);
		x->recv = malloc(per);
		x->tmp = malloc(per);
		x->acc = malloc(per / (size_t)env->nranks + 16);
	}
	bad = !x || !x->send || !x->recv || !x->tmp || !x->acc;
	if (bad)
		LOG_ERROR("ring over %s: out of memory for 3 x %zu bytes", path, per);
	CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, env->comm));
	if (bad) {
		ring_close(x);
		return FP_ERUNTIME;
	}
	struct tr_env te = { .comm = env->comm, .ep = env->rank, .nep = env->nranks, .host = env->host,
			     .single_node = env->single_node, .max_size = (per < RING_SEG ? per : RING_SEG) + 1,
			     .max_window = 1, .shared_core = env->shared_core };

	x->yield = env->shared_core;
	mpi_wait_yield(x->yield);
	rc = t->open(&te, arg ? arg + 1 : NULL, &x->tctx, &port);
	x->t = t;
	snprintf(twhy, sizeof twhy, "%s", rc ? "the transport failed to open (see the errors above)" : port.why);
	if ((rc = first_why(env, rc || !port.usable, twhy, why, len)) == 0) {
		/* the line rate of the ring: its slowest port (unknown if any is) */
		rate[0] = isnan(port.rate_gbps) ? 0 : -port.rate_gbps;
		rate[1] = isnan(port.rate_gbps);
		CHECK_MPI(MPI_Allreduce(rate, all, 2, MPI_DOUBLE, MPI_MAX, env->comm));
		x->rate = all[1] > 0 ? NAN : -all[0];
		rc = ring_connect(x) ? 1 : 0;
		CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, env->comm));
		if (rc) {
			ring_close(x);
			return FP_ERUNTIME;
		}
		*out = x;
		return 0;
	}
	ring_close(x);
	return rc < 0 ? rc : 1;
}

static void ring_version(char *out, size_t len)
{
	snprintf(out, len, "fabprobe %s ring over its point-to-point transports", FP_VERSION);
}

const struct coll_backend coll_backend_ring = {
	.name = "ring",
	.per_path = 1,
	.probe = ring_probe,
	.open = ring_open,
	.close = ring_close,
	.unsupported = ring_unsupported,
	.run = {
		[COLL_ALLREDUCE] = ring_allreduce,
		[COLL_ALLGATHER] = ring_allgather,
		[COLL_REDUCESCATTER] = ring_reducescatter,
		[COLL_SENDRECV] = ring_sendrecv,
	},
	.fill = ring_fill,
	.check = ring_check,
	.corrupt = ring_corrupt,
	.timer_start = ring_timer_start,
	.timer_stop = ring_timer_stop,
	.line_rate = ring_line_rate,
	.version = ring_version,
};
