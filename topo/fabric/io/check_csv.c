/* check_csv.c — see check_csv.h. */
#include "check_csv.h"

#include <stddef.h>

#define C(i, n, t, f, p) [i] = CSV_COL(n, t, struct cmp_csv_row, f, p)
const struct csv_col cmp_csv_cols[CMP_NCOLS] = {
	C(CMP_COL_KIND, "kind", CSV_STR, kind, 0),
	C(CMP_COL_PATH, "path", CSV_STR, path, 0),
	C(CMP_COL_SRC, "src", CSV_STR, src, 0),
	C(CMP_COL_DST, "dst", CSV_STR, dst, 0),
	C(CMP_COL_SIZE, "size_B", CSV_I64, size_B, 0),
	C(CMP_COL_METRIC, "metric", CSV_STR, metric, 0),
	C(CMP_COL_TIER, "tier", CSV_STR, tier, 0),
	C(CMP_COL_BEFORE, "before", CSV_STR, before, 0),
	C(CMP_COL_AFTER, "after", CSV_STR, after, 0),
	C(CMP_COL_RETEST, "retest", CSV_STR, retest, 0),
	C(CMP_COL_CHANGE, "change_pct", CSV_F64, change_pct, 2),
	C(CMP_COL_TOLERANCE, "tolerance_pct", CSV_F64, tolerance_pct, 2),
	C(CMP_COL_CLASS, "class", CSV_STR, cls, 0),
	C(CMP_COL_NOTE, "note", CSV_STR, note, 0),
};
#undef C

#define C(i, n, t, f) [i] = CSV_COL(n, t, struct cmp_map_csv_row, f, 0)
const struct csv_col cmp_map_csv_cols[CMP_MAP_NCOLS] = {
	C(CMP_MAP_COL_TIER, "tier", CSV_I64, tier),
	C(CMP_MAP_COL_SWITCH, "switch", CSV_STR, sw),
	C(CMP_MAP_COL_HOST, "host", CSV_STR, host),
	C(CMP_MAP_COL_BEFORE, "before", CSV_STR, before),
	C(CMP_MAP_COL_AFTER, "after", CSV_STR, after),
	C(CMP_MAP_COL_AFTER_MATCHES, "after_matches", CSV_STR, after_matches),
	C(CMP_MAP_COL_CHANGE, "change", CSV_STR, change),
};
#undef C

#define C(i, n, t, f, p) [i] = CSV_COL(n, t, struct acc_csv_row, f, p)
const struct csv_col acc_csv_cols[ACC_NCOLS] = {
	C(ACC_COL_RULE, "rule", CSV_STR, rule, 0),
	C(ACC_COL_FROM, "from", CSV_STR, from, 0),
	C(ACC_COL_PATH, "path", CSV_STR, path, 0),
	C(ACC_COL_SRC, "src", CSV_STR, src, 0),
	C(ACC_COL_DST, "dst", CSV_STR, dst, 0),
	C(ACC_COL_SIZE, "size_B", CSV_I64, size_B, 0),
	C(ACC_COL_METRIC, "metric", CSV_STR, metric, 0),
	C(ACC_COL_VALUE, "value", CSV_F64, value, 4),
	C(ACC_COL_EXPECT, "expect", CSV_STR, expect, 0),
	C(ACC_COL_PASS, "pass", CSV_I64, pass, 0),
	C(ACC_COL_WARN, "warn", CSV_I64, warn, 0),
	C(ACC_COL_NOTE, "note", CSV_STR, note, 0),
};
#undef C

#define C(i, n, t, f) [i] = CSV_COL(n, t, struct decl_csv_row, f, 0)
const struct csv_col decl_csv_cols[DECL_NCOLS] = {
	C(DECL_COL_HOST, "host", CSV_STR, host),
	C(DECL_COL_TIER, "tier", CSV_I64, tier),
	C(DECL_COL_SWITCH, "switch", CSV_STR, sw),
	C(DECL_COL_PROBLEM, "problem", CSV_STR, problem),
	C(DECL_COL_DECLARED, "declared", CSV_STR, declared),
	C(DECL_COL_MEASURED, "measured", CSV_STR, measured),
	C(DECL_COL_MEASURED_MATCHES, "measured_matches", CSV_STR, measured_matches),
	C(DECL_COL_HOW, "how", CSV_STR, how),
};
#undef C

#define C(i, n, t, f, p) [i] = CSV_COL(n, t, struct order_csv_row, f, p)
const struct csv_col order_csv_cols[ORDER_NCOLS] = {
	C(ORDER_COL_ORDER, "order", CSV_STR, order, 0),
	C(ORDER_COL_BACKEND, "backend", CSV_STR, backend, 0),
	C(ORDER_COL_SIZE, "size_B", CSV_I64, size_B, 0),
	C(ORDER_COL_NODES, "nodes", CSV_I64, nodes, 0),
	C(ORDER_COL_ITERS, "iters", CSV_I64, iters, 0),
	C(ORDER_COL_TIME, "time_us", CSV_F64, time_us, 3),
	C(ORDER_COL_ALGBW, "algbw_GBps", CSV_F64, algbw_GBps, 6),
	C(ORDER_COL_BUSBW, "busbw_GBps", CSV_F64, busbw_GBps, 6),
	C(ORDER_COL_PREDICTED, "predicted_busbw_GBps", CSV_F64, predicted_busbw_GBps, 6),
	C(ORDER_COL_WRONG, "wrong", CSV_I64, wrong, 0),
	C(ORDER_COL_HOSTS, "hosts", CSV_STR, hosts, 0),
};
#undef C

#define C(i, n, t, f, p) [i] = CSV_COL(n, t, struct bisect_csv_row, f, p)
const struct csv_col bisect_csv_cols[BISECT_NCOLS] = {
	C(BISECT_COL_PATH, "path", CSV_STR, path, 0),
	C(BISECT_COL_GROUP, "group", CSV_STR, group, 0),
	C(BISECT_COL_TIER, "tier", CSV_I64, tier, 0),
	C(BISECT_COL_BURST, "burst", CSV_STR, burst, 0),
	C(BISECT_COL_NODES, "nodes", CSV_STR, nodes, 0),
	C(BISECT_COL_STREAMS, "streams", CSV_I64, streams, 0),
	C(BISECT_COL_GBPS, "GBps", CSV_F64, GBps, 4),
	C(BISECT_COL_AGAINST, "against_GBps", CSV_F64, against_GBps, 4),
	C(BISECT_COL_RESULT, "result", CSV_STR, result, 0),
};
#undef C
