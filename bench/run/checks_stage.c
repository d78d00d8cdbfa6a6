/* checks_stage.c — `run`'s last stage (checks.h): the baseline comparison, the expectations and
 * the declared cabling, with every suspected regression or failed pair measured again before
 * it counts (docs/judging.md: a finding is confirmed before it is reported). Rank 0 judges; every
 * endpoint takes part in the retests; ranks that wait sleep. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "core/run.h"
#include "core/world.h"
#include "fabric/judge/accept.h"
#include "fabric/judge/expect.h"
#include "fabric/io/p2p_csv.h"
#include "checks.h"
#include "p2p/p2p.h"
#include "p2p/sched.h"

#define RETEST_MAX 64 /* pairs per round: beyond that a change is plainly not noise */

/* Rank 0's state. */
struct jst {
	const struct checks_opts *jo;
	struct run_out *ro;
	const struct p2p_opts *o;
	const struct world *w;
	struct rundir base, cur;
	int have_base, have_cur;
	struct cmp_opts co;
	FILE *retest_csv;
};

/* Broadcast n ints from rank 0, the others asleep while they wait. */
static int bcast_sleepy(int *v, int n)
{
	MPI_Request req;

	CHECK_MPI(MPI_Ibcast(v, n, MPI_INT, 0, MPI_COMM_WORLD, &req));
	return mpi_wait_sleepy(&req, 0);
}

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

	if (p < 0 || x < 0 || y < 0 || x == y || n >= RETEST_MAX)
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

/* Rank 0: read what the run wrote (again, after retests). */
static int load(struct jst *s, int first)
{
	char err[RUNDIR_ERR_MAX];
	int rc;

	if (s->have_cur)
		rundir_free(&s->cur);
	s->have_cur = 0;
	if ((rc = rundir_load(s->ro->dir, &s->cur, err))) {
		escape_term_line(stderr, "fabprobe: judging this run: %s", err);
		return rc;
	}
	s->have_cur = 1;
	if (!first)
		return 0;
	if (s->jo->baseline) {
		if ((rc = rundir_load(s->jo->baseline, &s->base, err))) {
			escape_term_line(stderr, "fabprobe: --baseline: %s", err);
			return rc;
		}
		s->have_base = 1;
	}
	return 0;
}

/* Rank 0: a path's matrices from the run's rows, each cell the best of the first figure and
 * its retests (lowest latency, highest bandwidth), in endpoint order (ep: string id -> endpoint). */
static void matrices_from(const struct rundir *cur, const int *ep, struct p2p_matrices *m)
{
	int pid = rundir_find(cur, m->path);
	long long lat_size = -1, bw_size = -1;

	for (size_t i = 0; pid >= 0 && i < cur->np2p; i++) {
		const struct rd_p2p *p = &cur->p2p[i];

		if (p->path != pid)
			continue;
		if (!isnan(p->v[RD_LAT_MIN]) && (lat_size < 0 || p->size < lat_size))
			lat_size = p->size;
		if (!isnan(p->v[RD_BW]) && p->size > bw_size)
			bw_size = p->size;
	}
	for (size_t i = 0; pid >= 0 && i < cur->np2p; i++) {
		const struct rd_p2p *p = &cur->p2p[i];
		int a = ep[p->src], b = ep[p->dst];
		size_t c = (size_t)a * (size_t)m->n + (size_t)b;

		if (p->path != pid || a < 0 || b < 0 || !p->ok)
			continue;
		if (p->size == lat_size) {
			m->lat_min[c] = isnan(p->retest[RD_LAT_MIN]) ? p->v[RD_LAT_MIN]
								     : fminf(p->v[RD_LAT_MIN], p->retest[RD_LAT_MIN]);
			m->lat_p50[c] = isnan(p->retest[RD_LAT_P50]) ? p->v[RD_LAT_P50]
								     : fminf(p->v[RD_LAT_P50], p->retest[RD_LAT_P50]);
		}
		if (p->size == bw_size)
			m->bw[c] = isnan(p->retest[RD_BW]) ? p->v[RD_BW] : fmaxf(p->v[RD_BW], p->retest[RD_BW]);
	}
}

/* Rank 0: the latency map again from the confirmed figures of every path, then the run read
 * again (its topology.csv changed). */
static int remap_run(struct jst *s, struct world *w, const struct checks_remap *remap)
{
	struct p2p_result res = { 0 };
	int *ep = malloc(sizeof *ep * (size_t)s->cur.tab.n), rc = 0;

	if (!ep)
		return FP_ERUNTIME;
	for (int i = 0; i < s->cur.tab.n; i++)
		ep[i] = -1;
	for (int e = 0; e < w->nep; e++) {
		int id = rundir_find(&s->cur, w->labels[e]);

		if (id >= 0)
			ep[id] = e;
	}
	for (int i = 0; rc == 0 && i < s->o->npaths; i++)
		if ((rc = p2p_matrices_init(&res.path[i], s->o->paths[i], w->nep)) == 0) {
			res.npaths++;
			matrices_from(&s->cur, ep, &res.path[i]);
		}
	free(ep);
	if (rc == 0) {
		printf("\nlatency map again, from the best figure of each pair:\n");
		rc = remap->fn(remap->arg, w, s->ro, &res);
	}
	p2p_result_free(&res);
	return rc < 0 ? rc : load(s, 0);
}

/* Every rank learns the worst of rc, asleep while it waits. */
static int agree_all(int rc)
{
	MPI_Request req;

	CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req));
	int wrc = mpi_wait_sleepy(&req, 0);
	return wrc ? wrc : rc;
}

/* Every endpoint: measure the broadcast pairs again, path by path. */
static int retest(struct jst *s, struct world *w, const int *t, int n)
{
	struct sched_pair *pairs = malloc(sizeof *pairs * (size_t)(n + 1));
	int rc = pairs ? 0 : FP_ERUNTIME;

	if (rc == 0 && w->rank == 0 && !s->retest_csv) {
		if (!(s->retest_csv = results_open(s->ro->dir, "p2p_retest.csv")))
			rc = FP_ERUNTIME;
		else
			p2p_csv_header(s->retest_csv);
	}
	rc = agree_all(rc);
	for (int p = 0; rc == 0 && p < s->o->npaths; p++) {
		int m = 0;

		for (int i = 0; i < n; i++)
			if (t[3 * i] == p)
				pairs[m++] = (struct sched_pair){ t[3 * i + 1], t[3 * i + 2] };
		if (m) /* agreed among the endpoints; the others wait below */
			rc = p2p_retest(s->o, w, s->ro, s->retest_csv, s->o->paths[p], pairs, m);
	}
	free(pairs);
	if (rc == FP_ETIMEDOUT)
		return rc; /* an endpoint hung: the job cannot go on together */
	return agree_all(rc);
}

/* Rank 0: the judges' files and summaries. */
static int finish(struct jst *s, char *verdict, size_t vlen)
{
	int rc = 0, r;

	if (s->have_base) {
		r = checks_write_compare(s->jo->baseline, &s->base, s->ro->dir, &s->cur, s->ro->dir, &s->co, verdict, vlen);
		rc = r < 0 ? r : rc | r;
	}
	if (s->jo->accept) {
		r = checks_write_accept(&s->cur, &s->jo->rules, s->jo->allow_unjudged, s->ro->dir, verdict, vlen);
		rc = rc < 0 ? rc : r < 0 ? r : rc | r;
	}
	if (s->jo->declared) {
		r = checks_write_declared(s->jo->declared, &s->jo->decl, &s->cur, s->ro->dir, verdict, vlen);
		rc = rc < 0 ? rc : r < 0 ? r : rc | r;
	}
	return rc;
}

int checks_stage(struct world *w, struct run_out *ro, const struct checks_opts *jo, const struct p2p_opts *o,
		const struct checks_remap *remap, int skip, char *verdict, size_t vlen)
{
	struct jst s = { .jo = jo, .ro = ro, .o = o, .w = w, .co = { .tolerance_pct = jo->tolerance_pct } };
	int t[3 * RETEST_MAX + 1], rc = skip ? 1 : 0, n, retested = 0;

	if (w->rank == 0 && !skip)
		rc = load(&s, 1);
	if ((n = bcast_sleepy(&rc, 1)) || rc) /* an earlier stage failed, or the files could not be read */
		goto out;
	for (int round = 0;; round++) {
		/* rank 0 says how many pairs to measure again: 0 when done, < 0 after an error */
		n = w->rank != 0 ? 0 : rc ? rc : round < jo->retests ? candidates(&s, t) : 0;
		if (w->rank == 0 && n > 0)
			printf("\nconfirming: %d suspected pair%s measured again (round %d of at most %ld)\n", n,
			       n == 1 ? "" : "s", round + 1, jo->retests);
		fflush(stdout);
		if ((rc = bcast_sleepy(&n, 1)) || n <= 0 || (rc = bcast_sleepy(t, 3 * n)))
			break;
		if ((rc = retest(&s, w, t, n))) /* agreed by every rank */
			break;
		if (w->rank == 0)
			rc = load(&s, 0);
		retested = 1;
	}
	if (n < 0)
		rc = n;
	/* the map once more, from the confirmed figures (a stall during one pair can misplace a node) */
	if (w->rank == 0 && rc == 0 && retested && remap && s.cur.has_topo)
		rc = remap_run(&s, w, remap);
	if (w->rank == 0 && s.retest_csv && results_close(s.retest_csv, ro->dir, "p2p_retest.csv") && rc == 0)
		rc = FP_ERUNTIME;
	if (w->rank == 0 && rc == 0)
		rc = finish(&s, verdict, vlen);
out:
	if (s.have_cur)
		rundir_free(&s.cur);
	if (s.have_base)
		rundir_free(&s.base);
	if (skip || w->rank != 0)
		return 0;
	return rc;
}
