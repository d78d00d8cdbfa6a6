/* infer.h — switch tiers from a latency matrix (docs/latency-map.md). Pure: no MPI, no I/O.
 *
 * Input: an N x N matrix of latencies (µs; NAN = not measured), row = source. Output: nested
 * groups, tier 0 = nodes that share a leaf switch, tier 1 = a spine, …; the top tier is one
 * group per connected part of the measurements. No decision rests on one pair:
 *   1. symmetrise; work on log latency (relative noise has one spread at every tier);
 *   2. pair noise sigma from the rows of nearest neighbours (two nodes on one leaf see
 *      everybody else alike), and never below what a second measurement of their pairs
 *      disagrees by (lat_again); per-node offsets (µs) from several neighbours' rows;
 *   3. average linkage (UPGMA, nearest-neighbour chain, O(N²)) over measured pairs only;
 *   4. tier boundaries among the gaps of the merge heights, each judged with the pairs behind
 *      both sides; each cut refined by moving every node (then every group of the tier below)
 *      to the group it is closest to on average; a tier is kept only when every group stands
 *      z >= sep_z noise units (and sep_step sigmas) above the tier's own level from its
 *      nearest group — groups that do not are joined to it;
 *   5. fit the tier model (tier level + node offset + node offset, in µs) and choose the tiers
 *      again (4, on the same tree) with its offsets and its noise (never below the spread of
 *      the lowest tier's own pairs); nodes far off the model are slow nodes,
 *      pairs far off it slow links;
 *   6. each tier's step against the fabric's other steps: one far below them is no switch,
 *      or an uncertain one, left out of the scheduler files (INFER_STEP_*).
 * Memory: the caller's matrix plus N²/2 floats (N² when cells are missing, during step 3);
 * time O(N²) but for sorting the N-1 merges. The design is written up in docs/latency-map.md. */
#ifndef FP_INFER_H
#define FP_INFER_H

#include <stddef.h>

#define INFER_TIERS_MAX 8

struct infer_opts {
	double noise_us;  /* latency noise to assume at least (µs, at the lowest tier), 0 = estimate */
	double rel_noise; /* pair noise assumed before the pairs say otherwise, relative (default 0.03) */
	double sep_z;     /* a group must stand this many standard errors from its nearest (default 5) */
	double sep_step;  /* …and this many pair sigmas above its tier's level (default 1.5) */
	/* the same directions measured again at another time (n x n µs: the highest latency pass's
	 * minimum, NAN = none), or NULL: how far the two disagree on each node's leaf pairs is
	 * the least noise the map works with (repeat noise, step 2) */
	const float *lat_again;
};

void infer_opts_default(struct infer_opts *o);

enum infer_suspect_kind { SUSPECT_SLOW_NODE, SUSPECT_SLOW_LINK, SUSPECT_FAST_LINK,
			  SUSPECT_LOW_BW_NODE, SUSPECT_LOW_BW_LINK, SUSPECT_LOW_BW_UPLINK, SUSPECT_UNMEASURED,
			  SUSPECT_UNMEASURED_NODE };

struct infer_suspect {
	int kind;
	int a, b;          /* nodes; b = -1 for a node; low_bw_uplink: a = the group's first node, b = -1 */
	double value;      /* what was measured (µs or GB/s; a node's offset in µs) */
	double expected;   /* what the tier model gives */
	int tier;          /* the tier the pair belongs to in the tree, -1 for a node; low_bw_uplink:
			    * the tier of the group whose uplink it is */
};

/* A tier whose step to the next is below INFER_STEP_CERTAIN of the fabric's largest other step
 * is uncertain; below INFER_STEP_REFUSE, with no bandwidth drop across it, it is no switch. A
 * switch hop costs about the same at every tier of a tree (a link and a switch each way), so
 * a step of an eighth of the others' is an offset of some pairs (a cable, an ECMP path, a far
 * socket), not a switch (docs/latency-map.md, step 6). */
#define INFER_STEP_CERTAIN (1.0 / 3)
#define INFER_STEP_REFUSE (1.0 / 6)
/* a bandwidth drop across a tier (its pairs' median under this fraction of the tier's below):
 * evidence of a switch whose uplinks are narrower, whatever its step */
#define INFER_STEP_BW_DROP 0.8

struct infer_result {
	int n;
	int ntiers;                 /* grouping levels, >= 1; the last is the top */
	int ngroups[INFER_TIERS_MAX];
	int *group;                 /* [t * n + i]: group of node i at tier t, numbered in order */
	double threshold_us[INFER_TIERS_MAX]; /* tier t holds pairs below it, offsets removed (top: infinity) */
	double lat_p50_us[INFER_TIERS_MAX];   /* median latency of pairs whose lowest common tier is t */
	double level_us[INFER_TIERS_MAX];     /* the tier model's latency between two median nodes */
	double bw_p50_GBps[INFER_TIERS_MAX];  /* same for bandwidth, NAN without a bandwidth matrix */
	double bw_p75_GBps[INFER_TIERS_MAX];  /* …its upper quartile: the uplink rule's reference */
	long long npairs[INFER_TIERS_MAX];    /* measured pairs per tier */
	/* evidence for tier t's groups (t < ntiers - 1): the weakest group's separation from its
	 * nearest group in standard errors (z) and in pair sigmas (step), and the measured pairs
	 * behind that comparison (between the two groups, and within the tier's groups) */
	double sep_z[INFER_TIERS_MAX], sep_step[INFER_TIERS_MAX];
	long long sep_pairs[INFER_TIERS_MAX], sep_within[INFER_TIERS_MAX];
	int structure;              /* 0: no tier boundary stands above the noise (ntiers == 1) */
	/* Step 6 of the docs: each tier's step to the next (the model's levels, µs) against the
	 * fabric's other steps. step_ratio[t] (t < ntiers - 1): tier t's step over the largest of
	 * the other steps (NAN with fewer than 3 tiers); uncertain[t]: 1 when the step is too far
	 * below the others' to call tier t's groups switches on latency alone: the tier stays in
	 * the map and its files, but not in the scheduler files (infer_certain). refused: tiers
	 * not taken at all (their step under INFER_STEP_REFUSE of the others', and no bandwidth
	 * drop across them), and the last one's step (µs) and ratio. */
	double step_ratio[INFER_TIERS_MAX];
	int uncertain[INFER_TIERS_MAX];
	int refused;
	double refused_step_us, refused_ratio;
	double noise;               /* pair noise sigma, relative (log units) */
	double noise_us;            /* the same at the lowest tier's level, µs */
	double noise_repeat;        /* the repeat noise (infer_opts.lat_again), relative; NAN: none */
	long long noise_repeat_n;   /* the directions it rests on */
	double *offset_us;          /* per node, relative to the median node (a slow node > 0) */
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
/* The map the scheduler files are written from: r without its uncertain tiers (each joined
 * into the tier above it), into out (its own group array; the rest of r's per-tier figures
 * follow their tiers; order and offsets copied; no suspects). 0 or FP_ERUNTIME. Free with
 * infer_result_free. */
int infer_certain(const struct infer_result *r, struct infer_result *out);
const char *infer_suspect_kind_name(int kind);

/* A slow uplink's figure: the median ratio of the bandwidth of the pairs across the uplink of
 * node a's group at tier t (to nodes outside it, both directions, up to 4n of them) to their
 * tier's upper quartile (bw_p75_GBps); NAN when there is none. Pure. */
double infer_uplink_ratio(const struct infer_result *r, const float *bw, int t, int a);

/* Per tier boundary and side, the pairs nearest it (run re-measures them: a tier is a finding too) */
#define INFER_BOUNDARY_PAIRS 1
/* The pairs nearest r's tier boundaries, from lat (n x n, µs, NAN = not measured): per tier t
 * below the top, the INFER_BOUNDARY_PAIRS slowest pairs whose lowest common tier is t and the
 * INFER_BOUNDARY_PAIRS fastest whose lowest common tier is t + 1 (the pairs the boundary rests
 * on), a < b, appended at out[2 * have] unless among the first `have` pairs there; a sample of
 * at most ~4M pairs on large fabrics. Returns the count appended (room: max). Pure. */
int infer_boundary_pairs(const struct infer_result *r, const float *lat, int n, int *out, int have, int max);

/* The lowest tier at which nodes i and j share a group, of ntiers tiers of n nodes each
 * (group: tier-major, as infer_result's); ntiers when they never do. */
static inline int infer_pair_tier(const int *group, int ntiers, int n, int i, int j)
{
	for (int t = 0; t < ntiers; t++)
		if (group[(size_t)t * n + i] == group[(size_t)t * n + j])
			return t;
	return ntiers;
}

/* The bandwidth (GB/s) that a ring over the endpoints ring[0] -> ring[1] -> ... -> ring[len - 1]
 * -> ring[0] reaches by the map r and the pairs' bandwidth bw (n x n alone, NULL or NAN: the
 * pair's tier median), every hop at once, as in a ring all-reduce (its busbw): each hop gets
 * the lesser of its pair's bandwidth and its share of each uplink it crosses (an uplink below
 * tier t + 1 carries one flow alone at tier t + 1's median; the flows out of, or into, its group
 * share it). The ring is as fast as its slowest hop. NAN when a hop's pair has no tier or a
 * figure is missing. Pure. */
double infer_ring_GBps(const struct infer_result *r, const float *bw, int n, const int *ring, int len);

#endif
