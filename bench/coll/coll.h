/* coll.h — the collective benchmark (`fabprobe coll`), as its callers see it: the ops as
 * data, the options and the stage.
 *
 * One engine (coll.c) owns warm-up, timing, the check and the output; an op is a row of
 * numbers (how its size scales, its bus factor), and a backend is a struct of functions that
 * owns buffers and runs one op (coll_backend.h, the plug-in contract). Sizes follow
 * nccl-tests: size_B is the larger of the send and receive bytes per rank; count is the count
 * argument of the call (elements per rank block); algbw = size_B / time, busbw = algbw x the
 * op's bus factor. */
#ifndef FP_COLL_H
#define FP_COLL_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdio.h>

#include "coll_math.h"
#include "core/opts.h"
#include "core/results.h"
#include "fabric/io/coll_csv.h"

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

/* ---------------------------------------------------------------- options */

#define COLL_SIZES_MAX 1024
#define COLL_BYTES_MAX (32ULL << 30)

/* What `--path` sets in the environment before MPI_Init (coll_path_env), and what was there. */
#define COLL_ENV_MAX 16
#define COLL_RING_PATHS_MAX 16
#define COLL_ENV_VALUE_MAX 256
/* --path's ports: tcp:rail0+rail1+… or verbs:mlx5_0:1+mlx5_1:1+… (the rails at once) */
#define COLL_PATH_PORTS_MAX 16
#define COLL_PATH_MAX 96
struct coll_path_set {
	int n;
	struct {
		char name[40], value[COLL_ENV_VALUE_MAX], was[COLL_ENV_VALUE_MAX];
		int had;                 /* the variable was set before (to `was`) */
		char lib[COLL_ENV_VALUE_MAX]; /* what the MPI library says the setting is (MPI_T) */
		int lib_known;           /* the library has that setting: lib holds it */
	} v[COLL_ENV_MAX];
};

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
	long test_stall_rank;    /* test only: this rank stops before its first timed batch; -1 none */
	const char *path;        /* --path: mpi, tcp:<netdev>, verbs:<dev>:<port>; NULL: the
				  * libraries' own choice */
	struct coll_path_set env; /* what coll_path_apply set for it */
	const char *ring_paths[COLL_RING_PATHS_MAX]; /* fabprobe's ring: its paths (run: every path
						    * measured); none: --path, or mpi */
	int nring_paths;
	double min_pct;          /* --min-pct: an all-reduce with a known line rate whose busbw at
				  * the largest size is below this % of it counts; 0: not judged */
	double wait_s;           /* --timeout: the longest one device step may take (s) */
	int shared_gpu;          /* --shared-gpu: ranks may share a GPU (a check, not a figure) */
};


/* --path P: mpi, tcp:<netdev>, verbs:<dev>:<port>, or several ports of one kind joined by '+'
 * (tcp:rail0+rail1, verbs:mlx5_0:1+mlx5_1:1: the libraries take them at once, the ring each in
 * turn). 0, or FP_EUSAGE with a one-line reason in err. Pure. */
int coll_path_parse(const char *path, char *err);
/* A parsed --path's ports, each a path of its own ("tcp:rail0", "verbs:mlx5_1:1"), into out:
 * their count (1 for a path of one port or mpi). Pure. */
int coll_path_ports(const char *path, char (*out)[COLL_PATH_MAX], int max);
/* The variables that make Open MPI (ob1/tcp on the netdev, or UCX on the port) and NCCL (its
 * socket or IB transport on it, no NVLink, shared memory, NVLS or CollNet) take path P; none
 * for NULL or "mpi". Pure. */
void coll_path_env(const char *path, struct coll_path_set *e);
/* path-env.sh onto f: for each of the n paths (tcp:, verbs:, several ports joined by '+'; the
 * others have no environment of their own and are left out), under its name, the exports
 * coll_path_env makes, printed by `sh path-env.sh PATH` for an eval; rails: the rails joined
 * in rail order (NULL none), under the name "rails". A path or value with a character outside
 * a name's ([A-Za-z0-9_.:,=+-]) is left out, said in a comment. how: one line for the head.
 * The count of paths written. */
int coll_path_env_script(FILE *f, const char *how, const char *const *paths, int n, const char *rails);
/* After MPI_Init (this rank alone): each OMPI_MCA_<name> that --path set, read back from the
 * MPI library's own control variable <name> (MPI_T), into e's lib: the library took it. */
void coll_path_readback(struct coll_path_set *e);
/* A RoCE port's GID index for a verbs:<dev>:<port> path, from <root>/class/infiniband (the
 * RoCE v2 GID inv_gid_choose picks, as the verbs transport does): UCX_IB_GID_INDEX and
 * NCCL_IB_GID_INDEX appended to e; nothing for another path or an InfiniBand port. */
void coll_path_gid(const char *root, const char *path, struct coll_path_set *e);
/* Before MPI_Init, on every rank (opts: struct coll_opts *): coll_path_env into opts->env, and
 * set, each with what it replaced (nothing when --backend names fabprobe's ring, which takes
 * the path through its own transport). 0 or FP_ERUNTIME. */
int coll_path_apply(void *opts);

/* Parse `fabprobe coll` options (argv[0] is "coll"). Returns 0, 1 for --help, or FP_EUSAGE
 * with a one-line reason in err. Pure. */
int coll_opts_parse(int argc, char **argv, struct coll_opts *o, char *err);
/* The defaults coll_opts_parse starts from (sizes not yet swept). */
void coll_opts_default(struct coll_opts *o);
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
/* The same, with rank 0's summary (sum: zeroed first) for run's verdict. */
int coll_stage_sum(struct world *w, struct run_out *ro, const struct coll_opts *o, struct coll_summary *sum);
void coll_usage(FILE *f);
/* The sweep: min, min x factor, … (or min, min + step, …) up to max inclusive. Returns the
 * number of sizes, or FP_EUSAGE (err filled) when there would be more than cap. */
int coll_sweep(uint64_t min, uint64_t max, long factor, uint64_t step, uint64_t *out, int cap,
	       char *err);

/* One out-of-place all-reduce (float sum) of bytes through a backend ("mpi", "ring" over
 * path) over comm's ranks in their rank order: warmup untimed, iters timed, then (check) a
 * checked run on fresh inputs. *t_s: the slowest rank's mean time per op, *wrong: the wrong
 * elements over every rank (0 unchecked). Collective over comm. 0, 1 when it cannot run there
 * (why: the same on every rank), or FP_E* after logging. */
int coll_allreduce_once(const char *backend, MPI_Comm comm, const char *path, const char *host, uint64_t bytes,
			long warmup, long iters, int check, double *t_s, long long *wrong, char *why, size_t len);

/* The first GPU backend this build has (its path in the inventory's paths.csv), NULL when
 * none: what the command layer tells the inventory. */
const char *coll_gpu_backend(void);

#endif
