/* cpuprobe.c — see cpuprobe.h. */
#include "cpuprobe.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "clock.h"

#define PROBE_BATCHES 20
#define PROBE_ROUNDS 500        /* round trips per batch */

struct probe {
	_Alignas(64) atomic_int turn; /* 1: the far side's move, 0: the near side's */
	int cpu;                      /* the far side's core */
	atomic_int stop;
};

static void pin_one(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof one, &one);
}

static void *far_side(void *arg)
{
	struct probe *p = arg;

	pin_one(p->cpu);
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed))
		if (atomic_load_explicit(&p->turn, memory_order_acquire) == 1)
			atomic_store_explicit(&p->turn, 0, memory_order_release);
	return NULL;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

double cpuprobe_round_trip_ns(int cpu_a, int cpu_b)
{
	static struct probe p; /* one probe at a time: aligned, not on a stack of unknown alignment */
	double batch[PROBE_BATCHES], t0;
	cpu_set_t mine;
	pthread_t th;

	if (cpu_a == cpu_b || cpu_a < 0 || cpu_b < 0 || cpu_a >= CPU_SETSIZE || cpu_b >= CPU_SETSIZE ||
	    sched_getaffinity(0, sizeof mine, &mine))
		return NAN;
	atomic_store(&p.turn, 0);
	atomic_store(&p.stop, 0);
	p.cpu = cpu_b;
	if (pthread_create(&th, NULL, far_side, &p))
		return NAN;
	pin_one(cpu_a);
	for (int k = -1; k < PROBE_BATCHES; k++) { /* batch -1 warms up: the far side starts */
		t0 = clock_now();
		for (int i = 0; i < PROBE_ROUNDS; i++) {
			atomic_store_explicit(&p.turn, 1, memory_order_release);
			while (atomic_load_explicit(&p.turn, memory_order_acquire) == 1)
				;
		}
		if (k >= 0)
			batch[k] = (clock_now() - t0) * 1e9 / PROBE_ROUNDS;
	}
	atomic_store(&p.stop, 1);
	pthread_join(th, NULL);
	sched_setaffinity(0, sizeof mine, &mine);
	qsort(batch, PROBE_BATCHES, sizeof *batch, cmp_double);
	return (batch[PROBE_BATCHES / 2 - 1] + batch[PROBE_BATCHES / 2]) / 2;
}
