/* report_coll.c — collectives.csv: bus bandwidth against size, one chart per collective
 * (all-reduce first), one line per backend (and in-place, data type, reduction when they
 * vary); the rows that were wrong or failed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "fabric/io/coll_csv.h"
#include "html.h"
#include "report_int.h"

#define SERIES_MAX 12
#define POINTS_MAX 64
#define OPS_MAX 8

enum { C_BACKEND, C_OP, C_SIZE, C_DTYPE, C_REDOP, C_INPLACE, C_BUSBW, C_WRONG, C_STATUS, C_N };

struct coll_series {
	char name[160];
	int n;
	double x[POINTS_MAX], y[POINTS_MAX];
};

/* does column c take more than one value among the op's rows? */
static int varies(const struct rtab *t, const int *col, int c, const char *op)
{
	const char *first = NULL;

	for (int i = 0; i < t->nrows; i++)
		if (!strcmp(rtab_get(t, i, col[C_OP]), op)) {
			if (first && strcmp(first, rtab_get(t, i, col[c])))
				return 1;
			first = rtab_get(t, i, col[c]);
		}
	return 0;
}

static void series_name(const struct rtab *t, const int *col, int i, const int *vary, char *out, size_t len)
{
	snprintf(out, len, "%.40s%s%.20s%s%.20s%s", rtab_get(t, i, col[C_BACKEND]), vary[0] ? " " : "",
		 vary[0] ? rtab_get(t, i, col[C_DTYPE]) : "", vary[1] ? " " : "",
		 vary[1] ? rtab_get(t, i, col[C_REDOP]) : "",
		 !strcmp(rtab_get(t, i, col[C_INPLACE]), "1") ? " in-place" : "");
}

static void op_chart(FILE *f, const struct rtab *t, const int *col, const char *op, int k)
{
	struct coll_series *s = calloc(SERIES_MAX, sizeof *s);
	struct chart_series cs[SERIES_MAX];
	int n = 0, vary[2] = { varies(t, col, C_DTYPE, op), varies(t, col, C_REDOP, op) };
	char id[32], title[160];

	for (int i = 0; s && i < t->nrows; i++) {
		char name[160];
		double x = atof(rtab_get(t, i, col[C_SIZE])), y = atof(rtab_get(t, i, col[C_BUSBW]));
		int j = 0;

		if (strcmp(rtab_get(t, i, col[C_OP]), op) || !(x > 0) || !(y > 0))
			continue;
		series_name(t, col, i, vary, name, sizeof name);
		while (j < n && strcmp(s[j].name, name))
			j++;
		if (j == n && n == SERIES_MAX)
			continue;
		if (j == n)
			snprintf(s[n++].name, sizeof s->name, "%s", name);
		if (s[j].n < POINTS_MAX) {
			s[j].x[s[j].n] = x;
			s[j].y[s[j].n++] = y;
		}
	}
	for (int j = 0; j < n; j++)
		cs[j] = (struct chart_series){ s[j].name, s[j].n, s[j].x, s[j].y, strstr(s[j].name, " in-place") != NULL };
	snprintf(id, sizeof id, "coll-%d", k);
	snprintf(title, sizeof title, "%.40s: bus bandwidth against size", op);
	if (n)
		chart_loglog(f, &(struct chart){ id, title, "size per rank", "bus bandwidth, GB/s", "GB/s", 1, n, cs });
	else {
		fputs("<p class=\"muted\">", f);
		html_text(f, op);
		fputs(": no positive bus bandwidth to draw.</p>\n", f);
	}
	free(s);
}

static void failed_rows(FILE *f, const struct rtab *t, const int *col)
{
	int shown = 0;

	for (int i = 0; i < t->nrows && shown < RPT_ROWS_MAX; i++) {
		const char *w = rtab_get(t, i, col[C_WRONG]), *st = rtab_get(t, i, col[C_STATUS]);

		if (!(atof(w) > 0) && (col[C_STATUS] < 0 || !strcmp(st, "ok")))
			continue;
		if (!shown++)
			fputs("<h3 class=\"warn\">Wrong or failed results</h3>\n<table class=\"collfail\"><thead><tr>"
			      "<th>backend</th><th>op</th><th>size_B</th><th>dtype</th><th>in_place</th><th>wrong</th>"
			      "<th>status</th></tr></thead><tbody>\n", f);
		fputs("<tr>", f);
		for (int c = 0; c < C_N; c++)
			if (c != C_REDOP && c != C_BUSBW) {
				fputs("<td>", f);
				html_text_max(f, rtab_get(t, i, col[c]), 200);
				fputs("</td>", f);
			}
		fputs("</tr>\n", f);
	}
	if (shown)
		fputs("</tbody></table>\n", f);
}

void rpt_collectives(struct rpt *r)
{
	static const int used[C_N] = { COLL_COL_BACKEND, COLL_COL_OP, COLL_COL_SIZE, COLL_COL_DTYPE, COLL_COL_REDOP,
				       COLL_COL_IN_PLACE, COLL_COL_BUSBW, COLL_COL_WRONG, COLL_COL_STATUS };
	const char *ops[OPS_MAX] = { "allreduce" };
	int col[C_N], nops = 1, seen_ar = 0;
	struct rtab t;

	rpt_section(r->out, "collectives", "Collectives");
	if (rpt_table_load(r, "collectives.csv", 1 << 20, &t, "no collective charts")) {
		fputs("<p class=\"muted\">No collectives.csv: no collectives in this run.</p>\n</section>\n", r->out);
		return;
	}
	for (int c = 0; c < C_N; c++)
		col[c] = rtab_col(&t, coll_csv_cols[used[c]].name);
	if (col[C_OP] < 0 || col[C_SIZE] < 0 || col[C_BUSBW] < 0 || col[C_BACKEND] < 0)
		rpt_note(r, "collectives.csv: no 'backend', 'op', 'size_B' or 'busbw_GBps' column: no collective charts");
	for (int i = 0; col[C_OP] >= 0 && i < t.nrows; i++) {
		const char *op = rtab_get(&t, i, col[C_OP]);
		int k = 0;

		seen_ar |= !strcmp(op, "allreduce");
		while (k < nops && strcmp(ops[k], op))
			k++;
		if (k == nops && nops < OPS_MAX)
			ops[nops++] = op;
	}
	fputs("<p>busbw = algbw × the collective's bus factor (nccl-tests): it compares directly with one link's "
	      "bandwidth. Dashed: in place.</p>\n<div class=\"maps\">\n", r->out);
	for (int k = seen_ar ? 0 : 1; col[C_OP] >= 0 && col[C_BUSBW] >= 0 && col[C_BACKEND] >= 0 && k < nops; k++)
		op_chart(r->out, &t, col, ops[k], k);
	fputs("</div>\n", r->out);
	failed_rows(r->out, &t, col);
	fputs("</section>\n", r->out);
	rtab_free(&t);
}
