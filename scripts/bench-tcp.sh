#!/usr/bin/env bash
# fabprobe's tcp transport against a plain single-stream TCP measurement (iperf3) of the same
# link (the same 1 MiB writes, iperf3's largest), interleaved: on loopback, and (as root) between two nodes of one
# emulated rack.
#   scripts/bench-tcp.sh [--launches N]
set -euo pipefail
cd "$(dirname "$0")/.."
launches=5
[ "${1:-}" = --launches ] && launches=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"; [ -n "${FC_UP:-}" ] && scripts/fakecluster.sh down > /dev/null' EXIT
FPOPTS=(-l none -s 1M -W 64 --bw-iters 8 --bw-warmup 2 --no-progress)

median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f [%.2f..%.2f]", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
fp_gbps() { awk -F, 'NR == 2 { print $18 }' "$1/p2p.csv"; }

lo_fp=() lo_ip=()
for k in $(seq "$launches"); do
	mpirun -np 2 --bind-to none ./fabprobe p2p -p tcp:lo "${FPOPTS[@]}" -o "$tmp/lo$k" > /dev/null
	lo_fp+=("$(fp_gbps "$tmp/lo$k")")
	iperf3 -s -1 -B 127.0.0.1 -p 5299 > /dev/null 2>&1 & sleep 0.3
	lo_ip+=("$(iperf3 -c 127.0.0.1 -p 5299 -t 3 -l 1M -J | python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9)')")
	wait
done
echo "loopback, Gbit/s, median [min..max] of $launches: fabprobe tcp:lo $(printf '%s\n' "${lo_fp[@]}" | median)  iperf3 $(printf '%s\n' "${lo_ip[@]}" | median)"

[ "$(id -u)" -eq 0 ] || exit 0
scripts/fakecluster.sh up --racks 2 > /dev/null && FC_UP=1
ns_fp=() ns_ip=()
for k in $(seq "$launches"); do
	scripts/fakecluster.sh mpirun "$PWD/fabprobe" p2p -p tcp:eth0 "${FPOPTS[@]}" -o "$tmp/ns$k" > /dev/null 2>&1
	ns_fp+=("$(fp_gbps "$tmp/ns$k")")
	scripts/fakecluster.sh exec node02 iperf3 -s -1 -p 5299 > /dev/null 2>&1 & sleep 0.5
	ns_ip+=("$(scripts/fakecluster.sh exec node01 iperf3 -c node02 -p 5299 -t 3 -l 1M -J | python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9)')")
	wait
done
echo "namespaces (10 Gbit/s tbf node links), Gbit/s: fabprobe tcp:eth0 $(printf '%s\n' "${ns_fp[@]}" | median)  iperf3 $(printf '%s\n' "${ns_ip[@]}" | median)"
