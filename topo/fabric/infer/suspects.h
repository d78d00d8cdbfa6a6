/* suspects.h — which findings count (docs/judging.md: a finding is confirmed before it counts).
 * Pure: no MPI, no I/O.
 *
 * A latency map (infer.h) lists suspects: slow nodes and links, low-bandwidth nodes and
 * links, pairs never measured. On a real fabric (and more so on shared cores) one measurement
 * of one pair can be off for reasons that do not last: a cold TCP window, a preempted rank, a
 * route settling. So the map's suspects, and the jittery links found here, are *candidates*:
 *   1. susp_candidates: the map's suspects plus the jittery links (a pair whose p50 stands
 *      far above its own minimum, or whose p99 stands far above its p50, beyond what the other
 *      pairs of its tier show);
 *   2. susp_pairs: every pair behind them (a link: itself; a slow node: all of its pairs; a
 *      low-bandwidth node: SUSP_NODE_PEERS peers at each tier, known good where it can), which
 *      the caller re-measures alone, longer, both directions;
 *   3. the caller puts the confirming figures into the matrices and computes the map again;
 *      susp_candidates on it gives what the confirmed figures show;
 *   4. susp_decide: a candidate *held* when the same finding (kind and hosts) is there again
 *      and every pair behind it was re-measured; the others did not hold (or were not
 *      re-tested, when the time budget ran out), and do not count.
 * Each suspect keeps the first and the confirming figure side by side. */
#ifndef FP_SUSPECTS_H
#define FP_SUSPECTS_H

#include "infer.h"

/* judge's own kind, after infer's */
enum { SUSPECT_JITTERY_LINK = SUSPECT_UNMEASURED_NODE + 1, SUSPECT_NKINDS };
/* "slow_node", …, "jittery_link" */
const char *susp_kind_name(int kind);

/* One path's figures: n x n, [src * n + dst], NAN where not measured. Latency (µs, half round
 * trip) at the smallest latency size; bandwidth (GB/s) at the largest bandwidth size. Any of
 * them may be NULL. */
struct susp_matrices {
	int n;
	const float *lat_min, *lat_p50, *lat_p99, *bw;
	/* n x n or NULL: the pairs that show what a tier's jitter is (control pairs re-measured
	 * alongside the candidates, under the same load); NULL, or none in a tier: all its pairs */
	const unsigned char *ref;
	/* the fewest timed latency samples behind a direction's p99 (0: not known) */
	long lat_samples;
};

struct susp_opts {
	/* jitter: p50 >= p50_ratio x min and p50 - min > excess x (the tier's median of p50 - min,
	 * at least floor_frac x the tier's latency); the same for p99 over p50 with p99_ratio */
	double p50_ratio, p99_ratio, excess, floor_frac;
	/* the p99 rule judges only matrices whose p99 rests on this many samples at least (300: 3
	 * beyond the p99, the fewest the demo and the tests use; of 50 the p99 is the largest one,
	 * a single preemption of the host) */
	long tail_samples;
};
void susp_opts_default(struct susp_opts *o);

/* jittery_link: what stood out, p50 over the minimum (a lasting shift: a congested link) or
 * p99 over p50 (a heavy tail: a flapping link, a preempted host) */
enum susp_jitter_rule { SUSP_JITTER_P50 = 1, SUSP_JITTER_P99 = 2 };

enum susp_state { SUSP_CANDIDATE, SUSP_HELD, SUSP_NOT_HELD, SUSP_NOT_RETESTED, SUSP_NEW };
/* "candidate", "held", "did not hold", "not re-tested", "only on re-test" */
const char *susp_state_name(int state);

struct suspect {
	int kind;
	int a, b;             /* nodes; b = -1 for a node; a->b for a direction (low_bw_link) */
	int tier;             /* tier of the pair in the map, -1 for a node */
	int state;            /* enum susp_state */
	int rule;             /* jittery_link: the rule that named it (enum susp_jitter_rule),
			       * kept through the confirmation; low_bw_uplink: the tier of its group
			       * (a is its first node); 0 for the other kinds */
	/* first and confirming figure (NAN: none). value: what was measured (µs, GB/s, a ratio),
	 * expected: what its tier gives; jittery_link, of the worse direction: by its p50, value =
	 * p50, expected = min, extra = p99; by its p99, value = p99, expected = p50, extra = min */
	double value, expected, extra;
	double value2, expected2, extra2;
};

/* 1 when the finding is on a node (slow_node, low_bw_node): the node, not a link or a switch's
 * uplink, is at fault */
struct suspect;
int susp_on_node(const struct suspect *s);

struct susp_list {
	int n, cap;
	struct suspect *s;
};
void susp_list_free(struct susp_list *l);

/* The map's suspects, then the jittery links, into out (emptied first). 0 or FP_ERUNTIME. */
int susp_candidates(const struct infer_result *r, const struct susp_matrices *m,
		     const struct susp_opts *o, struct susp_list *out);

/* The figure a finding of this kind reads (value, expected, extra) in map r and matrices m: a
 * slow node's offset (µs, expected 0); a low-bandwidth node's median ratio of its pairs'
 * bandwidth to their tier's (expected 1); a link's latency (the mean of both directions'
 * minimum, expected the tier's p50); a direction's bandwidth (expected the tier's p50); a
 * jittery link's worse direction. NAN where not measured. */
void susp_value(int kind, int rule, int a, int b, const struct infer_result *r, const struct susp_matrices *m,
		 const struct susp_opts *o, double *value, double *expected, double *extra);

/* A low-bandwidth node (its NIC or host: every pair alike) is re-measured against this many
 * peers at each tier of the map, not against all of them: on 12 nodes 4 pairs, not 11, and the
 * same 4 on 16,000. Peers that no node finding names come first. */
#define SUSP_NODE_PEERS 2

/* The uplink findings of l, made on map `from`, in the terms of map `to` (the confirmed one,
 * whose tiers may be numbered otherwise): each one's tier becomes that of the group of `to`
 * with the same nodes, -1 when `to` has none (then it cannot be re-tested there). */
void susp_uplinks_remap(struct susp_list *l, const struct infer_result *from, const struct infer_result *to);

/* Every pair behind the suspects of l that are in state SUSP_CANDIDATE, each once, a < b, in
 * the order of l: pairs[2k], pairs[2k+1]. r: the map they come from (a low-bandwidth node's
 * peers by tier; NULL: all of its pairs). n endpoints; room for max pairs (more are left out:
 * *left counts them). Returns the count, or FP_ERUNTIME. */
int susp_pairs(const struct susp_list *l, const struct infer_result *r, int n, int *pairs, int max, int *left);

/* Control pairs for the jittery-link candidates of l: per tier that holds one, up to per_tier
 * pairs of that tier that no candidate stands behind (a < b), into pairs (room for max).
 * Re-measured with the candidates, they say what jitter the tier shows under the same load,
 * so that a host busy for everyone does not make a link look jittery. Returns the count. */
/* 1 when (a, b) lies behind a candidate that rests on that one pair (a link kind), in either
 * direction: its figure is one measurement, so the confirmation measures it in rounds. */
int susp_link_pair(const struct susp_list *l, int a, int b);
int susp_controls(const struct susp_list *l, const struct infer_result *r, int n, int per_tier, int *pairs,
		   int max);

/* 1 when every pair behind suspect s is set in retested (n x n bytes, symmetric); for a
 * low-bandwidth node in map r (not NULL): SUSP_NODE_PEERS at each tier, or all it has there. */
int susp_retested(const struct suspect *s, const struct infer_result *r, int n, const unsigned char *retested);

/* The bandwidth cells that a low-bandwidth candidate of first (map r) has and that were not
 * re-measured, set to NAN in bw while the confirmed map is made and decided, so that the
 * decision on that node rests on its re-measured pairs only (its other first figures are what
 * made it a candidate); susp_unhide puts them back. 0 or FP_ERUNTIME. */
struct susp_hidden {
	size_t n, *at;
	float *was;
};
int susp_hide(const struct susp_list *first, const struct infer_result *r, int n, const unsigned char *retested,
	      float *bw, struct susp_hidden *h);
void susp_unhide(struct susp_hidden *h, float *bw);

/* The decision. first: the candidates (figures from the first pass); after: susp_candidates
 * on the map of the confirmed figures (r2, m2); retested: the pairs re-measured. held gets the
 * candidates that hold (state SUSP_HELD, both figures); rest gets those that did not hold,
 * were not re-tested, or appeared only on re-test (both figures where there are two). Neither
 * of the latter counts in a verdict. 0 or FP_ERUNTIME. */
int susp_decide(const struct susp_list *first, const struct susp_list *after, const unsigned char *retested,
		 int n, const struct infer_result *r2, const struct susp_matrices *m2,
		 const struct susp_opts *o, struct susp_list *held, struct susp_list *rest);

/* The suspects of an unconfirmed map (`fabprobe topo` offline): every candidate as it is. */
int susp_unconfirmed(const struct susp_list *first, struct susp_list *out);

/* Count of suspects per kind in l (counts: SUSPECT_NKINDS entries), in state `state`. */
void susp_count(const struct susp_list *l, int state, int *counts);

/* A kind of finding about one node (slow, low bandwidth, unmeasured), not a link. */
static inline int susp_node_kind(int kind)
{
	return kind == SUSPECT_SLOW_NODE || kind == SUSPECT_LOW_BW_NODE || kind == SUSPECT_UNMEASURED_NODE;
}
/* The tier at which i and j meet in map r. */
static inline int susp_pair_tier(const struct infer_result *r, int i, int j)
{
	return infer_pair_tier(r->group, r->ntiers, r->n, i, j);
}

#endif
