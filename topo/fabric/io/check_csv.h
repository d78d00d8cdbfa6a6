/* check_csv.h — the columns of the checks' CSVs: compare.csv and compare_topology.csv (the
 * comparison with a baseline), acceptance.csv (the expectations), declared_mismatch.csv (the
 * declared cabling), order_check.csv (the node order's all-reduce) and loaded_bisect.csv (the
 * bisection under load). The one definition their writers, the report and the docs test share:
 * a column's name is written nowhere else. Missing values are NULL / -1 / NAN (empty cells). */
#ifndef FP_CHECK_CSV_H
#define FP_CHECK_CSV_H

#include <stdint.h>

#include "core/csv.h"

/* compare.csv: one row per item compared. before, after and retest are text: a figure as
 * "%.4f", or an inventory value. */
struct cmp_csv_row {
	const char *kind, *path, *src, *dst;
	int64_t size_B;
	const char *metric, *tier, *before, *after, *retest;
	double change_pct, tolerance_pct;
	const char *cls, *note;
};
enum cmp_csv_col {
	CMP_COL_KIND, CMP_COL_PATH, CMP_COL_SRC, CMP_COL_DST, CMP_COL_SIZE, CMP_COL_METRIC, CMP_COL_TIER,
	CMP_COL_BEFORE, CMP_COL_AFTER, CMP_COL_RETEST, CMP_COL_CHANGE, CMP_COL_TOLERANCE, CMP_COL_CLASS,
	CMP_COL_NOTE, CMP_NCOLS
};
extern const struct csv_col cmp_csv_cols[CMP_NCOLS];

/* compare_topology.csv: one row per host (and one per tier: host empty) of the two maps. */
struct cmp_map_csv_row {
	int64_t tier;
	const char *sw, *host, *before, *after, *after_matches, *change;
};
enum cmp_map_csv_col {
	CMP_MAP_COL_TIER, CMP_MAP_COL_SWITCH, CMP_MAP_COL_HOST, CMP_MAP_COL_BEFORE, CMP_MAP_COL_AFTER,
	CMP_MAP_COL_AFTER_MATCHES, CMP_MAP_COL_CHANGE, CMP_MAP_NCOLS
};
extern const struct csv_col cmp_map_csv_cols[CMP_MAP_NCOLS];

/* acceptance.csv: one row per rule and what it judged. */
struct acc_csv_row {
	const char *rule, *from, *path, *src, *dst;
	int64_t size_B;
	const char *metric;
	double value;
	const char *expect;
	int64_t pass, warn;                  /* 1, 0, -1: not judged */
	const char *note;
};
enum acc_csv_col {
	ACC_COL_RULE, ACC_COL_FROM, ACC_COL_PATH, ACC_COL_SRC, ACC_COL_DST, ACC_COL_SIZE, ACC_COL_METRIC,
	ACC_COL_VALUE, ACC_COL_EXPECT, ACC_COL_PASS, ACC_COL_WARN, ACC_COL_NOTE, ACC_NCOLS
};
extern const struct csv_col acc_csv_cols[ACC_NCOLS];

/* declared_mismatch.csv: one row per host whose measured group is not the declared one. */
struct decl_csv_row {
	const char *host;
	int64_t tier;
	const char *sw, *problem, *declared, *measured, *measured_matches, *how;
};
enum decl_csv_col {
	DECL_COL_HOST, DECL_COL_TIER, DECL_COL_SWITCH, DECL_COL_PROBLEM, DECL_COL_DECLARED, DECL_COL_MEASURED,
	DECL_COL_MEASURED_MATCHES, DECL_COL_HOW, DECL_NCOLS
};
extern const struct csv_col decl_csv_cols[DECL_NCOLS];

/* order_check.csv: one row per node order and backend. hosts: the order, space-separated. */
struct order_csv_row {
	const char *order, *backend;
	int64_t size_B, nodes, iters;
	double time_us, algbw_GBps, busbw_GBps, predicted_busbw_GBps;
	int64_t wrong;
	const char *hosts;
};
enum order_csv_col {
	ORDER_COL_ORDER, ORDER_COL_BACKEND, ORDER_COL_SIZE, ORDER_COL_NODES, ORDER_COL_ITERS, ORDER_COL_TIME,
	ORDER_COL_ALGBW, ORDER_COL_BUSBW, ORDER_COL_PREDICTED, ORDER_COL_WRONG, ORDER_COL_HOSTS, ORDER_NCOLS
};
extern const struct csv_col order_csv_cols[ORDER_NCOLS];

/* loaded_bisect.csv: one row per burst of the bisection under load. */
struct bisect_csv_row {
	const char *path, *group;
	int64_t tier;
	const char *burst, *nodes;
	int64_t streams;
	double GBps, against_GBps;
	const char *result;
};
enum bisect_csv_col {
	BISECT_COL_PATH, BISECT_COL_GROUP, BISECT_COL_TIER, BISECT_COL_BURST, BISECT_COL_NODES, BISECT_COL_STREAMS,
	BISECT_COL_GBPS, BISECT_COL_AGAINST, BISECT_COL_RESULT, BISECT_NCOLS
};
extern const struct csv_col bisect_csv_cols[BISECT_NCOLS];

#endif
