/* run_prom.c — fabprobe.prom (run_stage.h): the run as Prometheus gauges, in the text format
 * that node_exporter's textfile collector reads, for the dashboards a cluster already has.
 * Written by rank 0 from the same records as the CSV files and summary.json. Every label
 * value through the one Prometheus rule (core/escape.h). The run's id is a label of
 * fabprobe_run_info alone: on every series it would make each run a new series. */
#include <math.h>
#include <string.h>

#include "core/escape.h"
#include "core/results.h"
#include "fabric/emit/emit.h"
#include "fabric/emit/topo_csv.h"
#include "fabric/io/coll_csv.h"
#include "run_stage.h"

static void family(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* name{k1="v1",k2="v2",...} value: labels as NULL-terminated key, value pairs */
static void sample(FILE *f, const char *name, const char *const *labels, double v)
{
	if (!isfinite(v))
		return; /* not measured: no sample (an absent series, never a made-up zero) */
	fputs(name, f);
	for (int i = 0; labels && labels[i]; i += 2) {
		fprintf(f, "%s%s=", i ? "," : "{", labels[i]);
		escape_prom_write(f, labels[i + 1]);
	}
	fprintf(f, "%s %.12g\n", labels && labels[0] ? "}" : "", v);
}

static void pairs_prom(FILE *f, const struct world *w, const struct run_maps *mp)
{
	static const char *const q[] = { "min", "p50", "p99" };

	if (w->nep > RUN_PROM_PAIRS_MAX) {
		fprintf(f, "# the pairs' series are left out: %d nodes, over %d (their figures are in p2p.csv)\n", w->nep,
			RUN_PROM_PAIRS_MAX);
		return;
	}
	family(f, "fabprobe_pair_latency_seconds",
	       "One-way latency of a pair at the smallest size: stat min, p50 (the median) or p99 (a gauge: no quantile label, which is a summary's).");
	for (int i = 0; i < mp->npaths; i++) {
		const struct p2p_matrices *m = mp->p[i].m;
		const float *lat[3] = { m->lat_min, m->lat_p50, m->lat_p99 };

		for (int a = 0; a < m->n; a++)
			for (int b = 0; b < m->n; b++)
				for (int k = 0; k < 3 && a != b; k++) {
					const char *l[] = { "path", m->path, "src", w->labels[a], "dst", w->labels[b],
							    "stat", q[k], NULL };

					if (lat[k])
						sample(f, "fabprobe_pair_latency_seconds", l, lat[k][(size_t)a * m->n + b] * 1e-6);
				}
	}
	family(f, "fabprobe_pair_bandwidth_bytes_per_second", "Bandwidth of a pair at the largest size (median window).");
	for (int i = 0; i < mp->npaths; i++) {
		const struct p2p_matrices *m = mp->p[i].m;

		for (int a = 0; a < m->n && m->bw; a++)
			for (int b = 0; b < m->n; b++) {
				const char *l[] = { "path", m->path, "src", w->labels[a], "dst", w->labels[b], NULL };

				if (a != b)
					sample(f, "fabprobe_pair_bandwidth_bytes_per_second", l, m->bw[(size_t)a * m->n + b] * 1e9);
			}
	}
}

static void tiers_prom(FILE *f, const struct run_maps *mp)
{
	static const char *const what[3] = { "fabprobe_tier_latency_seconds", "fabprobe_tier_bandwidth_bytes_per_second",
					     "fabprobe_path_line_rate_ratio" };
	static const char *const help[3] = {
		"Median one-way latency of the pairs that meet at a tier of the latency map.",
		"Median bandwidth of the pairs that meet at a tier of the latency map.",
		"Median bandwidth of a tier's pairs over the path's line rate (its slowest port).",
	};

	for (int k = 0; k < 3; k++) {
		family(f, what[k], help[k]);
		for (int i = 0; i < mp->npaths; i++) {
			const struct infer_result *r = run_maps_map(mp, i);
			const struct p2p_matrices *m = mp->p[i].m;

			for (int t = 0; r && t < r->ntiers; t++) {
				char kind[EMIT_NAME_MAX];
				const char *l[] = { "path", m->path, "tier", kind, NULL };
				double v = k == 0 ? r->lat_p50_us[t] * 1e-6 : k == 1 ? r->bw_p50_GBps[t] * 1e9
						   : coll_pct_line_rate(r->bw_p50_GBps[t], m->line_rate_Gbps) / 100;

				emit_tier_kind(t, kind);
				sample(f, what[k], l, v);
			}
		}
	}
}

static void coll_prom(FILE *f, const struct coll_summary *cs)
{
	family(f, "fabprobe_collective_busbw_bytes_per_second",
	       "busbw of a collective at the largest size of its sweep (nccl-tests' definition; the better of out of place and in place).");
	for (int i = 0; i < cs->nsweeps; i++) {
		const struct coll_sweep_sum *x = &cs->sweep[i];
		char size[32];
		const char *l[] = { "path", x->path, "backend", x->backend, "op", x->op, "dtype", x->dtype, "size", size, NULL };

		snprintf(size, sizeof size, "%llu", (unsigned long long)x->size_B);
		sample(f, "fabprobe_collective_busbw_bytes_per_second", l, x->busbw_GBps * 1e9);
	}
}

static void findings_prom(FILE *f, const struct world *w, const struct run_maps *mp, const struct run_links *links)
{
	family(f, "fabprobe_finding", "A finding that held its re-test (1), by kind, node and path; a link names its peer "
	       "too; a link counter that rose (link_flap, link_errors) names its node and port.");
	for (int i = 0; i < links->nfind; i++) {
		const char *l[] = { "kind", links->find[i].kind, "host", links->find[i].node, "port", links->find[i].port, NULL };

		sample(f, "fabprobe_finding", l, 1);
	}
	for (int i = 0; i < mp->npaths; i++)
		for (int k = 0; k < mp->p[i].held.n; k++) {
			const struct suspect *s = &mp->p[i].held.s[k];
			struct emit_topo t = { .n = w->nep, .hosts = (const char *const *)w->labels, .tree = run_maps_map(mp, i) };
			char where[EMIT_NAME_MAX + 8] = "";
			int up = s->kind == SUSPECT_LOW_BW_UPLINK && t.tree;
			const char *l[] = { "kind", susp_kind_name(s->kind), up ? "group" : "host", up ? where : w->labels[s->a],
					    "path", mp->p[i].m->path, s->b >= 0 ? "peer" : NULL,
					    s->b >= 0 ? w->labels[s->b] : NULL, NULL };

			if (up)
				topo_finding_where(&t, s, where, sizeof where);
			if (s->state == SUSP_HELD)
				sample(f, "fabprobe_finding", l, 1);
		}
}

int run_prom_write(const struct world *w, const struct run_out *ro, const struct run_state *st)
{
	const struct run_maps *mp = &st->mp;
	struct results_file out;
	const char *info[] = { "run", ro->run_id, "version", FP_VERSION, NULL };
	FILE *f;

	if (results_tmp_open(&out, ro->dir, "fabprobe.prom"))
		return FP_ERUNTIME;
	f = out.f;
	family(f, "fabprobe_run_info", "The fabprobe run these figures come from (1).");
	sample(f, "fabprobe_run_info", info, 1);
	family(f, "fabprobe_run_timestamp_seconds", "When the run started, Unix time.");
	sample(f, "fabprobe_run_timestamp_seconds", NULL, (double)ro->started);
	family(f, "fabprobe_verdict", "The run's verdict: 0 PASS, 1 FAIL.");
	sample(f, "fabprobe_verdict", NULL, verdict_fails(&st->verdict));
	family(f, "fabprobe_verdict_clause", "Each clause of the verdict: 1 when it fails the run, else 0 (clause: nodes, pairs, collectives, suspects, links, baseline, acceptance, declared, unjudged, map).");
	for (int i = 0; i < st->verdict.n; i++) {
		const char *l[] = { "clause", verdict_about_name(st->verdict.c[i].about), NULL };

		sample(f, "fabprobe_verdict_clause", l, st->verdict.c[i].fails);
	}
	family(f, "fabprobe_unjudged", "1 when something the run was asked to judge could not be (summary.json's verdict.unjudged says what), else 0.");
	sample(f, "fabprobe_unjudged", NULL, st->unjudged[0] ? 1 : 0);
	family(f, "fabprobe_nodes", "Nodes in the run.");
	sample(f, "fabprobe_nodes", NULL, w->nnodes);
	tiers_prom(f, mp);
	coll_prom(f, &st->coll);
	findings_prom(f, w, mp, &st->links);
	pairs_prom(f, w, mp);
	return results_tmp_commit(&out) ? FP_ERUNTIME : 0;
}
