/* plan.h — the bandwidth plan of a large fabric, made from its latency map
 * (docs/measurement.md, "At scale"). Pure: no MPI, no I/O.
 *
 * All-pairs bandwidth is n(n-1)/2 pairs; at 16,384 nodes that is 134 million. Once the
 * latency map has given the tree (infer.h), most of those pairs tell nothing new: two pairs
 * that leave a leaf through the same uplink see the same uplink. The plan measures
 *   1. every pair inside each leaf (tier 0), the leaves side by side (they share no uplink);
 *   2. across leaves, for each tier t >= 1 and each group of tier t with S children (groups of
 *      tier t - 1): every node against `peers` nodes of each of min(groups, S - 1) of its
 *      siblings, the siblings turned from node to node so that a child's nodes together meet
 *      all of them (when groups x its size >= S - 1), the sibling's nodes taken in turn. So
 *      every node is measured at every tier, every group's uplink carries pairs, and two
 *      sibling groups meet at least once.
 * Steps are sets of disjoint pairs measured at once: the leaves' pairs in rounds of the circle
 * method, every leaf at once; the pairs across leaves, shuffled, placed first-fit so that no
 * node is in two pairs of a step and no leaf's uplink carries more than `uplink_streams` pairs
 * of a step (a pair's two directions are measured one after the other: it counts once). A group
 * of tier t >= 1 then carries at most `uplink_streams` x its leaves, which plan_check checks.
 * The pairs of the top tier (nodes the latency map could not join: no common group) are not
 * planned: their latency was not measured either. */
#ifndef FP_PLAN_H
#define FP_PLAN_H

#include <stddef.h>

#include "fabric/infer/infer.h"
#include "sched.h"

struct plan_opts {
	int peers;          /* nodes of each sibling group met that a node is measured against (>= 1) */
	int groups;         /* sibling groups a node meets at each tier, at most (>= 1) */
	int uplink_streams; /* pairs at once through one leaf's uplink (>= 1) */
};
void plan_opts_default(struct plan_opts *o);

struct plan {
	int n, ntiers;
	struct sched s;                           /* the pairs by step (s.n = n) */
	int intra_steps;                          /* the first steps: the leaves' own pairs */
	int cross_bound;                          /* the fewest steps any plan of the pairs across
						   * leaves could have (the busiest leaf or node) */
	long long tier_pairs[INFER_TIERS_MAX];    /* planned pairs by their tier */
	long long all_pairs[INFER_TIERS_MAX];     /* every pair by its tier, for comparison */
};

/* The plan for the map's groups (group: tier-major, [t * n + i], as infer_result's; ntiers >= 1,
 * the last the top). Returns 0, or FP_ERUNTIME (out of memory, or more than INT_MAX pairs). */
int plan_bandwidth(const int *group, int ntiers, int n, const struct plan_opts *o, struct plan *p);
void plan_free(struct plan *p);

/* Whether p keeps its promises for these groups: no node twice in a step; no pair twice; every
 * pair inside a leaf planned; every node against min(peers, |h|) nodes of at least
 * min(groups, S - 1) sibling groups h at each tier; two sibling groups meet where their sizes
 * let them (groups x |g| >= S - 1); no leaf's uplink above uplink_streams pairs in a step, no
 * group of a higher tier above uplink_streams x its leaves; every group below the top with a
 * sibling carries a pair. 0, or -1 with the first broken promise in why. Pure. */
int plan_check(const struct plan *p, const int *group, int ntiers, int n, const struct plan_opts *o, char *why,
	       size_t len);

/* Whether two maps of the same n nodes (groups tier-major, as plan_bandwidth's) have the same
 * tree: as many tiers, and at every tier the same partition of the nodes, whatever the groups'
 * numbers. A plan made from one map covers the other only then. Pure. */
int plan_same_tree(const int *g1, int t1, const int *g2, int t2, int n);

/* What one step costs (s): a pair's measurement, and the engine's own work per step (its
 * agreement, the gather of the records to rank 0 and their rows), a + b x n endpoints. */
struct plan_costs {
	double lat_pair_s;   /* one pair's latency sizes, both directions, every pass */
	double bw_pair_s;    /* one pair's bandwidth sizes, both directions */
	double step_s;       /* the engine per step: a */
	double step_per_ep_s; /* …+ b per endpoint */
};

/* The phases' predicted wall time (s): phase 1, latency, all pairs in the circle method's
 * rounds (every pair of a round at once); phase 2, the plan's bandwidth steps. */
void plan_predict(const struct plan *p, const struct plan_costs *c, double *lat_s, double *bw_s);
/* Rank 0's memory (bytes) for a run over n endpoints and npaths paths: five float matrices per
 * path (latency min, p50, p99, the highest pass's minimum, bandwidth), the map's working set (n^2 floats at most) and the
 * plan (pairs), the records of one step. */
double plan_memory_bytes(int n, int npaths, long long plan_pairs);

#endif
