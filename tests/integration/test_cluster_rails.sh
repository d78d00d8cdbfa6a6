#!/usr/bin/env bash
# The rails judged on the emulated cluster (docs/judging.md#rails): 12 nodes, names dealt across
# two front-end racks, with 4 rails in two scalable units of 6 (fakecluster.sh --rails 4
# --rail-su 6). node03's cables of rails 2 and 3 swapped, node08's rail 1 port at 1 Gbit/s and
# node10's four rails through one 6 Gbit/s link (--rail-shared), as the demo plants them:
# `fabprobe run -p <the rails> --rails <the same>` with the demo's options (about 95 s) maps
# every rail exactly (node03 alone in rails 2 and 3), fails naming node03's two ports, cabled
# into each other's rail leaves by 8 probes from node01's four ports (each port nearest through
# the other's rail, rail_probes.csv), node08's rail 1 port (its other rails not), node10's rails
# at once (rails_together.csv: its four directions below half of the sum alone) and nothing
# else, in every output
# (terminal, summary.json, junit.xml, fabprobe.prom), and drains node08 and node10 (a cable,
# not a node, is at fault on node03). The same cluster without faults: PASS, every port in its rail's
# leaf (latency alone, -s none: about 35 s). Ranks of one node with --rails: unjudged. Needs
# root; skipped otherwise.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FC=scripts/fakecluster.sh
FP=$PWD/fabprobe
TRUTH=/run/fabprobe-fakecluster/truth_rails.csv
if [ "$(id -u)" -ne 0 ]; then
	skip "emulated cluster tests" "need root for network namespaces"
	exit 0
fi
tmp=$(mktemp -d /tmp/fp-rails-XXXXXX)
trap '$FC down > /dev/null 2>&1; [ -n "${FP_TEST_KEEP:-}" ] && cp -r "$tmp" "$FP_TEST_KEEP"; rm -rf "$tmp"' EXIT
RAILS=tcp:rail0,tcp:rail1,tcp:rail2,tcp:rail3
. scripts/demo-opts.sh
OPTS=(--no-progress --no-coll --no-order -p "$RAILS" --rails "$RAILS")
# groups RAIL: rail RAIL's leaf groups in the run's map, and in the truth, as sorted host lists
map_groups() { awk -F, 'NR > 1 { print $3, $1 }' "$tmp/swap/topology_tcp_rail$1.csv" | sort |
	awk '$1 != g { if (NR > 1) print l; g = $1; l = "" } { l = l " " $2 } END { print l }' | sort; }
truth_groups() { awk -F, -v r="rail$1" '$2 == r { print $3, $1 }' "$TRUTH" | sort |
	awk '$1 != g { if (NR > 1) print l; g = $1; l = "" } { l = l " " $2 } END { print l }' | sort; }

# ranks of one node (no cluster): their rails are not theirs, unjudged, never a PASS
dev=$(ip route show default 2> /dev/null | awk '{ print $5; exit }')
if [ -z "$dev" ] || [ "$dev" = lo ]; then
	skip "ranks of one node: --rails unjudged" "no interface with a default route"
else
	LOCAL=mpi,tcp:lo,tcp:$dev
	timeout 300 "${MPIRUN_LOCAL[@]}" -np 2 "$FP" run --no-progress --no-coll --no-order -s none -n 50 -p "$LOCAL" \
		--rails "$LOCAL" -o "$tmp/one" > "$tmp/one.out" 2>&1
	rc=$?
	expect "ranks of one node: --rails unjudged, exit 1 ($(grep -m 1 '^verdict' "$tmp/one.out"))" sh -c \
		"[ $rc -eq 1 ] && grep -q '^verdict: FAIL (unjudged: --rails: the endpoints are ranks of one node' '$tmp/one.out'"
fi
$FC up --racks 6,6 --interleave --rails 4 --rail-su 6 --rail-swap node03=2,3 --rail-degrade node08:1=1gbit \
	--rail-shared node10=6gbit > "$tmp/up.out" 2>&1 || { cat "$tmp/up.out"; notok "fakecluster up --rails 4 --rail-swap node03=2,3"; exit 1; }
$FC mpirun "$FP" run "${DEMO_OPTS[@]}" "${OPTS[@]}" -o "$tmp/swap" > "$tmp/swap.out" 2>&1
rc=$?
# the clause, @ for each figure (the probes' µs, the port's share of its rail's median)
want="rails: node03 tcp:rail2 and tcp:rail3 cabled into each other's rail leaves (two cables swapped; probed from node01: @ and @ us through each other's rails, @ us or more through the others); node08 tcp:rail1 port: low_bw_node (@% of its rail's median bandwidth) on that rail alone (of 4 rails), node10: 4 rails at once moved @% of their sum alone, sending and receiving, with each of its partners (the pairs' median @%: a PCIe uplink its NICs share, or a host that cannot feed them)"
want_bre=${want//@/[0-9][0-9.]*}
expect "swapped: exit 1 ($(grep -m 1 '^verdict' "$tmp/swap.out"))" [ $rc -eq 1 ]
for r in 0 1 2 3; do
	expect "swapped: rail $r's map is its truth (node03 alone in rails 2 and 3)" \
		[ "$(map_groups $r)" = "$(truth_groups $r)" ]
done
expect "swapped: the verdict names node03's two ports and node08's rail 1 port, nothing else" sh -c \
	"grep -q \"^verdict: FAIL (nodes alike; pairs: all measured; collectives: not run; suspects: low_bw_node 1 (node08); links: [^;]*; $want_bre)\\\$\" '$tmp/swap.out'"
expect "swapped: 8 probes, node03's two ports from node01's four, each nearest through the other's rail" sh -c \
	"grep -q '^rails: 8 probes of 2 ports off their rails. leaves in' '$tmp/swap.out' &&
	[ \$(wc -l < '$tmp/swap/rail_probes.csv') -eq 9 ] &&
	[ \"\$(sort -t, -k2,2 -k5,5g '$tmp/swap/rail_probes.csv' | awk -F, '\$1 == \"node03\" && !seen[\$2]++ { print \$2, \$3, \$4 }' | paste -sd,)\" = \
	'tcp:rail2 node01 tcp:rail3,tcp:rail3 node01 tcp:rail2' ] &&
	[ \"\$(awk -F, '\$8 == 1 { print \$2, \$4 }' '$tmp/swap/rail_probes.csv' | sort | paste -sd,)\" = \
	'tcp:rail2 tcp:rail3,tcp:rail3 tcp:rail2' ]"
expect "swapped: node08's finding is of tcp:rail1 alone" sh -c \
	"grep -q '^low_bw_node,node08,' '$tmp/swap/suspects_tcp_rail1.csv' && [ \$(cat '$tmp'/swap/suspects_*.csv | grep -vc '^kind,') -eq 1 ]"
expect "swapped: every rail at once, 12 pairs each way in the units' cycles; node10's four directions below half, no other" sh -c \
	"grep -q '^rails: every rail at once, 12 pairs each way' '$tmp/swap.out' &&
	[ \$(wc -l < '$tmp/swap/rails_together.csv') -eq 25 ] &&
	[ \"\$(awk -F, 'NR > 1 && \$7 < 50 { print \$1 \">\" \$2 }' '$tmp/swap/rails_together.csv' | sort | paste -sd,)\" = \
	'node09>node10,node10>node09,node10>node11,node11>node10' ]"
printf '%s\n' "$want" > "$tmp/want"
expect "swapped: summary.json's rails clause fails with that text, valid against the schema" sh -c \
	"/usr/bin/python3 -c 'import json, re, sys; v = json.load(open(sys.argv[1]))[\"verdict\"]
w = re.escape(open(sys.argv[2]).read().strip()).replace(\"@\", \"[0-9][0-9.]*\")
sys.exit(not [c for c in v[\"clauses\"] if c[\"about\"] == \"rails\" and c[\"fails\"] and re.fullmatch(w, c[\"text\"])])' '$tmp/swap/summary.json' '$tmp/want' &&
	/usr/bin/python3 tests/integration/summary_check.py '$tmp/swap/summary.json' docs/summary.schema.json > /dev/null"
expect "swapped: junit.xml's judges fail on it, fabprobe.prom's rails clause is 1" sh -c \
	"grep -q 'rails: node03 tcp:rail2 and tcp:rail3 cabled into each other.*two cables swapped; probed from node01' '$tmp/swap/junit.xml' &&
	grep -qx 'fabprobe_verdict_clause{clause=\"rails\"} 1' '$tmp/swap/fabprobe.prom'"
expect "swapped: node08 drained for its rail 1 port, node10 for its rails at once, node03 not (a cable is at fault)" sh -c \
	"[ \$(grep -c '^node ' '$tmp/swap/drain-slurm.sh') -eq 2 ] &&
	grep -q \"^node 'node08' '.*low_bw_node on tcp:rail1\" '$tmp/swap/drain-slurm.sh' &&
	grep -q \"^node 'node10' '.*rails_together (4 rails at once moved [0-9]*% of their sum alone, sending and receiving)'\" '$tmp/swap/drain-slurm.sh' &&
	/usr/bin/python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))[\"node_findings\"]
sys.exit(not (len(f) == 1 and f[0][\"kind\"] == \"rails_together\" and f[0][\"host\"] == \"node10\"))' '$tmp/swap/summary.json'"

$FC up --racks 6,6 --interleave --rails 4 --rail-su 6 > "$tmp/up2.out" 2>&1 ||
	{ cat "$tmp/up2.out"; notok "fakecluster up --rails 4"; exit 1; }
$FC mpirun "$FP" run -s none -n 300 "${OPTS[@]}" -o "$tmp/ok" > "$tmp/ok.out" 2>&1
rc=$?
expect "healthy rails: PASS, every port in its rail's leaf ($(grep -m 1 '^verdict' "$tmp/ok.out"))" sh -c \
	"[ $rc -eq 0 ] && grep -q '^verdict: PASS .*rails: every port in its rail.s leaf (12 nodes on 4 rails))\$' '$tmp/ok.out'"
expect "healthy rails: no probe taken" sh -c "! grep -q '^rails: .* probe' '$tmp/ok.out' && [ ! -e '$tmp/ok/rail_probes.csv' ]"
[ "$FAILED" -eq 0 ]
