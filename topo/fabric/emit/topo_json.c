/* topo_json.c — the latency map as JSON, for summary.json (topo_csv.h). Written from the
 * same records as topology.csv, tiers.csv and suspects.csv, by the one JSON string rule
 * (core/escape.h). */
#include <math.h>
#include <string.h>

#include "core/escape.h"
#include "fabric/io/coll_csv.h"
#include "fabric/judge/suspects.h"
#include "topo_csv.h"

static void jstr(FILE *f, const char *s)
{
	escape_json_write(f, s, 0);
}

/* a number, or null when not finite */
static void jnum(FILE *f, const char *key, double v, int prec)
{
	fprintf(f, "\"%s\": ", key);
	if (isfinite(v))
		fprintf(f, "%.*f", prec, v);
	else
		fputs("null", f);
}

static void tier_json(FILE *f, const struct emit_topo *t, int k, double rate, const char *pad)
{
	const struct infer_result *r = t->tree;
	char kind[EMIT_NAME_MAX];
	int top = k == r->ntiers - 1;

	emit_tier_kind(k, kind);
	fprintf(f, "%s  {\"tier\": %d, \"switch\": \"%s\", \"groups\": %d, \"pairs\": %lld, ", pad, k, kind,
		r->ngroups[k], r->npairs[k]);
	jnum(f, "lat_p50_us", r->lat_p50_us[k], 3);
	fputs(", ", f);
	jnum(f, "bw_p50_GBps", r->bw_p50_GBps[k], 4);
	fputs(", ", f);
	jnum(f, "pct_line_rate", coll_pct_line_rate(r->bw_p50_GBps[k], rate), 1);
	fputs(", \"separation\": ", f);
	if (top) {
		fputs("null", f);
	} else {
		fputc('{', f);
		jnum(f, "z", r->sep_z[k], 1);
		fputs(", ", f);
		jnum(f, "sigmas", r->sep_step[k], 2);
		fprintf(f, ", \"pairs\": %lld, \"within_pairs\": %lld}", r->sep_pairs[k], r->sep_within[k]);
	}
	fputs(", ", f);
	jnum(f, "step_ratio", top ? NAN : r->step_ratio[k], 3);
	fprintf(f, ", \"uncertain\": %s", r->uncertain[k] ? "true" : "false");
	/* the members of each group, in tree order */
	fprintf(f, ",\n%s   \"members\": {", pad);
	for (int g = 0; g < r->ngroups[k]; g++) {
		char name[EMIT_NAME_MAX];
		int first = 1;

		emit_group_name(t, k, g, name);
		fprintf(f, "%s\"%s\": [", g ? ", " : "", name);
		for (int o = 0; o < t->n; o++) {
			int node = r->order[o];

			if (r->group[(size_t)k * t->n + node] != g)
				continue;
			fputs(first ? "" : ", ", f);
			jstr(f, t->hosts[node]);
			first = 0;
		}
		fputc(']', f);
	}
	fputs("}}", f);
}

static void findings_json(FILE *f, const struct emit_topo *t, const struct susp_list *l, const char *pad)
{
	int n = l ? l->n : t->tree->nsuspects;
	struct topo_finding x;

	fputc('[', f);
	for (int i = 0; i < n; i++) {
		topo_finding_get(t, l, i, &x);
		fprintf(f, "%s\n%s  {\"kind\": \"%s\", \"hosts\": [", i ? "," : "", pad, susp_kind_name(x.s->kind));
		if (x.s->kind == SUSPECT_LOW_BW_UPLINK) { /* the switch group, as topology.csv names it */
			char where[EMIT_NAME_MAX + 8];

			topo_finding_where(t, x.s, where, sizeof where);
			jstr(f, where);
		} else {
			jstr(f, t->hosts[x.s->a]);
		}
		if (x.s->b >= 0) {
			fputs(", ", f);
			jstr(f, t->hosts[x.s->b]);
		}
		fprintf(f, "], \"metric\": \"%s\", ", x.metric);
		jnum(f, "value", x.v, 4);
		fputs(", ", f);
		jnum(f, "expected", x.e, 4);
		fputs(", ", f);
		jnum(f, "first_value", x.fv, 4);
		fputs(", ", f);
		jnum(f, "first_expected", x.fe, 4);
		fprintf(f, ", \"state\": \"%s\", \"reason\": ", susp_state_name(x.s->state));
		jstr(f, x.why);
		fputc('}', f);
	}
	if (n)
		fprintf(f, "\n%s ", pad);
	fputc(']', f);
}

void topo_json_map(FILE *f, const struct emit_topo *t, double line_rate_Gbps, int indent)
{
	const struct infer_result *r = t->tree;
	static const struct susp_list none = { 0 };
	char pad[64];

	snprintf(pad, sizeof pad, "%*s", indent < 60 ? indent : 60, "");
	fprintf(f, "{\"tiers\": %d, \"noise\": ", r->ntiers);
	if (isfinite(r->noise))
		fprintf(f, "%.4f", r->noise);
	else
		fputs("null", f);
	fputs(", \"noise_repeat\": ", f);
	if (isfinite(r->noise_repeat))
		fprintf(f, "%.4f", r->noise_repeat);
	else
		fputs("null", f);
	fprintf(f, ",\n%s \"tier\": [\n", pad);
	for (int k = 0; k < r->ntiers; k++) {
		tier_json(f, t, k, line_rate_Gbps, pad);
		fputs(k < r->ntiers - 1 ? ",\n" : "\n", f);
	}
	fprintf(f, "%s ],\n%s \"findings\": ", pad, pad);
	findings_json(f, t, t->suspects, pad);
	fprintf(f, ",\n%s \"not_counted\": ", pad);
	findings_json(f, t, t->rest ? t->rest : &none, pad);
	fputc('}', f);
}
