#!/usr/bin/env bash
# The map's bandwidth plan on the emulated cluster (docs/measurement.md#at-scale): 16 nodes in
# 4 racks under 2 spines and a core (3 tiers), names dealt across the racks, rack 2's uplink at
# 300 Mbit/s against 1 Gbit/s for the others, node07's link at 500 Mbit/s. `fabprobe run --plan
# map` over tcp:eth0: latency over all 120 pairs, the map exact (racks and spines), the
# bandwidth of the pairs the map plans only (fewer than all, said), p2p_bw.csv holding them;
# the slow uplink named once, as low_bw_uplink on rack 2's switch group (not as its nodes or
# their links), node07 as low_bw_node, nothing else; the drain script drains node07 alone; the
# loaded pass (--loaded) shows the uplinks' oversubscription and bisects the leaves slow under
# load: rack 2's to its uplink, the leaf paired with it cleared; `fabprobe topo` offline reads
# the planned bandwidth back. The first map is drawn wrong on purpose (--test-split-leaves:
# every leaf as two): the run plans again from the confirmed map and confirms again, and all
# of the above must still hold. Needs root; skipped otherwise.
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
tmp=$(mktemp -d /tmp/fp-scale-XXXXXX)
trap '$FC down > /dev/null 2>&1; [ -n "${FP_TEST_KEEP:-}" ] && cp -r "$tmp" "$FP_TEST_KEEP"; rm -rf "$tmp"' EXIT
. scripts/demo-opts.sh
# groups CSV COL: each group of column COL as its sorted hosts, one a line, sorted
groups() { awk -F, -v c="$2" 'NR > 1 { print $c, $1 }' "$1" | sort | awk '$1 != g { if (NR > 1) print l; g = $1; l = "" } { l = l " " $2 } END { print l }' | sort; }
# same_groups CSV-A COL-A CSV-B COL-B: the two files group the hosts the same way
same_groups() { [ "$(groups "$1" "$2")" = "$(groups "$3" "$4")" ]; }

$FC up --racks 4,4,4,4 --spines 2 --interleave --uplink-rate 1gbit --degrade-uplink 2=300mbit \
	--degrade node07=500mbit > "$tmp/up.out" 2>&1 || { cat "$tmp/up.out"; notok "fakecluster up 4,4,4,4 --spines 2"; exit 1; }
start=$(date +%s)
# --test-split-leaves: the first map draws every leaf as two halves, as a latency pass whose
# pairs inside a leaf read apart would (2 runs in CI drew such a map on their own; the plan
# then missed pairs inside the true leaves, the first candidates stood on half leaves, and in
# one of them the slow uplink and node07 "did not hold" once the confirmed map was the true
# tree: a PASS). The run must plan again from the confirmed map, measure the 8 pairs inside
# racks that the first plan left out (without it: 16 of the 24, this check's failure), and
# confirm again on the full figures.
$FC mpirun "$FP" run "${DEMO_OPTS[@]}" --no-progress --no-coll --plan map --loaded --test-split-leaves -p tcp:eth0 \
	-o "$tmp/plan" > "$tmp/plan.out" 2>&1
rc=$?
took=$(($(date +%s) - start))
r=$tmp/plan
expect "run --plan map: exit 1, a verdict of FAIL ($(grep -m 1 '^verdict' "$tmp/plan.out"); ${took} s)" \
	sh -c "[ $rc -eq 1 ] && grep -q '^verdict: FAIL' '$tmp/plan.out'"
# a wrong verdict here has been seen twice in CI (2026-12-04 among them: a PASS, "none
# confirmed"), too seldom to catch by hand: what the candidates were and what became of them
if [ $rc -ne 1 ]; then
	echo "# the run's candidates and their re-tests (40 lines from its confirmation pass on):"
	sed -n '/^confirmation pass/,$p' "$tmp/plan.out" | grep -v '^ *node[0-9]* ' | head -n 40 | sed 's/^/#   /'
	echo "# retested.csv:"
	head -n 20 "$tmp/plan/retested.csv" 2> /dev/null | cut -c1-200 | sed 's/^/#   /'
fi
expect "the map of the latency of every pair: racks exact" same_groups "$r/topology.csv" 3 $TRUTH 2
expect "…3 tiers (leaf, spine, core)" [ "$(awk -F, 'NR > 1' "$r/tiers.csv" | wc -l)" -eq 3 ]
expect "…spines exact" same_groups "$r/topology.csv" 4 $TRUTH 3
expect "…topology.conf: a core over both spines, each spine over its leaves" sh -c \
	"grep -qx 'SwitchName=core00 Switches=spine\\[00-01\\]' '$r/topology.conf' && [ \$(grep -c '^SwitchName=spine0[01] Switches=leaf' '$r/topology.conf') -eq 2 ]"
expect "latency: all 120 pairs in p2p.csv, both directions (240 rows), no bandwidth there" \
	sh -c "[ \$(awk -F, 'NR > 1 && \$20 == \"ok\"' '$r/p2p.csv' | wc -l) -eq 240 ] && ! awk -F, 'NR > 1 && \$17 != \"\"' '$r/p2p.csv' | grep -q ."
# (4 tiers, or 5 where a half leaf's one pair read at the machine's other latency level: the
# hook's halves of 2 have no other pair to show it is noise)
first=$(sed -n 's/^run: bandwidth plan for tcp:eth0 from its map ([45] tiers): \([0-9]*\) of its 120 pairs.*/\1/p' "$tmp/plan.out")
more=$(sed -n 's/^run: bandwidth plan for tcp:eth0 again, from its confirmed map.* (3 tiers): \([0-9]*\) more of its 120 pairs.*/\1/p' "$tmp/plan.out")
planned=$((${first:-0} + ${more:-0}))
grep '^run: bandwidth plan for' "$tmp/plan.out" | sed 's/^/# /'
expect "the first plan from the split map (4 or 5 tiers: ${first:-none} pairs), again from the confirmed one (3 tiers: ${more:-none} more)" \
	sh -c "[ -n '$first' ] && [ -n '$more' ] && [ '$more' -gt 0 ] && grep -q '^confirmation pass, again' '$tmp/plan.out'"
expect "the plans: fewer pairs than all ($planned of 120), said on the terminal" sh -c "[ '$planned' -gt 0 ] && [ '$planned' -lt 120 ]"
expect "p2p_bw.csv: both plans' pairs, both directions, every row ok" \
	sh -c "[ \$(awk -F, 'NR > 1 && \$20 == \"ok\" && \$17 != \"\"' '$r/p2p_bw.csv' | wc -l) -eq \$((2 * $planned)) ]"
# every pair inside a rack is measured (4 racks of 4: 24), the second plan adding what the first
# (on half leaves) left out
expect "every pair inside a rack in the plans (24)" sh -c "[ \$(awk -F, 'FNR == NR { if (FNR > 1) rack[\$1] = \$2; next }
	FNR > 1 && rack[\$4] == rack[\$5] && \$4 < \$5' $TRUTH '$r/p2p_bw.csv' | wc -l) -eq 24 ]"
rack2=$(awk -F, 'NR > 1 && $2 == "leaf2" { print $1 }' $TRUTH | sort | paste -sd' ' -)
cut -d, -f1,2,4,5,8 "$r/suspects.csv" | sed 's/^/#   /'
expect "suspects: exactly two, both held" sh -c "[ \$(awk -F, 'NR > 1' '$r/suspects.csv' | wc -l) -eq 2 ] &&
	[ \$(awk -F, 'NR > 1 && \$8 == \"held\"' '$r/suspects.csv' | wc -l) -eq 2 ]"
grp=$(awk -F, '$1 == "low_bw_uplink" { print $2 }' "$r/suspects.csv")
expect "rack 2's slow uplink: one low_bw_uplink on the switch group of exactly its nodes ($rack2)" sh -c \
	"[ -n '$grp' ] && [ \"\$(awk -F, -v g='$grp' 'NR > 1 && \$3 == g { print \$1 }' '$r/topology.csv' | sort | paste -sd' ' -)\" = '$rack2' ]"
expect "node07: low_bw_node" grep -q '^low_bw_node,node07,' "$r/suspects.csv"
expect "no link named (low_bw_link), rack 2's nodes not named" sh -c "! grep -q '^low_bw_link' '$r/suspects.csv' &&
	! awk -F, 'NR > 1 && \$1 != \"low_bw_uplink\"' '$r/suspects.csv' | grep -qE ',($(echo "$rack2" | tr ' ' '|')),'"
expect "the verdict names the uplink by its group" grep -q "^verdict: FAIL .*low_bw_uplink 1 ($grp)" "$tmp/plan.out"
expect "drain-slurm.sh drains node07 alone (an uplink fails no node)" sh -c "[ \"\$(grep -o \"^node '[^']*'\" '$r/drain-slurm.sh' | sort -u)\" = \"node 'node07'\" ]"
expect "summary.json and junit.xml name the uplink's group" sh -c "grep -q '\"kind\": \"low_bw_uplink\", \"hosts\": \\[\"$grp\"\\]' '$r/summary.json' &&
	grep -q 'low_bw_uplink $grp' '$r/junit.xml'"
expect "summary.json valid against docs/summary.schema.json (low_bw_uplink a kind of it)" \
	/usr/bin/python3 tests/integration/summary_check.py "$r/summary.json" docs/summary.schema.json
expect "meta.json: the engine's own time per step (p2p_engine)" grep -q '"p2p_engine": {"endpoints": 16' "$r/meta.json"
# the loaded pass: every node in a pair at once, apart; its first round pairs the two halves of
# the tree order, 4 nodes of each leaf through its uplink and 8 through a spine's to the core
# at once
grep '^loaded pass' "$tmp/plan.out" | sed 's/^/# /'
expect "the loaded pass: p2p_loaded.csv (3 rounds of 8 pairs, both directions: 48 rows) and its matrix" sh -c \
	"[ \$(awk -F, 'NR > 1 && \$17 != \"\"' '$r/p2p_loaded.csv' | wc -l) -eq 48 ] && [ -s '$r/loaded_bandwidth_tcp_eth0.csv' ]"
# (each direction is a step of its own, its streams starting together; the prediction is 1/8 of
# 0.125 GB/s, 0.016 GB/s; streams whose windows end early leave the others more: it reads above)
expect "the loaded pass: across the core, under a third of the 1 Gbit/s uplinks' 0.125 GB/s (their oversubscription)" sh -c \
	"grep -o '\"tier\": 2, \"directions\": [0-9]*, \"loaded_GBps\": [0-9.]*' '$r/meta.json' |
	awk -F'\"loaded_GBps\": ' '{ ok = \$2 > 0 && \$2 < 0.0417 } END { exit !ok }'"
# the bisection: the leaves whose streams across their uplinks ran slow under load (rack 2's and
# the leaf its round paired it with) measured again against nodes known good
grep -E '^(bisecting under load on|  burst|  ->)' "$tmp/plan.out" | sed 's/^/# /'
expect "the bisection: rack 2's group ($grp) bisected to its uplink, the bursts said" sh -c \
	"grep -q '^tcp:eth0,$grp,0,verdict,.*,uplink\$' '$r/loaded_bisect.csv' && grep -q '^  burst 1: ' '$tmp/plan.out' &&
	grep -q \"^  -> $grp's uplink\" '$tmp/plan.out' &&
	grep -q '\"group\": \"$grp\", \"tier\": 0, \"verdict\": \"uplink\"' '$r/meta.json'"
expect "the bisection: every other group it took up cleared, no node named" sh -c \
	"[ -z \"\$(awk -F, '\$4 == \"verdict\" && \$2 != \"$grp\" && \$NF != \"cleared\"' '$r/loaded_bisect.csv')\" ] &&
	[ \$(awk -F, '\$4 == \"verdict\"' '$r/loaded_bisect.csv' | wc -l) -ge 1 ] && [ -s '$r/p2p_bisect.csv' ]"
expect "the loaded pass after the isolated findings were decided and written (nothing of it judged)" sh -c \
	"awk '/^  suspects: 2 / { s = NR } /^loaded pass:/ { l = NR } END { exit !(s && l && s < l) }' '$tmp/plan.out'"
# offline: the planned bandwidth read back with p2p.csv, and the same findings as candidates.
# `topo DIR` maps the first figures, as the run's first map did: on this machine they split
# the leaves now and then on their own (two pairs of a leaf 0.6 us faster than its other
# four, at 9 us, every time: the pair offsets of 16 endpoints sharing 2 cores), which the
# run's confirmed map undoes and an offline map cannot. Then its uplink finding names the
# half of rack 2 that its map calls a leaf: checked as that
"$FP" topo "$r" -o "$tmp/topo" > "$tmp/topo.out" 2>&1
otiers=$(awk -F, 'NR > 1' "$tmp/topo/tiers.csv" | wc -l)
expect "fabprobe topo offline: p2p_bw.csv read back (each of its $otiers tiers' bandwidth median in tiers.csv)" sh -c \
	"[ $otiers -ge 3 ] && [ \$(awk -F, 'NR > 1 && \$6 != \"\"' '$tmp/topo/tiers.csv' | wc -l) -eq $otiers ]"
# A link candidate offline on a pair that the run re-measured alone (p2p_confirm.csv: the
# confirmation cleared it, the offline map cannot re-test) is left out of the comparison and
# said: one in-leaf direction of the re-plan's pairs read 0.56 GB/s among 1.19, once.
# offline_findings KEEP: the offline suspects as "kind hosts": KEEP 1 all but such links,
# KEEP 0 those links alone
offline_findings() {
	awk -F, -v keep="$1" 'FNR == NR { if (FNR > 1) { re[$4 " " $5] = 1; re[$5 " " $4] = 1 } next }
		FNR > 1 && !($1 ~ /_link$/ && re[$2]) == keep { print $1, $2 }' "$r/p2p_confirm.csv" "$tmp/topo/suspects.csv" |
		sort | paste -sd, -
}
if [ "$otiers" -eq 3 ]; then
	cleared=$(offline_findings 0)
	[ -z "$cleared" ] || echo "# offline link candidates the run re-measured alone and cleared: $cleared"
	expect "fabprobe topo offline: low_bw_uplink $grp and low_bw_node node07, nothing else (but links the run cleared)" sh -c \
		"$(declare -f offline_findings); r='$r' tmp='$tmp'; [ \"\$(offline_findings 1)\" = 'low_bw_node node07,low_bw_uplink $grp' ]"
else
	echo "# offline: the first figures split the leaves ($otiers tiers): $(awk -F, 'NR > 1 { printf "%s %s; ", $1, $2 }' "$tmp/topo/suspects.csv")"
	ogrp=$(awk -F, '$1 == "low_bw_uplink" { print $2 }' "$tmp/topo/suspects.csv")
	expect "fabprobe topo offline, leaves split: low_bw_node node07, one low_bw_uplink on nodes of rack 2 (${ogrp:-none}), no other bandwidth finding" sh -c \
		"grep -q '^low_bw_node,node07,' '$tmp/topo/suspects.csv' && [ \$(echo '$ogrp' | wc -w) -eq 1 ] &&
		[ -z \"\$(awk -F, 'FNR == NR { if (FNR > 1) rack[\$1] = \$2; next } FNR > 1 && \$3 == \"$ogrp\" && rack[\$1] != \"leaf2\"' $TRUTH '$tmp/topo/topology.csv')\" ] &&
		[ \$(awk -F, 'NR > 1 && \$1 ~ /^low_bw_/' '$tmp/topo/suspects.csv' | wc -l) -eq 2 ]"
fi
exit $((FAILED > 0))
