/* run.c — `fabprobe run`, the main job: the point-to-point map, then the latency map and
 * the scheduler files, in one results directory, with a verdict and an exit code. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "coll/coll.h"
#include "node/inventory.h"
#include "core/launcher.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "core/run.h"
#include "core/world.h"
#include "fabric/emit/emit.h"
#include "fabric/infer/infer.h"
#include "fabric/emit/topo_csv.h"
#include "inventory/inv_stage.h"
#include "run/checks.h"
#include "p2p/p2p.h"
#include "run/run_map.h"

static void run_usage(FILE *f)
{
	fputs("usage: mpirun [...] fabprobe run [options]\n"
	      "\n"
	      "The whole job: latency and bandwidth between every pair of nodes, then the latency map\n"
	      "(which nodes share a leaf switch, which cross a spine), the node order and the files\n"
	      "schedulers consume, all in one results directory; a verdict and an exit code\n"
	      "(0 pass; 1 a pair failed or a suspect node or link was found).\n"
	      "\n"
	      "Stages: inventory (as `fabprobe inventory`), point to point (as `fabprobe p2p`) over\n"
	      "every path the inventory found (mpi, tcp:<netdev>, verbs:<dev>:<port>; -p to choose),\n"
	      "a latency map per path (as `fabprobe topo`) whose candidate suspects are re-measured\n"
	      "alone before they count (the confirmation pass), an all-reduce sweep through MPI and\n"
	      "NCCL (as `fabprobe coll -b 8 -e MAX -f 4`).\n"
	      "      --no-inventory      leave the inventory out (then -p, or mpi alone)\n"
	      "      --no-coll           leave the collectives out\n"
	      "      --coll-max SIZE     largest all-reduce (default 64M)\n"
	      "Confirmation pass:\n"
	      "      --confirm-time SEC  at most this long (estimated up front; default 120)\n"
	      "      --confirm-factor N  samples and windows, N times the first pass's (default 2)\n"
	      "      --no-confirm        count the candidates as found, without re-measuring them\n"
	      "Latency map:\n"
	      "      --slots N           ranks per node in the host files (default: as in this job)\n"
	      "      --label-prefix P    Kubernetes label prefix (default fabprobe)\n", f);
	checks_usage(f, 1);
	fputs("\nThe point-to-point options of `fabprobe p2p` apply:\n\n", f);
}

/* The --help of `run`: its own options, then those of p2p. */
static void run_usage_all(FILE *f)
{
	run_usage(f);
	p2p_usage(f);
}


/* ---------------------------------------------------------------- options */

enum { O_SLOTS = 1, O_LABEL_PREFIX, O_COLL_MAX, O_NO_COLL, O_NO_INVENTORY, O_CONFIRM_TIME, O_CONFIRM_FACTOR,
       O_NO_CONFIRM };

static const struct option run_long_opts[] = {
	{ "slots", required_argument, NULL, O_SLOTS },
	{ "label-prefix", required_argument, NULL, O_LABEL_PREFIX },
	{ "coll-max", required_argument, NULL, O_COLL_MAX },
	{ "no-coll", no_argument, NULL, O_NO_COLL },
	{ "no-inventory", no_argument, NULL, O_NO_INVENTORY },
	{ "confirm-time", required_argument, NULL, O_CONFIRM_TIME },
	{ "confirm-factor", required_argument, NULL, O_CONFIRM_FACTOR },
	{ "no-confirm", no_argument, NULL, O_NO_CONFIRM },
	{ NULL, 0, NULL, 0 },
};

/* One of run's own options into c. */
static int run_take(void *ctx, int opt, const char *arg, char *err)
{
	struct run_opts *c = ctx;

	switch (opt) {
	case O_SLOTS: return opts_long("--slots", arg, 1, 4096, &c->slots, err);
	case O_LABEL_PREFIX:
		if (!emit_label_prefix_ok(arg))
			OPTS_FAIL("--label-prefix: '%.100s' is not a DNS subdomain (lower case letters, "
				  "digits, '-' and '.')", arg);
		c->label_prefix = arg;
		return 0;
	case O_COLL_MAX: return opts_size("--coll-max", arg, 8, 1ULL << 34, &c->coll_max, err);
	case O_NO_COLL: c->no_coll = 1; return 0;
	case O_NO_INVENTORY: c->no_inventory = 1; return 0;
	case O_CONFIRM_TIME: return opts_seconds("--confirm-time", arg, 86400, &c->confirm_time, err);
	case O_CONFIRM_FACTOR: return opts_long("--confirm-factor", arg, 1, 100, &c->confirm_factor, err);
	case O_NO_CONFIRM: c->no_confirm = 1; return 0;
	default: OPTS_FAIL("internal: option %d is not one of run's", opt);
	}
}

/* After every option: the other stages' defaults; the collectives: a short all-reduce sweep,
 * x4 per step. */
static int run_finish(void *ctx, char *err)
{
	struct run_opts *c = ctx;
	int n;

	inv_opts_default(&c->inv);
	c->inv.gpu_path = coll_gpu_backend();
	coll_opts_default(&c->coll);
	c->coll.maxbytes = c->coll_max;
	c->coll.stepfactor = 4;
	c->coll.iters = 10;
	c->coll.warmup = 2;
	n = coll_sweep(c->coll.minbytes, c->coll.maxbytes, c->coll.stepfactor, 0, c->coll.sizes,
		       COLL_SIZES_MAX, err);
	if (n < 0)
		return n;
	c->coll.nsizes = n;
	return 0;
}

int run_opts_parse(int argc, char **argv, struct run_opts *c, char *err)
{
	struct opts_group g[4];
	int n;

	memset(c, 0, sizeof *c);
	c->label_prefix = "fabprobe";
	c->coll_max = 64ULL << 20;
	c->confirm_time = 120;
	c->confirm_factor = 2;
	n = p2p_opts_groups(&c->p2p, g);
	g[n++] = checks_opts_group(&c->checks, 1);
	g[n++] = (struct opts_group){ .longopts = run_long_opts, .take = run_take, .finish = run_finish, .ctx = c };
	return opts_parse(argc, argv, g, n, NULL, err);
}

/* ---------------------------------------------------------------- paths */

/* rank 0: the paths to measure when -p was not given: those of the inventory that
 * inv_paths_default takes and this build can measure; said on the terminal */
static void paths_pick(struct run_opts *c, const struct inv_path *paths, int np, int nnodes)
{
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
static void estimate_say(const struct run_opts *c, const struct world *w)
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

/* Every rank: the paths to measure, decided by rank 0 from the inventory, shared asleep. */
static int paths_share(struct run_opts *c, const struct world *w, const struct inv_path *paths, int np, int nnodes)
{
	struct {
		int n;
		char p[P2P_PATHS_MAX][P2P_PATH_MAX];
	} msg;

	if (c->p2p.paths_given) {
		if (w->rank == 0)
			estimate_say(c, w);
		return 0;
	}
	if (w->rank == 0) {
		paths_pick(c, paths, np, nnodes);
		estimate_say(c, w);
		msg.n = c->p2p.npaths;
		memcpy(msg.p, c->p2p.paths, sizeof msg.p);
		fflush(stdout);
	}
	if (mpi_bcast_sleepy(&msg, sizeof msg, 0, MPI_COMM_WORLD))
		return FP_ERUNTIME;
	c->p2p.npaths = msg.n;
	memcpy(c->p2p.paths, msg.p, sizeof msg.p);
	return 0;
}

/* ---------------------------------------------------------------- stages */

/* meta.json's members about the maps: the paths, the compute path and why */
static void meta_maps(struct run_out *ro, const struct run_maps *mp, int nsuspects)
{
	size_t len = 0;
	char *text = NULL;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	fputs("\"paths\": [", f);
	for (int i = 0; i < mp->npaths; i++) {
		fputs(i ? ", " : "", f);
		results_json_string(f, mp->p[i].m->path);
	}
	fputs("],\n  \"compute_path\": ", f);
	results_json_string(f, mp->npaths ? mp->p[mp->compute].m->path : "");
	fputs(",\n  \"compute_path_why\": ", f);
	results_json_string(f, mp->compute_why);
	fprintf(f, ",\n  \"confirmed_suspects\": %d", nsuspects);
	if (fclose(f) == 0 && len < sizeof ro->meta_extra)
		memcpy(ro->meta_extra, text, len + 1);
	free(text);
}

/* rank 0: the maps' files and summaries; the confirmed suspects (total, and per kind in
 * `which`). Returns 0, 1 when suspects count, or FP_E* */
static int run_maps_out(const struct run_opts *c, const struct world *w, struct run_out *ro, struct run_maps *mp,
			char *which, size_t wl)
{
	char how[512], when[32];
	int rc, n;

	run_maps_compute(mp);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	snprintf(how, sizeof how, "fabprobe %s run %s, path %s, started %s", FP_VERSION, ro->run_id,
		 mp->p[mp->compute].m->path, when);
	struct emit_topo t = { .n = w->nep, .hosts = w->labels,
			       .slots = (int)(c->slots ? c->slots : (w->size + w->nnodes - 1) / w->nnodes),
			       .label_prefix = c->label_prefix, .how = how };
	rc = run_maps_write(mp, w, ro, &t);
	if (rc == FP_EUSAGE)
		rc = 0; /* a format that cannot hold these names was said on stderr; the run stands */
	n = run_maps_verdict(mp, w->labels, which, wl);
	meta_maps(ro, mp, w->single_node ? 0 : n);
	/* on one node the map is of ranks (sockets, caches): informative, not a verdict */
	return rc ? rc : n && !w->single_node;
}

/* checks_stage's remap: the maps again from every pair's best figure once the judges measured
 * suspected regressions again (a stall during one pair can misplace a node). */
struct run_remap {
	const struct run_opts *c;
	char *which;
	size_t wl;
	int rc, done;
};

static int run_remap(void *arg, struct world *w, struct run_out *ro, const struct p2p_result *res)
{
	struct run_remap *rm = arg;
	struct run_maps mp = { 0 };
	int rc = run_maps_first(&mp, (struct p2p_result *)res, w->labels);

	if (rc == 0)
		rc = rm->rc = run_maps_out(rm->c, w, ro, &mp, rm->which, rm->wl);
	rm->done = rc >= 0;
	run_maps_free(&mp);
	return rc;
}

/* The p2p stage and its confirmation: every rank. Returns prc (0, 1, FP_E*) and, in *krc, the
 * confirmation's. */
static int run_p2p(struct run_opts *c, struct world *w, struct run_out *ro, struct p2p_result *res,
		   struct run_maps *mp, int *krc)
{
	struct run_confirm_opts cf = { .off = c->no_confirm, .max_s = c->confirm_time, .factor = c->confirm_factor };
	int prc = 0, perr, mrc = 0;

	*krc = 0;
	if (w->my_ep >= 0)
		prc = p2p_main(&c->p2p, w, ro, w->rank == 0 ? res : NULL);
	if (prc == FP_ETIMEDOUT)
		return prc; /* an endpoint hung: the job cannot go on together */
	/* every rank learns of a run-time error anywhere, asleep (ranks that are no endpoint
	 * waited here all along); failed pairs are rank 0's to report */
	perr = prc < 0 ? prc : 0;
	if (mpi_allreduce_sleepy(&perr, MPI_MIN, MPI_COMM_WORLD))
		perr = FP_ERUNTIME;
	if (perr < 0)
		return perr;
	if (w->rank == 0 && (res->npaths == 0 || (mrc = run_maps_first(mp, res, w->labels))))
		mrc = mrc ? mrc : FP_ERUNTIME;
	if (mpi_allreduce_sleepy(&mrc, MPI_MIN, MPI_COMM_WORLD) || mrc)
		*krc = FP_ERUNTIME;
	else
		*krc = run_confirm(&cf, &c->p2p, w, ro, mp);
	return prc;
}

/* Every stage runs even when an earlier one found something: the verdict lists them all. A
 * stage that fails at run time ends the run (its error was logged). */
static int run_body(struct world *w, struct run_out *ro, void *arg)
{
	struct run_opts *c = arg;
	struct p2p_result res = { 0 };
	struct run_maps mp = { 0 };
	struct inv_path paths[INV_PATHS_MAX];
	char which[1024] = "";
	int np = 0, nn = 0, irc = 0, prc = 0, krc = 0, crc = 0, trc = 0, jrc = 0, worst;
	char verdict[CHECKS_VERDICT_MAX] = ""; /* the judges' clauses */

	ro->after = cmd_report_after;
	if (!c->no_inventory)
		irc = inventory_run(w, ro, &c->inv, paths, &np, &nn);
	if (irc >= 0 && paths_share(c, w, paths, np, nn))
		irc = FP_ERUNTIME;
	if (irc >= 0)
		prc = run_p2p(c, w, ro, &res, &mp, &krc);
	if (prc == FP_ETIMEDOUT || krc == FP_ETIMEDOUT)
		return FP_ETIMEDOUT;
	if (irc >= 0 && prc >= 0 && krc >= 0 && !c->no_coll)
		crc = coll_stage(w, ro, &c->coll);
	if (w->rank == 0 && prc >= 0 && krc >= 0 && crc >= 0 && mp.npaths)
		trc = run_maps_out(c, w, ro, &mp, which, sizeof which);
	run_maps_free(&mp);
	/* the judges (--baseline, --expect, --accept, --declared), on the files written so far;
	 * what they find is re-tested before it counts */
	if (checks_wanted(&c->checks)) {
		struct run_remap rm = { c, which, sizeof which, trc, 0 };
		struct checks_remap remap = { run_remap, &rm };

		jrc = checks_stage(w, ro, &c->checks, &c->p2p, w->rank == 0 && res.npaths ? &remap : NULL,
				  irc < 0 || prc < 0 || krc < 0 || crc < 0 || trc < 0, verdict, sizeof verdict);
		if (rm.done)
			trc = rm.rc;
	}
	p2p_result_free(&res);
	worst = irc < 0 ? irc : prc < 0 ? prc : krc < 0 ? krc : crc < 0 ? crc : trc < 0 ? trc : jrc < 0 ? jrc : 0;
	if (worst)
		return worst;
	if (w->rank == 0)
		printf("verdict: %s (nodes %s; pairs: %s; collectives: %s; suspects: %s%s%s)\n",
		       irc || prc || krc || crc || trc || jrc ? "FAIL" : "PASS",
		       c->no_inventory ? "not inventoried" : irc ? "differ, see inventory_mismatch.csv" : "alike",
		       prc || krc ? "some failed" : "all measured", c->no_coll ? "not run" : crc ? "WRONG RESULTS" : "correct",
		       trc ? which : w->single_node && which[0] ? "not counted on one node" : c->no_confirm ? "none" : "none confirmed",
		       verdict[0] ? "; " : "", verdict);
	return irc || prc || krc || crc || trc || jrc;
}

static int run_check(struct world *w, void *arg)
{
	struct run_opts *c = arg;
	int rc = c->no_inventory ? 0 : inventory_check(w, &c->inv);

	return rc || c->no_coll ? rc : coll_check(w, &c->coll);
}

int cmd_run(int argc, char **argv)
{
	static const struct cmd_stage stage = { .name = "run", .usage = run_usage_all, .check = run_check,
						.body = run_body };
	struct run_opts c;
	char err[OPTS_ERR_MAX];
	int rc = run_opts_parse(argc, argv, &c, err);

	rc = cmd_measure(&stage, argc, argv, rc, err, &c.p2p.where, c.p2p.progress, &c);
	checks_opts_free(&c.checks);
	return rc;
}
