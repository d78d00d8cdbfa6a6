#!/usr/bin/env bash
# fabprobe coll's MPI all-reduce against reference micro-benchmarks, on one machine.
#   scripts/bench-coll.sh [--osu DIR] [--launches N] [--np "2 4"] [--sizes "8 1048576"]
# Runs fabprobe's out-of-place float sum all-reduce and, with --osu (a directory holding an
# already-built osu_allreduce; nothing is built here), osu_allreduce with the same datatype
# (-T mpi_float), element count and iteration counts, interleaved A B A B (docs/figures.md: this machine's noise), and
# prints medians and minimums of the mean latency over ranks (the figure both tools report).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
osu="" launches=7 nps="2 4" sizes="8 1048576"
while [ $# -gt 0 ]; do
	case $1 in
	--osu) osu=$2; shift 2 ;;
	--launches) launches=$2; shift 2 ;;
	--np) nps=$2; shift 2 ;;
	--sizes) sizes=$2; shift 2 ;;
	*) echo "usage: $0 [--osu DIR] [--launches N] [--np \"2 4\"] [--sizes \"8 1048576\"]" >&2; exit 2 ;;
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
exit 0
