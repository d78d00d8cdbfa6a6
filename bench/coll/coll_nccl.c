/* coll_nccl.c — the "nccl" collective backend: NCCL on device buffers, one GPU per rank (the
 * rank's index on its node picks the device). Fill and check run on the GPU
 * (kernels/fill_check.cu, the same coll_math.h as the host); timing uses CUDA events on the
 * backend's stream, so a batch's time includes all its device work. Built only with NCCL.
 *
 * Nothing here blocks without a bound: the communicator is non-blocking (created with
 * ncclCommInitRankConfig, blocking = 0), and every wait (its creation, an enqueue that returns
 * ncclInProgress, the stream, an event) polls through coll_wait_poll with --timeout, reading
 * ncclCommGetAsyncError between polls, so that a dead peer or network ends the wait with the
 * collective named. On any failure the communicator is aborted (ncclCommAbort), never
 * destroyed (ncclCommDestroy can wait on work that will never finish), and a group is always
 * closed. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_backend.h"
#include "coll_wait.h"
#include "fabric/io/nccl_log.h"
#include "core/mpi_util.h"
#include "core/watchdog.h"
#include "cuda_util.h"
#include "fill_check.h"

struct nccl_coll {
	ncclComm_t comm;
	cudaStream_t stream;
	cudaEvent_t start, stop;
	char *send, *recv;          /* device, max_bytes each */
	unsigned long long *d_out;  /* device: wrong count, first wrong index */
	double wait_s;              /* the longest one wait may take (--timeout) */
	int broken;                 /* a call failed or a wait ran out: aborted */
};

/* ---------------------------------------------------------------- bounded waits */

/* after a failure: the communicator aborted (its kernels stop), and never used again */
static void nccl_break(struct nccl_coll *x)
{
	x->broken = 1;
	if (x->comm)
		ncclCommAbort(x->comm);
	x->comm = NULL;
}

/* the communicator's asynchronous state as a poll (coll_wait.h) */
static int comm_state(ncclComm_t comm, char *why, size_t len)
{
	ncclResult_t st = ncclSuccess, r = ncclCommGetAsyncError(comm, &st);

	if (r != ncclSuccess) {
		snprintf(why, len, "ncclCommGetAsyncError: %s", ncclGetErrorString(r));
		return COLL_POLL_FAILED;
	}
	if (st == ncclInProgress)
		return COLL_POLL_AGAIN;
	if (st != ncclSuccess) {
		snprintf(why, len, "%s (%s)", ncclGetErrorString(st), ncclGetLastError(comm));
		return COLL_POLL_FAILED;
	}
	return COLL_POLL_DONE;
}

static int poll_comm(void *arg, char *why, size_t len)
{
	return comm_state(((struct nccl_coll *)arg)->comm, why, len);
}

struct device_wait {
	struct nccl_coll *x;
	cudaEvent_t ev;             /* NULL: the whole stream */
};

/* the stream's (or an event's) work: done, still running, or failed on the device or in NCCL
 * (a peer gone shows there, while the stream never completes) */
static int poll_device(void *arg, char *why, size_t len)
{
	const struct device_wait *d = arg;
	cudaError_t e = d->ev ? cudaEventQuery(d->ev) : cudaStreamQuery(d->x->stream);

	if (e == cudaSuccess)
		return COLL_POLL_DONE;
	if (e != cudaErrorNotReady) {
		snprintf(why, len, "%s", cudaGetErrorString(e));
		return COLL_POLL_FAILED;
	}
	return d->x->comm && comm_state(d->x->comm, why, len) == COLL_POLL_FAILED ? COLL_POLL_FAILED : COLL_POLL_AGAIN;
}

/* "allreduce float 1048576 B, in place" */
static void case_name(const struct coll_case *c, char *out, size_t len)
{
	snprintf(out, len, "%s %s %llu elements%s", c->op->name, c->dtype->name, (unsigned long long)c->count,
		 c->in_place ? ", in place" : "");
}

/* wait for the stream (ev NULL) or an event, at most --timeout; a failure is said (what: the
 * step) and aborts the communicator. 0, FP_ERUNTIME or FP_ETIMEDOUT. */
static int nccl_wait(struct nccl_coll *x, cudaEvent_t ev, const char *what)
{
	struct device_wait d = { x, ev };
	char why[600];
	int rc = x->broken ? FP_ERUNTIME : coll_wait_poll(poll_device, &d, x->wait_s, what, why, sizeof why);

	if (rc && !x->broken) {
		LOG_ERROR("NCCL: %s", why);
		nccl_break(x);
	}
	return rc;
}

/* the result r of NCCL call `call` for case c: ncclInProgress (non-blocking) is waited for;
 * a failure is said, naming the collective, and aborts the communicator */
static int nccl_done(struct nccl_coll *x, ncclResult_t r, const char *call, const struct coll_case *c)
{
	char what[200], name[120], why[600] = "";
	int rc = FP_ERUNTIME;

	if (r == ncclSuccess)
		return 0;
	case_name(c, name, sizeof name);
	snprintf(what, sizeof what, "%s (%s)", name, call);
	if (r == ncclInProgress && x->comm && !(rc = coll_wait_poll(poll_comm, x, x->wait_s, what, why, sizeof why)))
		return 0;
	if (!why[0])
		snprintf(why, sizeof why, "%s: %s (%s)", what, ncclGetErrorString(r), x->comm ? ncclGetLastError(x->comm) : "");
	LOG_ERROR("NCCL: %s", why);
	nccl_break(x);
	return rc;
}

#define NCCL_DO(x, c, call) ((x)->broken ? FP_ERUNTIME : nccl_done((x), (call), #call, (c)))

/* ---------------------------------------------------------------- types */

static ncclDataType_t nccl_type(const struct coll_case *c)
{
	static const ncclDataType_t t[COLL_NDTYPES] = {
		[COLL_FLOAT] = ncclFloat32, [COLL_DOUBLE] = ncclFloat64, [COLL_INT32] = ncclInt32,
		[COLL_HALF] = ncclFloat16, [COLL_BF16] = ncclBfloat16,
	};

	return t[c->dtype->id];
}

static ncclRedOp_t nccl_op(const struct coll_case *c)
{
	static const ncclRedOp_t o[COLL_NREDOPS] = { ncclSum, ncclProd, ncclMax, ncclMin };

	return c->redop >= 0 ? o[c->redop] : ncclSum;
}

static const char *nccl_unsupported(const struct coll_case *c)
{
	if (c->in_place && (c->op->id == COLL_ALLTOALL || c->op->id == COLL_SENDRECV))
		return "NCCL's grouped send/receive has no in-place form";
	return NULL;
}

/* element offset into a device buffer */
static char *at(char *buf, const struct coll_case *c, uint64_t elems)
{
	return buf + elems * (uint64_t)c->dtype->size;
}

/* ---------------------------------------------------------------- the ops */

static int nccl_allreduce(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;

	return NCCL_DO(x, c, ncclAllReduce(c->in_place ? x->recv : x->send, x->recv, c->count, nccl_type(c),
					   nccl_op(c), x->comm, x->stream));
}

static int nccl_allgather(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;
	const char *in = c->in_place ? at(x->recv, c, (uint64_t)c->rank * c->count) : x->send;

	return NCCL_DO(x, c, ncclAllGather(in, x->recv, c->count, nccl_type(c), x->comm, x->stream));
}

static int nccl_reducescatter(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;
	char *out = c->in_place ? at(x->recv, c, (uint64_t)c->rank * c->count) : x->recv;

	return NCCL_DO(x, c, ncclReduceScatter(c->in_place ? x->recv : x->send, out, c->count, nccl_type(c),
					       nccl_op(c), x->comm, x->stream));
}

static int nccl_broadcast(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;

	return NCCL_DO(x, c, ncclBroadcast(c->in_place ? x->recv : x->send, x->recv, c->count, nccl_type(c),
					   c->root, x->comm, x->stream));
}

static int nccl_reduce(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;

	return NCCL_DO(x, c, ncclReduce(c->in_place ? x->recv : x->send, x->recv, c->count, nccl_type(c),
					nccl_op(c), c->root, x->comm, x->stream));
}

/* grouped send/receive, as nccl-tests does (ncclAlltoAll is recent) */
static int nccl_alltoall(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;

	ncclResult_t r, end;

	if (x->broken)
		return FP_ERUNTIME;
	if ((r = ncclGroupStart()) != ncclSuccess)
		return nccl_done(x, r, "ncclGroupStart", c);
	for (int p = 0; r == ncclSuccess && p < c->nranks; p++)
		if ((r = ncclSend(at(x->send, c, (uint64_t)p * c->count), c->count, nccl_type(c), p, x->comm,
				  x->stream)) == ncclSuccess)
			r = ncclRecv(at(x->recv, c, (uint64_t)p * c->count), c->count, nccl_type(c), p, x->comm,
				     x->stream);
	end = ncclGroupEnd(); /* always: a group left open would swallow the next calls */
	return nccl_done(x, r != ncclSuccess ? r : end, r != ncclSuccess ? "ncclSend/ncclRecv" : "ncclGroupEnd", c);
}

/* ring neighbours: send to rank + 1, receive from rank - 1 */
static int nccl_sendrecv(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;
	int next = (c->rank + 1) % c->nranks, prev = (c->rank + c->nranks - 1) % c->nranks;

	ncclResult_t r, end;

	if (x->broken)
		return FP_ERUNTIME;
	if ((r = ncclGroupStart()) != ncclSuccess)
		return nccl_done(x, r, "ncclGroupStart", c);
	if ((r = ncclSend(x->send, c->count, nccl_type(c), next, x->comm, x->stream)) == ncclSuccess)
		r = ncclRecv(x->recv, c->count, nccl_type(c), prev, x->comm, x->stream);
	end = ncclGroupEnd(); /* always closed */
	return nccl_done(x, r != ncclSuccess ? r : end, r != ncclSuccess ? "ncclSend/ncclRecv" : "ncclGroupEnd", c);
}

/* ---------------------------------------------------------------- fill, check, timing */

static int nccl_fill(void *ctx, const struct coll_case *c, uint32_t seed)
{
	struct nccl_coll *x = ctx;
	struct coll_layout l;
	struct coll_expect_args a;

	coll_layout_get(c, 0, &l);
	coll_expect_args_make(c, seed, &a);
	/* poison: a power of two beyond any result, exact in every type, never right */
	CHECK_CUDA(fp_cuda_poison(x->recv, l.recv_elems, c->dtype->id,
				  -2 * coll_exact_limit(c->dtype->id), x->stream));
	CHECK_CUDA(fp_cuda_fill(c->in_place ? at(x->recv, c, l.in_off) : x->send, l.send_elems,
				c->dtype->id, &a.gen, c->rank, x->stream));
	return 0;
}

static int nccl_check(void *ctx, const struct coll_case *c, uint32_t seed, struct coll_check *out)
{
	struct nccl_coll *x = ctx;
	unsigned long long h[2] = { 0, ~0ULL };
	struct coll_layout l;
	struct coll_expect_args a;
	char elem[8];

	coll_layout_get(c, 0, &l);
	coll_expect_args_make(c, seed, &a);
	*out = (struct coll_check){ .first = -1 };
	CHECK_CUDA(cudaMemcpyAsync(x->d_out, h, sizeof h, cudaMemcpyHostToDevice, x->stream));
	CHECK_CUDA(fp_cuda_check(at(x->recv, c, l.out_off), l.out_elems, c->dtype->id, &a, x->d_out,
				 x->stream));
	if (nccl_wait(x, NULL, "the check kernel")) /* then the copies below wait on nothing */
		return FP_ERUNTIME;
	CHECK_CUDA(cudaMemcpyAsync(h, x->d_out, sizeof h, cudaMemcpyDeviceToHost, x->stream));
	if (nccl_wait(x, NULL, "the check's result"))
		return FP_ERUNTIME;
	if (h[0] == 0)
		return 0;
	out->wrong = (int64_t)h[0];
	out->first = (int64_t)h[1];
	CHECK_CUDA(cudaMemcpyAsync(elem, at(x->recv, c, l.out_off + h[1]), (size_t)c->dtype->size,
				   cudaMemcpyDeviceToHost, x->stream));
	if (nccl_wait(x, NULL, "the first wrong element"))
		return FP_ERUNTIME;
	out->got = coll_load(c->dtype->id, elem);
	out->want = (double)coll_expect(&a, h[1]);
	return 0;
}

static int nccl_corrupt(void *ctx, const struct coll_case *c, uint64_t j)
{
	struct nccl_coll *x = ctx;
	struct coll_layout l;
	char elem[8], *p;
	double v;

	coll_layout_get(c, 0, &l);
	p = at(x->recv, c, l.out_off + j);
	/* on the backend's stream, waited for: the check kernel that follows on that stream sees
	 * the corrupted element (a copy on the legacy stream would not be ordered before it) */
	CHECK_CUDA(cudaMemcpyAsync(elem, p, (size_t)c->dtype->size, cudaMemcpyDeviceToHost, x->stream));
	if (nccl_wait(x, NULL, "the self-test's read"))
		return FP_ERUNTIME;
	v = coll_load(c->dtype->id, elem);
	coll_store(c->dtype->id, elem, v != 0 ? -(int64_t)v : 1); /* exact, and never equal */
	CHECK_CUDA(cudaMemcpyAsync(p, elem, (size_t)c->dtype->size, cudaMemcpyHostToDevice, x->stream));
	return nccl_wait(x, NULL, "the self-test's write");
}

static int nccl_sync(void *ctx)
{
	return nccl_wait(ctx, NULL, "the collectives queued on the GPU");
}

static int nccl_timer_start(void *ctx)
{
	struct nccl_coll *x = ctx;

	CHECK_CUDA(cudaEventRecord(x->start, x->stream));
	return 0;
}

static int nccl_timer_stop(void *ctx, double *seconds)
{
	struct nccl_coll *x = ctx;
	float ms = 0;

	CHECK_CUDA(cudaEventRecord(x->stop, x->stream));
	if (nccl_wait(x, x->stop, "the timed collectives"))
		return FP_ERUNTIME;
	CHECK_CUDA(cudaEventElapsedTime(&ms, x->start, x->stop));
	*seconds = ms * 1e-3;
	return 0;
}

/* ---------------------------------------------------------------- lifecycle */

/* This rank's index and the rank count on its node; node is freed by the caller (or NULL). */
static int local_rank(MPI_Comm comm, int rank, int *lrank, int *lsize, MPI_Comm *node)
{
	MPI_Comm n;

	CHECK_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &n));
	MPI_Comm_rank(n, lrank);
	MPI_Comm_size(n, lsize);
	if (node)
		*node = n;
	else
		MPI_Comm_free(&n);
	return 0;
}

/* The device of local rank lrank: its index when every rank sees all the node's GPUs; device 0
 * when each sees one (the launcher gave each rank its own, e.g. Slurm's --gpus-per-task=1);
 * with more ranks than GPUs, lrank modulo the GPUs, and the probe refuses the GPUs shared
 * (unless --shared-gpu). */
static int pick_device(int lrank, int lsize, int ndev)
{
	return ndev >= lsize ? lrank : ndev > 1 ? lrank % ndev : 0;
}

/* 1 with why filled when two ranks of this node would share a GPU (NCCL refuses that), or
 * when the node's ranks cannot tell (out of memory on one: every rank takes the same calls) */
static int gpu_shared(MPI_Comm node, int lrank, int lsize, int dev, char *why, size_t len)
{
	char mine[32] = "", *all = calloc((size_t)lsize, sizeof mine);
	int shared = 0, have = all != NULL;

	if (MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS || !have) {
		if (why)
			snprintf(why, len, "out of memory telling the ranks' GPUs apart");
		free(all);
		return 1;
	}
	if (dev < 0 || cudaDeviceGetPCIBusId(mine, sizeof mine, dev) != cudaSuccess)
		snprintf(mine, sizeof mine, "unknown-%d", lrank); /* cannot tell: let NCCL decide */
	if (MPI_Allgather(mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR, node) == MPI_SUCCESS)
		for (int r = 0; r < lsize && !shared; r++)
			if (r != lrank && !strcmp(all + r * sizeof mine, mine)) {
				snprintf(why, len, "local ranks %d and %d share GPU %s: one GPU per rank",
					 r < lrank ? r : lrank, r < lrank ? lrank : r, mine);
				shared = 1;
			}
	free(all);
	return shared;
}

/* Collective. Every rank computes its answer and takes part in the same calls, so that a
 * rank without a GPU does not leave the others waiting. */
/* NCCL's INFO log of this process (fabric/io/nccl_log.h), asked for before its first call
 * unless NCCL_DEBUG was set by the user: a file in a private directory (mkdtemp), removed at
 * exit; "" when not asked for. */
static char nccl_log[64];

static void log_remove(void)
{
	char *slash = strrchr(nccl_log, '/');

	unlink(nccl_log);
	if (slash) {
		*slash = 0;
		rmdir(nccl_log);
	}
}

static void log_ask(void)
{
	char dir[] = "/tmp/fabprobe-nccl-XXXXXX";

	if (nccl_log[0] || getenv("NCCL_DEBUG") || !mkdtemp(dir))
		return;
	snprintf(nccl_log, sizeof nccl_log, "%s/nccl.log", dir);
	if (setenv("NCCL_DEBUG", "INFO", 1) || setenv("NCCL_DEBUG_FILE", nccl_log, 1)) {
		rmdir(dir);
		nccl_log[0] = 0;
		return;
	}
	atexit(log_remove);
}

/* what NCCL's log says carried the communicator's traffic (its channels are set up with it) */
static int nccl_carried(void *ctx, const char *path, char *text, size_t tlen, char *why, size_t wlen)
{
	struct nccl_seen s;
	FILE *f = nccl_log[0] ? fopen(nccl_log, "r") : NULL;
	int rc = f ? nccl_log_read(f, &s) : -1;

	(void)ctx;
	why[0] = 0;
	if (f)
		fclose(f);
	if (rc) {
		snprintf(text, tlen, "not known (%s)", nccl_log[0] ? "NCCL's log unreadable" : "NCCL_DEBUG set by the user");
		return -1;
	}
	nccl_seen_text(&s, text, tlen);
	return nccl_seen_check(&s, path, why, wlen);
}

static int nccl_probe(const struct coll_env *env, char *why, size_t len)
{
	int lrank = 0, lsize = 1, ndev = 0, skip = 0;
	MPI_Comm node = MPI_COMM_NULL;
	cudaError_t e;

	if (local_rank(env->comm, env->rank, &lrank, &lsize, &node))
		return snprintf(why, len, "cannot tell the ranks of this node apart"), 1;
	e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess)
		skip = snprintf(why, len, "no GPU visible (cudaGetDeviceCount: %s)", cudaGetErrorString(e));
	else if (ndev == 0)
		skip = snprintf(why, len, "no GPU visible (cudaGetDeviceCount: 0 devices)");
	if (!env->shared_gpu && gpu_shared(node, lrank, lsize, skip ? -1 : pick_device(lrank, lsize, ndev),
					   skip ? NULL : why, skip ? 0 : len))
		skip = 1;
	MPI_Comm_free(&node);
	return skip != 0;
}

/* A healthy communicator is finalized (its work flushed, bounded) and destroyed; a broken one
 * was aborted. */
static void nccl_close(void *ctx)
{
	struct nccl_coll *x = ctx;

	if (!x)
		return;
	watchdog_hook(NULL, NULL);
	if (x->comm && !x->broken) {
		ncclResult_t r = ncclCommFinalize(x->comm);
		char why[600];

		if (r == ncclInProgress && coll_wait_poll(poll_comm, x, x->wait_s, "ncclCommFinalize", why, sizeof why)) {
			LOG_ERROR("NCCL: %s", why);
			r = ncclSystemError;
		}
		if (r == ncclSuccess || r == ncclInProgress)
			ncclCommDestroy(x->comm);
		else
			ncclCommAbort(x->comm);
	}
	x->comm = NULL;
	cudaFree(x->send);
	cudaFree(x->recv);
	cudaFree(x->d_out);
	if (x->start)
		cudaEventDestroy(x->start);
	if (x->stop)
		cudaEventDestroy(x->stop);
	if (x->stream)
		cudaStreamDestroy(x->stream);
	free(x);
}

/* the watchdog's hook: the communicator aborted before the rank ends (watchdog.h) */
static void nccl_abort_hook(void *arg)
{
	struct nccl_coll *x = arg;

	if (x->comm)
		ncclCommAbort(x->comm);
}

/* The device, stream, events and buffers of this rank (local: no other rank waits on it). */
static int local_open(const struct coll_env *env, struct nccl_coll *x)
{
	int lrank = 0, lsize = 1, ndev = 0;

	if (local_rank(env->comm, env->rank, &lrank, &lsize, NULL))
		return FP_ERUNTIME;
	CHECK_CUDA(cudaGetDeviceCount(&ndev));
	CHECK_CUDA(cudaSetDevice(pick_device(lrank, lsize, ndev)));
	CHECK_CUDA(cudaStreamCreateWithFlags(&x->stream, cudaStreamNonBlocking));
	CHECK_CUDA(cudaEventCreate(&x->start));
	CHECK_CUDA(cudaEventCreate(&x->stop));
	CHECK_CUDA(cudaMalloc((void **)&x->send, env->max_bytes));
	CHECK_CUDA(cudaMalloc((void **)&x->recv, env->max_bytes));
	CHECK_CUDA(cudaMalloc((void **)&x->d_out, 2 * sizeof *x->d_out));
	return 0;
}

/* This rank's communicator, non-blocking, its creation waited for at most --timeout. A
 * communicator a failed creation returned is aborted. 0, FP_ERUNTIME or FP_ETIMEDOUT. */
static int comm_create(const struct coll_env *env, struct nccl_coll *x, ncclUniqueId id)
{
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	char what[96], why[600] = "";
	ncclResult_t r;
	int rc = FP_ERUNTIME;

	cfg.blocking = 0;
	snprintf(what, sizeof what, "ncclCommInitRankConfig(%d ranks, rank %d)", env->nranks, env->rank);
	r = ncclCommInitRankConfig(&x->comm, env->nranks, id, env->rank, &cfg);
	if (r == ncclSuccess || (r == ncclInProgress && x->comm &&
				 !(rc = coll_wait_poll(poll_comm, x, x->wait_s, what, why, sizeof why))))
		return 0;
	if (!why[0])
		snprintf(why, sizeof why, "%s: %s", what, ncclGetErrorString(r));
	LOG_ERROR("NCCL: %s", why);
	nccl_break(x);
	return rc;
}

static int nccl_open(const struct coll_env *env, void **ctx, char *why, size_t len)
{
	struct nccl_coll *x = calloc(1, sizeof *x);
	struct { int ok; ncclUniqueId id; } hello = { 0 };
	int ok, all_ok = 0, rc = 0;

	(void)why, (void)len;
	*ctx = NULL;
	if (!x)
		LOG_ERROR("out of memory");
	else
		x->wait_s = env->wait_s;
	/* every rank must be ready before any creates the communicator, or the others would wait */
	log_ask(); /* before NCCL's first call: it reads NCCL_DEBUG once */
	ok = x && local_open(env, x) == 0;
	CHECK_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, env->comm));
	if (env->rank == 0 && all_ok)
		hello.ok = ncclGetUniqueId(&hello.id) == ncclSuccess;
	CHECK_MPI(MPI_Bcast(&hello, sizeof hello, MPI_BYTE, 0, env->comm));
	if (!all_ok || !hello.ok) {
		if (env->rank == 0 && all_ok)
			LOG_ERROR("ncclGetUniqueId failed");
		nccl_close(x);
		return FP_ERUNTIME;
	}
	rc = comm_create(env, x, hello.id);
	/* every rank learns whether every communicator stands: none goes on alone */
	ok = rc == 0;
	if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, env->comm) != MPI_SUCCESS || !all_ok) {
		if (rc == 0)
			nccl_break(x); /* a peer's failed: this one cannot be used */
		nccl_close(x);
		return rc ? rc : FP_ERUNTIME;
	}
	*ctx = x;
	watchdog_hook(nccl_abort_hook, x); /* a step past --timeout aborts the communicator first */
	return 0;
}

static void nccl_version(char *out, size_t len)
{
	int v = 0;

	if (ncclGetVersion(&v) != ncclSuccess)
		snprintf(out, len, "NCCL (version unknown)");
	else if (v >= 10000) /* 2.9 and later: major*10000 + minor*100 + patch */
		snprintf(out, len, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	else
		snprintf(out, len, "NCCL %d.%d.%d", v / 1000, v / 100 % 10, v % 100);
}

const struct coll_backend coll_backend_nccl = {
	.name = "nccl",
	.gpu = 1,
	.probe = nccl_probe,
	.open = nccl_open,
	.close = nccl_close,
	.unsupported = nccl_unsupported,
	.run = {
		[COLL_ALLREDUCE] = nccl_allreduce,
		[COLL_ALLGATHER] = nccl_allgather,
		[COLL_REDUCESCATTER] = nccl_reducescatter,
		[COLL_BROADCAST] = nccl_broadcast,
		[COLL_REDUCE] = nccl_reduce,
		[COLL_ALLTOALL] = nccl_alltoall,
		[COLL_SENDRECV] = nccl_sendrecv,
	},
	.fill = nccl_fill,
	.check = nccl_check,
	.corrupt = nccl_corrupt,
	.sync = nccl_sync,
	.timer_start = nccl_timer_start,
	.timer_stop = nccl_timer_stop,
	.version = nccl_version,
	.carried = nccl_carried,
};
