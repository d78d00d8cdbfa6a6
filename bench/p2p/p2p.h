/* p2p.h — the all-pairs point-to-point benchmark: options, result records, the engine. */
#ifndef FP_P2P_H
#define FP_P2P_H

#include <stdint.h>
#include <stdio.h>

#include "core/opts.h"
#include "core/results.h"
#include "transport.h"

#define P2P_PATHS_MAX 16
#define P2P_PATH_MAX 64

/* One message size of the sweep, and what is measured at it. */
struct p2p_size {
	uint64_t bytes;
	int lat, bw;
};

struct p2p_opts {
	struct p2p_size sizes[2 * OPTS_LIST_MAX]; /* union of the latency and bandwidth sizes */
	int nsizes;
	long lat_iters, lat_warmup;  /* ping-pong samples, unrecorded ones before them */
	long bw_iters, bw_warmup;    /* timed windows, untimed windows before them */
	long window;                 /* messages per window */
	long concurrency;            /* pairs in flight at once; 0 = a whole round */
	double pair_timeout;         /* seconds; 0 = derived from the estimate */
	char paths[P2P_PATHS_MAX][P2P_PATH_MAX];
	int npaths;
	struct results_where where;  /* -o, --name, --results-root */
	long test_stall_rank;        /* test only: this world rank stalls in its first pair; -1 none */
	int test_fault;              /* test only: TR_FAULT_* acted out by world rank test_fault_rank */
	long test_fault_rank;
	int progress;                /* 1 on, 0 off, -1 when stderr is a terminal */
	/* `run` only: the latency-map stage */
	long slots;                  /* ranks per node in host files; 0 = as in this job */
	const char *label_prefix;    /* Kubernetes label prefix */
	const char *coll_max;        /* largest all-reduce of the collectives stage (a size) */
	int no_inventory, no_coll;   /* leave a stage out */
};

/* Parse `fabprobe p2p` options (argv[0] is "p2p"), or `fabprobe run`'s (argv[0] "run": the
 * same plus the latency-map options). Returns 0, 1 when --help was asked for,
 * or FP_EUSAGE with a one-line reason in err. Pure: prints nothing. */
int p2p_opts_parse(int argc, char **argv, struct p2p_opts *o, char *err);
void p2p_usage(FILE *f);
/* Seconds one pair (both directions, every size) takes at the given half round trip (µs)
 * and bandwidth (GB/s), counting warm-up. */
double p2p_pair_estimate(const struct p2p_opts *o, double lat_us, double GBps);
/* The pair deadline used when --pair-timeout is not given: generous against a slow
 * (1 Gbit/s, 100 µs) link, so that only a pair that is stuck reaches it. */
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
	double bw_GBps;
	char why[TR_WHY_MAX];
};

/* Merge the two sides' views of one direction (mine = src's) into one record (pure). */
void p2p_rec_merge(const struct p2p_rec *src_view, const struct p2p_rec *dst_view,
		   const char *src_label, const char *dst_label, struct p2p_rec *out);

/* Output of one path (rank 0): rows into p2p.csv, matrices, the terminal summary. */
struct p2p_path_out {
	const char *run_id, *path;
	int nep;
	const char *const *labels;      /* endpoint names: the host, or host/r<rank> on one node */
	const struct tr_port *ports;    /* each endpoint's port on this path */
	const int *order;               /* display order of endpoints */
	const struct p2p_opts *opts;
	double *lat;                    /* nep*nep, [src*nep+dst], p50 µs at the smallest latency size */
	double *lat_min;                /* same, the minimum */
	double *bw;                     /* nep*nep, GB/s at the largest bandwidth size */
	int ok, failed;                 /* directions */
};

void p2p_csv_header(FILE *f);
/* Append one merged record as a p2p.csv row and remember it for the matrices. */
void p2p_csv_row(FILE *f, struct p2p_path_out *po, const struct p2p_rec *r);
/* Square matrix: first row and column are labels in `order`; empty diagonal and gaps. */
void p2p_matrix_write(FILE *f, const struct p2p_path_out *po, const double *m, int precision);
/* Human summary of a path on f (matrices up to 16 endpoints, else distributions). */
void p2p_summary_print(FILE *f, const struct p2p_path_out *po);
/* "latency_tcp_eth0.csv": file name of a per-path matrix. */
void p2p_matrix_name(char *out, size_t len, const char *what, const char *path);

/* The first path's matrices, for the latency map (rank 0, float as inference takes them). */
struct p2p_maps {
	int n;
	char path[P2P_PATH_MAX];
	float *lat;      /* n x n minimum half round trip, µs, at the smallest latency size */
	float *lat_p50;  /* the same, p50 (what latency_<path>.csv shows) */
	float *bw;       /* n x n GB/s at the largest bandwidth size */
};

struct world;
struct run_out;
/* Measure every path (endpoints only: w->my_ep >= 0). Returns 0, 1 when a pair failed, or a
 * negative FP_E*. maps (rank 0, may be NULL) receives the first path's matrices. */
int p2p_main(const struct p2p_opts *o, struct world *w, struct run_out *out, struct p2p_maps *maps);

struct sched_pair;
/* Measure the given pairs of one path again (both directions, every size), one pair at a
 * time, as a confirmation: every endpoint calls it with the same list. Rank 0 appends the
 * rows to csv (p2p.csv's columns; rank 0 opened it). Returns 0 or a negative FP_E*; a pair
 * that fails is recorded, not an error. */
int p2p_retest(const struct p2p_opts *o, struct world *w, struct run_out *out, FILE *csv, const char *path,
	       const struct sched_pair *pairs, int npairs);


#endif
