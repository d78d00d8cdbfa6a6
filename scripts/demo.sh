#!/usr/bin/env bash
# The demo: fabprobe's main job on an emulated 12-node cluster with two networks, as a GPU
# cluster has them: a front end (eth0) in 4 uneven racks, one node with a deliberately slow
# link, and a compute fabric (eth1, MPI's) that groups the same nodes into 2 other leaves; then
# each network's inferred racks against its ground truth. Run by `make demo`. Without root it
# says why and runs fabprobe on this machine alone instead.
set -euo pipefail
cd "$(dirname "$0")/.."
FC=scripts/fakecluster.sh
RACKS=4,3,3,2
NET2=6,6
SLOW=node06=500mbit
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
$FC up --racks "$RACKS" --interleave --uplink-rate $UPLINK --degrade "$SLOW" \
	--net2 "$NET2" --net2-interleave --net2-uplink-rate $UPLINK --net2-uplink-delay-us 10
echo
out=$(mktemp)
set +e
$FC mpirun "$PWD/fabprobe" run "${OPTS[@]}" 2>&1 | grep -v -e '^---' -e 'Primary job' -e 'a non-zero exit code' \
	-e 'Per user-direction' -e 'mpirun detected' -e 'the job to be terminated' -e 'Process name' -e 'Exit code:' \
	-e '^$' | tee "$out"
set -e
dir=$(sed -n 's/^results: //p' "$out" | tail -1)
rm -f "$out"
[ -n "$dir" ] && [ -f "$dir/topology.csv" ] || { echo "demo: fabprobe did not finish"; exit 1; }

# each network's inferred racks against the ground truth the emulated cluster wrote: the map
# of mpi (over eth1) and the map of tcp:eth0
groups() { awk -F, -v c="$2" 'NR > 1 { g[$c] = g[$c] " " $1 } END { for (k in g) print g[k] }' "$1" | sort; }
exact=1
for net in "eth1 mpi truth_eth1.csv topology_mpi.csv" "eth0 tcp:eth0 truth.csv topology_tcp_eth0.csv"; do
	read -r dev path tfile mfile <<< "$net"
	echo
	echo "demo: $dev ($path's map): ground truth vs inferred leaf switches:"
	truth=$(groups "/run/fabprobe-fakecluster/$tfile" 2)
	found=$(groups "$dir/$mfile" 3)
	paste -d'|' <(echo "$truth") <(echo "$found") | awk -F'|' '{ printf "  truth:%-28s inferred:%s\n", $1, $2 }'
	[ "$truth" = "$found" ] || exact=0
done
if [ "$exact" = 1 ]; then echo "demo: racks recovered exactly, on both networks"; else echo "demo: racks NOT recovered"; fi
# the confirmed suspects of every path's map, against the one fault planted
named=$(cat "$dir"/suspects*.csv | awk -F, '$1 != "kind" { print $2 }' | tr ' ' '\n' | sort -u | paste -sd' ' -)
echo "demo: the confirmed suspects name: ${named:-nobody} (planted: ${SLOW%%=*})"
echo "demo: results in $dir ($(ls "$dir" | wc -l) files: p2p.csv, matrices, topology.conf, k8s labels, ...)"
