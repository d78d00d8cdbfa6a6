/* Tier inference on synthetic matrices made from known trees: the groups must come back
 * exactly, through noise, per-node offsets, an outlier node, missing pairs, shuffled names;
 * a single switch must stay one group. (The grid of generated fabrics, with every knob, is
 * tests/integration/test_topo_synth.sh.) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fabric/infer/infer.h"
#include "fabric/plan/plan.h"

static uint64_t rng = 88172645463325252ULL;

static double uniform(void) /* xorshift64: deterministic, so a failure can be replayed */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(1 - uniform())) * cos(2 * M_PI * uniform());
}

static int lognormal; /* build(): noise is lognormal with sigma = noise, else uniform ±noise */

struct tree {
	int n;
	int leaf[4096], spine[4096]; /* true groups */
	char name[4096][16];
	const char *names[4096];
	float *lat, *bw;
};

/* racks[] nodes per leaf; leaves_per_spine 0 = one spine over all; levels[] = latency of a pair
 * within a leaf, within a spine, across spines; noise = relative uniform noise. Names are
 * shuffled so that index order says nothing about the topology. */
static void build(struct tree *t, const int *racks, int nracks, int leaves_per_spine, const double *levels,
		  double noise)
{
	int n = 0, perm[4096];

	for (int r = 0; r < nracks; r++)
		for (int k = 0; k < racks[r]; k++, n++) {
			t->leaf[n] = r;
			t->spine[n] = leaves_per_spine ? r / leaves_per_spine : 0;
		}
	t->n = n;
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(uniform() * (i + 1)), x = perm[i];
		perm[i] = perm[j];
		perm[j] = x;
	}
	for (int i = 0; i < n; i++) {
		snprintf(t->name[i], sizeof t->name[i], "gpu%03d", perm[i] + 1);
		t->names[i] = t->name[i];
	}
	t->lat = malloc(sizeof *t->lat * (size_t)n * n);
	t->bw = malloc(sizeof *t->bw * (size_t)n * n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int tier = t->leaf[i] == t->leaf[j] ? 0 : t->spine[i] == t->spine[j] ? 1 : 2;
			double x = lognormal ? exp(noise * gauss()) : 1 + noise * (2 * uniform() - 1);

			t->lat[(size_t)i * n + j] = i == j ? NAN : (float)(levels[tier] * x);
			t->bw[(size_t)i * n + j] = i == j ? NAN : (float)((tier ? 10.0 : 24.0) / x);
		}
}

/* the inferred partition at tier equals the truth (co-membership of every pair) */
static int same_partition(const struct infer_result *r, int tier, const int *truth)
{
	int bad = 0;

	for (int i = 0; i < r->n; i++)
		for (int j = i + 1; j < r->n; j++)
			bad += (r->group[(size_t)tier * r->n + i] == r->group[(size_t)tier * r->n + j]) !=
			       (truth[i] == truth[j]);
	return bad == 0;
}

static int has_suspect(const struct infer_result *r, int kind, int a)
{
	for (int i = 0; i < r->nsuspects; i++)
		if (r->suspects[i].kind == kind && (r->suspects[i].a == a || r->suspects[i].b == a))
			return 1;
	return 0;
}

static struct infer_result run(struct tree *t, int with_bw)
{
	struct infer_opts o;
	struct infer_result r;

	infer_opts_default(&o);
	CHECK(infer_tiers(t->lat, with_bw ? t->bw : NULL, t->n, t->names, &o, &r) == 0);
	return r;
}

static void done(struct tree *t, struct infer_result *r)
{
	infer_result_free(r);
	free(t->lat);
	free(t->bw);
}

static struct tree t;

static void test_two_tiers_332_emulated_levels(void)
{
	static const int racks[] = { 3, 3, 2 };
	static const double lv[] = { 15, 80, 80 };

	build(&t, racks, 3, 0, lv, 0.05);
	struct infer_result r = run(&t, 0);
	CHECK(r.ntiers == 2 && r.ngroups[0] == 3 && r.ngroups[1] == 1);
	CHECK(same_partition(&r, 0, t.leaf));
	CHECK(r.lat_p50_us[0] > 13 && r.lat_p50_us[0] < 17 && r.lat_p50_us[1] > 70);
	CHECK(r.nsuspects == 0);
	done(&t, &r);
}

static void test_uneven_with_singleton_small_steps(void)
{
	static const int racks[] = { 5, 1, 7, 2, 4 };
	static const double lv[] = { 1.5, 2.2, 2.2 }; /* InfiniBand-like: +0.7 µs across the spine */

	build(&t, racks, 5, 0, lv, 0.02);
	struct infer_result r = run(&t, 0);
	CHECK(r.ntiers == 2 && r.ngroups[0] == 5);
	CHECK(same_partition(&r, 0, t.leaf));
	done(&t, &r);
}

static void test_three_tiers(void)
{
	static const int racks[] = { 4, 4, 3, 5, 2, 4 };
	static const double lv[] = { 1.5, 2.1, 2.8 };

	build(&t, racks, 6, 2, lv, 0.02);
	struct infer_result r = run(&t, 0);
	CHECK(r.ntiers == 3 && r.ngroups[0] == 6 && r.ngroups[1] == 3 && r.ngroups[2] == 1);
	CHECK(same_partition(&r, 0, t.leaf));
	CHECK(same_partition(&r, 1, t.spine));
	/* depth-first order: every leaf and every spine contiguous */
	for (int tier = 0; tier < 2; tier++) {
		int changes = 0;
		for (int k = 1; k < r.n; k++)
			changes += r.group[(size_t)tier * r.n + r.order[k]] != r.group[(size_t)tier * r.n + r.order[k - 1]];
		CHECK(changes == r.ngroups[tier] - 1);
	}
	done(&t, &r);
}

static void test_single_switch_one_and_two_nodes(void)
{
	static const int one_switch[] = { 10 }, one[] = { 1 }, two[] = { 2 };
	static const double lv[] = { 1.5, 1.5, 1.5 };

	build(&t, one_switch, 1, 0, lv, 0.05);
	struct infer_result r = run(&t, 0);
	CHECK(r.ntiers == 1 && r.ngroups[0] == 1 && r.nsuspects == 0);
	done(&t, &r);
	build(&t, one, 1, 0, lv, 0.05);
	r = run(&t, 1);
	CHECK(r.ntiers == 1 && r.ngroups[0] == 1 && r.order[0] == 0);
	done(&t, &r);
	build(&t, two, 1, 0, lv, 0.05);
	r = run(&t, 1);
	CHECK(r.ntiers == 1 && r.ngroups[0] == 1);
	done(&t, &r);
}

static void test_offsets_and_outlier(void)
{
	static const int racks[] = { 4, 3, 5, 2 };
	static const double lv[] = { 15, 80, 80 };

	build(&t, racks, 4, 0, lv, 0.03);
	/* every node a little off (±1 µs), node 5 far off (+8 µs on every path: a slow NIC) */
	for (int i = 0; i < t.n; i++) {
		double off = i == 5 ? 8 : 2 * uniform() - 1;
		for (int j = 0; j < t.n; j++)
			if (i != j) {
				t.lat[(size_t)i * t.n + j] += (float)off;
				t.lat[(size_t)j * t.n + i] += (float)off;
			}
	}
	struct infer_result r = run(&t, 0);
	CHECK(r.ntiers == 2 && same_partition(&r, 0, t.leaf)); /* still in its true group */
	CHECK(has_suspect(&r, SUSPECT_SLOW_NODE, 5));
	CHECK_NEAR(r.offset_us[5], 8, 1);
	int slow_nodes = 0;
	for (int i = 0; i < r.nsuspects; i++)
		slow_nodes += r.suspects[i].kind == SUSPECT_SLOW_NODE;
	CHECK(slow_nodes == 1);
	done(&t, &r);
}

static void test_missing_pairs(void)
{
	static const int racks[] = { 6, 6, 6, 6 };
	static const double lv[] = { 2, 3, 3 };

	build(&t, racks, 4, 0, lv, 0.02);
	int both = 0;
	for (int i = 0; i < t.n; i++)
		for (int j = i + 1; j < t.n; j++) {
			double u = uniform();
			if (u < 0.10)
				t.lat[(size_t)i * t.n + j] = NAN; /* one direction timed out */
			else if (u < 0.15) {
				t.lat[(size_t)i * t.n + j] = t.lat[(size_t)j * t.n + i] = NAN;
				both++;
			}
		}
	struct infer_result r = run(&t, 0);
	CHECK(r.ntiers == 2 && same_partition(&r, 0, t.leaf));
	int unmeasured = 0;
	for (int i = 0; i < r.nsuspects; i++)
		unmeasured += r.suspects[i].kind == SUSPECT_UNMEASURED;
	CHECK(unmeasured == both);
	done(&t, &r);
}

/* a node none of whose pairs was measured (down, unreachable): one finding on the node, not n - 1
 * on its links; the other nodes' map as before; the pairs missing between others still listed */
static void test_unmeasured_node(void)
{
	static const int racks[] = { 4, 4, 3 };
	static const double lv[] = { 2, 6, 6 };

	build(&t, racks, 3, 0, lv, 0.02);
	for (int j = 0; j < t.n; j++)
		t.lat[(size_t)6 * t.n + j] = t.lat[(size_t)j * t.n + 6] = NAN;
	t.lat[(size_t)1 * t.n + 9] = t.lat[(size_t)9 * t.n + 1] = NAN;
	struct infer_result r = run(&t, 0);
	int node = 0, pair = 0;
	for (int i = 0; i < r.nsuspects; i++) {
		node += r.suspects[i].kind == SUSPECT_UNMEASURED_NODE;
		pair += r.suspects[i].kind == SUSPECT_UNMEASURED;
		CHECK(r.suspects[i].kind != SUSPECT_UNMEASURED || (r.suspects[i].a != 6 && r.suspects[i].b != 6));
	}
	CHECK(node == 1 && has_suspect(&r, SUSPECT_UNMEASURED_NODE, 6));
	CHECK(pair == 1);
	CHECK_STR(infer_suspect_kind_name(SUSPECT_UNMEASURED_NODE), "unmeasured_node");
	done(&t, &r);
}

/* Step 6 (docs/latency-map.md): the deeper-tree pattern, pairs of nodes under a switch of
 * their own, 3 such switches of 2 under each of 3 spines (racks of 2, two racks a spine), at
 * three costs of its hop against the spine's 25 us: like the spine's (a real tier: kept,
 * certain), an eighth of it (an offset of some pairs: no switch, the leaves of 4 are the
 * spines' groups), a quarter (uncertain: kept in the map, left out of infer_certain). With a
 * bandwidth drop across the eighth, it is a switch after all, uncertain. And leaves of 8 whose
 * step (0.4 us) is a twelfth of a core a long fibre away (5 us): a tier of many pairs, real
 * as far as anyone can tell from latencies: kept, uncertain, never refused. */
static void test_step_rule(void)
{
	static const int racks[] = { 2, 2, 2, 2, 2, 2 };
	static const double real[] = { 10, 35, 60 }, eighth[] = { 10, 13.125, 38.125 }, quarter[] = { 10, 16.25, 41.25 };
	struct infer_result r, c;

	build(&t, racks, 6, 2, real, 0.01);
	r = run(&t, 0);
	CHECK(r.ntiers == 3 && same_partition(&r, 0, t.leaf) && same_partition(&r, 1, t.spine));
	CHECK(!r.uncertain[0] && !r.uncertain[1] && r.refused == 0 && fabs(r.step_ratio[0] - 1) < 0.1);
	done(&t, &r);

	build(&t, racks, 6, 2, eighth, 0.01);
	r = run(&t, 0);
	CHECK(r.ntiers == 2 && same_partition(&r, 0, t.spine) && r.refused == 1);
	CHECK(fabs(r.refused_ratio - 0.125) < 0.03 && fabs(r.refused_step_us - 3.125) < 0.5 && !r.uncertain[0]);
	CHECK(r.nsuspects == 0);
	infer_result_free(&r);
	r = run(&t, 1); /* narrower links across it (10 against 24 GB/s): a switch, uncertain */
	CHECK(r.ntiers == 3 && same_partition(&r, 0, t.leaf) && r.refused == 0 && r.uncertain[0] && !r.uncertain[1]);
	done(&t, &r);

	build(&t, racks, 6, 2, quarter, 0.01);
	r = run(&t, 0);
	CHECK(r.ntiers == 3 && same_partition(&r, 0, t.leaf) && same_partition(&r, 1, t.spine));
	CHECK(r.uncertain[0] && !r.uncertain[1] && r.refused == 0 && fabs(r.step_ratio[0] - 0.25) < 0.05);
	CHECK(infer_certain(&r, &c) == 0);
	CHECK(c.ntiers == 2 && same_partition(&c, 0, t.spine) && !c.uncertain[0] && c.ngroups[0] == 3);
	infer_result_free(&c);
	done(&t, &r);

	static const int big[] = { 8, 8, 8, 8 };
	static const double far[] = { 1.5, 1.9, 6.9 };
	build(&t, big, 4, 2, far, 0.01);
	r = run(&t, 0);
	CHECK(r.ntiers == 3 && same_partition(&r, 0, t.leaf) && same_partition(&r, 1, t.spine));
	CHECK(r.refused == 0 && r.uncertain[0] && !r.uncertain[1] && r.step_ratio[0] < INFER_STEP_REFUSE);
	done(&t, &r);
}

static void test_low_bandwidth_node(void)
{
	static const int racks[] = { 3, 3, 2 };
	static const double lv[] = { 15, 80, 80 };

	build(&t, racks, 3, 0, lv, 0.03);
	for (int j = 0; j < t.n; j++)
		if (j != 2) { /* node 2's link runs at a tenth */
			t.bw[(size_t)2 * t.n + j] /= 10;
			t.bw[(size_t)j * t.n + 2] /= 10;
		}
	struct infer_result r = run(&t, 1);
	CHECK(same_partition(&r, 0, t.leaf));
	CHECK(has_suspect(&r, SUSPECT_LOW_BW_NODE, 2));
	CHECK(r.nsuspects == 1); /* its links are not listed one by one, nothing else is */
	CHECK(r.bw_p50_GBps[0] > 20 && r.bw_p50_GBps[1] < 12);
	done(&t, &r);
}

static void test_many_nodes(void)
{
	int racks[32];
	static const double lv[] = { 1.6, 2.3, 3.1 };

	for (int i = 0; i < 32; i++)
		racks[i] = 12 + i % 9; /* 12..20 per leaf, 512 nodes or so */
	build(&t, racks, 32, 8, lv, 0.03);
	struct infer_result r = run(&t, 0);
	CHECK(r.ntiers == 3 && r.ngroups[0] == 32 && r.ngroups[1] == 4);
	CHECK(same_partition(&r, 0, t.leaf) && same_partition(&r, 1, t.spine));
	done(&t, &r);
}

/* Small fabrics, as the emulated cluster gives (racks of 2..3, 6 us in a rack, 60 across a
 * spine, 114 across the core, lognormal noise): the racks, the spines, nothing else. */
static void test_emulated_small(void)
{
	static const int r332[] = { 3, 3, 2 }, r2222[] = { 2, 2, 2, 2 };
	static const double lv[] = { 6, 60, 114 };

	lognormal = 1;
	for (int seed = 0; seed < 5; seed++) {
		rng = 1234567 + 7919 * (uint64_t)seed;
		build(&t, r332, 3, 0, lv, 0.08);
		struct infer_result r = run(&t, 0);
		CHECK(r.ntiers == 2 && same_partition(&r, 0, t.leaf) && r.nsuspects == 0);
		CHECK(r.structure && r.sep_z[0] >= 5 && r.sep_pairs[0] >= 4 && r.sep_within[0] >= 1);
		done(&t, &r);
		build(&t, r2222, 4, 2, lv, 0.08);
		r = run(&t, 0);
		CHECK(r.ntiers == 3 && same_partition(&r, 0, t.leaf) && same_partition(&r, 1, t.spine));
		CHECK(r.nsuspects == 0);
		done(&t, &r);
	}
	lognormal = 0;
}

/* One switch of 2..12 nodes with lognormal noise: one group, no tier invented, no suspect. */
static void test_no_structure_invented(void)
{
	static const double lv[] = { 1.6, 1.6, 1.6 };
	int bad = 0;

	lognormal = 1;
	for (int n = 2; n <= 12; n++)
		for (int seed = 0; seed < 4; seed++) {
			int racks[1] = { n };

			rng = 99991 + 131 * (uint64_t)(n * 8 + seed);
			build(&t, racks, 1, 0, lv, 0.03);
			struct infer_result r = run(&t, 0);
			if (r.ntiers != 1 || r.ngroups[0] != 1 || r.structure || r.nsuspects) {
				printf("#   %d nodes, seed %d: %d tiers, %d suspects\n", n, seed, r.ntiers, r.nsuspects);
				bad++;
			}
			done(&t, &r);
		}
	CHECK(bad == 0);
	lognormal = 0;
}

static int count_kind(const struct infer_result *r, int kind)
{
	int k = 0;

	for (int i = 0; i < r->nsuspects; i++)
		k += r->suspects[i].kind == kind;
	return k;
}

/* The effect floors (docs/judging.md), each on both sides, at 0.3% noise, where every planted
 * difference is many noise sigmas out: only the floor decides. A slow node must add 10% of the
 * lowest level: +6% is not named, +20% is. */
static void test_slow_node_floor(void)
{
	static const int racks[] = { 6, 6, 6, 6 };
	static const double lv[] = { 10, 60, 60 };

	for (int side = 0; side < 2; side++) {
		lognormal = 1;
		build(&t, racks, 4, 0, lv, 0.003);
		lognormal = 0;
		double off = side ? 2.0 : 0.6; /* µs on a 10 µs leaf */
		for (int j = 0; j < t.n; j++)
			if (j != 7) {
				t.lat[(size_t)7 * t.n + j] += (float)off;
				t.lat[(size_t)j * t.n + 7] += (float)off;
			}
		struct infer_result r = run(&t, 0);
		CHECK(r.ntiers == 2 && same_partition(&r, 0, t.leaf));
		CHECK(has_suspect(&r, SUSPECT_SLOW_NODE, 7) == side);
		CHECK(count_kind(&r, SUSPECT_SLOW_NODE) == side);
		done(&t, &r);
	}
}

/* A slow (or fast) link must be off its tier by half the step to the next tier, or by the
 * tier's level when that is less: on a 10 µs leaf under a 60 µs spine, +4 µs (40%, a pair
 * offset) is not named, +12 µs (twice the latency) is; -4 µs is no fast link. */
static void test_link_floor(void)
{
	static const int racks[] = { 6, 6, 6, 6 };
	static const double lv[] = { 10, 60, 60 };

	for (int side = 0; side < 2; side++) {
		int a = -1, b = -1, c = -1, d = -1;

		lognormal = 1;
		build(&t, racks, 4, 0, lv, 0.003);
		lognormal = 0;
		for (int i = 0; i < t.n; i++)
			if (t.leaf[i] == 1)
				b = a < 0 ? -1 : b < 0 ? i : b, a = a < 0 ? i : a;
		for (int i = 0; i < t.n; i++)
			if (t.leaf[i] == 2)
				d = c < 0 ? -1 : d < 0 ? i : d, c = c < 0 ? i : c;
		CHECK(a >= 0 && b >= 0 && c >= 0 && d >= 0);
		double up = side ? 12 : 4;
		t.lat[(size_t)a * t.n + b] += (float)up, t.lat[(size_t)b * t.n + a] += (float)up;
		t.lat[(size_t)c * t.n + d] -= 4, t.lat[(size_t)d * t.n + c] -= 4;
		struct infer_result r = run(&t, 0);
		CHECK(r.ntiers == 2 && same_partition(&r, 0, t.leaf));
		CHECK(count_kind(&r, SUSPECT_SLOW_LINK) == side && has_suspect(&r, SUSPECT_SLOW_LINK, a) == side);
		CHECK(count_kind(&r, SUSPECT_FAST_LINK) == 0);
		CHECK(count_kind(&r, SUSPECT_SLOW_NODE) == 0);
		done(&t, &r);
	}
}

/* The bandwidth floors (docs/judging.md) at 0.3% noise, where only the floor decides: a node
 * whose pairs reach 0.8 of their tier's median is no low_bw_node, one at 0.6 is; a link at 0.6
 * of its tier's median is no low_bw_link, one at 0.4 is (named in each direction). */
static void test_bw_floors(void)
{
	static const int racks[] = { 6, 6, 6, 6 };
	static const double lv[] = { 10, 60, 60 };
	static const double node_f[] = { 0.8, 0.6 }, link_f[] = { 0.6, 0.4 };

	for (int side = 0; side < 2; side++) {
		build(&t, racks, 4, 0, lv, 0.003);
		for (int j = 0; j < t.n; j++)
			if (j != 7) {
				t.bw[(size_t)7 * t.n + j] *= (float)node_f[side];
				t.bw[(size_t)j * t.n + 7] *= (float)node_f[side];
			}
		t.bw[(size_t)1 * t.n + 13] *= (float)link_f[side]; /* nodes 1 and 13: another leaf each */
		t.bw[(size_t)13 * t.n + 1] *= (float)link_f[side];
		struct infer_result r = run(&t, 1);
		CHECK(same_partition(&r, 0, t.leaf));
		CHECK(has_suspect(&r, SUSPECT_LOW_BW_NODE, 7) == side);
		CHECK(count_kind(&r, SUSPECT_LOW_BW_NODE) == side);
		CHECK(count_kind(&r, SUSPECT_LOW_BW_LINK) == 2 * side); /* each direction */
		CHECK(has_suspect(&r, SUSPECT_LOW_BW_LINK, 13) == side);
		done(&t, &r);
	}
}

/* In a leaf of 3, a node's two leaf pairs +25% (pair offsets: a longer cable, another path)
 * fit a slow node exactly; its pairs beyond the leaf do not carry it, so it is no slow_node. A
 * node +25% on every path, in the same place, is one. */
static void test_slow_node_small_leaf(void)
{
	static const int racks[] = { 3, 3, 3, 3 };
	static const double lv[] = { 16, 70, 70 };

	for (int every = 0; every < 2; every++) {
		lognormal = 1;
		build(&t, racks, 4, 0, lv, 0.01);
		lognormal = 0;
		for (int j = 1; j < t.n; j++)
			if (every || t.leaf[j] == t.leaf[0]) {
				t.lat[(size_t)0 * t.n + j] += 4;
				t.lat[(size_t)j * t.n + 0] += 4;
			}
		struct infer_result r = run(&t, 0);
		CHECK(r.ntiers == 2 && same_partition(&r, 0, t.leaf));
		CHECK(has_suspect(&r, SUSPECT_SLOW_NODE, 0) == every);
		CHECK(count_kind(&r, SUSPECT_SLOW_NODE) == every);
		done(&t, &r);
	}
}

/* the pairs a tier boundary rests on (infer_boundary_pairs, the confirmation re-measures them):
 * per boundary, the slowest pairs inside the tier's groups and the fastest between them, by
 * brute force; no pair twice, nor one the caller already planned; none without a boundary */
static int lct(const struct infer_result *r, int a, int b)
{
	int k = 0;

	while (k < r->ntiers - 1 && r->group[(size_t)k * r->n + a] != r->group[(size_t)k * r->n + b])
		k++;
	return k;
}

static float symv(const struct tree *x, int a, int b)
{
	return (x->lat[(size_t)a * x->n + b] + x->lat[(size_t)b * x->n + a]) / 2;
}

static void test_boundary_pairs(void)
{
	static const int racks[] = { 4, 4, 3, 5, 2, 4 };
	static const double lv[] = { 1.5, 2.1, 2.8 };
	int out[2 * 64];

	build(&t, racks, 6, 2, lv, 0.02);
	struct infer_result r = run(&t, 0);
	CHECK(r.ntiers == 3);
	int got = infer_boundary_pairs(&r, t.lat, t.n, out, 0, 64);
	CHECK_EQ(got, 4 * INFER_BOUNDARY_PAIRS);
	for (int k = 0; k < got; k++) {
		int a = out[2 * k], b = out[2 * k + 1], tier = lct(&r, a, b), beyond = 0, side = -1;

		CHECK(a < b);
		for (int j = 0; j < k; j++)
			CHECK(!(out[2 * j] == a && out[2 * j + 1] == b));
		/* inside tier `tier` and slowest there, or across and fastest: count the pairs of that
		 * tier beyond it on its side; fewer than INFER_BOUNDARY_PAIRS */
		side = k / INFER_BOUNDARY_PAIRS % 2; /* 0: the slow inside, 1: the fast across */
		for (int x = 1; x < t.n; x++)
			for (int y = 0; y < x; y++)
				if (lct(&r, x, y) == tier)
					beyond += side ? symv(&t, x, y) < symv(&t, a, b) : symv(&t, x, y) > symv(&t, a, b);
		CHECK(beyond < INFER_BOUNDARY_PAIRS);
		CHECK(tier == (k / INFER_BOUNDARY_PAIRS + 1) / 2);
	}
	/* the caller's pairs are not repeated, and room is respected */
	int have[2 * 64];
	memcpy(have, out, sizeof *out * 2);
	CHECK_EQ(infer_boundary_pairs(&r, t.lat, t.n, have, 1, 64), 4 * INFER_BOUNDARY_PAIRS - 1);
	for (int k = 1; k < 4 * INFER_BOUNDARY_PAIRS; k++)
		CHECK(!(have[2 * k] == out[0] && have[2 * k + 1] == out[1]));
	CHECK_EQ(infer_boundary_pairs(&r, t.lat, t.n, have, 0, 3), 3);
	done(&t, &r);
	/* one switch: no boundary, nothing to re-measure */
	static const int one[] = { 6 };
	build(&t, one, 1, 0, lv, 0.02);
	r = run(&t, 0);
	CHECK(r.ntiers == 1);
	CHECK_EQ(infer_boundary_pairs(&r, t.lat, t.n, out, 0, 64), 0);
	done(&t, &r);
}

/* A ring over the map: in tree order each leaf's uplink carries one flow out and one in (a
 * hop at the spine's rate); dealt across the leaves, the leaf of 4 sends 3 flows through its
 * uplink (its last node hands on to its first: a third of it each). A node's own limit caps its hops; a missing pair reads its tier. */
static void test_ring_model(void)
{
	static const int racks[] = { 4, 3, 3, 2 };
	static const double lv[] = { 6.5, 60, 60 };
	int ring[16], k = 0;

	build(&t, racks, 4, 0, lv, 0.01);
	struct infer_result r = run(&t, 1);
	CHECK(r.ntiers == 2 && r.ngroups[0] == 4);
	double tree = infer_ring_GBps(&r, t.bw, t.n, r.order, t.n);
	CHECK(tree > 9.8 && tree < 10.2);
	/* dealt across the leaves: leaf 0, 1, 2, 3, 0, 1, ... */
	for (int round = 0; k < t.n; round++)
		for (int leaf = 0; leaf < 4; leaf++)
			for (int i = 0, seen = 0; i < t.n; i++)
				if (t.leaf[i] == leaf && seen++ == round)
					ring[k++] = i;
	double dealt = infer_ring_GBps(&r, t.bw, t.n, ring, t.n);
	CHECK(dealt > 3.28 && dealt < 3.39); /* the last of leaf 0 hands on to the first: 3 flows out */
	/* without the pairs' figures: the tiers' medians, the same shares */
	double med = infer_ring_GBps(&r, NULL, t.n, ring, t.n);
	CHECK(fabs(med - r.bw_p50_GBps[1] / 3) < 1e-9);
	/* one node at 1 GB/s on every pair: the tree-order ring is as fast as it */
	int slow = r.order[5];
	for (int j = 0; j < t.n; j++)
		if (j != slow)
			t.bw[(size_t)slow * t.n + j] = t.bw[(size_t)j * t.n + slow] = 1.0f;
	CHECK(fabs(infer_ring_GBps(&r, t.bw, t.n, r.order, t.n) - 1.0) < 1e-6);
	t.bw[(size_t)r.order[0] * t.n + r.order[1]] = NAN; /* a missing pair: its tier's median */
	CHECK(fabs(infer_ring_GBps(&r, t.bw, t.n, r.order, t.n) - 1.0) < 1e-6);
	CHECK(isnan(infer_ring_GBps(&r, t.bw, t.n, r.order, 1)));
	done(&t, &r);
}


/* the one uplink finding of r at tier, its group the nodes of truth group g (truth: n ints) */
static int uplink_is(const struct infer_result *r, int tier, const int *truth, int g)
{
	int found = 0;

	for (int k = 0; k < r->nsuspects; k++) {
		const struct infer_suspect *s = &r->suspects[k];
		int same = 1;

		if (s->kind != SUSPECT_LOW_BW_UPLINK)
			continue;
		found++;
		for (int i = 0; i < r->n; i++)
			same &= (r->group[(size_t)s->tier * r->n + i] == r->group[(size_t)s->tier * r->n + s->a]) ==
				(truth[i] == g);
		if (!same || s->tier != tier || !(s->value < 0.5))
			return 0;
	}
	return found == 1;
}

/* every bandwidth cell that the map's plan (fabric/plan) does not measure: NAN */
static void keep_planned(struct tree *tr, const struct infer_result *r)
{
	struct plan_opts o;
	struct plan p;
	unsigned char *keep = calloc((size_t)tr->n * tr->n, 1);

	plan_opts_default(&o);
	CHECK(keep != NULL);
	CHECK(plan_bandwidth(r->group, r->ntiers, r->n, &o, &p) == 0);
	for (int k = 0; keep && k < p.s.npairs; k++)
		keep[(size_t)p.s.pair[k].a * tr->n + p.s.pair[k].b] = keep[(size_t)p.s.pair[k].b * tr->n + p.s.pair[k].a] = 1;
	for (size_t x = 0; keep && x < (size_t)tr->n * tr->n; x++)
		if (!keep[x])
			tr->bw[x] = NAN;
	plan_free(&p);
	free(keep);
}

/* Three tiers, uneven leaves, lognormal noise: leaf 2's uplink at 0.3 (every pair of its nodes with
 * a node outside it) and node gpu of leaf 4 at 0.4 on every pair: one low_bw_uplink at tier 0 on
 * exactly leaf 2's nodes, one low_bw_node, no link; a spine's uplink at 0.3: one low_bw_uplink at
 * tier 1, no leaf's. Each on every pair, then on the map's plan only (planned=1). Healthy, no
 * finding. */
static void test_slow_uplink(void)
{
	static const int racks[] = { 4, 4, 3, 5, 2, 4, 6, 3 };
	static const double lv[] = { 1.5, 2.1, 2.8 };

	for (int planned = 0; planned < 2; planned++)
		for (int what = 0; what < 3; what++) {
			int slow = -1;

			lognormal = 1;
			build(&t, racks, 8, 2, lv, 0.04);
			for (int i = 0; i < t.n; i++)
				if (t.leaf[i] == 4 && slow < 0)
					slow = i;
			for (int i = 0; i < t.n; i++)
				for (int j = 0; j < t.n && what < 2; j++) {
					int across = what == 0 ? (t.leaf[i] == 2) != (t.leaf[j] == 2)
							       : (t.spine[i] == 1) != (t.spine[j] == 1);

					if (i != j && across)
						t.bw[(size_t)i * t.n + j] *= 0.3f;
					if (i != j && what == 0 && (i == slow || j == slow))
						t.bw[(size_t)i * t.n + j] *= 0.4f;
				}
			if (planned) { /* the latency map first, then only its plan's bandwidth */
				struct infer_result r0 = run(&t, 0);

				keep_planned(&t, &r0);
				infer_result_free(&r0);
			}
			struct infer_result r = run(&t, 1);

			CHECK(same_partition(&r, 0, t.leaf));
			if (what == 0) {
				CHECK(uplink_is(&r, 0, t.leaf, 2));
				CHECK(has_suspect(&r, SUSPECT_LOW_BW_NODE, slow));
				CHECK_EQ(count_kind(&r, SUSPECT_LOW_BW_NODE), 1);
			} else if (what == 1) {
				CHECK(uplink_is(&r, 1, t.spine, 1));
				CHECK_EQ(count_kind(&r, SUSPECT_LOW_BW_NODE), 0);
			} else {
				CHECK_EQ(count_kind(&r, SUSPECT_LOW_BW_UPLINK), 0);
				CHECK_EQ(count_kind(&r, SUSPECT_LOW_BW_NODE), 0);
			}
			CHECK_EQ(count_kind(&r, SUSPECT_LOW_BW_LINK), 0);
			if (r.ntiers > 1)
				CHECK_CMP(infer_uplink_ratio(&r, t.bw, 0, what == 0 ? r.suspects[0].a : 0), >, 0);
			done(&t, &r);
			lognormal = 0;
		}
}

/* Leaves of 4 (16 nodes, 2 spines: 10.5, 60, 160 us, 0.5% noise) in which two disjoint pairs
 * of every leaf read 9.0 us: a spell of a shared host during their measurement, as on the
 * emulated cluster. One pass alone cannot tell them from switches of 2 and splits the leaves.
 * The second latency pass (lat_again) read them at the leaf's 10.5: that disagreement is the
 * repeat noise, and the map then keeps the leaves whole, naming nothing. When the second pass
 * agrees (the fast pairs reproduce), the floor stays low; the split's step (1.5 us, against
 * steps of 50 and 100 us across the spines) is then what refuses it: no switch (step 6). */
static void test_repeat_noise(void)
{
	static const int racks[] = { 4, 4, 4, 4 };
	static const double lv[] = { 10.5, 60, 160 };
	struct infer_opts o;
	struct infer_result r;
	float *again;
	int n;

	lognormal = 1;
	rng = 0x7e9ea7;
	build(&t, racks, 4, 2, lv, 0.005);
	n = t.n;
	again = malloc(sizeof *again * (size_t)n * n);
	for (size_t x = 0; x < (size_t)n * n; x++)
		again[x] = t.lat[x] * 1.002f;
	for (int leaf = 0; leaf < 4; leaf++) {
		int m[4], k = 0;

		for (int i = 0; i < n && k < 4; i++)
			if (t.leaf[i] == leaf)
				m[k++] = i;
		for (int q = 0; q < 4; q += 2)
			for (int d = 0; d < 2; d++) {
				size_t x = d ? (size_t)m[q] * n + m[q + 1] : (size_t)m[q + 1] * n + m[q];

				t.lat[x] = (float)(9.0 * exp(0.005 * gauss()));
				again[x] = 10.5f;
			}
	}
	r = run(&t, 0); /* one pass: the split is found, and refused by its step */
	CHECK(r.ntiers == 3 && same_partition(&r, 0, t.leaf) && same_partition(&r, 1, t.spine));
	CHECK(r.refused == 1 && r.refused_ratio < INFER_STEP_REFUSE && !r.uncertain[0] && !r.uncertain[1]);
	CHECK(isnan(r.noise_repeat));
	infer_result_free(&r);
	infer_opts_default(&o);
	o.lat_again = again;
	CHECK(infer_tiers(t.lat, NULL, n, t.names, &o, &r) == 0);
	CHECK(r.ntiers == 3 && same_partition(&r, 0, t.leaf) && same_partition(&r, 1, t.spine));
	CHECK(r.nsuspects == 0);
	CHECK(r.noise_repeat > 0.05 && r.noise_repeat_n >= 16 && r.noise >= r.noise_repeat);
	infer_result_free(&r);
	for (size_t x = 0; x < (size_t)n * n; x++) /* the second pass agrees */
		again[x] = t.lat[x] * 1.002f;
	CHECK(infer_tiers(t.lat, NULL, n, t.names, &o, &r) == 0);
	CHECK(r.noise_repeat < 0.01);
	CHECK(r.ntiers == 3 && same_partition(&r, 0, t.leaf) && r.refused == 1);
	free(again);
	lognormal = 0;
	done(&t, &r);
}

/* A node slower to its leaf mates alone (its pairs across the spine as everybody's): alone on a
 * leaf of its own, the map would join it to its mates only at the spine and call its pairs fast
 * links. Its pairs lie nearer the leaf's level than the spine's: it is placed with its mates.
 * And the additive noise of a leaf (pairs at 23.5 us, +-1.2 us) beside relative noise across
 * the spine: the leaf's own spread is the noise the map works with. 8 draws. */
static void test_lone_node_offset(void)
{
	static const int racks[] = { 6, 6 };
	static const double lv[] = { 23.5, 47, 47 };
	int exact = 0, quiet = 0, noisy = 0;

	lognormal = 1;
	rng = 0x51a7e;
	for (int k = 0; k < 8; k++) {
		build(&t, racks, 2, 0, lv, 0.015);
		int n = t.n, a = 0;

		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (i != j && t.leaf[i] == t.leaf[j])
					t.lat[(size_t)i * n + j] += (float)(1.2 * gauss());
		for (int j = 0; j < n; j++) /* node 0: +2.2 us (9%) to its leaf mates, both ways */
			if (j != a && t.leaf[j] == t.leaf[a]) {
				t.lat[(size_t)a * n + j] += 2.2f;
				t.lat[(size_t)j * n + a] += 2.2f;
			}
		struct infer_result r = run(&t, 0);
		exact += r.ntiers == 2 && same_partition(&r, 0, t.leaf);
		quiet += r.nsuspects == 0;
		noisy += r.noise > 0.0275; /* the rows alone said 1.9-2.5% */
		done(&t, &r);
	}
	CHECK(exact == 8);
	CHECK(quiet == 8);
	CHECK(noisy == 8);
	lognormal = 0;
}

int main(void)
{
	RUN(test_two_tiers_332_emulated_levels);
	RUN(test_uneven_with_singleton_small_steps);
	RUN(test_three_tiers);
	RUN(test_step_rule);
	RUN(test_single_switch_one_and_two_nodes);
	RUN(test_offsets_and_outlier);
	RUN(test_missing_pairs);
	RUN(test_unmeasured_node);
	RUN(test_low_bandwidth_node);
	RUN(test_many_nodes);
	RUN(test_emulated_small);
	RUN(test_no_structure_invented);
	RUN(test_slow_node_floor);
	RUN(test_link_floor);
	RUN(test_bw_floors);
	RUN(test_slow_node_small_leaf);
	RUN(test_boundary_pairs);
	RUN(test_ring_model);
	RUN(test_slow_uplink);
	RUN(test_repeat_noise);
	RUN(test_lone_node_offset);
	CHECK_EXIT();
}
