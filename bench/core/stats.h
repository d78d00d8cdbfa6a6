/* stats.h — summary statistics of timing samples. */
#ifndef FP_STATS_H
#define FP_STATS_H

struct stats {
	double min, avg, p50, p99, max;
};

/* Sorts x in place (n >= 1). Percentiles are nearest-rank: the smallest sample with at
 * least q% of the samples at or below it. */
void stats_compute(double *x, int n, struct stats *out);

#endif
