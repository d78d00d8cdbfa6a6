/* hostlist.h — Slurm hostlist expressions: "gpu[001-008,010],login". Pure. */
#ifndef FP_HOSTLIST_H
#define FP_HOSTLIST_H

#include <stddef.h>

/* Compress n host names into one expression (order: by prefix, then number). A name splits
 * into a prefix and its trailing digits; numbers share a range only when they are written
 * with the same zero padding; names without trailing digits stay literal. A name that a
 * hostlist cannot carry (empty, or holding one of ",[]" or white space) is refused:
 * returns FP_EUSAGE with the name in err. On success *out is malloc'd. */
int hostlist_compress(const char *const *names, int n, char **out, char *err, size_t errlen);

#endif
