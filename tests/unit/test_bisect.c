/* The bisection of a group that fails under load (fabric/plan/bisect.h), against a simulated
 * group: an uplink of a given capacity shared by the streams of a burst, lognormal noise with a
 * heavy tail, and the faults a fabric has (a slow uplink, a member that slows every stream of
 * the uplink it shares, a member slow on its own). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "fabric/plan/bisect.h"

struct group {
	int k;
	double iso, cap;      /* one stream alone; what its uplink carries at once */
	int culprit;          /* slows every stream of a burst it is in (a pause storm): -1 none */
	int slow;             /* its own streams at a quarter: -1 none */
	unsigned seed;
};

static double uniform(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return ((*s >> 8) + 0.5) / 16777216.0;
}

/* lognormal (sigma 0.2), and one draw in 20 at a third: the tail real streams have */
static double noise(unsigned *s)
{
	double u = uniform(s), v = uniform(s), z = sqrt(-2 * log(u)) * cos(6.283185307179586 * v);

	return exp(0.2 * z) * (uniform(s) < 0.05 ? 0.33 : 1);
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* a burst of members [lo, hi): the uplink shared max-min fairly (a slow member takes what its
 * own link gives, the others share the rest), a culprit slowing all; each stream's directions,
 * repeated up to BISECT_DIRS_MIN, and their median, as run_plan.c */
static double burst(struct group *g, int lo, int hi)
{
	double v[4 * BISECT_DIRS_MIN + 512], share;
	int x = hi - lo, n = 0, storm = g->culprit >= lo && g->culprit < hi, slow = g->slow >= lo && g->slow < hi;
	int reps = (BISECT_DIRS_MIN + 2 * x - 1) / (2 * x);

	share = g->cap / x < g->iso ? g->cap / x : g->iso;
	if (slow && g->iso / 4 < share && x > 1) {
		share = (g->cap - g->iso / 4) / (x - 1);
		share = share < g->iso ? share : g->iso;
	}
	for (int r = 0; r < reps; r++)
		for (int m = lo; m < hi; m++)
			for (int d = 0; d < 2; d++) {
				double f = m == g->slow && g->iso / 4 < share ? g->iso / 4 : share;

				v[n++] = f * (storm ? 0.25 : 1) * noise(&g->seed);
			}
	qsort(v, (size_t)n, sizeof *v, dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the reference: a healthy group's uplink carried 1.0 at once; one stream alone 0.5 */
static int run(struct group *g, struct bisect *b)
{
	int lo, hi, steps = 0;

	bisect_init(b, g->k, 0.5, 1.0, 0.7);
	while (bisect_next(b, &lo, &hi)) {
		CHECK(lo >= 0 && lo < hi && hi <= g->k);
		bisect_feed(b, burst(g, lo, hi));
		steps++;
	}
	return steps;
}

static int steps_max(int k)
{
	int s = 1;

	for (int x = 1; x < k; x *= 2)
		s += 4;
	return s;
}

static void test_healthy_cleared(void)
{
	int wrong = 0;

	for (int k = 2; k <= 40; k++)
		for (unsigned seed = 1; seed <= 50; seed++) {
			struct group g = { .k = k, .iso = 0.5, .cap = 1.0, .culprit = -1, .slow = -1, .seed = seed * 7919u + (unsigned)k };
			struct bisect b;

			CHECK_EQ(run(&g, &b), 1);
			wrong += b.verdict != BISECT_CLEARED;
		}
	CHECK_EQ(wrong, 0); /* zero false alarms: a healthy group passes its first burst */
}

static void test_slow_uplink(void)
{
	int wrong = 0;

	for (int k = 2; k <= 40; k++)
		for (unsigned seed = 1; seed <= 20; seed++) {
			double caps[] = { 0.3, 0.5 };

			for (int c = 0; c < 2; c++) {
				struct group g = { .k = k, .iso = 0.5, .cap = caps[c], .culprit = -1, .slow = -1, .seed = seed * 31u + (unsigned)k };
				struct bisect b;
				int steps = run(&g, &b);

				wrong += b.verdict != BISECT_UPLINK || b.lo != 0 || b.hi != k || steps > (k % 2 ? 5 : 3);
			}
		}
	CHECK_EQ(wrong, 0); /* both halves alike: the uplink, in 3 bursts (at most 5 for an odd group) */
	/* a member slow on its own link inside it does not turn the uplink into a node */
	for (int k = 4; k <= 40; k++)
		for (int j = 0; j < k; j += 3) {
			struct group g = { .k = k, .iso = 0.5, .cap = 0.3, .culprit = -1, .slow = j, .seed = (unsigned)(k * 7 + j) };
			struct bisect b;

			run(&g, &b);
			wrong += b.verdict != BISECT_UPLINK;
		}
	CHECK_EQ(wrong, 0);
}

static void test_culprit_node(void)
{
	int wrong = 0, over = 0;

	for (int k = 2; k <= 40; k++)
		for (int j = 0; j < k; j++) {
			struct group g = { .k = k, .iso = 0.5, .cap = 1.0, .culprit = j, .slow = -1, .seed = (unsigned)(k * 100 + j) };
			struct bisect b;
			int steps = run(&g, &b);

			wrong += b.verdict != BISECT_NODE || b.lo != j || b.hi != j + 1;
			over += steps > steps_max(k);
		}
	CHECK_EQ(wrong, 0); /* the member that slows the others, every position, every size */
	CHECK_EQ(over, 0);  /* in at most 1 + 4 ceil(log2 k) bursts */
	/* the steps say what was measured: the whole group, then halves narrowing to node 5 of 8 */
	struct group g = { .k = 8, .iso = 0.5, .cap = 1.0, .culprit = 5, .slow = -1, .seed = 9 };
	struct bisect b;

	CHECK_EQ(run(&g, &b), 7);
	CHECK(b.step[0].lo == 0 && b.step[0].hi == 8 && b.step[0].fail);
	CHECK(b.step[1].lo == 0 && b.step[1].hi == 4 && !b.step[1].fail);
	CHECK(b.step[2].lo == 4 && b.step[2].hi == 8 && b.step[2].fail);
	CHECK(b.step[5].lo == 4 && b.step[5].hi == 5 && !b.step[5].fail);
	CHECK(b.step[6].lo == 5 && b.step[6].hi == 6 && b.step[6].fail);
	CHECK_NEAR(b.step[0].thr, 0.7 / 8, 1e-12);             /* the whole group: agg / k */
	CHECK_NEAR(b.step[6].thr, BISECT_SPLIT * b.step[5].GBps, 1e-12); /* a half: against the other */
	CHECK_NEAR(bisect_threshold(&b, 1), 0.7 * 0.5, 1e-12);  /* one stream: its figure alone */
}

static void test_edges(void)
{
	struct bisect b;
	int lo, hi;

	/* a group of one that fails: its uplink (the node cannot be told from it) */
	bisect_init(&b, 1, 0.5, 1.0, 0.7);
	bisect_feed(&b, 0.1);
	CHECK_EQ(b.verdict, BISECT_UPLINK);
	CHECK(!bisect_next(&b, &lo, &hi));
	/* a burst without a figure: undecided, no more bursts */
	bisect_init(&b, 6, 0.5, 1.0, 0.7);
	bisect_feed(&b, 0.01);
	bisect_feed(&b, NAN);
	CHECK_EQ(b.verdict, BISECT_UNDECIDED);
	CHECK(!bisect_next(&b, &lo, &hi));
	/* no reference at all: nothing fails */
	bisect_init(&b, 6, NAN, NAN, 0.7);
	CHECK(isnan(bisect_threshold(&b, 3)));
	bisect_feed(&b, 0.001);
	CHECK_EQ(b.verdict, BISECT_CLEARED);
	/* one bound known: that one */
	bisect_init(&b, 6, NAN, 1.2, 0.5);
	CHECK_NEAR(bisect_threshold(&b, 3), 0.2, 1e-12);
	bisect_init(&b, 6, 0.4, 0, 0.5);
	CHECK_NEAR(bisect_threshold(&b, 3), 0.2, 1e-12);
	CHECK_STR(bisect_verdict_name(BISECT_NODES), "nodes");
	CHECK_STR(bisect_verdict_name(99), "?");
}

int main(void)
{
	RUN(test_healthy_cleared);
	RUN(test_slow_uplink);
	RUN(test_culprit_node);
	RUN(test_edges);
	CHECK_EXIT();
}
