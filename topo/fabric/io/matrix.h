/* matrix.h — reading the matrices fabprobe writes, for offline analysis (`fabprobe topo`).
 * Errors name the file, the line and the problem (err, MATRIX_ERR_MAX). */
#ifndef FP_MATRIX_H
#define FP_MATRIX_H

#define MATRIX_ERR_MAX 512

struct matrix {
	int n;
	char **names;  /* n */
	float *lat;    /* n x n µs, NAN = missing */
	float *bw;     /* n x n GB/s or NULL */
	float *lat_hi; /* n x n µs, the highest latency pass's minimum (p2p.csv's lat_us_min_hi), or NULL */
	char path[64]; /* the path the matrices are of */
};

/* What both readers accept and refuse:
 *  - cells: csv_read_number's (empty or blank = missing; else a non-negative plain decimal,
 *    optionally with an exponent, blanks around it ignored; no sign, hex, inf or nan; at most
 *    FLT_MAX);
 *  - a final line without a newline (warned about); blank lines at the end (warned about),
 *    never between rows; a UTF-8 byte order mark before the header;
 *  - the result must have two or more hosts, all different, and one measured pair at least;
 *  - only a regular file, and no more hosts than the file can fill (a short file cannot ask
 *    for n² memory).
 * p2p.csv is read through p2p_csv_open/next (p2p_csv.h), whose rules those are; it adds the
 * file's own (every row whole, no NUL, size_B whole, the file unchanged between the passes).
 * Returns 0, FP_EUSAGE (input error, named in err), or FP_ERUNTIME (out of memory). */

/* 1 when a file's first line is a square matrix's header: its corner cell is "host" (any
 * case) or empty (as pandas writes it), after an optional byte order mark. */
int matrix_is_square(const char *first_line);
/* A square matrix in fabprobe's format: "host,<names…>" then one row per name, same order;
 * empty cells are missing. */
int matrix_read_square(const char *file, struct matrix *m, char *err);
/* Latency (lat_us_min at the smallest latency size) and bandwidth (bw_GBps at the largest
 * bandwidth size) of one path from p2p.csv; path NULL = the first in the file. Two passes over
 * the file (endpoints, then cells), no row kept: a 16,384-node file costs its matrices only. A
 * last row cut short (no newline: a full disk, a killed writer) is ignored with a warning. */
int matrix_read_p2p(const char *file, const char *path, struct matrix *m, char *err);
/* As matrix_read_p2p, for a file that may hold bandwidth alone (p2p_bw.csv). */
int matrix_read_p2p_bw(const char *file, const char *path, struct matrix *m, char *err);
/* b's bandwidth cells (a planned run's p2p_bw.csv, read as above for m's path) into m's, by
 * endpoint name; an endpoint of b that m does not have is left out. 0 or FP_ERUNTIME. */
int matrix_add_bw(struct matrix *m, const struct matrix *b);
void matrix_free(struct matrix *m);

#endif
