/* run_cmd.c — `fabprobe run`, the main job: the point-to-point map, then the latency map and
 * the scheduler files, in one results directory, with a verdict and an exit code. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "infer.h"
#include "launcher.h"
#include "log.h"
#include "mpi_util.h"
#include "p2p.h"
#include "run.h"
#include "topo_cmd.h"
#include "topo_csv.h"
#include "world.h"

static void run_usage(FILE *f)
{
	fputs("usage: mpirun [...] fabprobe run [options]\n"
	      "\n"
	      "The whole job: latency and bandwidth between every pair of nodes, then the latency map\n"
	      "(which nodes share a leaf switch, which cross a spine), the node order and the files\n"
	      "schedulers consume, all in one results directory; a verdict and an exit code\n"
	      "(0 pass; 1 a pair failed or a suspect node or link was found).\n"
	      "\n"
	      "Latency map:\n"
	      "      --slots N           ranks per node in the host files (default: as in this job)\n"
	      "      --label-prefix P    Kubernetes label prefix (default fabprobe)\n"
	      "\nThe point-to-point options of `fabprobe p2p` apply:\n\n", f);
}

struct run_ctx {
	struct p2p_opts o;
};

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
	topo_summary_print(stdout, &t);
	if (rc == FP_EUSAGE)
		rc = 0; /* a format that cannot hold these names was said on stderr; the run stands */
	if (rc == 0 && r.nsuspects)
		rc = 1;
	infer_result_free(&r);
	free(labels);
	return rc;
}

static int run_body(struct world *w, struct run_out *ro, void *arg)
{
	struct run_ctx *c = arg;
	struct p2p_maps maps = { 0 };
	int rc = 0, trc = 0;

	if (w->my_ep >= 0)
		rc = p2p_main(&c->o, w, ro, w->rank == 0 ? &maps : NULL);
	if (w->rank == 0 && rc >= 0 && maps.lat)
		trc = run_topology(c, w, ro, &maps);
	if (w->rank == 0 && rc >= 0 && trc >= 0)
		printf("verdict: %s (%s pairs failed%s)\n", rc || trc ? "FAIL" : "PASS", rc ? "some" : "no",
		       trc ? "; suspects in suspects.csv" : "; no suspects");
	free(maps.lat);
	free(maps.bw);
	if (rc < 0 || trc < 0)
		return rc < 0 ? rc : trc;
	return rc || trc;
}

int cmd_run(int argc, char **argv)
{
	struct run_ctx c;
	char err[OPTS_ERR_MAX];
	int rc = p2p_opts_parse(argc, argv, &c.o, err);

	if (rc == 1) {
		run_usage(stdout);
		p2p_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc)
		return launcher_usage_error("run", err);
	return run_command(argc, argv, "run", &(struct run_where){ c.o.output, c.o.name, c.o.root },
			   c.o.progress, NULL, run_body, &c);
}
