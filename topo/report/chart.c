/* chart.c — see chart.h. */
#include "chart.h"

#include <math.h>

#include "html.h"

#define CW 600
#define CH 320
#define ML 70
#define MR 170
#define MT 30
#define MB 46

struct axes {
	double x0, x1, y0, y1; /* log10 of the ranges */
};

static const char *const colours[] = { "#1f5fa8", "#d0542a", "#2a9d58", "#8c4bb0",
					"#b08a12", "#1b9aaa", "#c2387a", "#555555" };

static void ranges(const struct chart *c, struct axes *a)
{
	double xl = INFINITY, xh = -INFINITY, yl = INFINITY, yh = -INFINITY;

	for (int s = 0; s < c->nseries; s++)
		for (int i = 0; i < c->s[s].n; i++) {
			double x = c->s[s].x[i], y = c->s[s].y[i];

			if (!(x > 0) || !(y > 0) || !isfinite(x) || !isfinite(y))
				continue;
			xl = fmin(xl, x), xh = fmax(xh, x), yl = fmin(yl, y), yh = fmax(yh, y);
		}
	if (!(xl <= xh))
		xl = 1, xh = 10;
	if (!(yl <= yh))
		yl = 1, yh = 10;
	a->x0 = log10(xl) - 0.05, a->x1 = log10(xh) + 0.05;
	a->y0 = floor(log10(yl) * 4) / 4 - 0.02, a->y1 = ceil(log10(yh) * 4) / 4 + 0.02;
	if (a->y1 - a->y0 < 0.5)
		a->y0 -= 0.25, a->y1 += 0.25;
}

static double px(const struct axes *a, double x)
{
	return ML + (log10(x) - a->x0) / (a->x1 - a->x0) * (CW - ML - MR);
}

static double py(const struct axes *a, double y)
{
	return CH - MB - (log10(y) - a->y0) / (a->y1 - a->y0) * (CH - MT - MB);
}

static void grid(FILE *f, const struct chart *c, const struct axes *a)
{
	double span = a->x1 - a->x0, xstep = span > 6 ? log10(16) : span > 3 ? log10(4) : log10(2);
	char t[32];

	fputs("<g class=\"grid\" font-size=\"10\">\n", f);
	if (!c->x_bytes)
		xstep = 1;
	for (double e = ceil(a->x0 / xstep) * xstep; e <= a->x1; e += xstep) {
		double x = px(a, pow(10, e));

		if (c->x_bytes)
			html_bytes(t, sizeof t, round(pow(10, e)));
		else
			html_tick(t, sizeof t, pow(10, e));
		fprintf(f, "<path d=\"M%.1f %dV%d\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, MT, CH - MB, x, CH - MB + 14, t);
	}
	for (double d = floor(a->y0); d <= a->y1; d++)
		for (int k = 0; k < 3; k++) {
			double v = pow(10, d) * (double[]){ 1, 2, 5 }[k];

			if (log10(v) < a->y0 || log10(v) > a->y1 || (k && a->y1 - a->y0 > 3))
				continue;
			html_tick(t, sizeof t, v);
			fprintf(f, "<path d=\"M%d %.1fH%d\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
				"dy=\"0.35em\">%s</text>\n", ML, py(a, v), CW - MR, ML - 4, py(a, v), t);
		}
	fputs("</g>\n", f);
}

static void labels(FILE *f, const struct chart *c)
{
	fprintf(f, "<text class=\"ct\" x=\"%d\" y=\"16\">", ML);
	html_text(f, c->title);
	fprintf(f, "</text>\n<text class=\"al\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (ML + CW - MR) / 2, CH - 8);
	html_text(f, c->xlabel);
	fprintf(f, " (log scale)</text>\n<text class=\"al\" transform=\"translate(14,%d) rotate(-90)\" "
		"text-anchor=\"middle\">", (MT + CH - MB) / 2);
	html_text(f, c->ylabel);
	fputs(" (log scale)</text>\n", f);
}

static void series(FILE *f, const struct chart *c, const struct axes *a, int s)
{
	const struct chart_series *r = &c->s[s];
	const char *col = colours[s % 8];
	char xs[32], ys[32];
	int k = 0;

	fprintf(f, "<g class=\"series\" stroke=\"%s\" fill=\"%s\">\n<polyline fill=\"none\" stroke-width=\"2\"%s points=\"",
		col, col, r->dashed ? " stroke-dasharray=\"5 3\"" : "");
	for (int i = 0; i < r->n; i++)
		if (r->x[i] > 0 && r->y[i] > 0 && isfinite(r->x[i]) && isfinite(r->y[i]))
			fprintf(f, "%s%.1f,%.1f", k++ ? " " : "", px(a, r->x[i]), py(a, r->y[i]));
	fputs("\"/>\n", f);
	for (int i = 0; i < r->n; i++) {
		if (!(r->x[i] > 0 && r->y[i] > 0 && isfinite(r->x[i]) && isfinite(r->y[i])))
			continue;
		c->x_bytes ? html_bytes(xs, sizeof xs, r->x[i]) : html_num(xs, sizeof xs, r->x[i]);
		html_num(ys, sizeof ys, r->y[i]);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>", px(a, r->x[i]), py(a, r->y[i]));
		html_text(f, r->name);
		fprintf(f, ": %s → %s ", xs, ys);
		html_text(f, c->yunit);
		fputs("</title></circle>\n", f);
	}
	fprintf(f, "</g>\n<g class=\"key\"><path d=\"M%d %dh18\" stroke=\"%s\" stroke-width=\"2\"%s/>"
		"<text x=\"%d\" y=\"%d\" dy=\"0.35em\">", CW - MR + 12, MT + 8 + 16 * s, col,
		r->dashed ? " stroke-dasharray=\"5 3\"" : "", CW - MR + 34, MT + 8 + 16 * s);
	html_text_max(f, r->name, 24);
	fputs("</text></g>\n", f);
}

void chart_loglog(FILE *f, const struct chart *c)
{
	struct axes a;

	ranges(c, &a);
	fprintf(f, "<svg class=\"chart\" data-chart=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", c->id, CW, CH, CW, CH);
	labels(f, c);
	grid(f, c, &a);
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\"/>\n", ML, MT,
		CW - ML - MR, CH - MT - MB);
	for (int s = 0; s < c->nseries && s < 12; s++)
		series(f, c, &a, s);
	fputs("</svg>\n", f);
}
