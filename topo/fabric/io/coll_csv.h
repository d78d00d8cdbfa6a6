/* coll_csv.h — collectives.csv's columns: the one definition that the writer (bench/coll) and
 * every reader (fabric/io/rundir.c, report/report_coll.c, report/report.c) share. A column's
 * name is written nowhere else: others take coll_csv_cols[COLL_COL_…].name. */
#ifndef FP_COLL_CSV_H
#define FP_COLL_CSV_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "core/csv.h"

/* One row: one collective case at one size, merged over ranks. Missing values are NAN / -1 /
 * NULL (empty cells). */
struct coll_csv_row {
	const char *run_id, *backend, *op;
	int64_t size_B, count;
	const char *dtype, *redop;
	int64_t root, nranks, nnodes, in_place;
	double time_us, time_us_max, algbw_GBps, busbw_GBps; /* µs; GB/s */
	int64_t wrong;                                       /* elements wrong, -1 unchecked */
	const char *status;                                  /* ok, wrong, unsupported */
	const char *path;                                    /* --path; empty: the library's choice */
	double line_rate_Gbps;   /* fabprobe's ring: the slowest endpoint's port rate; NAN unknown */
	double pct_line_rate;    /* busbw as % of it */
	const char *carried_by;  /* what carried the backend's traffic, as rank 0 saw it; "" unknown */
};

/* Column indices, in file order. Columns added later go at the end, so that readers by
 * position (awk in scripts) keep working. */
enum coll_col {
	COLL_COL_RUN_ID, COLL_COL_BACKEND, COLL_COL_OP, COLL_COL_SIZE, COLL_COL_COUNT, COLL_COL_DTYPE,
	COLL_COL_REDOP, COLL_COL_ROOT, COLL_COL_NRANKS, COLL_COL_NNODES, COLL_COL_IN_PLACE, COLL_COL_TIME,
	COLL_COL_TIME_MAX, COLL_COL_ALGBW, COLL_COL_BUSBW, COLL_COL_WRONG, COLL_COL_STATUS, COLL_COL_PATH,
	COLL_COL_LINE_RATE, COLL_COL_PCT_LINE_RATE, COLL_COL_CARRIED_BY, COLL_NCOLS
};

extern const struct csv_col coll_csv_cols[COLL_NCOLS];

/* busbw (GB/s) as a percentage of a line rate (Gbit/s): pct_line_rate, the one formula of
 * every writer (collectives.csv, the verdict, summary.json, junit.xml, a tier's figure); NAN
 * when the rate is unknown (not above 0, or NAN). */
static inline double coll_pct_line_rate(double GBps, double rate_Gbps)
{
	return rate_Gbps > 0 ? GBps * 8 / rate_Gbps * 100 : NAN;
}

void coll_csv_header(FILE *f);
void coll_csv_write(FILE *f, const struct coll_csv_row *row);

/* What the verdict and summary.json of a run need from its collectives stage (rank 0). */
#define COLL_SUMMARY_SWEEPS 64
#define COLL_CARRIED_MAX 320 /* what carried a backend's traffic, and why it is not the path */
struct coll_summary {
	int wrong_rows;          /* rows with a wrong element */
	int wrong_paths;         /* backends whose traffic another path carried (coll_backend.carried) */
	char wrong_path[COLL_CARRIED_MAX]; /* the first one's reason */
	int nlow;                /* paths below --min-pct */
	char low[256];           /* "tcp:eth0 31%, ..." */
	int nrated, nunrated;    /* all-reduce sweeps --min-pct judged, and could not (no line rate) */
	int nsweeps;             /* each sweep's largest size (the first COLL_SUMMARY_SWEEPS) */
	struct coll_sweep_sum {
		char backend[16], path[80], op[16], dtype[16], redop[8];
		uint64_t size_B;
		double busbw_GBps;       /* the better of out of place and in place */
		double line_rate_Gbps;   /* NAN when unknown */
		long long wrong;         /* wrong elements over the sweep's rows */
		int below_min_pct;       /* an all-reduce below --min-pct (line_rate_judge) */
	} sweep[COLL_SUMMARY_SWEEPS];
};

#endif
