#!/usr/bin/env bash
# fabprobe coll's MPI all-reduce against reference micro-benchmarks, on one machine.
#   scripts/bench-coll.sh [--osu DIR] [--launches N] [--np "2 4"] [--sizes "8 1048576"]
#                         [--ring-sizes "1048576 67108864"]
# Runs fabprobe's out-of-place float sum all-reduce and, with --osu (a directory holding an
# already-built osu_allreduce; nothing is built here), osu_allreduce with the same datatype
# (-T mpi_float), element count and iteration counts, interleaved A B A B (docs/figures.md: this machine's noise), and
# prints medians and minimums of the mean latency over ranks (the figure both tools report).
# Then fabprobe's own ring (--backend ring, over its mpi transport) against the MPI library's
# all-reduce at --ring-sizes (default 1 MiB and 64 MiB), interleaved the same way: both time
# and busbw, and the ring's ratio to MPI.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
osu="" launches=7 nps="2 4" sizes="8 1048576" ring_sizes="1048576 67108864"
while [ $# -gt 0 ]; do
	case $1 in
	--osu) osu=$2; shift 2 ;;
	--launches) launches=$2; shift 2 ;;
	--np) nps=$2; shift 2 ;;
	--sizes) sizes=$2; shift 2 ;;
	--ring-sizes) ring_sizes=$2; shift 2 ;;
	*) echo "usage: $0 [--osu DIR] [--launches N] [--np \"2 4\"] [--sizes \"8 1048576\"] [--ring-sizes \"1048576 67108864\"]" >&2; exit 2 ;;
	esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores=$(nproc)
run() { # NP CMD...: bound to cores when they suffice, else unbound (oversubscribed)
	local np=$1; shift
	if [ "$np" -le "$cores" ]; then mpirun -np "$np" --bind-to core "$@"
	else mpirun -np "$np" --oversubscribe --bind-to none "$@"; fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT



echo "mpi allreduce, float sum, out of place; $launches launches each, interleaved; us (mean over ranks)"
for np in $nps; do
	for size in $sizes; do
		# OSU's defaults: 10000 + 200 warm-up up to 8 KiB, fewer above; the same for both tools
		if [ "$size" -le 8192 ]; then it=10000 wu=200; else it=200 wu=20; fi
		fp=() ref=()
		wait_idle
		for k in $(seq "$launches"); do
			run "$np" ./fabprobe coll --backend mpi -o allreduce -d float -b "$size" -e "$size" \
				-n $it -w $wu -c 0 --output "$tmp/fp$np-$size-$k" > /dev/null
			fp+=("$(awk -F, 'NR > 1 && $11 == 0 { print $12 }' "$tmp/fp$np-$size-$k/collectives.csv")")
			[ -n "$osu" ] && ref+=("$(run "$np" "$osu/osu_allreduce" -T mpi_float -m "$size:$size" -i $it -x $wu |
				awk -v s="$size" '$1 == s { print $2 }')")
		done
		summary "fabprobe np=$np $size B ($((size / 4)) floats)" "${fp[@]}"
		[ -n "$osu" ] && summary "osu_allreduce np=$np $size B ($((size / 4)) floats)" "${ref[@]}"
	done
done

echo
echo "fabprobe's ring (over its mpi transport) against MPI's all-reduce, float sum, out of place; $launches launches each, interleaved"
for np in $nps; do
	for size in $ring_sizes; do
		if [ "$size" -le 8388608 ]; then it=100 wu=10; else it=10 wu=2; fi
		t_ring=() t_mpi=() b_ring=() b_mpi=()
		wait_idle
		for k in $(seq "$launches"); do
			for be in ring mpi; do
				run "$np" ./fabprobe coll --backend $be -o allreduce -d float -b "$size" -e "$size" \
					-n $it -w $wu -c 0 --output "$tmp/$be$np-$size-$k" > /dev/null
				read -r t b < <(awk -F, 'NR > 1 && $11 == 0 { print $12, $15 }' "$tmp/$be$np-$size-$k/collectives.csv")
				if [ $be = ring ]; then t_ring+=("$t") b_ring+=("$b"); else t_mpi+=("$t") b_mpi+=("$b"); fi
			done
		done
		summary "ring np=$np $size B: time us" "${t_ring[@]}"
		summary "mpi  np=$np $size B: time us" "${t_mpi[@]}"
		summary "ring np=$np $size B: busbw GB/s" "${b_ring[@]}"
		summary "mpi  np=$np $size B: busbw GB/s" "${b_mpi[@]}"
	done
done
exit 0
