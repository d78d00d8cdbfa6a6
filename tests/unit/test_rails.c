/* The rails judged from their maps (fabric/judge/rails.h), on maps drawn as the rails of a
 * fabric are: two scalable units of 6 nodes (uneven: 5 and 7 too), 4 rails, each rail's leaves
 * the units. A healthy fabric: every node judged, nothing off. One node's cables of two rails
 * swapped: exactly its two ports, each naming the other; a port cabled into another unit's leaf;
 * a node most of whose cables are elsewhere; a rail whose map has one tier (no leaves told); a
 * unit of one node; fewer than 3 rails refused. A node finding held on one rail is its port's,
 * on most rails the node's; a link's finding is neither. A rail judged at its certain tier. The
 * rails at once against their sum alone (rails_together_judge): a node that feeds its rails
 * short named alone, each direction apart; its partners, a healthy node between two short ones,
 * a fabric whose every node is alike, noise and missing figures: none. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "core/log.h"
#include "fabric/judge/rails.h"

#define N 12
#define R 4

static int group[R][2 * N], order[N];
static struct infer_result map[R];
static const struct infer_result *maps[R];

/* each rail's leaves: node i in unit su[i] */
static void draw(const int *su)
{
	for (int r = 0; r < R; r++) {
		for (int i = 0; i < N; i++) {
			order[i] = i;
			group[r][i] = su[i];
			group[r][N + i] = 0;
		}
		map[r] = (struct infer_result){ .n = N, .ntiers = 2, .group = group[r], .order = order };
		maps[r] = &map[r];
	}
}

static void units(int first, int *su)
{
	for (int i = 0; i < N; i++)
		su[i] = i >= first;
}

static void test_healthy(void)
{
	static const int firsts[] = { 6, 5, 7 };
	struct rails_report rep;
	int su[N];

	for (size_t k = 0; k < sizeof firsts / sizeof firsts[0]; k++) {
		units(firsts[k], su);
		draw(su);
		CHECK_EQ(rails_judge(R, N, maps, &rep), 0);
		CHECK_EQ(rep.judged, N);
		CHECK_EQ(rep.noff, 0);
		CHECK_EQ(rep.nalone, 0);
		rails_report_free(&rep);
	}
}

static void test_swapped_pair(void)
{
	struct rails_report rep;
	int su[N];

	units(6, su);
	draw(su);
	/* node 2's rail 2 cable in rail 3's leaf and back: alone in both rails' maps */
	group[2][2] = group[3][2] = 5;
	CHECK_EQ(rails_judge(R, N, maps, &rep), 0);
	CHECK_EQ(rep.judged, N);
	CHECK_EQ(rep.noff, 2);
	if (rep.noff == 2) {
		CHECK_EQ(rep.off[0].node * 100 + rep.off[0].rail * 10 + rep.off[0].pair, 2 * 100 + 2 * 10 + 3);
		CHECK_EQ(rep.off[1].node * 100 + rep.off[1].rail * 10 + rep.off[1].pair, 2 * 100 + 3 * 10 + 2);
	}
	rails_report_free(&rep);
	/* one port of node 9 in the other unit's leaf: that port, no pair */
	group[1][9] = 0;
	CHECK_EQ(rails_judge(R, N, maps, &rep), 0);
	CHECK_EQ(rep.noff, 3);
	CHECK(rep.noff == 3 && rep.off[2].node == 9 && rep.off[2].rail == 1 && rep.off[2].pair == -1);
	rails_report_free(&rep);
}

static void test_most_cables_elsewhere(void)
{
	struct rails_report rep;
	int su[N];

	units(6, su);
	draw(su);
	/* node 4: only its rail 0 with its unit; rails 1-3 each alone */
	group[1][4] = group[2][4] = group[3][4] = 7;
	CHECK_EQ(rails_judge(R, N, maps, &rep), 0);
	CHECK_EQ(rep.judged, N - 1);
	CHECK_EQ(rep.noff, 0);
	CHECK(rep.nalone == 1 && rep.alone[0] == 4);
	rails_report_free(&rep);
}

static void test_no_false_alarm(void)
{
	struct rails_report rep;
	int su[N];

	/* a rail whose map told no leaves (one tier): it out-votes nothing */
	units(6, su);
	draw(su);
	map[1].ntiers = 1;
	CHECK_EQ(rails_judge(R, N, maps, &rep), 0);
	CHECK_EQ(rep.noff + rep.nalone, 0);
	CHECK_EQ(rep.judged, N);
	rails_report_free(&rep);
	/* a unit of one node (the last), alone in every rail: a unit of its own, not a finding */
	units(11, su);
	su[11] = 1;
	draw(su);
	CHECK_EQ(rails_judge(R, N, maps, &rep), 0);
	CHECK_EQ(rep.noff + rep.nalone, 0);
	CHECK_EQ(rep.judged, N - 1);
	rails_report_free(&rep);
}

/* a rail map whose lowest tier is uncertain (a leaf split by noise: node 4 alone) is judged at
 * its certain tier, the units: no port off; with the split tier certain, node 4's port is off */
static void test_uncertain_tier(void)
{
	static int g3[3 * N];
	struct infer_result m3;
	struct rails_report rep;
	int su[N];

	units(6, su);
	draw(su);
	for (int i = 0; i < N; i++) {
		g3[i] = i == 4 ? 2 : su[i] ? 1 : 0; /* tier 0: node 4 alone */
		g3[N + i] = su[i];                 /* tier 1: the units */
		g3[2 * N + i] = 0;
	}
	m3 = (struct infer_result){ .n = N, .ntiers = 3, .group = g3, .order = order };
	m3.uncertain[0] = 1;
	maps[2] = &m3;
	CHECK_EQ(rails_leaf_tier(&m3), 1);
	CHECK_EQ(rails_judge(R, N, maps, &rep), 0);
	CHECK_EQ(rep.noff + rep.nalone, 0);
	rails_report_free(&rep);
	m3.uncertain[0] = 0;
	CHECK_EQ(rails_leaf_tier(&m3), 0);
	CHECK_EQ(rails_judge(R, N, maps, &rep), 0);
	CHECK(rep.noff == 1 && rep.off[0].node == 4 && rep.off[0].rail == 2);
	rails_report_free(&rep);
	m3.uncertain[0] = m3.uncertain[1] = 1;
	CHECK_EQ(rails_leaf_tier(&m3), -1); /* no certain tier below the top: flat */
	maps[2] = &map[2];
}

static void test_refused(void)
{
	struct rails_report rep;
	int su[N];

	units(6, su);
	draw(su);
	CHECK_EQ(rails_judge(2, N, maps, &rep), FP_EUSAGE);
	CHECK_EQ(rails_judge(RAILS_MAX + 1, N, maps, &rep), FP_EUSAGE);
	group[1][3] = -1; /* not a map's numbering */
	CHECK_EQ(rails_judge(R, N, maps, &rep), FP_EUSAGE);
	group[1][3] = N;
	CHECK_EQ(rails_judge(R, N, maps, &rep), FP_EUSAGE);
	group[1][3] = 0;
	map[2].n = N - 1;
	CHECK_EQ(rails_judge(R, N, maps, &rep), FP_EUSAGE);
}

/* held[r]: the findings that held on rail r */
static void test_node_findings(void)
{
	struct suspect s0[] = { { .kind = SUSPECT_LOW_BW_NODE, .a = 7, .b = -1, .value = 0.5, .value2 = 0.1 },
				{ .kind = SUSPECT_SLOW_NODE, .a = 3, .b = -1, .value = 2.0, .value2 = NAN },
				{ .kind = SUSPECT_LOW_BW_LINK, .a = 1, .b = 2 } };
	struct suspect s1[] = { { .kind = SUSPECT_SLOW_NODE, .a = 3, .b = -1, .value = 3.0, .value2 = NAN } };
	struct suspect s2[] = { { .kind = SUSPECT_SLOW_NODE, .a = 3, .b = -1 },
				{ .kind = SUSPECT_UNMEASURED_NODE, .a = 9, .b = -1 } };
	struct susp_list l0 = { .s = s0, .n = 3 }, l1 = { .s = s1, .n = 1 }, l2 = { .s = s2, .n = 2 };
	const struct susp_list *held[R] = { &l0, &l1, &l2, NULL };
	struct rail_node_finding *f;
	int nf;

	CHECK_EQ(rails_node_findings(R, held, &f, &nf), 0);
	CHECK_EQ(nf, 3); /* the link's finding is no node's */
	if (nf == 3) {
		/* node 3 slow on 3 of 4 rails: the node */
		CHECK(f[0].node == 3 && f[0].kind == SUSPECT_SLOW_NODE && f[0].rails == 7u && !f[0].ports);
		/* node 7 on rail 0 alone, node 9 on rail 2 alone: their ports */
		CHECK(f[1].node == 7 && f[1].kind == SUSPECT_LOW_BW_NODE && f[1].rails == 1u && f[1].ports);
		/* the figure: the confirming one where there is one, of the first rail that held it */
		CHECK(f[1].value == 0.1 && f[0].value == 2.0);
		CHECK(f[2].node == 9 && f[2].kind == SUSPECT_UNMEASURED_NODE && f[2].rails == 4u && f[2].ports);
	}
	free(f);
	/* on two of four rails: half, the node's */
	held[3] = &l1;
	held[1] = held[2] = NULL;
	CHECK_EQ(rails_node_findings(R, held, &f, &nf), 0);
	CHECK(nf == 2 && f[0].node == 3 && f[0].rails == 9u && !f[0].ports && f[1].node == 7 && f[1].ports);
	free(f);
	CHECK_EQ(rails_node_findings(0, held, &f, &nf), FP_EUSAGE);
}

/* ---------------------------------------------------------------- the rails at once */

#define TN 13
static struct rails_together_test tt[4 * TN];

/* the cycle's tests over n nodes (two: one pair), each direction: together = alone times the
 * lower of the sender's send[] and the receiver's recv[], times a heavy-tailed noise below 1 */
static int cycle(int n, const double *send, const double *recv)
{
	int nt = 0;
	unsigned x = 12345;

	for (int i = 0; i < (n == 2 ? 1 : n); i++)
		for (int d = 0; d < 2; d++) {
			int a = d ? (i + 1) % n : i, b = d ? i : (i + 1) % n;
			double u;

			x = x * 1103515245u + 12345u;
			u = (double)(x >> 8 & 0xffff) / 65536.0;
			tt[nt++] = (struct rails_together_test){ a, b, 16.0, 16.0 * fmin(send[a], recv[b]) *
									 (1 - 0.02 * pow(u, 6) * 10) };
		}
	return nt;
}

static void ones(double *v, double x)
{
	for (int i = 0; i < TN; i++)
		v[i] = x;
}

/* named: the report's (node, dir, other) triples as "node.dir" or "node.dir/other" */
static const char *named(const struct rails_together_report *rep)
{
	static char buf[256];
	int k = 0;

	buf[0] = 0;
	for (int i = 0; i < rep->nshort && k < 200; i++)
		k += rep->sh[i].other < 0 ? snprintf(buf + k, sizeof buf - (size_t)k, "%s%d.%d", i ? " " : "", rep->sh[i].node,
						     rep->sh[i].dir)
					  : snprintf(buf + k, sizeof buf - (size_t)k, "%s%d.%d/%d", i ? " " : "",
						     rep->sh[i].node, rep->sh[i].dir, rep->sh[i].other);
	return buf;
}

static void test_together(void)
{
	double send[TN], recv[TN];
	struct rails_together_report rep;
	int nt;

	/* healthy, 12 nodes (noise up to 20% on a few directions): none */
	ones(send, 1), ones(recv, 1);
	nt = cycle(12, send, recv);
	CHECK_EQ(rails_together_judge(12, tt, nt, 0.75, &rep), 0);
	CHECK_EQ(rep.ntests, 24);
	CHECK(rep.median > 0.95 && rep.median <= 1);
	CHECK_STR(named(&rep), "");
	rails_together_free(&rep);
	/* node 5's rails share one uplink, both ways: node 5 alone, both directions, two partners */
	send[5] = recv[5] = 0.38;
	nt = cycle(12, send, recv);
	CHECK_EQ(rails_together_judge(12, tt, nt, 0.75, &rep), 0);
	CHECK_STR(named(&rep), "5.0 5.1");
	CHECK(rep.nshort == 2 && rep.sh[0].partners == 2 && rep.sh[0].ratio < 0.4);
	rails_together_free(&rep);
	/* ... sending alone: node 5 sending; its partners receiving from it are not named */
	recv[5] = 1;
	nt = cycle(12, send, recv);
	CHECK_EQ(rails_together_judge(12, tt, nt, 0.75, &rep), 0);
	CHECK_STR(named(&rep), "5.0");
	rails_together_free(&rep);
	/* two short nodes with one healthy between them (3, 5): 4 is explained by them */
	ones(send, 1), ones(recv, 1);
	send[3] = recv[3] = send[5] = recv[5] = 0.4;
	nt = cycle(12, send, recv);
	CHECK_EQ(rails_together_judge(12, tt, nt, 0.75, &rep), 0);
	CHECK_STR(named(&rep), "3.0 3.1 5.0 5.1");
	rails_together_free(&rep);
	/* two short neighbours (3, 4): both */
	ones(send, 1), ones(recv, 1);
	send[3] = recv[3] = send[4] = recv[4] = 0.4;
	nt = cycle(12, send, recv);
	CHECK_EQ(rails_together_judge(12, tt, nt, 0.75, &rep), 0);
	CHECK_STR(named(&rep), "3.0 3.1 4.0 4.1");
	rails_together_free(&rep);
	/* every node alike at 60% (the hosts' limit, or the test's): no node named, the median says it */
	ones(send, 0.6), ones(recv, 0.6);
	nt = cycle(12, send, recv);
	CHECK_EQ(rails_together_judge(12, tt, nt, 0.75, &rep), 0);
	CHECK_STR(named(&rep), "");
	CHECK(rep.median < 0.6 && rep.median > 0.55);
	rails_together_free(&rep);
	/* an odd cycle (5 nodes: three rounds), node 4 short: named */
	ones(send, 1), ones(recv, 1);
	send[4] = recv[4] = 0.3;
	nt = cycle(5, send, recv);
	CHECK_EQ(nt, 10);
	CHECK_EQ(rails_together_judge(5, tt, nt, 0.75, &rep), 0);
	CHECK_STR(named(&rep), "4.0 4.1");
	rails_together_free(&rep);
	/* node 4's test with node 0 unmeasured: one partner left, not named (nor is a single short
	 * test a node's) */
	tt[8].together = tt[9].together = NAN;
	CHECK_EQ(rails_together_judge(5, tt, nt, 0.75, &rep), 0);
	CHECK_EQ(rep.ntests, 8);
	CHECK_STR(named(&rep), "");
	rails_together_free(&rep);
	/* two nodes, the first short sending: the pair, neither told */
	ones(send, 1), ones(recv, 1);
	send[0] = 0.4;
	nt = cycle(2, send, recv);
	CHECK_EQ(nt, 2);
	CHECK_EQ(rails_together_judge(2, tt, nt, 0.75, &rep), 0);
	CHECK(rep.median > 0.6 && rep.median < 0.75); /* of 0.4 and 1: the relative bound is 0.56 */
	CHECK_STR(named(&rep), "0.0/1");
	rails_together_free(&rep);
	/* --rails-together-min 0: nothing judged short */
	CHECK_EQ(rails_together_judge(2, tt, nt, 0, &rep), 0);
	CHECK_STR(named(&rep), "");
	rails_together_free(&rep);
	/* refused: a node with itself, out of range, a bound over 1 */
	tt[0].to = tt[0].from;
	CHECK_EQ(rails_together_judge(2, tt, nt, 0.75, &rep), FP_EUSAGE);
	tt[0].to = 2;
	CHECK_EQ(rails_together_judge(2, tt, nt, 0.75, &rep), FP_EUSAGE);
	tt[0].to = 1;
	CHECK_EQ(rails_together_judge(2, tt, nt, 1.5, &rep), FP_EUSAGE);
	CHECK_EQ(rails_together_judge(2, tt, 0, 0.75, &rep), 0);
	CHECK(rep.ntests == 0 && isnan(rep.median) && rep.nshort == 0);
}

int main(void)
{
	RUN(test_healthy);
	RUN(test_swapped_pair);
	RUN(test_most_cables_elsewhere);
	RUN(test_no_false_alarm);
	RUN(test_uncertain_tier);
	RUN(test_refused);
	RUN(test_node_findings);
	RUN(test_together);
	CHECK_EXIT();
}
