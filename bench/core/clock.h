/* clock.h — the one clock used for timing: CLOCK_MONOTONIC (vDSO, tens of ns), in seconds. */
#ifndef FP_CLOCK_H
#define FP_CLOCK_H

#include <time.h>

static inline double clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep for `us` microseconds; used by ranks that wait, so that they never spin. */
static inline void clock_sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

#endif
