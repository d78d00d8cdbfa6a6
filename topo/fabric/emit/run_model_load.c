/* run_model_load.c — a run's judged model rebuilt from its summary.json (run_model.h), the
 * file that holds every field of it: what `report` shows the verdict from, so that the page
 * says what the terminal, junit.xml and fabprobe.prom said. Every value is checked as the
 * writer would have written it (type, range, a name fabprobe gives); the first that is not
 * is named in err with its place in the file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/rjson.h"
#include "emit.h"
#include "run_model.h"

#define SUMMARY_MAX (256 << 20) /* the pairs are not in it: a 16,384-node run's maps fit */

struct run_model_store {
	struct rjson doc;                 /* every string of the model points into it */
	const char **argv, **hosts;
	int *by_name;                     /* hosts' indices in strcmp order */
	struct infer_result map[RUN_MODEL_PATHS_MAX];
	struct susp_list held[RUN_MODEL_PATHS_MAX], rest[RUN_MODEL_PATHS_MAX];
	struct coll_summary coll;
	struct ctr_summary links;
	struct run_node_finding *node_finds;
	struct verdict verdict;
};

/* the loader: the checked reader (core/rjson.h), and the model and store it fills */
struct ld {
	struct rjson_rd rd;
	struct run_model *m;
	struct run_model_store *s;
};

/* the index of name among names(count) with name(i), or -1 */
static int name_index(const char *name, int count, const char *(*name_of)(int))
{
	for (int i = 0; i < count; i++)
		if (!strcmp(name, name_of(i)))
			return i;
	return -1;
}

static int cmp_host(const void *a, const void *b, void *hosts)
{
	const char *const *h = hosts;

	return strcmp(h[*(const int *)a], h[*(const int *)b]);
}

/* the endpoint named name, or -1 after the error */
static int host_index(struct ld *l, const char *name, const char *where)
{
	int lo = 0, hi = l->m->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(l->s->hosts[l->s->by_name[mid]], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < l->m->n && !strcmp(l->s->hosts[l->s->by_name[lo]], name))
		return l->s->by_name[lo];
	rjson_fail(&l->rd, where, "names a host that run.hosts does not");
	return -1;
}

static void run_load(struct ld *l, const struct rjson *run)
{
	struct run_model *m = l->m;
	const char **asked = NULL;
	struct tm tm = { 0 };
	const char *when = rjson_want_str(&l->rd, run, "run", "started_utc");
	char tail;

	m->run_id = rjson_want_str(&l->rd, run, "run", "id");
	m->version = rjson_want_str(&l->rd, run, "run", "version");
	if (sscanf(when, "%4d-%2d-%2dT%2d:%2d:%2dZ%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec, &tail) != 6)
		rjson_fail(&l->rd, "run.started_utc", "not a time as fabprobe writes it (2026-01-31T23:59:59Z)");
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	m->started = timegm(&tm);
	rjson_want_strings(&l->rd, run, "run", "argv", &l->s->argv, &m->argc);
	m->argv = (char *const *)l->s->argv;
	m->nodes = (int)rjson_want_int(&l->rd, run, "run", "nodes", 1, 1 << 30);
	m->ranks = (int)rjson_want_int(&l->rd, run, "run", "ranks", 1, 1 << 30);
	m->single_node = rjson_want_bool(&l->rd, run, "run", "single_node");
	m->inventoried = rjson_want_bool(&l->rd, run, "run", "inventoried");
	m->coll_run = rjson_want_bool(&l->rd, run, "run", "collectives_run");
	rjson_want_strings(&l->rd, run, "run", "hosts", &l->s->hosts, &m->n);
	m->hosts = l->s->hosts;
	rjson_want_strings(&l->rd, run, "run", "paths", &asked, &m->nasked);
	if (m->nasked > RUN_MODEL_PATHS_MAX)
		rjson_fail(&l->rd, "run.paths", "more paths than a run measures");
	for (int i = 0; i < m->nasked && !l->rd.bad; i++)
		m->asked[i] = asked[i];
	free(asked);
	if (l->rd.bad || !(l->s->by_name = malloc(sizeof *l->s->by_name * (size_t)(m->n + 1)))) {
		rjson_fail(&l->rd, "run.hosts", "out of memory");
		return;
	}
	for (int i = 0; i < m->n; i++)
		l->s->by_name[i] = i;
	qsort_r(l->s->by_name, (size_t)m->n, sizeof *l->s->by_name, cmp_host, (void *)m->hosts);
	for (int i = 1; i < m->n; i++)
		if (!strcmp(m->hosts[l->s->by_name[i]], m->hosts[l->s->by_name[i - 1]]))
			rjson_fail(&l->rd, "run.hosts", "a host named twice");
}

/* tier k's figures and members into r (its group numbers as the members' order gives them) */
static void tier_load(struct ld *l, const struct rjson *t, int k, struct infer_result *r, const char *where)
{
	const struct rjson *sep = rjson_get(t, "separation"), *mem = rjson_want(&l->rd, t, where, "members", RJSON_OBJ);
	struct emit_topo et = { .n = r->n, .hosts = l->m->hosts, .tree = r };
	int top = k == r->ntiers - 1;

	if (rjson_want_int(&l->rd, t, where, "tier", 0, INFER_TIERS_MAX) != k)
		rjson_fail(&l->rd, where, "tiers out of order");
	r->ngroups[k] = (int)rjson_want_int(&l->rd, t, where, "groups", 1, r->n ? r->n : 1);
	r->npairs[k] = rjson_want_int(&l->rd, t, where, "pairs", 0, 1LL << 62);
	r->lat_p50_us[k] = rjson_want_num(&l->rd, t, where, "lat_p50_us");
	r->bw_p50_GBps[k] = rjson_want_num(&l->rd, t, where, "bw_p50_GBps");
	r->threshold_us[k] = r->level_us[k] = r->bw_p75_GBps[k] = NAN;
	r->step_ratio[k] = rjson_want_num(&l->rd, t, where, "step_ratio");
	r->uncertain[k] = rjson_want_bool(&l->rd, t, where, "uncertain");
	r->sep_z[k] = r->sep_step[k] = NAN;
	if (!top && sep && sep->type == RJSON_OBJ) {
		r->sep_z[k] = rjson_want_num(&l->rd, sep, where, "z");
		r->sep_step[k] = rjson_want_num(&l->rd, sep, where, "sigmas");
		r->sep_pairs[k] = rjson_want_int(&l->rd, sep, where, "pairs", 0, 1LL << 62);
		r->sep_within[k] = rjson_want_int(&l->rd, sep, where, "within_pairs", 0, 1LL << 62);
	} else if (top != (sep && sep->type == RJSON_NULL)) {
		rjson_fail(&l->rd, where, "a separation where none is, or none where one is");
	}
	if (!mem || l->rd.bad)
		return;
	if (mem->n != r->ngroups[k])
		rjson_fail(&l->rd, where, "members of another number of groups than it says");
	for (int g = 0; g < mem->n && !l->rd.bad; g++) {
		char name[EMIT_NAME_MAX];

		emit_group_name(&et, k, g, name);
		if (strcmp(name, mem->key[g]) || mem->item[g].type != RJSON_ARR || !mem->item[g].n)
			rjson_fail(&l->rd, where, "a group not named or filled as fabprobe writes it");
		for (int i = 0; i < mem->item[g].n && !l->rd.bad; i++) {
			const char *h = rjson_str(&mem->item[g].item[i]);
			int e = h ? host_index(l, h, where) : -1;

			if (e >= 0 && r->group[(size_t)k * r->n + e] >= 0)
				rjson_fail(&l->rd, where, "a host in two groups");
			else if (e >= 0)
				r->group[(size_t)k * r->n + e] = g;
			else
				rjson_fail(&l->rd, where, "a member that is not a host of the run");
		}
	}
	for (int i = 0; i < r->n && !l->rd.bad; i++)
		if (r->group[(size_t)k * r->n + i] < 0)
			rjson_fail(&l->rd, where, "a host in no group");
	if (top) /* the top tier's members, group after group, are the tree order */
		for (int g = 0, o = 0; g < mem->n && !l->rd.bad; g++)
			for (int i = 0; i < mem->item[g].n; i++)
				r->order[o++] = host_index(l, mem->item[g].item[i].str, where);
}

/* one finding, as topo_json wrote it, into s on map r */
static void finding_load(struct ld *l, const struct rjson *f, const struct infer_result *r, struct suspect *s,
			 const char *where)
{
	const char *kind = rjson_want_str(&l->rd, f, where, "kind"), *state = rjson_want_str(&l->rd, f, where, "state");
	const struct rjson *h = rjson_want(&l->rd, f, where, "hosts", RJSON_ARR);
	double v = rjson_want_num(&l->rd, f, where, "value"), e = rjson_want_num(&l->rd, f, where, "expected");
	double x = rjson_want_num(&l->rd, f, where, "extra");
	double fv = rjson_want_num(&l->rd, f, where, "first_value"), fe = rjson_want_num(&l->rd, f, where, "first_expected");
	struct emit_topo et = { .n = r->n, .hosts = l->m->hosts, .tree = r };

	*s = (struct suspect){ .kind = name_index(kind, SUSPECT_NKINDS, susp_kind_name), .a = -1, .b = -1, .tier = -1,
			       .state = name_index(state, SUSP_NEW + 1, susp_state_name) };
	if (s->kind < 0 || s->state < 0 || !h || h->n < 1 || h->n > 2 || !rjson_str(&h->item[0]) ||
	    (h->n == 2 && !rjson_str(&h->item[1]))) {
		rjson_fail(&l->rd, where, "a kind, state or hosts that fabprobe does not write");
		return;
	}
	if (s->kind == SUSPECT_LOW_BW_UPLINK) { /* its switch group, by the name topology.csv gives it */
		for (int k = 0; k < r->ntiers && s->a < 0; k++)
			for (int o = 0; o < r->n && s->a < 0; o++) {
				char g[EMIT_NAME_MAX];

				emit_group_name(&et, k, r->group[(size_t)k * r->n + r->order[o]], g);
				if (!strcmp(g, h->item[0].str))
					s->a = r->order[o], s->tier = s->rule = k;
			}
		if (s->a < 0)
			rjson_fail(&l->rd, where, "an uplink of no group of the map");
	} else {
		s->a = host_index(l, h->item[0].str, where);
		s->b = h->n == 2 ? host_index(l, h->item[1].str, where) : -1;
		if (s->b >= 0 && s->a >= 0)
			s->tier = infer_pair_tier(r->group, r->ntiers, r->n, s->a, s->b);
		if (s->kind == SUSPECT_JITTERY_LINK)
			s->rule = !strcmp(rjson_want_str(&l->rd, f, where, "metric"), "lat_p99_us") ? SUSP_JITTER_P99 : SUSP_JITTER_P50;
	}
	if (s->state == SUSP_CANDIDATE) {
		s->value = v, s->expected = e, s->extra = x;
		s->value2 = s->expected2 = s->extra2 = NAN;
	} else { /* the figure that counts is the confirming one; the first pass's beside it */
		s->value2 = v, s->expected2 = e, s->extra2 = x;
		s->value = fv, s->expected = fe, s->extra = NAN;
	}
}

static void findings_load(struct ld *l, const struct rjson *map, const char *key, const struct infer_result *r,
			  struct susp_list *out, const char *where)
{
	const struct rjson *a = rjson_want(&l->rd, map, where, key, RJSON_ARR);
	char at[160];

	if (!a || l->rd.bad)
		return;
	if (!(out->s = calloc((size_t)a->n + 1, sizeof *out->s))) {
		rjson_fail(&l->rd, where, "out of memory");
		return;
	}
	out->n = out->cap = a->n;
	for (int i = 0; i < a->n && !l->rd.bad; i++) {
		snprintf(at, sizeof at, "%.100s.%s[%d]", where, key, i);
		finding_load(l, &a->item[i], r, &out->s[i], at);
	}
}

/* path i's map into the store's */
static void map_load(struct ld *l, const struct rjson *j, int i, const char *where)
{
	struct infer_result *r = &l->s->map[i];
	const struct rjson *tiers = rjson_want(&l->rd, j, where, "tier", RJSON_ARR);
	int n = l->m->n;
	char at[160];

	r->n = n;
	r->ntiers = (int)rjson_want_int(&l->rd, j, where, "tiers", 1, INFER_TIERS_MAX);
	r->noise = rjson_want_num(&l->rd, j, where, "noise");
	r->noise_repeat = rjson_want_num(&l->rd, j, where, "noise_repeat");
	r->noise_us = r->refused_step_us = r->refused_ratio = NAN;
	r->structure = r->ntiers > 1;
	if (l->rd.bad || !tiers || tiers->n != r->ntiers) {
		rjson_fail(&l->rd, where, "tiers of another number than it says");
		return;
	}
	r->group = malloc(sizeof *r->group * (size_t)r->ntiers * (size_t)(n ? n : 1));
	r->order = calloc((size_t)n + 1, sizeof *r->order);
	r->offset_us = calloc((size_t)n + 1, sizeof *r->offset_us);
	if (!r->group || !r->order || !r->offset_us) {
		rjson_fail(&l->rd, where, "out of memory");
		return;
	}
	for (size_t c = 0; c < (size_t)r->ntiers * (size_t)n; c++)
		r->group[c] = -1;
	for (int k = 0; k < r->ntiers && !l->rd.bad; k++) {
		snprintf(at, sizeof at, "%.100s.tier[%d]", where, k);
		tier_load(l, &tiers->item[k], k, r, at);
	}
	findings_load(l, j, "findings", r, &l->s->held[i], where);
	findings_load(l, j, "not_counted", r, &l->s->rest[i], where);
	l->m->path[i].map = r;
	l->m->path[i].rest = l->s->rest[i].n ? &l->s->rest[i] : NULL;
}

static void paths_load(struct ld *l, const struct rjson *a)
{
	struct run_model *m = l->m;
	char at[64];

	if (a->n > RUN_MODEL_PATHS_MAX) {
		rjson_fail(&l->rd, "paths", "more paths than a run measures");
		return;
	}
	m->npaths = a->n;
	m->compute = -1;
	for (int i = 0; i < a->n && !l->rd.bad; i++) {
		const struct rjson *p = &a->item[i], *map = rjson_get(p, "map");
		struct run_model_path *x = &m->path[i];

		snprintf(at, sizeof at, "paths[%d]", i);
		*x = (struct run_model_path){ .path = rjson_want_str(&l->rd, p, at, "path"),
					      .kind = rjson_want_str(&l->rd, p, at, "kind"),
					      .line_rate_Gbps = rjson_want_num(&l->rd, p, at, "line_rate_Gbps"), .n = m->n,
					      .ok = (int)rjson_want_int(&l->rd, p, at, "directions_ok", 0, 1 << 30),
					      .failed = (int)rjson_want_int(&l->rd, p, at, "directions_failed", 0, 1 << 30),
					      .held = &l->s->held[i] };
		if (rjson_want_bool(&l->rd, p, at, "compute"))
			m->compute >= 0 ? rjson_fail(&l->rd, at, "a second compute path") : (void)(m->compute = i);
		if (map && map->type == RJSON_OBJ)
			map_load(l, map, i, at);
		else if (!map || map->type != RJSON_NULL)
			rjson_fail(&l->rd, at, "a map that is neither an object nor null");
	}
}

static void coll_load(struct ld *l, const struct rjson *a, const struct rjson *verdict)
{
	struct coll_summary *cs = &l->s->coll;
	char at[64];

	if (a->n > COLL_SUMMARY_SWEEPS) {
		rjson_fail(&l->rd, "collectives", "more sweeps than fabprobe writes");
		return;
	}
	cs->nsweeps = a->n;
	cs->wrong_rows = (int)rjson_want_int(&l->rd, verdict, "verdict", "collectives_wrong", 0, 1 << 30);
	cs->nlow = (int)rjson_want_int(&l->rd, verdict, "verdict", "paths_below_min_pct", 0, 1 << 30);
	for (int i = 0; i < a->n && !l->rd.bad; i++) {
		const struct rjson *c = &a->item[i], *redop = rjson_get(c, "redop");
		struct coll_sweep_sum *x = &cs->sweep[i];

		snprintf(at, sizeof at, "collectives[%d]", i);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, c, at, "backend"), x->backend, sizeof x->backend, at);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, c, at, "path"), x->path, sizeof x->path, at);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, c, at, "op"), x->op, sizeof x->op, at);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, c, at, "dtype"), x->dtype, sizeof x->dtype, at);
		rjson_want_copy(&l->rd, redop && redop->type == RJSON_STR ? redop->str : "", x->redop, sizeof x->redop, at);
		x->size_B = (uint64_t)rjson_want_int(&l->rd, c, at, "size_B", 1, 1LL << 62);
		x->busbw_GBps = rjson_want_num(&l->rd, c, at, "busbw_GBps");
		x->line_rate_Gbps = rjson_want_num(&l->rd, c, at, "line_rate_Gbps");
		x->wrong = rjson_want_int(&l->rd, c, at, "wrong", 0, 1LL << 62);
		x->below_min_pct = rjson_want_bool(&l->rd, c, at, "below_min_pct");
	}
	l->m->coll = cs;
}

static void links_load(struct ld *l, const struct rjson *o)
{
	struct ctr_summary *cs = &l->s->links;
	const struct rjson *a = rjson_want(&l->rd, o, "link_counters", "findings", RJSON_ARR);
	char at[64];

	cs->done = rjson_want_bool(&l->rd, o, "link_counters", "read");
	cs->nodes = (int)rjson_want_int(&l->rd, o, "link_counters", "nodes", 0, 1 << 30);
	cs->ports = (int)rjson_want_int(&l->rd, o, "link_counters", "ports", 0, 1 << 30);
	cs->judged_ports = (int)rjson_want_int(&l->rd, o, "link_counters", "judged_ports", 0, 1 << 30);
	cs->left_out = (int)rjson_want_int(&l->rd, o, "link_counters", "left_out", 0, 1 << 30);
	cs->nfind_all = (int)rjson_want_int(&l->rd, o, "link_counters", "findings_total", 0, 1 << 30);
	if (!a || l->rd.bad || !(cs->find = calloc((size_t)a->n + 1, sizeof *cs->find))) {
		rjson_fail(&l->rd, "link_counters", "out of memory");
		return;
	}
	cs->nfind = a->n;
	for (int i = 0; i < a->n && !l->rd.bad; i++) {
		const struct rjson *f = &a->item[i];
		struct ctr_finding *x = &cs->find[i];

		snprintf(at, sizeof at, "link_counters.findings[%d]", i);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, f, at, "kind"), x->kind, sizeof x->kind, at);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, f, at, "host"), x->node, sizeof x->node, at);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, f, at, "port"), x->port, sizeof x->port, at);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, f, at, "counters"), x->what, sizeof x->what, at);
	}
	l->m->links = cs;
}

/* node_findings (absent from a summary.json of an older build: none) */
static void node_finds_load(struct ld *l, const struct rjson *a)
{
	char at[64];

	if (!(l->s->node_finds = calloc((size_t)a->n + 1, sizeof *l->s->node_finds))) {
		rjson_fail(&l->rd, "node_findings", "out of memory");
		return;
	}
	for (int i = 0; i < a->n && !l->rd.bad; i++) {
		const struct rjson *f = &a->item[i];
		struct run_node_finding *x = &l->s->node_finds[i];

		snprintf(at, sizeof at, "node_findings[%d]", i);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, f, at, "kind"), x->kind, sizeof x->kind, at);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, f, at, "host"), x->host, sizeof x->host, at);
		rjson_want_copy(&l->rd, rjson_want_str(&l->rd, f, at, "what"), x->what, sizeof x->what, at);
	}
	l->m->node_finds = l->s->node_finds;
	l->m->nnode_finds = a->n;
}

static const char *about_name(int i)
{
	return verdict_about_name((enum verdict_about)i);
}

static void verdict_load(struct ld *l, const struct rjson *o)
{
	struct run_model *m = l->m;
	struct verdict *v = &l->s->verdict;
	const struct rjson *a = rjson_want(&l->rd, o, "verdict", "clauses", RJSON_ARR);
	const char *result = rjson_want_str(&l->rd, o, "verdict", "result");
	char at[64];

	for (int i = 0; a && i < a->n && !l->rd.bad; i++) {
		const struct rjson *c = &a->item[i];
		int about;

		snprintf(at, sizeof at, "verdict.clauses[%d]", i);
		about = name_index(rjson_want_str(&l->rd, c, at, "about"), VERDICT_NABOUT, about_name);
		if (about < 0)
			rjson_fail(&l->rd, at, "about what fabprobe does not judge");
		else if (verdict_add(v, (enum verdict_about)about, rjson_want_bool(&l->rd, c, at, "fails"), "%s",
				     rjson_want_str(&l->rd, c, at, "text")))
			rjson_fail(&l->rd, at, "out of memory");
	}
	m->verdict = v;
	m->line = rjson_want_str(&l->rd, o, "verdict", "line");
	m->which = rjson_want_str(&l->rd, o, "verdict", "suspects");
	m->unjudged = rjson_want_str(&l->rd, o, "verdict", "unjudged");
	m->unjudged_fails = rjson_want_bool(&l->rd, o, "verdict", "unjudged_fails");
	m->inventory_differs = rjson_want_bool(&l->rd, o, "verdict", "inventory_differs");
	m->pairs_failed = rjson_want_bool(&l->rd, o, "verdict", "pairs_failed");
	m->min_pct = rjson_want_num(&l->rd, o, "verdict", "min_pct");
	if (!l->rd.bad && (strcmp(result, verdict_fails(v) ? "FAIL" : "PASS") ||
			rjson_want_int(&l->rd, o, "verdict", "exit_code", 0, 1) != verdict_fails(v)))
		rjson_fail(&l->rd, "verdict.result", "not what its clauses give");
}

int run_model_load(const char *dir, struct run_model_loaded *out, char *err, size_t len)
{
	char file[4096], why[320];
	struct run_model_store *s = calloc(1, sizeof *s);
	struct ld l = { .rd = { .file = "summary.json", .err = err, .len = len }, .m = &out->m, .s = s };
	const struct rjson *d;
	int rc;

	memset(out, 0, sizeof *out);
	out->own = s;
	if (!s) {
		snprintf(err, len, "summary.json: out of memory");
		return FP_ERUNTIME;
	}
	snprintf(file, sizeof file, "%s/summary.json", dir);
	if ((rc = rjson_load(file, SUMMARY_MAX, &s->doc, why, sizeof why))) {
		snprintf(err, len, "summary.json: %s", why);
		run_model_unload(out);
		return rc;
	}
	d = &s->doc;
	if (strcmp(rjson_want_str(&l.rd, d, "", "schema"), RUN_MODEL_SCHEMA)) {
		snprintf(err, len, "summary.json: schema %.60s, not %s: written by another fabprobe",
			 l.rd.bad ? "missing" : rjson_str(rjson_get(d, "schema")), RUN_MODEL_SCHEMA);
		l.rd.bad = 1;
	}
	if (!l.rd.bad && (d = rjson_want(&l.rd, &s->doc, "", "run", RJSON_OBJ)))
		run_load(&l, d);
	if (!l.rd.bad && (d = rjson_want(&l.rd, &s->doc, "", "paths", RJSON_ARR)))
		paths_load(&l, d);
	if (!l.rd.bad && (d = rjson_want(&l.rd, &s->doc, "", "collectives", RJSON_ARR)))
		coll_load(&l, d, rjson_get(&s->doc, "verdict"));
	if (!l.rd.bad && (d = rjson_want(&l.rd, &s->doc, "", "link_counters", RJSON_OBJ)))
		links_load(&l, d);
	if (!l.rd.bad && rjson_get(&s->doc, "node_findings") &&
	    (d = rjson_want(&l.rd, &s->doc, "", "node_findings", RJSON_ARR)))
		node_finds_load(&l, d);
	if (!l.rd.bad && (d = rjson_want(&l.rd, &s->doc, "", "verdict", RJSON_OBJ)))
		verdict_load(&l, d);
	if (l.rd.bad) {
		run_model_unload(out);
		return FP_EUSAGE;
	}
	return 0;
}

void run_model_unload(struct run_model_loaded *l)
{
	struct run_model_store *s = l->own;

	if (s) {
		for (int i = 0; i < RUN_MODEL_PATHS_MAX; i++) {
			infer_result_free(&s->map[i]);
			susp_list_free(&s->held[i]);
			susp_list_free(&s->rest[i]);
		}
		free(s->links.find);
		free(s->node_finds);
		verdict_free(&s->verdict);
		free(s->argv);
		free(s->hosts);
		free(s->by_name);
		rjson_free(&s->doc);
		free(s);
	}
	memset(l, 0, sizeof *l);
}
