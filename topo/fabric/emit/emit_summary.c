/* emit_summary.c — summary.json (run_model.h): the verdict and everything it rests on, in one
 * versioned schema (docs/summary.schema.json), for the machines that act on a run (a CI gate,
 * a dashboard). Written from the run's model, never parsed back from the CSV files; through
 * the one JSON writer. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "core/jw.h"
#include "fabric/io/coll_csv.h"
#include "run_model.h"
#include "topo_csv.h"

static void run_json(struct jw *j, const struct run_model *m)
{
	char when[32];

	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&m->started));
	jw_kobject(j, "run", 0);
	jw_kstr(j, "id", m->run_id);
	jw_kstr(j, "command", "run");
	jw_kstr(j, "version", m->version);
	jw_kstr(j, "started_utc", when);
	jw_karray(j, "argv", 1);
	for (int i = 0; i < m->argc; i++)
		jw_str(j, m->argv[i]);
	jw_end(j);
	jw_kint(j, "nodes", m->nodes);
	jw_kint(j, "ranks", m->ranks);
	jw_kbool(j, "single_node", m->single_node);
	jw_kbool(j, "inventoried", m->inventoried);
	jw_kbool(j, "collectives_run", m->coll_run);
	jw_karray(j, "hosts", 1);
	for (int e = 0; e < m->n; e++)
		jw_str(j, m->hosts[e]);
	jw_end(j);
	jw_karray(j, "paths", 1);
	for (int i = 0; i < m->nasked; i++)
		jw_str(j, m->asked[i]);
	jw_end(j);
	jw_end(j);
}

static void paths_json(struct jw *j, const struct run_model *m)
{
	jw_karray(j, "paths", 0);
	for (int i = 0; i < m->npaths; i++) {
		const struct run_model_path *p = &m->path[i];
		struct emit_topo t = { .n = m->n, .hosts = m->hosts, .tree = p->map, .suspects = p->held, .rest = p->rest };

		jw_object(j, 0);
		jw_kstr(j, "path", p->path);
		jw_kstr(j, "kind", p->kind);
		jw_knum(j, "line_rate_Gbps", p->line_rate_Gbps, 1);
		jw_kbool(j, "compute", i == m->compute);
		jw_kint(j, "directions_ok", p->ok);
		jw_kint(j, "directions_failed", p->failed);
		jw_key(j, "map");
		if (t.tree)
			topo_json_map(j, &t, p->line_rate_Gbps);
		else
			jw_null(j);
		jw_end(j);
	}
	jw_end(j);
}

static void coll_json(struct jw *j, const struct coll_summary *cs)
{
	jw_karray(j, "collectives", 0);
	for (int i = 0; cs && i < cs->nsweeps; i++) {
		const struct coll_sweep_sum *x = &cs->sweep[i];

		jw_object(j, 1);
		jw_kstr(j, "backend", x->backend);
		jw_kstr(j, "path", x->path);
		jw_kstr(j, "op", x->op);
		jw_kstr(j, "dtype", x->dtype);
		jw_kstr(j, "redop", x->redop[0] ? x->redop : NULL);
		jw_kint(j, "size_B", (long long)x->size_B);
		jw_knum(j, "busbw_GBps", x->busbw_GBps, 4);
		jw_knum(j, "line_rate_Gbps", x->line_rate_Gbps, 1);
		jw_knum(j, "pct_line_rate", coll_pct_line_rate(x->busbw_GBps, x->line_rate_Gbps), 1);
		jw_kint(j, "wrong", x->wrong);
		jw_kbool(j, "below_min_pct", x->below_min_pct);
		jw_end(j);
	}
	jw_end(j);
}

static void links_json(struct jw *j, const struct ctr_summary *l)
{
	static const struct ctr_summary none = { 0 };

	l = l ? l : &none;
	jw_kobject(j, "link_counters", 0);
	jw_kbool(j, "read", l->done);
	jw_kint(j, "nodes", l->nodes);
	jw_kint(j, "ports", l->ports);
	jw_kint(j, "judged_ports", l->judged_ports);
	jw_kint(j, "left_out", l->left_out);
	jw_kint(j, "findings_total", l->nfind_all);
	jw_karray(j, "findings", 0);
	for (int i = 0; i < l->nfind; i++) {
		jw_object(j, 1);
		jw_kstr(j, "kind", l->find[i].kind);
		jw_kstr(j, "host", l->find[i].node);
		jw_kstr(j, "port", l->find[i].port);
		jw_kstr(j, "counters", l->find[i].what);
		jw_end(j);
	}
	jw_end(j);
	jw_end(j);
}

/* the node findings of no map: each fails its node in the actions */
static void node_finds_json(struct jw *j, const struct run_model *m)
{
	jw_karray(j, "node_findings", 0);
	for (int i = 0; i < m->nnode_finds; i++) {
		jw_object(j, 1);
		jw_kstr(j, "kind", m->node_finds[i].kind);
		jw_kstr(j, "host", m->node_finds[i].host);
		jw_kstr(j, "what", m->node_finds[i].what);
		jw_end(j);
	}
	jw_end(j);
}

/* the verdict: its result, line and clauses, and the figures behind them */
static void verdict_json(struct jw *j, const struct run_model *m)
{
	const struct verdict *v = m->verdict;
	int fails = verdict_fails(v);
	char judges[1024];

	jw_kobject(j, "verdict", 0);
	jw_kstr(j, "result", fails ? "FAIL" : "PASS");
	jw_kint(j, "exit_code", fails);
	jw_kstr(j, "line", m->line);
	jw_karray(j, "clauses", 0);
	for (int i = 0; i < v->n; i++) {
		jw_object(j, 1);
		jw_kstr(j, "about", verdict_about_name(v->c[i].about));
		jw_kbool(j, "fails", v->c[i].fails);
		jw_kstr(j, "text", v->c[i].text);
		jw_end(j);
	}
	jw_end(j);
	jw_kstr(j, "suspects", m->which);
	jw_kstr(j, "judges", verdict_join(v, VERDICT_JUDGED, VERDICT_JUDGES_LAST, judges, sizeof judges));
	jw_kstr(j, "unjudged", m->unjudged);
	jw_kbool(j, "unjudged_fails", m->unjudged_fails);
	jw_kbool(j, "inventory_differs", m->inventory_differs);
	jw_kbool(j, "pairs_failed", m->pairs_failed);
	jw_knum(j, "min_pct", m->min_pct, -1);
	jw_kint(j, "collectives_wrong", m->coll ? m->coll->wrong_rows : 0);
	jw_kint(j, "paths_below_min_pct", m->coll ? m->coll->nlow : 0);
	jw_kint(j, "link_findings", m->links ? m->links->nfind_all : 0);
	jw_end(j);
}

int emit_summary_json(FILE *f, const struct run_model *m)
{
	struct jw j;

	jw_init(&j, f);
	jw_object(&j, 0);
	jw_kstr(&j, "schema", RUN_MODEL_SCHEMA);
	run_json(&j, m);
	paths_json(&j, m);
	coll_json(&j, m->coll);
	links_json(&j, m->links);
	node_finds_json(&j, m);
	verdict_json(&j, m);
	jw_end(&j);
	return jw_done(&j);
}
