#!/usr/bin/env bash
# bench-ring-model.sh — what the verbs ring's slot protocol buys, modelled (a benchmark, not a
# test: no RDMA device here). An all-reduce ring step moves a segment of B bytes each way per
# rank; fabprobe's verbs ring copies each segment into a registered staging slot (copy in),
# writes it, and the receiver copies it out of its slot (copy out), on one core: 2B/M of CPU
# per segment at a copy rate of M. The wire takes B/W at line rate W; a flag or a credit takes
# half the round trip R.
#   stop-and-wait (one slot each way, before): copy in, wire, flag, copy out, credit back, then
#     the next segment: B / (2B/M + B/W + R)
#   S slots each way (now): the copies, the wire and the credits overlap; the slowest of them
#     sets the pace: B / max(2B/M, B/W, (2B/M + B/W + R) / S)
# busbw of a ring all-reduce equals the per-link rate of its steps. M is measured here (memcpy
# of B bytes, one core, buffers out of cache); W and R are the figures asked for.
#   scripts/bench-ring-model.sh [GBIT_S [RTT_US]]      (default 400 Gbit/s, 2 us)
set -euo pipefail
gbit=${1:-400} rtt=${2:-2}
[[ $gbit =~ ^[0-9]+$ && $rtt =~ ^[0-9.]+$ ]] || { echo "usage: $0 [GBIT_S [RTT_US]]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/m.c" << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* memcpy rate of B-byte segments, GB/s: many buffers, so that each copy misses the cache */
int main(int argc, char **argv)
{
	size_t b = strtoull(argv[1], 0, 10), n = (512u << 20) / b + 2;
	char *src = malloc(b * n), *dst = malloc(b * n);
	struct timespec t0, t1;
	double best = 0;

	memset(src, 1, b * n), memset(dst, 2, b * n);
	for (int rep = 0; rep < 5; rep++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (size_t i = 0; i < n; i++)
			memcpy(dst + i * b, src + ((i * 7) % n) * b, b);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9, r = b * n / s / 1e9;
		best = r > best ? r : best;
	}
	printf("%.2f\n", best);
	return dst[b] == 3;
}
EOF
cc -O2 -o "$tmp/m" "$tmp/m.c"
echo "model: ${gbit} Gbit/s, round trip ${rtt} us, 4 slots; copy rate M measured on $(nproc) core(s) of $(uname -n), $(date -u +%F)"
printf '%10s %8s %14s %14s %8s\n' segment "M GB/s" "stop-and-wait" "4 slots" gain
for b in 65536 262144 1048576 4194304; do
	m=$("$tmp/m" "$b")
	awk -v b="$b" -v m="$m" -v w="$gbit" -v r="$rtt" 'BEGIN {
		W = w / 8 * 1e3; M = m * 1e3              # bytes per us
		cpy = 2 * b / M; wire = b / W
		old = b / (cpy + wire + r) / 1e3          # GB/s
		t = cpy > wire ? cpy : wire; p = (cpy + wire + r) / 4; t = t > p ? t : p
		new = b / t / 1e3
		printf "%10s %8.1f %9.2f GB/s %9.2f GB/s %7.2fx\n", (b >= 1048576 ? b / 1048576 "M" : b / 1024 "K"), m, old, new, new / old
	}'
done
echo "line rate: $(awk -v w="$gbit" 'BEGIN { printf "%.1f GB/s", w / 8 }'); the copies, not the round trips, cap both at large segments"
