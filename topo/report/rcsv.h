/* rcsv.h — reading CSV files for the report: RFC 4180 (a quoted field may hold commas, doubled
 * quotes and line breaks), any size, one record at a time; and small whole tables by column
 * name. Pure (stdio only). Nothing here trusts the file: any bytes give records or an error. */
#ifndef FP_RCSV_H
#define FP_RCSV_H

#include <stdio.h>

#define RCSV_ERR_MAX 512

struct rcsv {
	FILE *f;
	char *line;      /* getline buffer */
	size_t line_cap;
	char *buf;       /* the record's fields, unquoted, each NUL-terminated */
	size_t cap;
	size_t *start;   /* offsets of the fields in buf */
	int nfield, fcap;
	long line_no;    /* the line the current record starts on (1 = the header) */
	long next_line;
};

/* 0, or -1 when the file cannot be opened (errno says why). */
int rcsv_open(struct rcsv *r, const char *path);
/* The next record: its field count (>= 1), 0 at the end of the file, FP_ERUNTIME when out of
 * memory. A quote left open runs to the end of the file (the record ends there). */
int rcsv_next(struct rcsv *r);
/* Field i of the current record; "" beyond the last. */
const char *rcsv_field(const struct rcsv *r, int i);
void rcsv_close(struct rcsv *r);

/* A whole small file: the header and up to max_rows rows (the rest are counted only). */
struct rtab {
	int ncols, nrows;
	long total_rows;  /* every data row in the file, also those beyond max_rows */
	char **head;      /* ncols */
	char **cell;      /* nrows x ncols; "" where a row was short */
	long *line;       /* nrows: the line each row starts on */
	char bad[RCSV_ERR_MAX]; /* the first row with the wrong cell count, or "" */
};

/* 0; -1 when the file is missing (err: why); FP_EUSAGE when it is empty or has no header
 * (err names the file); FP_ERUNTIME out of memory. Rows with too few or too many cells are
 * kept (padded, cut) and the first is named in t->bad with its line. */
int rtab_load(const char *path, int max_rows, struct rtab *t, char *err);
/* The index of column name, or -1. */
int rtab_col(const struct rtab *t, const char *name);
/* Cell (row, col); "" for col < 0. */
const char *rtab_get(const struct rtab *t, int row, int col);
void rtab_free(struct rtab *t);

#endif
