/* Option values, the parser composed of groups (opts_parse), and `fabprobe p2p`/`run` option
 * parsing: what is accepted, what is refused. */
#include <stdint.h>

#include "check.h"
#include "core/log.h"
#include "core/opts.h"
#include "cmd/cmd.h"
#include "run/run_stage.h"
#include "p2p/p2p.h"

static char err[OPTS_ERR_MAX];

static void test_sizes(void)
{
	uint64_t v;
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "8", 8 }, { "4K", 4096 }, { "4k", 4096 }, { "4M", 4u << 20 }, { "1G", 1u << 30 },
		{ "4MiB", 4u << 20 }, { "64KB", 65536 }, { "1B", 1 },
	};
	static const char *const bad[] = { "", "0", "-1", "1.5M", "4X", "M", "4 M", " 4", "+4",
					    "99999999999999999999", "2G", "1T", "4Mi B" };

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		CHECK(opts_size("-s", good[i].s, 1, 1u << 30, &v, err) == 0);
		CHECK(v == good[i].v);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(opts_size("-s", bad[i], 1, 1u << 30, &v, err) == FP_EUSAGE);
		CHECK(strstr(err, "-s") != NULL); /* the message names the option */
	}
}

static void test_integers_and_seconds(void)
{
	long v;
	double d;

	CHECK_EQ(opts_long("-n", "10", 1, 100, &v, err), 0);
	CHECK_EQ(v, 10);
	CHECK(opts_long("-n", "0", 1, 100, &v, err) == FP_EUSAGE);
	CHECK(opts_long("-n", "-5", 1, 100, &v, err) == FP_EUSAGE);
	CHECK(opts_long("-n", "101", 1, 100, &v, err) == FP_EUSAGE);
	CHECK(opts_long("-n", "1e3", 1, 10000, &v, err) == FP_EUSAGE);
	CHECK(opts_long("-n", "99999999999999999999999", 1, 100, &v, err) == FP_EUSAGE);
	CHECK(opts_long("-n", "", 1, 100, &v, err) == FP_EUSAGE);
	CHECK_EQ(opts_seconds("-t", "2.5", 10, &d, err), 0);
	CHECK_EQ(d, 2.5);
	CHECK(opts_seconds("-t", "0", 10, &d, err) == FP_EUSAGE);
	CHECK(opts_seconds("-t", "-1", 10, &d, err) == FP_EUSAGE);
	CHECK(opts_seconds("-t", "nan", 10, &d, err) == FP_EUSAGE);
	CHECK(opts_seconds("-t", "inf", 10, &d, err) == FP_EUSAGE);
	CHECK(opts_seconds("-t", "11", 10, &d, err) == FP_EUSAGE);
	CHECK(opts_seconds("-t", "3s", 10, &d, err) == FP_EUSAGE);
}

static void test_size_lists(void)
{
	uint64_t v[OPTS_LIST_MAX];
	int n;

	CHECK(opts_size_list("-l", "4K,8,4096,64", 1, 1u << 30, v, &n, err) == 0);
	CHECK_EQ(n, 3); /* sorted, duplicates merged */
	CHECK_EQ(v[0], 8);
	CHECK_EQ(v[1], 64);
	CHECK_EQ(v[2], 4096);
	CHECK(opts_size_list("-l", "8,,64", 1, 1u << 30, v, &n, err) == FP_EUSAGE);
	CHECK(opts_size_list("-l", "8,", 1, 1u << 30, v, &n, err) == FP_EUSAGE);
	CHECK(opts_size_list("-l", ",8", 1, 1u << 30, v, &n, err) == FP_EUSAGE);
	CHECK(opts_size_list("-l", "8,0", 1, 1u << 30, v, &n, err) == FP_EUSAGE);
}

static void test_names(void)
{
	CHECK(opts_name("--name", "acceptance-rack3_v2.1", err) == 0);
	CHECK(opts_name("--name", "../x", err) == FP_EUSAGE);
	CHECK(opts_name("--name", "a/b", err) == FP_EUSAGE);
	CHECK(opts_name("--name", ".hidden", err) == FP_EUSAGE);
	CHECK(opts_name("--name", "", err) == FP_EUSAGE);
	CHECK(opts_name("--name", "a b", err) == FP_EUSAGE);
}

/* parse a command line given as one string of space-separated words */
static int parse(const char *line, struct p2p_opts *o)
{
	static char buf[1024];
	char *argv[64];
	int argc = 0;

	snprintf(buf, sizeof buf, "p2p %s", line);
	for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	return p2p_opts_parse(argc, argv, o, err);
}

static void test_p2p_defaults_and_merge(void)
{
	struct p2p_opts o;

	CHECK(parse("", &o) == 0);
	CHECK_EQ(o.nsizes, 2);
	CHECK_EQ(o.sizes[0].bytes, 8);
	CHECK(o.sizes[0].lat);
	CHECK(!o.sizes[0].bw);
	CHECK_EQ(o.sizes[1].bytes, 4u << 20);
	CHECK(o.sizes[1].bw);
	CHECK(!o.sizes[1].lat);
	CHECK_EQ(o.lat_iters, 1000);
	CHECK_EQ(o.window, 64);
	CHECK_EQ(o.npaths, 1);
	CHECK_STR(o.paths[0], "mpi");
	CHECK_EQ(o.pair_timeout, 0);
	CHECK_EQ(o.concurrency, 0);
	CHECK_EQ(o.test_stall_rank, -1);

	CHECK(parse("-l 8,64K -s 64K,1M -n 50 --window 16 -c 1 -t 2.5 --name x", &o) == 0);
	CHECK(o.nsizes == 3);
	CHECK_EQ(o.sizes[1].bytes, 65536); /* one size, both */
	CHECK(o.sizes[1].lat);
	CHECK(o.sizes[1].bw);
	CHECK_EQ(o.lat_iters, 50);
	CHECK_EQ(o.window, 16);
	CHECK_EQ(o.concurrency, 1);
	CHECK_EQ(o.pair_timeout, 2.5);
	CHECK_EQ(parse("--bw-sizes none", &o), 0);
	CHECK_EQ(o.nsizes, 1);
	CHECK(o.sizes[0].lat);
	CHECK(parse("--help", &o) == 1);
}

static void test_p2p_rejects(void)
{
	struct p2p_opts o;
	/* (whether -p verbs:… is accepted depends on the build: test_verbs.c checks both) */
	static const char *const bad[] = {
		"--bogus", "-n", "-n 0", "-n -3", "--window 0", "--window 5000", "-c 0", "-c -1",
		"-t 0", "-t -2", "-l 0", "-s 2G", "-p nosuch", "-p mpi,mpi",
		"-o /tmp/x --name y", "-o /tmp/x --results-root r", "--name a/b", "extra",
		"-l none -s none", "--test-stall -1", "--lat-warmup -1", "--no-coll", "--coll-max 1M",
		"--slots 8", "--test-fault reset", "--test-fault boom:1",
		/* hostile command lines: a value that is the next option, and malformed path specs */
		"--results-root --lat", "-o -x", "--name --lat", "--output=", "-p tcp:", "-p tcp:a/b",
		"-p mpi:x", "-p tcp:0123456789abcdef",
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = parse(bad[i], &o);

		CHECK(rc == FP_EUSAGE);
		if (rc != FP_EUSAGE)
			printf("#   accepted: %s\n", bad[i]);
		CHECK(err[0] != 0);
	}
	parse("-o /tmp/x --name y", &o);
	CHECK(strstr(err, "--name") != NULL); /* the conflict is named */
}

/* `run` takes p2p's options and the stages' own; p2p refuses those */
static void test_run_options(void)
{
	struct run_opts o;
	char *argv[] = { "run", "--no-inventory", "--coll-max", "256K", "--slots", "4", "-c", "1", NULL };
	char *bad[] = { "run", "--coll-max", "0", NULL };
	char *p2p_only[] = { "p2p", "--slots", "4", NULL };
	struct p2p_opts po;

	CHECK_EQ(run_opts_parse(8, argv, &o, err), 0);
	CHECK(o.no_inventory);
	CHECK(!o.no_coll);
	CHECK_EQ(o.coll_max, 256 << 10);
	CHECK_EQ(o.slots, 4);
	CHECK_EQ(o.p2p.concurrency, 1);
	/* the collectives stage: 8 B .. 256 KiB, x4 per step */
	CHECK_EQ(o.coll.nsizes, 8);
	CHECK_EQ(o.coll.sizes[0], 8);
	CHECK_EQ(o.coll.sizes[7], 128 << 10);
	/* every stage's defaults: the outputs', the judges' */
	CHECK_STR(o.label_prefix, "fabprobe");
	CHECK_EQ(o.checks.retests, 2);
	CHECK(!checks_wanted(&o.checks));
	char *judged[] = { "run", "--accept", "--retests", "0", "--no-coll", "--label-prefix", "x.y", NULL };
	CHECK_EQ(run_opts_parse(7, judged, &o, err), 0);
	CHECK(checks_wanted(&o.checks) && o.checks.retests == 0 && o.no_coll && !strcmp(o.label_prefix, "x.y"));
	checks_opts_free(&o.checks);
	CHECK_EQ(run_opts_parse(3, bad, &o, err), FP_EUSAGE);
	CHECK_HAS(err, "--coll-max");
	CHECK_EQ(p2p_opts_parse(3, p2p_only, &po, err), FP_EUSAGE);
	/* paths: p2p measures mpi unless told; run takes the inventory's unless told (-p) */
	CHECK(o.p2p.npaths == 1);
	CHECK(!strcmp(o.p2p.paths[0], "mpi"));
	CHECK(!o.p2p.paths_given);
	char *with_p[] = { "run", "-p", "mpi,tcp:eth0", NULL };
	CHECK(run_opts_parse(3, with_p, &o, err) == 0);
	CHECK(o.p2p.paths_given);
	CHECK(o.p2p.npaths == 2);
	/* the confirmation pass */
	CHECK(o.confirm_time == 120);
	CHECK(o.confirm_factor == 2);
	CHECK(!o.no_confirm);
	char *conf[] = { "run", "--confirm-time", "30", "--confirm-factor", "3", "--no-confirm", NULL };
	CHECK(run_opts_parse(6, conf, &o, err) == 0);
	CHECK(o.confirm_time == 30);
	CHECK(o.confirm_factor == 3);
	CHECK(o.no_confirm);
	char *conf_bad[] = { "run", "--confirm-factor", "0", NULL };
	CHECK(run_opts_parse(3, conf_bad, &o, err) == FP_EUSAGE);
	CHECK(strstr(err, "--confirm-factor"));
	/* the order stage: 4 MiB by default, 1K..1G, --no-order */
	CHECK(o.order_size == 4 << 20 && !o.no_order);
	char *ord[] = { "run", "--order-size", "64M", "--no-order", NULL };
	CHECK(run_opts_parse(4, ord, &o, err) == 0);
	CHECK(o.order_size == 64 << 20 && o.no_order);
	char *ord_bad[] = { "run", "--order-size", "512", NULL };
	CHECK(run_opts_parse(3, ord_bad, &o, err) == FP_EUSAGE);
	CHECK(strstr(err, "--order-size"));
	char *ord_big[] = { "run", "--order-size", "2G", NULL };
	CHECK(run_opts_parse(3, ord_big, &o, err) == FP_EUSAGE);
	/* the link counters, the actions and topograph: defaults, and hostile --test-flap values */
	CHECK(!o.no_counters && o.test_flap_rank == -1 && !o.k8s_taint && !o.topograph);
	char *ctr[] = { "run", "--no-counters", "--test-flap", "3:eth1", "--k8s-taint", "--topograph", NULL };
	CHECK(run_opts_parse(6, ctr, &o, err) == 0);
	CHECK(o.no_counters && o.test_flap_rank == 3 && !strcmp(o.test_flap_if, "eth1") && o.k8s_taint && o.topograph);
	static const char *const flap_bad[] = { "eth0", ":eth0", "x:eth0", "-1:eth0", "1:", "1:lo", "1:a/b", "1:e 0",
						"1:eth0:1", "1:averyveryverylongname", NULL };
	for (int i = 0; flap_bad[i]; i++) {
		char *argv_bad[] = { "run", "--test-flap", (char *)flap_bad[i], NULL };

		CHECK(run_opts_parse(3, argv_bad, &o, err) == FP_EUSAGE && strstr(err, "--test-flap"));
	}
	/* the bandwidth plan: auto, 1 peer, 16 groups, 1 stream by default; hostile values refused */
	CHECK(o.plan_mode == RUN_PLAN_AUTO && o.plan.peers == 1 && o.plan.groups == 16 && o.plan.uplink_streams == 1);
	char *pl[] = { "run", "--plan", "map", "--plan-peers", "2", "--plan-groups", "8", "--uplink-streams", "4", NULL };
	CHECK(run_opts_parse(9, pl, &o, err) == 0);
	CHECK(o.plan_mode == RUN_PLAN_MAP && o.plan.peers == 2 && o.plan.groups == 8 && o.plan.uplink_streams == 4);
	char *pl_all[] = { "run", "--plan", "all", NULL };
	CHECK(run_opts_parse(3, pl_all, &o, err) == 0 && o.plan_mode == RUN_PLAN_ALL);
	static const char *const plan_bad[][2] = { { "--plan", "Map" }, { "--plan", "" }, { "--plan", "map;rm" },
						   { "--plan-peers", "0" }, { "--plan-peers", "65" },
						   { "--plan-groups", "-1" }, { "--plan-groups", "1e3" },
						   { "--uplink-streams", "0" }, { "--uplink-streams", "4097" },
						   { "--uplink-streams", "2x" } };
	for (size_t i = 0; i < sizeof plan_bad / sizeof plan_bad[0]; i++) {
		char *argv_bad[] = { "run", (char *)plan_bad[i][0], (char *)plan_bad[i][1], NULL };

		CHECK(run_opts_parse(3, argv_bad, &o, err) == FP_EUSAGE && strstr(err, plan_bad[i][0]));
	}
	char *p2p_plain[] = { "p2p", NULL };
	CHECK(p2p_opts_parse(1, p2p_plain, &po, err) == 0);
	CHECK(po.npaths == 1);
	CHECK(!strcmp(po.paths[0], "mpi"));
}

/* opts_parse's test groups: each records the last option it took, by its own code */
struct took {
	int val, n, finished;
	const char *arg;
};

static int took_take(void *ctx, int val, const char *arg, char *e)
{
	struct took *t = ctx;

	(void)e;
	t->val = val;
	t->arg = arg;
	t->n++;
	return 0;
}

static int took_finish(void *ctx, char *e)
{
	(void)e;
	((struct took *)ctx)->finished = 1;
	return 0;
}

/* two groups with the same codes: each option reaches the group that declared it */
static void test_opts_parse_groups(void)
{
	static const struct option a_lo[] = { { "alpha", required_argument, NULL, 1 }, { "flag", no_argument, NULL, 2 },
					      { NULL, 0, NULL, 0 } };
	static const struct option b_lo[] = { { "beta", required_argument, NULL, 1 }, { NULL, 0, NULL, 0 } };
	static const struct option dup_lo[] = { { "alpha", no_argument, NULL, 7 }, { NULL, 0, NULL, 0 } };
	struct took a = { 0 }, b = { 0 };
	struct opts_group g[2] = { { a_lo, "x:", took_take, took_finish, &a }, { b_lo, "y", took_take, NULL, &b } };
	char *ok[] = { "cmd", "--beta", "7", "--alpha=3", "-y", NULL };
	char *shorts[] = { "cmd", "-x", "5", NULL };
	char *unknown[] = { "cmd", "--gamma", NULL };
	char *novalue[] = { "cmd", "--alpha", NULL };
	char *help[] = { "cmd", "--flag", "-h", "--gamma", NULL };
	char *args[] = { "cmd", "in", "--flag", "out", NULL };
	int first = -1;

	CHECK_EQ(opts_parse(5, ok, g, 2, NULL, err), 0);
	CHECK(a.n == 1 && a.val == 1 && !strcmp(a.arg, "3") && a.finished);
	CHECK(b.n == 2 && b.val == 'y'); /* --beta 7 then -y, both b's */
	CHECK_EQ(opts_parse(3, shorts, g, 2, NULL, err), 0);
	CHECK(a.val == 'x' && !strcmp(a.arg, "5"));
	CHECK_EQ(opts_parse(2, unknown, g, 2, NULL, err), FP_EUSAGE);
	CHECK_HAS(err, "unknown option --gamma (see fabprobe cmd --help)");
	CHECK_EQ(opts_parse(2, novalue, g, 2, NULL, err), FP_EUSAGE);
	CHECK_HAS(err, "option --alpha needs a value");
	CHECK_EQ(opts_parse(4, help, g, 2, NULL, err), 1);
	CHECK_EQ(opts_parse(4, args, g, 2, NULL, err), FP_EUSAGE);
	CHECK_HAS(err, "unexpected argument 'in'");
	CHECK_EQ(opts_parse(4, args, g, 2, &first, err), 0);
	CHECK(first == 2 && !strcmp(args[first], "in") && !strcmp(args[first + 1], "out"));
	/* a name or a letter declared by two groups is refused, named */
	g[1].longopts = dup_lo;
	CHECK_EQ(opts_parse(1, ok, g, 2, NULL, err), FP_EUSAGE);
	CHECK_HAS(err, "--alpha is declared twice");
	g[1] = (struct opts_group){ b_lo, "x", took_take, NULL, &b };
	CHECK_EQ(opts_parse(1, ok, g, 2, NULL, err), FP_EUSAGE);
	CHECK_HAS(err, "-x is declared twice");
	g[1].shortopts = "h";
	CHECK_EQ(opts_parse(1, ok, g, 2, NULL, err), FP_EUSAGE);
	CHECK_HAS(err, "-h is declared twice");
}

static void test_estimate(void)
{
	struct p2p_opts o;

	parse("-l 8 -s none -n 1000 --lat-warmup 0 --lat-passes 1", &o);
	/* 1000 round trips of 2 x 10 µs (the 8 B on the wire ~0), both directions = 40 ms */
	CHECK_NEAR(p2p_pair_estimate(&o, 10, 1e6), 0.04, 1e-4);
	parse("-l 8 -s none -n 1000 --lat-warmup 0", &o);
	/* the same in the default two latency passes */
	CHECK_NEAR(p2p_pair_estimate(&o, 10, 1e6), 0.08, 1e-4);
	CHECK(parse("--lat-passes 0", &o) == FP_EUSAGE && strstr(err, "--lat-passes"));
	CHECK(parse("--lat-passes 5", &o) == FP_EUSAGE && parse("--lat-passes x", &o) == FP_EUSAGE);
	CHECK(parse("--lat-passes 4", &o) == 0 && o.lat_passes == 4);
	parse("-l none -s 1M --window 10 --bw-iters 4 --bw-warmup 1", &o);
	/* 4 timed windows of 10 MiB and a warm-up of two (two windows that agree), at 1 GB/s,
	 * both directions, latency ~0 */
	CHECK_NEAR(p2p_pair_estimate(&o, 0, 1), 2 * 6 * 10 * 1048576 / 1e9, 1e-6);
	/* a warm-up that never converges stops at its budget: the deadline allows for it */
	CHECK(p2p_default_timeout(&o) > p2p_pair_estimate(&o, 100, 0.125) + 2 * o.bw_warmup_time);
	CHECK(o.bw_warmup_time == 2 && o.bw_tolerance == 0.05);
	parse("-l none -s 1M --bw-tolerance 2.5% --bw-warmup-time 0.5", &o);
	CHECK(o.bw_tolerance == 0.025 && o.bw_warmup_time == 0.5);
	CHECK(p2p_default_timeout(&o) > p2p_pair_estimate(&o, 100, 0.125));
	/* a plan that cannot end: 1 GiB messages in windows of 4096 would give 58 hours; capped */
	parse("-s 1G -W 4096", &o);
	CHECK(p2p_pair_estimate(&o, 100, 0.125) > 3600);
	CHECK_NEAR(p2p_default_timeout(&o), 3600, 0);
	CHECK(parse("-s 1G -W 4096 -t 86400", &o) == 0 && o.pair_timeout == 86400); /* -t says more */
}

/* an option given twice is named as the option, whatever its value looks like */
static void test_given_twice_named(void)
{
	struct p2p_opts o;

	CHECK_EQ(parse("-n 50 -n -3", &o), FP_EUSAGE);
	CHECK_HAS(err, "option -n given twice");
	CHECK_EQ(parse("--lat-iters 50 --lat-iters=-3", &o), FP_EUSAGE);
	CHECK_HAS(err, "option --lat-iters=-3 given twice");
	CHECK_EQ(parse("-p tcp:eth0 -p -x", &o), FP_EUSAGE);
	CHECK_HAS(err, "option -p given twice");
}

int main(void)
{
	RUN(test_sizes);
	RUN(test_integers_and_seconds);
	RUN(test_size_lists);
	RUN(test_names);
	RUN(test_opts_parse_groups);
	RUN(test_p2p_defaults_and_merge);
	RUN(test_p2p_rejects);
	RUN(test_run_options);
	RUN(test_estimate);
	RUN(test_given_twice_named);
	CHECK_EXIT();
}
