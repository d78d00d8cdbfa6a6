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

/* Residuals of one group of observations (in place): deviation from the group's median,
 * less whichever clear node offset (or none) explains it best. */
static int residuals(struct obs *o, int n, double *tmp, struct node_dev *nd)
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
	return 0;
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

static int key_add(struct cmp_noise *nz, const struct obs *o, double sigma, int n)
{
	struct cmp_noise_key *q = realloc(nz->k, sizeof *q * (size_t)(nz->n + 1));

	if (!q)
		return FP_ERUNTIME;
	nz->k = q;
	q[nz->n++] = (struct cmp_noise_key){ o->path, o->size, o->metric, o->tier, sigma, n };
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
			residuals(o + t, u - t, tmp, nd);
			for (int k = t; k < u; k++)
				tmp[k - t] = o[k].lv;
			rc = key_add(nz, &o[t], cmp_sigma(tmp, u - t), u - t);
			t = u;
		}
		for (int k = first; k < j; k++)
			tmp[k - first] = o[k].lv;
		struct obs pooled = o[first];
		pooled.tier = -2;
		if (rc == 0)
			rc = key_add(nz, &pooled, cmp_sigma(tmp, j - first), j - first);
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

void cmp_noise_free(struct cmp_noise *nz)
{
	free(nz->k);
	*nz = (struct cmp_noise){ 0 };
}

/* ---------------------------------------------------------------- collectives */

double cmp_coll_sigma(const struct rundir *rd, int backend, int op, int dtype, int redop)
{
	double *r = malloc(sizeof *r * (size_t)(rd->ncoll + 1)), s;
	int n = 0;

	if (!r)
		return CMP_SIGMA_DEFAULT;
	for (int i = 0; i < rd->ncoll; i++) {
		const struct rd_coll *a = &rd->coll[i];

		if (a->backend != backend || a->op != op || a->dtype != dtype || a->redop != redop || a->in_place ||
		    !(a->busbw > 0))
			continue;
		for (int j = 0; j < rd->ncoll; j++) {
			const struct rd_coll *b = &rd->coll[j];

			if (b->backend == backend && b->op == op && b->dtype == dtype && b->redop == redop &&
			    b->in_place && b->size == a->size && b->busbw > 0)
				r[n++] = (log(b->busbw) - log(a->busbw)) / sqrt(2.0);
		}
	}
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
	free(r);
	return isnan(s) ? CMP_SIGMA_DEFAULT : s;
}
