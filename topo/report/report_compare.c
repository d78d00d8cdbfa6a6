/* report_compare.c — when the directory holds compare.csv (`fabprobe compare`, or a run with a
 * baseline): the change per pair as a heat map per path and metric (red worse, blue better,
 * hosts in this run's tree order), the regressions, and every other change (collectives,
 * nodes that moved). Columns by name: [run_id,] kind, path, src, dst, size_B, metric, before,
 * after, change_pct, class. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/results.h"
#include "core/log.h"
#include "heatmap.h"
#include "fabric/io/check_csv.h"
#include "html.h"
#include "report_int.h"

#define MAPS_MAX 8
#define PAIRS_MAX (4 << 20)

/* the columns of compare.csv the page reads (fabric/io/check_csv.h's table) */
enum { K_KIND, K_PATH, K_SRC, K_DST, K_SIZE, K_METRIC, K_BEFORE, K_AFTER, K_CHANGE, K_CLASS, K_N };
static const int kcol_id[K_N] = { CMP_COL_KIND, CMP_COL_PATH, CMP_COL_SRC, CMP_COL_DST, CMP_COL_SIZE, CMP_COL_METRIC,
				  CMP_COL_BEFORE, CMP_COL_AFTER, CMP_COL_CHANGE, CMP_COL_CLASS };
#define kcol(k) (cmp_csv_cols[kcol_id[k]].name)

struct cell {
	char *src, *dst;
	float worse;   /* change in percent, > 0 worse */
};

struct cmap {
	char path[128], metric[64], size[32];
	int n, cap;
	struct cell *c;
};

struct kept {          /* rows shown in the tables */
	int n;
	char *f[RPT_ROWS_MAX][K_N];
};

struct cmp {
	struct cmap map[MAPS_MAX];
	int nmaps;
	long regressions, improvements, rows;
	struct kept reg, other;
};

static int bw_like(const char *metric)
{
	return strstr(metric, "bw") || strstr(metric, "GBps") || strstr(metric, "bandwidth") || strstr(metric, "Gbps");
}

static struct cmap *map_of(struct cmp *c, const char *path, const char *metric, const char *size)
{
	for (int i = 0; i < c->nmaps; i++)
		if (!strcmp(c->map[i].path, path) && !strcmp(c->map[i].metric, metric) && !strcmp(c->map[i].size, size))
			return &c->map[i];
	if (c->nmaps == MAPS_MAX)
		return NULL;
	struct cmap *m = &c->map[c->nmaps++];
	snprintf(m->path, sizeof m->path, "%s", path);
	snprintf(m->metric, sizeof m->metric, "%s", metric);
	snprintf(m->size, sizeof m->size, "%s", size);
	return m;
}

static void keep(struct kept *k, const struct csv_read *r, const int *col)
{
	if (k->n == RPT_ROWS_MAX)
		return;
	for (int i = 0; i < K_N; i++)
		k->f[k->n][i] = strdup(csv_read_get(r, col[i]));
	k->n++;
}

static int add_cell(struct cmap *m, const char *src, const char *dst, double worse)
{
	if (m->n == m->cap) {
		struct cell *q = realloc(m->c, sizeof *q * (size_t)(m->cap = m->cap * 2 + 256));
		if (!q)
			return FP_ERUNTIME;
		m->c = q;
	}
	m->c[m->n] = (struct cell){ strdup(src), strdup(dst), (float)worse };
	if (!m->c[m->n].src || !m->c[m->n].dst) {
		free(m->c[m->n].src);
		free(m->c[m->n].dst);
		return FP_ERUNTIME;
	}
	m->n++;
	return 0;
}

static void row(struct cmp *c, const struct csv_read *r, const int *col, long *pairs)
{
	const char *cls = csv_read_get(r, col[K_CLASS]), *src = csv_read_get(r, col[K_SRC]), *dst = csv_read_get(r, col[K_DST]);
	const char *ch = csv_read_get(r, col[K_CHANGE]), *metric = csv_read_get(r, col[K_METRIC]);
	char *end;
	double pct = strtod(ch, &end);
	struct cmap *m;

	c->rows++;
	c->regressions += !!strstr(cls, "regress");
	c->improvements += !!strstr(cls, "improv");
	if (strstr(cls, "regress"))
		keep(&c->reg, r, col);
	if (!*src || !*dst || !strcmp(src, dst)) {
		if (strcmp(cls, "same") && strcmp(cls, "unchanged"))
			keep(&c->other, r, col);
		return;
	}
	if (*ch && !*end && isfinite(pct) && *pairs < PAIRS_MAX &&
	    (m = map_of(c, csv_read_get(r, col[K_PATH]), metric, csv_read_get(r, col[K_SIZE]))) && add_cell(m, src, dst, bw_like(metric) ? -pct : pct) == 0)
		(*pairs)++;
}

/* ---------------------------------------------------------------- the change as heat maps */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the map's hosts, sorted and unique (pointers into its cells) */
static int hosts_of(const struct cmap *m, char ***out)
{
	char **h = malloc(sizeof *h * (size_t)(2 * m->n + 1));
	int n = 0, k = 0;

	if (!h)
		return -1;
	for (int i = 0; i < m->n; i++) {
		h[n++] = m->c[i].src;
		h[n++] = m->c[i].dst;
	}
	qsort(h, (size_t)n, sizeof *h, cmp_str);
	for (int i = 0; i < n; i++)
		if (!k || strcmp(h[k - 1], h[i]))
			h[k++] = h[i];
	*out = h;
	return k;
}

static int change_map(struct rpt *r, const struct cmap *m, int idx)
{
	char **h = NULL, id[32], nid[40], size[32];
	int n = hosts_of(m, &h), *order = NULL, nb = 0, rc = FP_ERUNTIME;
	const char **shown = NULL;
	float *v = NULL;
	struct hm_block *blocks = NULL;
	struct rpt_ix ix = { 0 };

	if (n <= 0 || !(order = malloc(sizeof *order * (size_t)n)) || !(shown = malloc(sizeof *shown * (size_t)n)) ||
	    !(v = malloc(sizeof *v * (size_t)n * (size_t)n)) || rpt_display_order(&r->map, n, h, order))
		goto out;
	for (int k = 0; k < n; k++)
		shown[k] = h[order[k]];
	for (size_t k = 0; k < (size_t)n * n; k++)
		v[k] = NAN;
	if (rpt_ix_build(&ix, shown, n) || rpt_blocks(&r->map, n, shown, &blocks, &nb))
		goto out;
	for (int k = 0; k < m->n; k++)
		v[(size_t)rpt_ix_find(&ix, m->c[k].src) * n + rpt_ix_find(&ix, m->c[k].dst)] = m->c[k].worse;
	snprintf(id, sizeof id, "cmp%d", idx);
	snprintf(nid, sizeof nid, "names-%s", id);
	html_bytes(size, sizeof size, atof(m->size));
	fputs("<figure><figcaption>", r->out);
	html_textf(r->out, "Change of %s over %s at %s (%d hosts): red worse, blue better", m->metric, m->path,
		   atof(m->size) > 0 ? size : "any size", n);
	fputs("</figcaption>\n", r->out);
	if (n > HM_CELLS_MAX)
		rpt_names_json(r->out, nid, shown, n);
	struct hm_map map = { .id = id, .names_id = nid, .path = m->path, .metric = "change", .unit = "% change",
			      .scale = HM_DIVERGING, .n = n, .names = shown, .v = v, .blocks = blocks, .nblocks = nb };
	rc = hm_render(r->out, &map);
	fputs("</figure>\n", r->out);
out:
	rpt_ix_free(&ix);
	free(h);
	free(order);
	free(shown);
	free(v);
	free(blocks);
	return rc;
}

/* ---------------------------------------------------------------- tables, section */

static void kept_table(FILE *f, const struct kept *k, const char *cls)
{
	fprintf(f, "<table class=\"%s\"><thead><tr>", cls);
	for (int c = 0; c < K_N; c++)
		fprintf(f, "<th>%s</th>", kcol(c));
	fputs("</tr></thead><tbody>\n", f);
	for (int i = 0; i < k->n; i++) {
		fputs("<tr>", f);
		for (int c = 0; c < K_N; c++) {
			const char *v = k->f[i][c] ? k->f[i][c] : "";
			fputs(html_is_number(v) ? "<td class=\"n\">" : "<td>", f);
			html_text_max(f, v, 300);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void cmp_free(struct cmp *c)
{
	for (int i = 0; i < c->nmaps; i++) {
		for (int k = 0; k < c->map[i].n; k++) {
			free(c->map[i].c[k].src);
			free(c->map[i].c[k].dst);
		}
		free(c->map[i].c);
	}
	for (int i = 0; i < c->reg.n; i++)
		for (int k = 0; k < K_N; k++)
			free(c->reg.f[i][k]);
	for (int i = 0; i < c->other.n; i++)
		for (int k = 0; k < K_N; k++)
			free(c->other.f[i][k]);
	free(c);
}

static int cmp_read(struct rpt *r, struct cmp *c, const char *path)
{
	struct csv_read in;
	char err[CSV_READ_ERR_MAX];
	int col[K_N], k;
	long pairs = 0;

	if (csv_read_open_in(&in, path, RESULTS_IN_NOLINK, err))
		return -1;
	r->found++;
	for (int i = 0; i < K_N; i++)
		col[i] = csv_read_col(&in, kcol(i));
	if (col[K_CLASS] < 0 || col[K_CHANGE] < 0) {
		rpt_note(r, "compare.csv:1: no 'class' or 'change_pct' column: no comparison shown");
		csv_read_close(&in);
		return -1;
	}
	while ((k = csv_read_next(&in, err)) != 0 && k != FP_ERUNTIME)
		row(c, &in, col, &pairs); /* a row with extra cells: its first ones */
	csv_read_close(&in);
	return 0;
}

void rpt_compare(struct rpt *r)
{
	char path[4096];
	struct cmp *c;

	rpt_file(r, "compare.csv", path, sizeof path);
	if (access(path, F_OK) || !(c = calloc(1, sizeof *c)))
		return;
	if (cmp_read(r, c, path) == 0) {
		rpt_section(r->out, "compare", "Compared with the baseline");
		fprintf(r->out, "<p>%ld rows in compare.csv: <strong>%ld regression%s</strong>, %ld improvement%s.</p>\n",
			c->rows, c->regressions, c->regressions == 1 ? "" : "s", c->improvements,
			c->improvements == 1 ? "" : "s");
		fputs("<div class=\"maps\">\n", r->out);
		for (int i = 0; i < c->nmaps; i++)
			if (change_map(r, &c->map[i], i))
				rpt_note(r, "compare.csv: out of memory drawing a change heat map");
		fputs("</div>\n<h3>Regressions</h3>\n", r->out);
		if (c->reg.n)
			kept_table(r->out, &c->reg, "regressions");
		else
			fputs("<p>None.</p>\n", r->out);
		if (c->other.n) {
			fputs("<h3>Other changes (collectives, nodes moved between groups, …)</h3>\n", r->out);
			kept_table(r->out, &c->other, "changes");
		}
		fputs("</section>\n", r->out);
	}
	cmp_free(c);
}
