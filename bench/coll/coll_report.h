/* coll_report.h — what the collective engine writes: collectives.csv rows, the nccl-tests
 * terminal table and coll_meta.json (coll_report.c, pure over plain structs). Private to
 * bench/coll. */
#ifndef FP_COLL_REPORT_H
#define FP_COLL_REPORT_H

#include <stdio.h>

#include "coll_backend.h"
#include "fabric/io/coll_csv.h"

enum coll_status { COLL_OK, COLL_WRONG, COLL_UNSUPPORTED };

/* One row of collectives.csv: one case at one size, merged over ranks (rank 0). */
struct coll_row {
	const char *run_id, *backend, *path;   /* path: --path, or "" */
	const struct coll_case *c; /* op, dtype, redop, root, count, in_place */
	uint64_t size_B;
	int nnodes;
	double time_us, time_us_max, algbw, busbw; /* NAN when not measured */
	int64_t wrong;                              /* -1 when not checked */
	int status;
	double line_rate_Gbps;                      /* the ring's bottleneck port; NAN unknown */
	const char *carried_by;                     /* coll_backend.carried's text on rank 0; NULL */
};

/* r as a collectives.csv row (its header: coll_csv_header, fabric/io/coll_csv.h) */
void coll_csv_row(FILE *f, const struct coll_row *r);
/* The nccl-tests terminal table: a header, then one line per size with both modes. */
void coll_table_header(FILE *f);
void coll_table_line(FILE *f, const struct coll_row *oop, const struct coll_row *ip);
const char *coll_status_name(int status);

/* What became of each backend, for coll_meta.json. */
struct coll_be_status {
	const char *name;
	int selected, usable;
	char why[256];          /* why it is skipped */
	char version[128];      /* library version, "" when unknown */
};

/* coll_meta.json: options, backends and their versions, the NCCL_* variables of env (an
 * environ-style array). 0, or FP_ERUNTIME (a write failed). */
int coll_meta_write(FILE *f, const struct coll_opts *o, const struct coll_be_status *st, int nst,
		    int nranks, int nnodes, char *const *env);

#endif
