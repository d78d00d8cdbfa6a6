/* coll_nccl.c — the "nccl" collective backend: NCCL on device buffers, one GPU per rank (the
 * rank's index on its node picks the device). Fill and check run on the GPU
 * (kernels/fill_check.cu, the same coll_math.h as the host); timing uses CUDA events on the
 * backend's stream, so a batch's time includes all its device work. Built only with NCCL. */
#include <stdlib.h>
#include <string.h>

#include "coll_backend.h"
#include "core/mpi_util.h"
#include "cuda_util.h"
#include "fill_check.h"

struct nccl_coll {
	ncclComm_t comm;
	cudaStream_t stream;
	cudaEvent_t start, stop;
	char *send, *recv;          /* device, max_bytes each */
	unsigned long long *d_out;  /* device: wrong count, first wrong index */
};

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

	CHECK_NCCL(ncclAllReduce(c->in_place ? x->recv : x->send, x->recv, c->count, nccl_type(c),
				 nccl_op(c), x->comm, x->stream));
	return 0;
}

static int nccl_allgather(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;
	const char *in = c->in_place ? at(x->recv, c, (uint64_t)c->rank * c->count) : x->send;

	CHECK_NCCL(ncclAllGather(in, x->recv, c->count, nccl_type(c), x->comm, x->stream));
	return 0;
}

static int nccl_reducescatter(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;
	char *out = c->in_place ? at(x->recv, c, (uint64_t)c->rank * c->count) : x->recv;

	CHECK_NCCL(ncclReduceScatter(c->in_place ? x->recv : x->send, out, c->count, nccl_type(c),
				     nccl_op(c), x->comm, x->stream));
	return 0;
}

static int nccl_broadcast(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;

	CHECK_NCCL(ncclBroadcast(c->in_place ? x->recv : x->send, x->recv, c->count, nccl_type(c),
				 c->root, x->comm, x->stream));
	return 0;
}

static int nccl_reduce(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;

	CHECK_NCCL(ncclReduce(c->in_place ? x->recv : x->send, x->recv, c->count, nccl_type(c),
			      nccl_op(c), c->root, x->comm, x->stream));
	return 0;
}

/* grouped send/receive, as nccl-tests does (ncclAlltoAll is recent) */
static int nccl_alltoall(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;

	CHECK_NCCL(ncclGroupStart());
	for (int p = 0; p < c->nranks; p++) {
		CHECK_NCCL(ncclSend(at(x->send, c, (uint64_t)p * c->count), c->count, nccl_type(c), p,
				    x->comm, x->stream));
		CHECK_NCCL(ncclRecv(at(x->recv, c, (uint64_t)p * c->count), c->count, nccl_type(c), p,
				    x->comm, x->stream));
	}
	CHECK_NCCL(ncclGroupEnd());
	return 0;
}

/* ring neighbours: send to rank + 1, receive from rank - 1 */
static int nccl_sendrecv(void *ctx, const struct coll_case *c)
{
	struct nccl_coll *x = ctx;
	int next = (c->rank + 1) % c->nranks, prev = (c->rank + c->nranks - 1) % c->nranks;

	CHECK_NCCL(ncclGroupStart());
	CHECK_NCCL(ncclSend(x->send, c->count, nccl_type(c), next, x->comm, x->stream));
	CHECK_NCCL(ncclRecv(x->recv, c->count, nccl_type(c), prev, x->comm, x->stream));
	CHECK_NCCL(ncclGroupEnd());
	return 0;
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
	CHECK_CUDA(cudaMemcpyAsync(h, x->d_out, sizeof h, cudaMemcpyDeviceToHost, x->stream));
	CHECK_CUDA(cudaStreamSynchronize(x->stream));
	if (h[0] == 0)
		return 0;
	out->wrong = (int64_t)h[0];
	out->first = (int64_t)h[1];
	CHECK_CUDA(cudaMemcpy(elem, at(x->recv, c, l.out_off + h[1]), (size_t)c->dtype->size,
			      cudaMemcpyDeviceToHost));
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
	CHECK_CUDA(cudaStreamSynchronize(x->stream));
	CHECK_CUDA(cudaMemcpy(elem, p, (size_t)c->dtype->size, cudaMemcpyDeviceToHost));
	v = coll_load(c->dtype->id, elem);
	coll_store(c->dtype->id, elem, v != 0 ? -(int64_t)v : 1); /* exact, and never equal */
	CHECK_CUDA(cudaMemcpy(p, elem, (size_t)c->dtype->size, cudaMemcpyHostToDevice));
	return 0;
}

static int nccl_sync(void *ctx)
{
	CHECK_CUDA(cudaStreamSynchronize(((struct nccl_coll *)ctx)->stream));
	return 0;
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
	CHECK_CUDA(cudaEventSynchronize(x->stop));
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

/* The device of local rank lrank: its index when every rank sees all the node's GPUs, else
 * device 0 (the launcher gave each rank its own, e.g. Slurm's --gpus-per-task=1; the probe
 * checks that no two ranks of a node ended up on the same GPU). */
static int pick_device(int lrank, int lsize, int ndev)
{
	return ndev >= lsize ? lrank : 0;
}

/* 1 with why filled when two ranks of this node would share a GPU (NCCL refuses that). */
static int gpu_shared(MPI_Comm node, int lrank, int lsize, int dev, char *why, size_t len)
{
	char mine[32] = "", *all = calloc((size_t)lsize, sizeof mine);
	int shared = 0;

	if (!all || cudaDeviceGetPCIBusId(mine, sizeof mine, dev) != cudaSuccess)
		snprintf(mine, sizeof mine, "unknown-%d", lrank); /* cannot tell: let NCCL decide */
	if (all && MPI_Allgather(mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR, node) == MPI_SUCCESS)
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
	if (gpu_shared(node, lrank, lsize, skip ? -1 : pick_device(lrank, lsize, ndev),
		       skip ? NULL : why, skip ? 0 : len))
		skip = 1;
	MPI_Comm_free(&node);
	return skip != 0;
}

static void nccl_close(void *ctx)
{
	struct nccl_coll *x = ctx;

	if (!x)
		return;
	if (x->comm)
		ncclCommDestroy(x->comm);
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

static int nccl_open(const struct coll_env *env, void **ctx, char *why, size_t len)
{
	struct nccl_coll *x = calloc(1, sizeof *x);
	struct { int ok; ncclUniqueId id; } hello = { 0 };
	int ok, all_ok = 0;

	(void)why, (void)len;
	*ctx = NULL;
	if (!x)
		LOG_ERROR("out of memory");
	/* every rank must be ready before any enters ncclCommInitRank, or the others would wait */
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
	if (ncclCommInitRank(&x->comm, env->nranks, hello.id, env->rank) != ncclSuccess) {
		LOG_ERROR("ncclCommInitRank(%d ranks, rank %d) failed", env->nranks, env->rank);
		x->comm = NULL;
		nccl_close(x);
		return FP_ERUNTIME;
	}
	*ctx = x;
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
};
