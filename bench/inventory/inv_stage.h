/* inv_stage.h — the inventory stage (`fabprobe inventory`, and a stage of `run`): its options
 * and the stage itself. What it writes is private to bench/inventory (inv_report.h). */
#ifndef FP_INV_STAGE_H
#define FP_INV_STAGE_H

#include <stddef.h>
#include <stdio.h>

#include "core/opts.h"
#include "core/results.h"
#include "node/inventory.h"

struct inv_opts {
	const char *sysfs_root;   /* may hold %h (host name) and %r (world rank) */
	const char *hwloc_xml;    /* idem; NULL = the running machine */
	const char *nvml_capture; /* idem: NVML's answers captured (topo/node/inv_nvml.h) */
	const char *nvml_save;    /* idem: write this node's NVML answers there as a capture */
	const char *k8s_nodes;    /* `kubectl get nodes -o json`: nvidia.com/gpu.clique checked */
	struct results_where where;  /* -o, --name, --results-root */
	const char *gpu_path;     /* the GPU collective backend of this build, a path where
				     there are GPUs; NULL when none (given by the command layer) */
};

/* Parse `fabprobe inventory` options (argv[0] is "inventory"). Returns 0, 1 for --help, or
 * FP_EUSAGE with a one-line reason in err. Pure. */
int inv_opts_parse(int argc, char **argv, struct inv_opts *o, char *err);
/* The sources (--sysfs-root, --hwloc-xml, --nvml-capture) alone, for a command that runs the
 * inventory among its stages. */
struct opts_group inv_sources_group(struct inv_opts *o);
/* The defaults inv_opts_parse starts from (gpu_path NULL: the caller knows it). */
void inv_opts_default(struct inv_opts *o);
void inv_usage(FILE *f);
/* Expand %h → host, %r → rank, %% → % in pattern. Returns 0, or FP_EUSAGE when another %
 * sequence appears or out is too small. */
int inv_expand(const char *pattern, const char *host, int rank, char *out, size_t len);

struct world;
struct run_out;
struct inv_path;
/* Whether this rank speaks for its node (the lowest rank of its host; every rank when the
 * sources name the rank, %r), and the node's name into label (len bytes; may be NULL):
 * "host", or "host/r<rank>" for sources per rank. */
int inventory_leader(const struct world *w, const struct inv_opts *o, char *label, size_t len);
/* Before the run (every rank, collective): the captured sources this rank would read, as it
 * expands them, are a directory and a regular file. 0, or FP_EUSAGE on every rank. */
int inventory_check(struct world *w, void *arg);
/* The inventory stage inside a run (every rank; arg: const struct inv_opts *): probe, gather,
 * write and print. Returns 0, 1 when nodes differ from the majority, or FP_E*. */
int inventory_stage(struct world *w, struct run_out *ro, void *arg);
/* What the inventory found, for run (rank 0): the paths, the nodes inventoried, the rails of
 * the GPU↔NIC pairing (inv_rails). */
struct inv_found {
	struct inv_path paths[INV_PATHS_MAX];
	int np, nnodes;
	char rails[INV_RAILS_MAX][INV_PATH_MAX];
	int nrails;
	/* each node's NVLink domain (inv_node_domain; "" none), by its name: NULL when no node
	 * is in one (inv_found_free) */
	char (*host)[INV_HOST_MAX];
	char (*domain)[64];
};
void inv_found_free(struct inv_found *f);
/* The same, handing rank 0 what it found (may be NULL). */
int inventory_run(struct world *w, struct run_out *ro, const struct inv_opts *o, struct inv_found *found);

#endif
