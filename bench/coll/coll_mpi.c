/* coll_mpi.c — the "mpi" collective backend: the MPI library's own collectives on host
 * buffers, in a communicator of their own. Fill and check run on the host with coll_math.h. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll_backend.h"
#include "core/clock.h"
#include "core/mpi_util.h"

/* MPI's conventions: in-place reduce-scatter leaves the result at the start of the buffer,
 * and an out-of-place broadcast root sends from its send buffer and receives nothing */
#define MPI_QUIRKS (COLL_Q_RS_INPLACE_OUT_FIRST | COLL_Q_BCAST_ROOT_KEEPS)

struct mpi_coll {
	MPI_Comm comm;
	char *send, *recv;   /* max_bytes each */
	double t0;
};

/* ---------------------------------------------------------------- types */

static MPI_Datatype mpi_type(const struct coll_case *c)
{
	switch (c->dtype->id) {
	case COLL_FLOAT: return MPI_FLOAT;
	case COLL_DOUBLE: return MPI_DOUBLE;
	case COLL_INT32: return MPI_INT32_T;
	default: return MPI_DATATYPE_NULL;
	}
}

static MPI_Op mpi_op(const struct coll_case *c)
{
	switch (c->redop) {
	case COLL_SUM: return MPI_SUM;
	case COLL_PROD: return MPI_PROD;
	case COLL_MAX: return MPI_MAX;
	case COLL_MIN: return MPI_MIN;
	default: return MPI_OP_NULL;
	}
}

static const char *mpi_unsupported(const struct coll_case *c)
{
	if (mpi_type(c) == MPI_DATATYPE_NULL)
		return "MPI has no standard type for it";
	if (c->count * (c->op->blocks ? 1 : (uint64_t)c->nranks) > INT_MAX)
		return "more than INT_MAX elements (MPI counts are int)";
	return NULL;
}

/* ---------------------------------------------------------------- the ops */

#define SBUF(x, c) ((c)->in_place ? MPI_IN_PLACE : (void *)(x)->send)

static int mpi_allreduce(void *ctx, const struct coll_case *c)
{
	struct mpi_coll *x = ctx;

	CHECK_MPI(MPI_Allreduce(SBUF(x, c), x->recv, (int)c->count, mpi_type(c), mpi_op(c), x->comm));
	return 0;
}

static int mpi_allgather(void *ctx, const struct coll_case *c)
{
	struct mpi_coll *x = ctx;

	CHECK_MPI(MPI_Allgather(SBUF(x, c), (int)c->count, mpi_type(c), x->recv, (int)c->count,
				mpi_type(c), x->comm));
	return 0;
}

static int mpi_reducescatter(void *ctx, const struct coll_case *c)
{
	struct mpi_coll *x = ctx;

	CHECK_MPI(MPI_Reduce_scatter_block(SBUF(x, c), x->recv, (int)c->count, mpi_type(c), mpi_op(c),
					   x->comm));
	return 0;
}

static int mpi_broadcast(void *ctx, const struct coll_case *c)
{
	struct mpi_coll *x = ctx;
	void *buf = !c->in_place && c->rank == c->root ? x->send : x->recv;

	CHECK_MPI(MPI_Bcast(buf, (int)c->count, mpi_type(c), c->root, x->comm));
	return 0;
}

static int mpi_reduce(void *ctx, const struct coll_case *c)
{
	struct mpi_coll *x = ctx;
	/* in place: only the root passes MPI_IN_PLACE; the others send from the one buffer */
	void *sbuf = !c->in_place ? x->send : c->rank == c->root ? MPI_IN_PLACE : x->recv;

	CHECK_MPI(MPI_Reduce(sbuf, x->recv, (int)c->count, mpi_type(c), mpi_op(c), c->root, x->comm));
	return 0;
}

static int mpi_alltoall(void *ctx, const struct coll_case *c)
{
	struct mpi_coll *x = ctx;

	CHECK_MPI(MPI_Alltoall(SBUF(x, c), (int)c->count, mpi_type(c), x->recv, (int)c->count,
			       mpi_type(c), x->comm));
	return 0;
}

/* ring neighbours: send to rank + 1, receive from rank - 1 */
static int mpi_sendrecv(void *ctx, const struct coll_case *c)
{
	struct mpi_coll *x = ctx;
	int next = (c->rank + 1) % c->nranks, prev = (c->rank + c->nranks - 1) % c->nranks;

	if (c->in_place)
		CHECK_MPI(MPI_Sendrecv_replace(x->recv, (int)c->count, mpi_type(c), next, 0, prev, 0,
					       x->comm, MPI_STATUS_IGNORE));
	else
		CHECK_MPI(MPI_Sendrecv(x->send, (int)c->count, mpi_type(c), next, 0, x->recv,
				       (int)c->count, mpi_type(c), prev, 0, x->comm, MPI_STATUS_IGNORE));
	return 0;
}

/* ---------------------------------------------------------------- fill, check, timing */

static int mpi_fill(void *ctx, const struct coll_case *c, uint32_t seed)
{
	struct mpi_coll *x = ctx;

	return coll_host_fill(x->send, x->recv, c, MPI_QUIRKS, seed);
}

static int mpi_check(void *ctx, const struct coll_case *c, uint32_t seed, struct coll_check *out)
{
	return coll_host_check(((struct mpi_coll *)ctx)->recv, c, MPI_QUIRKS, seed, out);
}

static int mpi_corrupt(void *ctx, const struct coll_case *c, uint64_t j)
{
	return coll_host_corrupt(((struct mpi_coll *)ctx)->recv, c, MPI_QUIRKS, j);
}

static int mpi_timer_start(void *ctx)
{
	((struct mpi_coll *)ctx)->t0 = clock_now();
	return 0;
}

static int mpi_timer_stop(void *ctx, double *seconds)
{
	*seconds = clock_now() - ((struct mpi_coll *)ctx)->t0;
	return 0;
}

/* ---------------------------------------------------------------- lifecycle */

static int mpi_probe(const struct coll_env *env, char *why, size_t len)
{
	(void)env, (void)why, (void)len;
	return 0;
}

static void mpi_close(void *ctx)
{
	struct mpi_coll *x = ctx;

	if (!x)
		return;
	if (x->comm != MPI_COMM_NULL)
		MPI_Comm_free(&x->comm);
	free(x->send);
	free(x->recv);
	free(x);
}

static int mpi_open(const struct coll_env *env, void **ctx, char *why, size_t len)
{
	struct mpi_coll *x = calloc(1, sizeof *x);
	int ok, all = 0;

	(void)why, (void)len;
	*ctx = NULL;
	if (x) {
		x->comm = MPI_COMM_NULL;
		x->send = malloc(env->max_bytes);
		x->recv = malloc(env->max_bytes);
	}
	/* agreed before the collective MPI_Comm_dup: a rank out of memory never leaves the others in it */
	ok = x && x->send && x->recv;
	if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, env->comm) != MPI_SUCCESS || !all) {
		if (!ok)
			LOG_ERROR("out of memory for two %llu-byte buffers", (unsigned long long)env->max_bytes);
		mpi_close(x);
		return FP_ERUNTIME;
	}
	if (MPI_Comm_dup(env->comm, &x->comm) != MPI_SUCCESS) {
		LOG_ERROR("MPI_Comm_dup failed");
		mpi_close(x);
		return FP_ERUNTIME;
	}
	MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN);
	*ctx = x;
	return 0;
}

static void mpi_version(char *out, size_t len)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int n = 0;

	MPI_Get_library_version(lib, &n);
	lib[strcspn(lib, "\n,")] = 0;
	snprintf(out, len, "%s", lib);
}

/* What the MPI library says it took of the settings that point it at path (coll_path_env, read
 * back through MPI_T: coll_path_readback): a setting it holds otherwise is a mismatch. What it
 * selected among the transports allowed is not said by MPI_T's control variables. */
static int mpi_carried(void *ctx, const char *path, char *text, size_t tlen, char *why, size_t wlen)
{
	struct coll_path_set e = { 0 };
	size_t k = 0;
	int known = 0, bad = -1;

	(void)ctx;
	why[0] = text[0] = 0;
	coll_path_env(path, &e);
	coll_path_readback(&e);
	for (int i = 0; i < e.n; i++) {
		if (!e.v[i].lib_known)
			continue;
		known++;
		k += (size_t)snprintf(text + k, k < tlen ? tlen - k : 0, "%s%s=%s", k ? " " : "Open MPI ", e.v[i].name + 9,
				      e.v[i].lib);
		if (bad < 0 && strcmp(e.v[i].lib, e.v[i].value))
			bad = i;
	}
	if (!known) {
		snprintf(text, tlen, "its own choice (%s)", path && strcmp(path, "mpi") ? "not read back" : "no --path");
		return path && (!strncmp(path, "tcp:", 4) || !strncmp(path, "verbs:", 6)) ? -1 : 0;
	}
	if (bad >= 0)
		snprintf(why, wlen, "asked for %s, Open MPI took %s=%s (not %s)", path, e.v[bad].name + 9, e.v[bad].lib,
			 e.v[bad].value);
	return bad >= 0;
}

const struct coll_backend coll_backend_mpi = {
	.name = "mpi",
	.quirks = MPI_QUIRKS,
	.probe = mpi_probe,
	.open = mpi_open,
	.close = mpi_close,
	.unsupported = mpi_unsupported,
	.run = {
		[COLL_ALLREDUCE] = mpi_allreduce,
		[COLL_ALLGATHER] = mpi_allgather,
		[COLL_REDUCESCATTER] = mpi_reducescatter,
		[COLL_BROADCAST] = mpi_broadcast,
		[COLL_REDUCE] = mpi_reduce,
		[COLL_ALLTOALL] = mpi_alltoall,
		[COLL_SENDRECV] = mpi_sendrecv,
	},
	.fill = mpi_fill,
	.check = mpi_check,
	.corrupt = mpi_corrupt,
	.timer_start = mpi_timer_start,
	.timer_stop = mpi_timer_stop,
	.version = mpi_version,
	.carried = mpi_carried,
};
