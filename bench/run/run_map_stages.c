/* run_map_stages.c — `run`'s stages over the latency maps (run_stage.h): map (each path's first
 * map and its candidates), confirm (the candidates and the judges' suspected pairs re-measured
 * alone, in one plan), outputs (the maps' files, the scheduler files, meta.json's members) and
 * checks (the judges, on the files with the confirming figures). */
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "fabric/emit/emit.h"
#include "fabric/judge/rails.h"
#include "run_stage.h"

/* ---------------------------------------------------------------- map */

/* rank 0: each path's first map and its candidates, agreed by every rank (asleep). */
static int run_map_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	int mrc = 0;

	(void)ro;
	if (w->rank == 0 && (st->res.npaths == 0 ||
			     (mrc = run_maps_first(&st->mp, &st->res, w->labels, NULL, st->c->test_split_leaves))))
		mrc = mrc ? mrc : FP_ERUNTIME;
	if (mpi_allreduce_sleepy(&mrc, MPI_MIN, MPI_COMM_WORLD) || mrc)
		return st->mrc = FP_ERUNTIME;
	return 0;
}

const struct run_stage run_stage_map = { .name = "map", .step = run_map_step };

/* ---------------------------------------------------------------- confirm */

enum { O_CONFIRM_TIME = 1, O_CONFIRM_FACTOR, O_NO_CONFIRM };

/* --confirm-time, --confirm-factor, --no-confirm. */
static int run_confirm_take(void *ctx, int val, const char *arg, char *err)
{
	struct run_opts *c = ctx;

	switch (val) {
	case O_CONFIRM_TIME: return opts_seconds("--confirm-time", arg, 86400, &c->confirm_time, err);
	case O_CONFIRM_FACTOR: return opts_long("--confirm-factor", arg, 1, 100, &c->confirm_factor, err);
	case O_NO_CONFIRM: c->no_confirm = 1; return 0;
	default: OPTS_FAIL("internal: option %d is not one of the confirmation pass's", val);
	}
}

/* The confirmation pass's options into g. */
static int run_confirm_options(struct run_opts *c, struct opts_group *g)
{
	static const struct option lo[] = {
		{ "confirm-time", required_argument, NULL, O_CONFIRM_TIME },
		{ "confirm-factor", required_argument, NULL, O_CONFIRM_FACTOR },
		{ "no-confirm", no_argument, NULL, O_NO_CONFIRM },
		{ NULL, 0, NULL, 0 },
	};

	c->confirm_time = 120;
	c->confirm_factor = 2;
	*g = (struct opts_group){ .longopts = lo, .take = run_confirm_take, .ctx = c };
	return 1;
}

/* rank 0: the pairs the judges suspect in the first figures (checks_suspected), each pair's
 * tier from the compute path's first map; the count into *n (0 when no judge is asked for). */
static int run_judged(const struct run_opts *c, const struct world *w, struct run_state *st, int *t, int *n)
{
	struct run_maps *mp = &st->mp;
	const struct infer_result *r;
	char (*names)[EMIT_NAME_MAX] = NULL;
	const char **labels = NULL;
	int rc = 0;

	*n = 0;
	if (!checks_wanted(&c->checks) || !mp->npaths)
		return 0;
	run_maps_compute(mp);
	r = &mp->p[mp->compute].r1;
	struct emit_topo et = { .n = w->nep, .hosts = (const char *const *)w->labels, .tree = r };
	size_t cells = (size_t)w->nep * (size_t)r->ntiers;
	names = malloc(sizeof *names * (cells + 1));
	labels = malloc(sizeof *labels * (cells + 1));
	if (!names || !labels)
		rc = FP_ERUNTIME;
	for (size_t x = 0; rc == 0 && x < cells; x++) {
		int k = (int)(x / (size_t)w->nep);

		emit_group_name(&et, k, r->group[x], names[x]);
		labels[x] = names[x];
	}
	if (rc == 0 && st->model_rc) {
		escape_term_line(stderr, "fabprobe: judging this run: %s", st->model_err);
		rc = st->model_rc;
	}
	if (rc == 0 && (rc = checks_suspected(&c->checks, &c->p2p, w, &st->model, r->ntiers, labels, t)) >= 0) {
		*n = rc;
		rc = 0;
	}
	free(names);
	free(labels);
	return rc;
}

/* Every rank: the map's candidates and the judges' suspected pairs re-measured alone, in one
 * plan (with --no-confirm: the candidates count as found, said). */
static int run_confirm_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	const struct run_opts *c = st->c;
	int t[3 * CHECKS_SUSPECTED_MAX + 1], rc = 0;
	struct run_confirm_opts cf = { .off = c->no_confirm, .max_s = c->confirm_time, .factor = c->confirm_factor,
				       .judged = t, .judged_rounds = (int)c->checks.retests,
				       .judged_paths = c->p2p.paths };

	if (w->rank == 0)
		rc = run_judged(c, w, st, t, &cf.njudged);
	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD) || rc)
		return st->krc = rc < 0 ? rc : FP_ERUNTIME; /* a baseline or run that does not read: said */
	rc = run_confirm(&cf, &c->p2p, w, ro, &st->mp);
	/* a planned run whose confirmed map is another tree than the one its bandwidth was planned
	 * from (a leaf the latency pass split or joined): the candidates rest on pairs the new map
	 * does not plan, and miss some it does. The new map's plan is measured too, the candidates
	 * made again from every figure and confirmed again (once: the judges' pairs were) */
	int again = rc >= 0 && !c->no_confirm ? run_plan_refill(w, ro, st) : 0;

	if (again == 1) {
		cf.again = 1;
		cf.njudged = 0;
		int rc2 = run_confirm(&cf, &c->p2p, w, ro, &st->mp);

		rc = rc2 < 0 ? rc2 : rc > rc2 ? rc : rc2;
	}
	return st->krc = again < 0 ? again : rc;
}

const struct run_stage run_stage_confirm = { .name = "confirm", .opts = run_confirm_options, .step = run_confirm_step };

/* ---------------------------------------------------------------- outputs */

enum { O_SLOTS = 1, O_LABEL_PREFIX, O_K8S_TAINT, O_TOPOGRAPH };

/* --slots, --label-prefix, --k8s-taint, --topograph. */
static int run_outputs_take(void *ctx, int val, const char *arg, char *err)
{
	struct run_opts *c = ctx;

	if (val == O_K8S_TAINT || val == O_TOPOGRAPH) {
		*(val == O_K8S_TAINT ? &c->k8s_taint : &c->topograph) = 1;
		return 0;
	}
	if (val == O_SLOTS)
		return opts_long("--slots", arg, 1, 4096, &c->slots, err);
	if (!emit_label_prefix_ok(arg))
		OPTS_FAIL("--label-prefix: '%.100s' is not a DNS subdomain (lower case letters, "
			  "digits, '-' and '.')", arg);
	c->label_prefix = arg;
	return 0;
}

/* The outputs' options into g. */
static int run_outputs_options(struct run_opts *c, struct opts_group *g)
{
	static const struct option lo[] = {
		{ "slots", required_argument, NULL, O_SLOTS },
		{ "label-prefix", required_argument, NULL, O_LABEL_PREFIX },
		{ "k8s-taint", no_argument, NULL, O_K8S_TAINT },
		{ "topograph", no_argument, NULL, O_TOPOGRAPH },
		{ NULL, 0, NULL, 0 },
	};

	c->label_prefix = "fabprobe";
	*g = (struct opts_group){ .longopts = lo, .take = run_outputs_take, .ctx = c };
	return 1;
}

/* meta.json's members about the maps: the paths, the compute path and why */
static void run_meta_maps(struct run_out *ro, const struct run_maps *mp, int nsuspects)
{
	struct jw *j = &ro->meta_extra;

	jw_karray(j, "paths", 1);
	for (int i = 0; i < mp->npaths; i++)
		jw_str(j, mp->p[i].m->path);
	jw_end(j);
	jw_kstr(j, "compute_path", mp->npaths ? mp->p[mp->compute].m->path : "");
	jw_kstr(j, "compute_path_why", mp->compute_why);
	jw_kint(j, "confirmed_suspects", nsuspects);
}

/* rank 0: the maps' files and summaries; the confirmed suspects (total, and per kind in
 * `which`). Returns 0, 1 when suspects count, or FP_E* */
static int run_maps_out(const struct run_opts *c, const struct world *w, struct run_out *ro, struct run_maps *mp,
			const struct inv_found *inv, char *which, size_t wl)
{
	char how[512], when[32];
	const char **domain = inv->domain ? calloc((size_t)w->nep, sizeof *domain) : NULL;
	int rc, n;

	/* each endpoint's NVLink domain, by its name in the inventory */
	for (int e = 0; domain && e < w->nep; e++)
		for (int k = 0; k < inv->nnodes && !domain[e]; k++)
			if (!strcmp(inv->host[k], w->labels[e]) && inv->domain[k][0])
				domain[e] = inv->domain[k];

	run_maps_compute(mp);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	snprintf(how, sizeof how, "fabprobe %s run %s, path %s, started %s", FP_VERSION, ro->run_id,
		 mp->p[mp->compute].m->path, when);
	struct emit_topo t = { .n = w->nep, .hosts = w->labels,
			       .slots = (int)(c->slots ? c->slots : (w->size + w->nnodes - 1) / w->nnodes),
			       .label_prefix = c->label_prefix, .how = how, .topograph = c->topograph,
			       .domain = domain };
	rc = run_maps_write(mp, w, ro, &t);
	free(domain);
	if (rc == FP_EUSAGE)
		rc = 0; /* a format that cannot hold these names was said on stderr; the run stands */
	n = run_maps_verdict(mp, w->labels, which, wl);
	run_meta_maps(ro, mp, w->single_node ? 0 : n);
	/* on one node the map is of ranks (sockets, caches): informative, not a verdict */
	return rc ? rc : n && !w->single_node;
}

/* rank 0, once maps were drawn: their files. */
static int run_outputs_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	if (w->rank != 0 || !st->mp.npaths)
		return 0;
	return st->trc = run_maps_out(st->c, w, ro, &st->mp, &st->inv, st->which, sizeof st->which);
}

const struct run_stage run_stage_outputs = { .name = "outputs", .opts = run_outputs_options, .step = run_outputs_step };

/* ---------------------------------------------------------------- checks */

/* --test-model, --rails LIST (three or more paths), --rails-together-min PCT */
static int run_checks_take(void *ctx, int val, const char *arg, char *err)
{
	struct run_opts *c = ctx;
	int rc;

	if (val == 1) {
		c->test_model = 1;
		return 0;
	}
	if (val == 3) {
		double pct;

		if (strcmp(arg, "0") && (rc = opts_percent("--rails-together-min", arg, 100, &pct, err)))
			return rc;
		c->together_min = strcmp(arg, "0") ? pct / 100 : 0;
		return 0;
	}
	if ((rc = p2p_paths_parse("--rails", arg, c->rails, &c->nrails, err)))
		return rc;
	if (c->nrails < 3 || c->nrails > RAILS_MAX)
		OPTS_FAIL("--rails: %d paths: the rails are judged on 3 to %d (two cannot out-vote one)", c->nrails,
			  RAILS_MAX);
	return 0;
}

/* The judging options (checks.c), --test-model and --rails into g. */
static int run_checks_options(struct run_opts *c, struct opts_group *g)
{
	static const struct option lo[] = { { "test-model", no_argument, NULL, 1 },
					    { "rails", required_argument, NULL, 2 },
					    { "rails-together-min", required_argument, NULL, 3 }, { NULL, 0, NULL, 0 } };

	c->together_min = RUN_TOGETHER_MIN;

	g[0] = checks_opts_group(&c->checks, 1);
	g[1] = (struct opts_group){ .longopts = lo, .take = run_checks_take, .ctx = c };
	return 2;
}

/* rank 0, --test-model: the run's own model against its directory read whole, as `report` and
 * `compare` read it: they must hold the same (rundir_same). 0, or FP_ERUNTIME said. */
static int run_model_test(const struct run_out *ro, struct rundir *model)
{
	struct rundir rd = { 0 };
	char err[RUNDIR_ERR_MAX], why[256];
	int rc = rundir_index(model, err) ? FP_ERUNTIME : rundir_load(ro->dir, &rd, err) ? FP_ERUNTIME : 0;

	if (rc == 0 && !rundir_same(model, &rd, why, sizeof why)) {
		snprintf(err, sizeof err, "the run's own model and its directory differ: %s", why);
		rc = FP_ERUNTIME;
	}
	if (rc == 0)
		printf("model: the run's own model holds what its directory does (%zu p2p rows, %d retests)\n",
		       model->np2p, model->nretest);
	else
		escape_term_line(stderr, "fabprobe: --test-model: %s", err);
	rundir_free(&rd);
	return rc;
}

/* Before anything is measured, collective: rank 0 reads the baseline whole, once, as the
 * judges will take it (checks_base_load). */
static int run_checks_check(struct world *w, struct run_opts *c)
{
	int rc = w->rank == 0 ? checks_base_load(&c->checks) : 0;

	if (mpi_allreduce_sleepy(&rc, MPI_MIN, MPI_COMM_WORLD))
		rc = FP_ERUNTIME;
	return rc;
}

/* Left in when --baseline, --expect, --accept or --declared asks for a judge. */
static int run_checks_on(const struct run_opts *c)
{
	return checks_wanted(&c->checks);
}

/* rank 0: the judges on the run's own model, the confirming figures among them (nothing when
 * an earlier stage failed, but that is said). */
static int run_checks_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	if (w->rank == 0 && !st->failed && st->model_rc) {
		escape_term_line(stderr, "fabprobe: judging this run: %s", st->model_err);
		return st->jrc = st->model_rc;
	}
	st->jrc = checks_stage(w, ro, &st->c->checks, st->failed != 0, &st->model, &st->judged);
	if (w->rank == 0 && !st->failed && st->jrc >= 0 && st->c->test_model && run_model_test(ro, &st->model))
		st->jrc = FP_ERUNTIME;
	return st->jrc;
}

const struct run_stage run_stage_checks = { .name = "checks", .opts = run_checks_options, .on = run_checks_on,
					     .check = run_checks_check, .step = run_checks_step, .after_failure = 1 };
