#!/usr/bin/env bash
# fabprobe across the emulated cluster (scripts/fakecluster.sh): racks 3,3,2 behind 2 Gbit/s
# uplinks with 25 us per packet, node names dealt across the racks. `fabprobe run` with the
# demo's short options and no -p, FP_REPEATS (3) runs in a row on the healthy layout: both paths (mpi,
# tcp:eth0) measured and mapped, racks exact and zero suspects each time; every pair measured,
# cross-rack pairs clearly apart from same-rack ones, traffic really crossed the uplinks; then
# as many with one node slowed: that node, and nothing else, named each time, the node order
# proven by an all-reduce in three orders (the written one faster than the launch order), and the
# report of the first in headless Chromium; teardown leaves nothing (three tiers on the
# emulated cluster: test_cluster_scale). Needs root; skipped otherwise.
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
# FP_TEST_KEEP=DIR keeps the runs' results there, to read after a failure
trap '$FC down > /dev/null 2>&1; [ -n "${FP_TEST_KEEP:-}" ] && cp -r "$tmp" "$FP_TEST_KEEP"; rm -rf "$tmp"' EXIT
Q=(-c 1 -n 300 --lat-warmup 30 -W 16 --bw-iters 2 --bw-warmup 1 --no-progress)
# runs in a row of each scenario (FP_REPEATS; 3 by default, the claim: every one exact, no
# false alarm; CI runs 1 to stay within its time)
REPEATS=${FP_REPEATS:-3}
# the demo's options (scripts/demo-opts.sh): what a new user tries first
. scripts/demo-opts.sh
D=("${DEMO_OPTS[@]}" --no-progress)

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }
# same_cross FILE COLUMN SIZE [PATH]: "same-rack-median cross-rack-median" of a p2p.csv column
same_cross() {
	local same cross
	same=$(awk -F, -v c="$2" -v z="$3" -v p="${4:-}" 'FNR == NR { if (FNR > 1) rack[$1] = $2; next }
		FNR > 1 && $9 == z && $20 == "ok" && (p == "" || $2 == p) && rack[$4] == rack[$5] { print $c }' $TRUTH "$1" | median)
	cross=$(awk -F, -v c="$2" -v z="$3" -v p="${4:-}" 'FNR == NR { if (FNR > 1) rack[$1] = $2; next }
		FNR > 1 && $9 == z && $20 == "ok" && (p == "" || $2 == p) && rack[$4] != rack[$5] { print $c }' $TRUTH "$1" | median)
	echo "$same $cross"
}
uplink_tx() { # bytes sent by every leaf into its uplink
	local sum=0
	for ns in $(ip netns list | awk '/^fp-leaf/ { print $1 }'); do
		sum=$((sum + $(ip -n "$ns" -s link show uplink | awk '/TX:/ { getline; print $1 }')))
	done
	echo $sum
}
# suspects DIR: the suspects every suspects file of a run names ("kind hosts", one a line);
# show_suspects DIR: the first of them as "#" comments, with what they rest on (metric, value,
# expected, first pass, state), and the cross-core probe of the run: a failure in CI says why
suspects() { cat "$1"/suspects*.csv 2>/dev/null | awk -F, '$1 != "kind" { print $1, $2 }'; }
show_suspects() {
	cat "$1"/suspects_*.csv 2>/dev/null | awk -F, '$1 != "kind" { print $1, $2, $3, $4, $5, $6, $7, $8 }' |
		head -12 | sed 's/^/#   /'
	grep -o '"cross_core_probe": {[^}]*}' "$1/meta.json" 2>/dev/null | sed 's/^/#   /'
}
# same_groups CSV-A COL-A CSV-B COL-B: the two files group the hosts the same way
same_groups() {
	[ "$(awk -F, -v c="$2" 'NR > 1 { g[$c] = g[$c] " " $1 } END { for (k in g) print g[k] }' "$1" | sort)" = \
	  "$(awk -F, -v c="$4" 'NR > 1 { g[$c] = g[$c] " " $1 } END { for (k in g) print g[k] }' "$3" | sort)" ]
}

# node names dealt across the racks: they say nothing about the topology
$FC up --racks 3,3,2 --interleave --uplink-rate 2gbit > /dev/null || { notok "fakecluster up 3,3,2"; exit 1; }

# fabprobe run with the demo's options and no -p recovers the racks, and names nothing on a
# healthy fabric, FP_REPEATS runs out of FP_REPEATS (no collectives: the slowed run has them)
for k in $(seq "$REPEATS"); do
	before=$(uplink_tx)
	$FC mpirun "$FP" run "${D[@]}" --no-coll -o "$tmp/run$k" > "$tmp/run$k.out" 2>&1
	rc[$k]=$? tx[$k]=$(($(uplink_tx) - before))
	expect "run $k: racks 3,3,2 recovered exactly" same_groups "$tmp/run$k/topology.csv" 3 $TRUTH 2
	n=$(suspects "$tmp/run$k" | wc -l)
	[ "$n" -eq 0 ] || show_suspects "$tmp/run$k"
	expect "run $k: healthy fabric, zero suspects ($n)" [ "$n" -eq 0 ]
	expect "run $k: verdict PASS" grep -q '^verdict: PASS' "$tmp/run$k.out"
	expect "run $k: no link counter rose on any node (counters.csv read on 8 nodes)" sh -c "grep -q '; links: no flap or error on 8 judged ports' '$tmp/run$k.out' &&
		[ \$(awk -F, 'NR > 1 { n[\$1] = 1 } END { print length(n) }' '$tmp/run$k/counters.csv') -eq 8 ] && ! awk -F, 'NR > 1 && \$11 != \"\"' '$tmp/run$k/counters.csv' | grep -q ."
	grep -h '^  re-tested\|^confirmation pass' "$tmp/run$k.out" | sed 's/^ */#   /'
done
# every pair, both paths, as run 1 measured them (no collectives: the uplinks carried the
# pairs' bytes, the first pass's and the confirmation's, and little else)
P=$tmp/run1/p2p.csv
read -r lat_same lat_cross <<< "$(same_cross "$P" 11 8)"
read -r bw_same bw_cross <<< "$(same_cross "$P" 17 1048576)"
expect "run 1: exit 0" [ "${rc[1]}" -eq 0 ]
# summary.json: valid against its schema (Debian's jsonschema), and what it says follows the run
SCHECK=(/usr/bin/python3 tests/integration/summary_check.py)
JCHECK=(/usr/bin/python3 tests/integration/junit_check.py)
PCHECK=(/usr/bin/python3 tests/integration/prom_check.py)
# checked NAME OUT CHECKER...: the checker's facts into OUT; that it passed is a check, named
# with its first complaint when it did not
checked() {
	local name=$1 out=$2 rc
	shift 2
	"$@" > "$out" 2>&1
	rc=$?
	expect "$name$(grep -m1 '_check:' "$out" | sed 's/^/: /')" [ $rc -eq 0 ]
}
checked "run 1: summary.json valid against docs/summary.schema.json" "$tmp/sum1" "${SCHECK[@]}" "$tmp/run1/summary.json" docs/summary.schema.json
expect "run 1: summary.json: PASS with exit 0, both paths 2 tiers of 3 and 1 groups, no finding that counts" \
	sh -c "grep -qx 'verdict PASS 0' '$tmp/sum1' && grep -qx 'tiers mpi 2 3,1' '$tmp/sum1' && grep -qx 'tiers tcp:eth0 2 3,1' '$tmp/sum1' && ! grep -q '^finding .* held$' '$tmp/sum1'"
# junit.xml: loaded by a standard JUnit consumer; a healthy run has no failed case
checked "run 1: junit.xml loads in junitparser, the suites' counts match their cases" "$tmp/junit1" "${JCHECK[@]}" "$tmp/run1/junit.xml"
expect "run 1: junit.xml: 8 node cases per path, every case green" \
	sh -c "grep -qx 'suite pairs_mpi 8 0' '$tmp/junit1' && grep -qx 'suite pairs_tcp:eth0 8 0' '$tmp/junit1' && ! grep -q '^fail' '$tmp/junit1'"
# fabprobe.prom: parsed by the Prometheus client's own parser, every family a gauge
checked "run 1: fabprobe.prom parses (the Prometheus text format)" "$tmp/prom1" "${PCHECK[@]}" "$tmp/run1/fabprobe.prom"
expect "run 1: fabprobe.prom: verdict 0, no finding, 56 directions x 3 stats and 56 bandwidths on each path" \
	sh -c "grep -qx 'verdict 0' '$tmp/prom1' && ! grep -q '^finding' '$tmp/prom1' && grep -qx 'pairs mpi 168 56' '$tmp/prom1' && grep -qx 'pairs tcp:eth0 168 56' '$tmp/prom1'"
for path in mpi tcp:eth0; do
	expect "$path: all 56 ordered pairs at both sizes" [ "$(count_rows "$P" "NR > 1 && \$2 == \"$path\"")" -eq 112 ]
	expect "$path: status ok" rows_hold "$P" "NR > 1 && \$2 == \"$path\"" '$20 == "ok"'
done
expect "cross-rack latency ($lat_cross us) over 25 us above same-rack ($lat_same us)" awk -v a="$lat_same" -v b="$lat_cross" 'BEGIN { exit !(b > a + 25) }'
expect "cross-rack latency ($lat_cross us) over 3 x same-rack ($lat_same us)" awk -v a="$lat_same" -v b="$lat_cross" 'BEGIN { exit !(b > 3 * a) }'
expect "cross-rack bandwidth ($bw_cross GB/s) clearly below same-rack ($bw_same GB/s)" awk -v c="$bw_same" -v d="$bw_cross" 'BEGIN { exit !(d < 0.5 * c) }'
# the bytes that had to cross racks: each cross-rack direction streams its timed and warm-up
# windows of 16 x 1 MiB on each path (the confirmation's pairs again); ping-pongs are small
payload=$(cat "$P" "$tmp/run1/p2p_confirm.csv" 2> /dev/null | awk -F, 'FNR == NR { if (FNR > 1) r[$1] = $2; next } $1 != "run_id" && $9 == 1048576 && $20 == "ok" && r[$4] != r[$5] { b += ($15 + $25) * $16 * $9 } END { printf "%.0f\n", b }' $TRUTH -)
expect "uplinks carried the cross-rack bytes (${tx[1]} B for $payload B of payload)" awk -v m="${tx[1]}" -v p="$payload" 'BEGIN { exit !(m >= p && m < 1.3 * p) }'
expect "tcp:eth0 rows: kind ethernet, 10 Gbit/s line rate from sysfs" sh -c "[ \$(awk -F, 'NR > 1 && \$2 == \"tcp:eth0\" && (\$3 != \"ethernet\" || \$8 != \"10.0\" || \$6 != \"eth0\")' '$P' | wc -l) -eq 0 ]"
# tbf shapes node links at 10 Gbit/s and uplinks at 2 Gbit/s: what tcp reached must fit under
# them. tbf lets a full bucket (1 ms at the rate, fakecluster's burst) through at once, so a
# 16 x 1 MiB window that starts on a full bucket can read up to ~108 % on a host that keeps up
bad_same=$(awk -F, 'FNR == NR { if (FNR > 1) r[$1] = $2; next } FNR > 1 && $2 == "tcp:eth0" && $9 == 1048576 && r[$4] == r[$5] && !($19 > 30 && $19 < 110) { printf " %s-%s:%s%%", $4, $5, $19 }' $TRUTH "$P")
expect "tcp:eth0 same-rack bandwidth within the 10 Gbit/s node link (pct_line_rate 30..110)${bad_same:+, not:$bad_same}" [ -z "$bad_same" ]
expect "tcp:eth0 cross-rack bandwidth within the 2 Gbit/s uplink (10..21 % of line rate)" sh -c "awk -F, 'FNR == NR { if (FNR > 1) r[\$1] = \$2; next } FNR > 1 && \$2 == \"tcp:eth0\" && \$9 == 1048576 && r[\$4] != r[\$5] && !(\$19 > 10 && \$19 < 21 && \$18 < 2.1) { bad++ } END { exit bad > 0 }' $TRUTH '$P'"
read -r t_same t_cross <<< "$(same_cross "$P" 11 8 tcp:eth0)"
expect "tcp:eth0 separates cross-rack pairs as mpi does ($t_same, $t_cross us)" awk -v a="$t_same" -v b="$t_cross" 'BEGIN { exit !(b > a + 25) }'
expect "run without -p: mpi and tcp:eth0 measured" sh -c "grep -q '^run: paths: mpi, tcp:eth0 ' '$tmp/run1.out' && [ \$(awk -F, 'NR > 1 && (\$2 == \"mpi\" || \$2 == \"tcp:eth0\") && \$20 == \"ok\"' '$tmp/run1/p2p.csv' | wc -l) -eq 224 ]"
expect "run without -p: a map for each path, the compute path's un-suffixed" sh -c "for f in topology tiers suspects; do for p in _mpi _tcp_eth0 ''; do [ -s '$tmp/run1/'\$f\$p.csv ] || exit 1; done; done"
expect "run: meta.json names the compute path" grep -q '"compute_path": "\(mpi\|tcp:eth0\)"' "$tmp/run1/meta.json"
expect "run: both paths' maps agree here" grep -q '^maps: .* agree' "$tmp/run1.out"
expect "run: bandwidth rows converged or say they did not" sh -c "[ \$(awk -F, 'NR > 1 && \$9 == 1048576 && \$20 == \"ok\" && \$26 != \"converged\" && \$26 != \"not converged\"' '$tmp/run1/p2p.csv' | wc -l) -eq 0 ]"
expect "run: 2 tiers, verdict printed" sh -c "grep -q 'latency map: 2 tiers' '$tmp/run1.out' && grep -q '^verdict: ' '$tmp/run1.out'"
expect "run: inventory of the 8 nodes in the same directory" sh -c "[ \$(awk 'END { print NR - 1 }' '$tmp/run1/nodes.csv') -eq 8 ] && grep -q '^run1,node05,' '$tmp/run1/nodes.csv'"
expect "run: matrices list the hosts in the inferred order" sh -c "[ \"\$(head -1 '$tmp/run1/latency_mpi.csv')\" = \"host,\$(paste -sd, '$tmp/run1/node-order.txt')\" ]"
expect "run: topology.conf written" [ -s "$tmp/run1/topology.conf" ]
expect "run: k8s-node-labels.yaml written" [ -s "$tmp/run1/k8s-node-labels.yaml" ]
expect "run: node-order.txt lists 8 nodes" [ "$(wc -l < "$tmp/run1/node-order.txt")" -eq 8 ]

# ranks that are not endpoints (two ranks per node: the second one) wait asleep while the pairs
# are measured; each process's CPU time is sampled from /proc until the job ends
$FC mpirun --slots 2 "$FP" run -p mpi --no-coll "${Q[@]}" -s 256K -o "$tmp/slots2" > "$tmp/slots2.out" 2>&1 &
job=$!
exe=$(readlink -f "$FP")
declare -A cpu=()
while kill -0 $job 2> /dev/null; do
	for p in $(pgrep -x fabprobe); do
		[ "$(readlink -f /proc/$p/exe 2> /dev/null)" = "$exe" ] || continue
		r=$(tr '\0' '\n' < /proc/$p/environ 2> /dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
		t=$(awk '{ print $14 + $15 }' /proc/$p/stat 2> /dev/null)
		[ -n "$r" ] && [ -n "$t" ] && cpu[$r]=$t
	done
	sleep 0.3
done
wait $job
idle=0 busy=0
for r in "${!cpu[@]}"; do
	if [ $((r % 2)) -eq 1 ]; then idle=$((idle + cpu[$r])); else busy=$((busy + cpu[$r])); fi
done
expect "two ranks per node: run ends, 8 endpoints" grep -q '^p2p mpi: 8 endpoints on 8 nodes' "$tmp/slots2.out"
expect "two ranks per node: the 8 that are no endpoint slept (CPU ${idle} ticks, endpoints ${busy})" [ "${#cpu[@]}" -eq 16 -a $((idle * 4)) -lt "$busy" ]

# one node slowed (its link at 1 Gbit/s, half what crosses a spine): that node, and only that
# node, is named, every run, after the confirmation pass (the first over both
# paths with the collectives, as the demo runs; the others over mpi: a slow node's pairs are
# the slowest part of the test)
$FC up --racks 3,3,2 --interleave --uplink-rate 2gbit --degrade node05=1gbit > /dev/null
for k in $(seq "$REPEATS"); do
	# run 1 also flaps node02's eth0 (rank 1; ip link down and up) before the second read of the
	# link counters: that node and port, and nothing else, is a link_flap
	extra=(--no-coll -p mpi); [ $k -eq 1 ] && extra=(--coll-max 64K --min-pct 90 --test-flap 1:eth0)
	$FC mpirun "$FP" run "${D[@]}" "${extra[@]}" -o "$tmp/slow$k" > "$tmp/slow$k.out" 2>&1
	others=$(suspects "$tmp/slow$k" | grep -cv node05)
	[ "$others" -eq 0 ] || show_suspects "$tmp/slow$k"
	expect "slow node05, run $k: named as a low-bandwidth node" grep -q '^low_bw_node,node05,' "$tmp/slow$k/suspects.csv"
	expect "slow node05, run $k: nothing else named ($others)" [ "$others" -eq 0 ]
	# (a second finding on node05 may come first in the verdict's list: seen once in CI, two
	# findings held on node05's pairs; "nothing else named" still holds every other node to zero)
	expect "slow node05, run $k: the verdict names it ($(grep -m1 '^verdict: ' "$tmp/slow$k.out"))" \
		grep -q '^verdict: FAIL .*suspects: .*low_bw_node [0-9]* (node05)' "$tmp/slow$k.out"
	expect "slow node05, run $k: racks still recovered" same_groups "$tmp/slow$k/topology.csv" 3 $TRUTH 2
	grep -h '^  re-tested' "$tmp/slow$k.out" | sed 's/^ */#   /'
done
# the node order, proven (run 1 has the collectives): each order's communicator ranks the hosts
# as node-order.txt, the launch (the hostfile) and the random order list them; every result
# exact; the written order's ring faster than the launch order's, as the map predicts (on these
# interleaved racks the leaf of node01 sends 3 flows through its uplink in the launch order,
# and node05's 1 Gbit/s caps the written one: x1.5)
O=$tmp/slow1/order_check.csv
row() { awk -F, -v o="$1" -v b="$2" -v c="$3" '$1 == o && $2 == b { print $c }' "$O"; }
expect "order: the written order's communicator is node-order.txt" [ "$(row written ring 11)" = "$(paste -sd' ' "$tmp/slow1/node-order.txt")" ]
expect "order: the launch order's communicator is the hostfile's" [ "$(row launch mpi 11)" = "$(tail -n +2 $TRUTH | cut -d, -f1 | paste -sd' ' -)" ]
expect "order: the random order is another" sh -c "[ -n '$(row random ring 11)' ] && [ '$(row random ring 11)' != '$(row launch ring 11)' ]"
expect "order: 6 all-reduces (3 orders x ring, mpi), no wrong element" awk -F, 'NR > 1 { n++; if ($10 != 0) bad++ } END { exit bad || n != 6 }' "$O"
expect "order: ring in the written order $(row written ring 8) GB/s > 1.1 x launch order $(row launch ring 8) (predicted $(row written ring 9) / $(row launch ring 9))" \
	awk -v w="$(row written ring 8)" -v l="$(row launch ring 8)" -v pw="$(row written ring 9)" -v pl="$(row launch ring 9)" 'BEGIN { exit !(w > 1.1 * l && pw > 1.3 * pl) }'
expect "order: meta.json says the speedup" grep -q '"node_order_check": {.*"speedup_vs_launch": [0-9]' "$tmp/slow1/meta.json"
expect "order: report.html shows it, with the ring's speedup" sh -c "grep -q '<h3>The node order, proven</h3>' '$tmp/slow1/report.html' && grep -q 'The ring in the written order: [0-9.]* GB/s, in the launch order: [0-9.]* GB/s (x[0-9.]*)' '$tmp/slow1/report.html'"
expect "slow node05: suspects.csv keeps the first and the confirming figure" awk -F, '$1 == "low_bw_node" && $4 != "" && $6 != "" && $8 == "held" { ok = 1 } END { exit !ok }' "$tmp/slow1/suspects.csv"
expect "slow node05: its row and column below every other node's" awk -F, '
	NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; next }
	{ for (i = 2; i <= NF; i++) if ($i != "") { s[$1] += $i; n[$1]++; s[name[i]] += $i; n[name[i]]++ } }
	END { m = s["node05"] / n["node05"]; for (h in s) if (h != "node05" && s[h] / n[h] <= m) exit 1 }' "$tmp/slow1/bandwidth_mpi.csv"

expect "slow run 1: MPI all-reduce sweep over 8 ranks, every result correct" awk -F, 'NR > 1 && $2 == "mpi" { n++; if ($9 != 8 || $16 != 0 || $17 != "ok") bad++ } END { exit bad || n < 10 }' "$tmp/slow1/collectives.csv"
expect "slow run 1: fabprobe's ring over each path measured (mpi, tcp:eth0), 8 ranks, every result correct" awk -F, 'NR > 1 && $2 == "ring" { n[$18]++; if ($9 != 8 || $16 != 0 || $17 != "ok") bad++ } END { exit bad || n["mpi"] < 10 || n["tcp:eth0"] < 10 }' "$tmp/slow1/collectives.csv"
expect "slow run 1: the ring over tcp:eth0 has its 10 Gbit/s line rate and busbw as % of it; over mpi none" awk -F, 'NR > 1 && $2 == "ring" {
	if ($18 == "tcp:eth0" && ($19 != "10.0" || $20 == "" || ($20 - $15 * 80) ^ 2 > 0.01 + ($20 * 0.01) ^ 2)) bad++
	if ($18 == "mpi" && $19 != "") bad++ } END { exit bad > 0 }' "$tmp/slow1/collectives.csv"
expect "slow run 1, --min-pct 90: the verdict says the ring on tcp:eth0 is below it, not on mpi (no line rate)" \
	grep -Eq '^verdict: FAIL .*collectives: correct, below --min-pct 90% of line rate: tcp:eth0 [0-9]+%;' "$tmp/slow1.out"
checked "slow run 1: summary.json valid against docs/summary.schema.json" "$tmp/sumslow" "${SCHECK[@]}" "$tmp/slow1/summary.json" docs/summary.schema.json
expect "slow run 1: summary.json: FAIL with exit 1, node05 a low_bw_node that held, and no other finding that held" \
	sh -c "grep -qx 'verdict FAIL 1' '$tmp/sumslow' && grep -Eq '^finding [^ ]+ low_bw_node node05 held$' '$tmp/sumslow' && [ \$(grep '^finding .* held$' '$tmp/sumslow' | grep -vc ' node05 held$') -eq 0 ]"
expect "slow run 1: summary.json: the ring over tcp:eth0 at its largest size, with % of line rate, no wrong element" \
	grep -Eq '^coll ring tcp:eth0 allreduce [0-9]+ [0-9.]+ [0-9.]+ 0$' "$tmp/sumslow"
expect "slow run 1: report.html links summary.json" grep -q '<a href="summary.json">summary.json</a>' "$tmp/slow1/report.html"
python3 tests/integration/report_check.py banner "$tmp/slow1" "slow run 1: report.html"
checked "slow run 1: junit.xml loads in junitparser" "$tmp/junitslow" "${JCHECK[@]}" "$tmp/slow1/junit.xml"
expect "slow run 1: junit.xml: node05's case failed, every other node's green; the verdict and the ring below --min-pct failed" \
	sh -c "grep -Eq '^fail pairs_[^ ]+ node05$' '$tmp/junitslow' && [ \$(grep '^fail pairs_' '$tmp/junitslow' | grep -vc ' node05$') -eq 0 ] &&
	grep -qx 'fail verdict fabprobe run' '$tmp/junitslow' && grep -q '^fail collectives ring over tcp:eth0 allreduce float sum, ' '$tmp/junitslow'"
checked "slow run 1: fabprobe.prom parses" "$tmp/promslow" "${PCHECK[@]}" "$tmp/slow1/fabprobe.prom"
expect "slow run 1: fabprobe.prom: verdict 1, node05's finding and no other, the ring's busbw over tcp:eth0" \
	sh -c "grep -qx 'verdict 1' '$tmp/promslow' && grep -Eq '^finding low_bw_node node05 ' '$tmp/promslow' && [ \$(grep '^finding' '$tmp/promslow' | grep -v '^finding link_flap node02 port:eth0$' | grep -vc ' node05 ') -eq 0 ] && grep -q '^coll ring tcp:eth0 allreduce ' '$tmp/promslow'"
# the link counters: the flapped interface, and no other node or port
expect "slow run 1, --test-flap 1:eth0: counters.csv has node02's eth0 carrier_changes as the one finding" \
	sh -c "[ \"\$(awk -F, 'NR > 1 && \$11 != \"\"' '$tmp/slow1/counters.csv' | cut -d, -f1,2,5,11)\" = 'node02,eth0,carrier_changes,link_flap' ]"
expect "slow run 1: the verdict names the flap ($(grep -o 'links: [^;)]*' "$tmp/slow1.out"))" grep -q '^verdict: FAIL .*; links: link_flap node02:eth0[;)]' "$tmp/slow1.out"
expect "slow run 1: summary.json and junit.xml: node02's link_flap, nothing else of the link counters" \
	sh -c "[ \"\$(grep '^link ' '$tmp/sumslow')\" = 'link link_flap node02 eth0' ] && [ \"\$(grep '^fail link_counters' '$tmp/junitslow')\" = 'fail link_counters node02' ]"
# the actions: node05 (a node finding) and node02 (its port's flap) drained, nothing else
expect "slow run 1: drain-slurm.sh drains node05 and node02, no other node" \
	sh -c "[ \"\$(grep '^node ' '$tmp/slow1/drain-slurm.sh' | cut -d\"'\" -f2 | sort | paste -sd' ' -)\" = 'node02 node05' ] && sh -n '$tmp/slow1/drain-slurm.sh'"
expect "slow run 1: k8s-health-labels.yaml: node02 and node05 fail, the other 6 pass" /usr/bin/python3 -c "
import sys, yaml
docs = [d for d in yaml.safe_load_all(open('$tmp/slow1/k8s-health-labels.yaml')) if d]
h = {d['metadata']['name']: d['metadata']['labels']['fabprobe/health'] for d in docs}
sys.exit(not (len(h) == 8 and sorted(k for k, v in h.items() if v == 'fail') == ['node02', 'node05'] and all(v in ('pass', 'fail') for v in h.values())))"
expect "slow run 1: report.html shows the flap and links the machine files" sh -c "grep -q '<section id=\"links\">' '$tmp/slow1/report.html' && grep -q '<td>link_flap</td>' '$tmp/slow1/report.html' && for f in junit.xml fabprobe.prom counters.csv drain-slurm.sh k8s-health-labels.yaml; do grep -q \"<a href=\\\"\$f\\\">\" '$tmp/slow1/report.html' || exit 1; done"
# the report of the first slowed run: written by run, 3 leaves outlined in each of its 4 heat
# maps (2 paths x latency, bandwidth), and in headless Chromium: DOM and pixels
maps=$(grep -o '<svg class="hm"' "$tmp/slow1/report.html" 2> /dev/null | wc -l)
expect "slow run 1: report.html written at the end of run" [ -s "$tmp/slow1/report.html" ]
expect "slow run 1: 3 leaf switches outlined in each of the 4 heat maps ($maps)" \
	[ "$(grep -o '<rect class="b0"' "$tmp/slow1/report.html" | wc -l)" -eq 12 -a "$maps" -eq 4 ]
PIXELS=1 report_browser cluster "$tmp/slow1" 8 mpi,tcp:eth0


# coll --path: two networks whose uplinks are an order of magnitude apart (eth0 200 Mbit/s,
# eth1 2 Gbit/s); MPI's all-reduce told to take one netdev follows that network's uplinks; the
# rows and coll_meta.json say which path and what was set; an element corrupted on one path
# is caught there
$FC up --racks 2,2 --uplink-rate 200mbit --net2 2,2 --net2-interleave --net2-uplink-rate 2gbit > /dev/null
for p in tcp:eth0 tcp:eth1; do
	$FC mpirun "$FP" coll --path $p -b 1M -e 1M -n 5 -w 1 --output "$tmp/coll_${p#tcp:}" > "$tmp/coll_${p#tcp:}.out" 2>&1
done
busbw() { awk -F, -v p="$2" -v b="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["path"] == p && $c["backend"] == b && $c["in_place"] == 0 { print $c["busbw_GBps"] }' "$1/collectives.csv"; }
for be in mpi ring; do
	b0=$(busbw "$tmp/coll_eth0" tcp:eth0 $be) b1=$(busbw "$tmp/coll_eth1" tcp:eth1 $be)
	expect "coll --path, $be: tcp:eth1 (2 Gbit/s uplinks, ${b1:-none} GB/s) over 3 x tcp:eth0 (200 Mbit/s, ${b0:-none} GB/s)" \
		awk -v a="$b0" -v b="$b1" 'BEGIN { exit !(a > 0 && b > 3 * a) }'
done
expect "coll --path: the rows name their path, every result right" awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ n++; if ($c["path"] != "tcp:eth1" || $c["wrong"] != 0) bad++ } END { exit bad || !n }' "$tmp/coll_eth1/collectives.csv"
expect "coll --path: coll_meta.json says what was set, what it replaced and what Open MPI took (MPI_T)" \
	grep -q '"OMPI_MCA_btl_tcp_if_include": {"set": "eth1", "was": "10.78.0.0/16", "library": "eth1"}' "$tmp/coll_eth1/coll_meta.json"
$FC mpirun "$FP" coll --backend mpi --path tcp:eth1 -b 1M -e 1M -n 2 -w 1 --test-corrupt 1 --output "$tmp/coll_bad" > "$tmp/coll_bad.out" 2>&1
rc_bad=$?
caught=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["path"] == "tcp:eth1" && $c["wrong"] > 0 { f = 1 } END { print f + 0 }' "$tmp/coll_bad/collectives.csv" 2> /dev/null)
expect "coll --path tcp:eth1, one element corrupted on rank 1: caught there (exit $rc_bad)" [ "$rc_bad" -eq 1 -a "$caught" = 1 ]
$FC mpirun "$FP" coll --backend ring --path tcp:eth1 -b 1M -e 1M -n 2 -w 1 --test-corrupt 2 --output "$tmp/ring_bad" > "$tmp/ring_bad.out" 2>&1
rc_bad=$?
expect "coll --backend ring --path tcp:eth1, one element corrupted on rank 2: caught (exit $rc_bad)" \
	sh -c "[ $rc_bad -eq 1 ] && grep -q 'WRONG RESULT: ring allreduce float sum, 1048576 B .* first on rank 2' '$tmp/ring_bad.out'"

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
