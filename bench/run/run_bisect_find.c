/* run_bisect_find.c — the groups the loaded pass found slow, to bisect (run_bisect_int.h): per
 * tier, the streams across each group's uplink against the tier's reference; the slowest groups
 * of the highest tier first, their known-good partners. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "run_bisect_int.h"

static int fcmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* the q quantile of v (sorted in place), interpolated; NAN when empty */
double bis_quantile(float *v, int n, double q)
{
	double at = q * (n - 1);
	int i = (int)at;

	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, fcmp);
	return i + 1 < n ? v[i] + (at - i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* ---------------------------------------------------------------- the candidates */

struct bis_dir {
	int g, node;
	float bw;
};

static int dir_cmp(const void *a, const void *b)
{
	const struct bis_dir *x = a, *y = b;

	return x->g != y->g ? (x->g > y->g) - (x->g < y->g) : (x->node > y->node) - (x->node < y->node);
}

/* Level L's groups in the loaded matrix lm: each one's median stream across its uplink (med,
 * NAN with fewer than 2 directions) and the streams that crossed at once (its members with
 * such a direction). 0 or FP_ERUNTIME. */
static int level_stats(const struct infer_result *r, const float *lm, int L, double *med, int *streams)
{
	int n = r->n, G = r->ngroups[L], nd = 0;
	/* the loaded pass measures 3 rounds of both directions: 3n cells, two entries each */
	size_t cap = 8 * (size_t)n + 8;
	struct bis_dir *d = malloc(sizeof *d * cap);
	float *v = malloc(sizeof *v * cap);

	if (!d || !v) {
		free(d);
		free(v);
		return FP_ERUNTIME;
	}
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			float x = lm[(size_t)a * n + b];

			if (a == b || isnan(x) || infer_pair_tier(r->group, r->ntiers, n, a, b) != L + 1)
				continue;
			if ((size_t)nd + 2 > cap)
				break;
			d[nd++] = (struct bis_dir){ r->group[(size_t)L * n + a], a, x };
			d[nd++] = (struct bis_dir){ r->group[(size_t)L * n + b], b, x };
		}
	qsort(d, (size_t)nd, sizeof *d, dir_cmp);
	for (int g = 0; g < G; g++)
		med[g] = NAN, streams[g] = 0;
	for (int i = 0, j; i < nd; i = j) {
		int m = 0, s = 0;

		for (j = i; j < nd && d[j].g == d[i].g; j++) {
			v[m++] = d[j].bw;
			s += j == i || d[j].node != d[j - 1].node;
		}
		if (d[i].g >= 0 && d[i].g < G && m >= 2) {
			med[d[i].g] = bis_quantile(v, m, 0.5);
			streams[d[i].g] = s;
		}
	}
	free(d);
	free(v);
	return 0;
}

/* the nodes no partner may be: the isolated pass's held suspects (an uplink's: its group) */
static void mark_suspects(const struct run_path_map *pm, const struct infer_result *r, unsigned char *bad)
{
	for (int i = 0; i < pm->held.n; i++) {
		const struct suspect *s = &pm->held.s[i];

		if (s->kind == SUSPECT_LOW_BW_UPLINK && s->rule >= 0 && s->rule < r->ntiers && s->a >= 0 && s->a < r->n) {
			for (int e = 0; e < r->n; e++)
				if (r->group[(size_t)s->rule * r->n + e] == r->group[(size_t)s->rule * r->n + s->a])
					bad[e] = 1;
			continue;
		}
		if (s->a >= 0 && s->a < r->n)
			bad[s->a] = 1;
		if (s->b >= 0 && s->b < r->n)
			bad[s->b] = 1;
	}
}

/* candidate c's members and its known-good partners (siblings first), its thresholds */
static int group_setup(struct bis_group *c, const struct infer_result *r, const unsigned char *bad,
		       const unsigned char *failing, double agg)
{
	int n = r->n, L = c->level, up = L + 1 < r->ntiers ? L + 1 : -1, ptier = L + 1;

	c->k = 0;
	if (!(c->member = malloc(sizeof *c->member * ((size_t)n + 1))) ||
	    !(c->partner = malloc(sizeof *c->partner * ((size_t)n + 1))))
		return FP_ERUNTIME;
	for (int i = 0; i < n; i++) {
		int e = r->order ? r->order[i] : i;

		if (r->group[(size_t)L * n + e] == c->g)
			c->member[c->k++] = e;
	}
	c->good = 0;
	for (int pass = 0; pass < 2 && c->k > 0; pass++)
		for (int i = 0; i < n && c->good < c->k; i++) {
			int e = r->order ? r->order[i] : i, ge = r->group[(size_t)L * n + e];
			int sib = up >= 0 && r->group[(size_t)up * n + e] == r->group[(size_t)up * n + c->member[0]];

			if (ge == c->g || bad[e] || failing[ge] || sib != !pass)
				continue;
			c->partner[c->good++] = e;
			int t = infer_pair_tier(r->group, r->ntiers, n, c->member[0], e);

			ptier = t > ptier ? t : ptier;
		}
	bisect_init(&c->b, c->k, ptier < r->ntiers ? r->bw_p75_GBps[ptier] : NAN, agg, BISECT_FRAC);
	if (c->good < c->k) {
		free(c->partner);
		c->partner = NULL;
	}
	return 0;
}

/* Path bp's candidates from its loaded matrix lm. 0 or FP_ERUNTIME. */
int bis_find(struct bis_path *bp, const struct run_path_map *pm, const float *lm, const char *const *labels)
{
	const struct infer_result *r = bp->r;
	int n = r->n, rc = 0;
	unsigned char *bad = calloc((size_t)n + 1, 1), *failing = calloc((size_t)n + 1, 1);
	double *med = malloc(sizeof *med * ((size_t)n + 1));
	int *streams = malloc(sizeof *streams * ((size_t)n + 1));
	float *v = malloc(sizeof *v * ((size_t)n + 1)), *a = malloc(sizeof *a * ((size_t)n + 1));
	struct emit_topo et = { .n = n, .hosts = labels, .tree = r };

	if (!bad || !failing || !med || !streams || !v || !a)
		rc = FP_ERUNTIME;
	if (rc == 0)
		mark_suspects(pm, r, bad);
	for (int L = r->ntiers - 2; L >= 0 && rc == 0; L--) {
		int G = r->ngroups[L], nv = 0, first = bp->ngrp;
		double ref, agg;

		if ((rc = level_stats(r, lm, L, med, streams)))
			break;
		for (int g = 0; g < G; g++)
			if (!isnan(med[g])) {
				v[nv] = (float)med[g];
				a[nv++] = (float)(med[g] * streams[g]);
			}
		if (nv < 2)
			continue;
		ref = bis_quantile(v, nv, 0.75);
		agg = bis_quantile(a, nv, 0.75);
		memset(failing, 0, (size_t)n + 1);
		for (int g = 0; g < G; g++)
			failing[g] = !isnan(med[g]) && med[g] < BISECT_FRAC * ref;
		for (int g = 0; g < G && rc == 0; g++) {
			if (!failing[g] || bp->ngrp >= BISECT_GROUPS_MAX)
				continue;
			/* the slowest of this tier first */
			int at = bp->ngrp++;

			while (at > first && bp->grp[at - 1].med > med[g]) {
				bp->grp[at] = bp->grp[at - 1];
				at--;
			}
			bp->grp[at] = (struct bis_group){ .level = L, .g = g, .med = med[g], .ref = ref };
			emit_group_name(&et, L, g, bp->grp[at].name);
		}
		for (int i = first; i < bp->ngrp && rc == 0; i++)
			rc = group_setup(&bp->grp[i], r, bad, failing, agg);
	}
	if (rc == 0 && bp->ngrp && !(bp->v = malloc(sizeof *bp->v * (2 * (size_t)n + 4 * BISECT_DIRS_MIN))))
		rc = FP_ERUNTIME;
	free(bad);
	free(failing);
	free(med);
	free(streams);
	free(v);
	free(a);
	return rc;
}

