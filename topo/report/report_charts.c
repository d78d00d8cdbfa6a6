/* report_charts.c — figures against message size: per path, the pairs' median latency and
 * bandwidth at each size measured (p2p.csv); per collective, bus bandwidth per backend
 * (collectives.csv). Log axes, labelled with units. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "html.h"
#include "report_int.h"

#define SERIES_MAX 12
#define POINTS_MAX 64

struct series_buf {
	char name[160];
	int n, dashed;
	double x[POINTS_MAX], y[POINTS_MAX];
};

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

static int cmp_size(const void *a, const void *b)
{
	const struct rpt_size *x = a, *y = b;

	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* median, min and max of v (sorted in place); NAN when empty */
static void stats(float *v, int n, double *med, double *lo, double *hi)
{
	if (!n) {
		*med = *lo = *hi = NAN;
		return;
	}
	qsort(v, (size_t)n, sizeof *v, cmp_float);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
	*lo = v[0];
	*hi = v[n - 1];
}

static void sweep_table(FILE *f, struct rpt_path *p)
{
	fputs("<table class=\"sweep\"><thead><tr><th>path</th><th>size</th><th>pairs</th><th>latency p50 µs: median</th>"
	      "<th>min</th><th>max</th><th>bandwidth GB/s: median</th><th>min</th><th>max</th></tr></thead><tbody>\n", f);
	for (int i = 0; i < p->nsizes; i++) {
		struct rpt_size *z = &p->size[i];
		double s[6];
		char b[32], t[6][32];

		stats(z->lat, z->nlat, &s[0], &s[1], &s[2]);
		stats(z->bw, z->nbw, &s[3], &s[4], &s[5]);
		html_bytes(b, sizeof b, z->bytes);
		fputs("<tr><td>", f);
		html_text(f, p->name);
		fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%d</td>", b, z->nlat > z->nbw ? z->nlat : z->nbw);
		for (int k = 0; k < 6; k++) {
			html_num(t[k], sizeof t[k], s[k]);
			fprintf(f, "<td class=\"n\">%s</td>", t[k]);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* the path's medians per size as one series of latency (bw 0) or bandwidth (bw 1) */
static int sweep_series(struct rpt_path *p, int bw, struct series_buf *s)
{
	s->n = 0;
	snprintf(s->name, sizeof s->name, "%s", p->name);
	for (int i = 0; i < p->nsizes && s->n < POINTS_MAX; i++) {
		struct rpt_size *z = &p->size[i];
		double med, lo, hi;

		stats(bw ? z->bw : z->lat, bw ? z->nbw : z->nlat, &med, &lo, &hi);
		if (!isnan(med)) {
			s->x[s->n] = z->bytes;
			s->y[s->n++] = med;
		}
	}
	return s->n;
}

static void sweep_chart(FILE *f, struct rpt *r, int bw)
{
	struct series_buf *b = calloc(SERIES_MAX, sizeof *b);
	struct chart_series cs[SERIES_MAX];
	int n = 0, multi = 0;

	for (int i = 0; b && i < r->npaths && n < SERIES_MAX; i++)
		if (sweep_series(&r->paths[i], bw, &b[n]) > 0) {
			multi |= b[n].n > 1;
			cs[n] = (struct chart_series){ b[n].name, b[n].n, b[n].x, b[n].y, 0 };
			n++;
		}
	if (multi)
		chart_loglog(f, &(struct chart){ bw ? "sweep-bw" : "sweep-lat",
				 bw ? "Bandwidth against message size (median over pairs)" :
				      "Latency against message size (median over pairs)",
				 "message size", bw ? "bandwidth, GB/s" : "latency (half round trip), µs",
				 bw ? "GB/s" : "µs", 1, n, cs });
	free(b);
}

void rpt_sweeps(struct rpt *r)
{
	int several = 0;

	rpt_section(r->out, "sweeps", "Latency and bandwidth against message size");
	for (int i = 0; i < r->npaths; i++) {
		qsort(r->paths[i].size, (size_t)r->paths[i].nsizes, sizeof r->paths[i].size[0], cmp_size);
		several |= r->paths[i].nsizes > 1;
	}
	if (!r->have_p2p || !r->npaths)
		fputs("<p class=\"muted\">No p2p.csv rows.</p>\n", r->out);
	else {
		if (several) {
			fputs("<div class=\"maps\">\n", r->out);
			sweep_chart(r->out, r, 0);
			sweep_chart(r->out, r, 1);
			fputs("</div>\n", r->out);
		} else
			fputs("<p class=\"muted\">One message size per figure was measured: no curve to draw.</p>\n", r->out);
		for (int i = 0; i < r->npaths; i++)
			sweep_table(r->out, &r->paths[i]);
	}
	fputs("</section>\n", r->out);
}
