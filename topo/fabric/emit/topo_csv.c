/* topo_csv.c — see topo_csv.h. */
#include "topo_csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "fabric/io/map_csv.h"
#include "core/escape.h"
#include "fabric/io/hostlist.h"
#include "fabric/infer/suspects.h"

void topo_csv_topology(FILE *f, const struct emit_topo *t)
{
	const struct infer_result *r = t->tree;

	fprintf(f, "%s,%s", map_topo_cols[MAP_TOPO_HOST].name, map_topo_cols[MAP_TOPO_ORDER].name);
	for (int k = 0; k < r->ntiers; k++)
		fprintf(f, "," MAP_CSV_TIER_FMT, k);
	fprintf(f, ",%s\n", map_topo_cols[MAP_TOPO_OFFSET].name);
	for (int k = 0; k < t->n; k++) {
		int node = r->order[k];

		csv_field(f, t->hosts[node]);
		fprintf(f, ",%d", k);
		for (int tier = 0; tier < r->ntiers; tier++) {
			char g[EMIT_NAME_MAX];

			emit_group_name(t, tier, r->group[(size_t)tier * t->n + node], g);
			fprintf(f, ",%s", g);
		}
		fprintf(f, ",%.*f\n", map_topo_cols[MAP_TOPO_OFFSET].precision,
			fabs(r->offset_us[node]) < 0.0005 ? 0.0 : r->offset_us[node]);
	}
}

/* a figure as the CSVs hold it: infinite (the top tier's threshold) is no figure, an empty cell */
static double fin(double v)
{
	return isfinite(v) ? v : NAN;
}

void topo_csv_tiers(FILE *f, const struct emit_topo *t)
{
	const struct infer_result *r = t->tree;

	csv_header(f, map_tier_cols, MAP_TIER_NCOLS);
	for (int k = 0; k < r->ntiers; k++) {
		char kind[EMIT_NAME_MAX];
		int top = k == r->ntiers - 1;

		emit_tier_kind(k, kind);
		csv_row(f, map_tier_cols, MAP_TIER_NCOLS, &(struct map_tier_row){
			.tier = k, .sw = kind, .groups = r->ngroups[k], .pairs = r->npairs[k],
			.lat_p50_us = fin(r->lat_p50_us[k]), .bw_p50_GBps = fin(r->bw_p50_GBps[k]),
			.threshold_us = fin(r->threshold_us[k]), .level_us = fin(r->level_us[k]),
			.sep_z = top ? NAN : fin(r->sep_z[k]), .sep_sigma = top ? NAN : fin(r->sep_step[k]),
			.sep_pairs = top ? -1 : r->sep_pairs[k], .within_pairs = top ? -1 : r->sep_within[k],
			.step_ratio = top ? NAN : fin(r->step_ratio[k]), .uncertain = r->uncertain[k] });
	}
}

/* The figure that counts (the confirming one once there is one) and the first. */
void topo_suspect_figures(const struct suspect *s, double *v, double *e, double *x, double *fv, double *fe)
{
	int confirmed = s->state != SUSP_CANDIDATE;

	*v = confirmed ? s->value2 : s->value;
	*e = confirmed ? s->expected2 : s->expected;
	*x = confirmed ? s->extra2 : s->extra;
	*fv = confirmed ? s->value : NAN;
	*fe = confirmed ? s->expected : NAN;
}

void topo_finding_where(const struct emit_topo *t, const struct suspect *s, char *out, size_t len)
{
	char g[EMIT_NAME_MAX];

	if (s->kind == SUSPECT_LOW_BW_UPLINK && s->rule >= 0 && s->rule < t->tree->ntiers) {
		emit_group_name(t, s->rule, t->tree->group[(size_t)s->rule * t->n + s->a], g);
		snprintf(out, len, "%s", g);
	} else {
		snprintf(out, len, s->b >= 0 ? "%s %s" : "%s", t->hosts[s->a], s->b >= 0 ? t->hosts[s->b] : "");
	}
}

void topo_suspect_text(const struct emit_topo *t, const struct suspect *s, char *hosts, size_t hl,
		       const char **metric, char *why, size_t wl)
{
	const char *a = t->hosts[s->a], *b = s->b >= 0 ? t->hosts[s->b] : "";
	char kind[EMIT_NAME_MAX] = "";
	double v, e, x, fv, fe;
	size_t k;

	topo_suspect_figures(s, &v, &e, &x, &fv, &fe);
	if (s->tier >= 0 && s->tier < t->tree->ntiers)
		emit_tier_kind(s->tier, kind);
	snprintf(hosts, hl, s->b >= 0 ? "%s %s" : "%s", a, b);
	if (s->kind == SUSPECT_LOW_BW_UPLINK) /* the switch group whose uplink it is */
		topo_finding_where(t, s, hosts, hl);
	switch (s->kind) {
	case SUSPECT_SLOW_NODE:
		*metric = "offset_us";
		snprintf(why, wl, "every path of %s is %.2f us slower than the tier model gives for its peers: slow NIC, host or cable", a, v);
		break;
	case SUSPECT_LOW_BW_NODE:
		*metric = "bw_ratio";
		snprintf(why, wl, "%s's pairs reach %.0f%% of their tier's median bandwidth: its NIC link (rate, width, cable) or host", a, 100 * v);
		break;
	case SUSPECT_SLOW_LINK:
		*metric = "latency_us";
		snprintf(why, wl, "%s-%s: %.2f us where the tier model gives %.2f us for these two nodes under one %s switch: a slow link or a longer route", a, b, v, e, kind);
		break;
	case SUSPECT_FAST_LINK:
		*metric = "latency_us";
		snprintf(why, wl, "%s-%s: %.2f us, faster than the %.2f us the tier model gives for two nodes that meet at a %s switch: misgrouped, or a route that skips a tier", a, b, v, e, kind);
		break;
	case SUSPECT_LOW_BW_LINK:
		*metric = "bandwidth_GBps";
		snprintf(why, wl, "%s->%s: %.3f GB/s, under half the %s median %.3f GB/s: a bad link or a routing collision", a, b, v, kind, e);
		break;
	case SUSPECT_LOW_BW_UPLINK: {
		char members[300] = "";
		int k = 0, more = 0;

		for (int i = 0; i < t->n; i++)
			if (s->rule >= 0 && s->rule < t->tree->ntiers &&
			    t->tree->group[(size_t)s->rule * t->n + i] == t->tree->group[(size_t)s->rule * t->n + s->a]) {
				if (k + strlen(t->hosts[i]) + 2 < sizeof members)
					k += snprintf(members + k, sizeof members - (size_t)k, "%s%s", k ? " " : "", t->hosts[i]);
				else
					more++;
			}
		*metric = "bw_ratio";
		snprintf(why, wl, "the pairs across %s's uplink reach %.0f%% of their tier's upper quartile while its own "
			 "pairs do not fall: the uplink (a link down in a bundle, its rate, ECMP), not its nodes (%s%s)",
			 hosts, 100 * v, members, more ? " and more" : "");
		break;
	}
	case SUSPECT_JITTERY_LINK:
		if (s->rule == SUSP_JITTER_P99) {
			*metric = "lat_p99_us";
			snprintf(why, wl, "%s-%s: p99 %.1f us, %.0f times its p50 of %.1f us (minimum %.1f us), far beyond the other pairs under a %s switch: a heavy tail (a flapping link, drops and retransmits, a preempted host)", a, b, v, v / e, e, x, kind);
		} else {
			*metric = "lat_p50_us";
			snprintf(why, wl, "%s-%s: p50 %.1f us, %.1f times its minimum of %.1f us (p99 %.1f us), far beyond the other pairs under a %s switch: a congested link or a busy host", a, b, v, v / e, e, x, kind);
		}
		break;
	case SUSPECT_UNMEASURED_NODE:
		*metric = "";
		snprintf(why, wl, "%s: none of its pairs was measured in either direction (timeout or error): down, "
			 "unreachable or hung on this path; nothing says it is healthy", a);
		break;
	default:
		*metric = "";
		snprintf(why, wl, "%s-%s: not measured in either direction (timeout or error)", a, b);
	}
	k = strlen(why);
	if (s->state == SUSP_NEW)
		snprintf(why + k, wl - k, " (seen only on re-test)");
	else if (s->state == SUSP_NOT_RETESTED)
		snprintf(why + k, wl - k, " (not re-tested: the confirmation's time ran out)");
	else if (s->state != SUSP_CANDIDATE)
		snprintf(why + k, wl - k, " (first pass %.4g, re-tested alone %.4g)", fv, v);
}

const struct suspect *topo_suspect_at(const struct emit_topo *t, const struct susp_list *l, int i,
				       struct suspect *tmp)
{
	const struct infer_suspect *is;

	if (l)
		return &l->s[i];
	is = &t->tree->suspects[i];
	*tmp = (struct suspect){ .kind = is->kind, .a = is->a, .b = is->b, .tier = is->tier,
				       .state = SUSP_CANDIDATE, .value = is->value, .expected = is->expected,
				       .extra = NAN, .value2 = NAN, .expected2 = NAN, .extra2 = NAN };
	return tmp;
}

void topo_finding_get(const struct emit_topo *t, const struct susp_list *l, int i, struct topo_finding *out)
{
	out->s = topo_suspect_at(t, l, i, &out->tmp);
	topo_suspect_figures(out->s, &out->v, &out->e, &out->x, &out->fv, &out->fe);
	topo_suspect_text(t, out->s, out->hosts, sizeof out->hosts, &out->metric, out->why, sizeof out->why);
}

static void suspects_write(FILE *f, const struct emit_topo *t, const struct susp_list *l)
{
	int n = l ? l->n : t->tree->nsuspects;
	struct topo_finding x;

	csv_header(f, map_finding_cols, MAP_FIND_NCOLS);
	for (int i = 0; i < n; i++) {
		topo_finding_get(t, l, i, &x);
		csv_row(f, map_finding_cols, MAP_FIND_NCOLS, &(struct map_finding_row){
			.kind = susp_kind_name(x.s->kind), .hosts = x.hosts, .metric = x.metric, .value = fin(x.v),
			.expected = fin(x.e), .first_value = fin(x.fv), .first_expected = fin(x.fe),
			.state = susp_state_name(x.s->state), .reason = x.why });
	}
}

void topo_csv_suspects(FILE *f, const struct emit_topo *t)
{
	suspects_write(f, t, t->suspects);
}

void topo_csv_retested(FILE *f, const struct emit_topo *t)
{
	static const struct susp_list none = { 0 };

	suspects_write(f, t, t->rest ? t->rest : &none);
}

void topo_summary_print(FILE *f, const struct emit_topo *t)
{
	const struct infer_result *r = t->tree;
	const char **names = malloc(sizeof *names * (size_t)(t->n + 1));
	char err[EMIT_ERR_MAX];

	fprintf(f, "\nlatency map: %d tier%s (pair noise %.1f%%, %.2f us at the lowest tier", r->ntiers,
		r->ntiers == 1 ? "" : "s", 100 * r->noise, r->noise_us);
	if (isfinite(r->noise_repeat))
		fprintf(f, "; the latency passes disagree by %.1f%% on %lld leaf directions", 100 * r->noise_repeat,
			r->noise_repeat_n);
	fputs(")\n", f);
	for (int k = 0; k < r->ntiers; k++) {
		char kind[EMIT_NAME_MAX];

		emit_tier_kind(k, kind);
		fprintf(f, "  tier %d (%s): %d group%s, p50 %.2f us", k, kind, r->ngroups[k],
			r->ngroups[k] == 1 ? "" : "s", r->lat_p50_us[k]);
		if (isfinite(r->bw_p50_GBps[k]))
			fprintf(f, ", %.3f GB/s", r->bw_p50_GBps[k]);
		if (k < r->ntiers - 1)
			fprintf(f, "; every group stands z >= %.1f (%.1f noise sigmas, %lld pairs) from its nearest",
				r->sep_z[k], r->sep_step[k], r->sep_pairs[k]);
		if (r->uncertain[k])
			fprintf(f, "; UNCERTAIN: its step is %.0f%% of the fabric's largest other step (a switch hop "
				"costs about the same at every tier): left out of the scheduler files", 100 * r->step_ratio[k]);
		fputc('\n', f);
	}
	if (r->refused)
		fprintf(f, "  %d tier%s not taken as a switch: a step of %.2f us, %.0f%% of the fabric's largest other "
			"step, with the same bandwidth across it (pair offsets: cables, ECMP paths, a far socket)\n",
			r->refused, r->refused == 1 ? "" : "s", r->refused_step_us, 100 * r->refused_ratio);
	if (!r->structure && t->n > 2)
		fputs("  no tier structure above the noise: one group (one switch, or switches the latencies "
		      "cannot tell apart)\n", f);
	for (int g = 0; names && g < r->ngroups[0]; g++) {
		char name[EMIT_NAME_MAX], *list = NULL;
		int k = 0;

		for (int i = 0; i < t->n; i++)
			if (r->group[r->order[i]] == g)
				names[k++] = t->hosts[r->order[i]];
		emit_group_name(t, 0, g, name);
		if (hostlist_compress(names, k, &list, err, sizeof err) == 0)
			escape_term_line(f, "    %s (%d): %s", name, k, list);
		free(list);
	}
	free(names);
	int ns = t->suspects ? t->suspects->n : r->nsuspects;
	if (t->rest && ns)
		fprintf(f, "  suspects: %d (confirmed: re-tested alone, they held)\n", ns);
	else if (t->rest && t->rest->n)
		fputs("  suspects: 0 (the candidates, re-tested alone, did not hold)\n", f);
	else if (t->rest)
		fputs("  suspects: 0\n", f);
	else
		fprintf(f, "  suspects: %d%s\n", ns, t->suspects ? "" : " (candidates, not re-tested)");
	for (int i = 0; i < ns && i < 10; i++) {
		struct suspect tmp;
		const struct suspect *s = topo_suspect_at(t, t->suspects, i, &tmp);
		char hosts[600], why[1200];
		const char *metric;

		topo_suspect_text(t, s, hosts, sizeof hosts, &metric, why, sizeof why);
		escape_term_line(f, "    %s: %s", susp_kind_name(s->kind), why); /* why names hosts */
	}
	if (ns > 10)
		fprintf(f, "    … %d more in suspects%s.csv\n", ns - 10, t->suffix ? t->suffix : "");
}
