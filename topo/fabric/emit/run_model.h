/* run_model.h — what a run's own files are written from: summary.json (emit_summary.c),
 * junit.xml (emit_junit.c), fabprobe.prom (emit_prom.c), drain-slurm.sh and
 * k8s-health-labels.yaml (emit_actions.c). One plain struct, pure data: `run` fills it from its
 * stages once the verdict is made (bench/run), and every writer takes it and nothing else, so
 * that the files cannot tell two stories. The measurements the judges read are the model of
 * fabric/io/rundir.h; this holds what they say. */
#ifndef FP_RUN_MODEL_H
#define FP_RUN_MODEL_H

#include <stdio.h>
#include <time.h>

#include "fabric/infer/suspects.h"
#include "fabric/io/coll_csv.h"
#include "fabric/io/ctr_csv.h"
#include "fabric/judge/verdict.h"

/* summary.json's schema: the file holds every field of the model */
#define RUN_MODEL_SCHEMA "fabprobe.summary/2"
#define RUN_MODEL_PATHS_MAX 16
/* fabprobe.prom holds the pairs' series only up to this many nodes (n^2 of them) */
#define RUN_MODEL_PROM_PAIRS_MAX 128

/* A finding on a node that no path's map holds (the rails at once, fabric/judge/rails.h): the
 * actions fail its node. */
#define RUN_NODE_FIND_KIND_MAX 24
#define RUN_NODE_FIND_WHAT_MAX 200
struct run_node_finding {
	char kind[RUN_NODE_FIND_KIND_MAX];       /* "rails_together" */
	char host[CTR_FIND_NODE_MAX];
	char what[RUN_NODE_FIND_WHAT_MAX];       /* its figures, one line */
};

/* One path measured: its figures and its map. */
struct run_model_path {
	const char *path, *kind;                 /* "tcp:eth0", "eth" */
	double line_rate_Gbps;                   /* the slowest usable port; NAN unknown */
	int ok, failed;                          /* directions at the last size */
	int n;                                   /* the matrices' endpoints: the run's hosts */
	const float *lat_min, *lat_p50, *lat_p99, *bw; /* n x n, µs and GB/s, NAN missing; NULL none */
	const struct infer_result *map;          /* the map (the confirmed one once drawn), NULL none */
	const struct susp_list *held;            /* the findings that count */
	const struct susp_list *rest;            /* those re-tested that did not hold; NULL: none re-tested */
};

struct run_model {
	const char *run_id, *version;
	time_t started;
	int argc;
	char *const *argv;
	int nodes, ranks;                        /* of the job */
	int n;                                   /* endpoints: hosts[0..n) */
	const char *const *hosts;
	int single_node;                         /* the endpoints are ranks of one node, not nodes */
	int nasked;                              /* the paths measured, as asked or found */
	const char *asked[RUN_MODEL_PATHS_MAX];
	int npaths, compute;                     /* the paths with figures; the one whose map the
						  * scheduler files are of */
	struct run_model_path path[RUN_MODEL_PATHS_MAX];
	int inventoried, inventory_differs;
	int pairs_failed;
	int coll_run;                            /* the collectives stage ran */
	double min_pct;                          /* --min-pct: an all-reduce below it fails */
	const struct coll_summary *coll;
	const struct ctr_summary *links;         /* .done 0: not read */
	int nnode_finds;                         /* the node findings of no map (summary.json's
						  * node_findings) */
	const struct run_node_finding *node_finds;
	const struct verdict *verdict;           /* every clause */
	const char *line;                        /* the verdict's one line */
	const char *which;                       /* the confirmed suspects, as the line says them */
	const char *unjudged;                    /* what nothing could judge ("" none) */
	int unjudged_fails;
	const char *label_prefix;                /* the health labels' prefix */
	int k8s_taint;                           /* failed nodes tainted NoSchedule */
};

/* The writers, each onto f: 0, FP_EUSAGE (a name the format cannot hold: said in err, nothing
 * to keep) or FP_ERUNTIME. */
int emit_summary_json(FILE *f, const struct run_model *m);
int emit_junit(FILE *f, const struct run_model *m);
int emit_prom(FILE *f, const struct run_model *m);
/* Each endpoint's findings, one line each (why[e], NULL when none), from the findings that held
 * on a node and the link counters that rose: the nodes the actions name. reasons holds the
 * text (m->n lines of EMIT_REASON_MAX); none on one node (ranks are no nodes to drain). */
void run_model_reasons(const struct run_model *m, char *reasons, const char **why);

/* The model rebuilt from dir's summary.json (run_model_load.c), with what it points to
 * (own): every field the writers above read, checked as they write it, but the pairs'
 * matrices (NULL: they are the measurements, which fabric/io/rundir.h reads) and the actions'
 * options (label_prefix NULL, k8s_taint 0). 0; 1 when dir holds no summary.json; FP_EUSAGE
 * (err: what in the file, where, is not as fabprobe writes it, or another schema) or
 * FP_ERUNTIME. Unless 0, nothing to unload. */
struct run_model_store;
struct run_model_loaded {
	struct run_model m;
	struct run_model_store *own;
};
int run_model_load(const char *dir, struct run_model_loaded *out, char *err, size_t len);
void run_model_unload(struct run_model_loaded *l);

#endif
