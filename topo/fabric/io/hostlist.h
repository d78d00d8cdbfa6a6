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

/* Expand an expression into its names, in the order written: "gpu[001-003,010],login" gives
 * gpu001 gpu002 gpu003 gpu010 login; a range is printed at the width of its lower bound, as
 * Slurm does; several brackets in one name expand in turn ("r[1-2]n[1-2]"). A malformed
 * expression (unbalanced bracket, a range that is not "lo-hi" with lo <= hi, an empty name,
 * more than HOSTLIST_MAX names) returns FP_EUSAGE with the reason in err. On success *out is a
 * malloc'd array of *n malloc'd names (hostlist_free). */
#define HOSTLIST_MAX 1000000
int hostlist_expand(const char *expr, char ***out, int *n, char *err, size_t errlen);
/* hostlist_expand with at most max names (max <= HOSTLIST_MAX): a reader's budget over a whole
 * file. Past it: FP_EUSAGE, err "hostlist: more than MAX names", nothing expanded kept. */
int hostlist_expand_max(const char *expr, int max, char ***out, int *n, char *err, size_t errlen);
/* The number of names expr expands to, without expanding it: at most cap + 1 (more is not
 * counted); -1 when it is malformed. Linear in its length. */
long long hostlist_count(const char *expr, long long cap);
void hostlist_free(char **names, int n);

#endif
