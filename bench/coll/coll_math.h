/* coll_math.h — the collectives' input values and expected results, as pure integer math.
 *
 * Compiled both as C (the MPI backend's host fill and check, the unit tests) and as CUDA
 * (kernels/fill_check.cu, for the NCCL backend), so that host and device cannot disagree.
 *
 * Rank r puts value v(r, i) at index i of its input. Every value is a small integer chosen so
 * that each result is exact in every datatype, in any reduction order:
 *   - sum: |v| <= span with contributing ranks x span <= the dtype's exact-integer limit
 *     (2^24 float/int32/double, 2048 half, 256 bfloat16); above that many ranks, only the
 *     first `limit` ranks contribute (the others hold 0), so a sum is exact at any scale;
 *   - prod: v = ±1, except one rank per element (varying with the element) holding ±2, so
 *     every product is ±1 or ±2;
 *   - max, min and the data-moving ops: |v| <= span (wide, so a misplaced element shows).
 * Values hash rank, index and a seed (a fresh seed for the check run than for the timed run). */
#ifndef FP_COLL_MATH_H
#define FP_COLL_MATH_H

#include <stdint.h>

#ifdef __CUDACC__
#define COLL_HD __host__ __device__ static inline
#else
#define COLL_HD static inline
#endif

enum coll_op_id {
	COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER, COLL_BROADCAST, COLL_REDUCE,
	COLL_ALLTOALL, COLL_SENDRECV, COLL_NOPS
};
enum coll_dtype_id { COLL_FLOAT, COLL_DOUBLE, COLL_INT32, COLL_HALF, COLL_BF16, COLL_NDTYPES };
/* COLL_NOREDOP: the op does not reduce */
enum coll_redop_id { COLL_SUM, COLL_PROD, COLL_MAX, COLL_MIN, COLL_NREDOPS, COLL_NOREDOP = -1 };

#define COLL_DATA_SPAN (1 << 20) /* the widest value range used, whatever the dtype */

/* How rank r's values are made (coll_gen_make fills it). Plain data: it is passed to kernels. */
struct coll_gen {
	int64_t span;     /* values lie in [-span, span] */
	int32_t contrib;  /* ranks below contrib hold values; the others hold 0 */
	int32_t prod;     /* 1: the product generator */
	int32_t nranks;
	uint32_t seed;
};

/* What the result of one op on one rank must be (coll_expect). */
struct coll_expect_args {
	int32_t op, redop, rank, root, nranks;
	uint64_t count;   /* the op's count argument: elements per rank block */
	struct coll_gen gen;
};

/* splitmix64's finaliser: a cheap, well-mixed 64-bit hash */
COLL_HD uint64_t coll_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* The exact-integer limit of a dtype: every integer of magnitude <= it is representable. */
COLL_HD int64_t coll_exact_limit(int dtype)
{
	return dtype == COLL_HALF ? 2048 : dtype == COLL_BF16 ? 256 : (int64_t)1 << 24;
}

/* The generator for a dtype, reduction (COLL_NOREDOP for data-moving ops), rank count, seed. */
COLL_HD struct coll_gen coll_gen_make(int dtype, int redop, int nranks, uint32_t seed)
{
	int64_t limit = coll_exact_limit(dtype);
	struct coll_gen g = { limit < COLL_DATA_SPAN ? limit : COLL_DATA_SPAN, nranks, 0, nranks, seed };

	if (redop == COLL_PROD)
		g.prod = 1;
	if (redop == COLL_SUM) {
		g.contrib = (int64_t)nranks < limit ? nranks : (int32_t)limit;
		g.span = limit / g.contrib;
	}
	return g;
}

/* v(rank, idx): the value rank puts at index idx of its input. */
COLL_HD int64_t coll_value(const struct coll_gen *g, int rank, uint64_t idx)
{
	uint64_t e = coll_mix(idx ^ ((uint64_t)g->seed << 40));
	uint64_t h = coll_mix(e + (uint64_t)rank);

	if (g->prod) {
		int64_t m = (int)(e % (uint64_t)g->nranks) == rank ? 2 : 1;

		return (h & 1) ? -m : m;
	}
	if (rank >= g->contrib)
		return 0;
	return (int64_t)(h % (uint64_t)(2 * g->span + 1)) - g->span;
}

COLL_HD int64_t coll_fold(int redop, int64_t a, int64_t b)
{
	switch (redop) {
	case COLL_PROD: return a * b;
	case COLL_MAX: return a > b ? a : b;
	case COLL_MIN: return a < b ? a : b;
	default: return a + b;
	}
}

/* The reduction over every rank of v(r, idx). */
COLL_HD int64_t coll_reduced(const struct coll_gen *g, int redop, uint64_t idx)
{
	int64_t acc = coll_value(g, 0, idx);

	for (int r = 1; r < g->nranks; r++)
		acc = coll_fold(redop, acc, coll_value(g, r, idx));
	return acc;
}

/* Element j of this rank's result (nccl-tests layout: allgather block k comes from rank k;
 * alltoall block k is what rank k sent to this rank; sendrecv receives from rank - 1). */
COLL_HD int64_t coll_expect(const struct coll_expect_args *a, uint64_t j)
{
	const struct coll_gen *g = &a->gen;
	uint64_t c = a->count;

	switch (a->op) {
	case COLL_REDUCESCATTER: return coll_reduced(g, a->redop, (uint64_t)a->rank * c + j);
	case COLL_ALLGATHER: return coll_value(g, (int)(j / c), j % c);
	case COLL_ALLTOALL: return coll_value(g, (int)(j / c), (uint64_t)a->rank * c + j % c);
	case COLL_BROADCAST: return coll_value(g, a->root, j);
	case COLL_SENDRECV: return coll_value(g, (a->rank + a->nranks - 1) % a->nranks, j);
	default: return coll_reduced(g, a->redop, j); /* allreduce, reduce */
	}
}

#endif
