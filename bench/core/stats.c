/* stats.c — see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double nearest_rank(const double *sorted, int n, double q)
{
	int k = (int)ceil(q / 100.0 * n);

	return sorted[k < 1 ? 0 : k - 1];
}

void stats_compute(double *x, int n, struct stats *out)
{
	double sum = 0;

	qsort(x, (size_t)n, sizeof *x, cmp_double);
	for (int i = 0; i < n; i++)
		sum += x[i];
	out->min = x[0];
	out->max = x[n - 1];
	out->avg = sum / n;
	out->p50 = nearest_rank(x, n, 50);
	out->p99 = nearest_rank(x, n, 99);
}
