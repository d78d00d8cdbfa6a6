/* rundir_same.c — two models of a run alike (rundir.h's rundir_same). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rundir.h"

/* floats alike: both NAN, or equal */
static int same_f(double x, double y)
{
	return (isnan(x) && isnan(y)) || x == y;
}

#define SAME_STR(f) (!strcmp(a->tab.str[p->f], b->tab.str[q->f]))

static int same_p2p(const struct rundir *a, const struct rd_p2p *p, const struct rundir *b, const struct rd_p2p *q)
{
	int ok = SAME_STR(path) && SAME_STR(kind) && SAME_STR(src) && SAME_STR(dst) && SAME_STR(status) &&
		 SAME_STR(src_dev) && SAME_STR(dst_dev) && p->size == q->size && p->ok == q->ok &&
		 same_f(p->line_rate, q->line_rate) && !strcmp(p->file, q->file);

	for (int m = 0; ok && m < RD_NMETRIC; m++)
		ok = same_f(p->v[m], q->v[m]) && same_f(p->retest[m], q->retest[m]);
	return ok;
}

static int same_coll(const struct rundir *a, const struct rd_coll *p, const struct rundir *b, const struct rd_coll *q)
{
	return SAME_STR(backend) && SAME_STR(op) && SAME_STR(dtype) && SAME_STR(redop) && SAME_STR(status) &&
	       SAME_STR(root) && SAME_STR(path) && p->size == q->size && p->in_place == q->in_place &&
	       p->nranks == q->nranks && same_f(p->busbw, q->busbw) && p->wrong == q->wrong;
}

static int same_node(const struct rundir *a, const struct rd_node *p, const struct rundir *b, const struct rd_node *q)
{
	return SAME_STR(host) && SAME_STR(kernel) && SAME_STR(mpi) && SAME_STR(cpu) && p->gpus == q->gpus &&
	       p->nics == q->nics;
}

static int same_nic(const struct rundir *a, const struct rd_nic *p, const struct rundir *b, const struct rd_nic *q)
{
	return SAME_STR(host) && SAME_STR(name) && SAME_STR(kind) && SAME_STR(fw) && p->up == q->up &&
	       p->is_virtual == q->is_virtual && same_f(p->rate, q->rate) && same_f(p->width, q->width) &&
	       same_f(p->mtu, q->mtu);
}

/* the topologies hold the same hosts in the same groups, tier by tier (in any row order) */
static int same_topo(const struct rundir *a, const struct rundir *b)
{
	const struct rd_topo *t = &a->topo, *u = &b->topo;

	if (t->n != u->n || t->ntiers != u->ntiers)
		return 0;
	for (int k = 0; k < t->ntiers; k++)
		if (strcmp(t->tier_name[k], u->tier_name[k]))
			return 0;
	for (int i = 0; i < t->n; i++) {
		int id = rundir_find(b, a->tab.str[t->host[i]]), j = id < 0 ? -1 : b->topo_of[id];

		if (j < 0)
			return 0;
		for (int k = 0; k < t->ntiers; k++)
			if (strcmp(a->tab.str[t->group[(size_t)k * t->n + i]], b->tab.str[u->group[(size_t)k * u->n + j]]))
				return 0;
	}
	return 1;
}

int rundir_same(const struct rundir *a, const struct rundir *b, char *why, size_t len)
{
	const char *what = NULL;
	long at = -1;

	if (a->has_p2p != b->has_p2p || a->has_topo != b->has_topo || a->has_coll != b->has_coll ||
	    a->has_nodes != b->has_nodes || a->has_nics != b->has_nics)
		what = "the files held";
	else if (a->np2p != b->np2p || a->nretest != b->nretest)
		what = "the count of p2p or retest rows";
	else if (a->ncoll != b->ncoll || a->nnode != b->nnode || a->nnic != b->nnic)
		what = "the count of collectives, nodes or NICs";
	else if (a->has_topo && !same_topo(a, b))
		what = "topology";
	for (size_t i = 0; !what && i < a->np2p; i++)
		if (!same_p2p(a, &a->p2p[i], b, &b->p2p[i]))
			what = "p2p row", at = (long)i;
	for (int i = 0; !what && i < a->ncoll; i++)
		if (!same_coll(a, &a->coll[i], b, &b->coll[i]))
			what = "collectives row", at = i;
	for (int i = 0; !what && i < a->nnode; i++)
		if (!same_node(a, &a->node[i], b, &b->node[i]))
			what = "nodes row", at = i;
	for (int i = 0; !what && i < a->nnic; i++)
		if (!same_nic(a, &a->nic[i], b, &b->nic[i]))
			what = "nics row", at = i;
	if (what && at >= 0)
		snprintf(why, len, "%s %ld differs", what, at);
	else if (what)
		snprintf(why, len, "%s differ", what);
	return !what;
}

