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
#include "inventory/inventory_cmd.h"
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

struct run_ctx {
	struct p2p_opts o;
	struct inv_opts inv;
	struct coll_opts coll;
	struct judge_opts judge;
	char verdict[JUDGE_VERDICT_MAX];  /* the judges' clauses of the verdict */
	int remapped, remap_rc;           /* the latency map drawn again after retests */
};

/* rank 0: the path's matrices again, now in the inferred tree order (DESIGN §4), so that a
 * heat map of them shows the switches as blocks */
static int matrices_reorder(const struct run_out *ro, const struct p2p_maps *maps, const char **labels,
			    const int *order)
{
	size_t n = (size_t)maps->n;
	double *m = malloc(sizeof *m * n * n);
	struct p2p_path_out po = { .path = maps->path, .nep = maps->n, .labels = labels, .order = order };
	char name[P2P_PATH_MAX + 32];
	int rc = 0;

	if (!m)
		return FP_ERUNTIME;
	for (int k = 0; k < 2 && rc == 0; k++) {
		const float *src = k ? maps->bw : maps->lat_p50;
		FILE *f;

		for (size_t i = 0; i < n * n; i++)
			m[i] = src[i];
		p2p_matrix_name(name, sizeof name, k ? "bandwidth" : "latency", maps->path);
		if (!(f = results_tmp_open(ro->dir, name)))
			rc = FP_ERUNTIME;
		else {
			p2p_matrix_write(f, &po, m, k ? 4 : 3);
			rc = results_tmp_commit(f, ro->dir, name);
		}
	}
	free(m);
	return rc;
}

/* rank 0: infer, write, summarise; returns 0, 1 when there are suspects, or FP_E* */
static int run_topology(const struct run_ctx *c, const struct world *w, const struct run_out *ro,
			const struct p2p_maps *maps)
{
	struct infer_opts io;
	struct infer_result r;
	const char **labels = malloc(sizeof *labels * (size_t)maps->n);
	char how[512], when[32];
	int rc;

	if (!labels)
		return FP_ERUNTIME;
	for (int e = 0; e < maps->n; e++)
		labels[e] = w->ep_label[e];
	infer_opts_default(&io);
	if (infer_tiers(maps->lat, maps->bw, maps->n, labels, &io, &r)) {
		free(labels);
		return FP_ERUNTIME;
	}
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ro->started));
	snprintf(how, sizeof how, "fabprobe %s run %s, path %s, started %s", FP_VERSION, ro->run_id, maps->path, when);
	struct emit_topo t = { .n = maps->n, .hosts = labels, .tree = &r,
			       .slots = (int)(c->o.slots ? c->o.slots : (w->size + w->nnodes - 1) / w->nnodes),
			       .label_prefix = c->o.label_prefix, .how = how };
	/* one node (every rank an endpoint): an intra-node map, nothing for schedulers */
	rc = topo_outputs_write(ro->dir, &t, !w->single_node);
	if (matrices_reorder(ro, maps, labels, r.order))
		rc = FP_ERUNTIME;
	topo_summary_print(stdout, &t);
	if (rc == FP_EUSAGE)
		rc = 0; /* a format that cannot hold these names was said on stderr; the run stands */
	/* on one node the map is of ranks (sockets, caches): informative, not a verdict */
	if (rc == 0 && r.nsuspects && !w->single_node)
		rc = 1;
	infer_result_free(&r);
	free(labels);
	return rc;
}

/* judge_stage's remap: the latency map again, from the figures its retests confirmed */
static int run_remap(void *arg, struct world *w, struct run_out *ro, const struct p2p_maps *maps)
{
	struct run_ctx *c = arg;

	c->remapped = 1;
	return c->remap_rc = run_topology(c, w, ro, maps);
}

/* Every stage runs even when an earlier one found something: the verdict lists them all. A
 * stage that fails at run time ends the run (its error was logged). */
static int run_body(struct world *w, struct run_out *ro, void *arg)
{
	struct run_ctx *c = arg;
	struct p2p_maps maps = { 0 };
	int irc = 0, prc = 0, crc = 0, trc = 0, jrc = 0, worst;

	if (!c->o.no_inventory)
		irc = inventory_stage(w, ro, &c->inv);
	if (irc >= 0 && w->my_ep >= 0)
		prc = p2p_main(&c->o, w, ro, w->rank == 0 ? &maps : NULL);
	/* every rank learns of a run-time error anywhere; failed pairs are rank 0's to report */
	int perr = prc < 0 ? prc : 0;
	MPI_Allreduce(MPI_IN_PLACE, &perr, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (perr < 0)
		prc = perr;
	if (irc >= 0 && prc >= 0 && !c->o.no_coll)
		crc = coll_stage(w, ro, &c->coll);
	if (w->rank == 0 && prc >= 0 && crc >= 0 && maps.lat)
		trc = run_topology(c, w, ro, &maps);
	if (judge_wanted(&c->judge)) {
		struct judge_remap remap = { run_remap, c };

		jrc = judge_stage(w, ro, &c->judge, &c->o, maps.lat ? &remap : NULL,
				  irc < 0 || prc < 0 || crc < 0 || trc < 0, c->verdict, sizeof c->verdict);
		if (c->remapped)
			trc = c->remap_rc;
	}
	free(maps.lat);
	free(maps.lat_p50);
	free(maps.bw);
	worst = irc < 0 ? irc : prc < 0 ? prc : crc < 0 ? crc : trc < 0 ? trc : jrc < 0 ? jrc : 0;
	if (worst)
		return worst;
	if (w->rank == 0)
		printf("verdict: %s (nodes %s; pairs: %s; collectives: %s; latency map: %s%s%s)\n",
		       irc || prc || crc || trc || jrc ? "FAIL" : "PASS",
		       c->o.no_inventory ? "not inventoried" : irc ? "differ, see inventory_mismatch.csv" : "alike",
		       prc ? "some failed" : "all measured", c->o.no_coll ? "not run" : crc ? "WRONG RESULTS" : "correct",
		       trc ? "suspects in suspects.csv" : "no suspects", c->verdict[0] ? "; " : "", c->verdict);
	return irc || prc || crc || trc || jrc;
}

/* The stages' own options, from their parsers, so that their defaults and checks apply. */
static int stage_opts(struct run_ctx *c, char *err)
{
	char *inv_argv[] = { "inventory", NULL };
	char *coll_argv[] = { "coll", "-b", "8", "-e", (char *)c->o.coll_max, "-f", "4", "-n", "10", "-w", "2", NULL };

	if (inv_opts_parse(1, inv_argv, &c->inv, err))
		return FP_EUSAGE;
	return coll_opts_parse(11, coll_argv, &c->coll, err) ? FP_EUSAGE : 0;
}

static int run_check(struct world *w, void *arg)
{
	struct run_ctx *c = arg;

	return c->o.no_coll ? 0 : coll_check(w, &c->coll);
}

int cmd_run(int argc, char **argv)
{
	struct run_ctx c = { .verdict = "" };
	char err[OPTS_ERR_MAX] = "out of memory", **rest = calloc((size_t)argc + 1, sizeof *rest);
	int nrest = 0, rc = rest ? judge_opts_take(argc, argv, &nrest, rest, &c.judge, 1, err) : FP_EUSAGE;

	if (rc == 0) /* the judging options are taken out first; the rest are p2p's and run's */
		rc = p2p_opts_parse(nrest, rest, &c.o, err);
	free(rest);
	if (rc == 1) {
		run_usage(stdout);
		p2p_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc == 0)
		rc = stage_opts(&c, err);
	if (rc)
		return launcher_usage_error("run", err);
	rc = run_command(argc, argv, "run", &c.o.where, c.o.progress, run_check, run_body, &c);
	judge_opts_free(&c.judge);
	return rc;
}
