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

#ifndef PAIR_NS
SEC("tc")
int delay_egress(struct __sk_buff *skb)
{
	struct spin_state st = { .deadline_ns = bpf_ktime_get_ns() + DELAY_NS };

	(void)skb;
	bpf_loop(SPIN_MAX_ITERS, spin_until, &st, 0);
	return TC_ACT_OK; /* direct-action: let the packet go on */
}
#else
/*
 * With -DPAIR_NS=N -DPAIR_SEED=S, the object holds this program instead: on a
 * node's own link, an IPv4 packet waits N ns when the hash of its two addresses
 * (xor: the same both ways) and S is odd, so that half the pairs of nodes, at
 * random and the same in both directions, pay N more: pair offsets that follow
 * no switch (ECMP paths of two lengths, cables of different lengths).
 */
#ifndef PAIR_SEED
#define PAIR_SEED 1ULL
#endif

static __u64 mix64(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

SEC("tc")
int pair_egress(struct __sk_buff *skb)
{
	__u32 addr[2]; /* source and destination, at offset 12 of the IPv4 header */
	struct spin_state st;

	if (skb->protocol != __builtin_bswap16(0x0800) || bpf_skb_load_bytes(skb, 14 + 12, addr, sizeof addr) < 0)
		return TC_ACT_OK;
	if (!(mix64((__u64)(addr[0] ^ addr[1]) ^ PAIR_SEED) & 1))
		return TC_ACT_OK;
	st.deadline_ns = bpf_ktime_get_ns() + PAIR_NS;
	bpf_loop(SPIN_MAX_ITERS, spin_until, &st, 0);
	return TC_ACT_OK;
}
#endif

/* What the kernel reads to allow GPL-only helpers; none is used here, and
 * "Dual MIT/GPL" keeps the file usable under either. */
char _license[] SEC("license") = "Dual MIT/GPL";
