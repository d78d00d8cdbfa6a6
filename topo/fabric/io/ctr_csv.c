/* ctr_csv.c — see ctr_csv.h. */
#include "ctr_csv.h"

#define COL(i, n, t, f) [i] = CSV_COL(n, t, struct ctr_csv_row, f, 0)
const struct csv_col ctr_csv_cols[CTR_NCOLS] = {
	COL(CTR_COL_NODE, "node", CSV_STR, node),
	COL(CTR_COL_PORT, "port", CSV_STR, port),
	COL(CTR_COL_KIND, "kind", CSV_STR, kind),
	COL(CTR_COL_SOURCE, "source", CSV_STR, source),
	COL(CTR_COL_COUNTER, "counter", CSV_STR, counter),
	COL(CTR_COL_CLASS, "class", CSV_STR, cls),
	COL(CTR_COL_BEFORE, "before", CSV_I64, before),
	COL(CTR_COL_AFTER, "after", CSV_I64, after),
	COL(CTR_COL_DELTA, "delta", CSV_I64, delta),
	COL(CTR_COL_JUDGED, "judged", CSV_I64, judged),
	COL(CTR_COL_FINDING, "finding", CSV_STR, finding),
	COL(CTR_COL_NOTE, "note", CSV_STR, note),
	COL(CTR_COL_THRESHOLD, "threshold", CSV_I64, threshold),
};

void ctr_csv_header(FILE *f)
{
	csv_header(f, ctr_csv_cols, CTR_NCOLS);
}

void ctr_csv_write(FILE *f, const struct ctr_csv_row *row)
{
	csv_row(f, ctr_csv_cols, CTR_NCOLS, row);
}
