/* compare_noise.c — each run's own noise, from which a compared change is judged (see
 * compare.h for the method). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "core/log.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* median of v (reordered) */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double cmp_sigma(double *r, int n)
{
	double s;

	if (n < 5)
		return NAN;
	for (int i = 0; i < n; i++)
		r[i] = fabs(r[i]);
	qsort(r, (size_t)n, sizeof *r, cmp_double);
	s = r[(int)ceil(0.9 * n) - 1] / 1.645;
	return s > CMP_SIGMA_FLOOR ? s : CMP_SIGMA_FLOOR;
}

/* ---------------------------------------------------------------- p2p */

struct obs {
	int path, metric, tier, src, dst;
	long long size;
	double lv;   /* ln value, then its residual */
};

static int cmp_obs(const void *x, const void *y)
{
	const struct obs *a = x, *b = y;

	if (a->path != b->path)
		return a->path - b->path;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	if (a->metric != b->metric)
		return a->metric - b->metric;
	return a->tier - b->tier;
}

struct node_dev {
	int node;
	double dev;
};

static int cmp_node(const void *x, const void *y)
{
	const struct node_dev *a = x, *b = y;

	return a->node != b->node ? a->node - b->node : cmp_double(&a->dev, &b->dev);
}

/* A node's offset in a group: the median deviation of its pairs, when it has 3 or more and
 * it stands beyond 3 robust standard deviations of the group (sigma_core), else 0: an offset
 * estimated from a few noisy pairs would soak up noise and shrink the estimate. */
static double node_effect(const struct node_dev *nd, int n, int node, double sigma_core)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (nd[mid].node < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	int k = lo;
	while (k < n && nd[k].node == node)
		k++;
	if (k - lo < 3)
		return 0;
	double e = (k - lo) % 2 ? nd[lo + (k - lo) / 2].dev : 0.5 * (nd[lo + (k - lo) / 2 - 1].dev + nd[lo + (k - lo) / 2].dev);
	return fabs(e) > 3 * sigma_core ? e : 0;
}

/* Residuals of one group of observations (in place): deviation from the group's median
 * (returned, ln), less whichever clear node offset (or none) explains it best. */
static double residuals(struct obs *o, int n, double *tmp, struct node_dev *nd)
{
	double med, core;

	for (int i = 0; i < n; i++)
		tmp[i] = o[i].lv;
	med = median(tmp, n);
	for (int i = 0; i < n; i++) {
		o[i].lv -= med;
		tmp[i] = fabs(o[i].lv);
		nd[2 * i] = (struct node_dev){ o[i].src, o[i].lv };
		nd[2 * i + 1] = (struct node_dev){ o[i].dst, o[i].lv };
	}
	core = 1.4826 * median(tmp, n);
	qsort(nd, (size_t)(2 * n), sizeof *nd, cmp_node);
	for (int i = 0; i < n; i++) {
		double es = node_effect(nd, 2 * n, o[i].src, core), ed = node_effect(nd, 2 * n, o[i].dst, core), r = o[i].lv;

		if (fabs(r - es) < fabs(r))
			r -= es;
		if (fabs(o[i].lv - ed) < fabs(r))
			r = o[i].lv - ed;
		o[i].lv = r;
	}
	return med;
}

/* The observations of a run: every ok row's metrics, ln, with the pair's tier. */
static struct obs *observations(const struct rundir *rd, int *count)
{
	struct obs *o = malloc(sizeof *o * (rd->np2p * RD_NMETRIC + 1));
	int n = 0;

	if (!o)
		return NULL;
	for (size_t i = 0; i < rd->np2p; i++) {
		const struct rd_p2p *p = &rd->p2p[i];
		int tier = rundir_tier(rd, p->src, p->dst);

		for (int m = 0; m < RD_NMETRIC; m++)
			if (p->ok && p->v[m] > 0)
				o[n++] = (struct obs){ p->path, m, tier, p->src, p->dst, p->size, log(p->v[m]) };
	}
	*count = n;
	return o;
}

static int key_add(struct cmp_noise *nz, const struct obs *o, double sigma, int n, double median)
{
	struct cmp_noise_key *q = realloc(nz->k, sizeof *q * (size_t)(nz->n + 1));

	if (!q)
		return FP_ERUNTIME;
	nz->k = q;
	q[nz->n++] = (struct cmp_noise_key){ o->path, o->size, o->metric, o->tier, sigma, n, median };
	return 0;
}

int cmp_noise_build(const struct rundir *rd, struct cmp_noise *nz)
{
	int n = 0, rc = 0;
	struct obs *o = observations(rd, &n);
	double *tmp = malloc(sizeof *tmp * (size_t)(n + 1));
	struct node_dev *nd = malloc(sizeof *nd * (size_t)(2 * n + 1));

	*nz = (struct cmp_noise){ 0 };
	if (!o || !tmp || !nd) {
		rc = FP_ERUNTIME;
		goto out;
	}
	qsort(o, (size_t)n, sizeof *o, cmp_obs);
	/* per (path, size, metric): each tier's sigma, then the pooled one (tier -2) */
	for (int i = 0; rc == 0 && i < n;) {
		int j = i, first = i;

		while (j < n && o[j].path == o[i].path && o[j].size == o[i].size && o[j].metric == o[i].metric)
			j++;
		for (int t = first; rc == 0 && t < j;) {
			int u = t;

			while (u < j && o[u].tier == o[t].tier)
				u++;
			double med = residuals(o + t, u - t, tmp, nd), s;

			for (int k = t; k < u; k++)
				tmp[k - t] = o[k].lv;
			s = cmp_sigma(tmp, u - t);
			rc = key_add(nz, &o[t], s, u - t, isnan(s) ? NAN : med);
			t = u;
		}
		for (int k = first; k < j; k++)
			tmp[k - first] = o[k].lv;
		struct obs pooled = o[first];
		pooled.tier = -2;
		if (rc == 0)
			rc = key_add(nz, &pooled, cmp_sigma(tmp, j - first), j - first, NAN);
		i = j;
	}
out:
	free(o);
	free(tmp);
	free(nd);
	if (rc)
		cmp_noise_free(nz);
	return rc;
}

double cmp_noise_get(const struct cmp_noise *nz, int path, long long size, int metric, int tier)
{
	double pooled = NAN;

	for (int i = 0; i < nz->n; i++) {
		const struct cmp_noise_key *k = &nz->k[i];

		if (k->path != path || k->size != size || k->metric != metric)
			continue;
		if (k->tier == tier && !isnan(k->sigma))
			return k->sigma;
		if (k->tier == -2)
			pooled = k->sigma;
	}
	return isnan(pooled) ? CMP_SIGMA_DEFAULT : pooled;
}

double cmp_noise_level(const struct cmp_noise *nz, int path, long long size, int metric, int tier)
{
	for (int i = 0; i < nz->n; i++) {
		const struct cmp_noise_key *k = &nz->k[i];

		if (k->path == path && k->size == size && k->metric == metric && k->tier == tier)
			return exp(k->median);
	}
	return NAN;
}

void cmp_noise_free(struct cmp_noise *nz)
{
	free(nz->k);
	*nz = (struct cmp_noise){ 0 };
}

/* ---------------------------------------------------------------- collectives */

/* sigma of the residuals r[0..n) of one group: their median taken out (when 5 or more), then
 * cmp_sigma; CMP_SIGMA_DEFAULT when too few. Order-free: r is sorted on the way. */
static double coll_sigma_of(double *r, int n)
{
	double s;

	if (n >= 5) {
		double *t = malloc(sizeof *t * (size_t)n), med;

		if (t) {
			memcpy(t, r, sizeof *t * (size_t)n);
			med = median(t, n);
			for (int i = 0; i < n; i++)
				r[i] -= med;
			free(t);
		}
	}
	s = cmp_sigma(r, n);
	return isnan(s) ? CMP_SIGMA_DEFAULT : s;
}

/* The reference: one group, found by scanning every row for each of its rows (O(rows²) a
 * group; compare once called it twice per item: cubic). Kept for the unit test that
 * cmp_coll_noise_build gives the same figures. */
/* a row's group: the ids of its backend, path, op, dtype and redop */
static void group_of(const struct rd_coll *c, int *id)
{
	id[0] = c->backend, id[1] = c->path, id[2] = c->op, id[3] = c->dtype, id[4] = c->redop;
}

static int same_group(const struct rd_coll *a, const struct rd_coll *b)
{
	int x[CMP_COLL_GROUP], y[CMP_COLL_GROUP];

	group_of(a, x), group_of(b, y);
	return !memcmp(x, y, sizeof x);
}

double cmp_coll_sigma(const struct rundir *rd, const struct rd_coll *row)
{
	double *r = malloc(sizeof *r * (size_t)(rd->ncoll + 1)), s;
	int n = 0;

	if (!r)
		return CMP_SIGMA_DEFAULT;
	for (int i = 0; i < rd->ncoll; i++) {
		const struct rd_coll *a = &rd->coll[i];

		if (!same_group(a, row) || a->in_place || !(a->busbw > 0))
			continue;
		for (int j = 0; j < rd->ncoll; j++) {
			const struct rd_coll *b = &rd->coll[j];

			if (same_group(b, row) && b->in_place && b->size == a->size && b->busbw > 0)
				r[n++] = (log(b->busbw) - log(a->busbw)) / sqrt(2.0);
		}
	}
	s = coll_sigma_of(r, n);
	free(r);
	return s;
}

/* rows by group (ids of one run), then size, then in_place */
static int cmp_coll_row(const void *x, const void *y, void *ctx)
{
	const struct rd_coll *c = ctx, *a = &c[*(const int *)x], *b = &c[*(const int *)y];
	int ka[CMP_COLL_GROUP], kb[CMP_COLL_GROUP];

	group_of(a, ka), group_of(b, kb);
	for (int i = 0; i < CMP_COLL_GROUP; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return a->in_place - b->in_place;
}

/* Residuals of one size's rows ix[0..n): each out-of-place figure against each in-place one. */
static int size_residuals(const struct rd_coll *c, const int *ix, int n, double *r)
{
	int m = 0;

	for (int i = 0; i < n; i++) {
		const struct rd_coll *a = &c[ix[i]];

		if (a->in_place || !(a->busbw > 0))
			continue;
		for (int j = 0; j < n; j++) {
			const struct rd_coll *b = &c[ix[j]];

			if (b->in_place && b->busbw > 0)
				r[m++] = (log(b->busbw) - log(a->busbw)) / sqrt(2.0);
		}
	}
	return m;
}

int cmp_coll_noise_build(const struct rundir *rd, struct cmp_coll_noise *nz)
{
	int n = rd->ncoll, rc = FP_ERUNTIME, nr = 0, rcap = 64;
	int *ix = malloc(sizeof *ix * (size_t)(n + 1));
	double *r = malloc(sizeof *r * (size_t)rcap); /* never NULL below: r + 0 on NULL is undefined */

	*nz = (struct cmp_coll_noise){ .k = malloc(sizeof *nz->k * (size_t)(n + 1)) };
	if (!ix || !r || !nz->k)
		goto out;
	for (int i = 0; i < n; i++)
		ix[i] = i;
	if (n)
		qsort_r(ix, (size_t)n, sizeof *ix, cmp_coll_row, rd->coll);
	for (int g = 0; g < n;) { /* a group: its sizes in turn */
		const struct rd_coll *first = &rd->coll[ix[g]];
		int e = g;

		nr = 0;
		while (e < n && same_group(&rd->coll[ix[e]], first))
			e++;
		for (int s = g; s < e;) {
			int t = s, outs = 0, ins = 0;

			for (; t < e && rd->coll[ix[t]].size == rd->coll[ix[s]].size; t++) {
				outs += !rd->coll[ix[t]].in_place;
				ins += rd->coll[ix[t]].in_place;
			}
			if (nr + outs * ins > rcap) {
				double *q = realloc(r, sizeof *q * (size_t)(rcap = 2 * (nr + outs * ins) + 64));

				if (!q)
					goto out;
				r = q;
			}
			nr += size_residuals(rd->coll, ix + s, t - s, r + nr);
			s = t;
		}
		nz->k[nz->n].sigma = coll_sigma_of(r, nr);
		group_of(first, nz->k[nz->n++].id);
		g = e;
	}
	rc = 0;
out:
	free(ix);
	free(r);
	if (rc)
		cmp_coll_noise_free(nz);
	return rc;
}

double cmp_coll_noise_get(const struct cmp_coll_noise *nz, const struct rd_coll *row)
{
	int key[CMP_COLL_GROUP], lo = 0, hi = nz->n;

	group_of(row, key);

	while (lo < hi) { /* the keys are in the order of cmp_coll_row */
		int mid = (lo + hi) / 2, c = 0;
		const struct cmp_coll_noise_key *k = &nz->k[mid];
		for (int i = 0; !c && i < CMP_COLL_GROUP; i++)
			c = k->id[i] != key[i] ? (k->id[i] < key[i] ? -1 : 1) : 0;
		if (!c)
			return k->sigma;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return CMP_SIGMA_DEFAULT;
}

void cmp_coll_noise_free(struct cmp_coll_noise *nz)
{
	free(nz->k);
	*nz = (struct cmp_coll_noise){ 0 };
}
