/* matrix_int.h — private to the matrix readers (matrix.c: square files; matrix_p2p.c: p2p.csv):
 * the checks both share. */
#ifndef FP_MATRIX_INT_H
#define FP_MATRIX_INT_H

#include "matrix.h"

/* No host named twice: 0, or FP_EUSAGE with err naming file and host. */
int matrix_names_unique(const struct p2p_matrices *m, const char *file, char *err);
/* Two hosts or more and one measured pair at least (a latency one when need_lat): 0, or
 * FP_EUSAGE with err. */
int matrix_usable(const struct p2p_matrices *m, const char *file, int need_lat, char *err);

#endif
