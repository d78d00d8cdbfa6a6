/* infer.h — switch tiers from a latency matrix (DESIGN.md §5). Pure: no MPI, no I/O.
 *
 * Input: an N x N matrix of latencies (µs; NAN = not measured), row = source. Output: nested
 * groups, tier 0 = nodes that share a leaf switch, tier 1 = a spine, …; the top tier is one
 * group per connected part of the measurements. Steps:
 *   1. symmetrise (mean of the two directions);
 *   2. per-node offsets: a node whose distances to everybody are its nearest neighbour's plus
 *      a constant (a slow NIC or host) gets that constant as its offset, reported as a suspect
 *      and removed before grouping, so it lands in its true group;
 *   3. minimum spanning tree (dense Prim, O(N²)); its sorted edge weights form a staircase and
 *      each step clearly above the noise is a tier boundary;
 *   4. cutting the tree below each boundary (union-find) gives the groups of each tier;
 *   5. every pair whose measured tier disagrees with the tree is a suspect link.
 * Memory: two N x N float matrices; time O(N²) apart from sorting the N-1 tree edges. */
#ifndef FP_INFER_H
#define FP_INFER_H

#include <stddef.h>

#define INFER_TIERS_MAX 8

struct infer_opts {
	double abs_floor_us; /* smallest step that can be a boundary (default 0.05 µs) */
	double rel_noise;    /* noise assumed at least this fraction of a latency (default 0.03) */
	double alpha;        /* a boundary is a step above alpha x noise (default 6) */
	double min_ratio;    /* …and above this ratio of the levels (default 1.2) */
	double noise_us;     /* measured noise (e.g. median p50 - min), 0 = estimate */
};

void infer_opts_default(struct infer_opts *o);

enum infer_suspect_kind { SUSPECT_SLOW_NODE, SUSPECT_SLOW_LINK, SUSPECT_FAST_LINK,
			  SUSPECT_LOW_BW_NODE, SUSPECT_LOW_BW_LINK, SUSPECT_UNMEASURED };

struct infer_suspect {
	int kind;
	int a, b;          /* nodes; b = -1 for a node */
	double value;      /* what was measured (µs or GB/s) */
	double expected;   /* what its tier would give */
	int tier;          /* the tier the pair belongs to in the tree, -1 for a node */
};

struct infer_result {
	int n;
	int ntiers;                 /* grouping levels, >= 1; the last is the top */
	int ngroups[INFER_TIERS_MAX];
	int *group;                 /* [t * n + i]: group of node i at tier t, numbered in order */
	double threshold_us[INFER_TIERS_MAX]; /* tier t holds pairs below it (top: infinity) */
	double lat_p50_us[INFER_TIERS_MAX];   /* median latency of pairs whose lowest common tier is t */
	double bw_p50_GBps[INFER_TIERS_MAX];  /* same for bandwidth, NAN without a bandwidth matrix */
	int npairs[INFER_TIERS_MAX];          /* measured pairs per tier */
	double noise_us;
	double *offset_us;          /* per node, >= 0 */
	int *order;                 /* node indices in depth-first tree order */
	struct infer_suspect *suspects;
	int nsuspects;
};

/* Infer the tiers. lat is n x n (row-major, float, NAN = missing); bw is n x n GB/s or NULL;
 * names (n) are used only to sort siblings in natural order. Returns 0 or FP_ERUNTIME
 * (out of memory). The result owns its arrays: free with infer_result_free. */
int infer_tiers(const float *lat, const float *bw, int n, const char *const *names,
		const struct infer_opts *o, struct infer_result *r);
void infer_result_free(struct infer_result *r);
const char *infer_suspect_kind_name(int kind);

#endif
