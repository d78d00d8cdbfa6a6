/* compare_out.h — what a comparison writes: compare.csv and compare_topology.csv (one row per
 * compared item), and the terminal summary (counts per class, the worst regressions, the nodes
 * that moved). Pure (FILE * only). */
#ifndef FP_COMPARE_OUT_H
#define FP_COMPARE_OUT_H

#include <stdio.h>

#include "compare.h"

#define CMP_WORST 10
#define CMP_MOVED_SHOWN 20

/* A pair whose comparison came out worse (names borrowed from the runs). */
struct cmp_pair {
	const char *path, *a, *b;
};

struct cmp_report {
	FILE *csv, *map_csv;                 /* rows go here when not NULL */
	long long count[CMP_NKIND][CMP_NCLASS];
	double tol_min, tol_max;             /* p2p tolerances used, % */
	struct cmp_item worst[CMP_WORST];
	double worst_bad[CMP_WORST];
	int nworst;
	long long map_count[CMP_MAP_CHANGED + 1];
	char moved[CMP_MOVED_SHOWN][200];    /* "node04 (leaf): leaf00 -> leaf02 (BASE's leaf01)" */
	int nmoved;
	char tiers[64];                      /* "2 -> 3" when the number of tiers changed */
	struct cmp_pair *worse;              /* unordered pairs with a worse p2p item, unique */
	int nworse, worse_cap;
	int oom;
};

/* Start a report; writes the CSV headers to the files given (either may be NULL). */
void cmp_report_init(struct cmp_report *r, FILE *csv, FILE *map_csv);
void cmp_report_free(struct cmp_report *r);
/* The sinks of cmp_p2p/cmp_coll/cmp_inventory and of cmp_map: ctx is the report. */
void cmp_report_item(void *ctx, const struct cmp_item *it);
void cmp_report_map(void *ctx, const struct cmp_map_row *row);
/* Anything worse or gone: the comparison fails. */
int cmp_report_failed(const struct cmp_report *r);
/* The summary; skip (may be NULL) says what was not compared. */
void cmp_report_print(FILE *f, const struct cmp_report *r, const struct cmp_skip *skip, const char *base,
		      const char *cur);

#endif
