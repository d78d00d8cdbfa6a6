/* run_summary.c — summary.json (run_stage.h): the verdict and everything it rests on, in one
 * versioned schema (docs/summary.schema.json), for the machines that act on a run (a CI gate,
 * a dashboard). Written by rank 0 from the same records as the CSV files (the maps, the
 * suspects, the collectives' sweeps), never parsed back from them; every string through the
 * one JSON rule. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "core/escape.h"
#include "core/results.h"
#include "fabric/emit/topo_csv.h"
#include "fabric/io/coll_csv.h"
#include "run_stage.h"

#define SUMMARY_SCHEMA "fabprobe.summary/1"

static void jstr(FILE *f, const char *s)
{
	escape_json_write(f, s ? s : "", 0);
}

static void jnum(FILE *f, double v, int prec)
{
	if (isfinite(v))
		fprintf(f, "%.*f", prec, v);
	else
		fputs("null", f);
}

static void run_json(FILE *f, const struct world *w, const struct run_out *ro, const struct run_opts *c)
{
	char when[32];

	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	fputs("  \"run\": {\"id\": ", f);
	jstr(f, ro->run_id);
	fprintf(f, ", \"command\": \"run\", \"version\": \"%s\", \"started_utc\": \"%s\",\n    \"argv\": [", FP_VERSION,
		when);
	for (int i = 0; i < ro->argc; i++) {
		fputs(i ? ", " : "", f);
		jstr(f, ro->argv[i]);
	}
	fprintf(f, "],\n    \"nodes\": %d, \"ranks\": %d, \"hosts\": [", w->nnodes, w->size);
	for (int e = 0; e < w->nep; e++) {
		fputs(e ? ", " : "", f);
		jstr(f, w->labels[e]);
	}
	fputs("],\n    \"paths\": [", f);
	for (int i = 0; i < c->p2p.npaths; i++) {
		fputs(i ? ", " : "", f);
		jstr(f, c->p2p.paths[i]);
	}
	fputs("]},\n", f);
}

static void paths_json(FILE *f, const struct world *w, const struct run_state *st)
{
	const struct run_maps *mp = &st->mp;

	fputs("  \"paths\": [", f);
	for (int i = 0; i < mp->npaths; i++) {
		const struct run_path_map *p = &mp->p[i];
		struct emit_topo t = { .n = w->nep, .hosts = (const char *const *)w->labels, .tree = run_maps_map(mp, i),
				       .suspects = &p->held, .rest = p->first.n || p->rest.n ? &p->rest : NULL };

		fprintf(f, "%s\n    {\"path\": ", i ? "," : "");
		jstr(f, p->m->path);
		fputs(", \"kind\": ", f);
		jstr(f, p->m->kind);
		fputs(", \"line_rate_Gbps\": ", f);
		jnum(f, p->m->line_rate_Gbps, 1);
		fprintf(f, ", \"compute\": %s, \"directions_ok\": %d, \"directions_failed\": %d,\n     \"map\": ",
			i == mp->compute ? "true" : "false", p->m->ok, p->m->failed);
		if (t.tree)
			topo_json_map(f, &t, p->m->line_rate_Gbps, 5);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs(mp->npaths ? "\n  ],\n" : "],\n", f);
}

static void coll_json(FILE *f, const struct run_state *st)
{
	const struct coll_summary *cs = &st->coll;

	fputs("  \"collectives\": [", f);
	for (int i = 0; i < cs->nsweeps; i++) {
		const struct coll_sweep_sum *x = &cs->sweep[i];
		double pct = coll_pct_line_rate(x->busbw_GBps, x->line_rate_Gbps);

		fprintf(f, "%s\n    {\"backend\": ", i ? "," : "");
		jstr(f, x->backend);
		fputs(", \"path\": ", f);
		jstr(f, x->path);
		fprintf(f, ", \"op\": \"%s\", \"dtype\": \"%s\", \"redop\": ", x->op, x->dtype);
		if (x->redop[0])
			fprintf(f, "\"%s\"", x->redop);
		else
			fputs("null", f);
		fprintf(f, ", \"size_B\": %llu, \"busbw_GBps\": ", (unsigned long long)x->size_B);
		jnum(f, x->busbw_GBps, 4);
		fputs(", \"line_rate_Gbps\": ", f);
		jnum(f, x->line_rate_Gbps, 1);
		fputs(", \"pct_line_rate\": ", f);
		jnum(f, pct, 1);
		fprintf(f, ", \"wrong\": %lld}", x->wrong);
	}
	fputs(cs->nsweeps ? "\n  ],\n" : "],\n", f);
}

static void links_json(FILE *f, const struct run_state *st)
{
	const struct run_links *l = &st->links;

	fprintf(f, "  \"link_counters\": {\"read\": %s, \"nodes\": %d, \"ports\": %d, \"judged_ports\": %d, "
		"\"left_out\": %d, \"findings_total\": %d,\n    \"findings\": [", l->done ? "true" : "false", l->nodes,
		l->ports, l->judged_ports, l->left_out, l->nfind_all);
	for (int i = 0; i < l->nfind; i++) {
		fprintf(f, "%s\n      {\"kind\": ", i ? "," : "");
		jstr(f, l->find[i].kind);
		fputs(", \"host\": ", f);
		jstr(f, l->find[i].node);
		fputs(", \"port\": ", f);
		jstr(f, l->find[i].port);
		fputs(", \"counters\": ", f);
		jstr(f, l->find[i].what);
		fputc('}', f);
	}
	fputs(l->nfind ? "\n    ]},\n" : "]},\n", f);
}

int run_summary_write(const struct world *w, const struct run_out *ro, const struct run_state *st,
		      const char *verdict, int exit_code)
{
	struct results_file out;

	if (results_tmp_open(&out, ro->dir, "summary.json"))
		return FP_ERUNTIME;
	fprintf(out.f, "{\n  \"schema\": \"%s\",\n", SUMMARY_SCHEMA);
	run_json(out.f, w, ro, st->c);
	paths_json(out.f, w, st);
	coll_json(out.f, st);
	links_json(out.f, st);
	fprintf(out.f, "  \"verdict\": {\"result\": \"%s\", \"exit_code\": %d, \"line\": ", exit_code ? "FAIL" : "PASS",
		exit_code);
	jstr(out.f, verdict);
	fputs(",\n    \"suspects\": ", out.f);
	jstr(out.f, st->which);
	fputs(", \"judges\": ", out.f);
	jstr(out.f, st->verdict);
	fputs(", \"unjudged\": ", out.f);
	jstr(out.f, st->unjudged);
	fprintf(out.f, ", \"unjudged_fails\": %s", st->urc ? "true" : "false");
	fprintf(out.f, ", \"inventory_differs\": %s, \"pairs_failed\": %s, \"collectives_wrong\": %d, "
		"\"paths_below_min_pct\": %d, \"link_findings\": %d}\n}\n", st->irc ? "true" : "false",
		st->prc || st->krc ? "true" : "false", st->coll.wrong_rows, st->coll.nlow, st->links.nfind_all);
	return results_tmp_commit(&out) ? FP_ERUNTIME : 0;
}
