/* inventory_cmd.h — `fabprobe inventory`: options, the output files, the subcommand. */
#ifndef FP_INVENTORY_CMD_H
#define FP_INVENTORY_CMD_H

#include <stdio.h>

#include "core/opts.h"
#include "core/results.h"
#include "node/inventory.h"

struct inv_opts {
	const char *sysfs_root;   /* may hold %h (host name) and %r (world rank) */
	const char *hwloc_xml;    /* idem; NULL = the running machine */
	struct results_where where;  /* -o, --name, --results-root */
	int have_nccl;            /* this build has NCCL: the nccl path exists where GPUs are */
};

/* Parse `fabprobe inventory` options (argv[0] is "inventory"). Returns 0, 1 for --help, or
 * FP_EUSAGE with a one-line reason in err. Pure. */
int inv_opts_parse(int argc, char **argv, struct inv_opts *o, char *err);
/* The defaults inv_opts_parse starts from. */
void inv_opts_default(struct inv_opts *o);
void inv_usage(FILE *f);
/* Expand %h → host, %r → rank, %% → % in pattern. Returns 0, or FP_EUSAGE when another %
 * sequence appears or out is too small. */
int inv_expand(const char *pattern, const char *host, int rank, char *out, size_t len);

/* What rank 0 writes, from the gathered inventories (ranks[k]: ranks on node k). */
struct inv_report {
	const char *dir, *run_id;
	const struct inv_node *nodes;
	const int *ranks;
	int n;
	const struct inv_path *paths;
	int npaths;
	const struct inv_mismatch *mm;
	int nmm;
};

/* nodes.csv, nics.csv, gpus.csv, paths.csv, inventory_mismatch.csv. 0 or FP_ERUNTIME. */
int inv_report_write(const struct inv_report *r);
/* The compact terminal table. */
void inv_report_print(FILE *f, const struct inv_report *r);

struct world;
struct run_out;
/* The inventory stage inside a run (every rank; arg: const struct inv_opts *): probe, gather,
 * write and print. Returns 0, 1 when nodes differ from the majority, or FP_E*. */
int inventory_stage(struct world *w, struct run_out *ro, void *arg);
/* The same, handing rank 0 the paths found (INV_PATHS_MAX of room; may be NULL) and the count
 * of nodes inventoried. */
int inventory_run(struct world *w, struct run_out *ro, const struct inv_opts *o, struct inv_path *paths,
		  int *npaths, int *nnodes);

#endif
