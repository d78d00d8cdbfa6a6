#!/usr/bin/env bash
# Measurement overhead of fabprobe p2p against reference micro-benchmarks, on one machine.
#   scripts/bench-p2p.sh [--osu DIR] [--launches N] [--transport shm|tcp]
# Runs fabprobe's 8-byte latency and 4 MiB windowed bandwidth between 2 ranks and, with --osu
# (a directory holding already-built osu_latency and osu_bw), the OSU equivalents with the same
# iteration counts, interleaved A B A B (docs/figures.md: this machine's noise), and prints medians and minimums.
# Like for like: osu_latency reports the mean half round trip (fabprobe's lat_us_avg), osu_bw
# total bytes over total time (fabprobe's bw_GBps_total); fabprobe's own bw_GBps (the median
# window after a converged warm-up) is printed beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
osu="" launches=9 transport=shm
while [ $# -gt 0 ]; do
	case $1 in
	--osu) osu=$2; shift 2 ;;
	--launches) launches=$2; shift 2 ;;
	--transport) transport=$2; shift 2 ;;
	*) echo "usage: $0 [--osu DIR] [--launches N] [--transport shm|tcp]" >&2; exit 2 ;;
	esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mca=(--bind-to core --mca btl self,vader)
[ "$transport" = tcp ] && mca=(--bind-to core --mca btl self,tcp --mca btl_tcp_if_include lo)
run() { mpirun -np 2 "${mca[@]}" "$@"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT


# column NAME of the first data row of a p2p.csv
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } NR == 2 { print $c }' "$1"; }

fp_lat=() fp_bw=() fp_bwm=() osu_lat=() osu_bw=()
for k in $(seq "$launches"); do
	wait_idle
	run ./fabprobe p2p -l 8 -s none -n 10000 --lat-warmup 100 --no-progress -o "$tmp/l$k" > /dev/null
	fp_lat+=("$(col "$tmp/l$k/p2p.csv" lat_us_avg)")   # the mean, as OSU reports
	[ -n "$osu" ] && osu_lat+=("$(run "$osu/osu_latency" -m 8:8 -i 10000 -x 100 | awk '$1 == 8 { print $2 }')")
	run ./fabprobe p2p -l none -s 4M -W 64 --bw-iters 20 --bw-warmup 2 --no-progress -o "$tmp/b$k" > /dev/null
	fp_bw+=("$(awk -v g="$(col "$tmp/b$k/p2p.csv" bw_GBps_total)" 'BEGIN { print g * 1000 }')") # MB/s, as OSU
	fp_bwm+=("$(awk -v g="$(col "$tmp/b$k/p2p.csv" bw_GBps)" 'BEGIN { print g * 1000 }')")
	[ -n "$osu" ] && osu_bw+=("$(run "$osu/osu_bw" -m 4194304:4194304 -i 20 -x 2 | awk '$1 == 4194304 { print $2 }')")
done

echo "transport $transport, $launches launches each, interleaved"
summary "fabprobe 8 B latency, mean (us)" "${fp_lat[@]}"
[ -n "$osu" ] && summary "osu_latency 8 B (us)" "${osu_lat[@]}"
summary "fabprobe 4 MiB bw, total (MB/s)" "${fp_bw[@]}"
[ -n "$osu" ] && summary "osu_bw 4 MiB (MB/s)" "${osu_bw[@]}"
summary "fabprobe 4 MiB bw, median window (MB/s)" "${fp_bwm[@]}"
exit 0
