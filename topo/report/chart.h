/* chart.h — a line chart on log-log axes as SVG: bandwidth and latency against message size,
 * bus bandwidth against size. Axes labelled with their units; a <title> per point. Pure. */
#ifndef FP_CHART_H
#define FP_CHART_H

#include <stdio.h>

struct chart_series {
	const char *name;
	int n;
	const double *x, *y;   /* points with x or y not > 0 are left out (no place on a log axis) */
	int dashed;
};

struct chart {
	const char *id;        /* for tests: data-chart */
	const char *title, *xlabel, *ylabel, *yunit;
	int x_bytes;           /* x is a size in bytes: ticks read 8 B, 1 KiB, … */
	int nseries;
	const struct chart_series *s;
};

void chart_loglog(FILE *f, const struct chart *c);

#endif
