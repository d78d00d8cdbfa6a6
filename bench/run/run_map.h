/* run_map.h — `run`'s latency maps, one per path: the map of the first figures, its
 * candidate suspects re-measured alone (the confirmation pass), the map of the confirmed
 * figures and the suspects that held; the compute-fabric path the scheduler files come from.
 * Rank 0 holds the maps; the confirmation pass involves every rank. */
#ifndef FP_RUN_MAP_H
#define FP_RUN_MAP_H

#include "fabric/infer/infer.h"
#include "fabric/infer/suspects.h"
#include "p2p/p2p.h"

struct run_path_map {
	struct p2p_matrices *m;       /* the path's figures (the p2p result owns them); the
				       * confirmed ones overlaid once re-measured */
	struct infer_result r1, r2;   /* the map of the first figures, of the confirmed ones */
	int have_r1, have_r2;
	struct susp_list first, after, held, rest;
	unsigned char *retested;      /* n x n: pairs re-measured */
	unsigned char *control;       /* n x n: control pairs re-measured with them (susp_controls) */
	int nretest, ncontrol;        /* pairs re-measured; of them, controls */
	double est_s;                 /* the confirmation's estimate for this path (plan_pack) */
	double shift_rel;             /* the re-measured pairs' minima against their first ones: the
				       * median relative difference (a noise floor for the redraw) */
	double noise_us;              /* the latency noise the confirmed map was drawn with, at least */
	/* the pairs nearest each tier boundary of r1 (infer_boundary_pairs), re-measured whatever
	 * the candidates; each keeps the better of its two figures (boundary: their first ones) */
	int nboundary;
	struct run_boundary { int a, b; float first[2][4]; } *boundary;
};


struct run_maps {
	int npaths;
	struct run_path_map p[P2P_PATHS_MAX];
	int compute;                  /* the path whose map gives the scheduler files */
	char compute_why[160];
};

/* What the confirmation pass may take. */
struct run_confirm_opts {
	int off;            /* --no-confirm */
	double max_s;       /* --confirm-time: the pass stops planning pairs beyond this estimate */
	long factor;        /* samples and windows, times the first pass's */
	/* the pairs the judges suspect (checks_suspected): (path index into judged_paths, a, b) */
	const int *judged;
	int njudged;
	int judged_rounds;  /* --retests: measurements of each in all (0: none) */
	const char (*judged_paths)[P2P_PATH_MAX];
	int again;          /* a second pass of the run (after the map was planned again) */
};

/* The confirmation pass's measurement options, from the first pass's: only the sizes the
 * matrices show, `factor` times the samples and windows. */
void run_confirm_p2p_opts(const struct p2p_opts *o, long factor, struct p2p_opts *co);

/* rank 0: the map of each path's first figures and its candidates; noise_us (per path, or
 * NULL): the latency noise to draw each map with at least; test_split (--test-split-leaves,
 * the tests' hook): every leaf of 4 nodes or more drawn as two, as a latency pass that split
 * them would. 0 or FP_ERUNTIME. */
int run_maps_first(struct run_maps *mp, struct p2p_result *res, const char *const *labels, const double *noise_us,
		   int test_split);
/* Every rank: rank 0 plans the pairs behind the candidates and those the judges suspect
 * (within the time budget, each once however many name it) and sends the plan; the endpoints re-measure them alone (p2p_confirm.csv); rank 0 overlays the
 * confirming figures, maps them again and decides what held. Returns 0, 1 when a re-measured
 * pair failed, or FP_E* (FP_ETIMEDOUT: an endpoint hung). */
int run_confirm(const struct run_confirm_opts *co, const struct p2p_opts *o, struct world *w,
		struct run_out *ro, struct run_maps *mp);
/* rank 0: the compute-fabric path (RDMA when measured, else the fastest by median bandwidth),
 * with the reason in mp->compute_why; paths is the list measured. */
void run_maps_compute(struct run_maps *mp);
/* rank 0: path i's map, of the confirmed figures when there are some */
const struct infer_result *run_maps_map(const struct run_maps *mp, int i);
/* A path's map: the confirmed one once drawn, else the first. */
static inline const struct infer_result *run_path_map_of(const struct run_path_map *p)
{
	return p->have_r2 ? &p->r2 : &p->r1;
}
/* A path's matrices as the suspect rules take them. */
static inline struct susp_matrices run_susp_matrices(const struct p2p_matrices *m)
{
	return (struct susp_matrices){ m->n, m->lat_min, m->lat_p50, m->lat_p99, m->bw, NULL, m->lat_iters_min };
}
/* The median of a matrix's measured cells, n x n (O(N^2 log N)); NAN when none. */
double run_matrix_median(const float *m, int n);
/* rank 0: each path's map files (topology_<path>.csv, …), the compute path's un-suffixed with
 * the scheduler files, every matrix in the compute path's tree order; the summary; where two
 * paths' leaf groups disagree. 0, FP_EUSAGE (a name some format cannot hold: said), or
 * FP_ERUNTIME. */
struct emit_topo;
int run_maps_write(struct run_maps *mp, const struct world *w, const struct run_out *ro, const struct emit_topo *base);
/* rank 0: the confirmed suspects per kind over every path of a multi-node run, as the verdict
 * says them ("low_bw_node 1 (node06)"); returns their total. */
int run_maps_verdict(const struct run_maps *mp, const char *const *labels, char *out, size_t len);
void run_maps_free(struct run_maps *mp);
/* rank 0 to every rank, asleep: *len ints at *buf (a negative *len: rank 0 failed, returned);
 * the others allocate *buf (theirs to free). 0 or FP_E*. */
int run_ints_share(const struct world *w, int **buf, int *len);

#endif
