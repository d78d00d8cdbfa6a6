/* The bandwidth plan from a map (fabric/plan/plan.h): its promises kept on uneven trees of 1,024
 * and 4,096 nodes, and the checker that says so able to fail. */
#include <stdlib.h>

#include "../plan_tree.h"
#include "check.h"
#include "fabric/plan/plan.h"

static void plan_keeps(int n, int ntiers, int leaf, int pod, int peers, int streams, unsigned long long seed)
{
	struct plan_opts o = { .peers = peers, .groups = 16, .uplink_streams = streams };
	struct plan p;
	char why[200] = "";
	int *g = tree_make(n, ntiers, leaf, pod, seed);
	long long all = 0, planned = 0;

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK_EQ(plan_bandwidth(g, ntiers, n, &o, &p), 0);
	CHECK_EQ(plan_check(&p, g, ntiers, n, &o, why, sizeof why), 0);
	if (why[0])
		printf("#   n %d, %d tiers: %s\n", n, ntiers, why);
	for (int t = 0; t < ntiers; t++) {
		all += p.all_pairs[t];
		planned += p.tier_pairs[t];
	}
	CHECK_EQ(all, (long long)n * (n - 1) / 2);
	CHECK_EQ(planned, (long long)p.s.npairs);
	CHECK_EQ(p.tier_pairs[0], p.all_pairs[0]); /* the leaves' pairs, all of them */
	CHECK_CMP(planned * 10, <, all);            /* a tenth of all-pairs at most, here */
	CHECK_EQ(p.s.step_first[p.s.nsteps], p.s.npairs);
	for (int s = 0; s < p.s.nsteps; s++)
		CHECK_CMP(p.s.step_first[s + 1], >, p.s.step_first[s]); /* no empty step */
	CHECK_CMP(p.s.nsteps - p.intra_steps, <=, p.cross_bound + p.cross_bound / 20 + 2); /* within 5% of the bound */
	printf("#   n %d, %d tiers, peers %d, streams %d: %d pairs (of %lld) in %d steps (%d inside leaves, bound %d across)\n", n,
	       ntiers, peers, streams, p.s.npairs, all, p.s.nsteps, p.intra_steps, p.cross_bound);
	plan_free(&p);
	free(g);
}

static void test_plan_1k_4k(void)
{
	plan_keeps(1024, 2, 32, 0, 1, 1, 1);
	plan_keeps(1024, 3, 16, 8, 1, 1, 2);
	plan_keeps(1024, 3, 16, 8, 2, 4, 3);
	plan_keeps(4096, 2, 48, 0, 1, 2, 4);
	plan_keeps(4096, 3, 32, 16, 1, 1, 5);
}

/* leaves of one node, one leaf, a pod of one leaf, peers above every group's size */
static void test_plan_edges(void)
{
	struct plan_opts o = { .peers = 5, .groups = 16, .uplink_streams = 1 };
	struct plan p;
	char why[200] = "";
	/* 7 nodes: leaves {0}, {1,2}, {3,4,5}, {6}; pods {0,1,2}, {3,4,5,6}... as groups */
	int g3[3 * 7] = { 0, 1, 1, 2, 2, 2, 3, /* leaves */
			  0, 0, 0, 1, 1, 1, 2, /* pods: the last a pod of one leaf of one node */
			  0, 0, 0, 0, 0, 0, 0 };
	int flat[7] = { 0 };

	CHECK_EQ(plan_bandwidth(g3, 3, 7, &o, &p), 0);
	CHECK_EQ(plan_check(&p, g3, 3, 7, &o, why, sizeof why), 0);
	if (why[0])
		printf("#   %s\n", why);
	/* peers 5 > every group: every pair across groups, so all 21 of them */
	CHECK_EQ(p.s.npairs, 21);
	plan_free(&p);
	/* one leaf over all: all pairs, in the circle method's 7 rounds */
	CHECK_EQ(plan_bandwidth(flat, 1, 7, &o, &p), 0);
	CHECK_EQ(p.s.npairs, 21);
	CHECK_EQ(p.s.nsteps, 7);
	CHECK_EQ(plan_check(&p, flat, 1, 7, &o, why, sizeof why), 0);
	plan_free(&p);
	/* refused: a negative group, peers 0 */
	g3[4] = -1;
	CHECK(plan_bandwidth(g3, 3, 7, &o, &p) != 0);
	g3[4] = 2;
	o.peers = 0;
	CHECK(plan_bandwidth(g3, 3, 7, &o, &p) != 0);
}

/* the checker fails on each broken promise */
static void test_plan_check_fails(void)
{
	struct plan_opts o = { .peers = 1, .groups = 16, .uplink_streams = 1 };
	struct plan p;
	char why[200];
	int n = 256, *g = tree_make(n, 3, 8, 4, 9);

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK_EQ(plan_bandwidth(g, 3, n, &o, &p), 0);
	CHECK_EQ(plan_check(&p, g, 3, n, &o, why, sizeof why), 0);
	struct sched_pair keep = p.s.pair[0];
	/* a node in two pairs of one step: the first step's second pair given the first's node */
	int k0 = p.s.step_first[0], k1 = k0 + 1;
	CHECK_CMP(p.s.step_first[1], >, k1);
	struct sched_pair two = p.s.pair[k1];
	int x = p.s.pair[k0].a, y = two.b != x ? two.b : two.a;
	p.s.pair[k1] = (struct sched_pair){ x < y ? x : y, x < y ? y : x };
	why[0] = 0;
	CHECK_EQ(plan_check(&p, g, 3, n, &o, why, sizeof why), -1);
	CHECK(strstr(why, "two pairs") != NULL);
	p.s.pair[k1] = two;
	CHECK_EQ(plan_check(&p, g, 3, n, &o, why, sizeof why), 0);
	/* a leaf's pair removed (replaced by a copy of another): planned twice, and not planned */
	p.s.pair[1] = p.s.pair[0];
	why[0] = 0;
	CHECK_EQ(plan_check(&p, g, 3, n, &o, why, sizeof why), -1);
	CHECK(why[0] != 0);
	p.s.pair[0] = keep;
	plan_free(&p);
	/* more peers asked of the check than planned: a node short of peers */
	CHECK_EQ(plan_bandwidth(g, 3, n, &o, &p), 0);
	o.peers = 3;
	why[0] = 0;
	CHECK_EQ(plan_check(&p, g, 3, n, &o, why, sizeof why), -1);
	CHECK(strstr(why, "against") != NULL);
	plan_free(&p);
	/* planned at 4 streams, checked against 1: over the cap */
	o.peers = 1;
	o.uplink_streams = 4;
	CHECK_EQ(plan_bandwidth(g, 3, n, &o, &p), 0);
	o.uplink_streams = 1;
	why[0] = 0;
	CHECK_EQ(plan_check(&p, g, 3, n, &o, why, sizeof why), -1);
	CHECK(strstr(why, "above its cap") != NULL);
	plan_free(&p);
	free(g);
}

/* two maps the same tree only when every tier partitions the nodes alike, whatever the numbers:
 * a leaf split in two, two leaves joined, one node moved, a tier more, all told apart */
static void test_same_tree(void)
{
	/* 8 nodes, leaves {0,1,2,3} {4,5,6,7} (names dealt: 0 4 1 5 ...), one top */
	int a[2 * 8] = { 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	int renamed[2 * 8] = { 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	int split[2 * 8] = { 0, 1, 2, 1, 0, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	int moved[2 * 8] = { 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	int joined[2 * 8] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	/* three tiers: the split leaves, the true leaves as their parents, one top */
	int deeper[3 * 8] = { 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	int bad[2 * 8] = { 0, 1, 0, 1, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0 };

	CHECK(plan_same_tree(a, 2, a, 2, 8));
	CHECK(plan_same_tree(a, 2, renamed, 2, 8));
	CHECK(!plan_same_tree(a, 2, split, 2, 8));
	CHECK(!plan_same_tree(split, 2, a, 2, 8));
	CHECK(!plan_same_tree(a, 2, moved, 2, 8));
	CHECK(!plan_same_tree(a, 2, joined, 2, 8));
	CHECK(!plan_same_tree(joined, 2, a, 2, 8));
	CHECK(!plan_same_tree(deeper, 3, a, 2, 8));
	CHECK(!plan_same_tree(a, 2, bad, 2, 8)); /* a group number out of range is no group */
	CHECK(plan_same_tree(NULL, 1, NULL, 1, 0));
}

int main(void)
{
	RUN(test_plan_1k_4k);
	RUN(test_plan_edges);
	RUN(test_plan_check_fails);
	RUN(test_same_tree);
	CHECK_EXIT();
}
