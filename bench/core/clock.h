/* clock.h — the clocks used for timing. clock_now: CLOCK_MONOTONIC (vDSO, tens of ns), in
 * seconds: deadlines, windows, everything but the per-sample ping-pong clock. clock_tick_*:
 * the time-stamp counter where it is invariant (x86: constant and non-stop; as perftest
 * does), calibrated once against CLOCK_MONOTONIC, else CLOCK_MONOTONIC in ns: one read costs a
 * few ns, which matters at half round trips of a few hundred ns. */
#ifndef FP_CLOCK_H
#define FP_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define CLOCK_HAVE_TSC 1
#else
#define CLOCK_HAVE_TSC 0
#endif

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

struct clock_tick {
	int tsc;           /* 1: ticks are TSC cycles; 0: nanoseconds of CLOCK_MONOTONIC */
	double sec;        /* seconds per tick */
};

/* Choose and calibrate (about 20 ms, once per process). */
void clock_tick_init(struct clock_tick *c);

static inline uint64_t clock_tick_now(const struct clock_tick *c)
{
#if CLOCK_HAVE_TSC
	if (c->tsc)
		return __rdtsc();
#endif
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
