/* window.c — see window.h. */
#include "window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int window_agree(double a, double b, double tol)
{
	double lo = a < b ? a : b;

	return a > 0 && b > 0 && fabs(a - b) <= tol * lo;
}

int window_converged(const double *t, int n, int min_windows, double tol)
{
	for (int i = 1; i < n; i++)
		if (i + 1 >= min_windows && window_agree(t[i - 1], t[i], tol))
			return i;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the median of a sorted array: the middle one, or the mean of the two middle ones */
static double median_sorted(const double *x, int n)
{
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

void window_figures(const double *t, int n, double bytes, double total_s, struct window_figures *out)
{
	double rate[64], *r = n <= 64 ? rate : malloc(sizeof *r * (size_t)n);

	*out = (struct window_figures){ NAN, NAN, NAN, NAN };
	if (n < 1 || !r)
		return;
	for (int i = 0; i < n; i++)
		r[i] = t[i] > 0 ? bytes / t[i] / 1e9 : INFINITY;
	qsort(r, (size_t)n, sizeof *r, cmp_double);
	out->median = median_sorted(r, n);
	out->min = r[0];
	out->max = r[n - 1];
	out->total = total_s > 0 ? bytes * n / total_s / 1e9 : NAN;
	if (r != rate)
		free(r);
}
