/* cpuprobe.h — what the machine under a run does to timing, measured beside it. On a shared
 * (virtual) machine the host moves the vCPUs between cores that share a cache and cores that
 * do not, in spells of seconds, and every message between two of them pays for it: a run's
 * record of this probe shows such a spell. */
#ifndef FP_CPUPROBE_H
#define FP_CPUPROBE_H

/* The round trip (ns, median of batches) of one cache line passed between a thread on core
 * cpu_a and one on core cpu_b, and back: about 10,000 round trips, a few milliseconds. NAN
 * when the probe cannot run (the same core, no thread). This thread's affinity is restored. */
double cpuprobe_round_trip_ns(int cpu_a, int cpu_b);

#endif
