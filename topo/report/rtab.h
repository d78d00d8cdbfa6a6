/* rtab.h — small CSV tables held whole for the report, cells by column name; read by
 * fabric/csv_read (one CSV reader in the project). Nothing here trusts the file. */
#ifndef FP_RTAB_H
#define FP_RTAB_H

#include <stdio.h>

#include "fabric/io/csv_read.h"

#define RTAB_ERR_MAX CSV_READ_ERR_MAX

/* A whole small file: the header and up to max_rows rows (the rest are counted only). */
struct rtab {
	int ncols, nrows;
	long total_rows;  /* every data row in the file, also those beyond max_rows */
	char **head;      /* ncols */
	char **cell;      /* nrows x ncols; "" where a row was short */
	long *line;       /* nrows: the line each row starts on */
	char bad[RTAB_ERR_MAX]; /* the first row with the wrong cell count, or "" */
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
