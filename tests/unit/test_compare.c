/* Comparing runs: pairs matched across runs with different nodes and sizes; the tolerance
 * derived from each run's noise (node offsets taken out, heavy tails widening it); groups
 * matched by overlap (labels permuted, a group split, merged, a node moved); the map. Runs
 * are written as results directories the way fabprobe writes them, then read back. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/log.h"
#include "fabric/judge/compare.h"
#include "fabric/judge/compare_out.h"
#include "fabric/judge/groups.h"
#include "fabric/io/rundir.h"

static char tmp[] = "/tmp/fp-cmp-XXXXXX";

static const char *p2p_head = "run_id,path,kind,src_host,dst_host,src_dev,dst_dev,line_rate_Gbps,size_B,lat_iters,"
			      "lat_us_min,lat_us_avg,lat_us_p50,lat_us_p99,bw_windows,window,bw_GBps,bw_Gbps,"
			      "pct_line_rate,status,note\n";

/* One p2p.csv row: a latency row (bw < 0) or a bandwidth row (lat < 0). */
static void row(FILE *f, const char *path, const char *a, const char *b, long long size, double lat, double bw,
		const char *status)
{
	fprintf(f, "r,%s,ethernet,%s,%s,eth0,eth0,10.0,%lld,", path, a, b, size);
	if (lat >= 0)
		fprintf(f, "100,%.3f,%.3f,%.3f,%.3f,", lat, lat, lat * 1.05, lat * 2);
	else
		fputs(",,,,,", f);
	if (bw >= 0)
		fprintf(f, "8,64,%.4f,%.3f,%.1f,", bw, bw * 8, bw * 80);
	else
		fputs(",,,,,", f);
	fprintf(f, "%s,\n", status);
}

static FILE *open_run(const char *name, const char *file, char *dir)
{
	char path[512];

	snprintf(dir, 256, "%s/%s", tmp, name);
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	if (f && !strcmp(file, "p2p.csv"))
		fputs(p2p_head, f);
	return f;
}

struct tally {
	int count[CMP_NCLASS];
	int worse_ab;   /* worse items of the pair a-b */
	char notes[512];
};

static void tally_item(void *ctx, const struct cmp_item *it)
{
	struct tally *t = ctx;

	t->count[it->cls]++;
	if (it->cls == CMP_WORSE && ((!strcmp(it->src, "a") && !strcmp(it->dst, "b")) ||
				     (!strcmp(it->src, "b") && !strcmp(it->dst, "a"))))
		t->worse_ab++;
	if (it->note[0] && strlen(t->notes) + strlen(it->note) + 2 < sizeof t->notes) {
		strcat(t->notes, it->note);
		strcat(t->notes, "|");
	}
}

/* BASE has nodes a b c at 8 B and 1 MiB; NEW has a b d, and a size (4 MiB) and a path only
 * it measured; a-b is alike, but b->a timed out in NEW. */
static void test_pair_matching(void)
{
	static const char *base_hosts[] = { "a", "b", "c" }, *new_hosts[] = { "a", "b", "d" };
	char dir_a[256], dir_b[256], err[RUNDIR_ERR_MAX];
	FILE *fa = open_run("match-base", "p2p.csv", dir_a), *fb = open_run("match-new", "p2p.csv", dir_b);
	struct rundir a, b;
	struct cmp_skip sk;
	struct tally t = { 0 };
	struct cmp_opts o = { 0 };

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			if (i == j)
				continue;
			row(fa, "mpi", base_hosts[i], base_hosts[j], 8, 5.0, -1, "ok");
			row(fa, "mpi", base_hosts[i], base_hosts[j], 1048576, -1, 1.2, "ok");
			int timeout = !strcmp(new_hosts[i], "b") && !strcmp(new_hosts[j], "a");
			row(fb, "mpi", new_hosts[i], new_hosts[j], 8, 5.0, -1, "ok");
			row(fb, "mpi", new_hosts[i], new_hosts[j], 1048576, -1, timeout ? -1 : 1.2, timeout ? "timeout" : "ok");
			row(fb, "mpi", new_hosts[i], new_hosts[j], 4194304, -1, 1.2, "ok");
			row(fb, "tcp:eth0", new_hosts[i], new_hosts[j], 8, 5.0, -1, "ok");
		}
	fclose(fa);
	fclose(fb);
	CHECK(rundir_load(dir_a, &a, err) == 0);
	CHECK(rundir_load(dir_b, &b, err) == 0);
	CHECK(cmp_p2p(&a, &b, &o, tally_item, &t, &sk) == 0);
	/* a-b, both directions, at 8 B (min, p50) and 1 MiB (bw): 6 items, b->a's bw now failing */
	CHECK(t.worse_ab == 1);
	CHECK(strstr(t.notes, "status ok -> timeout") != NULL);
	/* c's 4 rows x (2 + 1) metrics gone, d's new; nothing else */
	CHECK(t.count[CMP_GONE] == 12);
	CHECK(t.count[CMP_NEW] == 12);
	CHECK(t.count[CMP_SAME] == 5);
	CHECK(t.count[CMP_WORSE] == 1 && t.count[CMP_BETTER] == 0);
	/* 4 MiB and tcp:eth0 exist only in NEW: 6 rows each, counted, not classed */
	CHECK(sk.rows_new_only == 12 && sk.rows_base_only == 0);
	CHECK(strstr(sk.what, "mpi 4194304 B only in NEW") && strstr(sk.what, "tcp:eth0 8 B only in NEW"));
	rundir_free(&a);
	rundir_free(&b);
}

/* ---------------------------------------------------------------- noise */

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* A one-tier run of n nodes: bandwidth 1 GB/s with lognormal noise sigma; node `slow`
 * (-1: none) at a fifth; pair (pa, pb) scaled by factor. */
static void noisy_run(const char *name, char *dir, int n, double sigma, int slow, int pa, int pb, double factor)
{
	FILE *f = open_run(name, "p2p.csv", dir);

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			char a[16], b[16];
			double bw = exp(sigma * gauss());

			if (i == j)
				continue;
			if (i == slow || j == slow)
				bw *= 0.2;
			if ((i == pa && j == pb) || (i == pb && j == pa))
				bw *= factor;
			snprintf(a, sizeof a, "n%02d", i);
			snprintf(b, sizeof b, "n%02d", j);
			row(f, "mpi", a, b, 1048576, -1, bw, "ok");
		}
	fclose(f);
}

static double sigma_of(const char *dir)
{
	struct rundir rd;
	struct cmp_noise nz;
	char err[RUNDIR_ERR_MAX];
	double s = NAN;

	if (rundir_load(dir, &rd, err))
		return NAN;
	if (cmp_noise_build(&rd, &nz) == 0)
		s = cmp_noise_get(&nz, rundir_find(&rd, "mpi"), 1048576, RD_BW, -1);
	cmp_noise_free(&nz);
	rundir_free(&rd);
	return s;
}

static void test_noise_estimate(void)
{
	char d[256];
	double r[9] = { 0.1, -0.1, 0.1, -0.1, 0.1, -0.1, 0.1, -0.1, 0.1 }, few[4] = { 1, 1, 1, 1 };

	CHECK_NEAR(cmp_sigma(r, 9), 0.1 / 1.645, 1e-9);
	CHECK(isnan(cmp_sigma(few, 4)));
	/* 16 nodes, 240 pairs, 5% noise: found within a fifth */
	noisy_run("noise5", d, 16, 0.05, -1, -1, -1, 1);
	CHECK_NEAR(sigma_of(d), 0.05, 0.01);
	/* a slow node is a finding, not noise: its offset is taken out */
	noisy_run("noise5-slow", d, 16, 0.05, 3, -1, -1, 1);
	CHECK_NEAR(sigma_of(d), 0.05, 0.012);
	/* heavy tails: pairs here and there (15%) at half rate widen it well beyond the core's 1% */
	FILE *f = open_run("tails", "p2p.csv", d);
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			if (i != j) {
				char a[16], b[16];
				snprintf(a, sizeof a, "n%02d", i);
				snprintf(b, sizeof b, "n%02d", j);
				row(f, "mpi", a, b, 1048576, -1, exp(0.01 * gauss()) * (uniform() < 0.15 ? 0.5 : 1), "ok");
			}
	fclose(f);
	CHECK(sigma_of(d) > 0.2);
	/* a run too small to say: the default */
	noisy_run("tiny", d, 2, 0.05, -1, -1, -1, 1);
	CHECK_NEAR(sigma_of(d), CMP_SIGMA_DEFAULT, 1e-9);
}

static void count_pair(void *ctx, const struct cmp_item *it)
{
	int *c = ctx;

	if (!strcmp(it->src, "n02") && !strcmp(it->dst, "n05"))
		c[it->cls]++;
	else
		c[CMP_NCLASS] += it->cls != CMP_SAME; /* any other pair classed */
}

/* One pair 30% or 10% slower, against 5% and 20% noise, and with --tolerance; on a quiet
 * fabric 4% and 7% slower (the 5% floor). */
static void test_tolerance_from_noise(void)
{
	static const struct {
		double sigma, factor, tol_pct;
		int want;
	} cases[] = {
		{ 0.05, 0.70, 0, CMP_WORSE },  /* tolerance ~ 3 sqrt(2) 5% = 21%: -30% counts */
		{ 0.05, 0.90, 0, CMP_SAME },   /* -10% is noise */
		{ 0.05, 1.40, 0, CMP_BETTER },
		{ 0.20, 0.70, 0, CMP_SAME },   /* a noisy fabric: -30% does not count */
		{ 0.05, 0.90, 5, CMP_WORSE },  /* --tolerance 5 */
		{ 0.001, 0.96, 0, CMP_SAME },  /* a quiet fabric: -4% is below the 5% floor */
		{ 0.001, 0.93, 0, CMP_WORSE }, /* -7% is beyond it */
	};

	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char da[256], db[256], na[32], nb[32], err[RUNDIR_ERR_MAX];
		struct rundir a, b;
		struct cmp_skip sk;
		struct cmp_opts o = { .tolerance_pct = cases[k].tol_pct };
		int c[CMP_NCLASS + 1] = { 0 };

		snprintf(na, sizeof na, "tol%zu-a", k);
		snprintf(nb, sizeof nb, "tol%zu-b", k);
		rng = 0x9e3779b97f4a7c15ULL + k;
		noisy_run(na, da, 12, cases[k].sigma, -1, -1, -1, 1);
		/* NEW: the same figures but for the one pair (the noise repeats: same seed) */
		rng = 0x9e3779b97f4a7c15ULL + k;
		noisy_run(nb, db, 12, cases[k].sigma, -1, 2, 5, cases[k].factor);
		CHECK(rundir_load(da, &a, err) == 0 && rundir_load(db, &b, err) == 0);
		CHECK(cmp_p2p(&a, &b, &o, count_pair, c, &sk) == 0);
		CHECK(c[cases[k].want] == 1);
		CHECK(c[CMP_NCLASS] == (cases[k].want != CMP_SAME)); /* n05->n02 went the same way; nothing else */
		if (c[cases[k].want] != 1)
			printf("#   case %zu: same %d better %d worse %d\n", k, c[CMP_SAME], c[CMP_BETTER], c[CMP_WORSE]);
		rundir_free(&a);
		rundir_free(&b);
	}
	double chg;
	CHECK(cmp_classify(10, 5, 1, log(1.5), &chg) == CMP_WORSE && chg == -50);
	CHECK(cmp_classify(10, 9, 1, log(1.5), &chg) == CMP_SAME);
	CHECK(cmp_classify(10, 20, 0, log(1.5), &chg) == CMP_WORSE); /* latency doubled */
	CHECK(cmp_classify(NAN, 3, 1, 0.1, &chg) == CMP_BETTER && isnan(chg));
	CHECK(cmp_classify(3, NAN, 1, 0.1, &chg) == CMP_WORSE);
}

/* A one-tier latency run of 12 nodes at 10.5 us (0.5% noise), pair n02-n05 at lat25 (both
 * directions). */
static void lat_run(const char *name, char *dir, double lat25)
{
	FILE *f = open_run(name, "p2p.csv", dir);

	for (int i = 0; i < 12; i++)
		for (int j = 0; j < 12; j++) {
			char a[16], b[16];
			int odd = (i == 2 && j == 5) || (i == 5 && j == 2);
			double lat = odd ? lat25 : 10.5 * exp(0.005 * gauss());

			if (i == j)
				continue;
			snprintf(a, sizeof a, "n%02d", i);
			snprintf(b, sizeof b, "n%02d", j);
			fprintf(f, "r,mpi,ethernet,%s,%s,eth0,eth0,10.0,8,100,%.3f,%.3f,%.3f,%.3f,,,,,,ok,\n", a, b, lat,
				lat, lat, lat * 2);
		}
	fclose(f);
}

struct item25 {
	int cls, others;  /* n02->n05's latency minimum's class; the items of other pairs not same */
	char note[256];
};

static void item_25(void *ctx, const struct cmp_item *it)
{
	struct item25 *r = ctx;
	int pair = (!strcmp(it->src, "n02") && !strcmp(it->dst, "n05")) || (!strcmp(it->src, "n05") && !strcmp(it->dst, "n02"));

	if (pair && !strcmp(it->src, "n02") && !strcmp(it->metric, "lat_us_min")) {
		r->cls = it->cls;
		snprintf(r->note, sizeof r->note, "%s", it->note);
	} else if (!pair && it->cls != CMP_SAME) {
		r->others++;
	}
}

static struct item25 compare_25(const char *da, const char *db)
{
	struct rundir a, b;
	struct cmp_skip sk;
	struct cmp_opts o = { 0 };
	struct item25 r = { .cls = -1 };
	char err[RUNDIR_ERR_MAX];

	CHECK(rundir_load(da, &a, err) == 0 && rundir_load(db, &b, err) == 0);
	CHECK(cmp_p2p(&a, &b, &o, item_25, &r, &sk) == 0);
	rundir_free(&a);
	rundir_free(&b);
	return r;
}

/* A pair fast in BASE (a spell of the host: 9.0 us among 10.5) and at its tier's level in NEW
 * is not worse (+17%, beyond the 5% floor and the pairs' 0.5% noise): it is back among its
 * peers. Beyond its tier's level by more than the tolerance, it is worse. */
static void test_back_to_tier(void)
{
	char da[256], db[256];
	struct item25 r;

	rng = 0x51ab1e;
	lat_run("back-a", da, 9.0);
	lat_run("back-b", db, 10.55);
	r = compare_25(da, db);
	CHECK(r.cls == CMP_SAME && strstr(r.note, "back at its tier's median") && r.others == 0);
	lat_run("back-c", db, 12.5); /* +19% on its tier's level: a regression */
	r = compare_25(da, db);
	CHECK(r.cls == CMP_WORSE && r.others == 0);
	/* a pair at its tier's level in BASE that rose 17% is worse: the rule is no blanket */
	lat_run("back-d", da, 10.5);
	lat_run("back-e", db, 12.3);
	r = compare_25(da, db);
	CHECK(r.cls == CMP_WORSE);
}

/* ---------------------------------------------------------------- groups */

static void expect_changes(const int *ga, const int *gb, int n, const int *want)
{
	struct grp_match m;
	int na = 0, nb = 0;

	for (int i = 0; i < n; i++) {
		na = ga[i] >= na ? ga[i] + 1 : na;
		nb = gb[i] >= nb ? gb[i] + 1 : nb;
	}
	CHECK(grp_match(ga, gb, n, na, nb, &m) == 0);
	for (int i = 0; i < n; i++) {
		CHECK(m.change[i] == want[i]);
		if (m.change[i] != want[i])
			printf("#   node %d: %s, expected %s\n", i, grp_change_name(m.change[i]), grp_change_name(want[i]));
	}
	grp_match_free(&m);
}

static void test_group_matching(void)
{
	enum { S = GRP_SAME, M = GRP_MOVED, P = GRP_SPLIT, G = GRP_MERGED };
	/* labels permuted: nothing changed */
	static const int a1[] = { 0, 0, 0, 1, 1, 2, 2, 2 }, b1[] = { 2, 2, 2, 0, 0, 1, 1, 1 }, w1[] = { S, S, S, S, S, S, S, S };
	/* one node moved to another group, labels permuted too */
	static const int b2[] = { 1, 1, 2, 0, 0, 2, 2, 2 }, w2[] = { S, S, M, S, S, S, S, S };
	/* a group of 5 split in two: the larger part keeps the partner */
	static const int a3[] = { 0, 0, 0, 0, 0, 1, 1 }, b3[] = { 3, 3, 3, 0, 0, 1, 1 }, w3[] = { S, S, S, P, P, S, S };
	/* two groups merged */
	static const int a4[] = { 0, 0, 1, 1, 1, 2, 2 }, b4[] = { 0, 0, 0, 0, 0, 1, 1 }, w4[] = { G, G, S, S, S, S, S };
	/* a node alone in a new group: moved, not split */
	static const int a5[] = { 0, 0, 0, 1, 1 }, b5[] = { 0, 0, 2, 1, 1 }, w5[] = { S, S, M, S, S };

	expect_changes(a1, b1, 8, w1);
	expect_changes(a1, b2, 8, w2);
	expect_changes(a3, b3, 7, w3);
	expect_changes(a4, b4, 7, w4);
	expect_changes(a5, b5, 5, w5);
}

struct map_tally {
	int change[CMP_MAP_CHANGED + 1];
	char moved[256];
	char tiers[64];
};

static void map_item(void *ctx, const struct cmp_map_row *r)
{
	struct map_tally *t = ctx;

	t->change[r->change]++;
	if (r->host && r->change != CMP_MAP_SAME)
		snprintf(t->moved + strlen(t->moved), sizeof t->moved - strlen(t->moved), "%s:%s:%d ", r->host,
			 cmp_map_change_name(r->change), r->tier);
	if (!r->host)
		snprintf(t->tiers, sizeof t->tiers, "%s>%s", r->before, r->after);
}

/* The map: labels permuted between runs, n4 moved, n9 only in BASE, n10 only in NEW, a third
 * tier in NEW. */
static void test_map(void)
{
	char da[256], db[256], err[RUNDIR_ERR_MAX];
	FILE *fa = open_run("map-a", "topology.csv", da), *fb = open_run("map-b", "topology.csv", db);
	struct rundir a, b;
	struct map_tally t = { 0 };

	fputs("host,order,tier0,tier1,offset_us\n", fa);
	fputs("host,order,tier0,tier1,tier2,offset_us\n", fb);
	for (int i = 1; i <= 9; i++)
		fprintf(fa, "n%d,%d,leaf%02d,spine00,0\n", i, i, (i - 1) / 3);
	for (int i = 1; i <= 10; i++) {
		int rack = i == 4 ? 2 : (i - 1) / 3;

		if (i != 9)
			fprintf(fb, "n%d,%d,leaf%02d,spine00,core00,0\n", i, i, (rack + 1) % 4);
	}
	fclose(fa);
	fclose(fb);
	CHECK(rundir_load(da, &a, err) == 0 && rundir_load(db, &b, err) == 0);
	CHECK(cmp_map(&a, &b, map_item, &t) == 0);
	CHECK_STR(t.moved, "n9:gone:-1 n10:new:-1 n4:moved:0 ");
	CHECK_STR(t.tiers, "2>3");
	CHECK(t.change[CMP_MAP_SAME] == 7 + 8); /* tier 0 but n4; tier 1: all 8 */
	CHECK(!strcmp(a.topo.tier_name[0], "leaf") && !strcmp(b.topo.tier_name[2], "core"));
	rundir_free(&a);
	rundir_free(&b);
}

/* tier names from topology.csv's group labels, as emit_group_name writes them: the group
 * number and a '-' before it dropped, digits in the kind kept ("tier3-02" is "tier3") */
static void test_tier_names(void)
{
	char d[256], err[RUNDIR_ERR_MAX];
	FILE *f = open_run("tiers", "topology.csv", d);
	struct rundir rd;

	fputs("host,order,tier0,tier1,tier2,tier3,tier4,tier5,offset_us\n", f);
	fputs("n1,1,leaf03,spine00,core1,tier3-02,tier10-007,42,0\n", f);
	fclose(f);
	CHECK(rundir_load(d, &rd, err) == 0);
	CHECK_STR(rd.topo.tier_name[0], "leaf");
	CHECK_STR(rd.topo.tier_name[1], "spine");
	CHECK_STR(rd.topo.tier_name[2], "core");
	CHECK_STR(rd.topo.tier_name[3], "tier3");
	CHECK_STR(rd.topo.tier_name[4], "tier10");
	CHECK_STR(rd.topo.tier_name[5], "tier5"); /* a label of digits only: named by its index */
	CHECK_STR(rundir_tier_name(&rd, 3), "tier3");
	rundir_free(&rd);
}

/* The collectives' noise, built once per run (cmp_coll_noise_build, O(n log n)), gives exactly
 * the figure of the reference that scans every row per group (cmp_coll_sigma, which compare
 * once called twice per item): several groups, in and out of place, repeated sizes (roots),
 * failed rows; and a group too small for a figure gives the default in both. */
static void test_coll_noise_same_as_scan(void)
{
	static const char *const ops[] = { "allreduce", "reduce", "broadcast" }, *const dts[] = { "float", "int32" };
	char dir[256], err[RUNDIR_ERR_MAX];
	struct rundir rd;
	struct cmp_coll_noise nz;
	FILE *f = open_run("collnoise", "collectives.csv", dir);

	CHECK(f != NULL);
	if (!f)
		return;
	fputs("run_id,backend,op,size_B,count,dtype,redop,root,nranks,nnodes,in_place,time_us,time_us_max,"
	      "algbw_GBps,busbw_GBps,wrong,status\n", f);
	for (int o = 0; o < 3; o++)
		for (int d = 0; d < 2; d++)
			for (int k = 0; k < (o == 2 ? 3 : 12); k++)
				for (int root = 0; root < (o == 1 ? 2 : 1); root++)
					for (int ip = 0; ip < 2; ip++) {
						double bw = 5 + k + 0.05 * gauss();

						fprintf(f, "x,mpi,%s,%d,1,%s,%s,%d,4,1,%d,1,1,%.4f,%.4f,0,%s\n", ops[o], 64 << k,
							dts[d], o == 2 ? "" : "sum", root, ip, bw, bw,
							k == 5 && ip ? "timeout" : "ok");
					}
	fclose(f);
	CHECK_EQ(rundir_load(dir, &rd, err), 0);
	CHECK_EQ(cmp_coll_noise_build(&rd, &nz), 0);
	CHECK_EQ(nz.n, 6);
	int groups = 0, defaults = 0;
	for (int i = 0; i < rd.ncoll; i++) {
		const struct rd_coll *c = &rd.coll[i];
		double want = cmp_coll_sigma(&rd, c);
		double got = cmp_coll_noise_get(&nz, c);

		CHECK_EQ(got, want);
		groups += i == 0 || !(c->op == c[-1].op && c->dtype == c[-1].dtype);
		defaults += got == CMP_SIGMA_DEFAULT;
	}
	CHECK(groups >= 6);
	CHECK(defaults > 0);               /* broadcast: 3 sizes, too few residuals */
	CHECK(defaults < rd.ncoll);
	struct rd_coll none = { .backend = 999 };
	CHECK_EQ(cmp_coll_noise_get(&nz, &none), CMP_SIGMA_DEFAULT);
	cmp_coll_noise_free(&nz);
	rundir_free(&rd);
}

int main(void)
{
	CHECK(mkdtemp(tmp) != NULL);
	RUN(test_pair_matching);
	RUN(test_noise_estimate);
	RUN(test_tolerance_from_noise);
	RUN(test_back_to_tier);
	RUN(test_group_matching);
	RUN(test_map);
	RUN(test_tier_names);
	RUN(test_coll_noise_same_as_scan);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
	CHECK(system(cmd) == 0);
	CHECK_EXIT();
}
