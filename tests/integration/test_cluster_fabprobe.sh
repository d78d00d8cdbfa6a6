#!/usr/bin/env bash
# fabprobe across the emulated cluster (scripts/fakecluster.sh): racks 3,3,2 behind 1 Gbit/s
# uplinks with 25 us per packet; every pair measured over mpi and tcp:eth0; cross-rack pairs
# clearly apart from same-rack ones; traffic really crossed the uplinks; a degraded node stands
# out; `fabprobe run` recovers the racks exactly, three runs out of three, and a second tier
# under a core switch; teardown leaves nothing. Needs root; skipped otherwise.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FC=scripts/fakecluster.sh
FP=$PWD/fabprobe
TRUTH=/run/fabprobe-fakecluster/truth.csv
if [ "$(id -u)" -ne 0 ]; then
	skip "emulated cluster tests" "need root for network namespaces"
	exit 0
fi
tmp=$(mktemp -d /tmp/fp-cluster-XXXXXX)
trap '$FC down > /dev/null 2>&1; rm -rf "$tmp"' EXIT
Q=(-c 1 -n 300 --lat-warmup 30 -W 16 --bw-iters 2 --bw-warmup 1 --no-progress)

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }
# same_cross FILE COLUMN SIZE: "same-rack-median cross-rack-median" of a p2p.csv column
same_cross() {
	local same cross
	same=$(awk -F, -v c="$2" -v z="$3" 'FNR == NR { if (FNR > 1) rack[$1] = $2; next }
		FNR > 1 && $9 == z && $20 == "ok" && rack[$4] == rack[$5] { print $c }' $TRUTH "$1" | median)
	cross=$(awk -F, -v c="$2" -v z="$3" 'FNR == NR { if (FNR > 1) rack[$1] = $2; next }
		FNR > 1 && $9 == z && $20 == "ok" && rack[$4] != rack[$5] { print $c }' $TRUTH "$1" | median)
	echo "$same $cross"
}
uplink_tx() { # bytes sent by every leaf into its uplink
	local sum=0
	for ns in $(ip netns list | awk '/^fp-leaf/ { print $1 }'); do
		sum=$((sum + $(ip -n "$ns" -s link show uplink | awk '/TX:/ { getline; print $1 }')))
	done
	echo $sum
}
# same_groups CSV-A COL-A CSV-B COL-B: the two files group the hosts the same way
same_groups() {
	[ "$(awk -F, -v c="$2" 'NR > 1 { g[$c] = g[$c] " " $1 } END { for (k in g) print g[k] }' "$1" | sort)" = \
	  "$(awk -F, -v c="$4" 'NR > 1 { g[$c] = g[$c] " " $1 } END { for (k in g) print g[k] }' "$3" | sort)" ]
}

# node names dealt across the racks: they say nothing about the topology
$FC up --racks 3,3,2 --interleave > /dev/null || { notok "fakecluster up 3,3,2"; exit 1; }

# p2p over mpi and tcp:eth0, with a bounded retry against a noisy machine
for try in 1 2; do
	before=$(uplink_tx)
	$FC mpirun "$FP" p2p "${Q[@]}" -l 8 -s 1M -p mpi,tcp:eth0 -o "$tmp/p2p$try" > "$tmp/p2p$try.out" 2>&1
	rc=$?
	after=$(uplink_tx)
	read -r lat_same lat_cross <<< "$(same_cross "$tmp/p2p$try/p2p.csv" 11 8)"
	read -r bw_same bw_cross <<< "$(same_cross "$tmp/p2p$try/p2p.csv" 17 1048576)"
	awk -v a="$lat_same" -v b="$lat_cross" -v c="$bw_same" -v d="$bw_cross" 'BEGIN { exit !(b > a + 25 && b > 3 * a && d < 0.5 * c) }' && break
done
expect "p2p on 8 nodes: exit 0" [ "$rc" -eq 0 ]
for path in mpi tcp:eth0; do
	expect "$path: all 56 ordered pairs at both sizes" [ "$(count_rows "$tmp/p2p$try/p2p.csv" "NR > 1 && \$2 == \"$path\"")" -eq 112 ]
	expect "$path: status ok" rows_hold "$tmp/p2p$try/p2p.csv" "NR > 1 && \$2 == \"$path\"" '$20 == "ok"'
done
expect "cross-rack latency ($lat_cross us) over 25 us above same-rack ($lat_same us)" awk -v a="$lat_same" -v b="$lat_cross" 'BEGIN { exit !(b > a + 25) }'
expect "cross-rack latency ($lat_cross us) over 3 x same-rack ($lat_same us)" awk -v a="$lat_same" -v b="$lat_cross" 'BEGIN { exit !(b > 3 * a) }'
expect "cross-rack bandwidth ($bw_cross GB/s) clearly below same-rack ($bw_same GB/s)" awk -v c="$bw_same" -v d="$bw_cross" 'BEGIN { exit !(d < 0.5 * c) }'
# the bytes that had to cross racks: each of the 42 cross-rack directions streams (2 + 1) windows of 16 x 1 MiB on
# each of the two paths, ping-pongs are small; the leaves' uplinks must have carried them (plus headers)
payload=$((2 * 42 * 3 * 16 * 1048576)) # 2 paths, 56 - 14 cross-rack directions
expect "uplinks carried the cross-rack bytes ($((after - before)) B for $payload B of payload)" awk -v m=$((after - before)) -v p=$payload 'BEGIN { exit !(m >= p) }'
expect "uplinks carried under 1.3 x the cross-rack payload ($((after - before)) B for $payload B)" awk -v m=$((after - before)) -v p=$payload 'BEGIN { exit !(m < 1.3 * p) }'
expect "tcp:eth0 rows: kind ethernet, 10 Gbit/s line rate from sysfs, device eth0" rows_hold "$tmp/p2p$try/p2p.csv" 'NR > 1 && $2 == "tcp:eth0"' \
	'$3 == "ethernet"' '$8 == "10.0"' '$6 == "eth0"'
# tbf shapes node links at 10 Gbit/s and uplinks at 1 Gbit/s: what tcp reached must fit under them.
# tcp_1M SAME|CROSS COND: every tcp:eth0 1 MiB row of a same-rack (cross-rack) pair meets COND
tcp_1M() {
	awk -F, -v want="$1" 'FNR == NR { if (FNR > 1) r[$1] = $2; next }
		FNR > 1 && $2 == "tcp:eth0" && $9 == 1048576 && (r[$4] == r[$5]) == (want == "SAME") && !('"$2"') {
			printf "#   %s -> %s: pct_line_rate %s, bw_Gbps %s\n", $4, $5, $19, $18; bad++ }
		END { exit bad > 0 }' $TRUTH "$tmp/p2p$try/p2p.csv"
}
expect "tcp:eth0 same-rack bandwidth within the 10 Gbit/s node link (pct_line_rate > 30)" tcp_1M SAME '$19 > 30'
expect "tcp:eth0 same-rack bandwidth within the 10 Gbit/s node link (pct_line_rate < 105)" tcp_1M SAME '$19 < 105'
expect "tcp:eth0 cross-rack bandwidth near the 1 Gbit/s uplink (pct_line_rate > 5)" tcp_1M CROSS '$19 > 5'
expect "tcp:eth0 cross-rack bandwidth within the 1 Gbit/s uplink (pct_line_rate < 10.5)" tcp_1M CROSS '$19 < 10.5'
expect "tcp:eth0 cross-rack bandwidth within the 1 Gbit/s uplink (bw_Gbps < 1.05)" tcp_1M CROSS '$18 < 1.05'
read -r t_same t_cross <<< "$(same_cross "$tmp/p2p$try/p2p.csv" 11 8)"
expect "tcp:eth0 separates cross-rack pairs as mpi does" awk -v a="$t_same" -v b="$t_cross" 'BEGIN { exit !(b > a + 25) }'

# fabprobe run recovers the racks, three runs out of three
for k in 1 2 3; do
	$FC mpirun "$FP" run "${Q[@]}" -s 256K --coll-max 64K -o "$tmp/run$k" > "$tmp/run$k.out" 2>&1
	expect "run $k: racks 3,3,2 recovered exactly" same_groups "$tmp/run$k/topology.csv" 3 $TRUTH 2
done
expect "run: 2 tiers" grep -q 'latency map: 2 tiers' "$tmp/run1.out"
expect "run: verdict printed" grep -q '^verdict: ' "$tmp/run1.out"
expect "run: inventory of the 8 nodes in the same directory" [ "$(count_rows "$tmp/run1/nodes.csv" 'NR > 1')" -eq 8 ]
expect "run: node05 in the inventory, with the run id" grep -q '^run1,node05,' "$tmp/run1/nodes.csv"
expect "run: MPI all-reduce sweep, 10 sizes or more" [ "$(count_rows "$tmp/run1/collectives.csv" 'NR > 1 && $2 == "mpi"')" -ge 10 ]
expect "run: MPI all-reduce sweep over 8 ranks, every result correct" rows_hold "$tmp/run1/collectives.csv" 'NR > 1 && $2 == "mpi"' \
	'$9 == 8' '$16 == 0' '$17 == "ok"'
expect "run: matrices list the hosts in the inferred order" sh -c "[ \"\$(head -1 '$tmp/run1/latency_mpi.csv')\" = \"host,\$(paste -sd, '$tmp/run1/node-order.txt')\" ]"
expect "run: topology.conf written" [ -s "$tmp/run1/topology.conf" ]
expect "run: k8s-node-labels.yaml written" [ -s "$tmp/run1/k8s-node-labels.yaml" ]
expect "run: node-order.txt lists 8 nodes" [ "$(wc -l < "$tmp/run1/node-order.txt")" -eq 8 ]

# a degraded node stands out in its row and column, and the racks stay right
$FC up --racks 3,3,2 --degrade node05=200mbit > /dev/null
$FC mpirun "$FP" run "${Q[@]}" -s 1M --no-coll --no-inventory -o "$tmp/slow" > "$tmp/slow.out" 2>&1
expect "degraded node05: named in suspects.csv as a low-bandwidth node" grep -q '^low_bw_node,node05,' "$tmp/slow/suspects.csv"
expect "degraded node05: its row and column below every other node's" awk -F, '
	NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; next }
	{ for (i = 2; i <= NF; i++) if ($i != "") { s[$1] += $i; n[$1]++; s[name[i]] += $i; n[name[i]]++ } }
	END { m = s["node05"] / n["node05"]; for (h in s) if (h != "node05" && s[h] / n[h] <= m) exit 1 }' "$tmp/slow/bandwidth_mpi.csv"
expect "degraded node05: racks still recovered" same_groups "$tmp/slow/topology.csv" 3 $TRUTH 2

# a second tier: 4 leaves under 2 spines under a core
$FC up --racks 2,2,2,2 --spines 2 > /dev/null
$FC mpirun "$FP" run "${Q[@]}" -s 256K --no-coll -o "$tmp/tier3" > "$tmp/tier3.out" 2>&1
expect "two spines: 3 tiers found" grep -q 'latency map: 3 tiers' "$tmp/tier3.out"
expect "two spines: leaves recovered" same_groups "$tmp/tier3/topology.csv" 3 $TRUTH 2
expect "two spines: spines recovered" same_groups "$tmp/tier3/topology.csv" 4 $TRUTH 3
expect "two spines: topology.conf has a core over both spines" grep -q '^SwitchName=core00 Switches=spine\[00-01\]$' "$tmp/tier3/topology.conf"

# teardown leaves nothing, also after a run killed halfway
$FC mpirun "$FP" p2p "${Q[@]}" -s 4M -o "$tmp/killed" > /dev/null 2>&1 &
sleep 3
$FC down > /dev/null
wait 2>/dev/null
expect "down after a killed run: no namespace of ours" sh -c "! ip netns list | grep -q '^fp-'"
# (zombies are dead: they wait only for init to reap them)
live() { ps -eo stat=,comm= | awk '$1 !~ /^Z/ && ($2 == "fabprobe" || $2 == "orted" || $2 == "mpirun")' | grep -c .; }
for _ in $(seq 50); do [ "$(live)" -eq 0 ] && break; sleep 0.1; done
expect "down after a killed run: no fabprobe, orted or mpirun left" [ "$(live)" -eq 0 ]
expect "down after a killed run: no state" [ ! -e /run/fabprobe-fakecluster ]
expect "down after a killed run: no mounts" sh -c "! grep -q fabprobe-fakecluster /proc/mounts"
exit $((FAILED > 0))
