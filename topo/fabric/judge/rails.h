/* rails.h — the rails of a compute fabric, judged from their latency maps. In a rail-optimised
 * fabric port i of every node of a scalable unit plugs into that unit's leaf i (rail i), so the
 * nodes that share a leaf in one rail's map share it in every rail's. A node's scalable unit is
 * what its rails agree on: the nodes that share its leaf in at least half of the rails' maps. A
 * port whose rail map puts it with none of them is not in its rail's leaf: a cable in another
 * rail's (two such ports of one node: most likely its two cables swapped), or off the unit.
 * Judged on three or more rails (two cannot out-vote one), for nodes whose rails agree on a unit
 * of two or more; a node whose rails agree on none though some rail puts it with another node
 * (most of its cables in other leaves) is named too. A limit: two nodes of one unit whose same two cables are swapped
 * alike share the wrong leaf and are not told apart. Pure. */
#ifndef FP_RAILS_H
#define FP_RAILS_H

#include "fabric/infer/infer.h"
#include "fabric/infer/suspects.h"

#define RAILS_MAX 16

/* One port off its rail's leaf. */
struct rail_off {
	int node, rail;       /* endpoint index; rail index (the order the maps were given in) */
	int pair;             /* the node's other rail off its leaf when it has exactly two; -1 */
};

struct rails_report {
	int nrails, n;
	int judged;           /* nodes whose rails agree on a unit of two or more */
	int noff;
	struct rail_off *off; /* node order, then rail order */
	int nalone;           /* nodes whose rails agree on no unit, though some rail puts them
			       * with another node (a node alone in every rail is a unit of its own) */
	int *alone;
};

/* The tier of map r that is its leaves: the lowest below the top that is not uncertain (an
 * uncertain tier is left out of the scheduler files, and of the rails' judging: its groups may
 * be noise), or -1 when none is (one tier, or every one below the top uncertain). */
int rails_leaf_tier(const struct infer_result *r);

/* Judge the ports of n nodes on nrails rails (3 .. RAILS_MAX), maps[r] the map of rail r over
 * the same n endpoints (a map with one tier puts every node in one leaf). Linear in the nodes
 * and the sizes of their leaves (each leaf as a member list). 0, FP_EUSAGE (fewer than 3
 * rails, more than RAILS_MAX, a map of another size, a leaf numbered outside 0 .. n-1) or
 * FP_ERUNTIME. */
int rails_judge(int nrails, int n, const struct infer_result *const *maps, struct rails_report *rep);
void rails_report_free(struct rails_report *rep);

/* A node finding (slow_node, low_bw_node, unmeasured_node) that held on one or more rails. On
 * fewer than half of the node's rails it is of those rails' ports (the NIC, its cable, its leaf
 * port), not of the node, whose other rails measure as their peers'; on half or more, of the
 * node. */
struct rail_node_finding {
	int node, kind;
	unsigned rails;        /* bit r: it held on rail r */
	int ports;             /* of the ports, not the node */
	double value;          /* its figure on the first of them (the confirming one where there
				* is one: suspects.h's value2, else value) */
};

/* The node findings of held[0 .. nrails) (each rail's findings that held, NULL none) by node,
 * then kind, into *out (own; *nout of them). 0, FP_EUSAGE (rails out of 1 .. RAILS_MAX) or
 * FP_ERUNTIME. */
int rails_node_findings(int nrails, const struct susp_list *const *held, struct rail_node_finding **out, int *nout);

/* All rails at once. A node's rails each measured alone against the same rails all carrying
 * traffic at once, one direction of a pair: a node whose rails fall short together (a PCIe
 * switch uplink two NICs share, a host that cannot feed them all) moves less at once than the
 * sum of its rails alone, though each rail alone measures as its peers'. Each node meets two
 * partners (its neighbours in a cycle over the nodes), each direction apart; a node's direction
 * is short when every test of it is below min_ratio of its sum alone and below
 * RAILS_TOGETHER_REL of the median test; it is named when it met two partners or more, one of
 * them not short the other way (a healthy node between two short ones is explained by them).
 * With two nodes the pair is named, neither told. A median below min_ratio is no node's to
 * name (the hosts', or the test's: the caller says it). */
#define RAILS_TOGETHER_REL 0.8

struct rails_together_test {
	int from, to;          /* endpoint indices: from sends on every rail to to */
	double alone;          /* the sum of the rails' rates, each rail alone (GB/s); NAN none */
	double together;       /* every rail at once (GB/s); NAN none */
};

struct rails_together_short {
	int node, dir;         /* dir 0: sending, 1: receiving */
	int other;             /* -1: the node's own; else the pair (node, other), neither told */
	int partners;          /* partners met in that direction */
	double ratio;          /* the highest of its tests' together / alone */
};

struct rails_together_report {
	int ntests;            /* tests with both figures */
	double median;         /* of their ratios; NAN none */
	int nshort;
	struct rails_together_short *sh; /* node order, then direction */
};

/* Judge nt tests over n endpoints. 0, FP_EUSAGE (an endpoint out of 0 .. n-1, a test of a node
 * with itself, min_ratio outside 0 .. 1) or FP_ERUNTIME. */
int rails_together_judge(int n, const struct rails_together_test *t, int nt, double min_ratio,
			 struct rails_together_report *rep);
void rails_together_free(struct rails_together_report *rep);

#endif
