/* infer_model.c — see infer_model.h. */
#include "infer_model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#define FIT_ROUNDS 2
#define HUBER 2.0          /* pairs beyond HUBER sigmas weigh less (robust to slow links) */
#define SAMPLE_MAX 65536   /* residuals sampled for the spread */
#define HIST_BINS (1 << 18) /* value bins (see bin_of) for exact medians in two passes */

/* µs of pair (i, j) from d and the offsets it was built with */
static inline double pair_us(const struct infer_ctx *c, float x, int i, int j)
{
	return expf(x) + c->off[i] + c->off[j];
}

/* ---------------------------------------------------------------- the fit */

struct fit_acc {
	int T;
	double a[INFER_TIERS_MAX], b[INFER_TIERS_MAX]; /* per tier: weighted residual, weight */
	double *p, *q, *rt;                             /* per node: same over 1/model², per tier */
	float *sample;
	int ns;
	long long np;   /* pairs measured */
};

/* One walk of the pairs: residuals of the model as it stands. */
static void fit_pass(const struct infer_ctx *c, const int *group, struct infer_model *m, struct fit_acc *f)
{
	int n = c->n, T = f->T;
	size_t np = tri(n, 0), stride = np / SAMPLE_MAX + 1, k = 0;
	double cut = HUBER * c->sigma;

	memset(f->a, 0, sizeof f->a);
	memset(f->b, 0, sizeof f->b);
	memset(f->p, 0, sizeof *f->p * (size_t)n);
	memset(f->q, 0, sizeof *f->q * (size_t)n);
	memset(f->rt, 0, sizeof *f->rt * (size_t)n * T);
	f->ns = 0;
	f->np = 0;
	for (int i = 1; i < n; i++) {
		const float *row = c->d + tri(i, 0);

		for (int j = 0; j < i; j++, k++) {
			int t;

			if (isnan(row[j]) || (t = tiers_pair(group, T, n, i, j)) >= T)
				continue;
			double s = pair_us(c, row[j], i, j), mod = m->level[t] + m->off[i] + m->off[j];
			mod = fmax(mod, 0.05 * s);
			double e = s - mod, r = e / mod, w = fabs(r) <= cut ? 1 : cut / fabs(r), wm = w / (mod * mod);

			f->np++;
			if (k % stride == 0 && f->ns < SAMPLE_MAX)
				f->sample[f->ns++] = fabsf(logf((float)(s / mod)));
			f->a[t] += w * e;
			f->b[t] += w;
			f->p[i] += wm * e;
			f->p[j] += wm * e;
			f->q[i] += wm;
			f->q[j] += wm;
			f->rt[(size_t)i * T + t] += wm;
			f->rt[(size_t)j * T + t] += wm;
		}
	}
}

/* Levels move by their mean weighted residual; each offset by its own, less what the levels
 * and (half) everybody's moves explain; then the median node is set to 0. */
static void fit_update(const struct infer_ctx *c, struct infer_model *m, struct fit_acc *f, float *buf)
{
	int n = c->n, T = f->T;
	double dh[INFER_TIERS_MAX] = { 0 }, cq = 0, q = 0;

	for (int t = 0; t < T; t++)
		if (f->b[t] > 0)
			m->level[t] += dh[t] = f->a[t] / f->b[t];
	for (int i = 0; i < n; i++) {
		double x = f->p[i];

		for (int t = 0; t < T; t++)
			x -= dh[t] * f->rt[(size_t)i * T + t];
		f->p[i] = f->q[i] > 0 ? x / f->q[i] : 0;
		cq += f->p[i] * f->q[i];
		q += f->q[i];
	}
	for (int i = 0; i < n; i++) {
		m->off[i] += f->p[i] - (q > 0 ? cq / q / 2 : 0);
		buf[i] = (float)m->off[i];
	}
	float med = infer_select(buf, (size_t)n, (size_t)(n - 1) / 2);
	for (int i = 0; i < n; i++)
		m->off[i] -= med;
	for (int t = 0; t < T; t++)
		m->level[t] += 2 * med;
}

/* Starting levels: the geometric mean of each tier's pairs with c->off removed. */
static void fit_start(const struct infer_ctx *c, const int *group, struct infer_model *m)
{
	int n = c->n, T = m->ntiers;
	double s[INFER_TIERS_MAX] = { 0 }, k[INFER_TIERS_MAX] = { 0 };

	for (int i = 1; i < n; i++) {
		const float *row = c->d + tri(i, 0);

		for (int j = 0; j < i; j++) {
			int t;

			if (!isnan(row[j]) && (t = tiers_pair(group, T, n, i, j)) < T) {
				s[t] += row[j];
				k[t]++;
			}
		}
	}
	for (int t = 0; t < T; t++)
		m->level[t] = k[t] > 0 ? exp(s[t] / k[t]) : NAN;
	memcpy(m->off, c->off, sizeof *m->off * (size_t)n);
}

int infer_model_fit(const struct infer_ctx *c, const struct infer_tiers *ti, struct infer_model *m)
{
	int n = c->n, T = ti->ntiers;
	struct fit_acc f = { .T = T };
	float *buf = malloc(sizeof *buf * (size_t)(n + 1));

	m->ntiers = T;
	f.p = malloc(sizeof *f.p * (size_t)n + 1);
	f.q = malloc(sizeof *f.q * (size_t)n + 1);
	f.rt = malloc(sizeof *f.rt * (size_t)n * T + 1);
	f.sample = malloc(sizeof *f.sample * SAMPLE_MAX);
	if (!buf || !f.p || !f.q || !f.rt || !f.sample) {
		free(buf);
		free(f.p);
		free(f.q);
		free(f.rt);
		free(f.sample);
		return FP_ERUNTIME;
	}
	fit_start(c, ti->group, m);
	for (int k = 0; k < FIT_ROUNDS; k++) {
		fit_pass(c, ti->group, m, &f);
		fit_update(c, m, &f, buf);
	}
	/* the spread left: from the residuals of the last pass (median |r| of a normal: 0.6745 sigma) */
	m->sigma = f.ns ? infer_select(f.sample, (size_t)f.ns, (size_t)f.ns / 2) / 0.6745 : 0;
	/* the model took n + T parameters out of the pairs: the residuals are that much smaller */
	double np = (double)f.np, dof = np - n - T;
	m->sigma = dof >= 1 ? m->sigma * sqrt(np / dof) : 0;
	m->dof = dof >= 1 ? dof : 0;
	/* an offset's standard error: the pairs' relative noise over its summed weights 1/model² */
	for (int i = 0; i < n; i++)
		m->se[i] = f.q[i] > 0 ? (float)(fmax(m->sigma, c->sigma) / sqrt(f.q[i])) : INFINITY;
	free(buf);
	free(f.p);
	free(f.q);
	free(f.rt);
	free(f.sample);
	return 0;
}

/* ---------------------------------------------------------------- per-tier medians */

/* value of pair (i, j): latency (µs) from d, or the mean of the measured bandwidths */
static inline double pair_value(const struct infer_ctx *c, const float *bw, int i, int j)
{
	if (!bw) {
		float x = c->d[tri(i, j)];

		return isnan(x) ? NAN : pair_us(c, x, i, j);
	}
	float a = bw[(size_t)i * c->n + j], b = bw[(size_t)j * c->n + i];
	return isnan(a) ? b : isnan(b) ? a : 0.5 * ((double)a + b);
}

/* The bits of a positive float are in the order of its values: the top ones make bins of
 * 2^-10 relative width (the exponent and 10 bits of the mantissa). */
static inline int bin_of(double v)
{
	union { float f; uint32_t u; } x = { .f = (float)fmax(v, 0) };

	return (int)(x.u >> 13);
}

/* Median per tier of the pair values (latency, or bandwidth when bw), exactly: a histogram,
 * then the values of the median's bin. Counts pairs per tier into cnt when not NULL. */
static int tier_medians(const struct infer_ctx *c, const struct infer_result *r, const float *bw, double *med,
			long long *cnt)
{
	int n = c->n, T = r->ntiers;
	unsigned *hist = calloc((size_t)T * HIST_BINS, sizeof *hist);
	long long tot[INFER_TIERS_MAX] = { 0 }, rank[INFER_TIERS_MAX], got[INFER_TIERS_MAX] = { 0 };
	int bin[INFER_TIERS_MAX];
	float *vals[INFER_TIERS_MAX] = { 0 };
	int rc = FP_ERUNTIME;

	if (!hist)
		return rc;
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++) {
			double v = pair_value(c, bw, i, j);
			int t = tiers_pair(r->group, T, n, i, j);

			if (!isnan(v) && t < T) {
				hist[(size_t)t * HIST_BINS + bin_of(v)]++;
				tot[t]++;
			}
		}
	for (int t = 0; t < T; t++) {
		long long below = 0;

		med[t] = NAN;
		if (cnt)
			cnt[t] = tot[t];
		if (!tot[t])
			continue;
		rank[t] = (tot[t] - 1) / 2;
		for (bin[t] = 0; below + hist[(size_t)t * HIST_BINS + bin[t]] <= rank[t]; bin[t]++)
			below += hist[(size_t)t * HIST_BINS + bin[t]];
		rank[t] -= below;
		if (!(vals[t] = malloc(sizeof *vals[t] * hist[(size_t)t * HIST_BINS + bin[t]])))
			goto out;
	}
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++) {
			double v = pair_value(c, bw, i, j);
			int t = tiers_pair(r->group, T, n, i, j);

			if (!isnan(v) && t < T && vals[t] && bin_of(v) == bin[t])
				vals[t][got[t]++] = (float)v;
		}
	for (int t = 0; t < T; t++)
		if (vals[t])
			med[t] = infer_select(vals[t], (size_t)got[t], (size_t)rank[t]);
	rc = 0;
out:
	for (int t = 0; t < T; t++)
		free(vals[t]);
	free(hist);
	return rc;
}

/* ---------------------------------------------------------------- suspects */

static void suspect_add(struct infer_result *r, int kind, int a, int b, double value, double expected, int tier)
{
	if (r->nsuspects < INFER_SUSPECTS_MAX)
		r->suspects[r->nsuspects++] = (struct infer_suspect){ kind, a, b, value, expected, tier };
}

/* A node whose offset stands far out of everybody's: 5 spreads of the offsets (MAD), 5 of
 * their own uncertainty, and 2% of the lowest level. */
static void slow_nodes(const struct infer_ctx *c, const struct infer_model *m, struct infer_result *r, float *buf)
{
	int n = c->n;
	double h0 = m->level[0], thr;

	for (int i = 0; i < n; i++)
		buf[i] = fabsf((float)m->off[i]);
	double spread = 1.4826 * infer_select(buf, (size_t)n, (size_t)(n - 1) / 2);
	thr = fmax(5 * spread, fmax(5 * c->sigma * h0 / sqrt(n > 1 ? n - 1 : 1), 0.02 * h0));
	for (int i = 0; i < n && isfinite(thr); i++)
		if (m->off[i] > thr)
			suspect_add(r, SUSPECT_SLOW_NODE, i, -1, m->off[i], 0, -1);
}

/* Pairs far off the model (beyond the largest deviation noise gives among this many pairs),
 * and pairs never measured. */
static void odd_pairs(const struct infer_ctx *c, const struct infer_model *m, struct infer_result *r)
{
	int n = c->n, T = r->ntiers;
	double np = (double)tri(n, 0), sig = fmax(m->sigma, c->sigma);
	double k = fmax(5, sqrt(2 * log(np > 2 ? np : 2)) + 2.5);

	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++) {
			float x = c->d[tri(i, j)];
			int t = tiers_pair(r->group, T, n, i, j);

			if (isnan(x)) {
				suspect_add(r, SUSPECT_UNMEASURED, j, i, NAN, NAN, t);
				continue;
			}
			if (t >= T)
				continue;
			double s = pair_us(c, x, i, j), mod = fmax(m->level[t] + m->off[i] + m->off[j], 0.05 * s);
			double lr = logf((float)(s / mod));
			if (lr > k * sig)
				suspect_add(r, SUSPECT_SLOW_LINK, j, i, s, mod, t);
			else if (lr < -k * sig)
				suspect_add(r, SUSPECT_FAST_LINK, j, i, s, mod, t);
		}
}

/* Bandwidth: a node whose pairs run well below their tiers' medians (its NIC or host; its links
 * are then not listed), and links far below theirs and below half of it. */
static int low_bandwidth(const struct infer_ctx *c, const float *bw, struct infer_result *r, float *buf)
{
	int n = c->n, T = r->ntiers, ns = 0;
	char *low = calloc((size_t)n + 1, 1);

	if (!low)
		return FP_ERUNTIME;
	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int j = 0; j < n; j++) {
			int t = tiers_pair(r->group, T, n, i, j);

			if (j == i || t >= T || !(r->bw_p50_GBps[t] > 0))
				continue;
			if (!isnan(bw[(size_t)i * n + j]))
				buf[k++] = bw[(size_t)i * n + j] / (float)r->bw_p50_GBps[t];
			if (!isnan(bw[(size_t)j * n + i]))
				buf[k++] = bw[(size_t)j * n + i] / (float)r->bw_p50_GBps[t];
		}
		double med = k ? infer_select(buf, (size_t)k, (size_t)(k - 1) / 2) : NAN;
		if (k && med < 0.7) {
			low[i] = 1;
			suspect_add(r, SUSPECT_LOW_BW_NODE, i, -1, med, 1, -1);
		}
	}
	/* the spread of the links' log ratios (sampled), for a threshold noise does not reach */
	size_t stride = (size_t)n * n / (size_t)(2 * n + 2) + 1, at = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++, at++) {
			int t = tiers_pair(r->group, T, n, i, j);

			if (at % stride == 0 && ns < 2 * n && i != j && t < T && !low[i] && !low[j] &&
			    !isnan(bw[(size_t)i * n + j]) && r->bw_p50_GBps[t] > 0)
				buf[ns++] = fabsf(logf(bw[(size_t)i * n + j] / (float)r->bw_p50_GBps[t]));
		}
	double spread = ns ? infer_select(buf, (size_t)ns, (size_t)ns / 2) / 0.6745 : 0;
	double lim = fmin(0.5, exp(-6 * spread));
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int t = tiers_pair(r->group, T, n, i, j);
			float b = bw[(size_t)i * n + j];

			if (i != j && !low[i] && !low[j] && t < T && !isnan(b) && b < lim * r->bw_p50_GBps[t])
				suspect_add(r, SUSPECT_LOW_BW_LINK, i, j, b, r->bw_p50_GBps[t], t);
		}
	free(low);
	return 0;
}

int infer_suspects(struct infer_ctx *c, const struct infer_model *m, const float *bw, struct infer_result *r)
{
	int n = c->n, rc;
	float *buf = malloc(sizeof *buf * (size_t)(2 * n + 2));

	if (!buf)
		return FP_ERUNTIME;
	rc = tier_medians(c, r, NULL, r->lat_p50_us, r->npairs);
	for (int t = 0; t < r->ntiers; t++)
		r->bw_p50_GBps[t] = NAN;
	if (!rc && bw)
		rc = tier_medians(c, r, bw, r->bw_p50_GBps, NULL);
	if (!rc) {
		slow_nodes(c, m, r, buf);
		odd_pairs(c, m, r);
		if (bw)
			rc = low_bandwidth(c, bw, r, buf);
	}
	free(buf);
	return rc;
}
