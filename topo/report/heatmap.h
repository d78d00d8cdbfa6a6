/* heatmap.h — one matrix as an SVG heat map: a rectangle and a <title> per cell while the
 * cells are large enough to point at (n <= HM_CELLS_MAX), otherwise one embedded PNG pixel per
 * cell; switch groups outlined, suspect cells and nodes marked, a legend with the unit. Pure. */
#ifndef FP_HEATMAP_H
#define FP_HEATMAP_H

#include <stdio.h>

#define HM_CELLS_MAX 64 /* above this many hosts the cells are an image */

enum hm_scale {
	HM_LOG,       /* latencies: tiers differ by factors */
	HM_LINEAR,    /* bandwidths */
	HM_DIVERGING, /* a change in percent, worse > 0 */
};

/* A switch group: hosts [start, start + len) in display order, at tier (0 = leaf). */
struct hm_block {
	int tier, start, len;
	const char *name;
};

/* A suspect: cell (i, j), or node i when j < 0; why is its reason (for the <title>). */
struct hm_mark {
	int i, j;
	const char *why;
};

struct hm_map {
	const char *id;          /* unique in the page, [A-Za-z0-9_-] */
	const char *names_id;    /* id of the <script type="application/json"> holding the names */
	const char *path, *metric;
	const char *unit;        /* "µs", "GB/s", "%" */
	enum hm_scale scale;
	int high_is_good;        /* bandwidth: low values are dark */
	int n;
	const char *const *names;      /* n, display order */
	const float *v;                /* n x n, display order, row = source; NAN = not measured */
	const struct hm_block *blocks;
	int nblocks;
	const struct hm_mark *marks;
	int nmarks;
};

/* The <svg> of the map (and its legend). 0, or FP_ERUNTIME when out of memory (nothing then
 * but a short notice is written). */
int hm_render(FILE *f, const struct hm_map *m);

/* The colour of a value on the map's scale (for the legend of other figures, and tests):
 * t in [0, 1] from good (light) to bad (dark); for HM_DIVERGING t in [-1, 1]. */
void hm_ramp(enum hm_scale s, double t, unsigned char rgb[3]);

#endif
