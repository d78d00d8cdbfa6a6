#!/usr/bin/env bash
# After a fabric change, on the emulated cluster (scripts/fakecluster.sh): a run on racks
# 3,3,2 (names dealt across racks); the cluster rebuilt with node04 moved to rack 3 and
# node05's link slowed to 500 Mbit/s; then FP_REPEATS (3) runs with --baseline the first, --expect and
# --declared its topology.conf. Each time: the comparison names node04 moved at the leaf and
# nothing else; every pair of node05 is worse and no other pair is (node04's pairs only where
# the move changed the tier they meet at); the declared check names node04 only; the
# acceptance rules fail node05's pairs and pass the others. Then offline: `compare` gives the
# same, and a hand-written CSV with two nodes swapped names exactly those two. Needs root.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FC=scripts/fakecluster.sh
FP=$PWD/fabprobe
if [ "$(id -u)" -ne 0 ]; then
	skip "after a fabric change (emulated cluster)" "need root for network namespaces"
	exit 0
fi
tmp=$(mktemp -d /tmp/fp-compare-XXXXXX)
# FP_TEST_KEEP=DIR keeps the runs' results there, to read after a failure
trap '$FC down > /dev/null 2>&1; [ -n "${FP_TEST_KEEP:-}" ] && cp -r "$tmp" "$FP_TEST_KEEP"; rm -rf "$tmp"' EXIT
# short options in the spirit of scripts/demo.sh; tcp:eth0 so that rows carry the line rate
Q=(-c 1 -n 300 --lat-warmup 30 -s 1M -W 8 --bw-iters 3 --bw-warmup 1 --no-progress -p tcp:eth0 --coll-max 16K)
RACKS=(--racks 3,3,2 --interleave --uplink-rate 2gbit)
MOVED=node04 SLOW=node05
# The emulated fabric: 10 Gbit/s node links, 2 Gbit/s uplinks (20% of a node's line rate).
# Same-rack TCP streams reach ~92% of the line rate here, dipping to ~65% when the 2 shared
# cores are busy; cross-rack ones the uplink's 19%. The honest thresholds for this fabric:
cat > "$tmp/expect.conf" << 'EOF'
# the emulated cluster: 10 Gbit/s node links, 2 Gbit/s leaf uplinks (5:1 oversubscribed)
ethernet.min_pct_line_rate.leaf = 60    # same rack: ~92% measured, two thirds of it
ethernet.min_pct_line_rate.spine = 15   # across racks: the uplink's 20%, three quarters of it
nodes = 8
EOF

$FC up "${RACKS[@]}" > /dev/null || { notok "fakecluster up 3,3,2"; exit 1; }
$FC mpirun "$FP" run "${Q[@]}" -o "$tmp/base" > "$tmp/base.out" 2>&1
expect "baseline run: results written" test -s "$tmp/base/p2p.csv" -a -s "$tmp/base/topology.conf"
$FC up "${RACKS[@]}" --place $MOVED=3 --degrade $SLOW=500mbit > /dev/null || { notok "fakecluster up with $MOVED moved"; exit 1; }
expect "fakecluster --place: $MOVED now in rack 3" grep -q "^$MOVED,leaf3," /run/fabprobe-fakecluster/truth.csv

# iperf3_gbps SRC DST: Gbit/s of a 2 s single-stream TCP from SRC to DST, measured by iperf3 (not
# fabprobe). On this machine an emulated same-rack pair sometimes runs at 40-55% of its line
# rate through every measurement of a cluster build (seen in 2 of 5 builds, never on the same
# pair twice); a figure fabprobe reports for such a pair is right, and iperf3 says so.
iperf3_gbps() {
	$FC exec "$2" iperf3 -s -1 -p 5299 > /dev/null 2>&1 &
	sleep 0.5
	$FC exec "$1" iperf3 -c "$2" -p 5299 -t 2 -l 1M -J 2> /dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9)' ||
		echo 0
	wait
}
# unexplained LIST: the "SRC->DST GBITS" entries that iperf3 finds faster than GBITS Gbit/s
unexplained() {
	local src dst lim got
	while read -r pair lim; do
		[ -n "$pair" ] || continue
		src=${pair%->*} dst=${pair#*->}
		got=$(iperf3_gbps "$src" "$dst")
		awk -v g="$got" -v l="$lim" 'BEGIN { exit !(g > l) }' && echo "$pair (fabprobe < $lim Gbit/s, iperf3 $got)"
	done <<< "$1"
}
# only_pairs FILE: the worse p2p rows that are neither node05's nor node04's with a changed tier
others_worse() {
	awk -F, -v s=$SLOW -v m=$MOVED '$1 == "p2p" && $13 == "worse" && $3 != s && $4 != s &&
		!(($3 == m || $4 == m) && $7 ~ />/) { print $3 "->" $4 " " $6 " " $8 " " $9 }' "$1"
}
# slow_not_worse FILE: node05's ordered pairs without a worse bandwidth row
slow_not_worse() {
	for h in node01 node02 node03 node04 node06 node07 node08; do
		for p in "$SLOW,$h" "$h,$SLOW"; do
			awk -F, -v a="${p%,*}" -v b="${p#*,}" '$3 == a && $4 == b && $6 == "bw_GBps" && $13 == "worse" { f = 1 } END { exit !f }' "$1" || echo "$p"
		done
	done
}
for k in $(seq "${FP_REPEATS:-3}"); do
	d=$tmp/new$k
	$FC mpirun "$FP" run "${Q[@]}" --baseline "$tmp/base" --expect "$tmp/expect.conf" \
		--declared "$tmp/base/topology.conf" --test-model -o "$d" > "$d.out" 2>&1
	expect "run $k: verdict FAIL, naming the baseline, acceptance and declared findings" \
		grep -q '^verdict: FAIL .*baseline: [1-9][0-9]* worse, 0 gone, 1 moved; acceptance: 2 of 5 rules failed; declared: 1 mismatch)' "$d.out"
	# the judges judged the run's own model, never its directory read back: it holds what the
	# directory does, confirming figures, the map and the collectives included
	expect "run $k: the judges' model of the run is its directory's (--test-model)" \
		grep -q "^model: the run's own model holds what its directory does ([1-9][0-9]* p2p rows, [1-9][0-9]* retests)" "$d.out"
	# one confirmation pass for the map's candidates and the judges' pairs: the suspects it held
	# are in suspects.csv and in the verdict's suspects clause (they vanished once, when the
	# judges re-measured on their own and redrew the map: "none confirmed"), and the judges'
	# pairs were measured in it (no second pass, no p2p_retest.csv)
	expect "run $k: the verdict's suspects clause names $SLOW ($(grep -m1 '^verdict: ' "$d.out" | grep -o 'suspects: [^;)]*'))" \
		grep -q "^verdict: FAIL .*suspects: [^;)]*$SLOW" "$d.out"
	expect "run $k: suspects.csv holds $SLOW's finding, held, and nothing else" awk -F, -v s=$SLOW '
		NR > 1 { n++; if ($2 !~ s || $8 != "held") bad++ } END { exit !(n >= 1 && !bad) }' "$d/suspects.csv"
	expect "run $k: one confirmation pass, the judges' pairs in it, no second" sh -c "
		grep -q '^confirmation pass: [0-9]* candidate suspects\? and [1-9][0-9]* pairs\? the judges suspect' '$d.out' &&
		[ ! -e '$d/p2p_retest.csv' ] && [ \$(grep -c '^confirmation pass' '$d.out') -eq 1 ]"
	expect "run $k: the map names $MOVED moved at the leaf, nothing else" \
		[ "$(awk -F, 'NR > 1 && $7 != "same" { print $1, $3, $7 }' "$d/compare_topology.csv")" = "0 $MOVED moved" ]
	missing=$(slow_not_worse "$d/compare.csv")
	expect "run $k: every pair of $SLOW is worse${missing:+ (not: $missing)}" [ -z "$missing" ]
	others=$(others_worse "$d/compare.csv")
	# a bandwidth row worse on a link iperf3 also finds slower (by a fifth) is the fabric's
	slow=$(awk -F, -v s=$SLOW -v m=$MOVED '$1 == "p2p" && $13 == "worse" && $3 != s && $4 != s && $6 == "bw_GBps" &&
		!(($3 == m || $4 == m) && $7 ~ />/) { print $3 "->" $4, $8 * 8 * 0.8 }' "$d/compare.csv")
	others_lat=$(echo "$others" | grep -v ' bw_GBps ')
	left=$(unexplained "$slow")
	expect "run $k: no other pair worse${others:+ (fabprobe: $(echo $others))}${slow:+; iperf3 checked the bandwidth ones}${left:+: $(echo $left)}" \
		[ -z "$others_lat$left" ]
	expect "run $k: declared: $MOVED in the wrong leaf, nothing else" \
		[ "$(awk -F, 'NR > 1 { print $1, $4 }' "$d/declared_mismatch.csv")" = "$MOVED wrong_group" ]
	# every other pair passes, or iperf3 finds it under the same line (expect % of 10 Gbit/s)
	fails=$(awk -F, 'NR > 1 && $10 == "0" && $4 != s && $5 != s { split($9, e, " "); print $4 "->" $5, e[2] / 10 }' \
		s=$SLOW "$d/acceptance.csv")
	left=$(unexplained "$fails")
	expect "run $k: acceptance passes every pair but $SLOW's${fails:+ (fails: $(echo $fails); iperf3 checked them)}${left:+: $(echo $left)}" \
		[ -z "$left" ]
	expect "run $k: acceptance fails all 14 directions of $SLOW" \
		[ "$(awk -F, 'NR > 1 && $1 ~ /min_pct_line_rate/ && $10 == "0" && ($4 == s || $5 == s)' s=$SLOW "$d/acceptance.csv" | wc -l)" -eq 14 ]
	expect "run $k: failed rules printed with their worst offenders" \
		grep -A1 -q "FAIL ethernet.min_pct_line_rate.* failed; worst:" "$d.out"
done

# offline: the same comparison from the two directories, and its exit code
$FP compare "$tmp/base" "$tmp/new1" -o "$tmp/cmp" > "$tmp/cmp.out" 2>&1
rc=$?
expect "compare BASE NEW offline: exit 1 (worse pairs)" [ $rc -eq 1 ]
expect "compare offline: same classes as the run's own comparison" \
	diff <(cut -d, -f1-9,13 "$tmp/new1/compare.csv") <(cut -d, -f1-9,13 "$tmp/cmp/compare.csv")
expect "compare offline: summary with the worst regressions and the moved node" \
	sh -c "grep -q '^  worst regressions:' '$tmp/cmp.out' && grep -q '$MOVED moved (leaf)' '$tmp/cmp.out'"
# a hand-written declaration of the rebuilt cluster with node01 and node03 swapped
awk -F, 'NR > 1 { r = $2; if ($1 == "node01") r = "leaf3"; if ($1 == "node03") r = "leaf1"; print $1 "," r }' \
	/run/fabprobe-fakecluster/truth.csv > "$tmp/swapped.csv"
$FP topo "$tmp/new1" -o "$tmp/decl" --declared "$tmp/swapped.csv" > "$tmp/decl.out" 2>&1
rc=$?
expect "topo --declared a CSV with node01 and node03 swapped: exit 1" [ $rc -eq 1 ]
expect "declared_mismatch.csv names exactly node01 and node03" \
	[ "$(awk -F, 'NR > 1 { print $1 }' "$tmp/decl/declared_mismatch.csv" | sort | paste -sd' ')" = "node01 node03" ]
exit $((FAILED > 0))
