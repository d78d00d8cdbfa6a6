#!/usr/bin/env bash
# The demo: fabprobe's main job on an emulated 12-node cluster with the networks of a GPU
# cluster: a front end (eth0) in 4 uneven racks, one node with a deliberately slow link, and a
# compute fabric (eth1, MPI's) that groups the same nodes into 2 other leaves; then each
# network's inferred racks against its ground truth. Then the same nodes' 4 rails (rail0 ..
# rail3, two scalable units of 6), one node's cables of two rails swapped and one rail port
# slowed, judged with --rails: each rail's map against its truth, the findings against the two
# faults planted. Run by `make demo`. Without root it says why and runs fabprobe on this machine
# alone instead.
set -euo pipefail
cd "$(dirname "$0")/.."
FC=scripts/fakecluster.sh
RACKS=4,3,3,2
NET2=6,6
SLOW=node06=500mbit
SWAP=node03=2,3
SLOWPORT=node08:1=1gbit
SHARED=node10=6gbit
RAILS=tcp:rail0,tcp:rail1,tcp:rail2,tcp:rail3
. scripts/demo-opts.sh
# mpi (over eth1) and tcp:eth0: one path on each network (tcp:eth1 would measure eth1 again)
OPTS=("${DEMO_OPTS[@]}" -p mpi,tcp:eth0 --coll-max 64K --name demo)

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: the emulated cluster needs root (network namespaces); running fabprobe on this"
	echo "demo: machine alone instead: 4 ranks, every rank an endpoint (the intra-node map)"
	export OMPI_MCA_rmaps_base_oversubscribe=1
	exec mpirun -np 4 --bind-to none ./fabprobe run "${DEMO_OPTS[@]}" --coll-max 64K --name demo
fi

trap '$FC down >/dev/null 2>&1 || true' EXIT
trap 'echo "demo: interrupted, tearing the cluster down"; exit 130' INT TERM
echo "demo: building an emulated cluster of 12 nodes on two networks; node names are dealt"
echo "demo: across the racks of each, so they say nothing about the topology:"
UPLINK=1gbit
echo "demo:   eth0, the front end: racks $RACKS (nodes per leaf switch), 10 Gbit/s node links,"
echo "demo:   $UPLINK uplinks with 25 us per packet, $SLOW (a bad cable, say)"
echo "demo:   eth1, the compute fabric (MPI's traffic): racks $NET2, 10 Gbit/s node links,"
echo "demo:   $UPLINK uplinks with 10 us per packet"
echo "demo:   rail0 .. rail3, the rails: rail i of node01-06 under one leaf, of node07-12 under"
echo "demo:   another, 4 Gbit/s; node03's cables of rails 2 and 3 swapped, node08's rail 1 port at"
echo "demo:   1 Gbit/s, node10's four rails through one 6 Gbit/s link (NICs behind one PCIe uplink)"
$FC up --racks "$RACKS" --interleave --uplink-rate $UPLINK --degrade "$SLOW" \
	--net2 "$NET2" --net2-interleave --net2-uplink-rate $UPLINK --net2-uplink-delay-us 10 \
	--rails 4 --rail-su 6 --rail-swap "$SWAP" --rail-degrade "$SLOWPORT" --rail-shared "$SHARED"
echo
# fabprobe run ARGS...: its output, the launcher's noise left out; the results directory in $dir
run() {
	local out
	out=$(mktemp)
	set +e
	$FC mpirun "$PWD/fabprobe" run "$@" 2>&1 | grep -v -e '^---' -e 'Primary job' -e 'a non-zero exit code' \
		-e 'Per user-direction' -e 'mpirun detected' -e 'the job to be terminated' -e 'Process name' \
		-e 'Exit code:' -e '^$' | tee "$out"
	set -e
	dir=$(sed -n 's/^results: //p' "$out" | tail -1)
	verdict=$(grep -m 1 '^verdict: ' "$out" || true)
	rm -f "$out"
	[ -n "$dir" ] && [ -f "$dir/summary.json" ] || { echo "demo: fabprobe did not finish"; exit 1; }
}
# groups FILE COLUMN [INTERFACE]: FILE's hosts grouped by COLUMN, one group a line (of the rows
# of INTERFACE alone, column 2, when given)
groups() {
	awk -F, -v c="$2" -v i="${3:-}" 'NR > 1 && (i == "" || $2 == i) { g[$c] = g[$c] " " $1 }
		END { for (k in g) print g[k] }' "$1" | sort
}
# against TRUTH_GROUPS FOUND_GROUPS: both side by side; exact=0 unless equal
against() {
	paste -d'|' <(echo "$1") <(echo "$2") | awk -F'|' '{ printf "  truth:%-28s inferred:%s\n", $1, $2 }'
	[ "$1" = "$2" ] || exact=0
}
truth=/run/fabprobe-fakecluster

run "${OPTS[@]}"
# each network's inferred racks against the ground truth the emulated cluster wrote: the map
# of mpi (over eth1) and the map of tcp:eth0
exact=1
for net in "eth1 mpi truth_eth1.csv topology_mpi.csv" "eth0 tcp:eth0 truth.csv topology_tcp_eth0.csv"; do
	read -r dev path tfile mfile <<< "$net"
	echo
	echo "demo: $dev ($path's map): ground truth vs inferred leaf switches:"
	against "$(groups "$truth/$tfile" 2)" "$(groups "$dir/$mfile" 3)"
done
if [ "$exact" = 1 ]; then echo "demo: racks recovered exactly, on both networks"; else echo "demo: racks NOT recovered"; fi
# the confirmed suspects of every path's map, against the one fault planted
named=$(cat "$dir"/suspects*.csv | awk -F, '$1 != "kind" { print $2 }' | tr ' ' '\n' | sort -u | paste -sd' ' -)
echo "demo: the confirmed suspects name: ${named:-nobody} (planted: ${SLOW%%=*})"
echo "demo: results in $dir ($(ls "$dir" | wc -l) files: p2p.csv, matrices, topology.conf, k8s labels, ...)"

echo
echo "demo: the rails, each measured on its own and judged together (--rails)"
run "${DEMO_OPTS[@]}" -p "$RAILS" --rails "$RAILS" --no-coll --no-order --name demo-rails > /dev/null
exact=1
for r in 0 1 2 3; do
	echo "demo: rail$r's map: ground truth (the leaf each port is cabled into) vs inferred leaves:"
	against "$(groups "$truth/truth_rails.csv" 3 "rail$r")" "$(groups "$dir/topology_tcp_rail$r.csv" 3)"
done
if [ "$exact" = 1 ]; then echo "demo: every rail's map exact"; else echo "demo: a rail's map NOT exact"; fi
echo "$verdict"
echo "demo: planted: node03's cables of rails 2 and 3 swapped, node08's rail 1 port at 1 Gbit/s,"
echo "demo:   node10's rails sharing 6 Gbit/s (rails_together.csv: each rail alone, then all at once)"
echo "demo: results in $dir"
