/*
 * Per-packet delay for the emulated cluster (scripts/fakecluster.sh).
 *
 * This kernel has no netem, so a tc clsact egress program busy-waits DELAY_NS
 * nanoseconds on every packet before letting it pass. Attached to the egress of
 * both ends of a switch uplink, it makes every crossing of that uplink cost a
 * fixed time, which gives the latency matrix a clear step per switch tier.
 *
 * It burns CPU for the whole delay (softirq or sender context): keep the delay
 * in the tens of microseconds. bpf_loop (kernel >= 5.17) is what lets the
 * verifier accept a wait loop whose trip count it cannot bound.
 *
 * Build: clang -O2 -g -target bpf -DDELAY_NS=25000 -c delay.bpf.c -o delay.o
 * Load:  tc filter add dev X egress bpf da obj delay.o sec tc
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#ifndef DELAY_NS
#define DELAY_NS 25000ULL
#endif

/* bpf_loop's hard ceiling on iterations; one iteration is tens of ns, so this
 * bounds a wait at well over 100 ms, far beyond any delay worth configuring. */
#define SPIN_MAX_ITERS (1U << 23)

struct spin_state {
	__u64 deadline_ns;
};

/* bpf_loop callback: 0 = keep looping, 1 = stop. */
static long spin_until(__u32 index, void *data)
{
	struct spin_state *st = data;

	(void)index;
	return bpf_ktime_get_ns() >= st->deadline_ns ? 1 : 0;
}

SEC("tc")
int delay_egress(struct __sk_buff *skb)
{
	struct spin_state st = { .deadline_ns = bpf_ktime_get_ns() + DELAY_NS };

	(void)skb;
	bpf_loop(SPIN_MAX_ITERS, spin_until, &st, 0);
	return TC_ACT_OK; /* direct-action: let the packet go on */
}

/* What the kernel reads to allow GPL-only helpers; none is used here, and
 * "Dual MIT/GPL" keeps the file usable under either. */
char _license[] SEC("license") = "Dual MIT/GPL";
