/* csv.h — RFC 4180 CSV writing driven by one column table.
 *
 * A table of struct csv_col describes the fields of a plain row struct (by offset); the
 * same table writes the header and every row, so the two cannot drift apart. Quoting is
 * RFC 4180; lines end in LF (not CRLF) so that awk, cut and grep read them cleanly. Missing
 * values are empty cells: NaN doubles, negative integers, NULL strings. */
#ifndef FP_CSV_H
#define FP_CSV_H

#include <stddef.h>
#include <stdio.h>

enum csv_type { CSV_STR, CSV_I64, CSV_F64 };

struct csv_col {
	const char *name;
	enum csv_type type;
	size_t offset;   /* of the field in the row struct */
	int precision;   /* digits after the point, for CSV_F64 */
};

#define CSV_COL(name, type, st, field, prec) { name, type, offsetof(st, field), prec }

/* Write s as one field, quoted when it holds a comma, quote, CR or LF (quotes doubled). */
void csv_field(FILE *f, const char *s);
void csv_header(FILE *f, const struct csv_col *cols, int ncols);
void csv_row(FILE *f, const struct csv_col *cols, int ncols, const void *row);
/* Flush and report a write error on a stream that is kept open: 0 or FP_ERUNTIME. */
int csv_flush(FILE *f, const char *path);

#endif
