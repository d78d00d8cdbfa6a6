/* infer_model.c — see infer_model.h. */
#include "infer_model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

#define FIT_ROUNDS 2
#define FIT_PAIRS ((size_t)2 << 20) /* pairs a fit walks at most */
#define SIGMA0_MIN 10      /* lowest-tier pairs its own spread needs */
#define HUBER 2.0          /* pairs beyond HUBER sigmas weigh less (robust to slow links) */
#define SAMPLE_MAX 65536   /* residuals sampled for the spread */
#define HIST_BINS (1 << 18) /* value bins (see bin_of) for exact medians in two passes */
#define SLOW_NODE_FLOOR 0.1 /* a slow node adds at least this share of the lowest level (judging.md) */

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
	float *sample, *sample0; /* |log residual| of all pairs; of the lowest tier's (T > 1) */
	int ns, ns0;
	size_t stride0;
	long long np, np0; /* pairs measured; of them at the lowest tier */
};

/* One walk of the pairs: residuals of the model as it stands. Past FIT_PAIRS pairs, only
 * those of nodes alike modulo S (every node keeps thousands, its leaf mates among them). */
static void fit_pass(const struct infer_ctx *c, const int *group, struct infer_model *m, struct fit_acc *f)
{
	int n = c->n, T = f->T, S = (int)(tri(n, 0) / FIT_PAIRS + 1);
	size_t stride = tri(n, 0) / S / SAMPLE_MAX + 1, k = 0;
	double cut = HUBER * c->sigma;

	memset(f->a, 0, sizeof f->a);
	memset(f->b, 0, sizeof f->b);
	memset(f->p, 0, sizeof *f->p * (size_t)n);
	memset(f->q, 0, sizeof *f->q * (size_t)n);
	memset(f->rt, 0, sizeof *f->rt * (size_t)n * T);
	f->ns = f->ns0 = 0;
	f->np = f->np0 = 0;
	for (int i = 1; i < n; i++) {
		const float *row = c->d + tri(i, 0);

		for (int j = i % S; j < i; j += S, k++) {
			int t;

			if (isnan(row[j]) || (t = infer_pair_tier(group, T, n, i, j)) >= T)
				continue;
			double s = pair_us(c, row[j], i, j), mod = m->level[t] + m->off[i] + m->off[j];
			mod = mod > 0.05 * s ? mod : 0.05 * s;
			double inv = 1 / mod, e = s - mod, r = fabs(e * inv), w = r <= cut ? 1 : cut / r, wm = w * inv * inv;

			f->np++;
			if (k % stride == 0 && f->ns < SAMPLE_MAX)
				f->sample[f->ns++] = fabsf(logf((float)(s / mod)));
			if (t == 0 && T > 1 && f->np0++ % f->stride0 == 0 && f->ns0 < SAMPLE_MAX)
				f->sample0[f->ns0++] = fabsf(logf((float)(s / mod)));
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

/* Starting levels: the geometric mean of each tier's pairs with c->off removed (the sums the
 * tiers were judged with; the top tier holds the rest); starting offsets c->off. */
static void fit_start(const struct infer_ctx *c, const struct infer_tiers *ti, struct infer_model *m)
{
	int T = ti->ntiers;
	double s = c->dsum, k = c->npairs;

	for (int t = 0; t < T - 1; t++) {
		m->level[t] = ti->wcnt[t] > 0 ? exp(ti->wsum[t] / ti->wcnt[t]) : NAN;
		s -= ti->wsum[t];
		k -= ti->wcnt[t];
	}
	m->level[T - 1] = k > 0 ? exp(s / k) : NAN;
	memcpy(m->off, c->off, sizeof *m->off * (size_t)c->n);
}

int infer_model_fit(const struct infer_ctx *c, const struct infer_tiers *ti, struct infer_model *m, int warm)
{
	int n = c->n, T = ti->ntiers;
	struct fit_acc f = { .T = T };
	float *buf = malloc(sizeof *buf * (size_t)(n + 1));

	f.p = malloc(sizeof *f.p * (size_t)n + 1);
	f.q = malloc(sizeof *f.q * (size_t)n + 1);
	f.rt = malloc(sizeof *f.rt * (size_t)n * T + 1);
	f.sample = malloc(sizeof *f.sample * SAMPLE_MAX);
	f.sample0 = malloc(sizeof *f.sample0 * SAMPLE_MAX);
	f.stride0 = T > 1 && ti->wcnt[0] > 0 ?
		(size_t)(ti->wcnt[0] / ((double)tri(n, 0) / FIT_PAIRS + 1) / SAMPLE_MAX) + 1 : 1;
	if (!buf || !f.p || !f.q || !f.rt || !f.sample || !f.sample0) {
		free(buf);
		free(f.p);
		free(f.q);
		free(f.rt);
		free(f.sample);
		free(f.sample0);
		return FP_ERUNTIME;
	}
	if (!warm || m->ntiers != T)
		fit_start(c, ti, m);
	m->ntiers = T;
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
	/* the lowest tier's own spread, with the same allowance: where the noise is additive (a
	 * host's jitter), the low latency of a leaf's pairs reads it larger than the pairs across
	 * a spine do, and the leaf is where that noise is judged (NAN: too few pairs to say) */
	m->sigma0 = f.ns0 >= SIGMA0_MIN && dof >= 1 ?
		infer_select(f.sample0, (size_t)f.ns0, (size_t)f.ns0 / 2) / 0.6745 * sqrt(np / dof) : NAN;
	/* an offset's standard error: the pairs' relative noise over its summed weights 1/model² */
	for (int i = 0; i < n; i++)
		m->se[i] = f.q[i] > 0 ? (float)(fmax(m->sigma, c->sigma) / sqrt(f.q[i])) : INFINITY;
	free(buf);
	free(f.p);
	free(f.q);
	free(f.rt);
	free(f.sample);
	free(f.sample0);
	return 0;
}

/* ---------------------------------------------------------------- per-tier medians */

/* The bits of a positive float are in the order of its values: the top ones make bins of
 * 2^-10 relative width (the exponent and 10 bits of the mantissa). */
static inline int bin_of(double v)
{
	union { float f; uint32_t u; } x = { .f = v > 0 ? (float)v : 0 };

	return (int)(x.u >> 13);
}

/* Exact medians per tier in two walks of the pairs: a histogram of the values (count; of the
 * pairs 1 in every 'every', at most), then every value in a window of bins around each
 * median (collect; the whole window when every == 1: the median's bin). */
struct medians {
	int T, every;
	unsigned *hist;                 /* T x HIST_BINS */
	long long sub[INFER_TIERS_MAX], tot[INFER_TIERS_MAX], below[INFER_TIERS_MAX];
	long long got[INFER_TIERS_MAX], cap[INFER_TIERS_MAX];
	int lo[INFER_TIERS_MAX], hi[INFER_TIERS_MAX];
	float *vals[INFER_TIERS_MAX];
	int oom;
};

static inline void med_count(struct medians *md, int t, double v)
{
	md->hist[(size_t)t * HIST_BINS + bin_of(v)]++;
	md->sub[t]++;
}

static inline void med_collect(struct medians *md, int t, double v)
{
	int b = bin_of(v);

	md->tot[t]++;
	if (b < md->lo[t])
		md->below[t]++;
	else if (b <= md->hi[t]) {
		if (md->got[t] >= md->cap[t] || !md->vals[t]) {
			float *q = realloc(md->vals[t], sizeof *q * (size_t)(md->cap[t] = 2 * md->got[t] + md->cap[t] + 1024));

			if (!q) {
				md->oom = 1;
				md->hi[t] = -1;
				return;
			}
			md->vals[t] = q;
		}
		md->vals[t][md->got[t]++] = (float)v;
	}
}

/* After counting: the window of bins around each median, wide enough for what a sample of
 * this size can miss. */
static void med_pick(struct medians *md)
{
	for (int t = 0; t < md->T; t++) {
		const unsigned *h = md->hist + (size_t)t * HIST_BINS;
		double slack = md->every > 1 ? 5 * sqrt((double)md->sub[t]) + 16 : 0;
		double from = (md->sub[t] - 1) / 2.0 - slack, to = (md->sub[t] - 1) / 2.0 + slack;
		long long at = 0;

		md->lo[t] = 0;
		md->hi[t] = HIST_BINS - 1;
		for (int b = 0; b < HIST_BINS; b++) {
			if (at + h[b] <= from)
				md->lo[t] = b + 1;
			at += h[b];
			if (at > to) {
				md->hi[t] = b;
				break;
			}
		}
		md->cap[t] = (long long)((at + 16) * md->every);
	}
}

static void med_done(struct medians *md, double *med)
{
	for (int t = 0; t < md->T; t++) {
		long long rank = (md->tot[t] - 1) / 2 - md->below[t];

		med[t] = NAN;
		if (md->tot[t] && rank >= 0 && rank < md->got[t])
			med[t] = infer_select(md->vals[t], (size_t)md->got[t], (size_t)rank);
		else if (md->got[t]) /* outside the window (a sample's bad luck): its nearest edge */
			med[t] = infer_select(md->vals[t], (size_t)md->got[t], rank < 0 ? 0 : (size_t)md->got[t] - 1);
		free(md->vals[t]);
	}
	free(md->hist);
}

static int med_init(struct medians *md, int T, int every)
{
	memset(md, 0, sizeof *md);
	md->T = T;
	md->every = every;
	md->hist = calloc((size_t)T * HIST_BINS, sizeof *md->hist);
	return md->hist ? 0 : FP_ERUNTIME;
}

/* Bandwidth medians per tier, over the mean of each pair's measured directions. */
static int bw_medians(const struct infer_ctx *c, const float *bw, struct infer_result *r)
{
	int n = c->n, T = r->ntiers, rc;
	struct medians md;

	if ((rc = med_init(&md, T, 1)))
		return rc;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 1; i < n; i++)
			for (int j = 0; j < i; j++) {
				float a = bw[(size_t)i * n + j], b = bw[(size_t)j * n + i];
				double v = isnan(a) ? b : isnan(b) ? a : 0.5 * ((double)a + b);
				int t = infer_pair_tier(r->group, T, n, i, j);

				if (isnan(v) || t >= T)
					continue;
				if (pass)
					med_collect(&md, t, v);
				else
					med_count(&md, t, v);
			}
		if (!pass)
			med_pick(&md);
	}
	rc = md.oom ? FP_ERUNTIME : 0;
	med_done(&md, r->bw_p50_GBps);
	return rc;
}

/* ---------------------------------------------------------------- suspects */

static void suspect_add(struct infer_result *r, int kind, int a, int b, double value, double expected, int tier)
{
	if (r->nsuspects < INFER_SUSPECTS_MAX)
		r->suspects[r->nsuspects++] = (struct infer_suspect){ kind, a, b, value, expected, tier };
}

/* Whether node i's offset o (µs) is a node's, not its few leaf pairs': a node adds o to every
 * path, so its pairs beyond its leaf read o above the model without it (level + the peer's
 * offset). With fewer than LEAF_PAIRS_MIN pairs in its leaf, the leaf pairs alone cannot tell
 * a node from pair offsets (in a leaf of 3, the node offsets fit its 3 pairs exactly, whatever
 * they hold: a longer cable, a pair that took another path), so the pairs beyond must carry it:
 * their median excess at least o / 2 and 2 standard errors above 0 (from the pair noise at their
 * level). 1 when the offset stands, 0 when it rests on the leaf pairs only. buf: n floats. */
#define LEAF_PAIRS_MIN 3
static int node_offset_stands(const struct infer_ctx *c, const struct infer_model *m, const struct infer_result *r,
			      int i, double o, float *buf)
{
	int n = c->n, T = r->ntiers, mates = 0, k = 0;
	double level = 0;

	for (int z = 0; z < n; z++) {
		float v = z == i ? NAN : sym_of(c->lat, n, i, z);
		int t = isnan(v) ? T : infer_pair_tier(r->group, T, n, i, z);

		if (t == 0)
			mates++;
		else if (t < T) {
			buf[k++] = (float)(v - m->level[t] - m->off[z]);
			level += m->level[t];
		}
	}
	if (mates >= LEAF_PAIRS_MIN)
		return 1;
	if (k < 3)
		return 0;
	level /= k;
	double d = infer_median(buf, (size_t)k), se = 1.25 * m->sigma * level / sqrt((double)k);

	return d >= o / 2 && d > 2 * se;
}

/* A node whose offset stands far out of everybody's: beyond 5 spreads of the offsets (MAD),
 * 5 of its own standard error, and the effect floor: 10% of the lowest level (docs/judging.md:
 * a node that adds less to every path is nothing anyone would replace a NIC for); in a leaf of
 * fewer than 4, its pairs beyond the leaf must show it (node_offset_stands). */
static void slow_nodes(const struct infer_ctx *c, const struct infer_model *m, struct infer_result *r, float *buf)
{
	int n = c->n;
	double h0 = m->level[0];

	for (int i = 0; i < n; i++)
		buf[i] = fabsf((float)m->off[i]);
	double spread = 1.4826 * infer_select(buf, (size_t)n, (size_t)(n - 1) / 2);
	for (int i = 0; i < n; i++) {
		double thr = fmax(5 * spread, fmax(5 * m->se[i], SLOW_NODE_FLOOR * h0));

		if (isfinite(thr) && m->off[i] > thr && node_offset_stands(c, m, r, i, m->off[i], buf))
			suspect_add(r, SUSPECT_SLOW_NODE, i, -1, m->off[i], 0, -1);
	}
}

/* The effect a slow or fast link must have to be worth a look (docs/judging.md): half the step
 * from its tier to the next (the tier below, at the top), or the tier's level when that is
 * less (a pair twice its tier's latency is a finding whatever the steps). That far off, the
 * pair reads as if it crossed a switch it should not (or skipped one); less is a pair offset
 * (a longer cable, another ECMP path, a NIC on the far socket) that nobody would recable for,
 * however far beyond the noise. */
static double link_floor(const struct infer_model *m, int T, int t)
{
	double step = t + 1 < T ? m->level[t + 1] - m->level[t] : t > 0 ? m->level[t] - m->level[t - 1] : INFINITY;

	return fmin(0.5 * step, m->level[t]);
}

/* Latency: the pairs per tier and their medians (the first walk counts a sample, the second
 * collects the medians' windows); pairs far off the model (beyond the largest deviation noise gives among
 * this many pairs), and pairs never measured. */
static int latency_pairs(const struct infer_ctx *c, const struct infer_model *m, struct infer_result *r)
{
	int n = c->n, T = r->ntiers, rc, S = (int)(tri(n, 0) / FIT_PAIRS + 1);
	double np = (double)tri(n, 0), sig = fmax(m->sigma, c->sigma);
	double k = fmax(5, sqrt(2 * log(np > 2 ? np : 2)) + 2.5), hi = exp(k * sig), lo = exp(-k * sig);
	struct medians md;

	if ((rc = med_init(&md, T, S)))
		return rc;
	for (int i = 1; i < n; i++)
		for (int j = i % S; j < i; j += S) {
			float x = c->d[tri(i, j)];
			int t = infer_pair_tier(r->group, T, n, i, j);

			if (!isnan(x) && t < T)
				med_count(&md, t, pair_us(c, x, i, j));
		}
	med_pick(&md);
	/* a node none of whose pairs was measured is one finding about the node (it may be down,
	 * unreachable or hung), not n - 1 about links */
	int *got = calloc((size_t)n + 1, sizeof *got);

	if (!got) {
		med_done(&md, r->lat_p50_us);
		return FP_ERUNTIME;
	}
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++)
			if (!isnan(c->d[tri(i, j)]))
				got[i]++, got[j]++;
	for (int i = 0; i < n && n > 1; i++)
		if (!got[i])
			suspect_add(r, SUSPECT_UNMEASURED_NODE, i, -1, NAN, NAN, -1);
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++) {
			float x = c->d[tri(i, j)];
			int t = infer_pair_tier(r->group, T, n, i, j);

			if (isnan(x)) {
				if (got[i] && got[j])
					suspect_add(r, SUSPECT_UNMEASURED, j, i, NAN, NAN, t);
				continue;
			}
			if (t >= T)
				continue;
			double s = pair_us(c, x, i, j), mod = m->level[t] + m->off[i] + m->off[j];

			mod = mod > 0.05 * s ? mod : 0.05 * s;
			med_collect(&md, t, s);
			if (s > hi * mod && s - mod >= link_floor(m, T, t))
				suspect_add(r, SUSPECT_SLOW_LINK, j, i, s, mod, t);
			else if (s < lo * mod && mod - s >= link_floor(m, T, t))
				suspect_add(r, SUSPECT_FAST_LINK, j, i, s, mod, t);
		}
	free(got);
	for (int t = 0; t < T; t++)
		r->npairs[t] = md.tot[t];
	rc = md.oom ? FP_ERUNTIME : 0;
	med_done(&md, r->lat_p50_us);
	return rc;
}

/* 1 when pair (i, j) crosses the uplink of a group that `up` names (off[t] + group at tier t),
 * below the pair's own tier t: its figure is that uplink's, not the nodes' */
static int crosses_low(const struct infer_result *r, int n, const unsigned char *up, const int *off, int i, int j,
		       int t)
{
	for (int u = 0; u < t; u++)
		if (up[off[u] + r->group[(size_t)u * n + i]] || up[off[u] + r->group[(size_t)u * n + j]])
			return 1;
	return 0;
}

/* Each tier's quantile q of bandwidth (a pair: the mean of its directions) into out, from at most
 * UPLINK_SAMPLE pairs of it, leaving out the pairs across an uplink `up` names (NULL: none). The
 * upper quartile is the uplink rule's reference, which a slow uplink that slows a good part of a
 * tier's pairs does not drag down as it drags the median; the median without those pairs is the
 * node and link rules' reference once an uplink is named. */
#define UPLINK_SAMPLE 65536
static int bw_quantile(const struct infer_ctx *c, const float *bw, const struct infer_result *r,
		       const unsigned char *up, const int *off, double q, double *out)
{
	int n = c->n, T = r->ntiers;
	long long cnt[INFER_TIERS_MAX] = { 0 }, seen[INFER_TIERS_MAX] = { 0 };
	float *v[INFER_TIERS_MAX] = { 0 };
	int k[INFER_TIERS_MAX] = { 0 }, rc = 0;

	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		for (int i = 1; i < n; i++)
			for (int j = 0; j < i; j++) {
				float a = bw[(size_t)i * n + j], b = bw[(size_t)j * n + i];
				int t = isnan(a) && isnan(b) ? T : infer_pair_tier(r->group, T, n, i, j);

				if (t >= T || (up && crosses_low(r, n, up, off, i, j, t)))
					continue;
				if (!pass) {
					cnt[t]++;
					continue;
				}
				if (seen[t]++ % (cnt[t] / UPLINK_SAMPLE + 1) == 0 && k[t] < UPLINK_SAMPLE)
					v[t][k[t]++] = isnan(a) ? b : isnan(b) ? a : 0.5f * (a + b);
			}
		if (pass == 0)
			for (int t = 0; t < T; t++)
				if (cnt[t] && !(v[t] = malloc(sizeof *v[t] * UPLINK_SAMPLE)))
					rc = FP_ERUNTIME;
	}
	for (int t = 0; t < T; t++) {
		out[t] = rc == 0 && k[t] ? infer_select(v[t], (size_t)k[t], (size_t)(q * (k[t] - 1))) : NAN;
		free(v[t]);
	}
	return rc;
}

double infer_uplink_ratio(const struct infer_result *r, const float *bw, int t, int a)
{
	int n = r->n, T = r->ntiers, g;
	size_t k = 0;
	float *buf;
	double med;

	if (!bw || t < 0 || t >= T - 1 || a < 0 || a >= n || !(buf = malloc(sizeof *buf * (4 * (size_t)n + 2))))
		return NAN;
	g = r->group[(size_t)t * n + a];
	for (int i = 0; i < n && k < 4 * (size_t)n; i++)
		for (int j = 0; j < n && r->group[(size_t)t * n + i] == g && k < 4 * (size_t)n; j++) {
			int pt = infer_pair_tier(r->group, T, n, i, j);

			for (int d = 0; d < 2 && pt > t && pt < T && r->bw_p75_GBps[pt] > 0; d++) {
				float b = d ? bw[(size_t)j * n + i] : bw[(size_t)i * n + j];

				if (!isnan(b))
					buf[k++] = b / (float)r->bw_p75_GBps[pt];
			}
		}
	med = k ? infer_select(buf, k, (k - 1) / 2) : NAN;
	free(buf);
	return med;
}

/* Uplinks: a group below the top whose pairs across its uplink (to nodes outside it) nearly all
 * run below UPLINK_LOW of their tier's upper quartile, while its own pairs mostly do not: the
 * uplink, not its nodes, is slow; one finding, and its pairs are left out of the node and link
 * rules. The highest tier first (a spine's uplink slows its leaves' pairs across it too), in a
 * tier the group with the largest share of slow pairs first, its pairs then explained, so that a
 * sibling whose pairs are slow only towards it is not named as well. Into up (marks by off). */
#define UPLINK_LOW 0.7   /* a pair slower than this fraction of its tier's upper quartile */
#define UPLINK_SHARE 0.8 /* …for this share of the group's directions across its uplink at least */
#define UPLINK_MIN 4     /* …of this many at least, with 2 directions inside it */
static int low_uplinks(const struct infer_ctx *c, const float *bw, struct infer_result *r, unsigned char *up,
		       const int *off)
{
	int n = c->n, T = r->ntiers, rc = 0;
	long long *st = NULL;

	for (int t = T - 2; t >= 0 && rc == 0; t--) {
		int ng = r->ngroups[t];

		free(st);
		if (!(st = malloc(sizeof *st * 4 * ((size_t)ng + 1))))
			return FP_ERUNTIME;
		for (;;) {
			int best = -1;
			double share = 0;

			memset(st, 0, sizeof *st * 4 * (size_t)ng); /* per group: across, slow; inside, slow */
			for (int i = 0; i < n; i++)
				for (int j = 0; j < n; j++) {
					float b = bw[(size_t)i * n + j];
					int pt = j == i || isnan(b) ? T : infer_pair_tier(r->group, T, n, i, j);
					int gi = r->group[(size_t)t * n + i], gj = r->group[(size_t)t * n + j];

					if (pt >= T || !(r->bw_p75_GBps[pt] > 0) || crosses_low(r, n, up, off, i, j, pt))
						continue;
					int slow = b < UPLINK_LOW * r->bw_p75_GBps[pt], in = pt <= t;

					/* a direction counts for both its ends' groups */
					st[4 * gi + 2 * in] += 1, st[4 * gi + 2 * in + 1] += slow;
					if (!in)
						st[4 * gj] += 1, st[4 * gj + 1] += slow;
				}
			for (int g = 0; g < ng; g++) {
				double f = st[4 * g] ? (double)st[4 * g + 1] / (double)st[4 * g] : 0;

				if (st[4 * g] >= UPLINK_MIN && f >= UPLINK_SHARE && st[4 * g + 2] >= 2 &&
				    2 * st[4 * g + 3] <= st[4 * g + 2] && f > share)
					best = g, share = f;
			}
			if (best < 0)
				break;
			/* its figure: the median ratio of its directions across, from at most 2n of them */
			float *buf = malloc(sizeof *buf * (2 * (size_t)n + 2));
			size_t k = 0;
			int a = -1;

			for (int i = 0; i < n && buf; i++) {
				if (r->group[(size_t)t * n + i] != best)
					continue;
				a = a < 0 ? i : a;
				for (int j = 0; j < n && k < 2 * (size_t)n; j++) {
					int pt = infer_pair_tier(r->group, T, n, i, j);

					for (int d = 0; d < 2 && pt > t && pt < T && r->bw_p75_GBps[pt] > 0; d++) {
						float b = d ? bw[(size_t)j * n + i] : bw[(size_t)i * n + j];

						if (!isnan(b) && !crosses_low(r, n, up, off, i, j, pt) && k < 2 * (size_t)n)
							buf[k++] = b / (float)r->bw_p75_GBps[pt];
					}
				}
			}
			if (!buf) {
				rc = FP_ERUNTIME;
				break;
			}
			suspect_add(r, SUSPECT_LOW_BW_UPLINK, a, -1, k ? infer_select(buf, k, (k - 1) / 2) : NAN, 1, t);
			free(buf);
			up[off[t] + best] = 1;
		}
	}
	free(st);
	return rc;
}

/* Bandwidth: the uplinks (above); then a node whose pairs run well below their tiers' medians (its
 * NIC or host; its links are then not listed), and links far below theirs and below half of it;
 * neither from pairs across a slow uplink. */
static int low_bandwidth(const struct infer_ctx *c, const float *bw, struct infer_result *r, float *buf)
{
	int n = c->n, T = r->ntiers, ns = 0, off[INFER_TIERS_MAX + 1] = { 0 };
	char *low = calloc((size_t)n + 1, 1);
	unsigned char *up;

	for (int t = 0; t < T; t++)
		off[t + 1] = off[t] + r->ngroups[t];
	if (!low || !(up = calloc((size_t)off[T] + 1, 1))) {
		free(low);
		return FP_ERUNTIME;
	}
	double ref[INFER_TIERS_MAX];
	int named = 0;

	if (bw_quantile(c, bw, r, NULL, off, 0.75, r->bw_p75_GBps) || low_uplinks(c, bw, r, up, off)) {
		free(low);
		free(up);
		return FP_ERUNTIME;
	}
	/* the tiers' medians without the pairs a slow uplink explains (they would drag them down and
	 * hide a slow node behind them); the medians themselves when none is named */
	for (int g = 0; g < off[T]; g++)
		named |= up[g];
	for (int t = 0; t < T; t++)
		ref[t] = r->bw_p50_GBps[t];
	if (named && bw_quantile(c, bw, r, up, off, 0.5, ref)) {
		free(low);
		free(up);
		return FP_ERUNTIME;
	}
	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int j = 0; j < n; j++) {
			int t = infer_pair_tier(r->group, T, n, i, j);

			if (j == i || t >= T || !(ref[t] > 0) || crosses_low(r, n, up, off, i, j, t))
				continue;
			if (!isnan(bw[(size_t)i * n + j]))
				buf[k++] = bw[(size_t)i * n + j] / (float)ref[t];
			if (!isnan(bw[(size_t)j * n + i]))
				buf[k++] = bw[(size_t)j * n + i] / (float)ref[t];
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
			int t = infer_pair_tier(r->group, T, n, i, j);

			if (at % stride == 0 && ns < 2 * n && i != j && t < T && !low[i] && !low[j] &&
			    !isnan(bw[(size_t)i * n + j]) && ref[t] > 0)
				buf[ns++] = fabsf(logf(bw[(size_t)i * n + j] / (float)ref[t]));
		}
	double spread = ns ? infer_select(buf, (size_t)ns, (size_t)ns / 2) / 0.6745 : 0;
	double lim = fmin(0.5, exp(-6 * spread));
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int t = infer_pair_tier(r->group, T, n, i, j);
			float b = bw[(size_t)i * n + j];

			if (i != j && !low[i] && !low[j] && t < T && !isnan(b) && b < lim * ref[t] &&
			    !crosses_low(r, n, up, off, i, j, t))
				suspect_add(r, SUSPECT_LOW_BW_LINK, i, j, b, ref[t], t);
		}
	free(low);
	free(up);
	return 0;
}

int infer_suspects(struct infer_ctx *c, const struct infer_model *m, const float *bw, struct infer_result *r)
{
	int n = c->n, rc;
	float *buf = malloc(sizeof *buf * (size_t)(2 * n + 2));

	if (!buf)
		return FP_ERUNTIME;
	for (int t = 0; t < r->ntiers; t++)
		r->bw_p50_GBps[t] = r->bw_p75_GBps[t] = NAN;
	slow_nodes(c, m, r, buf);
	rc = latency_pairs(c, m, r);
	if (!rc && bw && !(rc = bw_medians(c, bw, r)))
		rc = low_bandwidth(c, bw, r, buf);
	free(buf);
	return rc;
}
