/* run_plan.c — `run`'s bandwidth stage (run_stage.h; docs/measurement.md#at-scale). With
 * --plan map (or auto above RUN_PLAN_AUTO_MIN endpoints) the pairs stage measures latency
 * alone, over all pairs; the map of each path then plans its bandwidth pairs
 * (fabric/plan/plan.h), which the endpoints measure step by step, a step's pairs at once, into
 * p2p_bw.csv; rank 0 puts their figures into the path's matrices and maps the path again, with
 * its bandwidth. With --plan all, the pairs stage measured everything and this stage does
 * nothing. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/mpi_util.h"
#include "run_stage.h"

enum { O_PLAN = 1, O_PLAN_PEERS, O_PLAN_GROUPS, O_UPLINK_STREAMS };

static int run_plan_take(void *ctx, int val, const char *arg, char *err)
{
	struct run_opts *c = ctx;
	long v;
	int rc;

	switch (val) {
	case O_PLAN:
		if (!strcmp(arg, "all"))
			c->plan_mode = RUN_PLAN_ALL;
		else if (!strcmp(arg, "map"))
			c->plan_mode = RUN_PLAN_MAP;
		else if (!strcmp(arg, "auto"))
			c->plan_mode = RUN_PLAN_AUTO;
		else
			OPTS_FAIL("--plan: '%.40s' is not one of all, map, auto", arg);
		return 0;
	case O_PLAN_PEERS:
		rc = opts_long("--plan-peers", arg, 1, 64, &v, err);
		c->plan.peers = (int)v;
		return rc;
	case O_PLAN_GROUPS:
		rc = opts_long("--plan-groups", arg, 1, 4096, &v, err);
		c->plan.groups = (int)v;
		return rc;
	case O_UPLINK_STREAMS:
		rc = opts_long("--uplink-streams", arg, 1, 4096, &v, err);
		c->plan.uplink_streams = (int)v;
		return rc;
	default: OPTS_FAIL("internal: option %d is not one of the bandwidth plan's", val);
	}
}

static int run_plan_options(struct run_opts *c, struct opts_group *g)
{
	static const struct option lo[] = {
		{ "plan", required_argument, NULL, O_PLAN },
		{ "plan-peers", required_argument, NULL, O_PLAN_PEERS },
		{ "plan-groups", required_argument, NULL, O_PLAN_GROUPS },
		{ "uplink-streams", required_argument, NULL, O_UPLINK_STREAMS },
		{ NULL, 0, NULL, 0 },
	};

	c->plan_mode = RUN_PLAN_AUTO;
	plan_opts_default(&c->plan);
	*g = (struct opts_group){ .longopts = lo, .take = run_plan_take, .ctx = c };
	return 1;
}

/* Before the run: planned or not, by --plan and the endpoints; the map needs latency, and a
 * plan needs bandwidth sizes to measure. */
static int run_plan_check(struct world *w, struct run_opts *c)
{
	int lat = 0, bw = 0, both = 0;

	for (int i = 0; i < c->p2p.nsizes; i++) {
		lat |= c->p2p.sizes[i].lat;
		bw |= c->p2p.sizes[i].bw;
		both |= c->p2p.sizes[i].lat && c->p2p.sizes[i].bw;
	}
	/* a size of both kinds would have rows in p2p.csv and in p2p_bw.csv alike */
	if (both && c->plan_mode != RUN_PLAN_ALL) {
		if (w->rank == 0 && c->plan_mode == RUN_PLAN_MAP)
			LOG_ERROR("--plan map: a size is in both -l and -s; the map's plan measures them apart");
		if (c->plan_mode == RUN_PLAN_MAP)
			return FP_EUSAGE;
		bw = 0; /* auto: every pair, as before */
	}
	if (c->plan_mode == RUN_PLAN_MAP && !lat) {
		if (w->rank == 0)
			LOG_ERROR("--plan map: the map that plans the bandwidth needs latency sizes (-l)");
		return FP_EUSAGE;
	}
	c->planned = bw && lat && !w->single_node &&
		     (c->plan_mode == RUN_PLAN_MAP || (c->plan_mode == RUN_PLAN_AUTO && w->nep > RUN_PLAN_AUTO_MIN));
	if (c->planned)
		p2p_opts_only(&c->p2p, 1, 0, &c->p2p_lat);
	if (w->rank == 0 && c->plan_mode == RUN_PLAN_MAP && !c->planned)
		printf("run: --plan map: %s; every pair measured\n",
		       w->single_node ? "one node has no switch tree to plan by" : "no bandwidth sizes (-s none)");
	return 0;
}

/* ---------------------------------------------------------------- rank 0: plans */

/* The estimate of a plan's steps: a pair's bandwidth sizes at the path's slowest tier's latency
 * and its line rate (1.25 GB/s when unknown: 10 Gbit/s), plus the engine's own time per step as
 * the latency pass measured it. */
static double plan_estimate(const struct run_opts *c, const struct run_out *ro, const struct p2p_matrices *m,
			    const struct infer_result *r, int nsteps)
{
	struct p2p_opts bw;
	double lat = r->ntiers > 0 ? r->lat_p50_us[r->ntiers > 1 ? r->ntiers - 2 : 0] : NAN;
	double GBps = m->line_rate_Gbps > 0 ? 0.9 * m->line_rate_Gbps / 8 : 1.25;
	double engine = ro->engine.steps ? (ro->engine.sync_s + ro->engine.write_s) / (double)ro->engine.steps : 0;

	p2p_opts_only(&c->p2p, 0, 1, &bw);
	return (double)nsteps * (p2p_pair_estimate(&bw, isnan(lat) || lat <= 0 ? 20 : lat, GBps) + engine);
}

/* Each path's plan into ints: npaths, then per path npairs, nsteps, step_first[0..nsteps],
 * the pairs (a, b); said on the terminal. NULL when out of memory. */
static int *plans_pack(const struct run_state *st, const struct run_out *ro, int *len, double *est)
{
	const struct run_opts *c = st->c;
	struct plan pl[P2P_PATHS_MAX];
	size_t need = 1;
	int np = st->mp.npaths, *buf = NULL, k = 1, rc = 0;

	memset(pl, 0, sizeof pl);
	int *flat = calloc((size_t)st->mp.p[0].m->n + 1, sizeof *flat);

	for (int i = 0; i < np && rc == 0 && flat; i++) {
		const struct infer_result *r = &st->mp.p[i].r1;

		/* a path the map could not be made for: every pair, as one group */
		rc = st->mp.p[i].have_r1 && r->group ? plan_bandwidth(r->group, r->ntiers, r->n, &c->plan, &pl[i])
						      : plan_bandwidth(flat, 1, st->mp.p[i].m->n, &c->plan, &pl[i]);
		need += 2 + (size_t)pl[i].s.nsteps + (size_t)pl[i].s.npairs + 1 + 2 * (size_t)pl[i].s.npairs;
	}
	free(flat);
	if (rc == 0 && flat && need < (size_t)1 << 30 && (buf = malloc(sizeof *buf * need))) {
		buf[0] = np;
		for (int i = 0; i < np; i++) {
			const struct plan *p = &pl[i];
			long long all = 0, across = 0;

			int at = k + 1, steps = 0, cap = c->p2p.concurrency > 0 ? (int)c->p2p.concurrency : INT_MAX;

			buf[k++] = p->s.npairs;
			k++; /* the steps, once counted */
			/* a step of more pairs than -c allows in flight: split */
			for (int s = 0; s < p->s.nsteps; s++)
				for (int j = p->s.step_first[s], e = p->s.step_first[s + 1]; j < e; j = e - j > cap ? j + cap : e, steps++)
					buf[k++] = j;
			buf[k++] = p->s.npairs;
			buf[at] = steps;
			for (int j = 0; j < p->s.npairs; j++) {
				buf[k++] = p->s.pair[j].a;
				buf[k++] = p->s.pair[j].b;
			}
			for (int t = 0; t < p->ntiers; t++)
				all += p->all_pairs[t];
			across = p->s.npairs - p->tier_pairs[0];
			est[i] = plan_estimate(c, ro, st->mp.p[i].m, &st->mp.p[i].r1, steps);
			printf("run: bandwidth plan for %s from its map (%d tier%s): %d of its %lld pairs (%.1f%%), "
			       "%lld inside leaves, %lld across; %d steps (%d of them inside leaves, before -c); each node against "
			       "%d node%s of up to %d sibling groups a tier, at most %d pair%s at once through a "
			       "leaf's uplink\n",
			       st->mp.p[i].m->path, p->ntiers, p->ntiers == 1 ? "" : "s", p->s.npairs, all,
			       all ? 100.0 * (double)p->s.npairs / (double)all : 0.0, p->tier_pairs[0], across,
			       steps, p->intra_steps, c->plan.peers, c->plan.peers == 1 ? "" : "s",
			       c->plan.groups, c->plan.uplink_streams, c->plan.uplink_streams == 1 ? "" : "s");
		}
		*len = k;
	}
	for (int i = 0; i < np; i++)
		plan_free(&pl[i]);
	fflush(stdout);
	return buf;
}

/* Every rank: the ints into a p2p plan over the paths measured (the pairs checked against the
 * endpoints). 0 or FP_ERUNTIME. */
static int plans_unpack(const int *buf, int len, const struct p2p_opts *o, int nep, struct p2p_plan *pl)
{
	int k = 1;

	memset(pl, 0, sizeof *pl);
	pl->csv = "p2p_bw.csv";
	pl->what = "bandwidth plan:";
	pl->npaths = len > 0 ? buf[0] : -1;
	if (pl->npaths < 0 || pl->npaths > o->npaths)
		return FP_ERUNTIME;
	for (int i = 0; i < pl->npaths; i++) {
		int np = k < len ? buf[k++] : -1, ns = k < len ? buf[k++] : -1;

		if (np < 0 || ns < 0 || (long)k + ns + 1 + 2L * np > len)
			return FP_ERUNTIME;
		snprintf(pl->path[i], sizeof pl->path[i], "%s", o->paths[i]);
		pl->npairs[i] = np;
		pl->nsteps[i] = ns;
		pl->step_first[i] = malloc(sizeof *pl->step_first[i] * ((size_t)ns + 1));
		pl->pair[i] = malloc(sizeof *pl->pair[i] * ((size_t)np + 1));
		if (!pl->step_first[i] || !pl->pair[i])
			return FP_ERUNTIME;
		for (int s = 0; s <= ns; s++)
			pl->step_first[i][s] = buf[k++];
		for (int j = 0; j < np; j++, k += 2) {
			if (buf[k] < 0 || buf[k] >= buf[k + 1] || buf[k + 1] >= nep)
				return FP_ERUNTIME;
			pl->pair[i][j] = (struct sched_pair){ buf[k], buf[k + 1] };
		}
		if (ns > 0 && (pl->step_first[i][0] != 0 || pl->step_first[i][ns] != np))
			return FP_ERUNTIME;
	}
	return 0;
}

static void plans_free(struct p2p_plan *pl)
{
	for (int i = 0; i < pl->npaths && i < P2P_PATHS_MAX; i++) {
		free(pl->pair[i]);
		free(pl->step_first[i]);
	}
}

/* rank 0: the plan's bandwidth into the first figures' matrices (by path name), its failures
 * counted; then every path mapped again, with its bandwidth. 0 or FP_ERUNTIME. */
static int plans_merge(struct run_state *st, struct p2p_result *got, const char *const *labels)
{
	for (int k = 0; k < got->npaths; k++)
		for (int i = 0; i < st->res.npaths; i++) {
			struct p2p_matrices *m = &st->res.path[i];
			const struct p2p_matrices *b = &got->path[k];

			if (strcmp(m->path, b->path) || m->n != b->n)
				continue;
			for (size_t x = 0; x < (size_t)m->n * (size_t)m->n; x++)
				if (!isnan(b->bw[x]))
					m->bw[x] = b->bw[x];
			m->failed += b->failed;
		}
	run_maps_free(&st->mp);
	return run_maps_first(&st->mp, &st->res, labels);
}

/* ---------------------------------------------------------------- the stage */

/* Every rank: rank 0 plans each path from its map and sends the plans; the endpoints measure
 * them (bandwidth sizes alone); rank 0 merges and maps again. A failed pair is found (1), as
 * in the pairs stage; a run-time failure anywhere is every rank's. */
static int run_plan_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	struct p2p_opts bw;
	struct p2p_plan pl = { 0 };
	struct p2p_result got = { 0 };
	double est[P2P_PATHS_MAX] = { 0 };
	int *buf = NULL, len = FP_ERUNTIME, rc = 0, prc = 0;

	if (!st->c->planned)
		return 0;
	p2p_opts_only(&st->c->p2p, 0, 1, &bw);
	if (w->rank == 0 && !(buf = plans_pack(st, ro, &len, est)))
		LOG_ERROR("out of memory for the bandwidth plan of %d endpoints", w->nep);
	if ((rc = run_ints_share(w, &buf, &len)) == 0 && (rc = plans_unpack(buf, len, &st->c->p2p, w->nep, &pl)))
		LOG_ERROR("the bandwidth plan did not unpack");
	for (int i = 0; i < pl.npaths && i < P2P_PATHS_MAX; i++)
		pl.est_s[i] = est[i];
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	if (rc == 0 && w->my_ep >= 0)
		prc = p2p_plan_main(&bw, &pl, w, ro, w->rank == 0 ? &got : NULL);
	if (prc == FP_ETIMEDOUT) {
		rc = prc;
		goto out;
	}
	if (rc == 0 && prc >= 0 && w->rank == 0 && plans_merge(st, &got, w->labels))
		rc = FP_ERUNTIME;
	rc = rc ? rc : prc < 0 ? prc : 0;
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	if (rc == 0 && prc == 1)
		st->prc = st->prc ? st->prc : 1; /* a planned pair failed: the pairs did */
out:
	free(buf);
	plans_free(&pl);
	p2p_result_free(&got);
	return rc < 0 ? (st->prc = rc) : 0;
}

/* (no `on`: its check decides whether it is planned, and runs whatever the options) */
const struct run_stage run_stage_bandwidth = { .name = "bandwidth", .opts = run_plan_options, .check = run_plan_check,
						.step = run_plan_step };
