/* infer.c — see infer.h: the pipeline, the pair values, the noise and the first offsets, the
 * node order. Average linkage is in infer_link.c, tier boundaries in infer_tier.c, the tier
 * model and the suspects in infer_model.c. */
#include "infer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "infer_int.h"
#include "infer_model.h"
#include "core/log.h"
#include "core/natsort.h"

#define NEAR_K 4        /* neighbours per node for the noise and the first offsets */
#define NEAR_COLS 128   /* columns their rows are compared over, at most */
#define NOISE_PRIOR 20  /* pairs that rel_noise is worth against the measured noise */

void infer_opts_default(struct infer_opts *o)
{
	*o = (struct infer_opts){ .rel_noise = 0.03, .sep_z = 5, .sep_step = 1.5 };
}

const char *infer_suspect_kind_name(int kind)
{
	static const char *const names[] = { "slow_node", "slow_link", "fast_link", "low_bw_node",
					     "low_bw_link", "unmeasured_pair" };

	return kind >= 0 && kind <= SUSPECT_UNMEASURED ? names[kind] : "unknown";
}

/* ---------------------------------------------------------------- small tools */

/* k-th smallest of a[0..n-1] (0-based, no NANs); reorders a. Expected O(n) (Hoare). */
float infer_select(float *a, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

	while (lo < hi) {
		float pivot = a[lo + (hi - lo) / 2];
		ptrdiff_t i = lo, j = hi;

		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				float t = a[i];

				a[i++] = a[j];
				a[j--] = t;
			}
		}
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			return a[kk];
	}
	return a[kk];
}

/* the median (the mean of the middle two of an even count); reorders a */
static double median_of(float *a, size_t n)
{
	if (!n)
		return NAN;
	double lo = infer_select(a, n, (n - 1) / 2);
	if (n % 2)
		return lo;
	float hi = a[n / 2];
	for (size_t k = n / 2 + 1; k < n; k++) /* after the select, the upper half is above (n-1)/2 */
		hi = fminf(hi, a[k]);
	return (lo + hi) / 2;
}

float *infer_big(size_t n)
{
	size_t bytes = sizeof(float) * (n ? n : 1), huge = (size_t)2 << 20;
	void *p = NULL;

	if (bytes < 2 * huge)
		return malloc(bytes);
	if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge))
		return NULL;
	madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE); /* a hint: failure is harmless */
	return p;
}

void ctx_rows(const struct infer_ctx *c, int i0, int i1)
{
	int n = c->n;

	for (int i = i0; i < i1; i++) {
		memcpy(c->rows + (size_t)(i - i0) * n, c->d + tri(i, 0), sizeof *c->rows * (size_t)i);
		c->rows[(size_t)(i - i0) * n + i] = NAN;
	}
	for (int j = i0 + 1; j < n; j++) {
		const float *col = c->d + tri(j, 0);
		int end = j < i1 ? j : i1;

		for (int i = i0; i < end; i++)
			c->rows[(size_t)(i - i0) * n + j] = col[i];
	}
}

/* ---------------------------------------------------------------- the pair values */

/* a pair's latency: the mean of its measured directions (NAN: neither) */
static inline float sym_of(const float *lat, int n, int i, int j)
{
	float a = lat[(size_t)i * n + j], b = lat[(size_t)j * n + i];

	return isnan(a) ? b : isnan(b) ? a : 0.5f * (a + b);
}

/* The pairs' latencies of tile (I, J), J <= I: s[(i - I) * B + j - J], B = INFER_BLOCK. The
 * transposed half is copied by rows first: read down a column, a matrix whose rows are a power
 * of two apart would hit one cache set again and again. t: B x B floats of scratch. */
static void tile_sym(const float *lat, int n, int I, int J, float *s, float *t)
{
	int B = INFER_BLOCK, ni = n - I < B ? n - I : B, nj = n - J < B ? n - J : B;

	for (int jj = 0; jj < nj; jj++)
		memcpy(t + (size_t)jj * B, lat + (size_t)(J + jj) * n + I, sizeof *t * (size_t)ni);
	for (int ii = 0; ii < ni; ii++) {
		const float *a = lat + (size_t)(I + ii) * n + J;

		for (int jj = 0; jj < nj; jj++) {
			float x = a[jj], y = t[(size_t)jj * B + ii];

			s[ii * B + jj] = isnan(x) ? y : isnan(y) ? x : 0.5f * (x + y);
		}
	}
}

/* natural log of x > 0, to 5e-7 (x = m 2^e, m in [sqrt 1/2, sqrt 2), log m by its series in
 * s = (m-1)/(m+1)): written so that the compiler makes it a vector loop, which logf is not */
static inline float log_fast(float x)
{
	uint32_t u;
	float m, f, s, s2, p;

	memcpy(&u, &x, sizeof u);
	int32_t e = (int32_t)((u - 0x3f3504f3u) & 0xff800000u) >> 23;
	u -= (uint32_t)e << 23;
	memcpy(&m, &u, sizeof m);
	f = m - 1;
	s = f / (2 + f);
	s2 = s * s;
	p = s2 * (0.6666666666f + s2 * (0.4000000596f + s2 * (0.2857142873f + s2 * (0.2222198f + s2 * 0.1818357f))));
	return (float)e * 0.693147180f + f - s * (f - p);
}

/* x[0..k-1] = log(x), NANs (nan of them) kept; a whole block at a time (a fixed count, so
 * that the compiler makes one vector loop of it) */
static void pairs_log(float *x, int k, int nan)
{
	float v[INFER_BLOCK] = { 0 };

	memcpy(v, x, sizeof *x * (size_t)k);
	for (int j = 0; j < INFER_BLOCK; j++)
		v[j] = log_fast(v[j]);
	for (int j = 0; j < k; j++)
		x[j] = nan && isnan(x[j]) ? x[j] : v[j];
}

/* d = log(sym - off_i - off_j); tile by tile, so that the transposed reads stay in cache.
 * Also the count and sum of d, and whether some pair is unmeasured. */
static int pairs_build(struct infer_ctx *c)
{
	int n = c->n, B = INFER_BLOCK;
	float *off = malloc(sizeof *off * (size_t)(n + 1)), *ts = malloc(sizeof *ts * 2 * B * B), *tt = ts + B * B;

	if (!off || !ts) {
		free(off);
		free(ts);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < n; i++)
		off[i] = (float)c->off[i];
	c->missing = 0;
	c->dsum = c->npairs = 0;
	for (int I = 0; I < n; I += B)
		for (int J = 0; J <= I; J += B) {
			tile_sym(c->lat, n, I, J, ts, tt);
			for (int i = I; i < I + B && i < n; i++) {
				float *di = c->d + tri(i, 0);
				const float *si = ts + (i - I) * B - J;
				int j1 = J + B < i ? J + B : i, nan = 0;

				if (j1 <= J)
					continue;
				for (int j = J; j < j1; j++) { /* the latency less the offsets, or NAN */
					float x = maxf(si[j], 1e-3f);

					di[j] = maxf(x - off[i] - off[j], 0.1f * x);
					if (isnan(si[j])) {
						di[j] = NAN;
						nan++;
					}
				}
				pairs_log(di + J, j1 - J, nan);
				c->missing |= nan > 0;
				c->npairs += j1 - J - nan;
			}
		}
	free(off);
	free(ts);
	for (int i = 1; i < n; i++) { /* the sum, for the top tier's level (infer_model.c) */
		const float *di = c->d + tri(i, 0);
		double sum = 0;

		for (int j = 0; j < i; j++)
			sum += isnan(di[j]) ? 0 : di[j];
		c->dsum += sum;
	}
	return 0;
}

/* ---------------------------------------------------------------- noise, first offsets */

struct near {
	int *j;       /* [i * NEAR_K + k]: candidates, nearest first; -1 = none */
	float *v;
	float *dus;   /* row difference i - j in µs (median over the columns) */
	float *se;    /* its standard error */
	float *mad;   /* spread of the log row difference */
	float *cols;  /* [i * ncol + q]: d of i and the q-th sampled column (a node) */
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
			tile_sym(c->lat, n, I, J, ts, ts + B * B);
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

/* The median of v[0..k-1] weighted 1/lo²: the precise values (low latencies) weigh the most
 * even when they are few. A quickselect on (value, weight) pairs: expected O(k). tmp: 2k
 * floats. */
static double weighted_median(const float *v, const float *lo, int k, float *tmp)
{
	double want = 0;
	int a = 0, b = k - 1;

	for (int q = 0; q < k; q++) {
		tmp[2 * q] = v[q];
		tmp[2 * q + 1] = 1 / (lo[q] * lo[q]);
		want += tmp[2 * q + 1] / 2;
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
		float med = (float)median_of(lg, (size_t)k);

		for (int q = 0; q < k; q++)
			lg[q] = fabsf(lg[q] - med);
		*out = (float)median_of(lg, (size_t)k) * (k < 10 ? b[k] : k / (k - 0.8f));
		return k;
	}
	double med = weighted_median(us, lo, k, tmp), sw = 0, sw2 = 0, sd = 0, sdd = 0, mean;
	for (int q = 0; q < k; q++) {
		double w = 1 / ((double)lo[q] * lo[q]), cap = 3 * M_SQRT2 * sigma * lo[q];
		double dev = fmax(-cap, fmin(cap, us[q] - med));

		sw += w;
		sw2 += w * w;
		sd += w * dev;
		sdd += w * dev * dev;
	}
	mean = sd / sw;
	*out = (float)(med + mean);
	/* its standard error: what the noise gives (each column: two pairs of sigma x latency), or
	 * what the columns' scatter shows, whichever is larger */
	*se = (float)fmax(M_SQRT2 * sigma / sqrt(sw), sqrt(fmax(0, sdd / sw - mean * mean) * sw2 / (sw * sw)));
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
	return k ? median_of(sig, (size_t)k) : 0;
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
	}
}

static int uf_find(int *p, int x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

/* Offsets from the alike neighbours: o_i = median over them of (row difference + o_j), relaxed
 * with damping. Those fix offsets only relative to each other, within each connected part of
 * the neighbour graph (mostly a leaf): each part is then centred on 0, so that it keeps its
 * own mean offset (which the tier model finds) rather than an arbitrary one. Last, they are
 * shrunk by what their standard errors say (infer_shrink). */
static void near_offsets(struct infer_ctx *c, const struct near *nb, float *buf, int *part, float *se)
{
	int n = c->n;
	double *o = c->off, *sum = c->off + n; /* n + 1 more doubles there (see infer_tiers) */

	for (int i = 0; i < n; i++) {
		float v[NEAR_K];
		int k = 0;

		for (int q = 0; q < NEAR_K; q++)
			if (isfinite(nb->mad[(size_t)i * NEAR_K + q]))
				v[k++] = nb->se[(size_t)i * NEAR_K + q];
		se[i] = k ? (float)median_of(v, (size_t)k) : INFINITY;
	}

	for (int round = 0; round < 16; round++) {
		for (int i = 0; i < n; i++) {
			float v[NEAR_K];
			int k = 0;

			for (int q = 0; q < NEAR_K; q++)
				if (isfinite(nb->mad[(size_t)i * NEAR_K + q]))
					v[k++] = nb->dus[(size_t)i * NEAR_K + q] + (float)o[nb->j[(size_t)i * NEAR_K + q]];
			buf[i] = k ? (float)(0.5 * (o[i] + median_of(v, (size_t)k))) : (float)o[i];
		}
		for (int i = 0; i < n; i++)
			o[i] = buf[i];
	}
	for (int i = 0; i < n; i++)
		part[i] = i;
	for (size_t k = 0; k < (size_t)n * NEAR_K; k++)
		if (isfinite(nb->mad[k]))
			part[uf_find(part, (int)(k / NEAR_K))] = uf_find(part, nb->j[k]);
	for (int i = 0; i < n; i++) {
		sum[i] = 0;
		buf[i] = 0;
	}
	for (int i = 0; i < n; i++) {
		sum[uf_find(part, i)] += o[i];
		buf[uf_find(part, i)] += 1;
	}
	for (int i = 0; i < n; i++)
		o[i] -= sum[uf_find(part, i)] / buf[uf_find(part, i)];
	for (int i = 0; i < n; i++) /* the lowest level: the typical nearest pair */
		buf[i] = isfinite(nb->v[(size_t)i * NEAR_K]) ? nb->v[(size_t)i * NEAR_K] : INFINITY;
	infer_shrink(c, o, se, median_of(buf, (size_t)n), buf);
}

/* Empirical Bayes: an offset estimate is the true offset plus an error of its standard error;
 * the true offsets spread tau² = (spread of the estimates)² - (mean error)². Each estimate is
 * shrunk by tau² / (tau² + se²). An offset known no better than half the noise of a pair at
 * the lowest level lo (µs) is dropped: it would add noise where tiers are closest. An offset
 * beyond 4 standard errors (a slow node) is kept whole, up to lo: a node more than twice as
 * slow as its nearest pairs on every path is more likely on a switch of its own (with one
 * other switch in the fabric, the two cannot be told apart). */
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
	double med = median_of(buf, (size_t)k);
	for (int i = 0; i < k; i++)
		buf[i] = fabsf(buf[i] - (float)med);
	double spread = 1.4826 * median_of(buf, (size_t)k);
	tau2 = fmax(0, spread * spread - e2 / k);
	for (int i = 0; i < n; i++) {
		double s2 = isfinite(se[i]) ? (double)se[i] * se[i] : INFINITY;

		if (fabs(o[i]) > 4 * sqrt(s2) && fabs(o[i]) <= lo)
			continue;
		o[i] *= tau2 > 0 && sqrt(s2) <= 0.5 * c->sigma * lo ? tau2 / (tau2 + s2) : 0;
	}
}

/* The noise to work with: the estimates (est[k] worth nu[k] pairs), pooled with rel_noise as
 * though that had been seen on NOISE_PRIOR pairs (a few nodes cannot say much about their
 * noise), and never below noise_us at the lowest latency. */
static double noise_blend(const struct infer_ctx *c, const double *est, const double *nu, int k)
{
	double fl = 0, pr = c->o->rel_noise, s = NOISE_PRIOR * pr * pr, w = NOISE_PRIOR;

	if (c->o->noise_us > 0 && isfinite(c->dmin))
		fl = c->o->noise_us / exp(c->dmin);
	for (int q = 0; q < k; q++)
		if (nu[q] > 0) {
			s += nu[q] * est[q] * est[q];
			w += nu[q];
		}
	return fmax(fmax(fl, 1e-6), sqrt(s / w));
}

static int near_step(struct infer_ctx *c, double *sigma, double *nu)
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
	    !near_find(c, &nb)) {
		*sigma = near_noise(c, &nb, buf, per, nu);
		c->sigma = noise_blend(c, sigma, nu, 1);
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

/* ---------------------------------------------------------------- order */

struct order_ctx {
	int n, ntiers;
	const int *group;  /* renumbered or not: only equality matters */
	const int *rank;   /* natural-order rank of each node's name */
	const int *gmin;   /* [t*n + g]: smallest name rank in group g */
};

/* depth-first order of the tree with siblings sorted by their smallest name: compare the
 * two nodes' groups from the top down by their smallest names, then the names */
static int cmp_tree(const void *pa, const void *pb, void *arg)
{
	const struct order_ctx *oc = arg;
	int a = *(const int *)pa, b = *(const int *)pb;

	for (int t = oc->ntiers - 1; t >= 0; t--) {
		int ga = oc->group[(size_t)t * oc->n + a], gb = oc->group[(size_t)t * oc->n + b];

		if (ga != gb)
			return oc->gmin[(size_t)t * oc->n + ga] - oc->gmin[(size_t)t * oc->n + gb];
	}
	return oc->rank[a] - oc->rank[b];
}

static int cmp_name(const void *pa, const void *pb, void *arg)
{
	const char *const *names = arg;

	return natsort_cmp(names[*(const int *)pa], names[*(const int *)pb]);
}

/* Fill r->order, then renumber each tier's groups 0.. in that order. Group numbers in
 * r->group must be below n. */
static int order_nodes(struct infer_result *r, const char *const *names)
{
	int n = r->n, T = r->ntiers;
	int *rank = malloc(sizeof *rank * (size_t)n), *gmin = malloc(sizeof *gmin * (size_t)n * T);
	int *renum = malloc(sizeof *renum * (size_t)n);

	if (!rank || !gmin || !renum) {
		free(rank);
		free(gmin);
		free(renum);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < n; i++)
		r->order[i] = i;
	qsort_r(r->order, (size_t)n, sizeof *r->order, cmp_name, (void *)names);
	for (int i = 0; i < n; i++)
		rank[r->order[i]] = i;
	for (size_t i = 0; i < (size_t)n * T; i++)
		gmin[i] = n;
	for (int t = 0; t < T; t++)
		for (int i = 0; i < n; i++) {
			int *g = &gmin[(size_t)t * n + r->group[(size_t)t * n + i]];

			if (rank[i] < *g)
				*g = rank[i];
		}
	struct order_ctx oc = { n, T, r->group, rank, gmin };
	qsort_r(r->order, (size_t)n, sizeof *r->order, cmp_tree, &oc);
	for (int t = 0; t < T; t++) {
		int *g = r->group + (size_t)t * n;

		r->ngroups[t] = 0;
		for (int i = 0; i < n; i++)
			renum[i] = -1;
		for (int k = 0; k < n; k++) {
			int rep = g[r->order[k]];

			if (renum[rep] < 0)
				renum[rep] = r->ngroups[t]++;
		}
		for (int i = 0; i < n; i++)
			g[i] = renum[g[i]];
	}
	free(rank);
	free(gmin);
	free(renum);
	return 0;
}

/* ---------------------------------------------------------------- the whole */

/* The tiers and the tier model over the tree with the offsets in c->off. */
static int tiers_and_model(struct infer_ctx *c, const struct infer_tree *tree, struct infer_tiers *ti,
			   struct infer_model *m, int warm)
{
	int rc;

	if (pairs_build(c))
		return FP_ERUNTIME;
	rc = infer_tiers_choose(c, tree, ti);
	rc = rc ? rc : infer_model_fit(c, ti, m, warm);
	return rc;
}

/* Steps 2-5 of infer.h: noise and first offsets, the tree, tiers and model; the tiers again
 * with the model's offsets and noise (the tree stays: its gaps only propose boundaries). */
static int infer_steps(struct infer_ctx *c, struct infer_tiers *ti, struct infer_model *m)
{
	struct infer_tree tree;
	double est[2] = { 0 }, nu[2] = { 0 };
	int rc;

	if ((rc = near_step(c, &est[0], &nu[0])))
		return rc;
	if (pairs_build(c))
		return FP_ERUNTIME;
	if (infer_link(c, &tree))
		return FP_ERUNTIME;
	if (!(rc = tiers_and_model(c, &tree, ti, m, 0))) {
		memcpy(c->off, m->off, sizeof *c->off * (size_t)c->n);
		infer_shrink(c, c->off, m->se, m->level[0], c->rows);
		est[1] = m->sigma;
		nu[1] = m->dof;
		c->sigma = noise_blend(c, est, nu, 2);
		rc = tiers_and_model(c, &tree, ti, m, 1);
	}
	infer_tree_free(&tree);
	return rc;
}

static int analyse(struct infer_ctx *c, const float *bw, const char *const *names, struct infer_result *r)
{
	struct infer_tiers ti = { .group = r->group };
	struct infer_model m = { 0 };
	int rc = FP_ERUNTIME;

	m.off = malloc(sizeof *m.off * (size_t)c->n);
	m.se = malloc(sizeof *m.se * (size_t)c->n);
	if (!m.off || !m.se || (rc = infer_steps(c, &ti, &m)))
		goto out;
	r->ntiers = ti.ntiers;
	r->structure = ti.ntiers > 1;
	for (int t = 0; t < ti.ntiers; t++) {
		r->threshold_us[t] = exp(ti.theta[t]);
		r->level_us[t] = m.level[t];
		r->sep_z[t] = ti.sep_z[t];
		r->sep_step[t] = ti.sep_step[t];
		r->sep_pairs[t] = ti.sep_pairs[t];
		r->sep_within[t] = ti.sep_within[t];
	}
	r->noise = c->sigma;
	r->noise_us = c->sigma * (isfinite(m.level[0]) ? m.level[0] : 0);
	memcpy(r->offset_us, m.off, sizeof *r->offset_us * (size_t)c->n);
	if ((rc = order_nodes(r, names)) || (rc = infer_suspects(c, &m, bw, r)))
		goto out;
out:
	free(m.off);
	free(m.se);
	return rc;
}

int infer_tiers(const float *lat, const float *bw, int n, const char *const *names,
		const struct infer_opts *o, struct infer_result *r)
{
	struct infer_ctx c = { .n = n, .lat = lat, .o = o };
	size_t np = tri(n, 0);
	int rc = FP_ERUNTIME;

	memset(r, 0, sizeof *r);
	r->n = n;
	c.d = infer_big(np);
	c.off = calloc(2 * (size_t)n + 1, sizeof *c.off);
	c.rows = malloc(sizeof *c.rows * (size_t)INFER_BLOCK * (n ? n : 1));
	r->group = malloc(sizeof *r->group * (size_t)n * INFER_TIERS_MAX + 1);
	r->offset_us = calloc((size_t)n + 1, sizeof *r->offset_us);
	r->order = malloc(sizeof *r->order * (size_t)n + 1);
	r->suspects = malloc(sizeof *r->suspects * INFER_SUSPECTS_MAX);
	if (c.d && c.off && c.rows && r->group && r->offset_us && r->order && r->suspects)
		rc = analyse(&c, bw, names, r);
	free(c.d);
	free(c.off);
	free(c.rows);
	if (rc)
		infer_result_free(r);
	return rc;
}

void infer_result_free(struct infer_result *r)
{
	free(r->group);
	free(r->offset_us);
	free(r->order);
	free(r->suspects);
	memset(r, 0, sizeof *r);
}
