/* run_cmd.c — `fabprobe run`, the main job: the point-to-point map, then the latency map and
 * the scheduler files, in one results directory, with a verdict and an exit code. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "coll/coll.h"
#include "core/launcher.h"
#include "core/log.h"
#include "core/mpi_util.h"
#include "core/results.h"
#include "core/run.h"
#include "core/world.h"
#include "fabric/emit.h"
#include "fabric/infer.h"
#include "fabric/topo_csv.h"
#include "inventory/inv_stage.h"
#include "judge.h"
#include "p2p/p2p.h"

static void run_usage(FILE *f)
{
	fputs("usage: mpirun [...] fabprobe run [options]\n"
	      "\n"
	      "The whole job: latency and bandwidth between every pair of nodes, then the latency map\n"
	      "(which nodes share a leaf switch, which cross a spine), the node order and the files\n"
	      "schedulers consume, all in one results directory; a verdict and an exit code\n"
	      "(0 pass; 1 a pair failed or a suspect node or link was found).\n"
	      "\n"
	      "Stages: inventory (as `fabprobe inventory`), point to point (as `fabprobe p2p`), an\n"
	      "all-reduce sweep through MPI and NCCL (as `fabprobe coll -b 8 -e MAX -f 4`), the\n"
	      "latency map (as `fabprobe topo`).\n"
	      "      --no-inventory      leave the inventory out\n"
	      "      --no-coll           leave the collectives out\n"
	      "      --coll-max SIZE     largest all-reduce (default 64M)\n"
	      "Latency map:\n"
	      "      --slots N           ranks per node in the host files (default: as in this job)\n"
	      "      --label-prefix P    Kubernetes label prefix (default fabprobe)\n", f);
	judge_usage(f, 1);
	fputs("\nThe point-to-point options of `fabprobe p2p` apply:\n\n", f);
}

/* The --help of `run`: its own options, then those of p2p. */
static void run_usage_all(FILE *f)
{
	run_usage(f);
	p2p_usage(f);
}


/* ---------------------------------------------------------------- options */

enum { O_SLOTS = CMD_EXT_OPT, O_LABEL_PREFIX, O_COLL_MAX, O_NO_COLL, O_NO_INVENTORY };

static const struct option run_long_opts[] = {
	{ "slots", required_argument, NULL, O_SLOTS },
	{ "label-prefix", required_argument, NULL, O_LABEL_PREFIX },
	{ "coll-max", required_argument, NULL, O_COLL_MAX },
	{ "no-coll", no_argument, NULL, O_NO_COLL },
	{ "no-inventory", no_argument, NULL, O_NO_INVENTORY },
	JUDGE_LONG_OPTIONS_RUN,
	{ NULL, 0, NULL, 0 },
};

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
	default:
		if (opt >= JUDGE_OPT_EXPECT && opt < JUDGE_OPT_END)
			return judge_opt(&c->judge, opt, arg, err);
		OPTS_FAIL("internal: option %d is not one of run's", opt);
	}
}

int run_opts_parse(int argc, char **argv, struct run_opts *c, char *err)
{
	const struct opts_ext ext = { .longopts = run_long_opts, .take = run_take, .ctx = c };
	int rc, n;

	memset(c, 0, sizeof *c);
	c->label_prefix = "fabprobe";
	c->coll_max = 64ULL << 20;
	judge_opts_init(&c->judge);
	if ((rc = p2p_opts_parse(argc, argv, &c->p2p, &ext, err)) || (rc = judge_opts_finish(&c->judge, err)))
		return rc;
	/* the stages' own defaults; the collectives: a short all-reduce sweep, x4 per step */
	inv_opts_default(&c->inv);
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

/* ---------------------------------------------------------------- stages */

/* rank 0: infer, write the map, every path's matrices in the tree order, the summary; returns
 * 0, 1 when there are suspects, or FP_E* */
static int run_topology(const struct run_opts *c, const struct world *w, const struct run_out *ro,
			const struct p2p_result *res)
{
	const struct p2p_matrices *m = &res->path[0];
	struct infer_opts io;
	struct infer_result r;
	char how[512], when[32];
	int rc;

	infer_opts_default(&io);
	if (infer_tiers(m->lat_min, m->bw, m->n, w->labels, &io, &r))
		return FP_ERUNTIME;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	snprintf(how, sizeof how, "fabprobe %s run %s, path %s, started %s", FP_VERSION, ro->run_id, m->path, when);
	struct emit_topo t = { .n = m->n, .hosts = w->labels, .tree = &r,
			       .slots = (int)(c->slots ? c->slots : (w->size + w->nnodes - 1) / w->nnodes),
			       .label_prefix = c->label_prefix, .how = how };
	/* one node (every rank an endpoint): an intra-node map, nothing for schedulers */
	rc = topo_outputs_write(ro->dir, &t, !w->single_node);
	topo_summary_print(stdout, &t);
	if (rc == FP_EUSAGE)
		rc = 0; /* a format that cannot hold these names was said on stderr; the run stands */
	/* every path's matrices, once, in the inferred tree order (DESIGN §4), so that a heat map
	 * of them shows the switches as blocks */
	for (int i = 0; i < res->npaths; i++)
		if (p2p_matrices_write(ro->dir, &res->path[i], w->labels, r.order))
			rc = FP_ERUNTIME;
	/* on one node the map is of ranks (sockets, caches): informative, not a verdict */
	if (rc == 0 && r.nsuspects && !w->single_node)
		rc = 1;
	infer_result_free(&r);
	return rc;
}

/* judge_stage's remap: the latency map again, from the figures its retests confirmed */
struct run_remap {
	const struct run_opts *c;
	int rc;
};

static int run_remap(void *arg, struct world *w, struct run_out *ro, const struct p2p_result *res)
{
	struct run_remap *rm = arg;

	return rm->rc = run_topology(rm->c, w, ro, res);
}

/* Every stage runs even when an earlier one found something: the verdict lists them all. A
 * stage that fails at run time ends the run (its error was logged). */
static int run_body(struct world *w, struct run_out *ro, void *arg)
{
	struct run_opts *c = arg;
	struct p2p_result res = { 0 };
	int irc = 0, prc = 0, crc = 0, trc = 0, jrc = 0, worst;
	char verdict[JUDGE_VERDICT_MAX] = ""; /* the judges' clauses */

	if (!c->no_inventory)
		irc = inventory_stage(w, ro, &c->inv);
	if (irc >= 0 && w->my_ep >= 0)
		prc = p2p_main(&c->p2p, w, ro, w->rank == 0 ? &res : NULL);
	if (prc == FP_ETIMEDOUT)
		return prc; /* an endpoint hung: the job cannot go on together */
	/* every rank learns of a run-time error anywhere; failed pairs are rank 0's to report */
	int perr = prc < 0 ? prc : 0;
	MPI_Allreduce(MPI_IN_PLACE, &perr, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (perr < 0)
		prc = perr;
	if (irc >= 0 && prc >= 0 && !c->no_coll)
		crc = coll_stage(w, ro, &c->coll);
	if (w->rank == 0 && prc >= 0 && crc >= 0 && res.npaths)
		trc = run_topology(c, w, ro, &res);
	if (judge_wanted(&c->judge)) {
		struct run_remap rm = { c, trc };
		struct judge_remap remap = { run_remap, &rm };

		jrc = judge_stage(w, ro, &c->judge, &c->p2p, res.npaths ? &remap : NULL,
				  irc < 0 || prc < 0 || crc < 0 || trc < 0, verdict, sizeof verdict);
		trc = rm.rc;
	}
	p2p_result_free(&res);
	worst = irc < 0 ? irc : prc < 0 ? prc : crc < 0 ? crc : trc < 0 ? trc : jrc < 0 ? jrc : 0;
	if (worst)
		return worst;
	if (w->rank == 0)
		printf("verdict: %s (nodes %s; pairs: %s; collectives: %s; latency map: %s%s%s)\n",
		       irc || prc || crc || trc || jrc ? "FAIL" : "PASS",
		       c->no_inventory ? "not inventoried" : irc ? "differ, see inventory_mismatch.csv" : "alike",
		       prc ? "some failed" : "all measured", c->no_coll ? "not run" : crc ? "WRONG RESULTS" : "correct",
		       trc ? "suspects in suspects.csv" : "no suspects", verdict[0] ? "; " : "", verdict);
	return irc || prc || crc || trc || jrc;
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
	judge_opts_free(&c.judge);
	return rc;
}
