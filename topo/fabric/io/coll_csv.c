/* coll_csv.c — see coll_csv.h. */
#include "coll_csv.h"

#define COL(i, n, t, f, p) [i] = CSV_COL(n, t, struct coll_csv_row, f, p)
const struct csv_col coll_csv_cols[COLL_NCOLS] = {
	COL(COLL_COL_RUN_ID, "run_id", CSV_STR, run_id, 0),
	COL(COLL_COL_BACKEND, "backend", CSV_STR, backend, 0),
	COL(COLL_COL_OP, "op", CSV_STR, op, 0),
	COL(COLL_COL_SIZE, "size_B", CSV_I64, size_B, 0),
	COL(COLL_COL_COUNT, "count", CSV_I64, count, 0),
	COL(COLL_COL_DTYPE, "dtype", CSV_STR, dtype, 0),
	COL(COLL_COL_REDOP, "redop", CSV_STR, redop, 0),
	COL(COLL_COL_ROOT, "root", CSV_I64, root, 0),
	COL(COLL_COL_NRANKS, "nranks", CSV_I64, nranks, 0),
	COL(COLL_COL_NNODES, "nnodes", CSV_I64, nnodes, 0),
	COL(COLL_COL_IN_PLACE, "in_place", CSV_I64, in_place, 0),
	COL(COLL_COL_TIME, "time_us", CSV_F64, time_us, 3),
	COL(COLL_COL_TIME_MAX, "time_us_max", CSV_F64, time_us_max, 3),
	COL(COLL_COL_ALGBW, "algbw_GBps", CSV_F64, algbw_GBps, 4),
	COL(COLL_COL_BUSBW, "busbw_GBps", CSV_F64, busbw_GBps, 4),
	COL(COLL_COL_WRONG, "wrong", CSV_I64, wrong, 0),
	COL(COLL_COL_STATUS, "status", CSV_STR, status, 0),
	COL(COLL_COL_PATH, "path", CSV_STR, path, 0),
	COL(COLL_COL_LINE_RATE, "line_rate_Gbps", CSV_F64, line_rate_Gbps, 1),
	COL(COLL_COL_PCT_LINE_RATE, "pct_line_rate", CSV_F64, pct_line_rate, 1),
	COL(COLL_COL_CARRIED_BY, "carried_by", CSV_STR, carried_by, 0),
};

void coll_csv_header(FILE *f)
{
	csv_header(f, coll_csv_cols, COLL_NCOLS);
}

void coll_csv_write(FILE *f, const struct coll_csv_row *row)
{
	csv_row(f, coll_csv_cols, COLL_NCOLS, row);
}
