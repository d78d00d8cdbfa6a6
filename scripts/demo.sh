#!/usr/bin/env bash
# The demo: fabprobe's main job on an emulated 12-node cluster in 4 uneven racks (one node
# with a deliberately slow link), then the inferred racks against the ground truth. Run by
# `make demo`. Without root it says why and runs fabprobe on this machine alone instead.
set -euo pipefail
cd "$(dirname "$0")/.."
FC=scripts/fakecluster.sh
RACKS=4,3,3,2
SLOW=node06=1gbit
. scripts/demo-opts.sh
OPTS=("${DEMO_OPTS[@]}" --coll-max 64K --name demo)

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: the emulated cluster needs root (network namespaces); running fabprobe on this"
	echo "demo: machine alone instead: 4 ranks, every rank an endpoint (the intra-node map)"
	export OMPI_MCA_rmaps_base_oversubscribe=1
	exec mpirun -np 4 --bind-to none ./fabprobe run "${OPTS[@]}"
fi

trap '$FC down >/dev/null 2>&1 || true' EXIT
trap 'echo "demo: interrupted, tearing the cluster down"; exit 130' INT TERM
echo "demo: building an emulated cluster: racks $RACKS (nodes per leaf switch), 10 Gbit/s node"
echo "demo: links, 2 Gbit/s uplinks with 25 us per packet, $SLOW (a bad cable, say); node names"
echo "demo: are dealt across the racks, so they say nothing about the topology"
$FC up --racks "$RACKS" --interleave --uplink-rate 2gbit --degrade "$SLOW"
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

# the inferred racks against the ground truth the emulated cluster wrote
echo
echo "demo: ground truth vs inferred leaf switches:"
truth=$(awk -F, 'NR > 1 { g[$2] = g[$2] " " $1 } END { for (k in g) print g[k] }' /run/fabprobe-fakecluster/truth.csv | sort)
found=$(awk -F, 'NR > 1 { g[$3] = g[$3] " " $1 } END { for (k in g) print g[k] }' "$dir/topology.csv" | sort)
paste -d'|' <(echo "$truth") <(echo "$found") | awk -F'|' '{ printf "  truth:%-28s inferred:%s\n", $1, $2 }'
if [ "$truth" = "$found" ]; then echo "demo: racks recovered exactly"; else echo "demo: racks NOT recovered"; fi
# the confirmed suspects of every path's map, against the one fault planted
named=$(cat "$dir"/suspects*.csv | awk -F, '$1 != "kind" { print $2 }' | tr ' ' '\n' | sort -u | paste -sd' ' -)
echo "demo: the confirmed suspects name: ${named:-nobody} (planted: ${SLOW%%=*})"
echo "demo: results in $dir ($(ls "$dir" | wc -l) files: p2p.csv, matrices, topology.conf, k8s labels, ...)"
