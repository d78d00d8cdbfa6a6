/* checks_stage.c — `run`'s judges (checks.h): the baseline comparison, the expectations and
 * the declared cabling. Before the confirmation pass, rank 0 names the pairs they suspect, so
 * that the pass measures them with the map's own candidates (one plan, one re-measurement,
 * docs/judging.md); the last stage judges the files, confirming figures included, and writes
 * the judges' files once. */
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
	struct run_out *ro;
	const struct p2p_opts *o;
	const struct world *w;
	struct rundir base, cur;
	int have_base, have_cur;
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

	if (s->have_base) {
		struct cmp_report rep;
		struct cmp_skip sk;

		if (checks_cmp(&s->base, &s->cur, &s->co, NULL, NULL, &rep, &sk))
			return FP_ERUNTIME;
		for (int i = 0; i < rep.nworse; i++)
			n = triple_add(s, t, n, rep.worse[i].path, rep.worse[i].a, rep.worse[i].b);
		cmp_report_free(&rep);
	}
	if (s->jo->accept) {
		struct acc_report rep;

		if (checks_acc(&s->cur, &s->jo->rules, NULL, &rep))
			return FP_ERUNTIME;
		for (int i = 0; i < rep.nfailed_pairs; i++)
			n = triple_add(s, t, n, rep.failed_pairs[i].path, rep.failed_pairs[i].a, rep.failed_pairs[i].b);
		acc_report_free(&rep);
	}
	return n;
}

/* Rank 0: read what the run wrote so far, and the baseline. */
static int load(struct jst *s)
{
	char err[RUNDIR_ERR_MAX];
	int rc;

	if ((rc = rundir_load(s->ro->dir, &s->cur, err))) {
		escape_term_line(stderr, "fabprobe: judging this run: %s", err);
		return rc;
	}
	s->have_cur = 1;
	if (s->jo->baseline) {
		if ((rc = rundir_load(s->jo->baseline, &s->base, err))) {
			escape_term_line(stderr, "fabprobe: --baseline: %s", err);
			return rc;
		}
		s->have_base = 1;
	}
	return 0;
}

/* Rank 0: the judges' files and summaries. */
static int finish(struct jst *s, struct verdict *v)
{
	int rc = 0, r;

	if (s->have_base)
		rc = checks_write_compare(s->jo->baseline, &s->base, s->ro->dir, &s->cur, s->ro->dir, &s->co, v);
	r = checks_run(s->jo, &s->cur, s->ro->dir, v);
	return rc < 0 ? rc : r < 0 ? r : rc | r;
}

int checks_suspected(const struct checks_opts *jo, const struct p2p_opts *o, const struct world *w,
		     const struct run_out *ro, int ntiers, const char *const *labels, int *t)
{
	struct jst s = { .jo = jo, .ro = (struct run_out *)ro, .o = o, .w = w,
			 .co = { .tolerance_pct = jo->tolerance_pct } };
	int n = load(&s);

	if (n == 0 && ntiers > 0 && (n = rundir_set_topology(&s.cur, w->nep, (const char *const *)w->labels, ntiers,
							     labels)) == FP_EUSAGE)
		n = FP_ERUNTIME; /* a map of its own making always has this shape */
	if (n == 0)
		n = candidates(&s, t);
	if (s.have_cur)
		rundir_free(&s.cur);
	if (s.have_base)
		rundir_free(&s.base);
	return n;
}

int checks_stage(struct world *w, struct run_out *ro, const struct checks_opts *jo, int skip, struct verdict *v)
{
	struct jst s = { .jo = jo, .ro = ro, .w = w, .co = { .tolerance_pct = jo->tolerance_pct } };
	int rc;

	if (skip || w->rank != 0)
		return 0;
	if ((rc = load(&s)) == 0)
		rc = finish(&s, v);
	if (s.have_cur)
		rundir_free(&s.cur);
	if (s.have_base)
		rundir_free(&s.base);
	return rc;
}
