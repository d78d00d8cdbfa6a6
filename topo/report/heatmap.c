/* heatmap.c — see heatmap.h. */
#include "heatmap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "html.h"
#include "png.h"

#define RAMP_N 200                 /* palette entries of the colour ramp */
#define PAL_MISSING RAMP_N         /* a pair not measured */
#define PAL_SELF (RAMP_N + 1)      /* the diagonal */
#define IMAGE_PX 768               /* the most display pixels an image map takes */
#define SAMPLE_MAX 65536           /* values sampled for the scale's percentiles */
#define LABEL_CHARS 18

struct geo {
	int L, T, D, W, H;  /* margins, map side, whole figure (px) */
	double cs;          /* cell side (px) */
	int labels;         /* 0 none, 1 host names, 2 leaf names */
	int font;
	double lo, hi;      /* the colour scale */
};

/* ---------------------------------------------------------------- colours */

void hm_ramp(enum hm_scale s, double t, unsigned char rgb[3])
{
	/* light = good, dark = bad; luminance falls monotonically, so it reads in grey too */
	static const double seq[][3] = { { 252, 246, 205 }, { 170, 221, 170 }, { 72, 178, 178 },
					 { 44, 104, 168 }, { 42, 30, 96 } };
	const int nk = sizeof seq / sizeof seq[0];

	if (s == HM_DIVERGING) {
		double a = fabs(t) > 1 ? 1 : fabs(t);
		const double *to = t > 0 ? (const double[]){ 190, 30, 45 } : (const double[]){ 40, 90, 180 };

		for (int c = 0; c < 3; c++)
			rgb[c] = (unsigned char)lround(250 + (to[c] - 250) * a);
		return;
	}
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	double x = t * (nk - 1);
	int k = x >= nk - 1 ? nk - 2 : (int)x;
	double u = x - k;
	for (int c = 0; c < 3; c++)
		rgb[c] = (unsigned char)lround(seq[k][c] + (seq[k + 1][c] - seq[k][c]) * u);
}

/* A value's place on the scale: [0, 1] (or [-1, 1] diverging). */
static double scale_t(const struct hm_map *m, const struct geo *g, double v)
{
	double t;

	if (m->scale == HM_DIVERGING)
		return v / g->hi;
	if (m->scale == HM_LOG)
		t = (log(v > g->lo ? v : g->lo) - log(g->lo)) / (log(g->hi) - log(g->lo));
	else
		t = (v - g->lo) / (g->hi - g->lo);
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return m->high_is_good ? 1 - t : t;
}

static int pal_index(const struct hm_map *m, const struct geo *g, int i, int j)
{
	float v = m->v[(size_t)i * m->n + j];
	double t;

	if (i == j)
		return PAL_SELF;
	if (!isfinite(v))
		return PAL_MISSING;
	t = scale_t(m, g, v);
	if (m->scale == HM_DIVERGING)
		t = (t + 1) / 2;
	return (int)lround(t * (RAMP_N - 1));
}

static void palette(const struct hm_map *m, uint8_t pal[RAMP_N + 2][3])
{
	for (int k = 0; k < RAMP_N; k++) {
		double t = (double)k / (RAMP_N - 1);

		hm_ramp(m->scale, m->scale == HM_DIVERGING ? 2 * t - 1 : t, pal[k]);
	}
	memcpy(pal[PAL_MISSING], "\xbb\xbb\xbb", 3);
	memcpy(pal[PAL_SELF], "\xff\xff\xff", 3);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* The scale: 1st to 99th percentile of the measured off-diagonal cells (a few outliers do not
 * wash the map out), from an even sample when there are many. */
static int scale_range(const struct hm_map *m, struct geo *g)
{
	size_t nn = (size_t)m->n * m->n, step = nn / SAMPLE_MAX + 1, k = 0;
	float *s = malloc(sizeof *s * (nn / step + 1));

	if (!s)
		return FP_ERUNTIME;
	for (size_t c = 0; c < nn; c += step)
		if (c / m->n != c % m->n && isfinite(m->v[c]) && (m->scale != HM_LOG || m->v[c] > 0))
			s[k++] = m->scale == HM_DIVERGING ? fabsf(m->v[c]) : m->v[c];
	qsort(s, k, sizeof *s, cmp_float);
	g->lo = k ? s[(size_t)(0.01 * (double)(k - 1))] : 1;
	g->hi = k ? s[(size_t)(0.99 * (double)(k - 1) + 0.5)] : 1;
	free(s);
	if (m->scale == HM_DIVERGING) {
		g->hi = g->hi < 5 ? 5 : g->hi; /* changes under 5% stay pale */
		g->lo = -g->hi;
	} else if (!(g->hi > g->lo * 1.02)) {
		double mid = g->lo > 0 ? g->lo : 1;

		g->lo = mid * 0.9;
		g->hi = mid * 1.1;
	}
	if (m->scale == HM_LINEAR && g->lo > 0 && g->lo < 0.25 * g->hi)
		g->lo = 0;
	return 0;
}

/* ---------------------------------------------------------------- layout */

static void layout(const struct hm_map *m, struct geo *g)
{
	int n = m->n, maxc = 4;

	if (n <= HM_CELLS_MAX) {
		int c = 560 / (n ? n : 1);
		c = c < 6 ? 6 : c > 28 ? 28 : c;
		g->D = c * n;
	} else
		g->D = n >= IMAGE_PX ? IMAGE_PX : n * (IMAGE_PX / n);
	g->cs = (double)g->D / (n ? n : 1);
	g->labels = g->cs >= 9 ? 1 : 2;
	g->font = g->cs >= 13 ? 11 : g->labels == 1 ? (int)g->cs - 2 : 10;
	if (g->labels == 1)
		for (int i = 0; i < n; i++) {
			int l = (int)strlen(m->names[i]);
			maxc = l > maxc ? l : maxc;
		}
	else
		for (int b = 0; b < m->nblocks; b++)
			if (m->blocks[b].tier == 0 && m->blocks[b].len * g->cs >= 12) {
				int l = (int)strlen(m->blocks[b].name);
				maxc = l > maxc ? l : maxc;
			}
	maxc = maxc > LABEL_CHARS ? LABEL_CHARS + 1 : maxc;
	g->L = g->T = 12 + (int)(maxc * g->font * 0.62);
	g->W = g->L + g->D + 14;
	g->W = g->W < 380 ? 380 : g->W;
	g->H = g->T + g->D + 78;
}

/* ---------------------------------------------------------------- cells */

static void cell_title(FILE *f, const struct hm_map *m, int i, int j)
{
	char v[32];

	html_text(f, m->names[i]);
	if (i == j) {
		fputs(" (itself)", f);
		return;
	}
	fputs(" → ", f);
	html_text(f, m->names[j]);
	html_num(v, sizeof v, m->v[(size_t)i * m->n + j]);
	fprintf(f, ": %s", isfinite(m->v[(size_t)i * m->n + j]) ? v : "not measured");
	if (isfinite(m->v[(size_t)i * m->n + j]))
		fprintf(f, " %s", m->unit);
}

static void cells_svg(FILE *f, const struct hm_map *m, const struct geo *g, const uint8_t (*pal)[3])
{
	int c = (int)g->cs;

	fprintf(f, "<g class=\"cells\" transform=\"translate(%d,%d)\">\n", g->L, g->T);
	for (int i = 0; i < m->n; i++)
		for (int j = 0; j < m->n; j++) {
			const uint8_t *rgb = pal[pal_index(m, g, i, j)];

			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%02x%02x%02x\"><title>",
				j * c, i * c, c, c, rgb[0], rgb[1], rgb[2]);
			cell_title(f, m, i, j);
			fputs("</title></rect>\n", f);
		}
	fputs("</g>\n", f);
}

static int cells_image(FILE *f, const struct hm_map *m, const struct geo *g, const uint8_t (*pal)[3])
{
	size_t n = (size_t)m->n, len;
	uint8_t *pix = malloc(n * n), *png = NULL;

	if (!pix)
		return FP_ERUNTIME;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			pix[i * n + j] = (uint8_t)pal_index(m, g, (int)i, (int)j);
	if (png_indexed(m->n, m->n, pix, pal, RAMP_N + 2, &png, &len)) {
		free(pix);
		return FP_ERUNTIME;
	}
	fprintf(f, "<image class=\"hm-img\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"preserveAspectRatio=\"none\" href=\"data:image/png;base64,", g->L, g->T, g->D, g->D);
	png_base64(f, png, len);
	fputs("\"/>\n", f);
	free(pix);
	free(png);
	return 0;
}

/* ---------------------------------------------------------------- outlines, marks, axes */

static void blocks_svg(FILE *f, const struct hm_map *m, const struct geo *g)
{
	fputs("<g class=\"blocks\" fill=\"none\">\n", f);
	for (int pass = 1; pass >= 0; pass--) /* spines first, leaves drawn over them */
		for (int b = 0; b < m->nblocks; b++) {
			const struct hm_block *k = &m->blocks[b];

			if ((pass ? k->tier < 1 : k->tier != 0) || (k->tier > 0 && k->len == m->n))
				continue;
			fprintf(f, "<rect class=\"b%d\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>",
				k->tier > 1 ? 2 : k->tier, g->L + k->start * g->cs, g->T + k->start * g->cs,
				k->len * g->cs, k->len * g->cs);
			html_text(f, k->name);
			fprintf(f, ": %d host%s</title></rect>\n", k->len, k->len == 1 ? "" : "s");
		}
	fputs("</g>\n", f);
}

static void marks_svg(FILE *f, const struct hm_map *m, const struct geo *g)
{
	double s = g->cs < 5 ? 5 : g->cs, pad = (s - g->cs) / 2;

	fprintf(f, "<g class=\"marks\" stroke-width=\"%.1f\">\n", g->cs < 8 ? 1.5 : 2.0);
	for (int k = 0; k < m->nmarks; k++) {
		const struct hm_mark *mk = &m->marks[k];

		if (mk->j >= 0)
			fprintf(f, "<rect class=\"sus\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">",
				g->L + mk->j * g->cs - pad, g->T + mk->i * g->cs - pad, s, s);
		else /* a node: a marker before its row and above its column */
			fprintf(f, "<path class=\"susn\" d=\"M%.2f %.2fl-7 -4v8zM%.2f %.2fl-4 -7h8z\">",
				g->L - 1.0, g->T + (mk->i + 0.5) * g->cs, g->L + (mk->i + 0.5) * g->cs, g->T - 1.0);
		fputs("<title>", f);
		html_text(f, mk->why);
		fputs("</title>", f);
		fputs(mk->j >= 0 ? "</rect>\n" : "</path>\n", f);
	}
	fputs("</g>\n", f);
}

/* one axis label at display position pos (rows: y, columns: rotated) */
static void label(FILE *f, const struct geo *g, double pos, const char *text, int col)
{
	if (col)
		fprintf(f, "<text transform=\"translate(%.1f,%d) rotate(-90)\" dy=\"0.35em\" text-anchor=\"start\">",
			g->L + pos, g->T - 4);
	else
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" dy=\"0.35em\">", g->L - 4, g->T + pos);
	html_text_max(f, text, LABEL_CHARS);
	if (strlen(text) > LABEL_CHARS) {
		fputs("<title>", f);
		html_text(f, text);
		fputs("</title>", f);
	}
	fputs("</text>\n", f);
}

static void axes_svg(FILE *f, const struct hm_map *m, const struct geo *g)
{
	fprintf(f, "<g class=\"axis\" font-size=\"%d\" text-anchor=\"end\">\n", g->font);
	for (int col = 0; col < 2; col++) {
		if (g->labels == 1)
			for (int i = 0; i < m->n; i++)
				label(f, g, (i + 0.5) * g->cs, m->names[i], col);
		else
			for (int b = 0; b < m->nblocks; b++)
				if (m->blocks[b].tier == 0 && m->blocks[b].len * g->cs >= 12)
					label(f, g, (m->blocks[b].start + m->blocks[b].len / 2.0) * g->cs,
					      m->blocks[b].name, col);
	}
	fprintf(f, "<text class=\"axt\" x=\"%d\" y=\"%d\" text-anchor=\"start\">rows: source, columns: "
		"destination%s</text>\n", 2, g->T + g->D + 14, g->labels == 2 ? " (leaf switches named)" : "");
	fputs("</g>\n", f);
}

/* ---------------------------------------------------------------- legend */

static double legend_value(const struct hm_map *m, const struct geo *g, double u)
{
	if (m->scale == HM_LOG)
		return exp(log(g->lo) + u * (log(g->hi) - log(g->lo)));
	return g->lo + u * (g->hi - g->lo);
}

static double legend_u(const struct hm_map *m, const struct geo *g, double v)
{
	if (m->scale == HM_LOG)
		return (log(v) - log(g->lo)) / (log(g->hi) - log(g->lo));
	return (v - g->lo) / (g->hi - g->lo);
}

/* 1-2-5 steps: every decade's 1, 2, 5 on a log scale; about 5 round values on a linear one */
static int ticks(const struct hm_map *m, const struct geo *g, double *t, int max)
{
	int k = 0;

	if (m->scale == HM_LOG) {
		for (double d = pow(10, floor(log10(g->lo))); d <= g->hi && k < max; d *= 10)
			for (int i = 0; i < 3 && k < max; i++) {
				double v = d * (double[]){ 1, 2, 5 }[i];
				if (v >= g->lo * 0.999 && v <= g->hi * 1.001)
					t[k++] = v;
			}
		return k;
	}
	double raw = (g->hi - g->lo) / 4, p = pow(10, floor(log10(raw)));
	double step = raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
	for (double v = ceil(g->lo / step) * step; v <= g->hi * 1.0001 && k < max; v += step)
		t[k++] = fabs(v) < step * 1e-9 ? 0 : v;
	return k;
}

static void legend_svg(FILE *f, const struct hm_map *m, const struct geo *g)
{
	const int x0 = 10, bw = 260, y0 = g->T + g->D + 22;
	double t[34];
	int nt = ticks(m, g, t, 32);

	if (nt < 2) { /* too narrow a range for round values: label its ends */
		t[nt++] = g->lo;
		t[nt++] = g->hi;
	}
	fprintf(f, "<g class=\"legend\" font-size=\"10\">\n<defs><linearGradient id=\"lg-%s\">", m->id);
	for (int s = 0; s <= 10; s++) {
		unsigned char rgb[3];
		double v = legend_value(m, g, s / 10.0);

		hm_ramp(m->scale, scale_t(m, g, v), rgb);
		fprintf(f, "<stop offset=\"%d%%\" stop-color=\"#%02x%02x%02x\"/>", s * 10, rgb[0], rgb[1], rgb[2]);
	}
	fprintf(f, "</linearGradient></defs>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"12\" "
		"fill=\"url(#lg-%s)\" stroke=\"#666\" stroke-width=\"0.5\"/>\n", x0, y0, bw, m->id);
	for (int k = 0; k < nt; k++) {
		char v[32];
		double x = x0 + bw * legend_u(m, g, t[k]);

		html_tick(v, sizeof v, t[k]);
		fprintf(f, "<path d=\"M%.1f %dv4\" stroke=\"#333\"/><text x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"middle\">%s</text>\n", x, y0 + 12, x, y0 + 24, v);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">", x0 + bw + 8, y0 + 10);
	html_text(f, m->unit);
	fprintf(f, "%s</text>\n", m->scale == HM_LOG ? " (log scale)" : m->scale == HM_DIVERGING ?
		" (red: worse, blue: better)" : "");
	fprintf(f, "<g transform=\"translate(%d,%d)\"><rect width=\"10\" height=\"10\" fill=\"#bbb\"/>"
		"<text x=\"14\" y=\"9\">not measured</text>"
		"<rect x=\"96\" width=\"10\" height=\"10\" class=\"sus\"/><text x=\"112\" y=\"9\">suspect</text>"
		"<rect x=\"166\" width=\"10\" height=\"10\" class=\"b0\" fill=\"none\"/>"
		"<text x=\"182\" y=\"9\">leaf switch</text>"
		"<rect x=\"246\" width=\"10\" height=\"10\" class=\"b1\" fill=\"none\"/>"
		"<text x=\"262\" y=\"9\">spine</text></g>\n</g>\n", x0, y0 + 34);
}

/* ---------------------------------------------------------------- the figure */

int hm_render(FILE *f, const struct hm_map *m)
{
	struct geo g = { 0 };
	uint8_t pal[RAMP_N + 2][3];
	int image = m->n > HM_CELLS_MAX, rc;

	if (m->n < 1 || scale_range(m, &g)) {
		fputs("<p class=\"warn\">This heat map could not be drawn (no hosts, or out of memory).</p>\n", f);
		return m->n < 1 ? 0 : FP_ERUNTIME;
	}
	layout(m, &g);
	palette(m, pal);
	fprintf(f, "<svg class=\"hm\" id=\"hm-%s\" data-path=\"", m->id);
	html_text(f, m->path);
	fprintf(f, "\" data-metric=\"%s\" data-n=\"%d\" data-mode=\"%s\" data-names=\"%s\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n", m->metric, m->n,
		image ? "image" : "cells", m->names_id, g.W, g.H, g.W, g.H);
	rc = image ? cells_image(f, m, &g, (const uint8_t (*)[3])pal) : 0;
	if (!image)
		cells_svg(f, m, &g, (const uint8_t (*)[3])pal);
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\"/>\n",
		g.L, g.T, g.D, g.D);
	blocks_svg(f, m, &g);
	marks_svg(f, m, &g);
	axes_svg(f, m, &g);
	legend_svg(f, m, &g);
	fputs("</svg>\n", f);
	return rc;
}
