/* rails_together.c — a node's rails all at once against the sum of each alone (rails.h). */
#include <math.h>
#include <stdlib.h>

#include "core/log.h"
#include "rails.h"

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* test k's ratio, or NAN when one of its figures is missing */
static double ratio_of(const struct rails_together_test *t)
{
	return isfinite(t->alone) && t->alone > 0 && isfinite(t->together) && t->together >= 0 ? t->together / t->alone
												 : NAN;
}

/* The tests of each (node, direction) as lists: those of slot s = 2 * node + dir are
 * idx[at[s] .. at[s + 1]). Only tests with both figures. */
struct by_node {
	int *at, *idx;
};

static int by_node_make(int n, const struct rails_together_test *t, int nt, struct by_node *b)
{
	b->at = calloc(2 * (size_t)n + 2, sizeof *b->at);
	b->idx = malloc(sizeof *b->idx * (2 * (size_t)nt + 1));
	if (!b->at || !b->idx)
		return FP_ERUNTIME;
	for (int k = 0; k < nt; k++)
		if (!isnan(ratio_of(&t[k]))) {
			b->at[2 * t[k].from + 1]++;
			b->at[2 * t[k].to + 1 + 1]++;
		}
	for (int s = 0; s < 2 * n; s++)
		b->at[s + 1] += b->at[s];
	int *fill = calloc(2 * (size_t)n + 1, sizeof *fill);

	if (!fill)
		return FP_ERUNTIME;
	for (int k = 0; k < nt; k++)
		if (!isnan(ratio_of(&t[k]))) {
			int s = 2 * t[k].from, r = 2 * t[k].to + 1;

			b->idx[b->at[s] + fill[s]++] = k;
			b->idx[b->at[r] + fill[r]++] = k;
		}
	free(fill);
	return 0;
}

/* the partner of node x in test k */
static int partner(const struct rails_together_test *t, int x)
{
	return t->from == x ? t->to : t->from;
}

/* how many partners slot s met (its tests' other ends, each once) */
static int partners_of(const struct rails_together_test *t, const struct by_node *b, int s)
{
	int np = 0;

	for (int i = b->at[s]; i < b->at[s + 1]; i++) {
		int p = partner(&t[b->idx[i]], s / 2), seen = 0;

		for (int j = b->at[s]; j < i; j++)
			seen |= partner(&t[b->idx[j]], s / 2) == p;
		np += !seen;
	}
	return np;
}

static int judge(int n, const struct rails_together_test *t, const struct by_node *b, double lim, char *sh,
		 struct rails_together_report *rep)
{
	int active = 0;

	for (int s = 0; s < 2 * n; s++) {
		sh[s] = b->at[s + 1] > b->at[s];
		for (int i = b->at[s]; i < b->at[s + 1]; i++)
			sh[s] &= ratio_of(&t[b->idx[i]]) < lim;
	}
	for (int x = 0; x < n; x++)
		active += b->at[2 * x + 2] > b->at[2 * x];
	if (!(rep->sh = calloc(2 * (size_t)n + 1, sizeof *rep->sh)))
		return FP_ERUNTIME;
	for (int s = 0; s < 2 * n; s++) {
		int x = s / 2, d = s % 2, np = partners_of(t, b, s), free_partner = 0;
		double best = 0;

		if (!sh[s])
			continue;
		for (int i = b->at[s]; i < b->at[s + 1]; i++) {
			const struct rails_together_test *k = &t[b->idx[i]];

			free_partner |= !sh[2 * partner(k, x) + !d];
			best = fmax(best, ratio_of(k));
		}
		if (active == 2 && d == 0) /* two nodes: the pair, neither told */
			rep->sh[rep->nshort++] = (struct rails_together_short){ x, d, partner(&t[b->idx[b->at[s]]], x), np, best };
		else if (active > 2 && np >= 2 && free_partner)
			rep->sh[rep->nshort++] = (struct rails_together_short){ x, d, -1, np, best };
	}
	return 0;
}

int rails_together_judge(int n, const struct rails_together_test *t, int nt, double min_ratio,
			 struct rails_together_report *rep)
{
	struct by_node b = { 0 };
	double *q = NULL;
	char *sh = NULL;
	int rc = FP_ERUNTIME;

	*rep = (struct rails_together_report){ .median = NAN };
	if (n < 0 || nt < 0 || !(min_ratio >= 0 && min_ratio <= 1))
		return FP_EUSAGE;
	for (int k = 0; k < nt; k++)
		if (t[k].from < 0 || t[k].from >= n || t[k].to < 0 || t[k].to >= n || t[k].from == t[k].to)
			return FP_EUSAGE;
	if (!(q = malloc(sizeof *q * ((size_t)nt + 1))) || !(sh = calloc(2 * (size_t)n + 1, 1)) ||
	    by_node_make(n, t, nt, &b))
		goto out;
	for (int k = 0; k < nt; k++)
		if (!isnan(q[rep->ntests] = ratio_of(&t[k])))
			rep->ntests++;
	qsort(q, (size_t)rep->ntests, sizeof *q, dbl_cmp);
	if (rep->ntests)
		rep->median = rep->ntests % 2 ? q[rep->ntests / 2] : 0.5 * (q[rep->ntests / 2 - 1] + q[rep->ntests / 2]);
	rc = rep->ntests ? judge(n, t, &b, fmin(min_ratio, RAILS_TOGETHER_REL * rep->median), sh, rep) : 0;
out:
	free(q);
	free(sh);
	free(b.at);
	free(b.idx);
	if (rc)
		rails_together_free(rep);
	return rc;
}

void rails_together_free(struct rails_together_report *rep)
{
	free(rep->sh);
	rep->sh = NULL;
	rep->nshort = 0;
}
