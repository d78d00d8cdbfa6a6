/* compare_out.c — see compare_out.h. */
#include "compare_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/escape.h"
#include "fabric/io/check_csv.h"
#include "fabric/io/coll_csv.h"

void cmp_report_init(struct cmp_report *r, FILE *csv, FILE *map_csv)
{
	*r = (struct cmp_report){ .csv = csv, .map_csv = map_csv, .tol_min = INFINITY, .tol_max = -INFINITY };
	if (csv)
		csv_header(csv, cmp_csv_cols, CMP_NCOLS);
	if (map_csv)
		csv_header(map_csv, cmp_map_csv_cols, CMP_MAP_NCOLS);
}

void cmp_report_free(struct cmp_report *r)
{
	free(r->worse);
	r->worse = NULL;
	r->nworse = r->worse_cap = 0;
}

/* a figure as compare.csv holds it ("%.4f"; not finite: empty), into buf */
static const char *fig(double v, char buf[32])
{
	if (!isfinite(v))
		return "";
	snprintf(buf, 32, "%.4f", v);
	return buf;
}

static void item_row(FILE *f, const struct cmp_item *it)
{
	int text = it->before_s || it->after_s; /* an inventory value: text, no retest */
	char b[32], a[32], r[32];

	csv_row(f, cmp_csv_cols, CMP_NCOLS, &(struct cmp_csv_row){
		.kind = cmp_kind_name(it->kind), .path = it->path, .src = it->src, .dst = it->dst, .size_B = it->size,
		.metric = it->metric, .tier = it->tier,
		.before = text ? (it->before_s ? it->before_s : "") : fig(it->before, b),
		.after = text ? (it->after_s ? it->after_s : "") : fig(it->after, a),
		.retest = text ? "" : fig(it->retest, r),
		.change_pct = isfinite(it->change_pct) ? it->change_pct : NAN,
		.tolerance_pct = isfinite(it->tol_pct) ? it->tol_pct : NAN, .cls = cmp_class_name(it->cls),
		.note = it->note });
}

/* How bad a worse item is, for ranking: the ln ratio in the bad direction (infinite when the
 * after figure is missing, i.e. it failed). */
static double badness(const struct cmp_item *it)
{
	if (isnan(it->change_pct))
		return INFINITY;
	double after = it->before * (1 + it->change_pct / 100);
	double d = after > 0 && it->before > 0 ? log(after / it->before) : INFINITY;
	int higher_better = !strcmp(it->metric, rundir_metric_name(RD_BW)) ||
			    !strcmp(it->metric, coll_csv_cols[COLL_COL_BUSBW].name);

	return higher_better ? -d : d;
}

/* *to = *from, and a dst held in from's own dstbuf (a collective's "float sum") then in to's:
 * the item given to the sink lives on its caller's stack (it was printed as garbage, or as
 * nothing). */
static void item_copy(struct cmp_item *to, const struct cmp_item *from)
{
	*to = *from;
	if (from->dst == from->dstbuf)
		to->dst = to->dstbuf;
}

static void worst_add(struct cmp_report *r, const struct cmp_item *it)
{
	double bad = badness(it);
	int k = r->nworst < CMP_WORST ? r->nworst++ : CMP_WORST;

	if (k == CMP_WORST && !(bad > r->worst_bad[CMP_WORST - 1]))
		return;
	if (k == CMP_WORST)
		k--;
	while (k > 0 && r->worst_bad[k - 1] < bad) {
		item_copy(&r->worst[k], &r->worst[k - 1]);
		r->worst_bad[k] = r->worst_bad[k - 1];
		k--;
	}
	item_copy(&r->worst[k], it);
	r->worst_bad[k] = bad;
}

static void worse_pair_add(struct cmp_report *r, const struct cmp_item *it)
{
	const char *a = strcmp(it->src, it->dst) < 0 ? it->src : it->dst, *b = a == it->src ? it->dst : it->src;

	/* the rows of one pair arrive together (sorted by path, src, dst): look back a little */
	for (int i = r->nworse - 1; i >= 0 && i >= r->nworse - 64; i--)
		if (!strcmp(r->worse[i].path, it->path) && !strcmp(r->worse[i].a, a) && !strcmp(r->worse[i].b, b))
			return;
	if (r->nworse == r->worse_cap) {
		struct cmp_pair *q = realloc(r->worse, sizeof *q * (size_t)(r->worse_cap = r->worse_cap * 2 + 16));

		if (!q) {
			r->oom = 1;
			return;
		}
		r->worse = q;
	}
	r->worse[r->nworse++] = (struct cmp_pair){ it->path, a, b };
}

void cmp_report_item(void *ctx, const struct cmp_item *it)
{
	struct cmp_report *r = ctx;

	if (r->csv)
		item_row(r->csv, it);
	r->count[it->kind][it->cls]++;
	if (it->kind == CMP_P2P && isfinite(it->tol_pct)) {
		r->tol_min = fmin(r->tol_min, it->tol_pct);
		r->tol_max = fmax(r->tol_max, it->tol_pct);
	}
	if (it->cls == CMP_WORSE && it->kind != CMP_INV)
		worst_add(r, it);
	if (it->cls == CMP_WORSE && it->kind == CMP_P2P)
		worse_pair_add(r, it);
}

void cmp_report_map(void *ctx, const struct cmp_map_row *row)
{
	struct cmp_report *r = ctx;
	FILE *f = r->map_csv;

	if (f)
		csv_row(f, cmp_map_csv_cols, CMP_MAP_NCOLS, &(struct cmp_map_csv_row){
			.tier = row->tier, .sw = row->tier_name, .host = row->host ? row->host : "",
			.before = row->before, .after = row->after, .after_matches = row->after_as,
			.change = cmp_map_change_name(row->change) });
	r->map_count[row->change]++;
	if (!row->host)
		snprintf(r->tiers, sizeof r->tiers, "%s -> %s", row->before, row->after);
	else if (row->change != CMP_MAP_SAME && r->nmoved < CMP_MOVED_SHOWN) {
		char *s = r->moved[r->nmoved++];

		if (row->tier < 0)
			snprintf(s, sizeof r->moved[0], "%.100s: %s", row->host,
				 row->change == CMP_MAP_NEW ? "only in NEW (added)" : "only in BASE (missing)");
		else
			snprintf(s, sizeof r->moved[0], "%.60s %s (%s): %.30s -> %.30s%s%.30s%s", row->host,
				 cmp_map_change_name(row->change), row->tier_name, row->before, row->after,
				 row->after_as[0] ? " (BASE's " : " (a new group", row->after_as, ")");
	}
}

int cmp_report_failed(const struct cmp_report *r)
{
	for (int k = 0; k < CMP_NKIND; k++)
		if (r->count[k][CMP_WORSE] || r->count[k][CMP_GONE])
			return 1;
	return r->map_count[CMP_MAP_GONE] > 0;
}

static void counts_print(FILE *f, const struct cmp_report *r, int kind, const char *label)
{
	long long total = 0;
	int first = 1;

	for (int c = 0; c < CMP_NCLASS; c++)
		total += r->count[kind][c];
	if (!total)
		return;
	fprintf(f, "  %-10s %lld compared:", label, total);
	for (int c = 0; c < CMP_NCLASS; c++)
		if (r->count[kind][c]) {
			fprintf(f, "%s %lld %s", first ? "" : ",", r->count[kind][c], cmp_class_name(c));
			first = 0;
		}
	if (kind == CMP_P2P && isfinite(r->tol_min))
		fprintf(f, " (tolerance %.1f..%.1f%%)", r->tol_min, r->tol_max);
	fputc('\n', f);
}

static void worst_print(FILE *f, const struct cmp_report *r)
{
	if (!r->nworst)
		return;
	fprintf(f, "  worst regressions:\n");
	for (int i = 0; i < r->nworst; i++) {
		const struct cmp_item *it = &r->worst[i];
		char change[64] = "now failing";

		if (isfinite(it->change_pct))
			snprintf(change, sizeof change, "%+.1f%%, tolerance %.1f%%", it->change_pct, it->tol_pct);
		if (it->kind == CMP_P2P)
			escape_term_line(f, "    %s %s->%s %lld B %s: %.4g -> %.4g (%s) [%s]", it->path, it->src, it->dst,
					 it->size, it->metric, it->before, isnan(it->retest) ? it->after : it->retest,
					 change, it->tier);
		else
			escape_term_line(f, "    %s %s %s %lld B %s: %.4g -> %.4g (%s)", it->path, it->src, it->dst,
					 it->size, it->metric, it->before, it->after, change);
	}
}

void cmp_report_print(FILE *f, const struct cmp_report *r, const struct cmp_skip *skip, const char *base,
		      const char *cur)
{
	static const char *const labels[CMP_NKIND] = { "pairs", "collective", "inventory" };
	const long long *m = r->map_count;

	fputc('\n', f);
	escape_term_line(f, "compare: BASE %s", base);
	escape_term_line(f, "         NEW  %s", cur);
	for (int k = 0; k < CMP_NKIND; k++)
		counts_print(f, r, k, labels[k]);
	if (m[CMP_MAP_SAME] + m[CMP_MAP_MOVED] + m[CMP_MAP_SPLIT] + m[CMP_MAP_MERGED] + m[CMP_MAP_NEW] + m[CMP_MAP_GONE])
		escape_term_line(f, "  map:       %lld moved, %lld split off, %lld merged, %lld added, %lld missing; tiers %s",
			m[CMP_MAP_MOVED], m[CMP_MAP_SPLIT], m[CMP_MAP_MERGED], m[CMP_MAP_NEW], m[CMP_MAP_GONE],
			r->tiers[0] ? r->tiers : "unchanged");
	for (int i = 0; i < r->nmoved; i++)
		escape_term_line(f, "    %s", r->moved[i]);
	worst_print(f, r);
	if (skip && (skip->rows_base_only || skip->rows_new_only))
		escape_term_line(f, "  not compared (measured by one run only): %s", skip->what);
}
