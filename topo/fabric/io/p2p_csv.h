/* p2p_csv.h — p2p.csv's columns: the one definition that the writer (bench/p2p) and the one
 * row reader (p2p_csv_open/next/close below, which fabric/io/matrix.c and rundir.c read p2p.csv,
 * p2p_retest.csv and p2p_confirm.csv through) share, so that the two cannot drift apart. A
 * column's name is written nowhere else: others take p2p_csv_cols[P2P_COL_…].name. */
#ifndef FP_P2P_CSV_H
#define FP_P2P_CSV_H

#include <stdint.h>
#include <stdio.h>

#include "core/csv.h"
#include "csv_read.h"

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
	double lat_us_min_hi; /* the highest of the latency passes' minima (NAN: one pass) */
	const char *carried_by; /* what carried the sender's traffic (bench/p2p/transport.h) */
};

/* Column indices, in file order. Columns added later go at the end, so that readers by
 * position (awk in scripts) keep working. bw_GBps is the median window rate after a warm-up
 * that converged (bench/p2p/window.h); bw_GBps_total is total bytes over total time (as
 * osu_bw reports); bw_GBps_min/max the slowest and fastest timed window. lat_us_min is the
 * lowest of the latency passes' minima (--lat-passes), lat_us_min_hi the highest: how far two
 * measurements of one direction at different times disagree, the map's repeat noise. */
enum p2p_col {
	P2P_COL_RUN_ID, P2P_COL_PATH, P2P_COL_KIND, P2P_COL_SRC_HOST, P2P_COL_DST_HOST,
	P2P_COL_SRC_DEV, P2P_COL_DST_DEV, P2P_COL_LINE_RATE, P2P_COL_SIZE, P2P_COL_LAT_ITERS,
	P2P_COL_LAT_MIN, P2P_COL_LAT_AVG, P2P_COL_LAT_P50, P2P_COL_LAT_P99, P2P_COL_BW_WINDOWS,
	P2P_COL_WINDOW, P2P_COL_BW_GBPS, P2P_COL_BW_GBITS, P2P_COL_PCT_LINE_RATE, P2P_COL_STATUS,
	P2P_COL_NOTE, P2P_COL_BW_TOTAL, P2P_COL_BW_MIN, P2P_COL_BW_MAX, P2P_COL_BW_WARMUP_WINDOWS,
	P2P_COL_BW_WARMUP, P2P_COL_LAT_MIN_HI, P2P_COL_CARRIED_BY, P2P_NCOLS
};

extern const struct csv_col p2p_csv_cols[P2P_NCOLS];

void p2p_csv_header(FILE *f);
void p2p_csv_write(FILE *f, const struct p2p_row *row);

/* placement.csv: where each endpoint measured each path whose port is a NIC of its own (one row
 * per endpoint and path): the port's NUMA node, the cores the measurement ran on, and whether
 * that is the port's node (topo/node/nic_place.h). Missing values are -1 / "". */
struct p2p_place_row {
	const char *host, *path, *port;
	int64_t numa_node;
	const char *cpus, *placement, *note;
};
enum p2p_place_col {
	P2P_PLACE_HOST, P2P_PLACE_PATH, P2P_PLACE_PORT, P2P_PLACE_NUMA, P2P_PLACE_CPUS, P2P_PLACE_PLACEMENT,
	P2P_PLACE_NOTE, P2P_PLACE_NCOLS
};
extern const struct csv_col p2p_place_cols[P2P_PLACE_NCOLS];

/* rail_probes.csv: each port off its rail's leaf (host, path) probed from a reference node's
 * port of every rail (from_host, from_path): the 10th percentile of its half round trips, the
 * leaf and spine levels of from_path's map, and whether this probe names the port's leaf (1),
 * or not (0; -1 not measured). */
struct rail_probe_row {
	const char *host, *path, *from_host, *from_path;
	double lat_us_p10, leaf_us, spine_us;
	int64_t in_leaf;
};
enum rail_probe_col {
	RAIL_PROBE_HOST, RAIL_PROBE_PATH, RAIL_PROBE_FROM_HOST, RAIL_PROBE_FROM_PATH, RAIL_PROBE_LAT, RAIL_PROBE_LEAF,
	RAIL_PROBE_SPINE, RAIL_PROBE_IN_LEAF, RAIL_PROBE_NCOLS
};
extern const struct csv_col rail_probe_cols[RAIL_PROBE_NCOLS];

/* rails_together.csv: one direction of a pair with every rail at once (from_host sends to
 * to_host on each of `rails` rails): the rails' rates each alone (their sum, the slowest),
 * all at once, and at once as a share of the sum (%). Rates in Gbit/s; empty when not
 * measured. */
struct rail_together_row {
	const char *from_host, *to_host;
	int64_t rails;
	double alone_Gbps, alone_min_Gbps, together_Gbps, pct_of_alone;
};
enum rail_together_col {
	RAIL_TOG_FROM, RAIL_TOG_TO, RAIL_TOG_RAILS, RAIL_TOG_ALONE, RAIL_TOG_ALONE_MIN, RAIL_TOG_TOGETHER, RAIL_TOG_PCT,
	RAIL_TOG_NCOLS
};
extern const struct csv_col rail_together_cols[RAIL_TOG_NCOLS];

/* ---------------------------------------------------------------- reading */

/* What the readers take of one row. Strings point into the reader, valid until the next call;
 * "" for a column the file lacks. Figures: NAN when empty (or the column is absent). */
struct p2p_csv_in {
	const char *path, *kind, *src_host, *dst_host, *src_dev, *dst_dev, *status;
	long long size_B;                                  /* 1 … 1e15 */
	double line_rate_Gbps, lat_us_min, lat_us_p50, lat_us_p99, bw_GBps;
	double lat_us_min_hi;                              /* NAN: one pass, or an older file */
	int ok;                                            /* status is "ok" */
	int line;                                          /* the line the row starts on */
};

/* the columns p2p_csv_in holds, in its order */
#define P2P_CSV_IN_NCOLS 14

/* A p2p.csv (or p2p_retest.csv, p2p_confirm.csv: the same columns) read row by row; nothing
 * but the row read is held, so a file of millions of rows costs one row's memory. */
struct p2p_csv_reader {
	struct csv_read r;
	int idx[P2P_CSV_IN_NCOLS]; /* where p2p_csv_in's columns are in the file, -1 absent */
};

/* Bit of a column (P2P_COL_…) a reader needs: p2p_csv_open's need. */
#define P2P_CSV_NEED(col) (1u << (col))

/* Open file and read its header. Every reader needs path, src_host, dst_host, size_B and
 * status; need (P2P_CSV_NEED bits) names the other columns this reader needs too. The file
 * rules: only a regular file, opened without blocking (csv_read_open); a UTF-8 byte order mark
 * before the header is no part of its first name; no blank line before it. Returns 0, or
 * FP_EUSAGE with "file[:line]: why" in err (CSV_READ_ERR_MAX), FP_ERUNTIME out of memory. */
int p2p_csv_open(struct p2p_csv_reader *p, const char *file, unsigned need, char *err);
/* The same over text (len bytes, not copied), read as the file name would be. */
int p2p_csv_open_mem(struct p2p_csv_reader *p, const char *name, const char *text, size_t len, unsigned need,
		     char *err);
/* The next row into *row: 1, 0 at the end, or FP_EUSAGE with "file:line: why" in err (the
 * column named where a cell is at fault), FP_ERUNTIME. Every row has the header's cell count;
 * a last row without a line break and with fewer cells was cut short (a full disk, a killed
 * writer): ignored with a warning, as the end. A complete last row without a line break, and
 * blank lines at the end, are warned about; a blank line between rows, or a NUL byte, is an
 * error. Figures: empty, or csv_read_number's non-negative decimals; size_B a whole number of
 * digits in 1 … 1e15. */
int p2p_csv_next(struct p2p_csv_reader *p, struct p2p_csv_in *row, char *err);
/* Read the file again from its header (a second pass), its warnings not said again: FP_EUSAGE
 * when the file changed since it was opened (its size, its time, its header). */
int p2p_csv_rewind(struct p2p_csv_reader *p, char *err);
void p2p_csv_close(struct p2p_csv_reader *p);

#endif
