/* csv_read.h — reading CSV files row by row (what fabprobe wrote, or a person did): RFC 4180
 * quoting, no newlines inside fields, LF or CRLF. Columns are found by header name; errors
 * name the file and line. Pure apart from reading the one file. */
#ifndef FP_CSV_READ_H
#define FP_CSV_READ_H

#include <stddef.h>
#include <stdio.h>

#define CSV_READ_ERR_MAX 512

struct csv_read {
	const char *file;
	FILE *f;
	int line;        /* of the row now held (1 = the header) */
	char *buf;
	size_t cap;
	char **field;    /* the row's fields, pointing into buf */
	int nfield, fcap;
	char **head;     /* the header's fields (own copies) */
	int nhead;
};

/* Open file and read its header row. Returns 0, or FP_EUSAGE with "file: why" in err. */
int csv_read_open(struct csv_read *r, const char *file, char *err);
/* The next data row: returns 1 (r->field[0..nfield-1]), 0 at the end, FP_EUSAGE with err
 * when the row has more fields than the header. Blank lines are skipped. */
int csv_read_next(struct csv_read *r, char *err);
/* The header index of column name, or -1. */
int csv_read_col(const struct csv_read *r, const char *name);
/* Field c of the current row ("" when c < 0 or the row is short). */
const char *csv_read_get(const struct csv_read *r, int c);
void csv_read_close(struct csv_read *r);

/* Split one record in place into at most max fields; returns the number found (it may
 * exceed max: the extra ones are not stored). Trailing CR/LF is dropped. */
int csv_read_split(char *line, char **fields, int max);

#endif
