/* emit_prom.c — fabprobe.prom (run_model.h): the run as Prometheus gauges, in the text format
 * that node_exporter's textfile collector reads, for the dashboards a cluster already has.
 * Written from the run's model, as the CSV files and summary.json are. Every label
 * value through the one Prometheus rule (core/escape.h). The run's id is a label of
 * fabprobe_run_info alone: on every series it would make each run a new series. */
#include <math.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "emit.h"
#include "fabric/io/coll_csv.h"
#include "run_model.h"
#include "topo_csv.h"

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

static void pairs_prom(FILE *f, const struct run_model *mp)
{
	static const char *const q[] = { "min", "p50", "p99" };

	if (mp->n > RUN_MODEL_PROM_PAIRS_MAX) {
		fprintf(f, "# the pairs' series are left out: %d nodes, over %d (their figures are in p2p.csv)\n", mp->n,
			RUN_MODEL_PROM_PAIRS_MAX);
		return;
	}
	family(f, "fabprobe_pair_latency_seconds",
	       "One-way latency of a pair at the smallest size: stat min, p50 (the median) or p99 (a gauge: no quantile label, which is a summary's).");
	for (int i = 0; i < mp->npaths; i++) {
		const struct run_model_path *m = &mp->path[i];
		const float *lat[3] = { m->lat_min, m->lat_p50, m->lat_p99 };

		for (int a = 0; a < m->n; a++)
			for (int b = 0; b < m->n; b++)
				for (int k = 0; k < 3 && a != b; k++) {
					const char *l[] = { "path", m->path, "src", mp->hosts[a], "dst", mp->hosts[b],
							    "stat", q[k], NULL };

					if (lat[k])
						sample(f, "fabprobe_pair_latency_seconds", l, lat[k][(size_t)a * m->n + b] * 1e-6);
				}
	}
	family(f, "fabprobe_pair_bandwidth_bytes_per_second", "Bandwidth of a pair at the largest size (median window).");
	for (int i = 0; i < mp->npaths; i++) {
		const struct run_model_path *m = &mp->path[i];

		for (int a = 0; a < m->n && m->bw; a++)
			for (int b = 0; b < m->n; b++) {
				const char *l[] = { "path", m->path, "src", mp->hosts[a], "dst", mp->hosts[b], NULL };

				if (a != b)
					sample(f, "fabprobe_pair_bandwidth_bytes_per_second", l, m->bw[(size_t)a * m->n + b] * 1e9);
			}
	}
}

static void tiers_prom(FILE *f, const struct run_model *mp)
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
			const struct infer_result *r = mp->path[i].map;
			const struct run_model_path *m = &mp->path[i];

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

static void findings_prom(FILE *f, const struct run_model *mp, const struct ctr_summary *links)
{
	family(f, "fabprobe_finding", "A finding that held its re-test (1), by kind, node and path; a link names its peer "
	       "too; a link counter that rose (link_flap, link_errors) names its node and port.");
	for (int i = 0; i < links->nfind; i++) {
		const char *l[] = { "kind", links->find[i].kind, "host", links->find[i].node, "port", links->find[i].port, NULL };

		sample(f, "fabprobe_finding", l, 1);
	}
	for (int i = 0; i < mp->npaths; i++)
		for (int k = 0; k < mp->path[i].held->n; k++) {
			const struct suspect *s = &mp->path[i].held->s[k];
			struct emit_topo t = { .n = mp->n, .hosts = mp->hosts, .tree = mp->path[i].map };
			char where[EMIT_NAME_MAX + 8] = "";
			int up = s->kind == SUSPECT_LOW_BW_UPLINK && t.tree;
			const char *l[] = { "kind", susp_kind_name(s->kind), up ? "group" : "host", up ? where : mp->hosts[s->a],
					    "path", mp->path[i].path, s->b >= 0 ? "peer" : NULL,
					    s->b >= 0 ? mp->hosts[s->b] : NULL, NULL };

			if (up)
				topo_finding_where(&t, s, where, sizeof where);
			if (s->state == SUSP_HELD)
				sample(f, "fabprobe_finding", l, 1);
		}
}

int emit_prom(FILE *f, const struct run_model *m)
{
	const char *info[] = { "run", m->run_id, "version", m->version, NULL };
	static const struct ctr_summary none = { 0 };
	static const struct coll_summary no_coll = { 0 };

	family(f, "fabprobe_run_info", "The fabprobe run these figures come from (1).");
	sample(f, "fabprobe_run_info", info, 1);
	family(f, "fabprobe_run_timestamp_seconds", "When the run started, Unix time.");
	sample(f, "fabprobe_run_timestamp_seconds", NULL, (double)m->started);
	family(f, "fabprobe_verdict", "The run's verdict: 0 PASS, 1 FAIL.");
	sample(f, "fabprobe_verdict", NULL, verdict_fails(m->verdict));
	family(f, "fabprobe_verdict_clause", "Each clause of the verdict: 1 when it fails the run, else 0 (clause: nodes, pairs, collectives, suspects, links, baseline, acceptance, declared, rails, unjudged, map).");
	for (int i = 0; i < m->verdict->n; i++) {
		const char *l[] = { "clause", verdict_about_name(m->verdict->c[i].about), NULL };

		sample(f, "fabprobe_verdict_clause", l, m->verdict->c[i].fails);
	}
	family(f, "fabprobe_unjudged", "1 when something the run was asked to judge could not be (summary.json's verdict.unjudged says what), else 0.");
	sample(f, "fabprobe_unjudged", NULL, m->unjudged[0] ? 1 : 0);
	family(f, "fabprobe_nodes", "Nodes in the run.");
	sample(f, "fabprobe_nodes", NULL, m->nodes);
	tiers_prom(f, m);
	coll_prom(f, m->coll ? m->coll : &no_coll);
	findings_prom(f, m, m->links ? m->links : &none);
	pairs_prom(f, m);
	return ferror(f) ? FP_ERUNTIME : 0;
}
