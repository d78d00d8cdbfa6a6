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
	char path[64]; /* the path the matrices are of */
};

/* A square matrix in fabprobe's format: "host,<names…>" then one row per name, same order;
 * empty cells are missing. */
int matrix_read_square(const char *file, struct matrix *m, char *err);
/* Latency (lat_us_min at the smallest latency size) and bandwidth (bw_GBps at the largest
 * bandwidth size) of one path from p2p.csv; path NULL = the first in the file. */
int matrix_read_p2p(const char *file, const char *path, struct matrix *m, char *err);
void matrix_free(struct matrix *m);

#endif
