#!/usr/bin/env bash
# bench-rails.sh: the rails judged on the emulated cluster (docs/rails.md), as the demo plants
# them: 12 nodes with 4 rails in two scalable units of 6 (fakecluster.sh --rails 4 --rail-su 6),
# names dealt across two front-end racks. RUNS runs of a healthy cluster, then RUNS runs with
# node03's cables of rails 2 and 3 swapped, node08's rail 1 port at 1 Gbit/s and node10's rails
# through one 6 Gbit/s link (--rail-shared), each a fresh
# cluster and `fabprobe run -p <rails> --rails <rails>` with the demo's options. A line a run:
# its seconds, the rails' maps against their truth (truth_rails.csv: exact, "left out" when a
# rail's leaves differ only in a tier the map calls uncertain, which the scheduler files and the
# rails judge leave out, else WRONG), the findings that held, the verdict's rails clause; then
# the counts:
#   healthy   PASS, no finding, no map WRONG             (a false alarm otherwise)
#   faulted   exactly the planted faults named: node03's two ports, node08's rail 1 port,
#             node10's rails at once
# and the pairs measured, against the pairs of every port measured against every port.
# Needs root.
#   scripts/bench-rails.sh [--runs 5] [--fabprobe BIN]
# --fabprobe: another build to judge the same way (an older commit's, built in a temporary
# clone: git clone -q . /tmp/old && git -C /tmp/old checkout -q COMMIT && make -C /tmp/old
# WITH_CUDA=no WITH_NCCL=no fabprobe).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5 bin=
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--fabprobe) bin=$2; shift 2 ;;
	*) echo "usage: $0 [--runs N] [--fabprobe BIN]" >&2; exit 2 ;;
	esac
done
[[ $runs =~ ^[1-9][0-9]?$ ]] || { echo "bench-rails: --runs: 1 to 99" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "bench-rails: needs root (network namespaces)" >&2; exit 2; }
[ -n "$bin" ] || { make --no-print-directory -s fabprobe; bin=fabprobe; }
FC=scripts/fakecluster.sh
. scripts/demo-opts.sh
RAILS=tcp:rail0,tcp:rail1,tcp:rail2,tcp:rail3
OPTS=("${DEMO_OPTS[@]}" --no-coll --no-order --no-progress -p "$RAILS" --rails "$RAILS")
tmp=$(mktemp -d /tmp/bench-rails-XXXXXX) # on the file system the emulated nodes share
trap '$FC down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
cp "$(readlink -f "$bin")" "$tmp/fabprobe" # this build, whatever is built while it runs
truth=/run/fabprobe-fakecluster/truth_rails.csv
# the planted faults' clause, * for each figure
want_faults="node03 tcp:rail2 and tcp:rail3 cabled into each other's rail leaves (two cables swapped; probed from node01: * and * us through each other's rails, * us or more through the others); node08 tcp:rail1 port: low_bw_node (*% of its rail's median bandwidth) on that rail alone (of 4 rails), node10: 4 rails at once moved *% of their sum alone, sending and receiving, with each of its partners (the pairs' median *%: a PCIe uplink its NICs share, or a host that cannot feed them)"

# groups FILE COLUMN [INTERFACE]: FILE's hosts grouped by COLUMN (of INTERFACE's rows alone)
groups() {
	awk -F, -v c="$2" -v i="${3:-}" 'NR > 1 && (i == "" || $2 == i) { g[$c] = g[$c] " " $1 }
		END { for (k in g) print g[k] }' "$1" | sort
}
pass=0 exact_faults=0 maps_exact=0 maps_wrong=0 pairs=0
for kind in healthy faulted; do
	for k in $(seq "$runs"); do
		faults=()
		[ $kind = faulted ] && faults=(--rail-swap node03=2,3 --rail-degrade node08:1=1gbit --rail-shared node10=6gbit)
		$FC up --racks 6,6 --interleave --rails 4 --rail-su 6 "${faults[@]}" > "$tmp/up.out" 2>&1 ||
			{ cat "$tmp/up.out"; exit 1; }
		d=$tmp/$kind$k
		t0=$(date +%s.%N)
		$FC mpirun "$tmp/fabprobe" run "${OPTS[@]}" -o "$d" > "$d.out" 2>&1 || true
		secs=$(echo "$(date +%s.%N) - $t0" | bc)
		exact=exact
		for r in 0 1 2 3; do
			[ "$(groups "$truth" 3 "rail$r")" = "$(groups "$d/topology_tcp_rail$r.csv" 3)" ] && continue
			if grep -q "^verdict: .*uncertain tcp:rail$r tier 0" "$d.out"; then
				[ $exact = WRONG ] || exact="left out"
			else
				exact=WRONG
			fi
		done
		held=$(cat "$d"/suspects_*.csv 2> /dev/null | awk -F, '$1 != "kind" { printf "%s%s %s", n++ ? ", " : "", $1, $2 }')
		clause=$(/usr/bin/python3 -c 'import json, sys
print(next((c["text"][7:] for c in json.load(open(sys.argv[1]))["verdict"]["clauses"] if c["about"] == "rails"), ""))' \
			"$d/summary.json" 2> /dev/null)
		printf '%-8s %2d  %5.1f s  maps: %-8s  held: %-24s  rails: %s\n' "$kind" "$k" "$secs" "$exact" \
			"${held:-none}" "${clause:-(no clause)}"
		[ "$exact" = exact ] && maps_exact=$((maps_exact + 1))
		[ "$exact" = WRONG ] && maps_wrong=$((maps_wrong + 1))
		pairs=$(awk -F, 'NR > 1 { print $2, $4, $5 }' "$d/p2p.csv" 2> /dev/null | sort -u | wc -l)
		if [ $kind = healthy ]; then
			grep -q '^verdict: PASS' "$d.out" && [ -z "$held" ] && [ "$exact" != WRONG ] && pass=$((pass + 1))
		else
			# shellcheck disable=SC2053 # want_faults is a pattern
			[[ $clause == $want_faults ]] && [ "$held" = "low_bw_node node08" ] && exact_faults=$((exact_faults + 1))
		fi
	done
done
echo "healthy: PASS with no finding and no map WRONG in $pass of $runs"
echo "faulted: exactly the planted faults named in $exact_faults of $runs"
echo "maps exact: $maps_exact of $((2 * runs)) runs, WRONG in $maps_wrong"
probes=$(cat "$tmp"/faulted*.out | sed -n 's/^rails: \([0-9]*\) probes of .* in \([0-9.]*\) s .*/\1 in \2 s/p' | paste -sd, -)
echo "probes, each faulted run: ${probes:-none}; a healthy run: $(cat "$tmp"/healthy*.out | grep -c '^rails: .* probes')"
together=$(cat "$tmp"/*.out | sed -n 's/^rails: every rail at once, \([0-9]*\) pairs .* in \([0-9.]*\) s (rails_together.csv)$/\2/p' | paste -sd, -)
echo "every rail at once, seconds a run: ${together:-none}; the lowest share of a healthy run's directions: $(
	cat "$tmp"/healthy*/rails_together.csv 2> /dev/null | awk -F, '$1 != "from_host" && (m == "" || $7 < m) { m = $7 } END { print m "%" }')"
echo "directions measured a run (the rails' own pairs, both ways): $pairs; every port against every port: $((48 * 47))"
