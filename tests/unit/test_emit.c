/* Emitters on hand-made trees: three tiers, Slurm block sizes that respect spine boundaries,
 * a root over parts no measurement connects, refusal of names a format cannot hold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/log.h"
#include "core/jw.h"
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

static const char *render_h(int (*fn)(FILE *, const struct emit_health *, char *), const struct emit_health *h, int *rc)
{
	FILE *f = fmemopen(buf, sizeof buf, "w");

	err[0] = 0;
	*rc = fn(f, h, err);
	fclose(f);
	return buf;
}

static void test_three_tiers_tree_and_blocks(void)
{
	struct infer_result r = tree(4, 3);
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL, 0, NULL };
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
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL, 0, NULL };
	int rc;

	render(emit_slurm_tree, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "SwitchName=root Switches=spine[00-01]\n");
}

static void test_names_refused(void)
{
	struct infer_result r = tree(4, 3);
	const char *bad[N];
	struct emit_topo t = { N, bad, &r, 2, "fabprobe", "test", NULL, NULL, NULL, 0, NULL };
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
			       "fabprobe topo, from x\nSwitchName=evil Nodes=n01\rkubectl delete node n01\n.csv", NULL, NULL, NULL, 0, NULL };

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
	struct emit_topo t = { N, bad, &r, 1, "fabprobe", "test", NULL, NULL, NULL, 0, NULL };
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
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL, 0, NULL };
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
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL, 0, NULL };
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
	struct emit_topo t = { N, evil, &r, 1, "fabprobe", "test", &l, &none, NULL, 0, NULL };
	struct rjson v;
	char perr[128];
	struct jw j;

	r.noise = 0.02;
	CHECK_EQ(jw_init_mem(&j), 0);
	topo_json_map(&j, &t, 100);
	CHECK_EQ(jw_done(&j), 0);
	const char *text = jw_text(&j);
	CHECK(text && rjson_parse(text, strlen(text), &v, perr, sizeof perr) == 0);
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
	jw_free(&j);
}

/* topograph's graph JSON parses, each node's network_layers go leaf first with the tier labels
 * beside them; the model names every spine's leaves once and every node in its leaf's block */
static void test_topograph_forms(void)
{
	struct infer_result r = tree(4, 2);
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL, 1, NULL };
	struct rjson v;
	char perr[128];
	int rc;

	render(emit_topograph_graph, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK(rjson_parse(buf, strlen(buf), &v, perr, sizeof perr) == 0);
	const struct rjson *in = rjson_get(&v, "instances");

	CHECK(in && in->n == N);
	if (in && in->n == N) {
		const struct rjson *nl = rjson_get(&in->item[11], "network_layers");

		CHECK_STR(rjson_str(rjson_get(&in->item[11], "id")), "n12");
		CHECK(nl && nl->n == 2);
		if (nl && nl->n == 2) {
			CHECK_STR(rjson_str(&nl->item[0]), "leaf05");
			CHECK_STR(rjson_str(&nl->item[1]), "spine01");
		}
		CHECK_STR(rjson_str(rjson_get(rjson_get(&in->item[11], "labels"), "fabric.topograph.run/tier-1")), "spine01");
	}
	rjson_free(&v);
	render(emit_topograph_model, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "switches:\n  spine00:\n    switches:\n    - leaf00\n    - leaf01\n    - leaf02\n    - leaf03\n"
		       "  spine01:\n    switches:\n    - leaf04\n    - leaf05\nblocks:\n- switch: leaf00\n  nodes:\n"
		       "  - \"n01\"\n  - \"n02\"\n- switch: leaf01\n");
	hosts[3] = "n[04]"; /* a range to topograph: refused, never written */
	render(emit_topograph_model, &t, &rc);
	CHECK_EQ(rc, FP_EUSAGE);
	hosts[3] = "n04";
}

/* the actions: a drain line per failed node only, its reason the run's tag then the finding;
 * a reason with a quote, a newline and a non-ASCII byte stays one shell word on one line; a
 * name Slurm would read as a list is a comment, never a command; the health labels say pass or
 * fail per node, the taint only when asked for */
static void test_actions(void)
{
	const char *why[N] = { NULL };
	const char *names[N];
	struct emit_health h = { .n = N, .hosts = names, .why = why, .run_tag = "fabprobe r1", .how = "test\nrm -rf /",
				 .label_prefix = "fabprobe.io", .taint = 0 };
	int rc, lines = 0;

	memcpy(names, hosts, sizeof names);
	render_h(emit_drain_slurm, &h, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "nothing to drain");
	CHECK(strstr(buf, "\nnode ") == NULL);
	why[4] = "low_bw_node on tcp:eth0 (bw_ratio 0.1, expected 1); it's\nscontrol delete \xe2\x80\xa8";
	why[6] = "link_flap eth0 (carrier_changes +2)";
	names[6] = "n07,n08";
	render_h(emit_drain_slurm, &h, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "\nnode 'n05' 'fabprobe r1: low_bw_node on tcp:eth0 (bw_ratio 0.1, expected 1); it'\\''s?scontrol "
		       "delete ??" "?'\n");
	CHECK(strstr(buf, "node 'n07,n08'") == NULL);
	CHECK_HAS(buf, "# host name 'n07,n08' cannot be written");
	CHECK(strstr(buf, "\nrm -rf") == NULL);
	for (const char *p = buf; (p = strstr(p, "\nnode '")); p++)
		lines++;
	CHECK_EQ(lines, 1);
	/* names Slurm reads as every node, or scontrol as an option: comments, never commands */
	const char *const set[] = { "all", "ALL", "aLl", "-h", "--undrain" };
	for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
		char line[64];

		names[6] = set[i];
		render_h(emit_drain_slurm, &h, &rc);
		CHECK_EQ(rc, 0);
		snprintf(line, sizeof line, "\nnode '%s'", set[i]);
		CHECK(strstr(buf, line) == NULL);
		CHECK_HAS(buf, "cannot be written in a Slurm topology file");
		CHECK(emit_name_check(EMIT_FMT_HOSTFILE, set[i], err) == FP_EUSAGE);
	}
	CHECK(emit_name_check(EMIT_FMT_SLURM, "allx", err) == 0 && emit_name_check(EMIT_FMT_SLURM, "x-all", err) == 0);
	/* the script: each name resolved by Slurm to exactly one node of that name before it acts;
	 * undrain matches the whole run id ("fabprobe r1: ", never "fabprobe r12: "); no echo */
	CHECK_HAS(buf, "rec=$(scontrol show node -o \"$1\" 2>/dev/null) || return 1\n");
	CHECK_HAS(buf, "case $rec in \"NodeName=$1 \"*) return 0 ;; esac\n");
	CHECK_HAS(buf, "\t\"$run: \"*) ours=1 ;;\n");
	CHECK_HAS(buf, "\nrun='fabprobe r1'\n");
	CHECK(strstr(buf, "echo") == NULL);
	names[6] = hosts[6];
	render_h(emit_k8s_health, &h, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "  name: \"n05\"\n  labels:\n    \"fabprobe.io/health\": \"fail\"\n");
	CHECK_HAS(buf, "  name: \"n01\"\n  labels:\n    \"fabprobe.io/health\": \"pass\"\n");
	CHECK_HAS(buf, "\"fabprobe.io/finding\": \"link_flap eth0 (carrier_changes +2)\"");
	CHECK(strstr(buf, "taints") == NULL);
	h.taint = 1;
	render_h(emit_k8s_health, &h, &rc);
	CHECK_HAS(buf, "spec:\n  taints:\n  - key: \"fabprobe.io/health\"\n    value: \"fail\"\n    effect: \"NoSchedule\"\n");
	names[2] = "Upper";
	render_h(emit_k8s_health, &h, &rc);
	CHECK_EQ(rc, FP_EUSAGE);
	CHECK_HAS(err, "Upper");
}

/* NVLink domains: Slurm blocks one per domain in the map's order, each spine's padded with
 * empty placeholders to a power of two; the Kubernetes label; Kueue's domain level */
static void test_domain_blocks(void)
{
	static const char *const A = "7d1e53a4-2c3b-4f65-9d1c-0c1f2e3a4b5c.1", *const B = "c0ffee00-1234-4abc-8def-00112233aa01.1",
			     *const C = "5a5a5a5a-0f0f-4e4e-8d8d-123456789abc.1", *const D = "0badcafe-7777-4333-9222-fedcba987654.1",
			     *const E = "0badcafe-7777-4333-9222-fedcba987654.2";
	/* racks of 2 nodes, one per leaf: three under spine 0, two under spine 1, the last rack
	 * in no domain (down, or not NVLink) */
	const char *dom[N] = { A, A, B, B, C, C, D, D, E, E, NULL, "" };
	struct infer_result r = tree(3, 2);
	struct emit_topo t = { N, hosts, &r, 1, "fabprobe", "test", NULL, NULL, NULL, 0, dom };
	int rc;

	render(emit_slurm_block, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "# one block per NVLink domain (5), in the latency map's order: never from the leaves\n");
	CHECK_HAS(buf, "# 3 empty placeholder blocks keep each spine's domains aligned");
	CHECK_HAS(buf, "# 2 nodes in no NVLink domain are in no block\n");
	CHECK_HAS(buf, "BlockName=b00 Nodes=n[01-02]\nBlockName=b01 Nodes=n[03-04]\nBlockName=b02 Nodes=n[05-06]\n"
		       "BlockName=b03\nBlockName=b04 Nodes=n[07-08]\nBlockName=b05 Nodes=n[09-10]\nBlockName=b06\n"
		       "BlockName=b07\nBlockSizes=2,4,8\n");
	CHECK(strstr(buf, "n11") == NULL);
	render(emit_slurm_yaml, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "    block_sizes:\n      - 2\n      - 4\n      - 8\n    blocks:\n");
	CHECK_HAS(buf, "    - block: \"b03\"\n    - block: \"b04\"\n      nodes: \"n[07-08]\"\n");
	render(emit_k8s_label_cmds, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "kubectl label node 'n01' 'fabprobe/tier-0=leaf00' 'fabprobe/tier-1=spine00' "
		       "'fabprobe/nvlink-domain=7d1e53a4-2c3b-4f65-9d1c-0c1f2e3a4b5c.1' --overwrite\n");
	CHECK_HAS(buf, "kubectl label node 'n12' 'fabprobe/tier-0=leaf05' 'fabprobe/tier-1=spine01' --overwrite\n");
	render(emit_k8s_nodes, &t, &rc);
	CHECK_HAS(buf, "    \"fabprobe/nvlink-domain\": \"c0ffee00-1234-4abc-8def-00112233aa01.1\"\n");
	/* each domain inside a leaf: the domain level goes below every tier */
	render(emit_kueue, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK_HAS(buf, "apiVersion: kueue.x-k8s.io/v1beta2\n");
	CHECK_HAS(buf, "  levels:\n  - nodeLabel: \"fabprobe/tier-1\"\n  - nodeLabel: \"fabprobe/tier-0\"\n"
		       "  - nodeLabel: \"fabprobe/nvlink-domain\"\n  - nodeLabel: \"kubernetes.io/hostname\"\n");
	/* a domain across two leaves: the leaves are left out of Kueue's levels (not nested) */
	dom[2] = dom[3] = A;
	render(emit_kueue, &t, &rc);
	CHECK_HAS(buf, "  levels:\n  - nodeLabel: \"fabprobe/tier-1\"\n  - nodeLabel: \"fabprobe/nvlink-domain\"\n"
		       "  - nodeLabel: \"kubernetes.io/hostname\"\n");
	/* a domain that is no label value: the Kubernetes files are refused, naming it */
	dom[0] = "a b";
	render(emit_kueue, &t, &rc);
	CHECK_EQ(rc, FP_EUSAGE);
	CHECK_HAS(err, "n01: NVLink domain 'a b' is not a label value");
	/* two spines of two domains each: no placeholder needed, and the sizes stop at a spine's
	 * two blocks (an aggregate of four would join the spines) */
	{
		const char *four[N] = { A, A, B, B, NULL, NULL, C, C, D, D, NULL, NULL };

		t.domain = four;
		render(emit_slurm_block, &t, &rc);
		CHECK_EQ(rc, 0);
		CHECK(strstr(buf, "placeholder") == NULL);
		CHECK_HAS(buf, "BlockName=b03 Nodes=n[09-10]\nBlockSizes=2,4\n");
		t.domain = dom;
	}
	/* one spine: no placeholders; sizes up to the largest power of two of domains */
	dom[0] = A;
	r = tree(6, 2);
	render(emit_slurm_block, &t, &rc);
	CHECK_EQ(rc, 0);
	CHECK(strstr(buf, "placeholder") == NULL);
	CHECK_HAS(buf, "BlockName=b00 Nodes=n[01-04]\nBlockName=b01 Nodes=n[05-06]\nBlockName=b02 Nodes=n[07-08]\n"
		       "BlockName=b03 Nodes=n[09-10]\nBlockSizes=2,4,8\n");
	/* no domain at all: a block per leaf, as before */
	t.domain = NULL;
	render(emit_slurm_block, &t, &rc);
	CHECK_HAS(buf, "# one block per leaf (no NVLink domain found");
	CHECK_HAS(buf, "BlockName=b05 Nodes=n[11-12]\n");
}

int main(void)
{
	RUN(test_domain_blocks);
	RUN(test_three_tiers_tree_and_blocks);
	RUN(test_disconnected_parts_get_one_root);
	RUN(test_names_refused);
	RUN(test_comment_header_cannot_inject_lines);
	RUN(test_name_policy_per_format);
	RUN(test_name_rules);
	RUN(test_group_names_widen);
	RUN(test_tier_kinds);
	RUN(test_json_map_hostile_names);
	RUN(test_topograph_forms);
	RUN(test_actions);
	CHECK_EXIT();
}
