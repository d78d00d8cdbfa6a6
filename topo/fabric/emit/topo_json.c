/* topo_json.c — the latency map as JSON, for summary.json (topo_csv.h). Written from the
 * same records as topology.csv, tiers.csv and suspects.csv, by the one JSON writer
 * (core/jw.h). */
#include <math.h>
#include <string.h>

#include "core/jw.h"
#include "fabric/io/coll_csv.h"
#include "fabric/infer/suspects.h"
#include "topo_csv.h"

/* tier k of the map: its switch kind, groups, pairs, figures, separation and members */
static void tier_json(struct jw *j, const struct emit_topo *t, int k, double rate)
{
	const struct infer_result *r = t->tree;
	char kind[EMIT_NAME_MAX];
	int top = k == r->ntiers - 1;

	emit_tier_kind(k, kind);
	jw_object(j, 1);
	jw_kint(j, "tier", k);
	jw_kstr(j, "switch", kind);
	jw_kint(j, "groups", r->ngroups[k]);
	jw_kint(j, "pairs", r->npairs[k]);
	jw_knum(j, "lat_p50_us", r->lat_p50_us[k], 3);
	jw_knum(j, "bw_p50_GBps", r->bw_p50_GBps[k], 4);
	jw_knum(j, "pct_line_rate", coll_pct_line_rate(r->bw_p50_GBps[k], rate), 1);
	jw_key(j, "separation");
	if (top) {
		jw_null(j);
	} else {
		jw_object(j, 1);
		jw_knum(j, "z", r->sep_z[k], 1);
		jw_knum(j, "sigmas", r->sep_step[k], 2);
		jw_kint(j, "pairs", r->sep_pairs[k]);
		jw_kint(j, "within_pairs", r->sep_within[k]);
		jw_end(j);
	}
	jw_knum(j, "step_ratio", top ? NAN : r->step_ratio[k], 3);
	jw_kbool(j, "uncertain", r->uncertain[k]);
	jw_kobject(j, "members", 1); /* the members of each group, in tree order */
	for (int g = 0; g < r->ngroups[k]; g++) {
		char name[EMIT_NAME_MAX];

		emit_group_name(t, k, g, name);
		jw_karray(j, name, 1);
		for (int o = 0; o < t->n; o++)
			if (r->group[(size_t)k * t->n + r->order[o]] == g)
				jw_str(j, t->hosts[r->order[o]]);
		jw_end(j);
	}
	jw_end(j);
	jw_end(j);
}

static void findings_json(struct jw *j, const struct emit_topo *t, const struct susp_list *l)
{
	int n = l ? l->n : t->tree->nsuspects;
	struct topo_finding x;

	jw_array(j, 0);
	for (int i = 0; i < n; i++) {
		topo_finding_get(t, l, i, &x);
		jw_object(j, 1);
		jw_kstr(j, "kind", susp_kind_name(x.s->kind));
		jw_karray(j, "hosts", 1);
		if (x.s->kind == SUSPECT_LOW_BW_UPLINK) { /* the switch group, as topology.csv names it */
			char where[EMIT_NAME_MAX + 8];

			topo_finding_where(t, x.s, where, sizeof where);
			jw_str(j, where);
		} else {
			jw_str(j, t->hosts[x.s->a]);
		}
		if (x.s->b >= 0)
			jw_str(j, t->hosts[x.s->b]);
		jw_end(j);
		jw_kstr(j, "metric", x.metric);
		jw_knum(j, "value", x.v, 4);
		jw_knum(j, "expected", x.e, 4);
		jw_knum(j, "extra", x.x, 4);
		jw_knum(j, "first_value", x.fv, 4);
		jw_knum(j, "first_expected", x.fe, 4);
		jw_kstr(j, "state", susp_state_name(x.s->state));
		jw_kstr(j, "reason", x.why);
		jw_end(j);
	}
	jw_end(j);
}

void topo_json_map(struct jw *j, const struct emit_topo *t, double line_rate_Gbps)
{
	const struct infer_result *r = t->tree;
	static const struct susp_list none = { 0 };

	jw_object(j, 0);
	jw_kint(j, "tiers", r->ntiers);
	jw_knum(j, "noise", r->noise, 4);
	jw_knum(j, "noise_repeat", r->noise_repeat, 4);
	jw_karray(j, "tier", 0);
	for (int k = 0; k < r->ntiers; k++)
		tier_json(j, t, k, line_rate_Gbps);
	jw_end(j);
	jw_key(j, "findings");
	findings_json(j, t, t->suspects);
	jw_key(j, "not_counted");
	findings_json(j, t, t->rest ? t->rest : &none);
	jw_end(j);
}
