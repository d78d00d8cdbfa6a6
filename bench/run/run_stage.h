/* run_stage.h — the stages of `fabprobe run`: inventory, pairs, map, confirm, coll, outputs,
 * checks. Each exports its options (a group of the command's parser, with their defaults and
 * validation) and its step over the shared run state; the command lists them, and
 * run_stages_parse / run_stages_check / run_stages_run compose the list in order. */
#ifndef FP_RUN_STAGE_H
#define FP_RUN_STAGE_H

#include <stdint.h>

#include "coll/coll.h"
#include "core/opts.h"
#include "core/run.h"
#include "core/world.h"
#include "fabric/emit/run_model.h"
#include "fabric/io/ctr_csv.h"
#include "fabric/judge/rails.h"
#include "fabric/plan/plan.h"
#include "inventory/inv_stage.h"
#include "node/counters.h"
#include "node/inventory.h"
#include "p2p/p2p.h"
#include "run/checks.h"
#include "run/run_map.h"

/* `fabprobe run`: the options of every stage. */
struct run_opts {
	struct p2p_opts p2p;
	struct inv_opts inv;
	struct coll_opts coll;
	long slots;                  /* ranks per node in host files; 0 = as in this job */
	const char *label_prefix;    /* Kubernetes label prefix */
	uint64_t coll_max;           /* largest all-reduce of the collectives stage */
	double min_pct;              /* --min-pct: a path's ring below this % of line rate counts */
	int no_inventory, no_coll;   /* leave a stage out */
	double confirm_time;         /* the confirmation pass: at most this long (s) */
	long confirm_factor;         /* …with this many times the samples and windows */
	int no_confirm;
	uint64_t order_size;         /* the order stage's all-reduce (B) */
	int no_order;                /* leave the order stage out */
	int no_counters;             /* leave the link counters out */
	long test_flap_rank;         /* --test-flap: this world rank takes test_flap_if down and up */
	char test_flap_if[16];
	int k8s_taint;               /* --k8s-taint: k8s-health-labels.yaml taints failed nodes */
	int topograph;               /* --topograph: topograph's graph JSON and model YAML too */
	struct checks_opts checks;   /* --baseline, --expect, --accept, --declared */
	int plan_mode;               /* --plan: RUN_PLAN_ALL, _MAP or _AUTO */
	struct plan_opts plan;       /* --plan-peers, --plan-groups, --uplink-streams */
	int planned;                 /* decided before the run: bandwidth from the map's plan */
	struct p2p_opts p2p_lat;     /* planned: the pairs stage's options, latency sizes alone */
	int loaded;                  /* --loaded: the loaded pass, after the order */
	int test_split_leaves;       /* --test-split-leaves: the first map's leaves drawn split (a hook) */
	int test_model;              /* --test-model: the judges' model checked against the directory */
	char rails[P2P_PATHS_MAX][P2P_PATH_MAX]; /* --rails: the paths that are one fabric's rails */
	int nrails;
	double together_min;         /* --rails-together-min (a fraction): 0 leaves the pass out */
};

/* --rails-together-min's default: a node's rails at once below 75% of their sum alone */
#define RUN_TOGETHER_MIN 0.75

/* --plan auto takes the map's plan above this many endpoints (all pairs up to it) */
enum { RUN_PLAN_ALL, RUN_PLAN_MAP, RUN_PLAN_AUTO };
#define RUN_PLAN_AUTO_MIN 64 /* (the terminal says "more than 64": keep them one) */

/* The link counters (run_counters.c): what rank 0 gathered (sum), and each node's first read. */
#define RUN_LINK_FINDINGS_MAX 256
_Static_assert(CTR_FIND_NODE_MAX == WORLD_LABEL_MAX && CTR_FIND_PORT_MAX == CTR_PORT_MAX, "ctr_finding's sizes");
struct run_links {
	struct ctr_set before;       /* a leader: its node's first read */
	char node[WORLD_LABEL_MAX];  /* …and the node's name */
	int leader, read;            /* this rank reads for its node; the first read was made */
	struct ctr_summary sum;      /* rank 0: the second read gathered, and its findings */
};

/* One run, as the stages hand it on. Each stage's result: 0, 1 when it found something (a
 * node that differs, a failed pair, a wrong result, a suspect), or FP_E* when it failed at
 * run time (then the stages after it do nothing, but for the checks, which must be told). */
struct run_state {
	struct run_opts *c;
	struct inv_found inv;        /* rank 0: the paths the inventory found, its nodes, rails */
	struct p2p_result res;       /* rank 0: the pairs' figures */
	struct run_maps mp;          /* rank 0: the latency maps */
	struct coll_summary coll;    /* rank 0: the collectives' wrong rows and paths below --min-pct */
	char which[1024];            /* rank 0: the confirmed suspects, as the verdict says them */
	/* rank 0, when a judge is asked for: the run as its judges read it, made from the text its
	 * writers hand to the results directory's tee (never read back from the directory), and
	 * the first failure to make it (FP_E*, said in model_err) */
	struct rundir model;
	int model_rc;
	char model_err[RUNDIR_ERR_MAX];
	struct verdict judged;       /* rank 0: the judges' clauses (the checks stage) */
	struct verdict rails;        /* rank 0: --rails' clause (run_rails) */
	/* rank 0: each port off its rail's leaf, probed from a reference node's ports of every rail
	 * (run_rail_probe.c): the 10th percentile of the half round trips from each (µs, NAN
	 * none), how many are below their map's midpoint, and the rail whose leaf it is in (-1:
	 * the probes name none) */
	struct rail_where { int node, rail, ref, leaf_rail, nnear; double us[RAILS_MAX]; } *where;
	int nwhere;
	/* rank 0: each direction of the pairs that ran every rail at once (run_rails_together.c) */
	struct rails_together_test *tog;
	int ntog;
	/* rank 0: a RoCE rail port's congestion counter that rose over that pass (ctr_quiet_finding) */
	struct rail_quiet { int node; char port[CTR_PORT_MAX], name[CTR_NAME_MAX]; unsigned long long rise; } *quiet;
	int nquiet;
	/* rank 0, after the stages: the node findings of no map (run_rails: the rails at once) */
	struct run_node_finding *node_finds;
	int nnode_finds;
	struct verdict verdict;      /* rank 0, after the stages: the run's verdict, every clause */
	struct run_links links;      /* the link counters */
	/* rank 0: each path's map that its bandwidth plan was made from (groups tier-major), and
	 * the pairs its plans measured (a * n + b, a < b, sorted) */
	struct run_planned { int ntiers, *group; long long *pair; size_t npairs; } planned[P2P_PATHS_MAX];
	int irc, prc, mrc, krc, crc, trc, lrc, jrc; /* inventory, pairs, map, confirm, coll, outputs, links, checks */
	/* rank 0, after the stages: what nothing could judge (no pair, a path with no direction,
	 * --min-pct without a line rate), "; "-separated; urc: 1 when it fails the run (not allowed
	 * by --allow-unjudged). No verdict is a PASS from nothing. */
	char unjudged[512];
	int urc;
	int failed;                  /* the first stage result < 0 (this rank's), else 0 */
};

/* A stage of `run`. */
struct run_stage {
	const char *name;
	/* its options' defaults into c, and their groups into g (room for 2): the count, 0 for none */
	int (*opts)(struct run_opts *c, struct opts_group *g);
	/* whether the options leave it in (NULL: always) */
	int (*on)(const struct run_opts *c);
	/* before the run, collective: options that depend on the ranks. 0, or FP_EUSAGE (NULL: none) */
	int (*check)(struct world *w, struct run_opts *c);
	/* its work, every rank: the stage's result (as run_state), also written into st */
	int (*step)(struct world *w, struct run_out *ro, struct run_state *st);
	int after_failure;           /* runs even after an earlier stage failed (and is told) */
};

extern const struct run_stage run_stage_inventory, run_stage_counters_before, run_stage_pairs, run_stage_map,
	run_stage_bandwidth, run_stage_loaded, run_stage_confirm, run_stage_rails,
	run_stage_rails_together, run_stage_coll, run_stage_outputs, run_stage_order, run_stage_counters, run_stage_checks;

/* Every rank (run_plan.c): rank 0's packed plan (*buf, *len; a negative *len: rank 0 failed)
 * shared and unpacked into pl (as the caller set it: directed, adapt, adapt_ctx), then measured by
 * the endpoints, bandwidth sizes alone, into csv (nothing when the plan has no path); rank 0's
 * figures into got. Returns 0, or FP_E* (FP_ETIMEDOUT: an endpoint hung, not agreed); *prc is
 * p2p_plan_main's (1: a pair failed). */
int run_plan_measure(struct world *w, struct run_out *ro, const struct run_opts *c, int **buf, int *len,
		     const double *est, const char *csv, const char *what, struct p2p_plan *pl, struct p2p_result *got,
		     int *prc);
/* Every rank, after the confirmation pass of a planned run: when a path's confirmed map is not
 * the tree its bandwidth plan was made from (a leaf the first map split or joined), the plan of
 * the confirmed map, less the pairs measured, measured too (appended to p2p_bw.csv), and the
 * maps and their candidates made again from every figure. Returns 1 when it measured (the
 * caller confirms again), 0 when every plan covered its map, or FP_E*. */
int run_plan_refill(struct world *w, struct run_out *ro, struct run_state *st);
/* Every rank (run_bisect.c): the groups that failed under load in the loaded figures (rank
 * 0's), bisected to what explains each. 0 or FP_E* (FP_ETIMEDOUT: an endpoint hung). */
int run_bisect(struct world *w, struct run_out *ro, struct run_state *st, const struct p2p_result *loaded);

/* rank 0, when --rails names the rails (run_rails.c): whether each rail's port of each node is
 * in its rail's leaf, judged from the rails' maps (fabric/judge/rails.h), as one clause for the
 * verdict (VERDICT_RAILS) into v; what cannot be judged (a rail with no map, ranks of one node)
 * into unjudged (len bytes, "" when all was). 0, or FP_ERUNTIME. */
int run_rails(struct run_state *st, const struct world *w, struct verdict *v, char *unjudged, size_t len);

/* rank 0, after the verdict (run_files.c): the run's own files from its model
 * (fabric/emit/run_model.h): summary.json, fabprobe.prom, junit.xml, drain-slurm.sh and
 * k8s-health-labels.yaml; line is the verdict's. A file that cannot be written is said, the
 * others stand. */
/* The counters over one pass with no incast (run_counters.c; the rails at once): an endpoint
 * reads its node's before the pass (when a rail is verbs:, unless --no-counters), and after it
 * (collective over epcomm, measured: the pass ran) rank 0 keeps each node's RoCE rail ports'
 * congestion counters that rose (ctr_quiet_finding) in st->quiet. */
struct run_quiet {
	struct ctr_set before;
	int have;
};
void run_quiet_before(const struct run_opts *c, const struct world *w, struct run_quiet *q);
void run_quiet_after(struct run_state *st, const struct world *w, struct run_quiet *q, int measured);

void run_files_write(const struct world *w, const struct run_out *ro, const struct run_state *st, const char *line);

/* Parse `fabprobe run`'s options: those of every stage listed (NULL-terminated). Returns 0, 1
 * when --help was asked for, or FP_EUSAGE with a one-line reason in err. Pure. */
int run_stages_parse(const struct run_stage *const *stages, int argc, char **argv, struct run_opts *c, char *err);
/* Every listed stage's check, of those the options leave in. 0 or FP_EUSAGE (collective). */
int run_stages_check(const struct run_stage *const *stages, struct world *w, struct run_opts *c);
/* The stages in order, every one even when an earlier one found something, as the verdict lists
 * them all; a stage that fails at run time ends the work (its error was logged), and an
 * endpoint that hung (FP_ETIMEDOUT) ends the run at once. Rank 0 says the verdict. Returns 0,
 * 1 when anything was found, or FP_E*. */
int run_stages_run(const struct run_stage *const *stages, struct world *w, struct run_out *ro, struct run_opts *c);

#endif
