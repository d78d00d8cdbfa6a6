/* coll_host.c — host buffers for the backends that reduce on the CPU (mpi, ring): fill,
 * check and corrupt with coll_math.h, and the reductions themselves. */
#include "coll_backend.h"

int coll_host_fill(char *send, char *recv, const struct coll_case *c, unsigned quirks, uint32_t seed)
{
	struct coll_layout l;
	struct coll_expect_args a;
	size_t sz = (size_t)c->dtype->size;
	int64_t poison = -2 * coll_exact_limit(c->dtype->id);
	char *in;

	coll_layout_get(c, quirks, &l);
	coll_expect_args_make(c, seed, &a);
	for (uint64_t i = 0; i < l.recv_elems; i++)
		coll_store(c->dtype->id, recv + i * sz, poison);
	in = c->in_place ? recv + l.in_off * sz : send;
	for (uint64_t i = 0; i < l.send_elems; i++)
		coll_store(c->dtype->id, in + i * sz, coll_value(&a.gen, c->rank, i));
	return 0;
}

int coll_host_check(const char *recv, const struct coll_case *c, unsigned quirks, uint32_t seed,
		    struct coll_check *out)
{
	struct coll_layout l;
	struct coll_expect_args a;
	size_t sz = (size_t)c->dtype->size;

	coll_layout_get(c, quirks, &l);
	coll_expect_args_make(c, seed, &a);
	*out = (struct coll_check){ .first = -1 };
	for (uint64_t j = 0; j < l.out_elems; j++) {
		double got = coll_load(c->dtype->id, recv + (l.out_off + j) * sz);
		double want = (double)coll_expect(&a, j);

		if (got == want)
			continue;
		if (out->wrong++ == 0) {
			out->first = (int64_t)j;
			out->got = got;
			out->want = want;
		}
	}
	return 0;
}

int coll_host_corrupt(char *recv, const struct coll_case *c, unsigned quirks, uint64_t j)
{
	struct coll_layout l;
	char *p;
	double v;

	coll_layout_get(c, quirks, &l);
	p = recv + (l.out_off + j) * (size_t)c->dtype->size;
	v = coll_load(c->dtype->id, p);
	coll_store(c->dtype->id, p, v != 0 ? -(int64_t)v : 1); /* exact, and never equal */
	return 0;
}

#define REDUCE_LOOP(T)                                                                      \
	do {                                                                                \
		T *d = dst;                                                                 \
		const T *x = a, *y = b;                                                     \
		switch (redop) {                                                            \
		case COLL_SUM: for (size_t i = 0; i < n; i++) d[i] = x[i] + y[i]; break;    \
		case COLL_PROD: for (size_t i = 0; i < n; i++) d[i] = x[i] * y[i]; break;   \
		case COLL_MAX: for (size_t i = 0; i < n; i++) d[i] = x[i] > y[i] ? x[i] : y[i]; break; \
		case COLL_MIN: for (size_t i = 0; i < n; i++) d[i] = x[i] < y[i] ? x[i] : y[i]; break; \
		default: return -1;                                                         \
		}                                                                           \
	} while (0)

int coll_host_reduce(int dtype, int redop, void *dst, const void *a, const void *b, size_t n)
{
	switch (dtype) {
	case COLL_FLOAT: REDUCE_LOOP(float); return 0;
	case COLL_DOUBLE: REDUCE_LOOP(double); return 0;
	case COLL_INT32: REDUCE_LOOP(int32_t); return 0;
	default: return -1;
	}
}
