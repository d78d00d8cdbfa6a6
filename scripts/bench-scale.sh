#!/usr/bin/env bash
# The measurement at scale: the p2p engine's own time per step at 64, 128 and 256 endpoints on
# this machine, then the plan (build/plan-sim) for 1,024, 4,096 and 16,384 nodes on 2- and
# 3-tier trees, with each phase's predicted wall time from those figures.
#   scripts/bench-scale.sh [--endpoints "64 128 256"] [--cluster] [--base COMMIT]
# With --base COMMIT, instead: this build against COMMIT built in a temporary worktree (outside
# the repository's tree, removed at the end), interleaved, twice each: the wall time of
# `mpirun -np N --oversubscribe fabprobe p2p -l 8 -s none -n 50` (the defaults otherwise) and
# the engine's time per step, for each N of --endpoints (default here "64 128").
# With --cluster (root), instead: on the emulated cluster of 16 nodes in 3 tiers with rack 2's
# uplink at 300 Mbit/s and node07 at 500 Mbit/s (tests/integration/test_cluster_scale.sh's),
# `fabprobe run --plan map` and `--plan all` side by side: pairs measured, wall time, findings.
# Each endpoint count is one launch of `fabprobe p2p -l 8 -s none -n 10 --lat-warmup 10
# --lat-passes 1` (oversubscribed: every endpoint on this machine's cores); meta.json's
# p2p_engine gives the engine's time per step, split into the agreement and gather (which on
# one machine grows with the endpoints that share its cores) and rank 0's merging and writing
# of the step's rows (which grows with the endpoints wherever they run). The prediction takes
# the rows' cost per endpoint (the least-squares slope) and the agreement at the fewest
# endpoints as a constant: on a cluster every endpoint has cores of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
eps="" cluster=0 base=""
while [ $# -gt 0 ]; do
	case $1 in
	--endpoints) eps=$2; shift 2 ;;
	--cluster) cluster=1; shift ;;
	--base) base=$2; shift 2 ;;
	*) echo "usage: $0 [--endpoints \"64 128 256\"] [--cluster] [--base COMMIT]" >&2; exit 2 ;;
	esac
done
if [ -n "$base" ]; then
	eps=${eps:-64 128}
	git rev-parse --verify -q "$base^{commit}" > /dev/null || { echo "$0: --base: '$base' is no commit" >&2; exit 2; }
	for n in $eps; do
		[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$0: --endpoints: '$n' is not a count" >&2; exit 2; }
	done
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	make -s fabprobe
	tmp=$(mktemp -d); trap 'git worktree remove --force "$tmp/base" > /dev/null 2>&1; rm -rf "$tmp"' EXIT
	git worktree add -q --detach "$tmp/base" "$base"
	make -s -C "$tmp/base" build/fabprobe > /dev/null
	printf '%-12s %9s %8s %12s\n' build endpoints "wall s" "sync ms/st"
	for n in $eps; do
		for round in 1 2; do
			for b in "$tmp/base/build/fabprobe" ./build/fabprobe; do
				wait_idle
				t0=$(date +%s.%N)
				mpirun -np "$n" --oversubscribe --bind-to none "$b" p2p -l 8 -s none -n 50 --no-progress \
					-o "$tmp/r" < /dev/null > "$tmp/r.log" 2>&1 || { tail -5 "$tmp/r.log"; exit 1; }
				t1=$(date +%s.%N)
				sync=$(sed -n 's/.*"sync_ms_per_step": \([0-9.]*\).*/\1/p' "$tmp/r/meta.json")
				printf '%-12s %9d %8.1f %12s\n' "$([ "$b" = ./build/fabprobe ] && echo this || git rev-parse --short "$base")" \
					"$n" "$(echo "$t1 - $t0" | bc)" "${sync:--}"
				rm -rf "$tmp/r"
			done
		done
	done
	exit 0
fi
eps=${eps:-64 128 256}
if [ "$cluster" = 1 ]; then
	make -s fabprobe
	FC=scripts/fakecluster.sh
	. scripts/demo-opts.sh
	tmp=$(mktemp -d); trap '$FC down > /dev/null 2>&1; rm -rf "$tmp"' EXIT
	$FC up --racks 4,4,4,4 --spines 2 --interleave --uplink-rate 1gbit --degrade-uplink 2=300mbit \
		--degrade node07=500mbit > /dev/null
	printf '%-10s %16s %16s %8s  %s\n' plan "latency pairs" "bandwidth pairs" "wall s" findings
	for plan in map all map all; do # interleaved, twice
		wait_idle
		t0=$(date +%s.%N)
		$FC mpirun ./fabprobe run "${DEMO_OPTS[@]}" --no-progress --no-coll --plan $plan -p tcp:eth0 \
			-o "$tmp/$plan" > "$tmp/$plan.out" 2>&1 || true
		t1=$(date +%s.%N)
		d=$tmp/$plan
		lat=$(awk -F, 'NR > 1 && $13 != "" && $4 < $5' "$d/p2p.csv" | wc -l)
		bw=$({ cat "$d/p2p.csv"; cat "$d/p2p_bw.csv" 2>/dev/null || true; } | awk -F, '$1 != "run_id" && $17 != "" && $4 < $5' | wc -l)
		printf '%-10s %16d %16d %8.1f  %s\n' "$plan" "$lat" "$bw" "$(echo "$t1 - $t0" | bc)" \
			"$(awk -F, 'NR > 1 && $8 == "held" { print $1, $2 }' "$d/suspects.csv" | paste -sd, -)"
		rm -rf "$d"
	done
	exit 0
fi
for n in $eps; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$0: --endpoints: '$n' is not a count" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
make -s fabprobe build/plan-sim
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%9s %7s %8s %12s %12s\n' endpoints steps "wall s" "sync ms/st" "rows ms/st"
for n in $eps; do
	wait_idle
	t0=$(date +%s.%N)
	mpirun -np "$n" --oversubscribe ./fabprobe p2p -l 8 -s none -n 10 --lat-warmup 10 --lat-passes 1 \
		-o "$tmp/p$n" > "$tmp/p$n.log" 2>&1 || { tail -5 "$tmp/p$n.log"; exit 1; }
	t1=$(date +%s.%N)
	read -r steps sync rows < <(sed -n 's/.*"p2p_engine": {"endpoints": [0-9]*, "steps": \([0-9]*\), "sync_ms_per_step": \([0-9.]*\), "write_ms_per_step": \([0-9.]*\)}.*/\1 \2 \3/p' "$tmp/p$n/meta.json")
	printf '%9d %7d %8.1f %12.2f %12.3f\n' "$n" "$steps" "$(echo "$t1 - $t0" | bc)" "$sync" "$rows"
	echo "$n $sync $rows" >> "$tmp/fit"
done
# the rows' slope (ms per endpoint) by least squares; the agreement at the fewest endpoints
read -r a b < <(awk 'NR == 1 { s0 = $2 } { n++; x += $1; y += $3; xx += $1 * $1; xy += $1 * $3 }
	END { d = n * xx - x * x; b = d ? (n * xy - x * y) / d : y / x; printf "%.4f %.4f\n", s0, b * 1000 }' "$tmp/fit")
echo "# prediction: the engine per step = ${a} ms (agreement, at the fewest endpoints) + ${b} us x endpoints (rows)"
build/plan-sim --step-ms "$a" --step-us-per-ep "$b"
