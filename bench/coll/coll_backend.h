/* coll_backend.h — the collective backend interface (mpi, nccl) and its registry.
 *
 * The engine (coll.c) owns the sweep, warm-up, timing and the check's verdict; a backend owns
 * its buffers and runs, fills and checks one case. A new backend plugs in by filling struct
 * coll_backend and adding one line to coll_backends.c. */
#ifndef FP_COLL_BACKEND_H
#define FP_COLL_BACKEND_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "coll.h"

/* ---------------------------------------------------------------- cases */

/* One op at one count on one rank: everything a backend needs to run, fill and check it. */
struct coll_case {
	const struct coll_op *op;
	const struct coll_dtype *dtype;
	int redop;              /* COLL_NOREDOP when the op does not reduce */
	int root;               /* -1 when the op has none */
	uint64_t count;
	int in_place;
	int rank, nranks;
};

/* Where data lies, in elements. Out of place: input in the send buffer at 0, result in the
 * receive buffer at out_off. In place: one buffer (the receive buffer) holds the input at
 * in_off and the result at out_off. */
struct coll_layout {
	uint64_t send_elems;    /* input elements */
	uint64_t recv_elems;    /* receive buffer elements (the in-place buffer's size) */
	uint64_t in_off, out_off;
	uint64_t out_elems;     /* result elements on this rank (0: none, e.g. reduce off root) */
};

/* Backend quirks that move the result (MPI's conventions differ from NCCL's). */
enum {
	COLL_Q_RS_INPLACE_OUT_FIRST = 1, /* in-place reduce-scatter leaves the result at 0 */
	COLL_Q_BCAST_ROOT_KEEPS = 2,     /* out-of-place broadcast: the root receives nothing */
};
void coll_layout_get(const struct coll_case *c, unsigned quirks, struct coll_layout *l);
void coll_expect_args_make(const struct coll_case *c, uint32_t seed, struct coll_expect_args *a);

/* Host representation of the dtypes (half and bfloat16 as IEEE bit patterns). Exact for the
 * integers coll_math.h produces. */
void coll_store(int dtype, void *p, int64_t v);
double coll_load(int dtype, const void *p);

/* ---------------------------------------------------------------- backends */

struct coll_env {
	MPI_Comm comm;          /* every rank of the run (a per-path backend: one per node) */
	int rank, nranks;
	uint64_t max_bytes;     /* largest buffer any case will use, per buffer */
	const char *path;       /* a per-path backend's path (mpi, tcp:<netdev>, verbs:<dev>:<port>) */
	const char *host;       /* this rank's node */
	int single_node;        /* every rank on one node */
	int shared_core;        /* the ranks on this machine outnumber its cores: wait asleep */
	double wait_s;          /* the longest one device step may take (s); 0: no bound */
	int shared_gpu;         /* ranks may share a GPU (--shared-gpu) */
};

/* A wrong-element count and the first wrong element of one rank's result. */
struct coll_check {
	int64_t wrong;
	int64_t first;          /* index in the result, -1 when none */
	double got, want;
};

/* Host buffers (coll_host.c), for the backends that reduce on the CPU. Fill: the receive
 * buffer poisoned (a power of two beyond any result: exact in every type, never right), then
 * this rank's input written; check: the result against coll_math.h; corrupt: result element j
 * made wrong (tests). Each returns 0. */
int coll_host_fill(char *send, char *recv, const struct coll_case *c, unsigned quirks, uint32_t seed);
int coll_host_check(const char *recv, const struct coll_case *c, unsigned quirks, uint32_t seed,
		    struct coll_check *out);
int coll_host_corrupt(char *recv, const struct coll_case *c, unsigned quirks, uint64_t j);
/* dst[i] = a[i] redop b[i] for n elements of dtype (float, double, int32; dst may be a or b).
 * 0, or -1 for another dtype or reduction. */
int coll_host_reduce(int dtype, int redop, void *dst, const void *a, const void *b, size_t n);

typedef int (*coll_run_fn)(void *ctx, const struct coll_case *c);

/* Every function returns 0 or a negative FP_E* code after logging (log.h). Calls marked
 * collective are made by every rank. */
struct coll_backend {
	const char *name;
	const char *absent;     /* non-NULL: not in this build, and why (registry stub) */
	int gpu;                /* runs on GPU buffers: every rank needs a GPU */
	int per_path;           /* runs once per path of the sweep, one rank per node, over fabprobe's
				 * own transports (coll_opts.ring_paths) */
	unsigned quirks;        /* COLL_Q_* */
	/* collective: can this rank run it here? 0, or 1 with why filled (then it is skipped) */
	int (*probe)(const struct coll_env *env, char *why, size_t len);
	/* collective: 0, 1 when it cannot run here (why filled, the same on every rank), FP_E* */
	int (*open)(const struct coll_env *env, void **ctx, char *why, size_t len);
	void (*close)(void *ctx);                             /* accepts NULL */
	/* NULL when the case can run, else the reason it cannot (the same on every rank) */
	const char *(*unsupported)(const struct coll_case *c);
	coll_run_fn run[COLL_NOPS];
	int (*fill)(void *ctx, const struct coll_case *c, uint32_t seed);
	int (*check)(void *ctx, const struct coll_case *c, uint32_t seed, struct coll_check *out);
	int (*corrupt)(void *ctx, const struct coll_case *c, uint64_t j); /* result element j */
	int (*sync)(void *ctx);                          /* wait for queued work; NULL: none */
	int (*timer_start)(void *ctx);
	int (*timer_stop)(void *ctx, double *seconds);   /* since timer_start, work included */
	void (*version)(char *out, size_t len);          /* library version */
	double (*line_rate)(void *ctx);                  /* the path's bottleneck, Gbit/s; NULL: unknown */
	/* this rank, once open: what carries the traffic, one line into text, and whether it is
	 * the path asked for (NULL, "mpi": the library's own choice): 0, 1 with why ("asked for
	 * verbs:mlx5_0:1, NCCL used NET/Socket eth0"), -1 not known. NULL: never said. */
	int (*carried)(void *ctx, const char *path, char *text, size_t tlen, char *why, size_t wlen);
};

/* The registry (coll_backends.c): every known backend (at most COLL_BACKENDS_MAX),
 * NULL-terminated; entries not in this build have `absent` set. */
#define COLL_BACKENDS_MAX 8
extern const struct coll_backend *const coll_backends[];
const struct coll_backend *coll_backend_find(const char *name);
extern const struct coll_backend coll_backend_mpi;
extern const struct coll_backend coll_backend_nccl; /* only in builds with NCCL */
extern const struct coll_backend coll_backend_ring;

#endif
