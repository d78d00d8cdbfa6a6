/* Emitters on hand-made trees: three tiers, Slurm block sizes that respect spine boundaries,
 * a root over parts no measurement connects, refusal of names a format cannot hold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/log.h"
#include "core/rjson.h"
#include "fabric/emit/emit.h"
#include "fabric/emit/topo_csv.h"

#define N 12
static const char *hosts[N] = { "n01", "n02", "n03", "n04", "n05", "n06",
				"n07", "n08", "n09", "n10", "n11", "n12" };
static int group[3 * N];
static char buf[16384], err[EMIT_ERR_MAX];

/* 6 leaves of 2 nodes; leaves_in_spine0 of them under spine 0, the rest under spine 1 */
static struct infer_result tree(int leaves_in_spine0, int ntiers)
{
	static int order[N];
	struct infer_result r = { .n = N, .ntiers = ntiers, .group = group, .order = order };

	for (int i = 0; i < N; i++) {
		order[i] = i;
		group[i] = i / 2;
		group[N + i] = i / 2 < leaves_in_spine0 ? 0 : 1;
		group[2 * N + i] = 0;
	}
	r.ngroups[0] = 6;
	r.ngroups[1] = 2;
	r.ngroups[2] = 1;
	return r;
}

static const char *render(int (*fn)(FILE *, const struct emit_topo *, char *), struct emit_topo *t, int *rc)
{
	FILE *f = fmemopen(buf, sizeof buf, "w");

	*rc = fn(f, t, err);
	fclose(f);
	return buf;
}

static void test_three_tiers_tree_and_blocks(void)
{
	struct infer_result r = tree(4, 3);
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL };
	int rc;

	render(emit_slurm_tree, &t, &rc);
	CHECK(rc == 0);
	CHECK(strstr(buf, "SwitchName=leaf00 Nodes=n[01-02]\n") != NULL);
	CHECK(strstr(buf, "SwitchName=spine00 Switches=leaf[00-03]\n") != NULL);
	CHECK(strstr(buf, "SwitchName=spine01 Switches=leaf[04-05]\n") != NULL);
	CHECK(strstr(buf, "SwitchName=core00 Switches=spine[00-01]\n") != NULL);
	CHECK(strstr(buf, "root") == NULL);
	render(emit_slurm_block, &t, &rc);
	/* pairs (0,1)(2,3)(4,5) and quads (0-3)(4-5) each stay under one spine */
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "BlockName=b05 Nodes=n[11-12]\nBlockSizes=2,4,8\n");

	r = tree(3, 3); /* 3 + 3 leaves: a pair (2,3) would straddle the spines */
	render(emit_slurm_block, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "BlockSizes=2\n");
	render(emit_slurm_yaml, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "    block_sizes:\n      - 2\n    blocks:\n");
}

static void test_disconnected_parts_get_one_root(void)
{
	struct infer_result r = tree(4, 2); /* the top tier has two groups */
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL };
	int rc;

	render(emit_slurm_tree, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "SwitchName=root Switches=spine[00-01]\n");
}

static void test_names_refused(void)
{
	struct infer_result r = tree(4, 3);
	const char *bad[N];
	struct emit_topo t = { N, bad, &r, 2, "fabprobe", "test", NULL, NULL, NULL };
	int rc;

	for (int i = 0; i < N; i++)
		bad[i] = hosts[i];
	bad[3] = "GPU04";
	render(emit_k8s_nodes, &t, &rc);
	CHECK_EQ(rc, FP_EUSAGE);
	CHECK_HAS(err, "GPU04");
	render(emit_slurm_tree, &t, &rc);
	CHECK(rc == 0); /* Slurm takes upper case */
	bad[3] = "n 04";
	render(emit_slurm_tree, &t, &rc);
	CHECK_EQ(rc, FP_EUSAGE);
	CHECK_HAS(err, "n 04");
	render(emit_ompi_hostfile, &t, &rc);
	CHECK(rc == FP_EUSAGE);
	bad[3] = "n04:1";
	render(emit_mpich_machinefile, &t, &rc);
	CHECK(rc == FP_EUSAGE);
	t.hosts = hosts;
	t.label_prefix = "Not.Valid";
	render(emit_k8s_label_cmds, &t, &rc);
	CHECK_EQ(rc, FP_EUSAGE);
	CHECK_HAS(err, "Not.Valid");
}

/* injection: a newline in the input path or run id (the comment header) never
 * becomes a line of its own in any generated file */
static void test_comment_header_cannot_inject_lines(void)
{
	struct infer_result r = tree(4, 3);
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe",
			       "fabprobe topo, from x\nSwitchName=evil Nodes=n01\rkubectl delete node n01\n.csv", NULL, NULL, NULL };

	for (int i = 0; emit_registry[i]; i++) {
		int rc;

		render(emit_registry[i]->write, &t, &rc);
		CHECK(rc == 0);
		if (strstr(buf, "\nSwitchName=evil") || strstr(buf, "\nkubectl delete") || strchr(buf, '\r'))
			printf("#   %s: the header started a line of its own\n", emit_registry[i]->name);
		CHECK(!strstr(buf, "\nSwitchName=evil") && !strstr(buf, "\nkubectl delete") && !strchr(buf, '\r'));
		CHECK(!t.how || !strstr(buf, "# fabprobe") || strstr(buf, "x\\x0aSwitchName=evil"));
	}
}

/* names from other tools: a name a format cannot hold is refused, per format, with the reason;
 * no file is ever written with it; a name twice is an input error */
static void test_name_policy_per_format(void)
{
	static const struct { const char *name; int hostfile, slurm, k8s; const char *why; } cases[] = {
		{ "n04", 1, 1, 1, NULL },
		{ "N04", 1, 1, 0, "Kubernetes" },
		{ "host/r3", 1, 1, 0, "Kubernetes" },
		{ "a#b", 0, 0, 0, "'#' starts a comment" },
		{ "a\"b", 0, 0, 0, "quotes" },
		{ "a\\\"b", 0, 0, 0, "quotes" },
		{ "a=b", 0, 0, 0, "'='" },
		{ "a,b", 0, 0, 0, "','" },
		{ "a[1]", 0, 0, 0, "hostlist ranges" },
		{ "a:1", 0, 0, 0, "':'" },
		{ "a\tb", 0, 0, 0, "control character" },
		{ "a\nb", 0, 0, 0, "control character" },
		{ "a\x7f", 0, 0, 0, "control character" },
		{ "caf\xc3\xa9", 0, 0, 0, "non-ASCII" },
		{ "", 0, 0, 0, "empty" },
	};
	char why[EMIT_ERR_MAX];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int h = emit_name_check(EMIT_FMT_HOSTFILE, cases[i].name, why) == 0;
		int s = emit_name_check(EMIT_FMT_SLURM, cases[i].name, why) == 0;
		int k = emit_name_check(EMIT_FMT_K8S, cases[i].name, why) == 0;

		if (h != cases[i].hostfile || s != cases[i].slurm || k != cases[i].k8s)
			printf("#   case %zu: host file %d, Slurm %d, k8s %d\n", i, h, s, k);
		CHECK(h == cases[i].hostfile && s == cases[i].slurm && k == cases[i].k8s);
		if (cases[i].why && !cases[i].slurm) {
			emit_name_check(EMIT_FMT_SLURM, cases[i].name, why);
			CHECK(strstr(why, cases[i].why) && !strchr(why, '\n') && !strchr(why, '\t'));
		}
	}

	/* the emitters refuse them: Slurm would read Nodes=a#b,n[…] as Nodes=a */
	struct infer_result r = tree(4, 3);
	const char *bad[N];
	struct emit_topo t = { N, bad, &r, 1, "fabprobe", "test", NULL, NULL, NULL };
	int rc;

	memcpy(bad, hosts, sizeof bad);
	bad[0] = "a#b";
	render(emit_slurm_tree, &t, &rc);
	CHECK(rc == FP_EUSAGE && strstr(err, "a#b"));
	render(emit_slurm_block, &t, &rc);
	CHECK(rc == FP_EUSAGE);
	bad[0] = "a\"b";
	render(emit_slurm_yaml, &t, &rc);
	CHECK(rc == FP_EUSAGE && strstr(err, "a\\x22b"));
	bad[0] = "n02"; /* twice */
	for (int i = 0; emit_registry[i]; i++) {
		render(emit_registry[i]->write, &t, &rc);
		CHECK(rc == FP_EUSAGE && strstr(err, "appears twice"));
	}
}

static void test_name_rules(void)
{
	CHECK(emit_k8s_name_ok("node01.rack2.example.com"));
	CHECK(!emit_k8s_name_ok("Node01"));
	CHECK(!emit_k8s_name_ok("-node"));
	CHECK(!emit_k8s_name_ok("node-"));
	CHECK(!emit_k8s_name_ok("a..b"));
	CHECK(!emit_k8s_name_ok(""));
	CHECK(emit_label_prefix_ok("fabprobe"));
	CHECK(!emit_label_prefix_ok("fab_probe"));
}

static void test_group_names_widen(void)
{
	struct infer_result r = tree(4, 3);
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL };
	char name[EMIT_NAME_MAX];

	r.ngroups[0] = 150;
	emit_group_name(&t, 0, 7, name);
	CHECK_STR(name, "leaf007"); /* zero-padded to the widest, so hostlists compress */
	emit_group_name(&t, 2, 0, name);
	CHECK_STR(name, "core00");
}

/* tiers.csv's and suspects.csv's switch kind: above the third tier it keeps its number (it was
 * cut at the first digit of the group name, so every tier above core read "tier") */
static void test_tier_kinds(void)
{
	struct infer_result r = tree(4, 3);
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL };
	char name[EMIT_NAME_MAX];

	emit_tier_kind(0, name);
	CHECK_STR(name, "leaf");
	emit_tier_kind(2, name);
	CHECK_STR(name, "core");
	emit_tier_kind(3, name);
	CHECK_STR(name, "tier3");
	emit_tier_kind(11, name);
	CHECK_STR(name, "tier11");
	r.ngroups[3] = 2;
	emit_group_name(&t, 3, 1, name);
	CHECK_STR(name, "tier3-01");
}

/* summary.json's map (topo_json_map) of hosts with every character JSON has a meaning for,
 * a line separator and a control byte: it parses (the project's one JSON reader), and each
 * host comes back unchanged, in the groups and in a finding that held */
static void test_json_map_hostile_names(void)
{
	static const char *evil[N] = { "n\"01", "n\\02", "n\n03", "n</script>04", "n\xe2\x80\xa8" "05", "n\x01" "06",
				       "n07", "n08", "n09", "n10", "n11", "n12" };
	struct infer_result r = tree(4, 3);
	struct suspect held = { .kind = SUSPECT_SLOW_LINK, .a = 0, .b = 4, .tier = 0, .state = SUSP_HELD,
				.value = 12, .expected = 10, .extra = NAN, .value2 = 12.5, .expected2 = 10, .extra2 = NAN };
	struct susp_list l = { .n = 1, .cap = 1, .s = &held }, none = { 0 };
	struct emit_topo t = { N, evil, &r, 1, "fabprobe", "test", &l, &none, NULL };
	struct rjson v;
	char *text = NULL, perr[128];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	r.noise = 0.02;
	topo_json_map(f, &t, 100, 2);
	fclose(f);
	CHECK(rjson_parse(text, len, &v, perr, sizeof perr) == 0);
	const struct rjson *leaf = rjson_get(rjson_get(&v, "tier") ? &rjson_get(&v, "tier")->item[0] : NULL, "members");
	const struct rjson *fnd = rjson_get(&v, "findings");
	int seen = 0;

	CHECK(leaf && leaf->n == 6);
	for (int g = 0; leaf && g < leaf->n; g++)
		for (int k = 0; k < leaf->item[g].n; k++)
			for (int h = 0; h < N; h++)
				seen += !strcmp(rjson_str(&leaf->item[g].item[k]), evil[h]);
	CHECK_EQ(seen, N);
	CHECK(fnd && fnd->n == 1);
	if (fnd && fnd->n == 1) {
		const struct rjson *hs = rjson_get(&fnd->item[0], "hosts");

		CHECK(hs && hs->n == 2);
		if (hs && hs->n == 2) {
			CHECK_STR(rjson_str(&hs->item[0]), evil[0]);
			CHECK_STR(rjson_str(&hs->item[1]), evil[4]);
		}
		CHECK_STR(rjson_str(rjson_get(&fnd->item[0], "state")), "held");
		CHECK_STR(rjson_str(rjson_get(&fnd->item[0], "metric")), "latency_us");
	}
	rjson_free(&v);
	free(text);
}

int main(void)
{
	RUN(test_three_tiers_tree_and_blocks);
	RUN(test_disconnected_parts_get_one_root);
	RUN(test_names_refused);
	RUN(test_comment_header_cannot_inject_lines);
	RUN(test_name_policy_per_format);
	RUN(test_name_rules);
	RUN(test_group_names_widen);
	RUN(test_tier_kinds);
	RUN(test_json_map_hostile_names);
	CHECK_EXIT();
}
