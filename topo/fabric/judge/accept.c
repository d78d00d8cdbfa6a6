/* accept.c — see accept.h. */
#include "accept.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/log.h"
#include "fabric/io/check_csv.h"
#include "fabric/io/coll_csv.h"
#include "fabric/io/inv_csv.h"
#include "fabric/io/p2p_csv.h"

/* ---------------------------------------------------------------- p2p rows */

/* Does rule r (of kind what) apply to a row of this kind, path and tier? Returns its
 * specificity + 1 (scope and tier 4, scope 3, tier 2, neither 1), 0 when it does not apply. */
static int applies(const struct exp_rule *r, int what, const char *kind, const char *path, const char *tier)
{
	int scope = r->scope[0] != 0, t = r->tier[0] != 0;

	if (r->what != what)
		return 0;
	if (scope && strcmp(r->scope, kind) && !(!strcmp(r->scope, "mpi") && !strcmp(path, "mpi")))
		return 0;
	if (t && strcmp(r->tier, tier))
		return 0;
	return 1 + 2 * scope + t;
}

static const struct exp_rule *rule_for(const struct exp_set *s, int what, const char *kind, const char *path,
				       const char *tier)
{
	const struct exp_rule *best = NULL;
	int score = 0;

	for (int i = 0; i < s->n; i++) {
		int a = applies(&s->r[i], what, kind, path, tier);

		if (a > score) {
			score = a;
			best = &s->r[i];
		}
	}
	return best;
}

/* Per path (string id): the largest size with a bandwidth, the smallest with a latency. */
static void path_sizes(const struct rundir *rd, long long *bw_size, long long *lat_size)
{
	for (int i = 0; i < rd->tab.n; i++)
		bw_size[i] = lat_size[i] = -1;
	for (size_t i = 0; i < rd->np2p; i++) {
		const struct rd_p2p *p = &rd->p2p[i];

		if (!isnan(p->v[RD_BW]) && p->size > bw_size[p->path])
			bw_size[p->path] = p->size;
		if (!isnan(p->v[RD_LAT_P50]) && (lat_size[p->path] < 0 || p->size < lat_size[p->path]))
			lat_size[p->path] = p->size;
	}
}

static void p2p_judge(const struct rundir *rd, const struct rd_p2p *p, const struct exp_rule *r, double value,
		      const char *metric, const char *tier, acc_sink sink, void *ctx)
{
	struct acc_row row = { .rule = r, .path = rd->tab.str[p->path], .src = rd->tab.str[p->src], .dst = rd->tab.str[p->dst],
			       .size = p->size, .metric = metric, .value = value };

	if (!p->ok) {
		row.value = NAN;
		snprintf(row.note, sizeof row.note, "status %s", rd->tab.str[p->status]);
	} else if (isnan(value)) {
		row.pass = -1;
		snprintf(row.note, sizeof row.note, "no line rate known: not judged");
		sink(ctx, &row);
		return;
	}
	row.pass = exp_meets(r, row.value);
	snprintf(row.note + strlen(row.note), sizeof row.note - strlen(row.note), "%stier %s", row.note[0] ? "; " : "",
		 tier);
	sink(ctx, &row);
}

static int p2p_rows(const struct rundir *rd, const struct exp_set *s, acc_sink sink, void *ctx)
{
	long long *bw_size = malloc(sizeof *bw_size * (size_t)rd->tab.n * 2), *lat_size = bw_size + rd->tab.n;

	if (!bw_size)
		return FP_ERUNTIME;
	path_sizes(rd, bw_size, lat_size);
	for (size_t i = 0; i < rd->np2p; i++) {
		const struct rd_p2p *p = &rd->p2p[i];
		const char *kind = rd->tab.str[p->kind], *path = rd->tab.str[p->path];
		const char *tier = rundir_tier_name(rd, rundir_tier(rd, p->src, p->dst));
		const struct exp_rule *r;
		double bw = isnan(p->retest[RD_BW]) ? p->v[RD_BW] : fmax(p->v[RD_BW], p->retest[RD_BW]);
		double lat = isnan(p->retest[RD_LAT_P50]) ? p->v[RD_LAT_P50] : fmin(p->v[RD_LAT_P50], p->retest[RD_LAT_P50]);

		if (p->size == bw_size[p->path]) {
			if ((r = rule_for(s, EXP_MIN_PCT_LINE_RATE, kind, path, tier)))
				p2p_judge(rd, p, r, p->line_rate > 0 ? bw * 8 / p->line_rate * 100 : NAN, p2p_csv_cols[P2P_COL_PCT_LINE_RATE].name,
					  tier, sink, ctx);
			if ((r = rule_for(s, EXP_MIN_BW, kind, path, tier)))
				p2p_judge(rd, p, r, bw, rundir_metric_name(RD_BW), tier, sink, ctx);
		}
		if (p->size == lat_size[p->path] && (r = rule_for(s, EXP_MAX_LAT, kind, path, tier)))
			p2p_judge(rd, p, r, lat, rundir_metric_name(RD_LAT_P50), tier, sink, ctx);
	}
	free(bw_size);
	return 0;
}

/* ---------------------------------------------------------------- all-reduce */

static void allreduce_rows(const struct rundir *rd, const struct exp_rule *r, acc_sink sink, void *ctx)
{
	static const char *const backends[] = { "mpi", "nccl" };

	for (int b = 0; b < 2; b++) {
		long long size = r->size, found = 0;

		if (r->scope[0] && strcmp(r->scope, backends[b]))
			continue;
		for (int i = 0; !r->size && i < rd->ncoll; i++) {
			const struct rd_coll *c = &rd->coll[i];

			if (!strcmp(rd->tab.str[c->backend], backends[b]) && !strcmp(rd->tab.str[c->op], "allreduce") &&
			    c->size > size)
				size = c->size;
		}
		for (int i = 0; i < rd->ncoll; i++) {
			const struct rd_coll *c = &rd->coll[i];
			struct acc_row row = { .rule = r, .path = backends[b], .src = "allreduce", .size = size,
					       .metric = coll_csv_cols[COLL_COL_BUSBW].name, .value = c->busbw };

			if (strcmp(rd->tab.str[c->backend], backends[b]) || strcmp(rd->tab.str[c->op], "allreduce") ||
			    c->in_place || c->size != size)
				continue;
			row.dst = rd->tab.str[c->dtype];
			row.pass = exp_meets(r, c->busbw);
			snprintf(row.note, sizeof row.note, "%s %s, %d ranks%s", rd->tab.str[c->dtype], rd->tab.str[c->redop],
				 c->nranks, c->wrong > 0 ? ", WRONG results" : "");
			if (c->wrong > 0)
				row.pass = 0;
			sink(ctx, &row);
			found++;
		}
		/* asked for one backend, or the backend ran at all: a missing size is a failure */
		if (!found && (r->scope[0] || size > 0)) {
			struct acc_row row = { .rule = r, .path = backends[b], .src = "allreduce", .dst = "",
					       .size = r->size ? r->size : -1, .metric = coll_csv_cols[COLL_COL_BUSBW].name,
					       .value = NAN };

			snprintf(row.note, sizeof row.note, "%s all-reduce not measured%s", backends[b],
				 r->size ? " at this size" : "");
			sink(ctx, &row);
		}
	}
}

/* ---------------------------------------------------------------- nodes */

static int nic_is(const struct rundir *rd, const struct rd_nic *n, int host, const char *kind)
{
	return n->host == host && n->up && !n->is_virtual && !strcmp(rd->tab.str[n->kind], kind);
}

static void node_rows(const struct rundir *rd, const struct exp_rule *r, acc_sink sink, void *ctx)
{
	for (int i = 0; i < rd->nnode; i++) {
		const struct rd_node *nd = &rd->node[i];
		struct acc_row row = { .rule = r, .path = "", .src = rd->tab.str[nd->host], .dst = "", .size = -1 };
		int count = 0;

		if (r->what == EXP_GPUS) {
			row.metric = inv_csv_node_cols[INV_CSV_NODE_GPUS].name;
			row.value = nd->gpus < 0 ? NAN : (double)nd->gpus;
			row.pass = exp_meets(r, row.value);
			sink(ctx, &row);
			continue;
		}
		for (int k = 0; k < rd->nnic; k++) {
			const struct rd_nic *n = &rd->nic[k];

			if (!nic_is(rd, n, nd->host, r->scope))
				continue;
			count++;
			if (r->what == EXP_NIC_RATE) {
				row.dst = rd->tab.str[n->name];
				row.metric = inv_csv_nic_cols[INV_CSV_NIC_RATE].name;
				row.value = n->rate;
				row.pass = exp_meets(r, n->rate);
				sink(ctx, &row);
			}
		}
		if (r->what == EXP_NICS || !count) {
			row.dst = "";
			row.metric = inv_csv_node_cols[INV_CSV_NODE_NICS].name;
			row.value = count;
			row.pass = r->what == EXP_NICS ? exp_meets(r, count) : 0;
			if (!count)
				snprintf(row.note, sizeof row.note, "no up %s NIC", r->scope);
			sink(ctx, &row);
		}
	}
}

/* The rules that need nodes.csv (and nics.csv), when the run has none: one row saying so. */
static void not_judged(const struct exp_rule *r, const char *why, acc_sink sink, void *ctx)
{
	struct acc_row row = { .rule = r, .path = "", .src = "", .dst = "", .size = -1, .metric = exp_what_name(r->what),
			       .value = NAN, .pass = -1 };

	snprintf(row.note, sizeof row.note, "%s", why);
	sink(ctx, &row);
}

int acc_evaluate(const struct rundir *rd, const struct exp_set *s, acc_sink sink, void *ctx)
{
	if (p2p_rows(rd, s, sink, ctx))
		return FP_ERUNTIME;
	for (int i = 0; i < s->n; i++) {
		const struct exp_rule *r = &s->r[i];

		if (r->what == EXP_MIN_ALLREDUCE) {
			if (rd->has_coll)
				allreduce_rows(rd, r, sink, ctx);
			else
				not_judged(r, "no collectives.csv in this run", sink, ctx);
		} else if (r->what == EXP_NODES) {
			struct acc_row row = { .rule = r, .path = "", .src = "", .dst = "", .size = -1, .metric = "nodes",
					       .value = rd->has_nodes ? rd->nnode : rd->topo.n };

			row.pass = exp_meets(r, row.value);
			if (!rd->has_nodes && !rd->has_topo)
				not_judged(r, "no nodes.csv or topology.csv in this run", sink, ctx);
			else
				sink(ctx, &row);
		} else if (r->what >= EXP_GPUS) {
			if (!rd->has_nodes || (r->what != EXP_GPUS && !rd->has_nics))
				not_judged(r, "no inventory (nodes.csv, nics.csv) in this run", sink, ctx);
			else
				node_rows(rd, r, sink, ctx);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- the report */

int acc_report_init(struct acc_report *r, const struct exp_set *s, FILE *csv)
{
	*r = (struct acc_report){ .csv = csv, .set = s, .sum = calloc((size_t)s->n + 1, sizeof *r->sum) };
	if (csv)
		csv_header(csv, acc_csv_cols, ACC_NCOLS);
	return r->sum ? 0 : FP_ERUNTIME;
}

void acc_report_free(struct acc_report *r)
{
	free(r->sum);
	free(r->failed_pairs);
	*r = (struct acc_report){ 0 };
}

static void row_write(FILE *f, const struct acc_row *row)
{
	const struct exp_rule *r = row->rule;
	char expect[64];

	if (isnan(r->warn))
		snprintf(expect, sizeof expect, "%s %g", exp_op(r->what), r->value);
	else
		snprintf(expect, sizeof expect, "%s %g (warn %g)", exp_op(r->what), r->value, r->warn);
	csv_row(f, acc_csv_cols, ACC_NCOLS, &(struct acc_csv_row){
		.rule = r->key, .from = r->from, .path = row->path, .src = row->src, .dst = row->dst,
		.size_B = row->size, .metric = row->metric, .value = isfinite(row->value) ? row->value : NAN,
		.expect = expect, .pass = row->pass, .note = row->note,
		.warn = row->pass == 1 ? exp_warns(r, row->value) : -1 });
}

/* how far a value stands on the right side of the rule, relative (negative: failed) */
static double margin(const struct acc_row *row)
{
	double e = row->rule->value > 0 ? row->rule->value : 1, v = row->value;
	const char *op = exp_op(row->rule->what);

	if (isnan(v))
		return -INFINITY;
	return op[0] == '<' ? (e - v) / e : op[0] == '=' ? -fabs(v - e) / e : (v - e) / e;
}

static void failed_pair_add(struct acc_report *r, const struct acc_row *row)
{
	const char *a = strcmp(row->src, row->dst) < 0 ? row->src : row->dst, *b = a == row->src ? row->dst : row->src;

	for (int i = r->nfailed_pairs - 1; i >= 0 && i >= r->nfailed_pairs - 64; i--)
		if (!strcmp(r->failed_pairs[i].path, row->path) && !strcmp(r->failed_pairs[i].a, a) &&
		    !strcmp(r->failed_pairs[i].b, b))
			return;
	if (r->nfailed_pairs == r->cap) {
		struct acc_pair *q = realloc(r->failed_pairs, sizeof *q * (size_t)(r->cap = r->cap * 2 + 16));

		if (!q) {
			r->oom = 1;
			return;
		}
		r->failed_pairs = q;
	}
	r->failed_pairs[r->nfailed_pairs++] = (struct acc_pair){ row->path, a, b };
}

void acc_report_row(void *ctx, const struct acc_row *row)
{
	struct acc_report *r = ctx;
	struct acc_rule_sum *s = &r->sum[row->rule - r->set->r];
	double m = margin(row);

	if (r->csv)
		row_write(r->csv, row);
	if (row->pass < 0)
		return;
	s->judged++;
	if (row->pass) {
		s->warned += exp_warns(row->rule, row->value);
		return;
	}
	s->failed++;
	if (row->path[0] && strcmp(row->src, "allreduce") && row->dst[0])
		failed_pair_add(r, row);
	int k;

	if (s->nworst < ACC_WORST)
		k = s->nworst++;
	else if (m < s->margin[ACC_WORST - 1])
		k = ACC_WORST - 1;
	else
		return;
	while (k > 0 && s->margin[k - 1] > m) {
		s->worst[k] = s->worst[k - 1];
		s->margin[k] = s->margin[k - 1];
		k--;
	}
	s->worst[k] = *row;
	s->margin[k] = m;
}

int acc_report_failed_rules(const struct acc_report *r)
{
	int n = 0;

	for (int i = 0; i < r->set->n; i++)
		n += r->sum[i].failed > 0;
	return n;
}

int acc_report_warned_rules(const struct acc_report *r)
{
	int n = 0;

	for (int i = 0; i < r->set->n; i++)
		n += !r->sum[i].failed && r->sum[i].warned > 0;
	return n;
}

static int is_default(const struct exp_rule *e)
{
	return !strcmp(e->from, "default");
}

int acc_report_unjudged_rules(const struct acc_report *r)
{
	int n = 0;

	for (int i = 0; i < r->set->n; i++)
		n += !r->sum[i].judged && !is_default(&r->set->r[i]);
	return n;
}

void acc_report_print(FILE *f, const struct acc_report *r)
{
	int unjudged = acc_report_unjudged_rules(r), warned = acc_report_warned_rules(r);

	fprintf(f, "\nacceptance: %d rule%s, %d failed", r->set->n, r->set->n == 1 ? "" : "s", acc_report_failed_rules(r));
	if (warned)
		fprintf(f, ", %d in the warn band", warned);
	fprintf(f, unjudged ? ", %d unjudged\n" : "\n", unjudged);
	for (int i = 0; i < r->set->n; i++) {
		const struct exp_rule *e = &r->set->r[i];
		const struct acc_rule_sum *s = &r->sum[i];
		const char *mark = s->failed ? "FAIL" : s->warned ? "WARN" : s->judged ? "ok" : is_default(e) ? "-" : "UNJUDGED";

		fprintf(f, "  %-4s %s %s %g", mark, e->key, exp_op(e->what), e->value);
		if (!isnan(e->warn))
			fprintf(f, " warn %g", e->warn);
		fprintf(f, " (%s): ", e->from);
		if (!s->judged)
			fprintf(f, is_default(e) ? "nothing to judge\n" : "nothing in this run to judge it\n");
		else if (!s->failed && s->warned)
			fprintf(f, "%lld passed, %lld of them in the warn band (past %g)\n", s->judged, s->warned, e->warn);
		else if (!s->failed)
			fprintf(f, "%lld passed\n", s->judged);
		else
			fprintf(f, "%lld of %lld failed; worst:\n", s->failed, s->judged);
		for (int k = 0; s->failed && k < s->nworst; k++) {
			const struct acc_row *w = &s->worst[k];

			fprintf(f, "         %s%s%s%s%s", w->path, w->path[0] ? " " : "", w->src,
				w->dst[0] && w->path[0] && strcmp(w->src, "allreduce") ? "->" : w->dst[0] ? " " : "", w->dst);
			if (w->size >= 0)
				fprintf(f, " %lld B", w->size);
			if (isfinite(w->value))
				fprintf(f, " %s %.4g", w->metric, w->value);
			if (w->note[0])
				fprintf(f, " (%s)", w->note);
			fputc('\n', f);
		}
	}
}
