/* coll_ops.c — the ops, datatypes and reductions as data, and the pure arithmetic on them:
 * byte counts, bus factors (nccl-tests' definitions, docs/measurement.md), buffer layouts, host value coding. */
#include <math.h>
#include <string.h>

#include "coll_backend.h"

/* ---------------------------------------------------------------- bus factors */

/* all-reduce moves 2(n-1)/n of the data over each rank's link (reduce-scatter + all-gather) */
static double factor_allreduce(int n)
{
	return 2.0 * (n - 1) / n;
}

/* each rank receives (n-1)/n of the total from its peers */
static double factor_ring(int n)
{
	return (double)(n - 1) / n;
}

static double factor_one(int n)
{
	(void)n;
	return 1.0;
}

const struct coll_op coll_ops[COLL_NOPS] = {
	[COLL_ALLREDUCE] = { "allreduce", COLL_ALLREDUCE, 1, 1, 0, factor_allreduce },
	[COLL_ALLGATHER] = { "allgather", COLL_ALLGATHER, 0, 0, 0, factor_ring },
	[COLL_REDUCESCATTER] = { "reducescatter", COLL_REDUCESCATTER, 0, 1, 0, factor_ring },
	[COLL_BROADCAST] = { "broadcast", COLL_BROADCAST, 1, 0, 1, factor_one },
	[COLL_REDUCE] = { "reduce", COLL_REDUCE, 1, 1, 1, factor_one },
	[COLL_ALLTOALL] = { "alltoall", COLL_ALLTOALL, 0, 0, 0, factor_ring },
	[COLL_SENDRECV] = { "sendrecv", COLL_SENDRECV, 1, 0, 0, factor_one },
};

const struct coll_dtype coll_dtypes[COLL_NDTYPES] = {
	[COLL_FLOAT] = { "float", COLL_FLOAT, 4 },
	[COLL_DOUBLE] = { "double", COLL_DOUBLE, 8 },
	[COLL_INT32] = { "int32", COLL_INT32, 4 },
	[COLL_HALF] = { "half", COLL_HALF, 2 },
	[COLL_BF16] = { "bfloat16", COLL_BF16, 2 },
};

const char *const coll_redop_names[COLL_NREDOPS] = { "sum", "prod", "max", "min" };

const struct coll_op *coll_op_find(const char *name)
{
	for (int i = 0; i < COLL_NOPS; i++)
		if (!strcmp(coll_ops[i].name, name))
			return &coll_ops[i];
	return NULL;
}

const struct coll_dtype *coll_dtype_find(const char *name)
{
	/* nccl-tests' spellings are accepted too */
	static const struct { const char *alias; int id; } aliases[] = {
		{ "float32", COLL_FLOAT }, { "fp32", COLL_FLOAT }, { "float64", COLL_DOUBLE },
		{ "int", COLL_INT32 }, { "float16", COLL_HALF }, { "fp16", COLL_HALF },
		{ "bf16", COLL_BF16 },
	};

	for (int i = 0; i < COLL_NDTYPES; i++)
		if (!strcmp(coll_dtypes[i].name, name))
			return &coll_dtypes[i];
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (!strcmp(aliases[i].alias, name))
			return &coll_dtypes[aliases[i].id];
	return NULL;
}

int coll_redop_find(const char *name)
{
	for (int i = 0; i < COLL_NREDOPS; i++)
		if (!strcmp(coll_redop_names[i], name))
			return i;
	return -1;
}

/* ---------------------------------------------------------------- sizes and bandwidth */

static uint64_t blocks_of(const struct coll_op *op, int nranks)
{
	return op->blocks ? 1 : (uint64_t)nranks;
}

uint64_t coll_count_for(const struct coll_op *op, uint64_t size_B, int dtype_size, int nranks)
{
	return size_B / ((uint64_t)dtype_size * blocks_of(op, nranks));
}

uint64_t coll_size_of(const struct coll_op *op, uint64_t count, int dtype_size, int nranks)
{
	return count * (uint64_t)dtype_size * blocks_of(op, nranks);
}

void coll_bandwidth(const struct coll_op *op, uint64_t size_B, double t_us, int nranks,
		    double *algbw, double *busbw)
{
	*algbw = t_us > 0 ? (double)size_B / (t_us * 1e-6) / 1e9 : NAN;
	*busbw = *algbw * op->bus_factor(nranks);
}

/* ---------------------------------------------------------------- layouts */

void coll_layout_get(const struct coll_case *c, unsigned quirks, struct coll_layout *l)
{
	uint64_t n = (uint64_t)c->nranks, k = c->count, r = (uint64_t)c->rank;

	*l = (struct coll_layout){ .send_elems = k, .recv_elems = k, .out_elems = k };
	switch (c->op->id) {
	case COLL_ALLGATHER:
		l->recv_elems = l->out_elems = k * n;
		if (c->in_place)
			l->in_off = r * k; /* each rank's block already sits in its place */
		break;
	case COLL_REDUCESCATTER:
		l->send_elems = l->recv_elems = k * n;
		if (c->in_place && !(quirks & COLL_Q_RS_INPLACE_OUT_FIRST))
			l->out_off = r * k;
		break;
	case COLL_ALLTOALL:
		l->send_elems = l->recv_elems = l->out_elems = k * n;
		break;
	case COLL_BROADCAST:
		if (c->rank == c->root && !c->in_place && (quirks & COLL_Q_BCAST_ROOT_KEEPS))
			l->out_elems = 0;
		break;
	case COLL_REDUCE:
		if (c->rank != c->root)
			l->out_elems = 0;
		break;
	default:
		break;
	}
}

void coll_expect_args_make(const struct coll_case *c, uint32_t seed, struct coll_expect_args *a)
{
	*a = (struct coll_expect_args){ .op = c->op->id, .redop = c->redop, .rank = c->rank,
					.root = c->root, .nranks = c->nranks, .count = c->count };
	a->gen = coll_gen_make(c->dtype->id, c->op->reduces ? c->redop : COLL_NOREDOP, c->nranks, seed);
}

/* ---------------------------------------------------------------- host value coding */

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	return u;
}

static float bits_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* IEEE binary16 from a float that is exactly representable in it (our integers are) */
static uint16_t half_from_float(float f)
{
	uint32_t u = float_bits(f), sign = (u >> 16) & 0x8000;
	int exp = (int)((u >> 23) & 0xff) - 127 + 15;

	if ((u & 0x7fffffff) == 0)
		return (uint16_t)sign;
	if (exp <= 0 || exp >= 31)
		return (uint16_t)(sign | 0x7c00); /* out of range for our values: infinity */
	return (uint16_t)(sign | (uint32_t)exp << 10 | ((u >> 13) & 0x3ff));
}

static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;

	if (exp == 0) /* zero or subnormal: man x 2^-24 */
		return (sign ? -1.0f : 1.0f) * (float)man * 0x1p-24f;
	if (exp == 31)
		return bits_float(sign | 0x7f800000 | man << 13);
	return bits_float(sign | (exp - 15 + 127) << 23 | man << 13);
}

void coll_store(int dtype, void *p, int64_t v)
{
	switch (dtype) {
	case COLL_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
	case COLL_DOUBLE: { double d = (double)v; memcpy(p, &d, 8); break; }
	case COLL_INT32: { int32_t i = (int32_t)v; memcpy(p, &i, 4); break; }
	case COLL_HALF: { uint16_t h = half_from_float((float)v); memcpy(p, &h, 2); break; }
	case COLL_BF16: { uint16_t b = (uint16_t)(float_bits((float)v) >> 16); memcpy(p, &b, 2); break; }
	default: break;
	}
}

double coll_load(int dtype, const void *p)
{
	switch (dtype) {
	case COLL_FLOAT: { float f; memcpy(&f, p, 4); return f; }
	case COLL_DOUBLE: { double d; memcpy(&d, p, 8); return d; }
	case COLL_INT32: { int32_t i; memcpy(&i, p, 4); return i; }
	case COLL_HALF: { uint16_t h; memcpy(&h, p, 2); return half_to_float(h); }
	case COLL_BF16: { uint16_t b; memcpy(&b, p, 2); return bits_float((uint32_t)b << 16); }
	default: return NAN;
	}
}
