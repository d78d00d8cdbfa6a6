#!/usr/bin/env bash
# The latency map at scale, on synthetic fabrics with a known tree (build/synth-fabric): is the
# tree recovered exactly (tests/synth_check.py), how long `fabprobe topo` takes (wall and CPU)
# and its peak memory. Waits for an idle machine first (bench-lib.sh); says the load it saw.
#   scripts/bench-topo.sh [--launches N] [CASE...]   CASE: 4096 (default), 16384, ib2048
# 4096:   3 switch levels, 4 x 4 x 8 leaves of 32, 5% noise, per-node offsets up to 0.2 us,
#         2 slow nodes (+0.6 us), 5% of cells missing, per-pair cable offsets up to 0.1 us
# 16384:  8 spines x 8 leaves of 256 (2 switch levels), the same defects
# ib2048: InfiniBand-like: 0.2 us a tier (1.6, 1.8, 2.0 us), 3% noise, cables up to 0.05 us
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
launches=1 cases=()
while [ $# -gt 0 ]; do
	case $1 in
	--launches) launches=$2; shift 2 ;;
	4096 | 16384 | ib2048) cases+=("$1"); shift ;;
	*) echo "usage: $0 [--launches N] [4096] [16384] [ib2048]" >&2; exit 2 ;;
	esac
done
[ ${#cases[@]} -gt 0 ] || cases=(4096)
make --no-print-directory -s fabprobe synth
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
defects=(--noise 5 --offset-us 0.2 --slow 2 --missing 5 --cable-us 0.1)
for c in "${cases[@]}"; do
	case $c in
	4096) args=(--shape 4x4x8x32 "${defects[@]}") allow=unmeasured_pair ;;
	16384) args=(--shape 8x8x256 "${defects[@]}") allow=unmeasured_pair ;;
	ib2048) args=(--shape 8x8x32 --hop-us 0.1 --noise 3 --cable-us 0.05) allow='' ;;
	esac
	build/synth-fabric "${args[@]}" --seed 1 -o "$tmp/m.csv" -t "$tmp/t.csv"
	echo "$c: synth-fabric ${args[*]}: $(du -h "$tmp/m.csv" | cut -f1) matrix"
	walls=() cpus=() mems=()
	for k in $(seq "$launches"); do
		wait_idle
		load=$(cut -d' ' -f1 /proc/loadavg)
		rm -rf "$tmp/out"
		/usr/bin/time -o "$tmp/time" -f "%e %U %S %M" ./fabprobe topo "$tmp/m.csv" -o "$tmp/out" > "$tmp/out.txt"
		read -r wall user sys kib < "$tmp/time"
		walls+=("$wall") cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')") mems+=("$((kib / 1024))")
		echo "  launch $k (load average $load before): $wall s wall, $user s user + $sys s system, $((kib / 1024)) MiB peak;" \
			"$(python3 tests/synth_check.py "$tmp/t.csv" "$tmp/out" ${allow:+--allow "$allow"})"
	done
	summary "$c: wall s" "${walls[@]}"
	summary "$c: CPU s" "${cpus[@]}"
	summary "$c: peak MiB" "${mems[@]}"
	grep -E '^latency map|^  tier|suspects:' "$tmp/out.txt" | sed 's/^/  /'
done
