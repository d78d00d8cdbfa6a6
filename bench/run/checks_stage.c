/* checks_stage.c — `run`'s judges (checks.h): the baseline comparison, the expectations and
 * the declared cabling, over the run's own model (made from what its writers wrote, never read
 * back from its directory) and the baseline read once before the run. Before the confirmation
 * pass, rank 0 names the pairs they suspect, so that the pass measures them with the map's own
 * candidates (one plan, one re-measurement, docs/judging.md); the last stage judges the model,
 * confirming figures included, and writes the judges' files once. */
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/run.h"
#include "core/world.h"
#include "fabric/judge/accept.h"
#include "fabric/judge/expect.h"
#include "checks.h"
#include "p2p/p2p.h"

/* Rank 0's state. */
struct jst {
	const struct checks_opts *jo;
	const struct p2p_opts *o;
	const struct world *w;
	const char *dir;             /* the run's results directory: the judges' files go there */
	const struct rundir *base;   /* the baseline, read once before the run (NULL: none) */
	const struct rundir *cur;    /* the run's own model */
	struct cmp_opts co;
};

static int ep_of(const struct world *w, const char *label)
{
	for (int e = 0; e < w->nep; e++)
		if (!strcmp(w->labels[e], label))
			return e;
	return -1;
}

static int path_of(const struct p2p_opts *o, const char *path)
{
	for (int i = 0; i < o->npaths; i++)
		if (!strcmp(o->paths[i], path))
			return i;
	return -1;
}

/* Add (path, a, b) to the triples unless there already or unknown; returns the count. */
static int triple_add(const struct jst *s, int *t, int n, const char *path, const char *a, const char *b)
{
	int p = path_of(s->o, path), x = ep_of(s->w, a), y = ep_of(s->w, b);

	if (p < 0 || x < 0 || y < 0 || x == y || n >= CHECKS_SUSPECTED_MAX)
		return n;
	if (x > y) {
		int z = x;
		x = y;
		y = z;
	}
	for (int i = 0; i < n; i++)
		if (t[3 * i] == p && t[3 * i + 1] == x && t[3 * i + 2] == y)
			return n;
	t[3 * n] = p;
	t[3 * n + 1] = x;
	t[3 * n + 2] = y;
	return n + 1;
}

/* Rank 0: the pairs still suspected (worse than the baseline, or failing a rule). */
static int candidates(struct jst *s, int *t)
{
	int n = 0;

	if (s->base) {
		struct cmp_report rep;
		struct cmp_skip sk;

		if (checks_cmp(s->base, s->cur, &s->co, NULL, NULL, &rep, &sk))
			return FP_ERUNTIME;
		for (int i = 0; i < rep.nworse; i++)
			n = triple_add(s, t, n, rep.worse[i].path, rep.worse[i].a, rep.worse[i].b);
		cmp_report_free(&rep);
	}
	if (s->jo->accept) {
		struct acc_report rep;

		if (checks_acc(s->cur, &s->jo->rules, NULL, &rep))
			return FP_ERUNTIME;
		for (int i = 0; i < rep.nfailed_pairs; i++)
			n = triple_add(s, t, n, rep.failed_pairs[i].path, rep.failed_pairs[i].a, rep.failed_pairs[i].b);
		acc_report_free(&rep);
	}
	return n;
}

int checks_base_load(struct checks_opts *jo)
{
	char err[RUNDIR_ERR_MAX];
	int rc;

	if (!jo->baseline || jo->base)
		return 0;
	if (!(jo->base = malloc(sizeof *jo->base)))
		return FP_ERUNTIME;
	if ((rc = rundir_load(jo->baseline, jo->base, err))) {
		escape_term_line(stderr, "fabprobe run: --baseline: %s", err);
		free(jo->base);
		jo->base = NULL;
	}
	return rc;
}

int checks_suspected(const struct checks_opts *jo, const struct p2p_opts *o, const struct world *w,
		     struct rundir *cur, int ntiers, const char *const *labels, int *t)
{
	struct jst s = { .jo = jo, .o = o, .w = w, .base = jo->base, .cur = cur,
			 .co = { .tolerance_pct = jo->tolerance_pct } };
	char err[RUNDIR_ERR_MAX];
	int rc = 0;

	if (ntiers > 0 && (rc = rundir_set_topology(cur, w->nep, (const char *const *)w->labels, ntiers, labels)))
		return FP_ERUNTIME; /* a map of its own making always has this shape */
	if ((rc = rundir_index(cur, err))) {
		escape_term_line(stderr, "fabprobe: judging this run: %s", err);
		return rc;
	}
	return candidates(&s, t);
}

int checks_stage(struct world *w, struct run_out *ro, const struct checks_opts *jo, int skip, struct rundir *cur,
		 struct verdict *v)
{
	struct cmp_opts co = { .tolerance_pct = jo->tolerance_pct };
	char err[RUNDIR_ERR_MAX];
	int rc = 0, r;

	if (skip || w->rank != 0)
		return 0;
	if ((rc = rundir_index(cur, err))) {
		escape_term_line(stderr, "fabprobe: judging this run: %s", err);
		return rc;
	}
	if (jo->base)
		rc = checks_write_compare(jo->baseline, jo->base, ro->dir, cur, ro->dir, &co, v);
	r = checks_run(jo, cur, ro->dir, v);
	return rc < 0 ? rc : r < 0 ? r : rc | r;
}
