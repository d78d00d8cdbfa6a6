/* p2p_csv.c — see p2p_csv.h. */
#include "p2p_csv.h"

#define COL(i, n, t, f, p) [i] = CSV_COL(n, t, struct p2p_row, f, p)
const struct csv_col p2p_csv_cols[P2P_NCOLS] = {
	COL(P2P_COL_RUN_ID, "run_id", CSV_STR, run_id, 0),
	COL(P2P_COL_PATH, "path", CSV_STR, path, 0),
	COL(P2P_COL_KIND, "kind", CSV_STR, kind, 0),
	COL(P2P_COL_SRC_HOST, "src_host", CSV_STR, src_host, 0),
	COL(P2P_COL_DST_HOST, "dst_host", CSV_STR, dst_host, 0),
	COL(P2P_COL_SRC_DEV, "src_dev", CSV_STR, src_dev, 0),
	COL(P2P_COL_DST_DEV, "dst_dev", CSV_STR, dst_dev, 0),
	COL(P2P_COL_LINE_RATE, "line_rate_Gbps", CSV_F64, line_rate_Gbps, 1),
	COL(P2P_COL_SIZE, "size_B", CSV_I64, size_B, 0),
	COL(P2P_COL_LAT_ITERS, "lat_iters", CSV_I64, lat_iters, 0),
	COL(P2P_COL_LAT_MIN, "lat_us_min", CSV_F64, lat_us_min, 3),
	COL(P2P_COL_LAT_AVG, "lat_us_avg", CSV_F64, lat_us_avg, 3),
	COL(P2P_COL_LAT_P50, "lat_us_p50", CSV_F64, lat_us_p50, 3),
	COL(P2P_COL_LAT_P99, "lat_us_p99", CSV_F64, lat_us_p99, 3),
	COL(P2P_COL_BW_WINDOWS, "bw_windows", CSV_I64, bw_windows, 0),
	COL(P2P_COL_WINDOW, "window", CSV_I64, window, 0),
	COL(P2P_COL_BW_GBPS, "bw_GBps", CSV_F64, bw_GBps, 4),
	COL(P2P_COL_BW_GBITS, "bw_Gbps", CSV_F64, bw_Gbps, 3),
	COL(P2P_COL_PCT_LINE_RATE, "pct_line_rate", CSV_F64, pct_line_rate, 1),
	COL(P2P_COL_STATUS, "status", CSV_STR, status, 0),
	COL(P2P_COL_NOTE, "note", CSV_STR, note, 0),
	COL(P2P_COL_BW_TOTAL, "bw_GBps_total", CSV_F64, bw_GBps_total, 4),
	COL(P2P_COL_BW_MIN, "bw_GBps_min", CSV_F64, bw_GBps_min, 4),
	COL(P2P_COL_BW_MAX, "bw_GBps_max", CSV_F64, bw_GBps_max, 4),
	COL(P2P_COL_BW_WARMUP_WINDOWS, "bw_warmup_windows", CSV_I64, bw_warmup_windows, 0),
	COL(P2P_COL_BW_WARMUP, "bw_warmup", CSV_STR, bw_warmup, 0),
};

void p2p_csv_header(FILE *f)
{
	csv_header(f, p2p_csv_cols, P2P_NCOLS);
}

void p2p_csv_write(FILE *f, const struct p2p_row *row)
{
	csv_row(f, p2p_csv_cols, P2P_NCOLS, row);
}
