/* rails.c — see rails.h. */
#include "rails.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* One rail's leaves as member lists: node i's leaf is leaf[i], its members mem[at[g]..at[g + 1]). A
 * map with one tier (no leaves told) has none: flat. */
struct leaves {
	int flat;
	const int *leaf;
	int *at, *mem;
};

int rails_leaf_tier(const struct infer_result *r)
{
	for (int t = 0; t < r->ntiers - 1; t++)
		if (!r->uncertain[t])
			return t;
	return -1;
}

static int leaves_make(const struct infer_result *r, int n, struct leaves *l)
{
	int ng = 0, t = rails_leaf_tier(r);

	*l = (struct leaves){ .flat = t < 0, .leaf = t < 0 ? NULL : r->group + (size_t)t * (size_t)n };
	if (l->flat)
		return 0;
	for (int i = 0; i < n; i++) {
		if (l->leaf[i] < 0 || l->leaf[i] >= n)
			return FP_EUSAGE; /* not a map's numbering */
		ng = l->leaf[i] >= ng ? l->leaf[i] + 1 : ng;
	}
	l->at = calloc((size_t)ng + 2, sizeof *l->at);
	l->mem = malloc(sizeof *l->mem * (size_t)(n > 0 ? n : 1));
	if (!l->at || !l->mem)
		return FP_ERUNTIME;
	for (int i = 0; i < n; i++)
		l->at[l->leaf[i] + 2]++;
	for (int g = 0; g < ng; g++)
		l->at[g + 2] += l->at[g + 1];
	for (int i = 0; i < n; i++) /* at[g + 1] walks group g's slots, ending at its end */
		l->mem[l->at[l->leaf[i] + 1]++] = i;
	return 0;
}

/* Node i against the others: agree[j], the rails that put j in i's leaf (touched: the nodes of
 * its leaves, stamped). Returns its peers (agree in half the rails or more); *some: a rail puts
 * it with another node. */
static int unit_of(const struct leaves *lv, int nrails, int nflat, int n, int i, int *agree, int *stamp,
		   int *some)
{
	int peers = 0;

	*some = nflat > 0 && n > 1;
	if (2 * nflat >= nrails) /* half the rails tell no leaves: every node agrees with i */
		return n - 1;
	for (int r = 0; r < nrails; r++)
		for (int k = 0; !lv[r].flat && k < lv[r].at[lv[r].leaf[i] + 1] - lv[r].at[lv[r].leaf[i]]; k++) {
			int j = lv[r].mem[lv[r].at[lv[r].leaf[i]] + k];

			if (j == i)
				continue;
			if (stamp[j] != i + 1)
				stamp[j] = i + 1, agree[j] = nflat;
			agree[j]++;
			*some = 1;
			peers += 2 * agree[j] == nrails || 2 * agree[j] == nrails + 1; /* counted as it crosses half */
		}
	return peers;
}

/* whether rail r puts i with one of its peers (agree, stamped as unit_of left them) */
static int with_peer(const struct leaves *l, int nrails, int nflat, int i, const int *agree, const int *stamp)
{
	if (l->flat)
		return 1;
	if (2 * nflat >= nrails) /* every node is a peer: any other in its leaf */
		return l->at[l->leaf[i] + 1] - l->at[l->leaf[i]] > 1;
	for (int k = l->at[l->leaf[i]]; k < l->at[l->leaf[i] + 1]; k++)
		if (l->mem[k] != i && stamp[l->mem[k]] == i + 1 && 2 * agree[l->mem[k]] >= nrails)
			return 1;
	return 0;
}

/* the ports of node i off their rails' leaves into rep; 0 or FP_ERUNTIME */
static int off_add(struct rails_report *rep, int *cap, int i, const int *off, int noff)
{
	for (int k = 0; k < noff; k++) {
		if (rep->noff == *cap) {
			struct rail_off *o = realloc(rep->off, sizeof *o * (size_t)(*cap = *cap * 2 + 8));

			if (!o)
				return FP_ERUNTIME;
			rep->off = o;
		}
		rep->off[rep->noff++] = (struct rail_off){ i, off[k], noff == 2 ? off[1 - k] : -1 };
	}
	return 0;
}

int rails_judge(int nrails, int n, const struct infer_result *const *maps, struct rails_report *rep)
{
	struct leaves lv[RAILS_MAX] = { 0 };
	int *agree = calloc((size_t)(n > 0 ? n : 1), sizeof *agree), cap = 0, nflat = 0, rc = 0;
	int *stamp = calloc((size_t)(n > 0 ? n : 1), sizeof *stamp);
	int *lone = calloc((size_t)(n > 0 ? n : 1), sizeof *lone);

	memset(rep, 0, sizeof *rep);
	rep->nrails = nrails;
	rep->n = n;
	rep->alone = lone;
	rc = !agree || !stamp || !lone ? FP_ERUNTIME : nrails < 3 || nrails > RAILS_MAX ? FP_EUSAGE : 0;
	for (int r = 0; rc == 0 && r < nrails; r++)
		rc = !maps[r] || maps[r]->n != n ? FP_EUSAGE : leaves_make(maps[r], n, &lv[r]);
	for (int r = 0; rc == 0 && r < nrails; r++)
		nflat += lv[r].flat;
	for (int i = 0; rc == 0 && i < n; i++) {
		int some, off[RAILS_MAX], noff = 0;

		if (!unit_of(lv, nrails, nflat, n, i, agree, stamp, &some)) {
			if (some) /* alone in every rail: a unit of its own; with some, its rails disagree */
				lone[rep->nalone++] = i;
			continue;
		}
		rep->judged++;
		for (int r = 0; r < nrails; r++)
			if (!with_peer(&lv[r], nrails, nflat, i, agree, stamp))
				off[noff++] = r;
		rc = off_add(rep, &cap, i, off, noff);
	}
	for (int r = 0; r < RAILS_MAX; r++) {
		free(lv[r].at);
		free(lv[r].mem);
	}
	free(agree);
	free(stamp);
	if (rc)
		rails_report_free(rep);
	return rc;
}

void rails_report_free(struct rails_report *rep)
{
	free(rep->off);
	free(rep->alone);
	rep->off = NULL;
	rep->alone = NULL;
	rep->noff = rep->nalone = 0;
}

static int rnf_cmp(const void *a, const void *b)
{
	const struct rail_node_finding *x = a, *y = b;

	if (x->node != y->node)
		return (x->node > y->node) - (x->node < y->node);
	if (x->kind != y->kind)
		return (x->kind > y->kind) - (x->kind < y->kind);
	return (x->rails > y->rails) - (x->rails < y->rails); /* one rail each: the first rail first */
}

int rails_node_findings(int nrails, const struct susp_list *const *held, struct rail_node_finding **out, int *nout)
{
	struct rail_node_finding *f;
	size_t total = 0;
	int n = 0, m = 0;

	*out = NULL;
	*nout = 0;
	if (nrails < 1 || nrails > RAILS_MAX)
		return FP_EUSAGE;
	for (int r = 0; r < nrails; r++)
		total += held[r] ? (size_t)held[r]->n : 0;
	if (!(f = malloc(sizeof *f * (total ? total : 1))))
		return FP_ERUNTIME;
	for (int r = 0; r < nrails; r++)
		for (int k = 0; held[r] && k < held[r]->n; k++)
			if (susp_on_node(&held[r]->s[k])) {
				const struct suspect *x = &held[r]->s[k];

				f[n++] = (struct rail_node_finding){ x->a, x->kind, 1u << r, 0,
								     isfinite(x->value2) ? x->value2 : x->value };
			}
	qsort(f, (size_t)n, sizeof *f, rnf_cmp);
	for (int k = 0; k < n; k++) {
		if (m && f[m - 1].node == f[k].node && f[m - 1].kind == f[k].kind)
			f[m - 1].rails |= f[k].rails;
		else
			f[m++] = f[k];
	}
	for (int k = 0; k < m; k++)
		f[k].ports = 2 * __builtin_popcount(f[k].rails) < nrails;
	*out = f;
	*nout = m;
	return 0;
}
