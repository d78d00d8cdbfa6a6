#!/usr/bin/env bash
# fabprobe compare, topo --expect/--declared and run's judging options, offline: results
# directories written here (8 nodes in racks of 3,3,2, noisy figures), one with a slow node
# and a moved node; exit codes, files, summaries; bad input refused with file, line and key
# (and before anything is measured, for run). No cluster needed.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=./fabprobe
tmp=$(mktemp -d /tmp/fp-cmpoff-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# mkrun DIR SEED RACKS SLOW: a results directory; RACKS maps node -> rack ("1 2 3 1 2 3 1 2")
mkrun() {
	mkdir -p "$1"
	awk -v seed="$2" -v racks="$3" -v slow="$4" -v dir="$1" 'BEGIN {
		srand(seed); n = split(racks, r, " ")
		p = dir "/p2p.csv"; t = dir "/topology.csv"
		print "run_id,path,kind,src_host,dst_host,src_dev,dst_dev,line_rate_Gbps,size_B,lat_iters,lat_us_min,lat_us_avg,lat_us_p50,lat_us_p99,bw_windows,window,bw_GBps,bw_Gbps,pct_line_rate,status,note" > p
		for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if (i != j) {
			a = sprintf("node%02d", i); b = sprintf("node%02d", j)
			same = r[i] == r[j]
			lat = (same ? 3.3 : 57) * exp(0.02 * (rand() - 0.5))
			bw = (same ? 1.19 : 0.239) * exp(0.04 * (rand() - 0.5))
			if (a == slow || b == slow) bw = 0.06
			printf "x,tcp:eth0,ethernet,%s,%s,eth0,eth0,10.0,8,300,%.3f,%.3f,%.3f,%.3f,,,,,,ok,\n", a, b, lat, lat, lat * 1.04, lat * 2 > p
			printf "x,tcp:eth0,ethernet,%s,%s,eth0,eth0,10.0,1048576,,,,,,3,8,%.4f,%.3f,%.1f,ok,\n", a, b, bw, bw * 8, bw * 80 > p
		}
		print "host,order,tier0,tier1,offset_us" > t
		for (i = 1; i <= n; i++) printf "node%02d,%d,leaf%02d,spine00,0.000\n", i, i - 1, r[i] - 1 > t
	}'
}
RACKS="1 2 3 1 2 3 1 2"
mkrun "$tmp/base" 1 "$RACKS" none
mkrun "$tmp/again" 2 "$RACKS" none
mkrun "$tmp/changed" 3 "1 2 3 3 2 3 1 2" node05   # node04 moved to rack 3, node05 slow

$FP compare "$tmp/base" "$tmp/again" > "$tmp/again.out" 2>&1
expect "compare of two healthy runs: exit 0" [ $? -eq 0 ]
expect "healthy: nothing worse, nothing moved" sh -c "! awk -F, 'NR > 1 && \$13 != \"same\"' '$tmp/again/compare.csv' | grep -q . && grep -q '^compare: PASS (0 worse, 0 gone, 0 moved' '$tmp/again.out'"
expect "written into NEW by default" test -s "$tmp/again/compare.csv" -a -s "$tmp/again/compare_topology.csv"
$FP compare "$tmp/base" "$tmp/again" > "$tmp/again2.out" 2>&1
expect "a second comparison into NEW is refused (exit 2), -o is offered" sh -c "[ $? -eq 2 ] && grep -q 'already holds a comparison: give -o DIR' '$tmp/again2.out'"

$FP compare "$tmp/base" "$tmp/changed" -o "$tmp/cmp" > "$tmp/cmp.out" 2>&1
expect "compare with a slow and a moved node: exit 1" [ $? -eq 1 ]
expect "compare.csv header" [ "$(head -1 "$tmp/cmp/compare.csv")" = "kind,path,src,dst,size_B,metric,tier,before,after,retest,change_pct,tolerance_pct,class,note" ]
expect "every worse row is node05's, or node04's where its tier changed" sh -c "[ -z \"\$(awk -F, '\$13 == \"worse\" && \$3 != \"node05\" && \$4 != \"node05\" && !((\$3 == \"node04\" || \$4 == \"node04\") && \$7 ~ />/)' '$tmp/cmp/compare.csv')\" ]"
expect "all 14 bandwidth rows of node05 worse" [ "$(awk -F, '$6 == "bw_GBps" && $13 == "worse" && ($3 == "node05" || $4 == "node05")' "$tmp/cmp/compare.csv" | wc -l)" -eq 14 ]
expect "node04 named moved at the leaf in compare_topology.csv, nothing else" [ "$(awk -F, 'NR > 1 && $7 != "same" { print $3, $7 }' "$tmp/cmp/compare_topology.csv")" = "node04 moved" ]
expect "summary: counts per class, worst regressions, moved node" sh -c "grep -q '^  pairs .* compared: .* same, .* worse' '$tmp/cmp.out' && grep -q '^  worst regressions:' '$tmp/cmp.out' && grep -q 'node04 moved (leaf): leaf00 -> leaf02 (BASE.s leaf02)' '$tmp/cmp.out'"
expect "at most 10 regressions listed" [ "$(sed -n '/worst regressions/,/^compare:/p' "$tmp/cmp.out" | grep -c '^    tcp:eth0')" -eq 10 ]
$FP compare "$tmp/base" "$tmp/changed" -o "$tmp/cmp-t" --tolerance 200 > /dev/null 2>&1
expect "--tolerance 200: the slow node's -75% still counts, noise does not" sh -c "[ \$(awk -F, '\$13 == \"worse\" && \$6 == \"bw_GBps\"' '$tmp/cmp-t/compare.csv' | wc -l) -ge 14 ] && awk -F, 'NR > 1 && \$12 != \"\" && \$12 != \"200.00\" && \$12 != \"66.67\" { exit 1 }' '$tmp/cmp-t/compare.csv'"

# the declared topology: the first run's groups (as a CSV), checked by topo offline
awk -F, 'NR > 1 { print $1 "," $3 "," $4 }' "$tmp/base/topology.csv" > "$tmp/declared.csv"
$FP topo "$tmp/changed" -o "$tmp/t1" --declared "$tmp/declared.csv" > "$tmp/t1.out" 2>&1
expect "topo --declared: exit 1, node04 named, nothing else" sh -c "[ $? -eq 1 ] && [ \"\$(awk -F, 'NR > 1 { print \$1, \$4 }' '$tmp/t1/declared_mismatch.csv')\" = 'node04 wrong_group' ]"
$FP topo "$tmp/changed" -o "$tmp/t2" --expect /dev/stdin > "$tmp/t2.out" 2>&1 << 'EOF'
ethernet.min_pct_line_rate.leaf = 60
ethernet.min_pct_line_rate.spine = 15
EOF
expect "topo --expect: exit 1; only node05's rows fail" sh -c "[ $? -eq 1 ] && [ -z \"\$(awk -F, 'NR > 1 && \$10 == \"0\" && \$4 != \"node05\" && \$5 != \"node05\"' '$tmp/t2/acceptance.csv')\" ] && [ \$(awk -F, '\$10 == \"0\"' '$tmp/t2/acceptance.csv' | wc -l) -eq 14 ]"
expect "acceptance.csv: expect and pass columns" [ "$(head -1 "$tmp/t2/acceptance.csv")" = "rule,from,path,src,dst,size_B,metric,value,expect,pass,warn,note" ]
expect "acceptance summary: each failed rule with its worst offenders" sh -c "grep -q 'FAIL ethernet.min_pct_line_rate.leaf >= 60 (/dev/stdin:1): 4 of 14 failed; worst:' '$tmp/t2.out'"
# a warn band in the file: the same leaf rule with the edge above every healthy pair warns and
# fails nothing more; a preset by name on the command line; an unknown one refused before anything
$FP topo "$tmp/changed" -o "$tmp/t2w" --expect /dev/stdin > "$tmp/t2w.out" 2>&1 << 'EOF'
ethernet.min_pct_line_rate.leaf = 60 warn 99.9
ethernet.min_pct_line_rate.spine = 15
EOF
expect "topo --expect with a warn band: exit 1 for node05's rows alone, the passing leaf rows in the band" \
	sh -c "[ $? -eq 1 ] && [ \$(awk -F, '\$10 == \"0\"' '$tmp/t2w/acceptance.csv' | wc -l) -eq 14 ] && [ \$(awk -F, '\$1 == \"ethernet.min_pct_line_rate.leaf\" && \$10 == \"1\" && \$11 == \"1\"' '$tmp/t2w/acceptance.csv' | wc -l) -gt 0 ]"
$FP topo "$tmp/changed" -o "$tmp/t2p" --expect preset:nosuch > "$tmp/t2p.out" 2>&1
expect "topo --expect preset:nosuch: exit 2, naming it" sh -c "[ $? -eq 2 ] && grep -q \"unknown preset 'nosuch'\" '$tmp/t2p.out' && [ ! -e '$tmp/t2p' ]"
$FP topo "$tmp/base" -o "$tmp/t3" --accept > "$tmp/t3.out" 2>&1
expect "--accept (TCP >= 80% by default): the oversubscribed cross-rack pairs fail" sh -c "[ $? -eq 1 ] && grep -q 'FAIL ethernet.min_pct_line_rate >= 80 (default): 42 of 56 failed' '$tmp/t3.out'"

# a rule of the file that nothing in the run judges (no inventory here: gpus_per_node) is
# UNJUDGED and fails the acceptance unless --allow-unjudged (it once counted as passed); a file
# with CR-only line ends keeps every line (it once kept line 1 alone, and passed)
printf 'gpus_per_node = 8\rethernet.min_pct_line_rate.leaf = 60\r' > "$tmp/cr.conf"
$FP topo "$tmp/base" -o "$tmp/t5" --expect "$tmp/cr.conf" > "$tmp/t5.out" 2>&1
expect "--expect: a rule with nothing to judge it is UNJUDGED and fails (exit 1)" sh -c "[ $? -eq 1 ] && grep -q 'UNJUDGED gpus_per_node == 8 (.*cr.conf:1)' '$tmp/t5.out' && grep -q '^verdict: FAIL (.*1 unjudged)' '$tmp/t5.out'"
expect "--expect: a file with CR-only line ends keeps its second line" grep -q 'ok   ethernet.min_pct_line_rate.leaf >= 60 (.*cr.conf:2)' "$tmp/t5.out"
$FP topo "$tmp/base" -o "$tmp/t6" --expect "$tmp/cr.conf" --allow-unjudged > "$tmp/t6.out" 2>&1
expect "--allow-unjudged: the same run passes, and says what was allowed" sh -c "[ $? -eq 0 ] && grep -q '^verdict: PASS (acceptance: 0 of 4 rules failed, 1 unjudged (allowed))' '$tmp/t6.out'"

# bad input: a clear message naming file, line and key; exit 2; run refuses before measuring
printf 'nodes = 8\nethernet.min_pct_line_rate = 180\n' > "$tmp/bad.conf"
# refused: exit 2 and a message holding the text given
refused() {
	local name=$1 want=$2
	shift 2
	"$@" > "$tmp/refused.out" 2>&1
	local rc=$?
	expect "$name: exit 2 ($rc), says '$want'" sh -c "[ $rc -eq 2 ] && grep -qF -- \"\$1\" '$tmp/refused.out'" _ "$want"
}
refused "topo --expect with a bad file names file, line and key" \
	"bad.conf:2: key 'ethernet.min_pct_line_rate': 180 is not a percentage" \
	$FP topo "$tmp/base" -o "$tmp/t4" --expect "$tmp/bad.conf"
refused "run --expect with a bad file, before measuring" "bad.conf:2: key 'ethernet.min_pct_line_rate'" \
	"${MPIRUN_LOCAL[@]}" -np 1 $FP run --expect "$tmp/bad.conf" --results-root "$tmp/rr"
expect "... and no results directory was made" [ ! -e "$tmp/rr" ]
refused "run --declared with a missing file" "none.csv: No such file" \
	"${MPIRUN_LOCAL[@]}" -np 1 $FP run --declared "$tmp/none.csv" --results-root "$tmp/rr"
printf 'SwitchName=a Nodes=n[1-3]\nSwitchName=b Nodes=n3\n' > "$tmp/dup.conf"
refused "run --declared with a node under two leaves" "dup.conf:2: host 'n3' is declared twice (first on line 1)" \
	"${MPIRUN_LOCAL[@]}" -np 1 $FP run --declared "$tmp/dup.conf" --results-root "$tmp/rr"
refused "run --baseline not a results directory" "is not a results directory" \
	"${MPIRUN_LOCAL[@]}" -np 1 $FP run --baseline "$tmp/nothing" --results-root "$tmp/rr"
refused "topo --expect twice (the first was dropped in silence)" "--expect given twice" \
	$FP topo "$tmp/base" -o "$tmp/t7" --expect "$tmp/cr.conf" --expect "$tmp/bad.conf"
refused "--expect /dev/zero: not a regular file or a pipe (it ate memory)" "not a regular file or a pipe" \
	$FP topo "$tmp/base" -o "$tmp/t8" --expect /dev/zero
# a baseline the judges would refuse is refused before anything is measured (it was read only
# at the end of the run: on a cluster the whole job was lost), and no results directory made
mkdir -p "$tmp/badbase" && cp "$tmp/base/p2p.csv" "$tmp/base/topology.csv" "$tmp/badbase/"
printf 'host,cpu\nnode01,x\nnode02,x\nnode01,y\n' > "$tmp/badbase/nodes.csv"
refused "run --baseline with a host twice in nodes.csv, before measuring" "nodes.csv:4: 'node01' is listed twice (first on line 2)" \
	"${MPIRUN_LOCAL[@]}" -np 2 $FP run --baseline "$tmp/badbase" --no-inventory --no-coll --results-root "$tmp/rr2"
expect "... and no results directory was made" [ ! -e "$tmp/rr2" ]
# a p2p.csv that is a link to nothing (or a loop) is an error, not absence: compare once
# passed without comparing a single pair
mkdir -p "$tmp/dangling" && cp "$tmp/base/topology.csv" "$tmp/dangling/" && ln -s "$tmp/nowhere.csv" "$tmp/dangling/p2p.csv"
refused "compare with BASE/p2p.csv a link to nothing" "p2p.csv: a symbolic link that leads to nothing readable" \
	$FP compare "$tmp/dangling" "$tmp/base" -o "$tmp/cmp-dangling"
mkdir -p "$tmp/loop" && cp "$tmp/base/topology.csv" "$tmp/loop/" && ln -s loop2 "$tmp/loop/p2p.csv" && ln -s p2p.csv "$tmp/loop/loop2"
refused "compare with BASE/p2p.csv a loop of links" "p2p.csv: a symbolic link that leads to nothing readable" \
	$FP compare "$tmp/loop" "$tmp/base" -o "$tmp/cmp-loop"
# a row given twice in BASE/p2p.csv is refused with file and line, as every reader here refuses
# a repeated key (it was matched once, and the copy left over counted as "gone": a FAIL)
mkdir -p "$tmp/duprow" && cp "$tmp/base/topology.csv" "$tmp/base/p2p.csv" "$tmp/duprow/" && sed -n 2p "$tmp/base/p2p.csv" >> "$tmp/duprow/p2p.csv"
refused "compare with a row twice in BASE/p2p.csv names file and both lines" \
	"duprow/p2p.csv:114: path tcp:eth0, node01/eth0 -> node02/eth0, 8 B is listed twice (first on line 2)" \
	$FP compare "$tmp/duprow" "$tmp/base" -o "$tmp/cmp-duprow"
# …and one in p2p.csv and again in p2p_bw.csv (a planned run's bandwidth) names the second
# file, and the first (it said p2p.csv for both)
mkdir -p "$tmp/dupbw" && cp "$tmp/base/topology.csv" "$tmp/base/p2p.csv" "$tmp/dupbw/" && sed -n '1p;2p' "$tmp/base/p2p.csv" > "$tmp/dupbw/p2p_bw.csv"
refused "compare with a row in BASE/p2p.csv and again in p2p_bw.csv names both files" \
	"dupbw/p2p_bw.csv:2: path tcp:eth0, node01/eth0 -> node02/eth0, 8 B is listed twice (first on line 2 of p2p.csv)" \
	$FP compare "$tmp/dupbw" "$tmp/base" -o "$tmp/cmp-dupbw"
# two ranks of one host share the host pair: not a repeated row; matched rank by rank
{ head -1 "$tmp/base/p2p.csv"; for r in 0 1; do for s in 0 1; do [ $r = $s ] || echo "x,mpi,,n1,n1,rank$r,rank$s,,8,300,1.$r,1.$r,1.$r,2,,,,,,ok,"; done; done; } > "$tmp/ranks.csv"
mkdir -p "$tmp/ranks1" "$tmp/ranks2" && cp "$tmp/ranks.csv" "$tmp/ranks1/p2p.csv" && cp "$tmp/ranks.csv" "$tmp/ranks2/p2p.csv"
$FP compare "$tmp/ranks1" "$tmp/ranks2" -o "$tmp/cmp-ranks" > "$tmp/ranks.out" 2>&1
expect "compare of one-node runs (two ranks of a host): exit 0, 4 same, nothing gone" sh -c "[ $? -eq 0 ] && grep -q '^  pairs      4 compared: 4 same' '$tmp/ranks.out'"
# BASE without p2p.csv: the summary says the pairs were not compared (it printed no "pairs"
# line and passed as if they had been)
mkdir -p "$tmp/nop2p" && cp "$tmp/base/topology.csv" "$tmp/nop2p/"
$FP compare "$tmp/nop2p" "$tmp/base" -o "$tmp/cmp-nop2p" > "$tmp/nop2p.out" 2>&1
expect "compare with no p2p.csv in BASE says the pairs were not compared" sh -c "grep -q '^  pairs:     not compared (no p2p.csv in BASE)' '$tmp/nop2p.out' && grep -q '^compare: PASS (0 worse, 0 gone, 0 moved; pairs not compared;' '$tmp/nop2p.out'"
mkdir -p "$tmp/dirp2p/p2p.csv" && cp "$tmp/base/topology.csv" "$tmp/dirp2p/"
refused "compare with BASE/p2p.csv a directory (there, unreadable: an error, not absence)" "p2p.csv: not a regular file" \
	$FP compare "$tmp/dirp2p" "$tmp/base" -o "$tmp/cmp-dirp2p"
# a collective among the worst regressions is printed with its datatype and reduction (they
# were read from a buffer on the stack, gone by then: garbage or nothing)
mkdir -p "$tmp/coll1" "$tmp/coll2"
{ echo "run_id,backend,op,size_B,count,dtype,redop,root,nranks,nnodes,in_place,time_us,time_us_max,algbw_GBps,busbw_GBps,wrong,status"
  for k in 1 2 3 4 5 6 7 8; do echo "x,mpi,allreduce,$((k * 1024)),1,float,sum,0,4,1,0,1,1,5.0$k,5.0$k,0,ok"; done; } > "$tmp/coll1/collectives.csv"
sed 's/,5\.04,5\.04,/,1.04,1.04,/' "$tmp/coll1/collectives.csv" > "$tmp/coll2/collectives.csv"
$FP compare "$tmp/coll1" "$tmp/coll2" -o "$tmp/cmp-coll" > "$tmp/coll.out" 2>&1
expect "compare: a worse collective is listed with its datatype and reduction" sh -c "[ $? -eq 1 ] && grep -q '^    mpi allreduce float sum 4096 B busbw_GBps: 5.04 -> 1.04' '$tmp/coll.out'"
# a collective written twice with its numbers spelt differently (in_place 01 and 1) is one key:
# refused, as a row given twice is (both were kept, and a run compared with itself was "worse")
mkdir -p "$tmp/colldup" && { head -2 "$tmp/coll1/collectives.csv"; head -2 "$tmp/coll1/collectives.csv" | tail -1 | sed 's/,0,4,1,0,/,0,4,1,00,/'; } > "$tmp/colldup/collectives.csv"
refused "compare with a collective twice, once as in_place 00" "colldup/collectives.csv:3: 'mpi allreduce float sum 1024 0 0' is listed twice (first on line 2)" \
	$FP compare "$tmp/colldup" "$tmp/coll1" -o "$tmp/cmp-colldup"
refused "run --tolerance without --baseline" "--tolerance needs --baseline" \
	"${MPIRUN_LOCAL[@]}" -np 1 $FP run --tolerance 5 --results-root "$tmp/rr"
$FP compare "$tmp/base" > /dev/null 2>&1
expect "compare with one directory: exit 2" [ $? -eq 2 ]
$FP compare "$tmp/base" "$tmp/nothing" > /dev/null 2>&1
expect "compare with a missing directory: exit 2" [ $? -eq 2 ]
printf 'run_id,path\nx,mpi,extra\n' > "$tmp/again/p2p.csv"
refused "compare with a malformed p2p.csv names file and line" "again/p2p.csv:1: no column 'kind'" \
	$FP compare "$tmp/base" "$tmp/again" -o "$tmp/c5"
expect "--help of compare, run and topo name the options" sh -c "$FP compare --help | grep -q -- --tolerance && $FP run --help | grep -q -- --baseline && $FP topo --help | grep -q -- --declared"
exit $((FAILED > 0))
