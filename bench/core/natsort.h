/* natsort.h — natural order of host names: "node2" < "node10", digits compared by value. */
#ifndef FP_NATSORT_H
#define FP_NATSORT_H

/* strcmp-like. Runs of digits compare numerically (then by length, so "01" sorts after "1"),
 * everything else bytewise. */
int natsort_cmp(const char *a, const char *b);

#endif
