/* The run's own files from its model (fabric/emit/run_model.h), read back: on a synthetic run
 * of two paths (one with a map and a finding of every kind, held or not, one without), three
 * collective sweeps, link counter findings and a verdict of every clause, summary.json holds
 * every field of the model (read with the one JSON reader), junit.xml a case for each check and
 * a failure for each that fails, fabprobe.prom a series for each, and the actions name exactly
 * the nodes at fault; and summary.json read back by run_model_load is the same model: every
 * field it holds, and the same summary.json, junit.xml and fabprobe.prom written from it. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "core/log.h"
#include "core/rjson.h"
#include "fabric/emit/emit.h"
#include "fabric/emit/run_model.h"
#include "fabric/emit/topo_csv.h"

#define N 8
static const char *const hosts[N] = { "n1", "n2", "n\"3", "n4", "n5", "n6", "n7", "n8" };
static int group[2 * N], order[N];
static struct infer_result map;
static struct suspect held_s[SUSPECT_NKINDS], rest_s[3];
static struct susp_list held, rest, none;
static struct coll_summary coll;
static struct ctr_finding links_f[2];
static struct ctr_summary links;
static const struct run_node_finding node_f[1] = { { "rails_together", "n7", "4 rails at once moved 38% of their sum alone, sending" } };
static struct verdict v;
static float lat[N * N], bw[N * N];
static char *argv_[] = { "run", "--accept" };

static void model_make(struct run_model *m)
{
	for (int i = 0; i < N; i++) {
		order[i] = i;
		group[i] = i / 4;
		group[N + i] = 0;
		for (int j = 0; j < N; j++) {
			lat[i * N + j] = i == j ? NAN : 5 + (i / 4 != j / 4) * 10;
			bw[i * N + j] = i == j ? NAN : 2.5f;
		}
	}
	map = (struct infer_result){ .n = N, .ntiers = 2, .group = group, .order = order, .noise = 0.02,
				     .noise_repeat = NAN, .ngroups = { 2, 1 }, .npairs = { 24, 32 },
				     .lat_p50_us = { 5, 15 }, .bw_p50_GBps = { 2.5, 2.5 }, .sep_z = { 30, NAN },
				     .sep_step = { 12, NAN }, .sep_pairs = { 32, 0 }, .sep_within = { 24, 0 },
				     .step_ratio = { 1, NAN } };
	/* a finding of every kind, held */
	static const int ab[SUSPECT_NKINDS][2] = { { 1, -1 }, { 2, 5 }, { 0, 1 }, { 3, -1 }, { 0, 6 },
						   { 4, -1 }, { 0, 7 }, { 7, -1 }, { 1, 2 } };
	for (int k = 0; k < SUSPECT_NKINDS; k++)
		held_s[k] = (struct suspect){ .kind = k, .a = ab[k][0], .b = ab[k][1], /* the pair's tier, as infer gives it */
					      .tier = k == SUSPECT_LOW_BW_UPLINK ? 0 : ab[k][1] < 0 ? -1 : ab[k][0] / 4 != ab[k][1] / 4,
					      .state = SUSP_HELD, .rule = k == SUSPECT_JITTERY_LINK ? SUSP_JITTER_P99 : 0,
					      .value = 20 + k, .expected = 10, .extra = 4, .value2 = 21 + k,
					      .expected2 = 10, .extra2 = 4 };
	held = (struct susp_list){ .n = SUSPECT_NKINDS, .cap = SUSPECT_NKINDS, .s = held_s };
	static const int states[3] = { SUSP_NOT_HELD, SUSP_NOT_RETESTED, SUSP_NEW };
	for (int k = 0; k < 3; k++)
		rest_s[k] = (struct suspect){ .kind = SUSPECT_SLOW_LINK, .a = k, .b = k + 4, .tier = 1, .state = states[k],
					      .value = 30, .expected = 15, .extra = NAN, .value2 = 16, .expected2 = 15,
					      .extra2 = NAN };
	rest = (struct susp_list){ .n = 3, .cap = 3, .s = rest_s };
	coll = (struct coll_summary){ .wrong_rows = 1, .nlow = 1, .nsweeps = 3 };
	static const char *const be[3] = { "ring", "mpi", "nccl" };
	for (int i = 0; i < 3; i++) {
		struct coll_sweep_sum *x = &coll.sweep[i];

		snprintf(x->backend, sizeof x->backend, "%s", be[i]);
		snprintf(x->path, sizeof x->path, "%s", i ? "" : "tcp:eth0");
		snprintf(x->op, sizeof x->op, "allreduce");
		snprintf(x->dtype, sizeof x->dtype, "float");
		snprintf(x->redop, sizeof x->redop, "sum");
		x->size_B = 1 << 20;
		x->busbw_GBps = 1.5 + i;
		x->line_rate_Gbps = i == 0 ? 25 : NAN;
		x->wrong = i == 1 ? 3 : 0;
		x->below_min_pct = i == 0;
	}
	links_f[0] = (struct ctr_finding){ .node = "n5", .port = "eth0", .kind = "link_flap", .what = "carrier_changes +2" };
	links_f[1] = (struct ctr_finding){ .node = "elsewhere", .port = "mlx5_0:1", .kind = "link_errors", .what = "x +1" };
	links = (struct ctr_summary){ .done = 1, .nodes = 8, .ports = 16, .judged_ports = 8, .nfind = 2, .nfind_all = 2,
				      .find = links_f };
	v = (struct verdict){ 0 };
	for (int a = 0; a < VERDICT_NABOUT; a++)
		verdict_add(&v, a, a == VERDICT_ACCEPTANCE || a == VERDICT_SUSPECTS, "%s: clause", verdict_about_name(a));
	*m = (struct run_model){ .run_id = "r1", .version = "0.0", .started = 1700000000, .argc = 2, .argv = argv_,
				 .nodes = N, .ranks = N, .n = N, .hosts = hosts, .nasked = 2,
				 .asked = { "tcp:eth0", "verbs:mlx5_0:1" }, .npaths = 2, .compute = 0, .inventoried = 1,
				 .coll_run = 1, .min_pct = 50, .coll = &coll, .links = &links, .verdict = &v,
				 .nnode_finds = 1, .node_finds = node_f, .line = "verdict: FAIL (...)", .which = "slow_node 1 (n2)", .unjudged = "",
				 .label_prefix = "fabprobe" };
	m->path[0] = (struct run_model_path){ .path = "tcp:eth0", .kind = "eth", .line_rate_Gbps = 25, .ok = 56, .n = N,
					      .lat_min = lat, .lat_p50 = lat, .lat_p99 = lat, .bw = bw, .map = &map,
					      .held = &held, .rest = &rest };
	m->path[1] = (struct run_model_path){ .path = "verbs:mlx5_0:1", .kind = "ib", .line_rate_Gbps = NAN, .ok = 50,
					      .failed = 6, .n = N, .lat_min = lat, .held = &none };
}

static char *render(int (*fn)(FILE *, const struct run_model *), const struct run_model *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK_EQ(fn(f, m), 0);
	fclose(f);
	return text;
}

static int count(const char *s, const char *sub)
{
	int k = 0;

	for (const char *p = s; (p = strstr(p, sub)); p++)
		k++;
	return k;
}

static double num(const struct rjson *o, const char *key)
{
	const struct rjson *x = rjson_get(o, key);

	return x && x->type == RJSON_NUM ? x->num : NAN;
}

/* summary.json read back: every field the model holds */
static void test_summary_holds_the_model(void)
{
	struct run_model m;
	struct rjson j;
	char err[128];

	model_make(&m);
	char *text = render(emit_summary_json, &m);

	CHECK(text && rjson_parse(text, strlen(text), &j, err, sizeof err) == 0);
	const struct rjson *run = rjson_get(&j, "run"), *paths = rjson_get(&j, "paths");

	CHECK_STR(rjson_str(rjson_get(run, "id")), "r1");
	CHECK(rjson_get(run, "hosts") && rjson_get(run, "hosts")->n == N);
	CHECK_STR(rjson_str(&rjson_get(run, "hosts")->item[2]), "n\"3");
	CHECK(rjson_get(run, "paths") && rjson_get(run, "paths")->n == 2);
	CHECK(paths && paths->n == 2);
	if (paths && paths->n == 2) {
		const struct rjson *p0 = &paths->item[0], *p1 = &paths->item[1], *mp = rjson_get(p0, "map");

		CHECK_STR(rjson_str(rjson_get(p0, "kind")), "eth");
		CHECK(rjson_get(p0, "compute")->num == 1);
		CHECK(rjson_get(p1, "map") && rjson_get(p1, "map")->type == RJSON_NULL);
		CHECK(num(p1, "directions_failed") == 6);
		CHECK(rjson_get(p1, "line_rate_Gbps")->type == RJSON_NULL);
		CHECK(num(mp, "tiers") == 2);
		const struct rjson *f = rjson_get(mp, "findings"), *nc = rjson_get(mp, "not_counted");

		CHECK(f && f->n == held.n);
		for (int k = 0; f && k < f->n && k < held.n; k++) {
			struct emit_topo t = { .n = N, .hosts = hosts, .tree = &map };
			struct topo_finding x;

			topo_finding_get(&t, &held, k, &x);
			CHECK_STR(rjson_str(rjson_get(&f->item[k], "kind")), susp_kind_name(held_s[k].kind));
			CHECK_STR(rjson_str(rjson_get(&f->item[k], "state")), "held");
			CHECK_STR(rjson_str(rjson_get(&f->item[k], "metric")), x.metric);
			CHECK(fabs(num(&f->item[k], "value") - held_s[k].value2) < 1e-9);
			CHECK(fabs(num(&f->item[k], "first_value") - held_s[k].value) < 1e-9);
			CHECK_EQ(rjson_get(&f->item[k], "hosts")->n, held_s[k].b >= 0 && k != SUSPECT_LOW_BW_UPLINK ? 2 : 1);
		}
		CHECK(nc && nc->n == 3);
		CHECK_STR(rjson_str(rjson_get(&nc->item[2], "state")), "only on re-test");
	}
	const struct rjson *c = rjson_get(&j, "collectives"), *l = rjson_get(&j, "link_counters");

	CHECK(c && c->n == 3);
	if (c && c->n == 3) {
		CHECK(rjson_get(&c->item[1], "path") && !strcmp(rjson_str(rjson_get(&c->item[1], "path")), ""));
		CHECK(num(&c->item[1], "wrong") == 3);
		CHECK(fabs(num(&c->item[0], "pct_line_rate") - 1.5 * 8 / 25 * 100) < 0.05);
	}
	CHECK(num(l, "findings_total") == 2);
	CHECK_STR(rjson_str(rjson_get(&rjson_get(l, "findings")->item[1], "host")), "elsewhere");
	const struct rjson *vd = rjson_get(&j, "verdict"), *cl = rjson_get(vd, "clauses");

	CHECK_STR(rjson_str(rjson_get(vd, "result")), "FAIL");
	CHECK(cl && cl->n == VERDICT_NABOUT);
	for (int a = 0; cl && a < cl->n; a++) {
		CHECK_STR(rjson_str(rjson_get(&cl->item[a], "about")), verdict_about_name(a));
		CHECK(rjson_get(&cl->item[a], "fails")->num == (a == VERDICT_ACCEPTANCE || a == VERDICT_SUSPECTS));
	}
	CHECK_STR(rjson_str(rjson_get(vd, "judges")), "baseline: clause; acceptance: clause; declared: clause; rails: clause");
	CHECK(num(vd, "collectives_wrong") == 1);
	rjson_free(&j);
	free(text);
	verdict_free(&v);
}

/* junit.xml: a case per check, a failure per check that fails */
static void test_junit_cases(void)
{
	struct run_model m;

	model_make(&m);
	char *x = render(emit_junit, &m);
	int links_held = 0, nodes_failed = 0;

	for (int k = 0; k < held.n; k++)
		links_held += !susp_on_node(&held_s[k]);
	for (int a = 0; a < N; a++) /* a node finding held on it */
		for (int k = 0; k < held.n; k++)
			if (susp_on_node(&held_s[k]) && held_s[k].a == a) {
				nodes_failed++;
				break;
			}
	/* inventory 1; pairs: tcp (N + links) and verbs (N); map tcp: 2 tiers; collectives 3; link
	 * counters N + 1 (a node that is no endpoint); judges, unjudged, verdict */
	CHECK_EQ(count(x, "<testcase "), 1 + N + links_held + N + 2 + 3 + N + 1 + 3);
	/* the failures: tcp's nodes and links that held (verbs measured every direction: none); two
	 * sweeps (a wrong element, below --min-pct); the link counters of n5 and of a node that is no
	 * endpoint; the judges (acceptance); the verdict */
	CHECK_EQ(count(x, "<failure "), nodes_failed + links_held + 2 + 2 + 1 + 1);
	CHECK_HAS(x, "n&quot;3");
	free(x);
	verdict_free(&v);
}

/* fabprobe.prom: the verdict's clauses, each finding that held, the pairs */
static void test_prom_series(void)
{
	struct run_model m;

	model_make(&m);
	char *x = render(emit_prom, &m);

	CHECK_EQ(count(x, "\nfabprobe_verdict_clause{"), VERDICT_NABOUT);
	CHECK_HAS(x, "\nfabprobe_verdict 1\n");
	CHECK_EQ(count(x, "\nfabprobe_finding{"), held.n + links.nfind);
	CHECK_EQ(count(x, "\nfabprobe_pair_latency_seconds{"), 3 * N * (N - 1) + N * (N - 1)); /* verbs: min only */
	CHECK_EQ(count(x, "\nfabprobe_pair_bandwidth_bytes_per_second{"), N * (N - 1));
	CHECK_EQ(count(x, "\nfabprobe_collective_busbw_bytes_per_second{"), 3);
	free(x);
	verdict_free(&v);
}

/* the actions: the nodes with a node finding or a link counter, none on one node */
static void test_actions_nodes(void)
{
	struct run_model m;
	char *reasons = calloc(N, EMIT_REASON_MAX);
	const char *why[N];

	model_make(&m);
	run_model_reasons(&m, reasons, why);
	for (int a = 0; a < N; a++) {
		int at_fault = a == 4 || a == 6; /* n5: its port flapped; n7: its rails at once */

		for (int k = 0; k < held.n; k++)
			at_fault |= susp_on_node(&held_s[k]) && held_s[k].a == a;
		CHECK_EQ(why[a] != NULL, at_fault);
	}
	CHECK(why[4] && strstr(why[4], "link_flap eth0"));
	CHECK(why[6] && strstr(why[6], "rails_together (4 rails at once moved 38% of their sum alone, sending)"));
	m.single_node = 1;
	run_model_reasons(&m, reasons, why);
	for (int a = 0; a < N; a++)
		CHECK(why[a] == NULL);
	free(reasons);
	verdict_free(&v);
}

/* dir/summary.json holds text */
static void put(const char *dir, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof path, "%s/summary.json", dir);
	CHECK((f = fopen(path, "w")) != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* the model's fields that summary.json holds, in a and in b */
static void same_model(const struct run_model *a, const struct run_model *b)
{
	CHECK_STR(b->run_id, a->run_id);
	CHECK_EQ((long long)b->started, (long long)a->started);
	CHECK_EQ(b->argc, a->argc);
	CHECK_EQ(b->n, a->n);
	for (int e = 0; e < a->n && e < b->n; e++)
		CHECK_STR(b->hosts[e], a->hosts[e]);
	CHECK_EQ(b->nodes, a->nodes);
	CHECK_EQ(b->nasked, a->nasked);
	CHECK_EQ(b->npaths, a->npaths);
	CHECK_EQ(b->compute, a->compute);
	CHECK_EQ(b->inventoried * 4 + b->coll_run * 2 + b->single_node, a->inventoried * 4 + a->coll_run * 2 + a->single_node);
	CHECK(b->min_pct == a->min_pct);
	for (int i = 0; i < a->npaths && i < b->npaths; i++) {
		const struct run_model_path *p = &a->path[i], *q = &b->path[i];

		CHECK_STR(q->path, p->path);
		CHECK_EQ(q->failed, p->failed);
		CHECK_EQ(!q->map, !p->map);
		CHECK_EQ(q->held->n, p->held->n);
		CHECK_EQ(q->rest ? q->rest->n : 0, p->rest ? p->rest->n : 0);
		for (int k = 0; p->map && q->map && k < p->map->ntiers * N; k++)
			CHECK_EQ(q->map->group[k], p->map->group[k]);
		for (int k = 0; p->map && q->map && k < N; k++)
			CHECK_EQ(q->map->order[k], p->map->order[k]);
		for (int k = 0; k < p->held->n && k < q->held->n; k++) {
			const struct suspect *x = &p->held->s[k], *y = &q->held->s[k];

			CHECK_EQ(y->kind * 1000000 + y->a * 10000 + (y->b + 1) * 100 + y->tier * 10 + y->state,
				 x->kind * 1000000 + x->a * 10000 + (x->b + 1) * 100 + x->tier * 10 + x->state);
			CHECK_EQ(y->rule, x->rule);
			CHECK(y->value == x->value && y->value2 == x->value2 && y->extra2 == x->extra2);
		}
	}
	CHECK_EQ(b->coll->nsweeps, a->coll->nsweeps);
	CHECK_EQ(b->coll->sweep[0].below_min_pct, a->coll->sweep[0].below_min_pct);
	CHECK_EQ(b->links->nfind, a->links->nfind);
	CHECK_EQ(b->nnode_finds, a->nnode_finds);
	for (int i = 0; i < a->nnode_finds && i < b->nnode_finds; i++) {
		CHECK_STR(b->node_finds[i].kind, a->node_finds[i].kind);
		CHECK_STR(b->node_finds[i].host, a->node_finds[i].host);
		CHECK_STR(b->node_finds[i].what, a->node_finds[i].what);
	}
	CHECK_EQ(b->verdict->n, a->verdict->n);
	CHECK_EQ(verdict_fails(b->verdict), verdict_fails(a->verdict));
	CHECK_STR(b->line, a->line);
}

/* model -> summary.json -> run_model_load -> the same model and the same three files (the pairs'
 * matrices are the measurements' and not in it: left out of both) */
static void test_load_round_trip(void)
{
	struct run_model m;
	struct run_model_loaded l;
	char dir[] = "/tmp/fp_model_XXXXXX", err[256] = "";

	model_make(&m);
	for (int i = 0; i < m.npaths; i++)
		m.path[i].lat_min = m.path[i].lat_p50 = m.path[i].lat_p99 = m.path[i].bw = NULL;
	char *s = render(emit_summary_json, &m), *j = render(emit_junit, &m), *p = render(emit_prom, &m);

	CHECK(mkdtemp(dir) != NULL);
	put(dir, s);
	CHECK_EQ(run_model_load(dir, &l, err, sizeof err), 0);
	if (err[0])
		fprintf(stderr, "  %s\n", err);
	if (l.own) {
		same_model(&m, &l.m);
		char *s2 = render(emit_summary_json, &l.m), *j2 = render(emit_junit, &l.m), *p2 = render(emit_prom, &l.m);

		CHECK_STR(s2, s);
		CHECK_STR(j2, j);
		CHECK_STR(p2, p);
		free(s2);
		free(j2);
		free(p2);
	}
	run_model_unload(&l);
	free(s);
	free(j);
	free(p);
	verdict_free(&v);
	snprintf(err, sizeof err, "%s/summary.json", dir);
	unlink(err);
	rmdir(dir);
}

/* a summary.json that fabprobe would not write is refused, and says where */
static void test_load_refuses(void)
{
	static const struct {
		const char *from, *to, *said;
	} bad[] = {
		{ "\"fabprobe.summary/2\"", "\"fabprobe.summary/1\"", "schema fabprobe.summary/1" },
		{ "\"result\": \"FAIL\"", "\"result\": \"PASS\"", "verdict.result: not what its clauses give" },
		{ "\"hosts\": [\"n2\"]", "\"hosts\": [\"n9\"]", "paths[0].findings[0]: names a host" },
		{ "\"nodes\": 8", "\"nodes\": 8.5", "run.nodes: not a whole number" },
		{ "\"leaf01\"", "\"leaf07\"", "paths[0].tier[0]: a group not named" },
		{ "\"about\": \"map\"", "\"about\": \"mood\"", "verdict.clauses[10]: about what" },
	};
	struct run_model m;
	struct run_model_loaded l;
	char dir[] = "/tmp/fp_model_XXXXXX", err[256];

	model_make(&m);
	char *s = render(emit_summary_json, &m);

	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(run_model_load(dir, &l, err, sizeof err), 1); /* none there */
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *at = strstr(s, bad[i].from), *t = malloc(strlen(s) + 64);

		CHECK(at != NULL);
		if (!at || !t) {
			free(t);
			continue;
		}
		sprintf(t, "%.*s%s%s", (int)(at - s), s, bad[i].to, at + strlen(bad[i].from));
		put(dir, t);
		err[0] = 0;
		CHECK_EQ(run_model_load(dir, &l, err, sizeof err), FP_EUSAGE);
		CHECK_HAS(err, bad[i].said);
		CHECK(l.own == NULL);
		free(t);
	}
	free(s);
	verdict_free(&v);
	snprintf(err, sizeof err, "%s/summary.json", dir);
	unlink(err);
	rmdir(dir);
}

int main(void)
{
	RUN(test_load_round_trip);
	RUN(test_load_refuses);
	RUN(test_summary_holds_the_model);
	RUN(test_junit_cases);
	RUN(test_prom_series);
	RUN(test_actions_nodes);
	CHECK_EXIT();
}
