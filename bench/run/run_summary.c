/* run_summary.c — summary.json (run_stage.h): the verdict and everything it rests on, in one
 * versioned schema (docs/summary.schema.json), for the machines that act on a run (a CI gate,
 * a dashboard). Written by rank 0 from the same records as the CSV files (the maps, the
 * suspects, the collectives' sweeps), never parsed back from them; through the one JSON writer. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "core/jw.h"
#include "core/results.h"
#include "fabric/emit/topo_csv.h"
#include "fabric/io/coll_csv.h"
#include "run_stage.h"

#define SUMMARY_SCHEMA "fabprobe.summary/1"

static void run_json(struct jw *j, const struct world *w, const struct run_out *ro, const struct run_opts *c)
{
	char when[32];

	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	jw_kobject(j, "run", 0);
	jw_kstr(j, "id", ro->run_id);
	jw_kstr(j, "command", "run");
	jw_kstr(j, "version", FP_VERSION);
	jw_kstr(j, "started_utc", when);
	jw_karray(j, "argv", 1);
	for (int i = 0; i < ro->argc; i++)
		jw_str(j, ro->argv[i]);
	jw_end(j);
	jw_kint(j, "nodes", w->nnodes);
	jw_kint(j, "ranks", w->size);
	jw_karray(j, "hosts", 1);
	for (int e = 0; e < w->nep; e++)
		jw_str(j, w->labels[e]);
	jw_end(j);
	jw_karray(j, "paths", 1);
	for (int i = 0; i < c->p2p.npaths; i++)
		jw_str(j, c->p2p.paths[i]);
	jw_end(j);
	jw_end(j);
}

static void paths_json(struct jw *j, const struct world *w, const struct run_state *st)
{
	const struct run_maps *mp = &st->mp;

	jw_karray(j, "paths", 0);
	for (int i = 0; i < mp->npaths; i++) {
		const struct run_path_map *p = &mp->p[i];
		struct emit_topo t = { .n = w->nep, .hosts = (const char *const *)w->labels, .tree = run_maps_map(mp, i),
				       .suspects = &p->held, .rest = p->first.n || p->rest.n ? &p->rest : NULL };

		jw_object(j, 0);
		jw_kstr(j, "path", p->m->path);
		jw_kstr(j, "kind", p->m->kind);
		jw_knum(j, "line_rate_Gbps", p->m->line_rate_Gbps, 1);
		jw_kbool(j, "compute", i == mp->compute);
		jw_kint(j, "directions_ok", p->m->ok);
		jw_kint(j, "directions_failed", p->m->failed);
		jw_key(j, "map");
		if (t.tree)
			topo_json_map(j, &t, p->m->line_rate_Gbps);
		else
			jw_null(j);
		jw_end(j);
	}
	jw_end(j);
}

static void coll_json(struct jw *j, const struct run_state *st)
{
	const struct coll_summary *cs = &st->coll;

	jw_karray(j, "collectives", 0);
	for (int i = 0; i < cs->nsweeps; i++) {
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
		jw_end(j);
	}
	jw_end(j);
}

static void links_json(struct jw *j, const struct run_state *st)
{
	const struct run_links *l = &st->links;

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

/* the verdict: its result, line and clauses, and the figures behind them */
static void verdict_json(struct jw *j, const struct run_state *st, const char *line)
{
	const struct verdict *v = &st->verdict;
	int fails = verdict_fails(v);
	char judges[1024];

	jw_kobject(j, "verdict", 0);
	jw_kstr(j, "result", fails ? "FAIL" : "PASS");
	jw_kint(j, "exit_code", fails);
	jw_kstr(j, "line", line);
	jw_karray(j, "clauses", 0);
	for (int i = 0; i < v->n; i++) {
		jw_object(j, 1);
		jw_kstr(j, "about", verdict_about_name(v->c[i].about));
		jw_kbool(j, "fails", v->c[i].fails);
		jw_kstr(j, "text", v->c[i].text);
		jw_end(j);
	}
	jw_end(j);
	jw_kstr(j, "suspects", st->which);
	jw_kstr(j, "judges", verdict_join(v, VERDICT_JUDGED, VERDICT_DECLARED, judges, sizeof judges));
	jw_kstr(j, "unjudged", st->unjudged);
	jw_kbool(j, "unjudged_fails", st->urc);
	jw_kbool(j, "inventory_differs", st->irc);
	jw_kbool(j, "pairs_failed", st->prc || st->krc);
	jw_kint(j, "collectives_wrong", st->coll.wrong_rows);
	jw_kint(j, "paths_below_min_pct", st->coll.nlow);
	jw_kint(j, "link_findings", st->links.nfind_all);
	jw_end(j);
}

int run_summary_write(const struct world *w, const struct run_out *ro, const struct run_state *st, const char *line)
{
	struct results_file out;
	struct jw j;

	if (results_tmp_open(&out, ro->dir, "summary.json"))
		return FP_ERUNTIME;
	jw_init(&j, out.f);
	jw_object(&j, 0);
	jw_kstr(&j, "schema", SUMMARY_SCHEMA);
	run_json(&j, w, ro, st->c);
	paths_json(&j, w, st);
	coll_json(&j, st);
	links_json(&j, st);
	verdict_json(&j, st, line);
	jw_end(&j);
	if (jw_done(&j)) {
		results_tmp_abort(&out);
		return FP_ERUNTIME;
	}
	return results_tmp_commit(&out) ? FP_ERUNTIME : 0;
}
