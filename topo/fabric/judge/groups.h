/* groups.h — matching two groupings of the same nodes by overlap. Group labels mean nothing
 * across runs (leaf02 in one run may be leaf00 in the next) or between a declared and a
 * measured topology, so groups are paired by how many nodes they share, and each node is
 * then judged against its group's partner. Pure. */
#ifndef FP_GROUPS_H
#define FP_GROUPS_H

/* What happened to one node between grouping A and grouping B. */
enum grp_change {
	GRP_SAME,    /* its B group is its A group's partner */
	GRP_MOVED,   /* it sits in another partnered group, or alone in a new one */
	GRP_SPLIT,   /* it left with at least one other node of its A group for a new group */
	GRP_MERGED,  /* its A group has no partner: it came with at least one other node of that
			group into a partnered group */
};

struct grp_match {
	int na, nb;
	int *a_to_b;  /* na: the B group partnered with A group a, or -1 */
	int *b_to_a;  /* nb */
	int *change;  /* n: enum grp_change of each node */
};

/* n nodes found in both groupings: node i is in A group ga[i] (0..na-1) and B group gb[i]
 * (0..nb-1). Groups are partnered greedily by the most shared nodes (ties: the lower A, then
 * B index), each at most once. Returns 0 or FP_ERUNTIME (out of memory). */
int grp_match(const int *ga, const int *gb, int n, int na, int nb, struct grp_match *m);
void grp_match_free(struct grp_match *m);
const char *grp_change_name(int change);

#endif
