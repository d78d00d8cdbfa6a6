/* run.c — `fabprobe run`, the main job: its usage, its options and the list of its stages
 * (bench/run/run_stage.h), in one results directory, with a verdict and an exit code. */
#include <stdio.h>

#include "cmd.h"
#include "core/run.h"
#include "run/run_stage.h"

/* The judges' options: checks.c's, --rails, --test-model. */
static void run_usage_judges(FILE *f)
{
	checks_usage(f, 1);
	fputs("      --rails LIST        the paths that are one fabric's rails (3 or more, e.g.\n"
	      "                          verbs:mlx5_0:1,...,verbs:mlx5_7:1): a port its rail's map puts\n"
	      "                          apart from the nodes its other rails group it with is off its\n"
	      "                          rail's leaf (a cabling finding: fails the run, drains nothing;\n"
	      "                          probed from a node of its unit to name the leaf it is in,\n"
	      "                          a verbs: port on its netdev); a node finding on fewer than half of a node's rails\n"
	      "                          is its ports' (docs/rails.md)\n"
	      "      --rails-together-min PCT\n"
	      "                          with --rails, each node's rails alone then all at once with\n"
	      "                          two partners of its unit (rails_together.csv): a node whose\n"
	      "                          rails at once move less than PCT % of their sum alone (and\n"
	      "                          under 0.8 of the median) is a finding (default 75; 0: not run)\n", f);
	fputs("      --test-model        check that the judges' model of this run (made from what it\n"
	      "                          wrote, never read back) holds what its directory does (tests)\n", f);
}

/* run's own options, by stage (the judges' from checks_usage). */
static void run_usage(FILE *f)
{
	fputs("usage: mpirun [...] fabprobe run [options]\n"
	      "\n"
	      "The whole job: latency and bandwidth between every pair of nodes, then the latency map\n"
	      "(which nodes share a leaf switch, which cross a spine), the node order and the files\n"
	      "schedulers consume, all in one results directory; a verdict and an exit code\n"
	      "(0 pass; 1 a pair failed, a suspect node or link was found, a collective was wrong or\n"
	      "a path's ring below --min-pct).\n"
	      "\n"
	      "Stages: inventory (as `fabprobe inventory`), point to point (as `fabprobe p2p`) over\n"
	      "every path the inventory found (mpi, tcp:<netdev>, verbs:<dev>:<port>; -p to choose),\n"
	      "a latency map per path (as `fabprobe topo`) whose candidate suspects are re-measured\n"
	      "alone before they count (the confirmation pass), an all-reduce sweep through MPI and\n"
	      "NCCL (as `fabprobe coll -b 8 -e MAX -f 4`) and through fabprobe's own ring over each\n"
	      "path measured (one rank per node, the path's line rate known: collectives.csv's path,\n"
	      "line_rate_Gbps and pct_line_rate), then the node order proven: an all-reduce in the\n"
	      "written node order, the launch order and a random one (order_check.csv).\n"
	      "      --no-inventory      leave the inventory out (then -p, or mpi alone)\n"
	      "      --sysfs-root DIR, --hwloc-xml FILE, --nvml-capture DIR, --k8s-nodes FILE\n"
	      "                          the inventory reads these instead of the machine (as\n"
	      "                          `fabprobe inventory` does; %h the node, %r the rank): the\n"
	      "                          paths found and the rails (each GPU's nearest port, in GPU\n"
	      "                          order: --rails unless given, when every one is measured)\n"
	      "      --no-coll           leave the collectives out (and the order's all-reduce)\n"
	      "      --coll-max SIZE     largest all-reduce (default 64M)\n"
	      "      --min-pct PCT       a path whose ring all-reduce reaches less than PCT % of the\n"
	      "                          line rate in busbw at the largest size is a finding (exit 1).\n"
	      "                          Default 0, not judged: on an oversubscribed fabric a ring is\n"
	      "                          bound by the uplinks, not the ports; give the figure the\n"
	      "                          fabric was bought for, with a --coll-max that reaches it\n"
	      "      --order-size SIZE   the order's all-reduce, 1K..1G (default 4M)\n"
	      "      --no-order          leave the order's all-reduce out\n"
	      "Link counters (counters.csv):\n"
	      "      --no-counters       do not read the ports' counters before the first pair and\n"
	      "                          after the last transfer (a flap or error counter that rose\n"
	      "                          on a port is a finding: link_flap, link_errors)\n"
	      "      --test-flap RANK:IF world rank RANK takes interface IF down and up again before\n"
	      "                          the second read (tests; needs CAP_NET_ADMIN)\n"
	      "Bandwidth plan (at scale: latency over every pair, then the bandwidth the map plans):\n"
	      "      --plan all|map|auto every pair's bandwidth (all); or every pair's latency, the\n"
	      "                          map, then bandwidth inside every leaf and, across leaves,\n"
	      "                          each node against a few nodes of its sibling groups at each\n"
	      "                          tier, a step's pairs at once, at most --uplink-streams\n"
	      "                          through a leaf's uplink (map; rows in p2p_bw.csv). Default\n"
	      "                          auto: map above 64 endpoints, all up to it\n"
	      "      --plan-peers K      nodes of each sibling group a node meets (default 1)\n"
	      "      --plan-groups M     sibling groups a node meets at each tier, at most (default 16;\n"
	      "                          turned from node to node, a group's nodes meet them all)\n"
	      "      --uplink-streams S  pairs at once through one leaf's uplink (default 1)\n"
	      "      --loaded            after the rest, a loaded pass: every node in a pair at once\n"
	      "                          (mpiGraph's shift in blocks of the map's tree order), into\n"
	      "                          p2p_loaded.csv and loaded_bandwidth_<path>.csv, each tier's\n"
	      "                          median against the isolated one; never judged\n"
	      "      --test-split-leaves the first map draws every leaf of 4 nodes or more as two,\n"
	      "                          as a latency pass that split them would (tests: the plan\n"
	      "                          made again from the confirmed map)\n"
	      "Confirmation pass:\n"
	      "      --confirm-time SEC  at most this long (estimated up front; default 120)\n"
	      "      --confirm-factor N  samples and windows, N times the first pass's (default 2)\n"
	      "      --no-confirm        count the candidates as found, without re-measuring them\n"
	      "Latency map:\n"
	      "      --slots N           ranks per node in the host files (default: as in this job)\n"
	      "      --label-prefix P    Kubernetes label prefix (default fabprobe)\n"
	      "      --topograph         also topograph-graph.json and topograph-model.yaml (NVIDIA\n"
	      "                          topograph 1.0's graph and model forms)\n"
	      "Actions, written, never applied (drain-slurm.sh, k8s-health-labels.yaml):\n"
	      "      --k8s-taint         the failed nodes' Node objects carry a NoSchedule taint\n", f);
	run_usage_judges(f);
	fputs("\nThe point-to-point options of `fabprobe p2p` apply:\n\n", f);
}

/* The --help of `run`: its own options, then those of p2p. */
static void run_usage_all(FILE *f)
{
	run_usage(f);
	p2p_usage(f);
}

/* The stages, in order; each one's options are run's, and the options may leave one out. */
static const struct run_stage *const run_stages[] = {
	&run_stage_inventory, /* --no-inventory */
	&run_stage_counters_before, /* --no-counters */
	&run_stage_pairs,
	&run_stage_map,
	&run_stage_bandwidth, /* --plan map (auto: above 64 endpoints): the map's bandwidth plan */
	&run_stage_confirm,   /* --no-confirm: the candidates count as found, unmeasured */
	&run_stage_rails,     /* --rails: the leaf each port off its rail's leaf is in, probed */
	&run_stage_rails_together, /* --rails: every rail of a node at once */
	&run_stage_coll,      /* --no-coll */
	&run_stage_outputs,
	&run_stage_order,     /* with the collectives, unless --no-order */
	&run_stage_loaded,    /* --loaded: every node in a pair at once, apart from the isolated figures */
	&run_stage_counters,  /* the second read of the link counters */
	&run_stage_checks,    /* only with --baseline, --expect, --accept or --declared */
	NULL,
};

int run_opts_parse(int argc, char **argv, struct run_opts *c, char *err)
{
	return run_stages_parse(run_stages, argc, argv, c, err);
}

/* Before the run: each stage left in checks what depends on the ranks. */
static int run_check(struct world *w, void *arg)
{
	return run_stages_check(run_stages, w, arg);
}

/* The stages in order; the report once meta.json is final. */
static int run_body(struct world *w, struct run_out *ro, void *arg)
{
	ro->after = cmd_report_after;
	return run_stages_run(run_stages, w, ro, arg);
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
