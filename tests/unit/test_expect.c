/* Expectations: the key = value parser (good files, and bad ones refused with file, line and
 * key), the defaults, and a run judged by them (the most specific rule judges each row;
 * unknown line rates are not judged; node rules). */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/log.h"
#include "fabric/judge/accept.h"
#include "fabric/judge/expect.h"
#include "fabric/io/rundir.h"

static char tmp[] = "/tmp/fp-exp-XXXXXX";

static int parse_text(const char *text, struct exp_set *s, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = exp_parse(f, "spec.conf", s, err);

	fclose(f);
	return rc;
}

static void test_parse_good(void)
{
	struct exp_set s;
	char err[EXPECT_ERR_MAX] = "";
	const char *text = "# acceptance of rack 12\n"
			   "\n"
			   "infiniband.min_pct_line_rate = 92     # NDR\n"
			   "ethernet.min_pct_line_rate.spine=15\n"
			   "  max_lat_us.leaf = 2.5\n"
			   "nccl.min_allreduce_busbw_GBps = 40 at 64M\n"
			   "min_allreduce_busbw_GBps = 1\n"
			   "nodes = 16\n"
			   "gpus_per_node = 8\n"
			   "infiniband.nics_per_node = 8\n"
			   "infiniband.nic_rate_Gbps = 400\n";

	CHECK(parse_text(text, &s, err) == 0);
	CHECK_STR(err, "");
	CHECK(s.n == 9);
	if (s.n != 9) {
		exp_free(&s);
		return;
	}
	CHECK(s.r[0].what == EXP_MIN_PCT_LINE_RATE && !strcmp(s.r[0].scope, "infiniband") && s.r[0].value == 92);
	CHECK(!strcmp(s.r[1].tier, "spine") && !strcmp(s.r[1].scope, "ethernet") && s.r[1].value == 15);
	CHECK(s.r[2].what == EXP_MAX_LAT && !s.r[2].scope[0] && !strcmp(s.r[2].tier, "leaf") && s.r[2].value == 2.5);
	CHECK(s.r[3].what == EXP_MIN_ALLREDUCE && s.r[3].size == 64LL << 20 && !strcmp(s.r[3].scope, "nccl"));
	CHECK(s.r[4].size == 0);
	CHECK_STR(s.r[5].from, "spec.conf:8");
	CHECK(s.r[8].what == EXP_NIC_RATE && s.r[8].value == 400);
	/* defaults fill only the kinds the file leaves out: roce (ethernet has a spine rule) */
	CHECK(exp_defaults(&s) == 0);
	CHECK(s.n == 10);
	CHECK(!strcmp(s.r[9].scope, "roce") && s.r[9].value == 90 && !strcmp(s.r[9].from, "default"));
	exp_free(&s);
	CHECK(parse_text("nodes = 2\n", &s, err) == 0 && exp_defaults(&s) == 0 && s.n == 4);
	CHECK(!strcmp(s.r[3].scope, "ethernet") && s.r[3].value == 80 && !strcmp(s.r[3].key, "ethernet.min_pct_line_rate"));
	exp_free(&s);
}

static void test_parse_bad(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "nodes = 8\nbogus = 3\n", "spec.conf:2: key 'bogus': unknown" },
		{ "min_pct_line_rate = 120\n", "spec.conf:1: key 'min_pct_line_rate': 120 is not a percentage" },
		{ "fddi.min_bw_GBps = 1\n", "spec.conf:1: key 'fddi.min_bw_GBps': unknown scope 'fddi'" },
		{ "nics_per_node = 8\n", "spec.conf:1: key 'nics_per_node': needs a NIC kind" },
		{ "ethernet.nodes = 8\n", "spec.conf:1: key 'ethernet.nodes': takes no scope" },
		{ "nodes.leaf = 8\n", "spec.conf:1: key 'nodes.leaf': takes no tier" },
		{ "max_lat_us.rack = 8\n", "spec.conf:1: key 'max_lat_us.rack': unknown tier 'rack'" },
		{ "\n\nmax_lat_us = fast\n", "spec.conf:3: key 'max_lat_us': 'fast' is not a non-negative number" },
		{ "max_lat_us = 2 us\n", "spec.conf:1: key 'max_lat_us': unexpected 'us' after the value" },
		{ "nodes = 7.5\n", "spec.conf:1: key 'nodes': '7.5' is not a whole number" },
		{ "nodes = -1\n", "spec.conf:1: key 'nodes': '-1' is not a non-negative number" },
		{ "nodes =\n", "spec.conf:1: key 'nodes': no value" },
		{ "nodes 8\n", "spec.conf:1: expected 'key = value'" },
		{ "= 8\n", "spec.conf:1: a value without a key" },
		{ "min_allreduce_busbw_GBps = 4 at lots\n", "spec.conf:1: key 'min_allreduce_busbw_GBps': 'lots' after 'at'" },
		{ "ethernet.min_pct_line_rate = 80\nethernet.min_pct_line_rate = 70\n",
		  "spec.conf:2: key 'ethernet.min_pct_line_rate': given twice (first at spec.conf:1)" },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct exp_set s;
		char err[EXPECT_ERR_MAX] = "";

		CHECK(parse_text(bad[i].text, &s, err) == FP_EUSAGE);
		CHECK(s.n == 0 && s.r == NULL);
		if (strncmp(err, bad[i].want, strlen(bad[i].want))) {
			check_failed_++;
			printf("#   case %zu: '%s', expected it to start with '%s'\n", i, err, bad[i].want);
		}
	}
	struct exp_set s;
	char err[EXPECT_ERR_MAX];
	CHECK(exp_parse_file("/nonexistent/spec.conf", &s, err) == FP_EUSAGE);
	CHECK(strstr(err, "/nonexistent/spec.conf: No such file") != NULL);
}

/* ---------------------------------------------------------------- judging a run */

/* Line ends and files that are not what they seem: a CR-only file kept only its first line
 * and passed; a byte order mark made the first key invisible; /dev/zero ate memory; a FIFO
 * with no writer must not block. */
static void test_parse_hostile_files(void)
{
	struct exp_set s;
	char err[EXPECT_ERR_MAX] = "", fifo[64];
	char *big;

	CHECK(parse_text("nodes = 4\rgpus_per_node = 8\rmax_lat_us = 3\r", &s, err) == 0);
	CHECK(s.n == 3);
	if (s.n == 3)
		CHECK_STR(s.r[2].from, "spec.conf:3");
	exp_free(&s);
	CHECK(parse_text("nodes = 4\r\ngpus_per_node = 8\r\n\r\nbogus = 1\r\n", &s, err) == FP_EUSAGE);
	CHECK(strstr(err, "spec.conf:4:") != NULL); /* CRLF: one line end each, the blank line counted */
	CHECK(parse_text("\xef\xbb\xbfnodes = 4\n", &s, err) == 0);
	CHECK(s.n == 1 && s.r[0].what == EXP_NODES);
	exp_free(&s);
	CHECK(exp_parse_file("/dev/zero", &s, err) == FP_EUSAGE);
	CHECK(strstr(err, "not a regular file or a pipe") != NULL);
	big = malloc(EXPECT_BYTES_MAX + 2);
	if (big) {
		memset(big, '#', EXPECT_BYTES_MAX + 1);
		big[EXPECT_BYTES_MAX + 1] = 0;
		CHECK(parse_text(big, &s, err) == FP_EUSAGE);
		CHECK(strstr(err, "more than") != NULL);
		free(big);
	}
	{
		static const char nul[] = "nodes = 4\nx\0y = 1\n";
		FILE *f = fmemopen((void *)nul, sizeof nul - 1, "r");

		CHECK(exp_parse(f, "spec.conf", &s, err) == FP_EUSAGE);
		CHECK(strstr(err, "spec.conf:2: a NUL byte") != NULL);
		fclose(f);
	}
	snprintf(fifo, sizeof fifo, "%s/fifo", tmp);
	CHECK(mkfifo(fifo, 0600) == 0);
	alarm(10); /* a hang fails the test instead of holding make check */
	CHECK(exp_parse_file(fifo, &s, err) == 0 && s.n == 0); /* no writer: an empty spec, at once */
	alarm(0);
	exp_free(&s);
	unlink(fifo);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

struct seen {
	char fails[1024];
	int judged, not_judged;
};

static void seen_row(void *ctx, const struct acc_row *r)
{
	struct seen *s = ctx;

	if (r->pass < 0) {
		s->not_judged++;
		return;
	}
	s->judged++;
	if (!r->pass)
		snprintf(s->fails + strlen(s->fails), sizeof s->fails - strlen(s->fails), "%s:%s>%s:%s ", r->rule->key,
			 r->src, r->dst, r->metric);
}

/* a, b on leaf00, c on leaf01; TCP at 10 Gbit/s. a-b reach 92%, a-c 19% (the uplink), c->b
 * timed out; b's link runs at 5%... only towards a; mpi rows have no line rate. */
static void test_judge(void)
{
	char dir[256], err[RUNDIR_ERR_MAX];
	struct rundir rd;
	struct exp_set s;
	struct seen seen = { "", 0, 0 };
	const char *p2p =
		"run_id,path,kind,src_host,dst_host,src_dev,dst_dev,line_rate_Gbps,size_B,lat_us_min,lat_us_p50,bw_GBps,status\n"
		"r,tcp:eth0,ethernet,a,b,eth0,eth0,10.0,8,3.0,3.5,,ok\n"
		"r,tcp:eth0,ethernet,a,b,eth0,eth0,10.0,1048576,,,1.15,ok\n"
		"r,tcp:eth0,ethernet,b,a,eth0,eth0,10.0,8,3.0,3.4,,ok\n"
		"r,tcp:eth0,ethernet,b,a,eth0,eth0,10.0,1048576,,,0.0625,ok\n"
		"r,tcp:eth0,ethernet,a,c,eth0,eth0,10.0,8,55,58,,ok\n"
		"r,tcp:eth0,ethernet,a,c,eth0,eth0,10.0,1048576,,,0.239,ok\n"
		"r,tcp:eth0,ethernet,c,b,eth0,eth0,10.0,8,,,,timeout\n"
		"r,tcp:eth0,ethernet,c,b,eth0,eth0,10.0,1048576,,,,timeout\n"
		"r,mpi,,a,b,0,1,,8,5,6,,ok\n"
		"r,mpi,,a,b,0,1,,1048576,,,1.1,ok\n";
	const char *rules = "ethernet.min_pct_line_rate.leaf = 60\n"
			    "ethernet.min_pct_line_rate.spine = 15\n"
			    "max_lat_us.leaf = 4\n"
			    "mpi.min_bw_GBps = 1\n"
			    "nodes = 3\n"
			    "gpus_per_node = 1\n";

	snprintf(dir, sizeof dir, "%s/run", tmp);
	mkdir(dir, 0755);
	write_file(dir, "p2p.csv", p2p);
	write_file(dir, "topology.csv", "host,order,tier0,tier1,offset_us\na,0,leaf00,spine00,0\nb,1,leaf00,spine00,0\n"
					"c,2,leaf01,spine00,0\n");
	write_file(dir, "nodes.csv", "run_id,host,gpus,nics\nr,a,1,1\nr,b,1,1\nr,c,0,1\n");
	CHECK(rundir_load(dir, &rd, err) == 0);
	CHECK(parse_text(rules, &s, err) == 0);
	CHECK(exp_defaults(&s) == 0); /* ethernet is covered: only infiniband and roce are added */
	CHECK(s.n == 8);
	CHECK(acc_evaluate(&rd, &s, seen_row, &seen) == 0);
	/* mpi a->b: 6 us under one leaf, judged by the path-less max_lat_us.leaf; b->a's 5% of the
	 * line rate under the leaf rule, c->b (a timeout) under the spine one; c has no GPU */
	CHECK_STR(seen.fails, "max_lat_us.leaf:a>b:lat_us_p50 ethernet.min_pct_line_rate.leaf:b>a:pct_line_rate "
			      "ethernet.min_pct_line_rate.spine:c>b:pct_line_rate gpus_per_node:c>:gpus ");
	/* 4 TCP bandwidth rows (mpi has no kind: no ethernet rule), mpi's bandwidth, 3 leaf
	 * latencies (c-b meets at the spine, which no latency rule covers), nodes, 3 GPU counts */
	CHECK(seen.judged == 4 + 1 + 3 + 1 + 3);
	CHECK(seen.not_judged == 0);
	exp_free(&s);
	/* a warn band: a-b's 92% and b->a's 5% pass a 5% floor, both under 95: the rule warns,
	 * fails nothing, and acceptance.csv marks the two rows */
	struct acc_report rep;
	char csv[4096] = "", out[2048] = "";
	FILE *f = fmemopen(csv, sizeof csv - 1, "w"), *o = fmemopen(out, sizeof out - 1, "w");

	CHECK(parse_text("ethernet.min_pct_line_rate.leaf = 5 warn 95\n", &s, err) == 0);
	CHECK(acc_report_init(&rep, &s, f) == 0);
	CHECK(acc_evaluate(&rd, &s, acc_report_row, &rep) == 0);
	acc_report_print(o, &rep);
	fclose(f);
	fclose(o);
	CHECK_EQ(acc_report_failed_rules(&rep), 0);
	CHECK_EQ(acc_report_warned_rules(&rep), 1);
	CHECK_HAS(out, "acceptance: 1 rule, 0 failed, 1 in the warn band\n");
	CHECK_HAS(out, "  WARN ethernet.min_pct_line_rate.leaf >= 5 warn 95 (spec.conf:1): 2 passed, 2 of them in the warn band (past 95)\n");
	CHECK_HAS(csv, ",pass,warn,note\n");
	CHECK_HAS(csv, ">= 5 (warn 95),1,1,");
	acc_report_free(&rep);
	exp_free(&s);
	rundir_free(&rd);
}

/* warn bands: parsed on either side of the comparison, refused on the failing side or on a
 * count; a figure between the edges passes and warns */
static void test_warn_band(void)
{
	struct exp_set s;
	char err[EXPECT_ERR_MAX] = "";
	static const char *const bad[][2] = {
		{ "infiniband.min_pct_line_rate = 92 warn 85\n", "warn 85 is not on the passing side of 92" },
		{ "max_lat_us.leaf = 2 warn 3\n", "warn 3 is not on the passing side of 2" },
		{ "nodes = 16 warn 15\n", "a count takes no warn band" },
		{ "min_pct_line_rate = 80 warn 101\n", "warn 101 is not a percentage" },
		{ "min_bw_GBps = 40 warn x\n", "'x' after 'warn' is not a non-negative number" },
		{ "min_bw_GBps = 40 warn 45 junk\n", "unexpected 'junk' after the value (expected 'X [warn Y]')" },
	};

	CHECK_EQ(parse_text("infiniband.min_pct_line_rate = 85 warn 92\nmax_lat_us.leaf = 3 warn 2\n"
			    "nccl.min_allreduce_busbw_GBps = 300 warn 360 at 1G\nmin_bw_GBps = 10\n", &s, err), 0);
	CHECK_EQ(s.n, 4);
	if (s.n == 4) {
		CHECK(s.r[0].warn == 92);
		CHECK(s.r[1].warn == 2);
		CHECK(s.r[2].warn == 360);
		CHECK(s.r[2].size == 1LL << 30);
		CHECK(isnan(s.r[3].warn));
		CHECK(exp_meets(&s.r[0], 90) && exp_warns(&s.r[0], 90));
		CHECK(exp_meets(&s.r[0], 92) && !exp_warns(&s.r[0], 92));
		CHECK(!exp_meets(&s.r[0], 84.9) && !exp_warns(&s.r[0], 84.9));
		CHECK(exp_warns(&s.r[1], 2.5) && !exp_warns(&s.r[1], 1.9) && !exp_meets(&s.r[1], 3.1));
		CHECK(!exp_warns(&s.r[3], 10.5));
	}
	exp_free(&s);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_EQ(parse_text(bad[i][0], &s, err), FP_EUSAGE);
		CHECK_HAS(err, bad[i][1]);
	}
}

/* presets: taken by a `preset =` line or --expect preset:NAME; the file's own rule of the same
 * key wins wherever it stands; two presets of one key clash; unknown names refused */
static void test_presets(void)
{
	struct exp_set s;
	char err[EXPECT_ERR_MAX] = "";

	CHECK_EQ(parse_text("infiniband.min_pct_line_rate = 95\npreset = ndr\npreset = hgx-h100\n", &s, err), 0);
	CHECK_EQ(s.n, 3);
	for (int i = 0; i < s.n; i++) {
		if (s.r[i].what == EXP_MIN_PCT_LINE_RATE) {
			CHECK(s.r[i].value == 95); /* the file's, before the preset */
			CHECK_STR(s.r[i].from, "spec.conf:1");
		} else if (s.r[i].what == EXP_NIC_RATE) {
			CHECK(s.r[i].value == 400);
			CHECK_STR(s.r[i].from, "preset ndr:1");
		} else {
			CHECK_EQ(s.r[i].what, EXP_GPUS);
			CHECK(s.r[i].value == 8);
		}
	}
	exp_free(&s);
	CHECK_EQ(parse_text("preset = roce-400\nroce.min_pct_line_rate = 80 warn 88\n", &s, err), 0);
	CHECK_EQ(s.n, 2);
	if (s.n == 2) {
		CHECK(s.r[1].value == 80);
		CHECK(s.r[1].warn == 88); /* the file's after the preset: replaced in place */
	}
	exp_free(&s);
	CHECK_EQ(parse_text("preset = hgx-h100\npreset = gb200-nvl72\n", &s, err), FP_EUSAGE);
	CHECK_HAS(err, "spec.conf:2: preset 'gb200-nvl72': preset gb200-nvl72:1: key 'gpus_per_node': given twice (first at preset hgx-h100:1)");
	CHECK_EQ(parse_text("preset = ndr\npreset = ndr\n", &s, err), FP_EUSAGE);
	CHECK_HAS(err, "spec.conf:2: preset 'ndr' given twice");
	CHECK_EQ(parse_text("preset = xdr\n", &s, err), FP_EUSAGE);
	CHECK_HAS(err, "spec.conf:1: unknown preset 'xdr'");
	CHECK_EQ(parse_text("nodes = 4\nnodes = 5\n", &s, err), FP_EUSAGE); /* still refused */
	CHECK_EQ(exp_parse_file("preset:hdr,eth-25", &s, err), 0);
	CHECK_EQ(s.n, 4);
	exp_free(&s);
	CHECK_EQ(exp_parse_file("preset:", &s, err), FP_EUSAGE);
	CHECK_HAS(err, "names no preset");
	CHECK_EQ(exp_parse_file("preset:ndr,bogus", &s, err), FP_EUSAGE);
	CHECK_HAS(err, "--expect:2: unknown preset 'bogus'");
	/* every preset parses alone */
	for (int i = 0; exp_presets[i].name; i++) {
		char arg[64];

		snprintf(arg, sizeof arg, "preset:%s", exp_presets[i].name);
		CHECK_EQ(exp_parse_file(arg, &s, err), 0);
		CHECK(s.n >= 1);
		exp_free(&s);
	}
}

int main(void)
{
	CHECK(mkdtemp(tmp) != NULL);
	RUN(test_warn_band);
	RUN(test_presets);
	RUN(test_parse_good);
	RUN(test_parse_bad);
	RUN(test_parse_hostile_files);
	RUN(test_judge);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
	CHECK(system(cmd) == 0);
	CHECK_EXIT();
}
