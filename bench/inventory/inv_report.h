/* inv_report.h — what the inventory stage writes (inv_report.c: the CSVs; inv_print.c: the
 * terminal table). Private to bench/inventory. */
#ifndef FP_INV_REPORT_H
#define FP_INV_REPORT_H

#include <stdio.h>

#include "node/inventory.h"

/* What rank 0 writes, from the gathered inventories (ranks[k]: ranks on node k). */
struct inv_report {
	const char *dir, *run_id;
	const struct results_tee *tee; /* the run's tee takes the files' text too (NULL: none) */
	const struct inv_node *nodes;
	const int *ranks;
	int n;
	const struct inv_path *paths;
	int npaths;
	const struct inv_mismatch *mm;
	int nmm;
	const char *label;  /* the summary line's word: "verdict" (NULL), "inventory" within run */
};

/* nodes.csv, nics.csv, gpus.csv, paths.csv, inventory_mismatch.csv. 0 or FP_ERUNTIME. */
int inv_report_write(const struct inv_report *r);
/* The compact terminal table. */
void inv_report_print(FILE *f, const struct inv_report *r);

#endif
