/* csv_read.h — the one CSV reader (what fabprobe wrote, or a person or another tool did):
 * RFC 4180 quoting, a quoted field may hold commas, doubled quotes and line breaks; LF or
 * CRLF. Rows are read one at a time, columns found by header name, errors name the file and
 * line. Nothing here trusts the file: any bytes give rows or an error. Pure apart from
 * reading the one file. */
#ifndef FP_CSV_READ_H
#define FP_CSV_READ_H

#include <stddef.h>
#include <stdio.h>

#include "core/csv.h"

#define CSV_READ_ERR_MAX 512

struct csv_read {
	const char *file;
	FILE *f;
	int line;        /* the line the row now held starts on (1 = the header) */
	int next_line;   /* the line the next row starts on */
	char *buf;       /* the row: one line, or more where a quote spans them */
	size_t len;      /* its bytes */
	size_t cap;
	char *more;      /* a continuation line */
	size_t mcap;
	char **field;    /* the row's fields, pointing into buf */
	int nfield, fcap;
	char **head;     /* the header's fields (own copies) */
	int nhead;
	int nl;          /* the row held ended in a line break (not: the file's last bytes) */
	int nul;         /* the row held has a NUL byte (its text ends there) */
	int torn;        /* the last row was cut short, and ignored */
	int quiet;       /* say no warnings (a second reading of the file) */
	long long size, mtime_ns; /* the file's, when opened */
};

/* Open file and read its header row (blank lines before it are skipped). Only a regular file
 * is read (a FIFO or a device is refused, never waited on). Returns 0, or FP_EUSAGE with
 * "file: why" in err, FP_ERUNTIME when out of memory. */
int csv_read_open(struct csv_read *r, const char *file, char *err);
/* The same with results_input_open's flags (RESULTS_IN_NOLINK: a file of a results directory). */
int csv_read_open_in(struct csv_read *r, const char *file, unsigned flags, char *err);
/* The same over text (len bytes, not copied: it outlives r), as if it were the file name: the
 * one reader for what a writer hands over in memory (the run's own model, rundir.h). */
int csv_read_open_mem(struct csv_read *r, const char *name, const char *text, size_t len, char *err);
/* The next data row: returns 1 (r->field[0..nfield-1]), 0 at the end, FP_ERUNTIME out of
 * memory, FP_EUSAGE with "file:line: why" in err when the row has more fields than the header
 * (the row is still held: its fields are there, and reading may go on). Blank lines are
 * skipped; a quote left open runs to the end of the file. A last row without a line break and
 * with fewer fields than the header was cut short (a full disk, a killed writer; its last
 * figure may be cut too): it is ignored with a warning, as the end. */
int csv_read_next(struct csv_read *r, char *err);
/* The header index of column name, or -1. */
int csv_read_col(const struct csv_read *r, const char *name);
/* Where each column of a writer's table (cols[0..n), core/csv.h) is in a header of nhead
 * names: idx[k] is the index of cols[k].name, -1 when the header lacks it. A byte order mark
 * before the first name is not part of it. The one way a reader finds a file's columns. */
void csv_cols_find(char *const *head, int nhead, const struct csv_col *cols, int n, int *idx);
/* csv_cols_find over r's header. */
void csv_read_cols(const struct csv_read *r, const struct csv_col *cols, int n, int *idx);
/* Field c of the current row ("" when c < 0 or the row is short). */
const char *csv_read_get(const struct csv_read *r, int c);
/* Read the file again from its header row (warnings not said again): 0, or FP_EUSAGE with
 * "file: why" in err when it changed since it was opened (its size, its time, its header). */
int csv_read_rewind(struct csv_read *r, char *err);
void csv_read_close(struct csv_read *r);

/* A number as fabprobe's readers take it: an empty (or blank) cell is NAN; otherwise, blanks
 * around it ignored (on both sides alike), a plain non-negative decimal, optionally with an
 * exponent ("15.234", ".5", "1e-3"): no sign, hex, inf or nan; at most FLT_MAX (too small for a
 * float reads as 0). Plain decimals ("15.234", what fabprobe writes) take a fast path. Returns
 * 0, -1 (not such a number), -2 (too large). */
int csv_read_number(const char *s, double *out);
/* Why csv_read_number refused a cell (its rc, -1 or -2), for an error message. */
const char *csv_read_number_why(int rc);

/* Split one record in place into at most max fields; returns the number found (it may
 * exceed max: the extra ones are not stored). A trailing LF or CRLF is dropped; a line break
 * inside quotes is data. Text after a closing quote, up to the next comma, is dropped. */
int csv_read_split(char *line, char **fields, int max);

#endif
