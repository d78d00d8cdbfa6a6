#!/usr/bin/env bash
# Scale of the report: `fabprobe report` on a synthetic N-node results directory (default 1024:
# leaves of 32, latency and bandwidth matrices, the tree from `fabprobe topo`), wall time, peak
# memory and the page's size; best of 3.
#   scripts/bench-report.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1024}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 tests/integration/synth_results.py "$n" "$tmp"
./fabprobe topo "$tmp/lat.csv" -o "$tmp/out" > /dev/null
cp "$tmp/lat.csv" "$tmp/out/latency_mpi.csv"; cp "$tmp/bw.csv" "$tmp/out/bandwidth_mpi.csv"; cp "$tmp/meta.json" "$tmp/out/"
for i in 1 2 3; do
	/usr/bin/time -f "%e %M" -o "$tmp/t$i" ./fabprobe report -q "$tmp/out" > /dev/null
done
best=$(sort -g "$tmp"/t? | head -1)
echo "fabprobe report, $n nodes: ${best% *} s wall (best of 3), ${best#* } KiB peak RSS, $(stat -c %s "$tmp/out/report.html") bytes"
