/* p2p_csv.h — p2p.csv's columns: the one definition that the writer (bench/p2p) and every
 * reader (fabric/io/matrix.c, rundir.c, report/report_load.c: each finds its columns by these
 * names with csv_cols_find) share, so that the two cannot drift apart. A column's name is
 * written nowhere else: others take p2p_csv_cols[P2P_COL_…].name. */
#ifndef FP_P2P_CSV_H
#define FP_P2P_CSV_H

#include <stdint.h>
#include <stdio.h>

#include "core/csv.h"

/* One row: one direction of one pair, at one message size, on one path. Missing values are
 * NAN / -1 / NULL (empty cells). */
struct p2p_row {
	const char *run_id, *path, *kind, *src_host, *dst_host, *src_dev, *dst_dev;
	double line_rate_Gbps;
	int64_t size_B, lat_iters;
	double lat_us_min, lat_us_avg, lat_us_p50, lat_us_p99;
	int64_t bw_windows, window;
	double bw_GBps, bw_Gbps, pct_line_rate;
	const char *status, *note;
	double bw_GBps_total, bw_GBps_min, bw_GBps_max; /* total bytes / total time; window spread */
	int64_t bw_warmup_windows;
	const char *bw_warmup;                          /* "converged", "not converged", NULL */
};

/* Column indices, in file order. Columns added later go at the end, so that readers by
 * position (awk in scripts) keep working. bw_GBps is the median window rate after a warm-up
 * that converged (bench/p2p/window.h); bw_GBps_total is total bytes over total time (as
 * osu_bw reports); bw_GBps_min/max the slowest and fastest timed window. */
enum p2p_col {
	P2P_COL_RUN_ID, P2P_COL_PATH, P2P_COL_KIND, P2P_COL_SRC_HOST, P2P_COL_DST_HOST,
	P2P_COL_SRC_DEV, P2P_COL_DST_DEV, P2P_COL_LINE_RATE, P2P_COL_SIZE, P2P_COL_LAT_ITERS,
	P2P_COL_LAT_MIN, P2P_COL_LAT_AVG, P2P_COL_LAT_P50, P2P_COL_LAT_P99, P2P_COL_BW_WINDOWS,
	P2P_COL_WINDOW, P2P_COL_BW_GBPS, P2P_COL_BW_GBITS, P2P_COL_PCT_LINE_RATE, P2P_COL_STATUS,
	P2P_COL_NOTE, P2P_COL_BW_TOTAL, P2P_COL_BW_MIN, P2P_COL_BW_MAX, P2P_COL_BW_WARMUP_WINDOWS,
	P2P_COL_BW_WARMUP, P2P_NCOLS
};

extern const struct csv_col p2p_csv_cols[P2P_NCOLS];

void p2p_csv_header(FILE *f);
void p2p_csv_write(FILE *f, const struct p2p_row *row);

#endif
