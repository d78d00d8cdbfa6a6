/* p2p.h — the all-pairs point-to-point benchmark: options, result records, the engine. */
#ifndef FP_P2P_H
#define FP_P2P_H

#include <stdint.h>
#include <stdio.h>

#include "core/opts.h"
#include "core/results.h"
#include "fabric/io/matrix.h"
#include "fabric/plan/sched.h"
#include "transport.h"

#define P2P_PATHS_MAX 16
#define P2P_PATH_MAX 64
_Static_assert(P2P_PATH_MAX == MATRIX_PATH_MAX && TR_KIND_MAX == MATRIX_KIND_MAX, "a path and a kind fit the matrices");

/* One message size of the sweep, and what is measured at it. */
struct p2p_size {
	uint64_t bytes;
	int lat, bw;
};

enum { P2P_PLACE_AUTO, P2P_PLACE_SHARED, P2P_PLACE_NONE };

struct p2p_opts {
	struct p2p_size sizes[2 * OPTS_LIST_MAX]; /* union of the latency and bandwidth sizes */
	int nsizes;
	long lat_iters, lat_warmup;  /* ping-pong samples, unrecorded ones before them */
	long lat_passes;             /* latency passes over the pairs; the last one also streams */
	long bw_iters, bw_warmup;    /* timed windows; warm-up windows at least (0: none) */
	double bw_tolerance;         /* warm-up ends when two consecutive windows agree within this fraction */
	double bw_warmup_time;       /* seconds: warm-up budget per direction and size (then "not converged") */
	long window;                 /* messages per window */
	long concurrency;            /* pairs in flight at once; 0 = a whole round */
	double pair_timeout;         /* seconds; 0 = derived from the estimate */
	char paths[P2P_PATHS_MAX][P2P_PATH_MAX];
	int npaths;
	int paths_given;             /* -p was given (else `run` takes every path the inventory found) */
	struct results_where where;  /* -o, --name, --results-root */
	long test_stall_rank;        /* test only: this world rank stalls in its first pair; -1 none */
	int test_fault;              /* test only: TR_FAULT_* acted out by world rank test_fault_rank */
	long test_fault_rank;
	int progress;                /* 1 on, 0 off, -1 when stderr is a terminal */
	struct tr_qos qos;           /* --tclass, --sl, --flow-label (-1: not given) */
	int placement;               /* --placement: P2P_PLACE_* */
	uint64_t lat_list[OPTS_LIST_MAX], bw_list[OPTS_LIST_MAX]; /* -l, -s as given (sizes: both) */
	int nlat, nbw;
};

/* p2p's options as groups of a command's parser (core/opts.h): o's defaults; into g (room for
 * 2) p2p's own and the results directory's. Returns the count of groups. */
int p2p_opts_groups(struct p2p_opts *o, struct opts_group *g);
/* Parse `fabprobe p2p` options (argv[0] the command's name). Returns 0, 1 when --help was
 * asked for, or FP_EUSAGE with a one-line reason in err. Pure. */
int p2p_opts_parse(int argc, char **argv, struct p2p_opts *o, char *err);
void p2p_usage(FILE *f);

/* Seconds one pair (both directions, every size) takes at the given half round trip (µs)
 * and bandwidth (GB/s), counting warm-up. */
double p2p_pair_estimate(const struct p2p_opts *o, double lat_us, double GBps);
/* The pair deadline used when --pair-timeout is not given: generous against a slow
 * (1 Gbit/s, 100 µs) link, so that only a pair that is stuck reaches it; at most
 * P2P_DEADLINE_MAX (a stuck pair must not hold a run for days: -t gives more). */
#define P2P_DEADLINE_MAX 3600.0
double p2p_default_timeout(const struct p2p_opts *o);

enum p2p_status { P2P_OK, P2P_SKIPPED, P2P_ERROR, P2P_TIMEOUT };
const char *p2p_status_name(int status);

/* One direction of one pair at one size, as one endpoint saw it. Plain data: it travels
 * between ranks as bytes. Missing values are NAN / -1. */
struct p2p_rec {
	int32_t src, dst;       /* endpoint indices; src = -1 for an unused slot */
	int32_t size_idx;
	int32_t status;
	int64_t lat_iters, bw_iters;
	double lat_min, lat_avg, lat_p50, lat_p99; /* µs, half round trip */
	double lat_min_hi;      /* the highest pass's minimum (--lat-passes > 1), else NAN */
	double bw_GBps;                 /* median window rate */
	double bw_total, bw_min, bw_max; /* total bytes / total time; slowest, fastest window */
	int32_t bw_warm;                /* warm-up windows run */
	int32_t bw_converged;           /* 1 converged, 0 budget spent first, -1 no warm-up asked */
	char why[TR_WHY_MAX];
};

/* Merge the two sides' views of one direction (mine = src's) into one record (pure). */
void p2p_rec_merge(const struct p2p_rec *src_view, const struct p2p_rec *dst_view,
		   const char *src_label, const char *dst_label, struct p2p_rec *out);

/* The matrices of one path (rank 0), built by the engine from the merged records: n x n,
 * [src * n + dst], NAN where not measured. Latency at the smallest latency size (µs, half
 * round trip), bandwidth at the largest bandwidth size (GB/s). */

/* Take one merged record into the cells it belongs to (the matrix sizes of o). */
void p2p_matrices_add(struct p2p_matrices *m, const struct p2p_opts *o, const struct p2p_rec *r);

/* What the engine writes about one path (rank 0). */
struct p2p_path_out {
	const char *run_id, *path;
	int nep;
	const char *const *labels;      /* endpoint names: the host, or host/r<rank> on one node */
	const struct tr_port *ports;    /* each endpoint's port on this path */
	const struct p2p_opts *opts;
};

/* Append one merged record as a p2p.csv row (columns: fabric/p2p_csv.h). */
void p2p_csv_row(FILE *f, const struct p2p_path_out *po, const struct p2p_rec *r);
/* Human summary of a path on f, endpoints in `order` (matrices up to 16 endpoints, else
 * distributions). */
void p2p_summary_print(FILE *f, const struct p2p_matrices *m, const struct p2p_opts *o,
		       const char *const *labels, const int *order);
/* "latency_tcp_eth0.csv": file name of a per-path matrix. */
void p2p_matrix_name(char *out, size_t len, const char *what, const char *path);
/* The earlier path of paths[0..i-1] whose per-path files (latency_<path>.csv, topology_<path>.csv,
 * …) have the same names as those of paths[i] (':' and '/' both become '_': tcp:a_b and
 * tcp:a:b), or -1: two such paths would write one set of files. Pure. */
int p2p_path_clash(const char (*paths)[P2P_PATH_MAX], int i);
/* A comma-separated list of paths, as -p takes it (opt names the option in err): each a path
 * of a transport this build has, well formed, given once, and none writing another's files,
 * into paths (P2P_PATHS_MAX) and *npaths. 0 or FP_EUSAGE. Pure. */
int p2p_paths_parse(const char *opt, const char *s, char (*paths)[P2P_PATH_MAX], int *npaths, char *err);
/* Square matrix m (n x n): first row and column are labels in `order`; empty diagonal and
 * gaps. */
void p2p_matrix_write(FILE *f, int n, const char *const *labels, const int *order, const float *m,
		      int precision);
/* latency_<path>.csv and bandwidth_<path>.csv into dir, endpoints in `order`. 0 or FP_ERUNTIME. */
int p2p_matrices_write(const char *dir, const struct p2p_matrices *m, const char *const *labels,
		       const int *order);
/* Endpoint indices in natural name order (order: n entries). */
void p2p_order_natural(int n, const char *const *labels, int *order);

/* Every path's matrices (rank 0), in the order of the paths measured. */
struct p2p_result {
	int npaths;
	struct p2p_matrices path[P2P_PATHS_MAX];
};
void p2p_result_free(struct p2p_result *r);

struct world;
struct run_out;
/* Measure every path (endpoints only: w->my_ep >= 0); rows stream into <dir>/p2p.csv. Returns
 * 0, 1 when a pair failed, or a negative FP_E* (the same on every endpoint; FP_ETIMEDOUT when
 * an endpoint hung, so that the job cannot end collectively). res (rank 0, may be NULL)
 * receives every path's matrices: the caller writes them, in the order it chooses. */
int p2p_main(const struct p2p_opts *o, struct world *w, struct run_out *out, struct p2p_result *res);

/* Chosen pairs of chosen paths, measured one pair at a time (nothing else in flight): the
 * confirmation pass. Every endpoint holds the same plan. */
struct p2p_plan {
	const char *csv;                        /* rows stream into <dir>/<csv> */
	int append;                             /* …continued where an earlier plan left it */
	const char *what;                       /* for the terminal: "confirming" */
	int npaths;
	char path[P2P_PATHS_MAX][P2P_PATH_MAX];
	int npairs[P2P_PATHS_MAX];
	struct sched_pair *pair[P2P_PATHS_MAX]; /* npairs[i] each */
	double est_s[P2P_PATHS_MAX];            /* rank 0: each path's estimate for the terminal, from
						 * what its pairs measured (0: at 20 us and 1.25 GB/s) */
	/* steps of pairs measured at once (their pairs disjoint): step s of path i holds
	 * pair[i][step_first[i][s] .. step_first[i][s + 1] - 1]; NULL: one pair a step */
	int nsteps[P2P_PATHS_MAX];
	int *step_first[P2P_PATHS_MAX];
	int directed;                           /* each pair (a, b) measured from a to b alone, a
						 * step's streams starting together */
	/* rank 0, after each step of path i: the step's directions at the largest bandwidth size
	 * (merged records, nrec of them); returns the pairs of one more step to measure (into
	 * next, at most max, disjoint), 0 for none, or a negative FP_E*. NULL: the plan is fixed.
	 * The endpoints learn the step from rank 0. */
	int (*adapt)(void *ctx, int path, const struct p2p_rec *rec, int nrec, struct sched_pair *next, int max);
	void *adapt_ctx;
};
/* A plan's wire format, rank 0's to every rank (one format for every plan: the bandwidth plan,
 * the confirmation pass, the loaded pass and its bisection): the ints npaths, then per path
 * npairs, nsteps, step_first[0..nsteps] (nsteps 0: one int, and one pair a step), and the
 * pairs (a, b). p2p_plan_unpack reads buf (len ints; len 0: no path) into pl's paths, pairs and
 * steps, each checked (endpoints in 0..nep-1 and distinct, a < b unless pl->directed, steps in
 * order and covering the pairs); pl's other members are the caller's. 0 or FP_ERUNTIME (then
 * p2p_plan_free still frees what was made). */
int p2p_plan_unpack(const int *buf, int len, const struct p2p_opts *o, int nep, struct p2p_plan *pl);
void p2p_plan_free(struct p2p_plan *pl);

/* o's sizes of one kind: those measured for latency (lat) and/or for bandwidth (bw), the other
 * kind's flags cleared, a size of neither left out. */
void p2p_opts_only(const struct p2p_opts *o, int lat, int bw, struct p2p_opts *out);
/* As p2p_main, over the plan's pairs (o gives sizes, iterations and deadlines; o's paths are
 * not used). res (rank 0) gets one matrices per plan path, NAN outside the pairs measured. */
int p2p_plan_main(const struct p2p_opts *o, const struct p2p_plan *plan, struct world *w,
		  struct run_out *out, struct p2p_result *res);
/* The largest number of pairs of a plan per path (a bound for the plan's broadcast). */
#define P2P_PLAN_PAIRS_MAX 65536

#endif
