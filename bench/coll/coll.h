/* coll.h — the collective benchmark (`fabprobe coll`): ops as data, options, backends, rows.
 *
 * One engine (coll.c) owns warm-up, timing, the check and the output; an op is a row of
 * numbers (how its size scales, its bus factor), and a backend (mpi, nccl) is a struct of
 * functions that owns buffers and runs one op. Sizes follow nccl-tests: size_B is the larger
 * of the send and receive bytes per rank; count is the count argument of the call (elements
 * per rank block); algbw = size_B / time, busbw = algbw x the op's bus factor. */
#ifndef FP_COLL_H
#define FP_COLL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coll_math.h"
#include "core/opts.h"
#include "core/results.h"

/* ---------------------------------------------------------------- ops, types, reductions */

struct coll_op {
	const char *name;
	int id;                 /* enum coll_op_id */
	int blocks;             /* 1: size = count x sizeof; 0: count x sizeof x nranks */
	int reduces, rooted;
	double (*bus_factor)(int nranks);
};

struct coll_dtype {
	const char *name;
	int id;                 /* enum coll_dtype_id */
	int size;               /* bytes */
};

extern const struct coll_op coll_ops[COLL_NOPS];
extern const struct coll_dtype coll_dtypes[COLL_NDTYPES];
extern const char *const coll_redop_names[COLL_NREDOPS];

const struct coll_op *coll_op_find(const char *name);
const struct coll_dtype *coll_dtype_find(const char *name);
int coll_redop_find(const char *name); /* enum coll_redop_id, or -1 */

/* Elements per rank block for a requested size (rounded down like nccl-tests; 0: too small). */
uint64_t coll_count_for(const struct coll_op *op, uint64_t size_B, int dtype_size, int nranks);
/* size_B of a count: the larger of the send and receive bytes per rank. */
uint64_t coll_size_of(const struct coll_op *op, uint64_t count, int dtype_size, int nranks);
/* algbw = size_B / t (GB/s, 1 GB = 1e9 B), busbw = algbw x bus factor; t in µs. */
void coll_bandwidth(const struct coll_op *op, uint64_t size_B, double t_us, int nranks,
		    double *algbw, double *busbw);

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

/* ---------------------------------------------------------------- options */

#define COLL_SIZES_MAX 1024
#define COLL_BYTES_MAX (32ULL << 30)

struct coll_opts {
	uint64_t minbytes, maxbytes, stepbytes; /* stepbytes 0: geometric with stepfactor */
	long stepfactor;
	uint64_t sizes[COLL_SIZES_MAX];
	int nsizes;
	long iters, warmup;
	long check;              /* 1: check each size after timing it */
	int ops[COLL_NOPS], nops;
	int dtypes[COLL_NDTYPES], ndtypes;
	int redops[COLL_NREDOPS], nredops;
	long root;               /* for broadcast and reduce */
	const char *backend;     /* --backend: the registry entry's name; NULL for all */
	struct results_where where;  /* --output, --name, --results-root */
	long test_corrupt_rank;  /* test only: corrupt one result element on this rank; -1 none */
};

/* Parse `fabprobe coll` options (argv[0] is "coll"). Returns 0, 1 for --help, or FP_EUSAGE
 * with a one-line reason in err. Pure. */
int coll_opts_parse(int argc, char **argv, struct coll_opts *o, char *err);
struct world;
struct run_out;
/* Options that depend on the rank count (roots, the corrupted rank): FP_EUSAGE after rank 0
 * said why. Collective. */
int coll_check(struct world *w, void *arg);
/* The collectives stage inside a run (every rank; arg: const struct coll_opts *): the sweeps,
 * collectives.csv and the table. Returns 0, 1 when a result was wrong, or FP_E*: on every
 * rank together when a file or a backend's opening failed; FP_ERUNTIME on one rank alone
 * when a backend call failed there, while the other ranks may wait in that collective for
 * ever: the caller must then end the job (MPI_Abort), as only the command layer may. */
int coll_stage(struct world *w, struct run_out *ro, void *arg);
void coll_usage(FILE *f);
/* The sweep: min, min x factor, … (or min, min + step, …) up to max inclusive. Returns the
 * number of sizes, or FP_EUSAGE (err filled) when there would be more than cap. */
int coll_sweep(uint64_t min, uint64_t max, long factor, uint64_t step, uint64_t *out, int cap,
	       char *err);

/* ---------------------------------------------------------------- backends */

struct coll_env {
	MPI_Comm comm;          /* every rank of the run */
	int rank, nranks;
	uint64_t max_bytes;     /* largest buffer any case will use, per buffer */
};

/* A wrong-element count and the first wrong element of one rank's result. */
struct coll_check {
	int64_t wrong;
	int64_t first;          /* index in the result, -1 when none */
	double got, want;
};

typedef int (*coll_run_fn)(void *ctx, const struct coll_case *c);

/* Every function returns 0 or a negative FP_E* code after logging (log.h). Calls marked
 * collective are made by every rank. */
struct coll_backend {
	const char *name;
	const char *absent;     /* non-NULL: not in this build, and why (registry stub) */
	int gpu;                /* runs on GPU buffers: every rank needs a GPU */
	unsigned quirks;        /* COLL_Q_* */
	/* collective: can this rank run it here? 0, or 1 with why filled (then it is skipped) */
	int (*probe)(const struct coll_env *env, char *why, size_t len);
	int (*open)(const struct coll_env *env, void **ctx); /* collective */
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
};

/* The registry (coll_backends.c): every known backend (at most COLL_BACKENDS_MAX),
 * NULL-terminated; entries not in this build have `absent` set. */
#define COLL_BACKENDS_MAX 8
extern const struct coll_backend *const coll_backends[];
const struct coll_backend *coll_backend_find(const char *name);
/* The first GPU backend this build has (the `nccl` path of paths.csv), NULL when none. */
const char *coll_gpu_backend(void);
extern const struct coll_backend coll_backend_mpi;
extern const struct coll_backend coll_backend_nccl; /* only in builds with NCCL */

/* ---------------------------------------------------------------- results */

enum coll_status { COLL_OK, COLL_WRONG, COLL_UNSUPPORTED };

/* One row of collectives.csv: one case at one size, merged over ranks (rank 0). */
struct coll_row {
	const char *run_id, *backend;
	const struct coll_case *c; /* op, dtype, redop, root, count, in_place */
	uint64_t size_B;
	int nnodes;
	double time_us, time_us_max, algbw, busbw; /* NAN when not measured */
	int64_t wrong;                              /* -1 when not checked */
	int status;
};

void coll_csv_header(FILE *f);
void coll_csv_row(FILE *f, const struct coll_row *r);
/* The nccl-tests terminal table: a header, then one line per size with both modes. */
void coll_table_header(FILE *f);
void coll_table_line(FILE *f, const struct coll_row *oop, const struct coll_row *ip);
const char *coll_status_name(int status);

/* What became of each backend, for coll_meta.json. */
struct coll_be_status {
	const char *name;
	int selected, usable;
	char why[256];          /* why it is skipped */
	char version[128];      /* library version, "" when unknown */
};

/* coll_meta.json: options, backends and their versions, the NCCL_* variables of env (an
 * environ-style array). */
void coll_meta_write(FILE *f, const struct coll_opts *o, const struct coll_be_status *st, int nst,
		     int nranks, int nnodes, char *const *env);

/* `fabprobe coll`: the subcommand handler; returns the process exit code. */

#endif
