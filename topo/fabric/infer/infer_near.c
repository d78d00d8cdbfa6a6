/* infer_near.c — the pair noise and the first node offsets, from the rows of each node's
 * nearest nodes (infer.h, step 2; docs/latency-map.md). */
#include <stdlib.h>
#include <string.h>

#include "infer_int.h"
#include "core/log.h"

#define NEAR_K 4        /* neighbours per node for the noise and the first offsets */
#define NEAR_COLS 128   /* columns their rows are compared over, at most */
#define NOISE_PRIOR 20  /* pairs that rel_noise is worth against the measured noise */

struct near {
	int *j;       /* [i * NEAR_K + k]: candidates, nearest first; -1 = none */
	float *v;
	float *dus;   /* row difference i - j in µs (median over the columns) */
	float *se;    /* its standard error */
	float *mad;   /* spread of the log row difference */
	float *cols;  /* [i * ncol + q]: log latency of i and the q-th sampled column (a node) */
	int *colx, ncol;
};

/* The columns rows are compared over: every stride-th node, at most NEAR_COLS, in a
 * compact n x ncol copy (so that comparing rows reads memory in order). */
static int near_cols(const struct infer_ctx *c, struct near *nb)
{
	int n = c->n, stride = n > NEAR_COLS ? (n + NEAR_COLS - 1) / NEAR_COLS : 1;

	nb->ncol = (n + stride - 1) / stride;
	nb->colx = malloc(sizeof *nb->colx * (size_t)nb->ncol);
	nb->cols = malloc(sizeof *nb->cols * (size_t)n * nb->ncol);
	if (!nb->colx || !nb->cols)
		return -1;
	for (int q = 0; q < nb->ncol; q++)
		nb->colx[q] = q * stride;
	for (int i = 0; i < n; i++)
		for (int q = 0; q < nb->ncol; q++) {
			float x = nb->colx[q] == i ? NAN : sym_of(c->lat, n, i, nb->colx[q]);

			nb->cols[(size_t)i * nb->ncol + q] = isnan(x) ? NAN : logf(fmaxf(x, 1e-3f));
		}
	return 0;
}

/* j at latency x among a's NEAR_K nearest, if it is one */
static inline void near_keep(struct near *nb, int a, int j, float x)
{
	int *nj = nb->j + (size_t)a * NEAR_K, k = NEAR_K - 1;
	float *nv = nb->v + (size_t)a * NEAR_K;

	if (!(x < nv[k]))
		return;
	for (; k > 0 && nv[k - 1] > x; k--) {
		nv[k] = nv[k - 1];
		nj[k] = nj[k - 1];
	}
	nv[k] = x;
	nj[k] = j;
}

/* The NEAR_K nearest of every node by its pairs' latency, in one tiled walk of the matrix;
 * also the pairs measured and the least latency, for the noise floor. */
static int near_find(struct infer_ctx *c, struct near *nb)
{
	int n = c->n, B = INFER_BLOCK;
	float lo = INFINITY, *ts = malloc(sizeof *ts * 2 * B * B);

	if (!ts)
		return FP_ERUNTIME;
	c->npairs = 0;
	for (size_t k = 0; k < (size_t)n * NEAR_K; k++) {
		nb->j[k] = -1;
		nb->v[k] = INFINITY;
	}
	for (int I = 0; I < n; I += B)
		for (int J = 0; J <= I; J += B) {
			infer_tile_sym(c->lat, n, I, J, ts, ts + B * B);
			for (int i = I; i < I + B && i < n; i++)
				for (int j = J; j < J + B && j < i; j++) {
					float x = ts[(i - I) * B + j - J];

					if (isnan(x))
						continue;
					c->npairs++;
					lo = minf(lo, x);
					near_keep(nb, i, j, x);
					near_keep(nb, j, i, x);
				}
		}
	c->dmin = logf(maxf(lo, 1e-3f));
	free(ts);
	return 0;
}

/* The median of v[0..k-1] weighted wt: a quickselect on (value, weight) pairs, expected
 * O(k). tmp: 2k floats. */
static double weighted_median(const float *v, const float *wt, int k, float *tmp)
{
	double want = 0;
	int a = 0, b = k - 1;

	for (int q = 0; q < k; q++) {
		tmp[2 * q] = v[q];
		tmp[2 * q + 1] = wt[q];
		want += wt[q] / 2;
	}
	while (a < b) { /* the answer is in [a, b]; want: the weight still to pass there */
		float pivot = tmp[2 * ((a + b) / 2)];
		int i = a, j = b;
		double left = 0;

		while (i <= j) {
			while (tmp[2 * i] < pivot)
				i++;
			while (tmp[2 * j] > pivot)
				j--;
			if (i <= j) {
				for (int h = 0; h < 2; h++) {
					float x = tmp[2 * i + h];

					tmp[2 * i + h] = tmp[2 * j + h];
					tmp[2 * j + h] = x;
				}
				i++;
				j--;
			}
		}
		for (int q = a; q <= j; q++)
			left += tmp[2 * q + 1];
		if (left >= want && j >= a) { /* within the values at or below the pivot */
			b = j;
			continue;
		}
		want -= left;
		for (int q = j + 1; q < i; q++) /* equal to the pivot */
			if ((want -= tmp[2 * q + 1]) <= 0)
				return pivot;
		a = i;
	}
	return tmp[2 * a];
}

/* Rows i and j over the sampled columns (the compared pairs' values into buf, 5 x NEAR_COLS: log
 * difference, µs difference, larger latency). sigma == 0: the spread (MAD) of the log
 * difference into *out. sigma > 0: the difference in µs, each column weighted by its
 * precision (1/latency²), from their weighted median with deviations clipped at 3 of each
 * column's sigmas, into *out, its standard error into *se. Returns the columns compared (0: fewer than 3). */
static int row_compare(const struct infer_ctx *c, const struct near *nb, int i, int j, double sigma, float *buf,
		       float *out, float *se)
{
	int k = 0, K = nb->ncol;
	float *lg = buf, *us = buf + NEAR_COLS + 1, *lo = us + NEAR_COLS + 1, *tmp = lo + NEAR_COLS + 1;
	const float *ri = nb->cols + (size_t)i * K, *rj = nb->cols + (size_t)j * K;

	for (int q = 0; q < K; q++) {
		int x = nb->colx[q];

		if (x == i || x == j || isnan(ri[q]) || isnan(rj[q]))
			continue;
		lg[k] = ri[q] - rj[q];
		if (sigma > 0) {
			float sa = expf(ri[q]) + (float)(c->off[i] + c->off[x]), sb = expf(rj[q]) + (float)(c->off[j] + c->off[x]);

			lo[k] = maxf(sa, sb); /* a column near one of the two only: little weight */
			us[k] = sa - sb;
		}
		k++;
	}
	if (k < 3)
		return 0;
	if (sigma <= 0) {
		/* small samples: a MAD's bias factor (Croux and Rousseeuw 1992) */
		static const float b[] = { 1, 1, 1.196f, 1.495f, 1.363f, 1.206f, 1.200f, 1.140f, 1.129f, 1.107f };
		float med = (float)infer_median(lg, (size_t)k);

		for (int q = 0; q < k; q++)
			lg[q] = fabsf(lg[q] - med);
		*out = (float)infer_median(lg, (size_t)k) * (k < 10 ? b[k] : k / (k - 0.8f));
		return k;
	}
	/* each column weighs its precision, 1/latency², but no more than half the others together:
	 * one pair never decides (in a leaf of three, two rows share one low column) */
	float *wt = lg;
	double tot = 0, sw = 0, sd = 0, srr = 0, sv = 0, s2, med;
	for (int q = 0; q < k; q++)
		tot += wt[q] = 1 / (lo[q] * lo[q]);
	for (int q = 0; q < k; q++)
		wt[q] = minf(wt[q], (float)((tot - wt[q]) / 2));
	med = weighted_median(us, wt, k, tmp);
	for (int q = 0; q < k; q++) {
		double cap = 3 * M_SQRT2 * sigma * lo[q], raw = us[q] - med;

		sw += wt[q];
		sd += wt[q] * fmax(-cap, fmin(cap, raw));
		srr += raw * raw / ((double)lo[q] * lo[q]);
		sv += (double)wt[q] * wt[q] * lo[q] * lo[q];
	}
	*out = (float)(med + sd / sw);
	/* its standard error: each column is two pairs of sigma x latency, so raw²/latency² is
	 * 2 sigma² chi²(1); the noise the columns show (unclipped: columns the two see at
	 * different tiers show a great deal) stands in for sigma when larger */
	s2 = fmax(sigma * sigma, srr / (2.0 * (k - 1)));
	*se = (float)sqrt(2 * s2 * sv / (sw * sw));
	return k;
}

/* sigma: the median over nodes of the noise seen between a node's row and its nearest
 * neighbour's (the difference of two pairs: sqrt 2 x a pair's sigma). The nearest by its one
 * pair, not the most alike row: choosing by the spread itself would bias it low. *nu: the
 * pairs it rests on (0: too few nodes or columns to say). */
static double near_noise(const struct infer_ctx *c, struct near *nb, float *buf, float *sig, double *nu)
{
	int n = c->n, k = 0;
	double cols = 0;

	for (int i = 0; i < n; i++)
		for (int q = 0; q < NEAR_K; q++) {
			size_t at = (size_t)i * NEAR_K + q;

			nb->mad[at] = INFINITY;
			int got = nb->j[at] >= 0 ? row_compare(c, nb, i, nb->j[at], 0, buf, &nb->mad[at], NULL) : 0;

			if (got && q == 0) {
				sig[k++] = (float)(1.4826 * nb->mad[at] / M_SQRT2);
				cols += got;
			}
		}
	*nu = k >= 3 ? fmin(cols, (double)tri(n, 0)) : 0;
	return k ? infer_median(sig, (size_t)k) : 0;
}

/* The row differences in µs to the neighbours whose rows are alike (within 1.5x the most
 * alike one's spread); the others are dropped (mad = inf). */
static void near_diffs(const struct infer_ctx *c, struct near *nb, float *buf)
{
	for (int i = 0; i < c->n; i++) {
		float *mad = nb->mad + (size_t)i * NEAR_K, best = INFINITY;

		for (int q = 0; q < NEAR_K; q++)
			best = fminf(best, mad[q]);
		for (int q = 0; q < NEAR_K; q++) {
			size_t at = (size_t)i * NEAR_K + q;

			if (!isfinite(mad[q]) || !(mad[q] <= 1.5f * best + 1e-6f) ||
			    !row_compare(c, nb, i, nb->j[at], c->sigma, buf, &nb->dus[at], &nb->se[at]))
				mad[q] = INFINITY;
		}
		best = INFINITY; /* and whose difference is about as well known as the best one's */
		for (int q = 0; q < NEAR_K; q++)
			if (isfinite(mad[q]))
				best = minf(best, nb->se[(size_t)i * NEAR_K + q]);
		for (int q = 0; q < NEAR_K; q++)
			if (isfinite(mad[q]) && nb->se[(size_t)i * NEAR_K + q] > 3 * best)
				mad[q] = INFINITY;
	}
}

static int uf_find(int *p, int x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

static int cmp_part(const void *a, const void *b)
{
	const double *x = a, *y = b; /* (part, offset) */

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Each part's median offset to 0 (a slow node does not move its mates). by: 2n doubles of
 * scratch, v: n floats. */
static void center_parts(double *o, int *part, int n, double *by, float *v)
{
	for (int i = 0; i < n; i++) {
		by[2 * i] = uf_find(part, i);
		by[2 * i + 1] = o[i];
	}
	qsort(by, (size_t)n, 2 * sizeof *by, cmp_part);
	for (int a = 0, b; a < n; a = b) {
		int r = (int)by[2 * a];

		for (b = a; b < n && (int)by[2 * b] == r; b++)
			v[b - a] = (float)by[2 * b + 1];
		by[2 * a + 1] = infer_median(v, (size_t)(b - a)); /* the part's median, kept at its first */
		part[r] = -1 - a;                              /* the root points at it */
	}
	for (int i = 0; i < n; i++) {
		int r = i;

		while (part[r] >= 0 && part[r] != r)
			r = part[r];
		o[i] -= by[2 * (-1 - part[r]) + 1];
	}
}

/* Offsets from the alike neighbours: o_i = median over them of (row difference + o_j), relaxed
 * with damping. Those fix offsets only relative to each other, within each connected part of
 * the neighbour graph (mostly a leaf): each part's median is then set to 0, so that it keeps
 * its own typical offset (which the tier model finds) rather than an arbitrary one. Last, they are
 * shrunk by what their standard errors say (infer_shrink). */
static void near_offsets(struct infer_ctx *c, const struct near *nb, float *buf, int *part, float *se)
{
	int n = c->n;
	double *o = c->off, *sum = c->off + n; /* 2n + 1 more doubles there (see infer_tiers) */

	for (int i = 0; i < n; i++) {
		float v[NEAR_K];
		int k = 0;

		for (int q = 0; q < NEAR_K; q++)
			if (isfinite(nb->mad[(size_t)i * NEAR_K + q]))
				v[k++] = nb->se[(size_t)i * NEAR_K + q];
		se[i] = k ? (float)infer_median(v, (size_t)k) : INFINITY;
	}

	for (int round = 0; round < 16; round++) {
		for (int i = 0; i < n; i++) {
			float v[NEAR_K];
			int k = 0;

			for (int q = 0; q < NEAR_K; q++)
				if (isfinite(nb->mad[(size_t)i * NEAR_K + q]))
					v[k++] = nb->dus[(size_t)i * NEAR_K + q] + (float)o[nb->j[(size_t)i * NEAR_K + q]];
			buf[i] = k ? (float)(0.5 * (o[i] + infer_median(v, (size_t)k))) : (float)o[i];
		}
		for (int i = 0; i < n; i++)
			o[i] = buf[i];
	}
	for (int i = 0; i < n; i++)
		part[i] = i;
	for (size_t k = 0; k < (size_t)n * NEAR_K; k++)
		if (isfinite(nb->mad[k]))
			part[uf_find(part, (int)(k / NEAR_K))] = uf_find(part, nb->j[k]);
	center_parts(o, part, n, sum, buf);
	for (int i = 0; i < n; i++) { /* each node's spread, from its sampled columns */
		float *row = nb->cols + (size_t)i * nb->ncol, *v = buf;
		int k = 0;

		for (int q = 0; q < nb->ncol; q++)
			if (!isnan(row[q]))
				v[k++] = row[q];
		c->spread[i] = k ? (float)(exp(infer_median(v, (size_t)k)) - nb->v[(size_t)i * NEAR_K]) : 0;
		c->spread[n + i] = nb->v[(size_t)i * NEAR_K];
	}
	for (int i = 0; i < n; i++) /* the lowest level: the typical nearest pair */
		buf[i] = isfinite(nb->v[(size_t)i * NEAR_K]) ? nb->v[(size_t)i * NEAR_K] : INFINITY;
	infer_shrink(c, o, se, infer_median(buf, (size_t)n), buf);
}

/* Empirical Bayes: an offset estimate is the true offset plus an error of its standard error;
 * the true offsets spread tau² = (spread of the estimates)² - (mean error)². Each estimate is
 * shrunk by tau² / (tau² + se²). An offset known no better than half the noise of a pair at
 * the lowest level lo (µs) is dropped: it would add noise where tiers are closest. An offset
 * beyond 4 standard errors (a slow node) is kept whole when it is below lo, or when the
 * node's row has a structure (its spread, the row's median less its nearest pair, above the
 * offset, or above STRUCT_SIGMAS pair sigmas at the nearest pair's level: the node has pairs
 * clearly nearer than its others, its leaf mates, however slow it is) and, for a slow one, the
 * offset shows in the node's far pairs too (offset_reaches_far, asked only of offsets above
 * lo: few nodes). Else the node is more likely on a switch of its own than that slow: beside
 * one other switch only, the two cannot be told apart. (+100% slow nodes split their leaves
 * while the spread had to exceed the offset: a node +1.6 us on a 1.6 us leaf has a spread of
 * about 1 us.) */
/* Whether node i's offset o (µs) shows in its far pairs too, as an offset must: against its
 * nearest node j, over the columns in the far half of j's row, the median of
 * lat(i, z) - lat(j, z) must not stand clearly below o / 2 (3 of its standard errors, from the
 * pair noise). A node alone on its leaf beside a leaf of several, under one spine with more
 * spines around, reads like a slow node of that leaf from its near pairs only; its pairs across
 * the core carry no such offset. 1 when it shows (or too few far pairs say anything), 0 when
 * not. buf: n floats of scratch. */
static int offset_reaches_far(const struct infer_ctx *c, int i, double o, float *buf)
{
	int n = c->n, j = -1, k = 0;
	float best = INFINITY, med;

	for (int z = 0; z < n; z++) {
		float v = z == i ? NAN : sym_of(c->lat, n, i, z);

		if (v < best)
			best = v, j = z;
	}
	if (j < 0)
		return 1;
	for (int z = 0; z < n; z++) {
		float v = z == i || z == j ? NAN : sym_of(c->lat, n, j, z);

		if (!isnan(v) && !isnan(sym_of(c->lat, n, i, z)))
			buf[k++] = v;
	}
	if (k < 6)
		return 1;
	med = infer_median(buf, (size_t)k);
	double far = 0;
	int m = 0;
	for (int z = 0; z < n; z++) {
		float a = z == i || z == j ? NAN : sym_of(c->lat, n, i, z), b = z == j ? NAN : sym_of(c->lat, n, j, z);

		if (!isnan(a) && !isnan(b) && b >= med) {
			buf[m++] = a - b;
			far += b;
		}
	}
	if (m < 3)
		return 1;
	far /= m;
	double d = infer_median(buf, (size_t)m), se = 1.25 * sqrt(2.0) * c->sigma * far / sqrt((double)m);

	return !(d < o / 2 && o / 2 - d > 3 * se);
}

#define STRUCT_SIGMAS 2.5 /* a row whose nearest pair stands this many pair sigmas below its median */
void infer_shrink(const struct infer_ctx *c, double *o, const float *se, double lo, float *buf)
{
	int n = c->n, k = 0;
	double e2 = 0, tau2;

	for (int i = 0; i < n; i++)
		if (isfinite(se[i])) {
			e2 += (double)se[i] * se[i];
			buf[k++] = (float)o[i];
		}
	if (!k)
		return;
	double med = infer_median(buf, (size_t)k);
	for (int i = 0; i < k; i++)
		buf[i] = fabsf(buf[i] - (float)med);
	double spread = 1.4826 * infer_median(buf, (size_t)k);
	tau2 = fmax(0, spread * spread - e2 / k);
	for (int i = 0; i < n; i++) {
		double s2 = isfinite(se[i]) ? (double)se[i] * se[i] : INFINITY;

		if (fabs(o[i]) > 4 * sqrt(s2) &&
		    (fabs(o[i]) <= lo || ((fabs(o[i]) < c->spread[i] || c->spread[i] > STRUCT_SIGMAS * c->sigma * c->spread[n + i]) &&
					  (o[i] < 0 || offset_reaches_far(c, i, o[i], buf)))))
			continue;
		o[i] *= tau2 > 0 ? tau2 / (tau2 + s2) : 0;
	}
}

/* The noise to work with: the estimates (est[k] worth nu[k] pairs), pooled with rel_noise as
 * though that had been seen on NOISE_PRIOR pairs (a few nodes cannot say much about their
 * noise), and never below noise_us at the lowest latency. */
double infer_noise(const struct infer_ctx *c, const double *est, const double *nu, int k)
{
	double fl = 0, pr = c->o->rel_noise, s = NOISE_PRIOR * pr * pr, w = NOISE_PRIOR;

	if (c->o->noise_us > 0 && isfinite(c->dmin))
		fl = c->o->noise_us / exp(c->dmin);
	for (int q = 0; q < k; q++)
		if (nu[q] > 0) {
			s += nu[q] * est[q] * est[q];
			w += nu[q];
		}
	return fmax(fmax(fmax(fl, 1e-6), sqrt(s / w)), isnan(c->rep_sigma) ? 0 : c->rep_sigma);
}

/* The repeat noise. Per node, its directions within REPEAT_SPAN of its least latency (its
 * leaf's pairs, where the lowest tier is decided; at most REPEAT_ROW of them, in index
 * order): the part of each one's deviation from their median (the node's nearest level) that
 * its second measurement (the highest latency pass's minimum) did not repeat,
 * min(ln(again / lat), |ln(lat / level)|). A pair a fast spell of the host caught stands below
 * its neighbours and read at their level again: it counts. A pair the second pass caught in a
 * slow spell stands at its neighbours' level: it does not (the map takes the lower minimum),
 * nor does a pair that stands apart both times (a switch of its own, a longer cable). Two
 * measurements differ by sqrt(2) sigma; the 90th percentile is taken, so that spells that
 * move a tenth of the pairs or more count. NAN with fewer than REPEAT_MIN directions. Not
 * the node's nearest few alone: chosen for their low latency, their deviations read small.
 * 0 or FP_ERUNTIME. */
#define REPEAT_MIN 10
#define REPEAT_SPAN 1.5f
#define REPEAT_ROW 32
static int near_repeat(struct infer_ctx *c)
{
	int n = c->n;
	const float *hi = c->o->lat_again;
	float *r = hi ? malloc(sizeof *r * ((size_t)n * REPEAT_ROW + 1)) : NULL; /* NULL: nothing to do */
	size_t k = 0;

	c->rep_sigma = NAN;
	c->rep_n = 0;
	if (!hi)
		return 0;
	if (!r)
		return FP_ERUNTIME;
	for (int i = 0; i < n; i++) {
		const float *row = c->lat + (size_t)i * n, *again = hi + (size_t)i * n;
		float lo = INFINITY, v[REPEAT_ROW];
		int at[REPEAT_ROW], m = 0;

		for (int j = 0; j < n; j++)
			if (j != i && row[j] > 0)
				lo = minf(lo, row[j]);
		for (int j = 0; j < n && m < REPEAT_ROW && isfinite(lo); j++)
			if (j != i && row[j] > 0 && row[j] <= REPEAT_SPAN * lo) {
				at[m] = j;
				v[m++] = row[j];
			}
		if (m < 2)
			continue;
		double level = infer_median(v, (size_t)m);
		for (int q = 0; q < m; q++) {
			float x = row[at[q]], y = again[at[q]];

			if (y >= x && isfinite(y))
				r[k++] = fminf(logf(y / x), fabsf((float)log(x / level)));
		}
	}
	if (k >= REPEAT_MIN) {
		c->rep_sigma = infer_select(r, k, (size_t)ceil(0.9 * (double)k) - 1) / (1.645 * M_SQRT2);
		c->rep_n = (long long)k;
	}
	free(r);
	return 0;
}

int infer_near(struct infer_ctx *c, double *sigma, double *nu)
{
	int n = c->n, rc = FP_ERUNTIME;
	struct near nb = { 0 };
	float *buf = malloc(sizeof *buf * (size_t)(n + 5 * NEAR_COLS + 6)), *per = malloc(sizeof *per * (size_t)n + 1);
	int *part = malloc(sizeof *part * (size_t)n + 1);

	nb.j = malloc(sizeof *nb.j * (size_t)n * NEAR_K);
	nb.se = malloc(sizeof *nb.se * (size_t)n * NEAR_K);
	nb.v = malloc(sizeof *nb.v * (size_t)n * NEAR_K);
	nb.dus = malloc(sizeof *nb.dus * (size_t)n * NEAR_K);
	nb.mad = malloc(sizeof *nb.mad * (size_t)n * NEAR_K);
	if (buf && per && part && nb.j && nb.v && nb.dus && nb.mad && nb.se && !near_cols(c, &nb) &&
	    !near_find(c, &nb) && !near_repeat(c)) {
		*sigma = near_noise(c, &nb, buf, per, nu);
		c->sigma = infer_noise(c, sigma, nu, 1);
		near_diffs(c, &nb, buf);
		near_offsets(c, &nb, buf, part, per);
		rc = 0;
	}
	free(buf);
	free(per);
	free(part);
	free(nb.j);
	free(nb.v);
	free(nb.dus);
	free(nb.mad);
	free(nb.se);
	free(nb.cols);
	free(nb.colx);
	return rc;
}

