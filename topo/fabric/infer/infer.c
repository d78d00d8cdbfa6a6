/* infer.c — see infer.h: the pipeline, the pair values, the node order. The noise and the
 * first offsets are in infer_near.c, average linkage in infer_link.c, tier boundaries in
 * infer_tier.c, the tier model and the suspects in infer_model.c; docs/latency-map.md explains. */
#include "infer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "infer_int.h"
#include "infer_model.h"
#include "core/log.h"
#include "core/natsort.h"


void infer_opts_default(struct infer_opts *o)
{
	*o = (struct infer_opts){ .rel_noise = 0.03, .sep_z = 5, .sep_step = 1.5 };
}

const char *infer_suspect_kind_name(int kind)
{
	static const char *const names[] = { "slow_node", "slow_link", "fast_link", "low_bw_node",
					     "low_bw_link", "low_bw_uplink", "unmeasured_pair", "unmeasured_node" };

	return kind >= 0 && kind <= SUSPECT_UNMEASURED_NODE ? names[kind] : "unknown";
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
double infer_median(float *a, size_t n)
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

/* The pairs' latencies of tile (I, J), J <= I: s[(i - I) * B + j - J], B = INFER_BLOCK. The
 * transposed half is copied by rows first: read down a column, a matrix whose rows are a power
 * of two apart would hit one cache set again and again. t: B x B floats of scratch. */
void infer_tile_sym(const float *lat, int n, int I, int J, float *s, float *t)
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
			infer_tile_sym(c->lat, n, I, J, ts, tt);
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

	if ((rc = infer_near(c, &est[0], &nu[0])))
		return rc;
	if (pairs_build(c))
		return FP_ERUNTIME;
	if (infer_link(c, &tree))
		return FP_ERUNTIME;
	if (!(rc = tiers_and_model(c, &tree, ti, m, 0))) {
		int first = ti->ntiers;
		double sigma = c->sigma, *off = malloc(sizeof *off * ((size_t)c->n + 1));

		if (!off) {
			infer_tree_free(&tree);
			return FP_ERUNTIME;
		}
		memcpy(off, c->off, sizeof *off * (size_t)c->n);
		memcpy(c->off, m->off, sizeof *c->off * (size_t)c->n);
		infer_shrink(c, c->off, m->se, m->level[0], c->rows);
		est[1] = m->sigma;
		nu[1] = m->dof;
		c->sigma = infer_noise(c, est, nu, 2);
		/* the lowest tier's pairs are where the tiers above it are told from the noise */
		if (isfinite(m->sigma0) && m->sigma0 > c->sigma)
			c->sigma = m->sigma0;
		rc = tiers_and_model(c, &tree, ti, m, 1);
		/* a tier the second round finds and the first did not rests on offsets fitted under
		 * tiers without it: a node's offset that soaks up a few fast pairs lets them stand as
		 * a switch (leaves of 4 split by minima on two levels). The first round stands. */
		if (rc == 0 && ti->ntiers > first) {
			memcpy(c->off, off, sizeof *off * (size_t)c->n);
			c->sigma = sigma;
			rc = tiers_and_model(c, &tree, ti, m, 0);
		}
		free(off);
	}
	infer_tree_free(&tree);
	return rc;
}

/* ---------------------------------------------------------------- step 6: the steps */

/* The pairs that meet first at tier t under ti (*pairs, counted over a sample of at most 2^20
 * pairs and scaled up), and their median bandwidth (GB/s, a pair: the mean of its directions;
 * NAN without bandwidth). */
static double tier_bw(const struct infer_ctx *c, const struct infer_tiers *ti, const float *bw, int t,
		      double *pairs)
{
	int n = c->n, S = (int)(tri(n, 0) / (1u << 20) + 1), k = 0;
	long long at = 0;
	float *v = bw ? malloc(sizeof *v * (tri(n, 0) / (size_t)S + (size_t)n + 1)) : NULL;
	double med = NAN;

	for (int i = 1; i < n; i++)
		for (int j = i % S; j < i; j += S) {
			if (infer_pair_tier(ti->group, ti->ntiers, n, i, j) != t)
				continue;
			at++;
			if (!v)
				continue;
			float a = bw[(size_t)i * n + j], b = bw[(size_t)j * n + i];
			float x = isnan(a) ? b : isnan(b) ? a : (a + b) / 2;

			if (!isnan(x))
				v[k++] = x;
		}
	*pairs = (double)at * S;
	if (k)
		med = infer_median(v, (size_t)k);
	free(v);
	return med;
}

/* tier t of ti joined into the tier above it (its groups go; the tiers above move down) */
static void tier_drop(struct infer_tiers *ti, int n, int t)
{
	for (int u = t; u + 1 < ti->ntiers; u++) {
		memcpy(ti->group + (size_t)u * n, ti->group + (size_t)(u + 1) * n, sizeof *ti->group * (size_t)n);
		ti->ngroups[u] = ti->ngroups[u + 1];
		ti->theta[u] = ti->theta[u + 1];
		ti->sep_z[u] = ti->sep_z[u + 1], ti->sep_step[u] = ti->sep_step[u + 1];
		ti->sep_pairs[u] = ti->sep_pairs[u + 1], ti->sep_within[u] = ti->sep_within[u + 1];
		ti->wsum[u] = ti->wsum[u + 1], ti->wcnt[u] = ti->wcnt[u + 1];
	}
	ti->ntiers--;
}

/* each boundary's step over the largest of the others' into ratio (NAN with fewer than 3
 * tiers); returns the boundary of the smallest ratio, -1 when none */
static int step_ratios(const struct infer_model *m, int T, double *ratio)
{
	int worst = -1;

	for (int t = 0; t < T; t++) {
		double ref = 0;

		ratio[t] = NAN;
		if (t >= T - 1 || T < 3)
			continue;
		for (int u = 0; u < T - 1; u++)
			if (u != t)
				ref = fmax(ref, m->level[u + 1] - m->level[u]);
		ratio[t] = ref > 0 ? (m->level[t + 1] - m->level[t]) / ref : NAN;
		if (isfinite(ratio[t]) && (worst < 0 || ratio[t] < ratio[worst]))
			worst = t;
	}
	return worst;
}

/* Step 6: a switch hop costs about the same at every tier, so a tier whose step to the next is
 * far below the fabric's other steps is not taken on latency alone. Under INFER_STEP_REFUSE of
 * the others', carried by a handful of pairs (fewer than the nodes: groups of one or two
 * inside the switches above) and with no bandwidth drop across it, the tier goes (its groups
 * joined into the tier above; the model fitted again) and the rest are judged again. Any
 * other step under INFER_STEP_CERTAIN stays, uncertain: a tier of many pairs whose step is
 * small may be real (a core a long fibre away makes the leaf's step look small), and a
 * bandwidth drop says narrower uplinks; neither reaches a scheduler file. */
static int steps_judge(struct infer_ctx *c, struct infer_tiers *ti, struct infer_model *m, const float *bw,
		       struct infer_result *r)
{
	double ratio[INFER_TIERS_MAX];
	int rc = 0, t;

	while ((t = step_ratios(m, ti->ntiers, ratio)) >= 0 && ratio[t] < INFER_STEP_REFUSE) {
		double own, above, below = tier_bw(c, ti, bw, t, &own), across = tier_bw(c, ti, bw, t + 1, &above);

		(void)above;

		if (across < INFER_STEP_BW_DROP * below || own >= c->n)
			break; /* narrower links across it, or a tier of many pairs: uncertain */
		r->refused++;
		r->refused_step_us = m->level[t + 1] - m->level[t];
		r->refused_ratio = ratio[t];
		tier_drop(ti, c->n, t);
		if ((rc = infer_model_fit(c, ti, m, 0)))
			return rc;
	}
	for (t = 0; t < ti->ntiers; t++) {
		r->step_ratio[t] = ratio[t];
		r->uncertain[t] = isfinite(ratio[t]) && ratio[t] < INFER_STEP_CERTAIN;
	}
	return 0;
}

static int analyse(struct infer_ctx *c, const float *bw, const char *const *names, struct infer_result *r)
{
	struct infer_tiers ti = { .group = r->group };
	struct infer_model m = { 0 };
	int rc = FP_ERUNTIME;

	m.off = malloc(sizeof *m.off * (size_t)c->n);
	m.se = malloc(sizeof *m.se * (size_t)c->n);
	if (!m.off || !m.se || (rc = infer_steps(c, &ti, &m)) || (rc = steps_judge(c, &ti, &m, bw, r)))
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
	r->noise_repeat = c->rep_sigma;
	r->noise_repeat_n = c->rep_n;
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
	struct infer_ctx c = { .n = n, .lat = lat, .o = o, .rep_sigma = NAN };
	size_t np = tri(n, 0);
	int rc = FP_ERUNTIME;

	memset(r, 0, sizeof *r);
	r->n = n;
	c.d = infer_big(np);
	c.off = calloc(3 * (size_t)n + 1, sizeof *c.off);
	c.rows = malloc(sizeof *c.rows * (size_t)INFER_BLOCK * (n ? n : 1));
	c.spread = calloc(2 * (size_t)n + 1, sizeof *c.spread); /* and each row's nearest pair */
	r->group = malloc(sizeof *r->group * (size_t)n * INFER_TIERS_MAX + 1);
	r->offset_us = calloc((size_t)n + 1, sizeof *r->offset_us);
	r->order = malloc(sizeof *r->order * (size_t)n + 1);
	r->suspects = malloc(sizeof *r->suspects * INFER_SUSPECTS_MAX);
	if (c.d && c.off && c.rows && c.spread && r->group && r->offset_us && r->order && r->suspects)
		rc = analyse(&c, bw, names, r);
	free(c.d);
	free(c.off);
	free(c.rows);
	free(c.spread);
	if (rc)
		infer_result_free(r);
	return rc;
}

int infer_certain(const struct infer_result *r, struct infer_result *out)
{
	int n = r->n, T = 0;

	*out = *r;
	out->group = malloc(sizeof *out->group * (size_t)n * INFER_TIERS_MAX + 1);
	out->offset_us = malloc(sizeof *out->offset_us * (size_t)n + 1);
	out->order = malloc(sizeof *out->order * (size_t)n + 1);
	out->suspects = NULL;
	out->nsuspects = 0;
	if (!out->group || !out->offset_us || !out->order) {
		infer_result_free(out);
		return FP_ERUNTIME;
	}
	memcpy(out->offset_us, r->offset_us, sizeof *out->offset_us * (size_t)n);
	memcpy(out->order, r->order, sizeof *out->order * (size_t)n);
	for (int t = 0; t < r->ntiers; t++) {
		if (r->uncertain[t] && t < r->ntiers - 1)
			continue;
		memcpy(out->group + (size_t)T * n, r->group + (size_t)t * n, sizeof *out->group * (size_t)n);
#define TIER_COPY(f) out->f[T] = r->f[t]
		TIER_COPY(ngroups); TIER_COPY(threshold_us); TIER_COPY(lat_p50_us); TIER_COPY(level_us);
		TIER_COPY(bw_p50_GBps); TIER_COPY(bw_p75_GBps); TIER_COPY(npairs); TIER_COPY(sep_z);
		TIER_COPY(sep_step); TIER_COPY(sep_pairs); TIER_COPY(sep_within); TIER_COPY(step_ratio);
#undef TIER_COPY
		out->uncertain[T] = 0;
		T++;
	}
	out->ntiers = T;
	out->structure = T > 1;
	return 0;
}

void infer_result_free(struct infer_result *r)
{
	free(r->group);
	free(r->offset_us);
	free(r->order);
	free(r->suspects);
	memset(r, 0, sizeof *r);
}
