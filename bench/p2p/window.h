/* window.h — the bandwidth stream's windows: when the warm-up has converged, and what the
 * timed windows say. Pure (no MPI, no clock), so that the rule is unit-tested on series.
 *
 * A stream is a series of windows (--window messages each, acknowledged by the receiver).
 * The first windows after a latency test, or after idle time, run slow (TCP slow start, a
 * link or an adaptive route settling, credits or PFC pauses), so total bytes over total time
 * understates a link that is fine. So: every window is timed; the warm-up goes on until two
 * consecutive windows agree within a tolerance (or its time budget is spent: not converged);
 * the figure reported is the median rate of the timed windows after it, with the total-bytes
 * figure and the spread kept beside it. */
#ifndef FP_WINDOW_H
#define FP_WINDOW_H

/* 1 when two window times (seconds, > 0) agree within tol (a fraction, 0.05 = 5%) of the
 * shorter one. */
int window_agree(double a, double b, double tol);

/* The warm-up rule over the window times t[0..n-1] (seconds, in the order measured): the
 * index of the first window i >= 1 that agrees with window i-1 within tol and completes at
 * least min_windows warm-up windows (i + 1 >= min_windows); -1 when no window does yet. */
int window_converged(const double *t, int n, int min_windows, double tol);

/* What the timed windows say, in GB/s (10^9 B/s). */
struct window_figures {
	double median;  /* median window rate: what bw_GBps reports */
	double total;   /* total bytes / total time, as osu_bw reports */
	double min, max; /* the slowest and the fastest window */
};

/* Figures of n >= 1 timed windows of bytes each, t[i] seconds (t is left unchanged); total_s
 * the time from the first window's start to the last one's end. */
void window_figures(const double *t, int n, double bytes, double total_s, struct window_figures *out);

#endif
