/* infer.c — see infer.h. */
#include "infer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/natsort.h"

#define SUSPECTS_MAX 10000 /* a list longer than this says the grouping itself is in doubt */

void infer_opts_default(struct infer_opts *o)
{
	*o = (struct infer_opts){ .abs_floor_us = 0.05, .rel_noise = 0.03, .alpha = 6, .min_ratio = 1.2 };
}

const char *infer_suspect_kind_name(int kind)
{
	static const char *const names[] = { "slow_node", "slow_link", "fast_link", "low_bw_node",
					     "low_bw_link", "unmeasured_pair" };

	return kind >= 0 && kind <= SUSPECT_UNMEASURED ? names[kind] : "unknown";
}

/* ---------------------------------------------------------------- small tools */

/* k-th smallest of a[0..n-1] (0-based, no NANs); reorders a. Expected O(n) (Hoare). */
static float select_k(float *a, size_t n, size_t k)
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

static double median_of(float *a, size_t n)
{
	return n ? select_k(a, n, (n - 1) / 2) : NAN;
}

static int uf_find(int *p, int x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

struct infer_ctx {
	int n;
	const struct infer_opts *o;
	float *s;      /* symmetrised latency */
	float *d;      /* s minus the per-node offsets */
	float *tmp;    /* n floats */
	int *nn;       /* nearest neighbour */
	double noise;
};

static double noise_at(const struct infer_ctx *c, double w)
{
	double x = c->o->rel_noise * fabs(w);

	return x > c->noise ? x : c->noise;
}

/* ---------------------------------------------------------------- steps 1-2 */

static void symmetrise(struct infer_ctx *c, const float *lat)
{
	int n = c->n;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float a = lat[(size_t)i * n + j], b = lat[(size_t)j * n + i];

			c->s[(size_t)i * n + j] = i == j ? NAN : isnan(a) ? b : isnan(b) ? a : (a + b) / 2;
		}
}

/* nearest neighbours and the noise: the spread of the lowest plateau (every node's nearest
 * distance), never below the configured floors or the measured noise */
static void nearest_and_noise(struct infer_ctx *c)
{
	int n = c->n, k = 0;
	double med, mad;

	for (int i = 0; i < n; i++) {
		float best = INFINITY;

		c->nn[i] = -1;
		for (int j = 0; j < n; j++) {
			float v = c->s[(size_t)i * n + j];

			if (v < best) {
				best = v;
				c->nn[i] = j;
			}
		}
		if (c->nn[i] >= 0)
			c->tmp[k++] = best;
	}
	med = median_of(c->tmp, (size_t)k);
	for (int i = 0; i < k; i++)
		c->tmp[i] = fabsf(c->tmp[i] - (float)med);
	mad = k ? 1.4826 * median_of(c->tmp, (size_t)k) : 0;
	c->noise = c->o->abs_floor_us;
	if (k && c->o->rel_noise * med > c->noise)
		c->noise = c->o->rel_noise * med;
	if (mad > c->noise)
		c->noise = mad;
	if (c->o->noise_us > c->noise)
		c->noise = c->o->noise_us;
}

/* Offset of node i: when its distance to everyone is its nearest neighbour j's plus a
 * constant (to within the noise, for 90% of the others), that constant; else 0. A node alone
 * on its switch fails the test (its distances differ from j's by j's own group), so it keeps
 * offset 0 and is not pulled into j's group. */
static double offset_of(struct infer_ctx *c, int i)
{
	int n = c->n, j = c->nn[i], k = 0, close = 0;
	const float *si, *sj;
	double off;

	if (j < 0) /* before the row pointer: c->s + (size_t)-1 * n would overflow */
		return 0;
	si = c->s + (size_t)i * n;
	sj = c->s + (size_t)j * n;
	for (int x = 0; x < n; x++)
		if (x != i && x != j && !isnan(si[x]) && !isnan(sj[x]))
			c->tmp[k++] = si[x] - sj[x];
	if (k < 2)
		return 0;
	off = median_of(c->tmp, (size_t)k);
	if (off <= 0)
		return 0;
	for (int x = 0; x < n; x++)
		if (x != i && x != j && !isnan(si[x]) && !isnan(sj[x]))
			close += fabs(si[x] - sj[x] - off) <= 3 * noise_at(c, si[x] > sj[x] ? si[x] : sj[x]);
	return close >= 0.9 * k ? off : 0;
}

/* ---------------------------------------------------------------- steps 3-4 */

struct edge {
	int u, v;
	float w;
};

static int cmp_edge(const void *a, const void *b)
{
	float x = ((const struct edge *)a)->w, y = ((const struct edge *)b)->w;

	return (x > y) - (x < y);
}

/* Dense Prim over c->d, NAN = no edge. Writes the finite tree edges, returns their count. */
static int mst(struct infer_ctx *c, struct edge *e)
{
	int n = c->n, m = 0;
	float *key = c->tmp;
	int *from = malloc(sizeof *from * (size_t)n);
	char *in = calloc((size_t)n, 1);

	if (!from || !in) {
		free(from);
		free(in);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		key[i] = INFINITY;
		from[i] = -1;
	}
	for (int step = 0; step < n; step++) {
		int u = -1;

		for (int i = 0; i < n; i++)
			if (!in[i] && (u < 0 || key[i] < key[u]))
				u = i;
		in[u] = 1;
		if (from[u] >= 0)
			e[m++] = (struct edge){ from[u], u, key[u] };
		/* key[u] infinite: u starts a new component (no measured path to the others) */
		for (int v = 0; v < n; v++) {
			float w = c->d[(size_t)u * n + v];

			if (!in[v] && !isnan(w) && w < key[v]) {
				key[v] = w;
				from[v] = u;
			}
		}
	}
	free(from);
	free(in);
	return m;
}

/* Tier boundaries: the steps of the sorted tree edges clearly above the noise. */
static int boundaries(const struct infer_ctx *c, const struct edge *e, int m, double *theta)
{
	int nb = 0;

	for (int k = 0; k + 1 < m && nb < INFER_TIERS_MAX - 1; k++) {
		double lo = e[k].w, hi = e[k + 1].w, step = hi - lo;

		if (step > c->o->abs_floor_us && step > c->o->alpha * noise_at(c, lo) &&
		    hi >= c->o->min_ratio * (lo > 0 ? lo : 0))
			theta[nb++] = (lo + hi) / 2;
	}
	return nb;
}

/* group[t*n+i] = a representative of i's component among edges below theta[t] */
static void cut(const struct edge *e, int m, const double *theta, int ntiers, int n, int *group, int *uf)
{
	for (int t = 0; t < ntiers; t++) {
		for (int i = 0; i < n; i++)
			uf[i] = i;
		for (int k = 0; k < m && (t == ntiers - 1 || e[k].w < theta[t]); k++) {
			int a = uf_find(uf, e[k].u), b = uf_find(uf, e[k].v);

			if (a != b)
				uf[a] = b;
		}
		for (int i = 0; i < n; i++)
			group[(size_t)t * n + i] = uf_find(uf, i);
	}
}

/* ---------------------------------------------------------------- order */

struct order_ctx {
	int n, ntiers;
	const int *group;  /* renumbered or not: only equality matters */
	const int *rank;   /* natural-order rank of each node's name */
	const int *gmin;   /* [t*n + g]: smallest name rank in group g (g = a representative) */
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

/* Fill r->order, then renumber each tier's groups 0.. in that order. */
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

/* ---------------------------------------------------------------- tiers, suspects */

/* lowest tier at which i and j share a group; ntiers when they never do */
static int pair_tier(const struct infer_result *r, int i, int j)
{
	for (int t = 0; t < r->ntiers; t++)
		if (r->group[(size_t)t * r->n + i] == r->group[(size_t)t * r->n + j])
			return t;
	return r->ntiers;
}

static void suspect_add(struct infer_result *r, int kind, int a, int b, double value, double expected,
			int tier)
{
	if (r->nsuspects < SUSPECTS_MAX)
		r->suspects[r->nsuspects++] = (struct infer_suspect){ kind, a, b, value, expected, tier };
}

/* Median latency (and bandwidth) of the pairs of each tier. */
static int tier_stats(struct infer_result *r, const float *s, const float *bw)
{
	int n = r->n;
	size_t cap = (size_t)n * (n > 1 ? n - 1 : 1), fill[INFER_TIERS_MAX + 1] = { 0 };
	float *v = malloc(sizeof *v * cap);

	if (!v)
		return FP_ERUNTIME;
	for (int k = 0; k < 2; k++) {
		const float *m = k ? bw : s;
		size_t start[INFER_TIERS_MAX + 1], cnt[INFER_TIERS_MAX + 1] = { 0 }, at = 0;

		if (!m) {
			for (int t = 0; t < r->ntiers; t++)
				r->bw_p50_GBps[t] = NAN;
			continue;
		}
		/* bucket the values by tier: count, then place */
		for (int i = 0; i < n; i++)
			for (int j = k ? 0 : i + 1; j < n; j++)
				if (i != j && !isnan(m[(size_t)i * n + j]))
					cnt[pair_tier(r, i, j)]++;
		for (int t = 0; t <= r->ntiers; t++) {
			start[t] = fill[t] = at;
			at += cnt[t];
		}
		for (int i = 0; i < n; i++)
			for (int j = k ? 0 : i + 1; j < n; j++)
				if (i != j && !isnan(m[(size_t)i * n + j]))
					v[fill[pair_tier(r, i, j)]++] = m[(size_t)i * n + j];
		for (int t = 0; t < r->ntiers; t++) {
			double med = median_of(v + start[t], cnt[t]);

			if (k)
				r->bw_p50_GBps[t] = med;
			else {
				r->lat_p50_us[t] = med;
				r->npairs[t] = (int)cnt[t];
			}
		}
	}
	free(v);
	return 0;
}

/* Pairs whose measured latency disagrees with their tier; nodes and links with low bandwidth. */
static int find_suspects(struct infer_result *r, const struct infer_ctx *c, const float *bw)
{
	int n = r->n;
	float *ratio = c->tmp;

	for (int i = 0; i < n; i++)
		if (r->offset_us[i] > 4 * c->noise)
			suspect_add(r, SUSPECT_SLOW_NODE, i, -1, r->offset_us[i], 0, -1);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			float d = c->d[(size_t)i * n + j];
			int t = pair_tier(r, i, j);

			if (isnan(d)) {
				suspect_add(r, SUSPECT_UNMEASURED, i, j, NAN, NAN, t);
				continue;
			}
			if (t < r->ntiers - 1 && d > r->threshold_us[t])
				suspect_add(r, SUSPECT_SLOW_LINK, i, j, c->s[(size_t)i * n + j], r->lat_p50_us[t], t);
			else if (t > 0 && t < r->ntiers && d < r->threshold_us[t - 1])
				suspect_add(r, SUSPECT_FAST_LINK, i, j, c->s[(size_t)i * n + j], r->lat_p50_us[t], t);
		}
	if (!bw)
		return 0;
	/* a node whose pairs (both directions) run well below their tier's median: the node or its
	 * NIC; its links are then not listed one by one */
	char *low = calloc((size_t)n, 1);
	if (!low)
		return FP_ERUNTIME;
	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int j = 0; j < n; j++) {
			int t = pair_tier(r, i, j);

			if (j == i || t >= r->ntiers || !(r->bw_p50_GBps[t] > 0))
				continue;
			if (!isnan(bw[(size_t)i * n + j]))
				ratio[k++] = bw[(size_t)i * n + j] / r->bw_p50_GBps[t];
			if (!isnan(bw[(size_t)j * n + i]))
				ratio[k++] = bw[(size_t)j * n + i] / r->bw_p50_GBps[t];
		}
		double med = median_of(ratio, (size_t)k);
		if (k && med < 0.7) {
			low[i] = 1;
			suspect_add(r, SUSPECT_LOW_BW_NODE, i, -1, med, 1, -1);
		}
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int t = pair_tier(r, i, j);
			float b = bw[(size_t)i * n + j];

			if (i != j && !low[i] && !low[j] && t < r->ntiers && !isnan(b) && b < 0.5 * r->bw_p50_GBps[t])
				suspect_add(r, SUSPECT_LOW_BW_LINK, i, j, b, r->bw_p50_GBps[t], t);
		}
	free(low);
	return 0;
}

/* ---------------------------------------------------------------- the whole */

int infer_tiers(const float *lat, const float *bw, int n, const char *const *names,
		const struct infer_opts *o, struct infer_result *r)
{
	struct infer_ctx c = { .n = n, .o = o };
	struct edge *e = NULL;
	int *uf = NULL, m, rc = FP_ERUNTIME;
	size_t nn2 = (size_t)n * n;

	memset(r, 0, sizeof *r);
	r->n = n;
	c.s = malloc(sizeof *c.s * nn2);
	c.d = malloc(sizeof *c.d * nn2);
	c.tmp = malloc(sizeof *c.tmp * 2 * (size_t)n + 1);
	c.nn = malloc(sizeof *c.nn * (size_t)n);
	e = malloc(sizeof *e * (size_t)n);
	uf = malloc(sizeof *uf * (size_t)n);
	r->group = malloc(sizeof *r->group * (size_t)n * INFER_TIERS_MAX);
	r->offset_us = calloc((size_t)n, sizeof *r->offset_us);
	r->order = malloc(sizeof *r->order * (size_t)n);
	r->suspects = malloc(sizeof *r->suspects * SUSPECTS_MAX);
	if (!c.s || !c.d || !c.tmp || !c.nn || !e || !uf || !r->group || !r->offset_us || !r->order ||
	    !r->suspects)
		goto out;
	symmetrise(&c, lat);
	nearest_and_noise(&c);
	r->noise_us = c.noise;
	for (int i = 0; i < n; i++)
		r->offset_us[i] = offset_of(&c, i);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			c.d[(size_t)i * n + j] = c.s[(size_t)i * n + j] - (float)(r->offset_us[i] + r->offset_us[j]);
	if ((m = mst(&c, e)) < 0)
		goto out;
	qsort(e, (size_t)m, sizeof *e, cmp_edge);
	r->ntiers = boundaries(&c, e, m, r->threshold_us) + 1;
	r->threshold_us[r->ntiers - 1] = INFINITY;
	cut(e, m, r->threshold_us, r->ntiers, n, r->group, uf);
	if (order_nodes(r, names) || tier_stats(r, c.s, bw) || find_suspects(r, &c, bw))
		goto out;
	rc = 0;
out:
	free(c.s);
	free(c.d);
	free(c.tmp);
	free(c.nn);
	free(e);
	free(uf);
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
