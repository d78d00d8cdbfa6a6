/* p2p_csv.c — see p2p_csv.h. */
#include "p2p_csv.h"

#include <string.h>

#include "core/log.h"

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
	COL(P2P_COL_LAT_MIN_HI, "lat_us_min_hi", CSV_F64, lat_us_min_hi, 3),
	COL(P2P_COL_CARRIED_BY, "carried_by", CSV_STR, carried_by, 0),
};

void p2p_csv_header(FILE *f)
{
	csv_header(f, p2p_csv_cols, P2P_NCOLS);
}

void p2p_csv_write(FILE *f, const struct p2p_row *row)
{
	csv_row(f, p2p_csv_cols, P2P_NCOLS, row);
}

#define PCOL(i, n, t, f) [i] = CSV_COL(n, t, struct p2p_place_row, f, 0)
const struct csv_col p2p_place_cols[P2P_PLACE_NCOLS] = {
	PCOL(P2P_PLACE_HOST, "host", CSV_STR, host),
	PCOL(P2P_PLACE_PATH, "path", CSV_STR, path),
	PCOL(P2P_PLACE_PORT, "port", CSV_STR, port),
	PCOL(P2P_PLACE_NUMA, "numa_node", CSV_I64, numa_node),
	PCOL(P2P_PLACE_CPUS, "cpus", CSV_STR, cpus),
	PCOL(P2P_PLACE_PLACEMENT, "placement", CSV_STR, placement),
	PCOL(P2P_PLACE_NOTE, "note", CSV_STR, note),
};

#define RCOL(i, n, t, f, p) [i] = CSV_COL(n, t, struct rail_probe_row, f, p)
const struct csv_col rail_probe_cols[RAIL_PROBE_NCOLS] = {
	RCOL(RAIL_PROBE_HOST, "host", CSV_STR, host, 0),
	RCOL(RAIL_PROBE_PATH, "path", CSV_STR, path, 0),
	RCOL(RAIL_PROBE_FROM_HOST, "from_host", CSV_STR, from_host, 0),
	RCOL(RAIL_PROBE_FROM_PATH, "from_path", CSV_STR, from_path, 0),
	RCOL(RAIL_PROBE_LAT, "lat_us_p10", CSV_F64, lat_us_p10, 3),
	RCOL(RAIL_PROBE_LEAF, "leaf_us", CSV_F64, leaf_us, 3),
	RCOL(RAIL_PROBE_SPINE, "spine_us", CSV_F64, spine_us, 3),
	RCOL(RAIL_PROBE_IN_LEAF, "in_leaf", CSV_I64, in_leaf, 0),
};

#define TCOL(id, name, type, field, prec) [id] = CSV_COL(name, type, struct rail_together_row, field, prec)
const struct csv_col rail_together_cols[RAIL_TOG_NCOLS] = {
	TCOL(RAIL_TOG_FROM, "from_host", CSV_STR, from_host, 0),
	TCOL(RAIL_TOG_TO, "to_host", CSV_STR, to_host, 0),
	TCOL(RAIL_TOG_RAILS, "rails", CSV_I64, rails, 0),
	TCOL(RAIL_TOG_ALONE, "alone_Gbps", CSV_F64, alone_Gbps, 3),
	TCOL(RAIL_TOG_ALONE_MIN, "alone_min_Gbps", CSV_F64, alone_min_Gbps, 3),
	TCOL(RAIL_TOG_TOGETHER, "together_Gbps", CSV_F64, together_Gbps, 3),
	TCOL(RAIL_TOG_PCT, "pct_of_alone", CSV_F64, pct_of_alone, 1),
};

/* ---------------------------------------------------------------- reading */

/* p2p_csv_in's columns, in its order: its strings, then size_B, then its figures */
enum { IN_PATH, IN_KIND, IN_SRC, IN_DST, IN_SDEV, IN_DDEV, IN_STATUS, IN_SIZE, IN_LINE_RATE, IN_LMIN, IN_LP50,
       IN_LP99, IN_BW, IN_LMIN_HI };
static const int in_col[P2P_CSV_IN_NCOLS] = {
	P2P_COL_PATH,	 P2P_COL_KIND,	    P2P_COL_SRC_HOST, P2P_COL_DST_HOST, P2P_COL_SRC_DEV,
	P2P_COL_DST_DEV, P2P_COL_STATUS,    P2P_COL_SIZE,     P2P_COL_LINE_RATE, P2P_COL_LAT_MIN,
	P2P_COL_LAT_P50, P2P_COL_LAT_P99,   P2P_COL_BW_GBPS,  P2P_COL_LAT_MIN_HI,
};
/* what every reader needs */
#define NEED_ALWAYS                                                                                  \
	(P2P_CSV_NEED(P2P_COL_PATH) | P2P_CSV_NEED(P2P_COL_SRC_HOST) | P2P_CSV_NEED(P2P_COL_DST_HOST) | \
	 P2P_CSV_NEED(P2P_COL_SIZE) | P2P_CSV_NEED(P2P_COL_STATUS))
#define SIZE_MAX_B 1000000000000000LL /* 1e15: size_B above it is no message size */

/* p->r open: its header has the columns every reader and need ask for. 0 or FP_EUSAGE (closed). */
static int p2p_header(struct p2p_csv_reader *p, const char *file, unsigned need, char *err)
{
	int at[P2P_NCOLS];

	if (p->r.nul || p->r.line != 1) {
		snprintf(err, CSV_READ_ERR_MAX, p->r.nul ? "%s:%d: a NUL byte: not a text file" :
			 "%s:%d: blank line before the header", file, p->r.nul ? p->r.line : 1);
		goto fail;
	}
	csv_read_cols(&p->r, p2p_csv_cols, P2P_NCOLS, at);
	need |= NEED_ALWAYS;
	for (int c = 0; c < P2P_NCOLS; c++)
		if ((need & P2P_CSV_NEED(c)) && at[c] < 0) {
			snprintf(err, CSV_READ_ERR_MAX, "%s:1: no column '%s': not a fabprobe p2p.csv", file,
				 p2p_csv_cols[c].name);
			goto fail;
		}
	for (int i = 0; i < P2P_CSV_IN_NCOLS; i++)
		p->idx[i] = at[in_col[i]];
	return 0;
fail:
	csv_read_close(&p->r);
	return FP_EUSAGE;
}

int p2p_csv_open(struct p2p_csv_reader *p, const char *file, unsigned need, char *err)
{
	int rc;

	memset(p, 0, sizeof *p);
	if ((rc = csv_read_open(&p->r, file, err)))
		return rc;
	return p2p_header(p, file, need, err);
}

int p2p_csv_open_mem(struct p2p_csv_reader *p, const char *name, const char *text, size_t len, unsigned need,
		     char *err)
{
	int rc;

	memset(p, 0, sizeof *p);
	if ((rc = csv_read_open_mem(&p->r, name, text, len, err)))
		return rc;
	return p2p_header(p, name, need, err);
}

/* Column i of p2p_csv_in in the current row ("" when the file lacks it). */
static const char *in_cell(const struct p2p_csv_reader *p, int i)
{
	return csv_read_get(&p->r, p->idx[i]);
}

/* A cell at fault: "file:line: column 'name': 'cell' why". FP_EUSAGE. */
static int in_fault(const struct p2p_csv_reader *p, int i, const char *why, char *err)
{
	snprintf(err, CSV_READ_ERR_MAX, "%s:%d: column '%s': '%.60s' %s", p->r.file, p->r.line,
		 p2p_csv_cols[in_col[i]].name, in_cell(p, i), why);
	return FP_EUSAGE;
}

/* The current row's numbers into row: size_B digits only, in 1 … 1e15; figures NAN when empty,
 * else csv_read_number's. 0 or FP_EUSAGE. */
static int in_numbers(const struct p2p_csv_reader *p, struct p2p_csv_in *row, char *err)
{
	double *fig[] = { &row->line_rate_Gbps, &row->lat_us_min, &row->lat_us_p50, &row->lat_us_p99, &row->bw_GBps,
			  &row->lat_us_min_hi };
	const char *s = in_cell(p, IN_SIZE), *q = s;
	long long v = 0;
	int rc;

	for (; *q >= '0' && *q <= '9' && v <= SIZE_MAX_B; q++)
		v = v * 10 + (*q - '0');
	if (*q || q == s || v < 1 || v > SIZE_MAX_B)
		return in_fault(p, IN_SIZE, "is not a whole number in 1..1e15", err);
	row->size_B = v;
	for (int k = 0; k < 6; k++)
		if ((rc = csv_read_number(in_cell(p, IN_LINE_RATE + k), fig[k])))
			return in_fault(p, IN_LINE_RATE + k, csv_read_number_why(rc), err);
	return 0;
}

/* The end of the file, the next row expected on line expect: a torn last row after blank lines
 * is refused as blank lines inside the table; blank lines at the end are warned about. 0 or
 * FP_EUSAGE. */
static int in_end(const struct p2p_csv_reader *p, int expect, int torn, char *err)
{
	const struct csv_read *r = &p->r;
	int blanks = r->line - expect;

	if (torn && blanks) {
		snprintf(err, CSV_READ_ERR_MAX, "%s:%d: blank line inside the table (rows follow at line %d)",
			 r->file, expect, r->line);
		return FP_EUSAGE;
	}
	if (!torn && blanks > 0 && !r->quiet)
		LOG_WARN("%s:%d: %d blank line%s at the end of the file, ignored", r->file, expect, blanks,
			 blanks == 1 ? "" : "s");
	return 0;
}

int p2p_csv_next(struct p2p_csv_reader *p, struct p2p_csv_in *row, char *err)
{
	struct csv_read *r = &p->r;
	int expect = r->next_line, rc = csv_read_next(r, err);
	/* more cells than the header and no line break: a row run into a torn last one (a writer
	 * appending to a killed writer's file); ignored too, as csv_read ignores one with fewer */
	int longer = rc == FP_EUSAGE && !r->nl && r->nfield > r->nhead;

	if (rc < 0 && !longer)
		return rc;
	if (r->nul) {
		snprintf(err, CSV_READ_ERR_MAX, "%s:%d: a NUL byte: not a text file", r->file, r->line);
		return FP_EUSAGE;
	}
	if (longer && !r->quiet)
		LOG_WARN("%s:%d: the last row is cut short (%d cells, no newline): ignored", r->file, r->line,
			 r->nfield);
	if (rc == 0 || longer)
		return in_end(p, expect, r->torn || longer, err);
	if (r->line != expect) {
		snprintf(err, CSV_READ_ERR_MAX, "%s:%d: blank line inside the table (rows follow at line %d)",
			 r->file, expect, r->line);
		return FP_EUSAGE;
	}
	if (r->nfield != r->nhead) {
		snprintf(err, CSV_READ_ERR_MAX, "%s:%d: %d cells, expected %d", r->file, r->line, r->nfield,
			 r->nhead);
		return FP_EUSAGE;
	}
	if (!r->nl && !r->quiet)
		LOG_WARN("%s:%d: no newline at the end of the file", r->file, r->line);
	*row = (struct p2p_csv_in){ .path = in_cell(p, IN_PATH), .kind = in_cell(p, IN_KIND),
				    .src_host = in_cell(p, IN_SRC), .dst_host = in_cell(p, IN_DST),
				    .src_dev = in_cell(p, IN_SDEV), .dst_dev = in_cell(p, IN_DDEV),
				    .status = in_cell(p, IN_STATUS), .line = r->line };
	row->ok = !strcmp(row->status, "ok");
	return in_numbers(p, row, err) ? FP_EUSAGE : 1;
}

int p2p_csv_rewind(struct p2p_csv_reader *p, char *err)
{
	return csv_read_rewind(&p->r, err);
}

void p2p_csv_close(struct p2p_csv_reader *p)
{
	csv_read_close(&p->r);
}
