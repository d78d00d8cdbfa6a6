/* run_stages.c — see run_stage.h: the composition of `run`'s stages (parse, check, run, the
 * verdict), and the stages before the latency map: inventory, pairs, collectives. */
#include "run_stage.h"

#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "core/mpi_util.h"

/* ---------------------------------------------------------------- composition */

int run_stages_parse(const struct run_stage *const *stages, int argc, char **argv, struct run_opts *c, char *err)
{
	struct opts_group g[OPTS_GROUPS_MAX];
	int n = 0;

	memset(c, 0, sizeof *c);
	for (int i = 0; stages[i]; i++)
		if (stages[i]->opts) {
			if (n + 2 > OPTS_GROUPS_MAX)
				OPTS_FAIL("internal: more than %d option groups", OPTS_GROUPS_MAX);
			n += stages[i]->opts(c, g + n);
		}
	return opts_parse(argc, argv, g, n, NULL, err);
}

int run_stages_check(const struct run_stage *const *stages, struct world *w, struct run_opts *c)
{
	int rc = 0;

	for (int i = 0; rc == 0 && stages[i]; i++)
		if (stages[i]->check && (!stages[i]->on || stages[i]->on(c)))
			rc = stages[i]->check(w, c);
	return rc;
}

/* rank 0: what the run could not judge into st->unjudged, and st->urc */
static void run_unjudged(const struct world *w, struct run_state *st)
{
	const struct run_opts *c = st->c;
	char *u = st->unjudged, rails[512];
	size_t ul = sizeof st->unjudged;

	u[0] = 0;
	if (w->nep < 2)
		text_add(u, ul, "; ", "no pair measured: %d endpoint%s (launch two or more nodes, or ranks on one)",
			 w->nep, w->nep == 1 ? "" : "s");
	for (int i = 0; i < st->mp.npaths && w->nep >= 2; i++)
		if (st->mp.p[i].m->ok == 0)
			text_add(u, ul, "; ", "path %s: no direction measured", st->mp.p[i].m->path);
	if (!c->no_coll && c->min_pct > 0 && st->coll.nunrated && !st->coll.nrated)
		text_add(u, ul, "; ", "--min-pct %g%%: no path's line rate is known, nothing was judged against it",
			 c->min_pct);
	if (run_rails(st, w, &st->rails, rails, sizeof rails))
		text_add(u, ul, "; ", "--rails: out of memory, the rails were not judged");
	else if (rails[0])
		text_add(u, ul, "; ", "%s", rails);
	st->urc = st->unjudged[0] && !c->checks.allow_unjudged;
}

/* rank 0, once every stage ran without a run-time failure: the verdict, a clause per stage
 * and per judge, each failing the run as its stage's result says */
static void run_verdict(const struct world *w, struct run_state *st)
{
	const struct run_opts *c = st->c;
	struct verdict *v = &st->verdict;
	char coll[400] = "correct", links[600] = "not read";

	if (st->unjudged[0])
		verdict_add(v, VERDICT_UNJUDGED, st->urc, "unjudged: %s%s", st->unjudged, st->urc ? "" : " (allowed)");
	verdict_add(v, VERDICT_NODES, st->irc, "nodes %s", c->no_inventory ? "not inventoried" : st->irc ?
		    "differ, see inventory_mismatch.csv" : "alike");
	verdict_add(v, VERDICT_PAIRS, st->prc || st->krc, "pairs: %s", st->prc || st->krc ? "some failed" :
		    w->nep < 2 ? "none to measure" : "all measured");
	if (st->coll.nlow)
		snprintf(coll, sizeof coll, "correct, below --min-pct %g%% of line rate: %s", c->min_pct, st->coll.low);
	if (st->coll.wrong_paths) /* measured on another fabric than asked: never a PASS */
		snprintf(coll, sizeof coll, "WRONG PATH: %s", st->coll.wrong_path);
	verdict_add(v, VERDICT_COLLECTIVES, st->crc, "collectives: %s", c->no_coll ? "not run" :
		    st->coll.wrong_rows ? "WRONG RESULTS" : coll);
	verdict_add(v, VERDICT_SUSPECTS, st->trc, "suspects: %s", st->trc ? st->which : w->single_node && st->which[0] ?
		    "not counted on one node" : c->no_confirm ? "none" : "none confirmed");
	if (st->links.sum.done && !st->links.sum.nfind_all)
		snprintf(links, sizeof links, "no flap or error on %d judged port%s", st->links.sum.judged_ports,
			 st->links.sum.judged_ports == 1 ? "" : "s");
	for (int i = 0, k = 0; st->links.sum.done && i < st->links.sum.nfind && k < (int)sizeof links; i++)
		k += snprintf(links + k, sizeof links - (size_t)k, "%s%s %s:%s", i ? ", " : "", st->links.sum.find[i].kind,
			      st->links.sum.find[i].node, st->links.sum.find[i].port);
	if (st->links.sum.done && st->links.sum.nfind_all > st->links.sum.nfind && strlen(links) + 32 < sizeof links)
		snprintf(links + strlen(links), sizeof links - strlen(links), " and %d more (counters.csv)",
			 st->links.sum.nfind_all - st->links.sum.nfind);
	verdict_add(v, VERDICT_LINKS, st->lrc, "links: %s", c->no_counters ? "not read (--no-counters)" : links);
	verdict_append(v, &st->judged); /* a judge fails the run exactly when its clause does */
	verdict_append(v, &st->rails);
	/* a tier the map is unsure of (its step far below the others'): the scheduler files were
	 * written without it; said, not failed (no finding: a coarser map is not a wrong one) */
	char maps[300] = "";
	size_t mk = 0;

	for (int i = 0; i < st->mp.npaths; i++) {
		const struct infer_result *r = run_maps_map(&st->mp, i);

		for (int t = 0; r && t < r->ntiers && mk + 64 < sizeof maps; t++)
			if (r->uncertain[t])
				mk += (size_t)snprintf(maps + mk, sizeof maps - mk, "%s%s tier %d", mk ? ", " : "",
						       st->mp.p[i].m->path, t);
	}
	if (mk)
		verdict_add(v, VERDICT_MAP, 0, "map incomplete: uncertain %s (left out of the scheduler files)", maps);
}

static void run_state_free(struct run_state *st)
{
	run_maps_free(&st->mp);
	p2p_result_free(&st->res);
	for (int i = 0; i < P2P_PATHS_MAX; i++)
	{
		free(st->planned[i].group);
		free(st->planned[i].pair);
	}
	ctr_set_free(&st->links.before);
	free(st->links.sum.find);
	verdict_free(&st->judged);
	verdict_free(&st->rails);
	free(st->where);
	free(st->tog);
	free(st->quiet);
	free(st->node_finds);
	verdict_free(&st->verdict);
	rundir_free(&st->model);
	inv_found_free(&st->inv);
}

/* rank 0: a results file's text, as its writer wrote it, into the run's own model (the files
 * the model is made of; the others pass) */
static void run_model_tee(void *ctx, const char *file, const char *text, size_t len)
{
	struct run_state *st = ctx;
	int rc;

	if (st->model_rc || !rundir_reads(file))
		return;
	if (!text) {
		snprintf(st->model_err, sizeof st->model_err, "%s: out of memory", file);
		st->model_rc = FP_ERUNTIME;
	} else if ((rc = rundir_add_text(&st->model, file, text, len, st->model_err))) {
		st->model_rc = rc;
	}
}

int run_stages_run(const struct run_stage *const *stages, struct world *w, struct run_out *ro, struct run_opts *c)
{
	struct run_state st = { .c = c };
	int rc = 0;

	if (w->rank == 0 && checks_wanted(&c->checks)) {
		if (rundir_init(&st.model, ro->dir)) {
			snprintf(st.model_err, sizeof st.model_err, "out of memory");
			st.model_rc = FP_ERUNTIME;
		}
		ro->tee = (struct results_tee){ .fn = run_model_tee, .ctx = &st };
	}
	for (int i = 0; stages[i]; i++) {
		const struct run_stage *s = stages[i];

		if ((s->on && !s->on(c)) || (st.failed && !s->after_failure))
			continue;
		if ((rc = s->step(w, ro, &st)) == FP_ETIMEDOUT)
			break; /* an endpoint hung: the job cannot go on together */
		if (rc < 0 && !st.failed)
			st.failed = rc;
	}
	ro->tee = (struct results_tee){ 0 }; /* st ends here */
	if (rc == FP_ETIMEDOUT || st.failed) {
		run_state_free(&st);
		return rc == FP_ETIMEDOUT ? rc : st.failed;
	}
	/* the other ranks' word (every rank's exit code is agreed, the worst) */
	rc = st.irc || st.prc || st.krc || st.crc || st.trc || st.lrc || st.jrc;
	if (w->rank == 0) { /* rank 0's is the verdict's: FAIL exactly when a clause fails */
		run_unjudged(w, &st);
		run_verdict(w, &st);
		rc = verdict_fails(&st.verdict);

		char *line = verdict_line(&st.verdict, NULL);

		escape_term_write(stdout, line ? line : "verdict: FAIL (out of memory)", 0); /* names from the fabric */
		fputc('\n', stdout);
		fflush(stdout);
		if (line)
			run_files_write(w, ro, &st, line);
		else
			LOG_ERROR("out of memory for the verdict: summary.json, fabprobe.prom, junit.xml and the actions not written");
		free(line);
	}
	run_state_free(&st);
	return rc;
}

/* ---------------------------------------------------------------- inventory */

/* --no-inventory; the inventory's defaults (the GPU path: this build's collective backend). */
static int run_inventory_take(void *ctx, int val, const char *arg, char *err)
{
	(void)val, (void)arg, (void)err;
	((struct run_opts *)ctx)->no_inventory = 1;
	return 0;
}

/* The inventory stage's options into g. */
static int run_inventory_options(struct run_opts *c, struct opts_group *g)
{
	static const struct option lo[] = { { "no-inventory", no_argument, NULL, 1 }, { NULL, 0, NULL, 0 } };

	inv_opts_default(&c->inv);
	c->inv.gpu_path = coll_gpu_backend();
	g[0] = (struct opts_group){ .longopts = lo, .take = run_inventory_take, .ctx = c };
	g[1] = inv_sources_group(&c->inv); /* a captured node (tests, a node's tree read offline) */
	return 2;
}

/* Left in unless --no-inventory. */
static int run_inventory_on(const struct run_opts *c)
{
	return !c->no_inventory;
}

/* The captured sources are there (inventory_check). */
static int run_inventory_check(struct world *w, struct run_opts *c)
{
	return inventory_check(w, &c->inv);
}

/* Every rank: the inventory; rank 0 keeps the paths found. */
static int run_inventory_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	return st->irc = inventory_run(w, ro, &st->c->inv, &st->inv);
}

const struct run_stage run_stage_inventory = { .name = "inventory", .opts = run_inventory_options, .on = run_inventory_on,
						.check = run_inventory_check, .step = run_inventory_step };

/* ---------------------------------------------------------------- pairs */

/* rank 0: the paths to measure when -p was not given: those of the inventory that
 * inv_paths_default takes and this build can measure; said on the terminal */
static void run_paths_pick(struct run_opts *c, const struct inv_path *paths, int np, int nnodes)
{
	if (c->p2p.paths_given)
		return;
	int take[INV_PATHS_MAX];
	char why[INV_PATHS_MAX][INV_WHY_MAX], out[1024] = "";
	size_t k = 0;

	if (c->no_inventory || np == 0) {
		printf("run: paths: mpi (%s; -p to choose)\n", c->no_inventory ? "no inventory" : "the inventory found no other");
		return;
	}
	inv_paths_default(paths, np, nnodes, take, why);
	c->p2p.npaths = 0;
	for (int i = 0; i < np; i++) {
		const struct transport_ops *tr = transport_find(paths[i].name);

		if (take[i] && (!tr || tr->absent)) {
			take[i] = 0;
			snprintf(why[i], INV_WHY_MAX, "%s", tr ? tr->absent : "no transport for it");
		}
		if (take[i] && c->p2p.npaths < P2P_PATHS_MAX && strlen(paths[i].name) < P2P_PATH_MAX)
			strcpy(c->p2p.paths[c->p2p.npaths++], paths[i].name);
		else if (!take[i] && k < sizeof out)
			k += (size_t)snprintf(out + k, sizeof out - k, "; %s: %s", paths[i].name, why[i]);
	}
	printf("run: paths:");
	for (int i = 0; i < c->p2p.npaths; i++)
		printf("%s %s", i ? "," : "", c->p2p.paths[i]);
	printf(" (every path the inventory found; -p to choose)%s%s\n", k ? "\n  left out" : "", k ? out : "");
}

/* rank 0: the time the pairs and their confirmation will take, up front */
static void run_estimate_say(const struct run_opts *c, const struct world *w)
{
	int per_round = w->nep / 2, k = c->p2p.concurrency > 0 && c->p2p.concurrency < per_round ?
					   (int)c->p2p.concurrency : per_round;
	long steps = k > 0 ? (long)sched_rounds(w->nep) * ((per_round + k - 1) / k) : 0;
	double est = (double)steps * p2p_pair_estimate(&c->p2p, 20, 1.25) * c->p2p.npaths;

	char conf[64] = "off (--no-confirm)";

	if (!c->no_confirm)
		snprintf(conf, sizeof conf, "at most %.0f s more (--confirm-time)", c->confirm_time);
	printf("run: estimate: pairs ~%.0f s on %d path%s (at 20 us and 1.25 GB/s); confirming suspects: %s\n",
	       est, c->p2p.npaths, c->p2p.npaths == 1 ? "" : "s", conf);
	fflush(stdout);
}

/* rank 0, without --rails: the rails of the GPU↔NIC pairing (inv_rails), when every one is
 * measured by endpoints that are nodes; said on the terminal */
static void run_rails_pick(struct run_opts *c, const struct inv_found *f, const struct world *w)
{
	int measured = f->nrails >= 3 && f->nrails <= RAILS_MAX && !w->single_node;
	char line[INV_RAILS_MAX * INV_PATH_MAX + 128] = "";

	if (c->nrails || !f->nrails)
		return;
	for (int r = 0; measured && r < f->nrails; r++) {
		measured = 0;
		for (int i = 0; i < c->p2p.npaths; i++)
			measured |= !strcmp(c->p2p.paths[i], f->rails[r]);
	}
	for (int r = 0; r < f->nrails; r++)
		text_add(line, sizeof line, ",", "%s", f->rails[r]);
	/* the names are the nodes' (sysfs): escaped on the terminal */
	escape_term_line(stdout, "run: rails (each GPU's nearest port, in GPU order): %s; %s", line,
			 measured ? "judged together (--rails to choose)"
			 : w->single_node ? "ranks of one node: not judged" : "not all measured: not judged (-p)");
	for (int r = 0; measured && r < f->nrails; r++)
		snprintf(c->rails[c->nrails++], P2P_PATH_MAX, "%s", f->rails[r]);
}

/* Every rank: the paths to measure, decided by rank 0 from the inventory, and the rails, shared
 * asleep. */
static int run_paths_share(struct run_opts *c, const struct world *w, const struct inv_found *f)
{
	struct {
		int n, nrails;
		char p[P2P_PATHS_MAX][P2P_PATH_MAX], rails[P2P_PATHS_MAX][P2P_PATH_MAX];
	} msg;

	if (w->rank == 0) {
		run_paths_pick(c, f->paths, f->np, f->nnodes);
		run_rails_pick(c, f, w);
		run_estimate_say(c, w);
		msg.n = c->p2p.npaths;
		msg.nrails = c->nrails;
		memcpy(msg.p, c->p2p.paths, sizeof msg.p);
		memcpy(msg.rails, c->rails, sizeof msg.rails);
		fflush(stdout);
	}
	if (mpi_bcast_sleepy(&msg, sizeof msg, 0, MPI_COMM_WORLD))
		return FP_ERUNTIME;
	c->p2p.npaths = msg.n;
	c->nrails = msg.nrails;
	memcpy(c->p2p.paths, msg.p, sizeof msg.p);
	memcpy(c->rails, msg.rails, sizeof msg.rails);
	return 0;
}

/* The point-to-point options (p2p_opts.c) and the results directory's. */
static int run_pairs_options(struct run_opts *c, struct opts_group *g)
{
	return p2p_opts_groups(&c->p2p, g);
}

/* Every rank: the paths, then every pair over each (rank 0 keeps the figures); a run-time
 * error anywhere is learnt by every rank, asleep (ranks that are no endpoint waited here all
 * along); failed pairs are rank 0's to report. */
static int run_pairs_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	int perr;

	if (run_paths_share(st->c, w, &st->inv))
		return st->prc = FP_ERUNTIME;
	if (st->c->planned) { /* the paths as shared, latency alone: the map plans the bandwidth */
		p2p_opts_only(&st->c->p2p, 1, 0, &st->c->p2p_lat);
		if (w->rank == 0)
			printf("run: plan: %s (%d endpoints%s): phase 1 every pair's latency, the map, then phase 2 the "
			       "bandwidth of the pairs the map plans (--plan all: every pair's)\n",
			       st->c->plan_mode == RUN_PLAN_MAP ? "map" : "auto, the map's", w->nep,
			       st->c->plan_mode == RUN_PLAN_MAP ? "" : ", more than 64");
	}
	if (w->my_ep >= 0)
		st->prc = p2p_main(st->c->planned ? &st->c->p2p_lat : &st->c->p2p, w, ro, w->rank == 0 ? &st->res : NULL);
	if (st->prc == FP_ETIMEDOUT)
		return st->prc;
	perr = st->prc < 0 ? st->prc : 0;
	if (mpi_allreduce_sleepy(&perr, MPI_MIN, MPI_COMM_WORLD))
		perr = FP_ERUNTIME;
	return perr < 0 ? (st->prc = perr) : st->prc;
}

const struct run_stage run_stage_pairs = { .name = "pairs", .opts = run_pairs_options, .step = run_pairs_step };

/* ---------------------------------------------------------------- collectives */

enum { O_COLL_MAX = 1, O_NO_COLL, O_MIN_PCT };

/* --coll-max, --no-coll, --min-pct. */
static int run_coll_take(void *ctx, int val, const char *arg, char *err)
{
	struct run_opts *c = ctx;

	if (val == O_NO_COLL) {
		c->no_coll = 1;
		return 0;
	}
	if (val == O_MIN_PCT)
		return opts_percent("--min-pct", arg, 100, &c->min_pct, err);
	return opts_size("--coll-max", arg, 8, 1ULL << 34, &c->coll_max, err);
}

/* After every option: the collectives stage's sweep, a short all-reduce one, x4 per step. */
static int run_coll_finish(void *ctx, char *err)
{
	struct run_opts *c = ctx;
	int n;

	coll_opts_default(&c->coll);
	c->coll.maxbytes = c->coll_max;
	c->coll.stepfactor = 4;
	c->coll.iters = 10;
	c->coll.warmup = 2;
	c->coll.min_pct = c->min_pct;
	n = coll_sweep(c->coll.minbytes, c->coll.maxbytes, c->coll.stepfactor, 0, c->coll.sizes, COLL_SIZES_MAX, err);
	if (n < 0)
		return n;
	c->coll.nsizes = n;
	return 0;
}

/* The collectives stage's options into g. */
static int run_coll_options(struct run_opts *c, struct opts_group *g)
{
	static const struct option lo[] = {
		{ "coll-max", required_argument, NULL, O_COLL_MAX },
		{ "no-coll", no_argument, NULL, O_NO_COLL },
		{ "min-pct", required_argument, NULL, O_MIN_PCT },
		{ NULL, 0, NULL, 0 },
	};

	c->coll_max = 64ULL << 20;
	*g = (struct opts_group){ .longopts = lo, .take = run_coll_take, .finish = run_coll_finish, .ctx = c };
	return 1;
}

/* Left in unless --no-coll. */
static int run_coll_on(const struct run_opts *c)
{
	return !c->no_coll;
}

/* The roots and ranks the sweep names exist (coll_check). */
static int run_coll_check(struct world *w, struct run_opts *c)
{
	return coll_check(w, &c->coll);
}

/* Every rank: the all-reduce sweep of the libraries, and fabprobe's ring over every path the
 * pairs measured (coll_stage_sum: a failure on one rank alone ends the job). */
static int run_coll_step(struct world *w, struct run_out *ro, struct run_state *st)
{
	struct coll_opts *o = &st->c->coll;

	o->nring_paths = 0;
	for (int i = 0; i < st->c->p2p.npaths && i < COLL_RING_PATHS_MAX; i++)
		o->ring_paths[o->nring_paths++] = st->c->p2p.paths[i];
	return st->crc = coll_stage_sum(w, ro, o, &st->coll);
}

const struct run_stage run_stage_coll = { .name = "coll", .opts = run_coll_options, .on = run_coll_on, .check = run_coll_check,
					   .step = run_coll_step };
