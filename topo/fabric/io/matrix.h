/* matrix.h — one path's matrices, the one shape of them: what the p2p engine fills as it
 * measures (bench/p2p) and what `topo` and the report read from the files fabprobe writes.
 * Errors name the file, the line and the problem (err, MATRIX_ERR_MAX). */
#ifndef FP_MATRIX_H
#define FP_MATRIX_H

#define MATRIX_ERR_MAX 512
#define MATRIX_PATH_MAX 64
#define MATRIX_KIND_MAX 16

/* One path's matrices: n x n cells, [src * n + dst], NAN missing; an array not read or not
 * measured is NULL. */
struct p2p_matrices {
	char path[MATRIX_PATH_MAX]; /* the path the matrices are of */
	int n;
	char **names;    /* n, the readers' (the engine's endpoints are named by the world: NULL) */
	float *lat_min;  /* µs, the minimum: the least noisy, what the latency map uses */
	float *lat_p50;  /* what latency_<path>.csv shows */
	float *lat_p99;
	float *lat_hi;   /* the highest latency pass's minimum (NAN: one pass): the map's repeat noise */
	float *bw;       /* GB/s, the median window rate */
	long lat_iters_min; /* the fewest timed ping-pongs behind a latency cell (0: none yet) */
	int ok, failed;  /* directions, at the last size */
	double line_rate_Gbps; /* the slowest usable endpoint's port; NAN when any is unknown */
	char kind[MATRIX_KIND_MAX]; /* the first usable endpoint's link kind ("" unknown) */
};

/* m for path and n endpoints, every cell of every array NAN (no names). 0 or FP_ERUNTIME
 * (said). */
int matrix_init(struct p2p_matrices *m, const char *path, int n);

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
int matrix_read_square(const char *file, struct p2p_matrices *m, char *err);
/* Latency (lat_us_min at the smallest latency size) and bandwidth (bw_GBps at the largest
 * bandwidth size) of one path from p2p.csv; path NULL = the first in the file. Two passes over
 * the file (endpoints, then cells), no row kept: a 16,384-node file costs its matrices only. A
 * last row cut short (no newline: a full disk, a killed writer) is ignored with a warning. */
int matrix_read_p2p(const char *file, const char *path, struct p2p_matrices *m, char *err);
/* As matrix_read_p2p, for a file that may hold bandwidth alone (p2p_bw.csv). */
int matrix_read_p2p_bw(const char *file, const char *path, struct p2p_matrices *m, char *err);
/* b's bandwidth cells (a planned run's p2p_bw.csv, read as above for m's path) into m's, by
 * endpoint name; an endpoint of b that m does not have is left out. 0 or FP_ERUNTIME. */
int matrix_add_bw(struct p2p_matrices *m, const struct p2p_matrices *b);
/* Free what m holds (NULL-safe), m zeroed. */
void matrix_free(struct p2p_matrices *m);

#endif
