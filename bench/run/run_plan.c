/* run_plan.c — `run`'s bandwidth stage (run_stage.h; docs/measurement.md, "At scale"). With
 * --plan map (or auto above RUN_PLAN_AUTO_MIN endpoints) the pairs stage measures latency
 * alone, over all pairs; the map of each path then plans its bandwidth pairs
 * (fabric/plan/plan.h), which the endpoints measure step by step, a step's pairs at once, into
 * p2p_bw.csv; rank 0 puts their figures into the path's matrices and maps the path again, with
 * its bandwidth. With --plan all, the pairs stage measured everything and this stage does
 * nothing. The loaded pass (--loaded, stage `loaded`, after the order) is here too: every node
 * in a pair at once, its own files, never merged into the isolated figures nor judged. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "run_stage.h"

enum { O_PLAN = 1, O_PLAN_PEERS, O_PLAN_GROUPS, O_UPLINK_STREAMS, O_LOADED, O_TEST_SPLIT };

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
	case O_LOADED:
		c->loaded = 1;
		return 0;
	case O_TEST_SPLIT:
		c->test_split_leaves = 1;
		return 0;
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
		{ "loaded", no_argument, NULL, O_LOADED },
		{ "test-split-leaves", no_argument, NULL, O_TEST_SPLIT },
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

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Whether an earlier plan of the path measured the pair (a, b) (the confirmation's pairs do
 * not count: their rows are not in p2p_bw.csv, where the plan's are read back) */
static int measured(const struct run_planned *was, int n, int a, int b)
{
	long long key = a < b ? (long long)a * n + b : (long long)b * n + a;

	return was->npairs && bsearch(&key, was->pair, was->npairs, sizeof key, cmp_ll);
}

/* rank 0: the pairs of a plan into the path's list of those measured. 0 or FP_ERUNTIME. */
static int measured_add(struct run_planned *was, int n, const int *pairs, int np)
{
	long long *p = realloc(was->pair, sizeof *p * (was->npairs + (size_t)np + 1));

	if (!p)
		return FP_ERUNTIME;
	was->pair = p;
	for (int k = 0; k < np; k++) {
		int a = pairs[2 * k], b = pairs[2 * k + 1];

		p[was->npairs++] = a < b ? (long long)a * n + b : (long long)b * n + a;
	}
	qsort(p, was->npairs, sizeof *p, cmp_ll);
	return 0;
}

/* Path i's map to plan from: the first one, or (again) the confirmed one when its tree is not
 * the one planned before; NULL: nothing to plan again. */
static const struct infer_result *plan_map(const struct run_state *st, int i, int again)
{
	const struct infer_result *r = again ? run_maps_map(&st->mp, i) : &st->mp.p[i].r1;
	const struct run_planned *was = &st->planned[i];

	if (!again)
		return st->mp.p[i].have_r1 && r->group ? r : NULL;
	if (!r || !r->group || !was->group)
		return NULL;
	return plan_same_tree(r->group, r->ntiers, was->group, was->ntiers, r->n) ? NULL : r;
}

/* rank 0: the tree a path's plan was made from, kept to compare the confirmed map with */
static int planned_keep(struct run_planned *was, const int *group, int ntiers, int n)
{
	int *g = malloc(sizeof *g * ((size_t)ntiers * (size_t)n + 1));

	if (!g)
		return FP_ERUNTIME;
	memcpy(g, group, sizeof *g * (size_t)ntiers * (size_t)n);
	free(was->group);
	was->group = g;
	was->ntiers = ntiers;
	return 0;
}

/* What one path's packed plan kept: pairs, steps (those inside leaves), pairs inside leaves. */
struct pack_count {
	int kept, steps, isteps;
	long long inside;
};

/* One path's plan p (n endpoints) into buf from *k on: its pair and step counts, the step
 * boundaries (a step of more pairs than cap in flight split), the pairs, less those measured
 * already (before the map was drawn again: was), which then count as measured. 0 or
 * FP_ERUNTIME. */
static int plan_pack_path(const struct plan *p, int n, int cap, struct run_planned *was, int *buf, int *k,
			  struct pack_count *pc)
{
	int at = *k, *pairs = malloc(sizeof *pairs * (2 * (size_t)p->s.npairs + 1)), rc;

	*pc = (struct pack_count){ 0 };
	if (!pairs)
		return FP_ERUNTIME;
	*k += 2; /* npairs and nsteps, once counted */
	for (int s = 0; s < p->s.nsteps; s++) {
		int in = 0;

		for (int j = p->s.step_first[s]; j < p->s.step_first[s + 1]; j++) {
			int a = p->s.pair[j].a, b = p->s.pair[j].b;

			if (measured(was, n, a, b))
				continue;
			if (in == 0 || in == cap) {
				buf[(*k)++] = pc->kept;
				pc->steps++;
				pc->isteps += s < p->intra_steps;
				in = 0;
			}
			pairs[2 * pc->kept] = a;
			pairs[2 * pc->kept + 1] = b;
			pc->kept++;
			in++;
			pc->inside += s < p->intra_steps;
		}
	}
	buf[(*k)++] = pc->kept;
	buf[at] = pc->kept;
	buf[at + 1] = pc->steps;
	memcpy(buf + *k, pairs, sizeof *pairs * 2 * (size_t)pc->kept);
	*k += 2 * pc->kept;
	rc = measured_add(was, n, pairs, pc->kept);
	free(pairs);
	return rc;
}

/* rank 0: what a path's bandwidth plan measures, on the terminal */
static void plan_say(const struct run_opts *c, const char *path, const struct plan *p, int again,
		     const struct pack_count *pc)
{
	long long all = 0;

	for (int t = 0; t < p->ntiers; t++)
		all += p->all_pairs[t];
	printf("run: bandwidth plan for %s %s (%d tier%s): %d %sof its %lld pairs (%.1f%%), "
	       "%lld inside leaves, %lld across; %d steps (%d of them inside leaves, before -c); each node against "
	       "%d node%s of up to %d sibling groups a tier, at most %d pair%s at once through a "
	       "leaf's uplink\n",
	       path, again ? "again, from its confirmed map: a tree other than the one planned" : "from its map",
	       p->ntiers, p->ntiers == 1 ? "" : "s", pc->kept, again ? "more " : "", all,
	       all ? 100.0 * (double)pc->kept / (double)all : 0.0, pc->inside, pc->kept - pc->inside,
	       pc->steps, pc->isteps, c->plan.peers, c->plan.peers == 1 ? "" : "s",
	       c->plan.groups, c->plan.uplink_streams, c->plan.uplink_streams == 1 ? "" : "s");
}

/* rank 0: each path's plan from its map (again: only where the confirmed map is another tree;
 * a path with no map: every pair, as one group) into pl, map[i] the map it was made from, and
 * the ints the packed plans need. 0 or FP_ERUNTIME. */
static int plans_make(struct run_state *st, int again, struct plan *pl, const struct infer_result **map,
		      size_t *need, int *differs)
{
	int np = st->mp.npaths, rc = 0;
	int *flat = np > 0 ? calloc((size_t)st->mp.p[0].m->n + 1, sizeof *flat) : NULL;

	if (!flat)
		rc = FP_ERUNTIME;
	for (int i = 0; i < np && rc == 0; i++) {
		const struct infer_result *r = map[i] = plan_map(st, i, again);
		int n = st->mp.p[i].m->n;

		*differs += r != NULL;
		if (r)
			rc = plan_bandwidth(r->group, r->ntiers, r->n, &st->c->plan, &pl[i]);
		else if (!again)
			rc = plan_bandwidth(flat, 1, n, &st->c->plan, &pl[i]);
		if (rc == 0 && (r || !again))
			rc = r ? planned_keep(&st->planned[i], r->group, r->ntiers, n) : planned_keep(&st->planned[i], flat, 1, n);
		*need += 2 + (size_t)pl[i].s.nsteps + (size_t)pl[i].s.npairs + 1 + 2 * (size_t)pl[i].s.npairs;
	}
	free(flat);
	return rc;
}

/* Each path's plan into ints: npaths, then per path npairs, nsteps, step_first[0..nsteps],
 * the pairs (a, b), the pairs already measured left out; said on the terminal. Again (after
 * the confirmation): only the paths whose confirmed map is not the tree planned before, each
 * other path with no pair; *len 0 when every path's confirmed map is its planned tree. A path
 * whose new plan was measured already has no pair either, but the plan is sent: the
 * candidates are made again and confirmed again all the same. NULL when out of memory. */
static int *plans_pack(struct run_state *st, const struct run_out *ro, int again, int *len, double *est)
{
	const struct run_opts *c = st->c;
	struct plan pl[P2P_PATHS_MAX];
	const struct infer_result *map[P2P_PATHS_MAX];
	size_t need = 1;
	int np = st->mp.npaths, *buf = NULL, k = 1, differs = 0;
	int cap = c->p2p.concurrency > 0 ? (int)c->p2p.concurrency : INT_MAX;

	memset(pl, 0, sizeof pl);
	if (plans_make(st, again, pl, map, &need, &differs) == 0 && need < (size_t)1 << 30 &&
	    (buf = malloc(sizeof *buf * need))) {
		buf[0] = np;
		for (int i = 0; i < np; i++) {
			const struct p2p_matrices *m = st->mp.p[i].m;
			struct pack_count pc;

			if (plan_pack_path(&pl[i], m->n, cap, &st->planned[i], buf, &k, &pc)) {
				free(buf);
				buf = NULL;
				break;
			}
			est[i] = plan_estimate(c, ro, m, map[i] ? map[i] : &st->mp.p[i].r1, pc.steps);
			if (!again || map[i])
				plan_say(c, m->path, &pl[i], again, &pc);
		}
		*len = again && !differs ? 0 : k;
	}
	for (int i = 0; i < np; i++)
		plan_free(&pl[i]);
	fflush(stdout);
	return buf;
}

/* rank 0: the plan's bandwidth into the first figures' matrices (by path name), its failures
 * counted; then every path mapped again, with its bandwidth (again: at no less noise than its
 * confirmed map was drawn with, the map planned from). 0 or FP_ERUNTIME. */
static int plans_merge(struct run_state *st, struct p2p_result *got, const char *const *labels, int again)
{
	double noise[P2P_PATHS_MAX] = { 0 };

	for (int i = 0; again && i < st->mp.npaths && i < P2P_PATHS_MAX; i++)
		noise[i] = st->mp.p[i].noise_us;
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
	return run_maps_first(&st->mp, &st->res, labels, noise, !again && st->c->test_split_leaves);
}

/* ---------------------------------------------------------------- the stage */

int run_plan_measure(struct world *w, struct run_out *ro, const struct run_opts *c, int **buf, int *len,
			const double *est, const char *csv, const char *what, struct p2p_plan *pl,
			struct p2p_result *got, int *prc)
{
	struct p2p_opts bw;
	int rc;

	*prc = 0;
	p2p_opts_only(&c->p2p, 0, 1, &bw);
	if ((rc = run_ints_share(w, buf, len)) == 0 && (rc = p2p_plan_unpack(*buf, *len, &c->p2p, w->nep, pl)))
		LOG_ERROR("%s did not unpack", what);
	pl->csv = csv;
	pl->what = what;
	for (int i = 0; est && i < pl->npaths && i < P2P_PATHS_MAX; i++)
		pl->est_s[i] = est[i];
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	if (rc == 0 && w->my_ep >= 0 && pl->npaths > 0)
		*prc = p2p_plan_main(&bw, pl, w, ro, w->rank == 0 ? got : NULL);
	return *prc == FP_ETIMEDOUT ? FP_ETIMEDOUT : rc;
}

/* Every rank: rank 0 plans each path from its map (again: from its confirmed map, where that
 * is another tree) and sends the plans; the endpoints measure them (bandwidth sizes alone,
 * into p2p_bw.csv, continued the second time); rank 0 merges and maps again. A failed pair is
 * found (1), as in the pairs stage; a run-time failure anywhere is every rank's. Returns 0,
 * 1 when a plan was measured, or FP_E*. */
static int plan_pass(struct world *w, struct run_out *ro, struct run_state *st, int again)
{
	struct p2p_plan pl = { .append = again };
	struct p2p_result got = { 0 };
	double est[P2P_PATHS_MAX] = { 0 };
	int *buf = NULL, len = FP_ERUNTIME, rc, prc;

	if (w->rank == 0 && !(buf = plans_pack(st, ro, again, &len, est)))
		LOG_ERROR("out of memory for the bandwidth plan of %d endpoints", w->nep);
	if ((rc = run_plan_measure(w, ro, st->c, &buf, &len, est, "p2p_bw.csv", "bandwidth plan:", &pl, &got, &prc)) ==
	    FP_ETIMEDOUT)
		goto out;
	if (rc == 0 && pl.npaths == 0) /* again, and every confirmed map is the tree planned */
		goto out;
	if (rc == 0 && prc >= 0 && w->rank == 0 && plans_merge(st, &got, w->labels, again))
		rc = FP_ERUNTIME;
	rc = rc ? rc : prc < 0 ? prc : 0;
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	if (rc == 0 && prc == 1)
		st->prc = st->prc ? st->prc : 1; /* a planned pair failed: the pairs did */
out:
	free(buf);
	p2p_plan_free(&pl);
	p2p_result_free(&got);
	return rc < 0 ? (st->prc = rc) : pl.npaths > 0;
}

static int run_plan_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	int rc = st->c->planned ? plan_pass(w, ro, st, 0) : 0;

	return rc < 0 ? rc : 0;
}

int run_plan_refill(struct world *w, struct run_out *ro, struct run_state *st)
{
	return st->c->planned ? plan_pass(w, ro, st, 1) : 0;
}

/* (no `on`: its check decides whether it is planned, and runs whatever the options) */
const struct run_stage run_stage_bandwidth = { .name = "bandwidth", .opts = run_plan_options, .check = run_plan_check,
						.step = run_plan_step };
