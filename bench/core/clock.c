/* clock.c — see clock.h. */
#include "clock.h"

#if CLOCK_HAVE_TSC
#include <cpuid.h>

/* CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every state */
static int tsc_invariant(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1;
}
#endif

void clock_tick_init(struct clock_tick *c)
{
	c->tsc = 0;
	c->sec = 1e-9;
#if CLOCK_HAVE_TSC
	if (tsc_invariant()) {
		double t0 = clock_now(), t1;
		uint64_t k0 = __rdtsc(), k1;

		clock_sleep_us(20000);
		t1 = clock_now();
		k1 = __rdtsc();
		/* 20 ms against a clock good to about a µs: 1e-4 of each sample at worst */
		if (k1 > k0 && t1 > t0) {
			c->tsc = 1;
			c->sec = (t1 - t0) / (double)(k1 - k0);
		}
	}
#endif
}
