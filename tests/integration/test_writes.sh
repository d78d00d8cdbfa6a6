#!/usr/bin/env bash
# How files are written into a directory that came from someone else: whatever was planted at
# a target or at the old temporary's name (a symbolic link to a victim, a FIFO, a directory) is
# never followed or opened. `report`, `topo` and `compare` leave the victims as they were, write
# their files as regular files, never hang; and one helper is the only writer (a grep). No MPI.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=${FABPROBE:-./fabprobe}
FIX=tests/fixtures/topo
tmp=$(mktemp -d /tmp/fp-writes-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run CMD... : its exit code in $rc, its output (stdout and stderr) in $tmp/out; 30 s at most
run() { timeout 30 "$@" > "$tmp/out" 2>&1; rc=$?; }
# victim NAME: a file outside every results directory, holding "victim NAME"
victim() { echo "victim $1" > "$tmp/$1"; }
intact() { [ "$(cat "$tmp/$1")" = "victim $1" ]; }
regular() { [ -f "$1" ] && [ ! -L "$1" ] && [ -s "$1" ]; }

# ---- one writer: no fopen(..., "w"/"a") of an output in bench/ or topo/ but results.c's own
writers=$(grep -rnE 'fopen\([^;]*"(w|a|r\+)' bench topo --include='*.c' --include='*.h' | grep -v '^bench/core/results.c:')
expect "one writer: no fopen for writing in bench/ or topo/ outside bench/core/results.c${writers:+ ($writers)}" [ -z "$writers" ]
creators=$(grep -rn 'O_CREAT' bench topo --include='*.c' --include='*.h' | grep -vE '^bench/core/(results|interrupt)\.c:')
expect "one writer: no open(O_CREAT) outside bench/core/results.c (and the signal handler's)${creators:+ ($creators)}" [ -z "$creators" ]

# ---- report: a link at report.html.tmp, then at report.html itself
$FP topo $FIX/racks332.csv -o "$tmp/run" > "$tmp/topo.out" 2>&1
expect "a results directory from the fixture (topo -o)" regular "$tmp/run/topology.csv"
victim rep-tmp; ln -s "$tmp/rep-tmp" "$tmp/run/report.html.tmp"
run $FP report -q "$tmp/run"
expect "report, a link at report.html.tmp: exit 0" [ $rc -eq 0 ]
expect "report, a link at report.html.tmp: the victim unchanged" intact rep-tmp
expect "report, a link at report.html.tmp: report.html a regular file" regular "$tmp/run/report.html"
expect "report, a link at report.html.tmp: the link left alone" [ -L "$tmp/run/report.html.tmp" ]
victim rep; rm "$tmp/run/report.html"; ln -s "$tmp/rep" "$tmp/run/report.html"
run $FP report -q "$tmp/run"
expect "report, a link at report.html: exit 0, the victim unchanged" sh -c "[ $rc -eq 0 ] && [ \"\$(cat '$tmp/rep')\" = 'victim rep' ]"
expect "report, a link at report.html: replaced by a regular file" regular "$tmp/run/report.html"
rm "$tmp/run/report.html.tmp"; mkfifo "$tmp/run/report.html.tmp"
run $FP report -q "$tmp/run"
expect "report, a FIFO at report.html.tmp: no hang, exit 0, written" sh -c "[ $rc -eq 0 ] && [ -f '$tmp/run/report.html' ] && [ -p '$tmp/run/report.html.tmp' ]"
rm "$tmp/run/report.html.tmp"; mkdir "$tmp/run/report.html.tmp"
run $FP report -q "$tmp/run"
expect "report, a directory at report.html.tmp: exit 0, written" sh -c "[ $rc -eq 0 ] && [ -f '$tmp/run/report.html' ] && [ -d '$tmp/run/report.html.tmp' ]"
expect "report: no temporary left behind" [ -z "$(ls -A "$tmp/run" | grep '^\.')" ]
mkdir "$tmp/elsewhere"; ln -s "$tmp/run" "$tmp/elsewhere/run-link"; rm "$tmp/run/report.html"
run $FP report -q "$tmp/elsewhere/run-link"
expect "report on a directory that is a symbolic link: exit 3, said, nothing written" sh -c "[ $rc -eq 3 ] && grep -q 'run-link: it is a symbolic link' '$tmp/out' && [ ! -e '$tmp/run/report.html' ]"

# ---- topo DIR: its files written into DIR, planted links, a FIFO and a directory there
mkdir "$tmp/in"; cp $FIX/racks332.csv "$tmp/in/p2p.csv"
victim conf-tmp; ln -s "$tmp/conf-tmp" "$tmp/in/topology.conf.tmp"
victim csv-tmp; ln -s "$tmp/csv-tmp" "$tmp/in/topology.csv.tmp"
victim order; ln -s "$tmp/order" "$tmp/in/node-order.txt"
mkfifo "$tmp/in/tiers.csv.tmp"; mkdir "$tmp/in/suspects.csv.tmp"
run $FP topo "$tmp/in"
expect "topo DIR, planted entries: exit 0, no hang" [ $rc -eq 0 ]
expect "topo DIR: the victim of topology.conf.tmp unchanged" intact conf-tmp
expect "topo DIR: the victim of topology.csv.tmp unchanged" intact csv-tmp
expect "topo DIR: the victim of node-order.txt unchanged" intact order
for f in topology.conf topology.csv node-order.txt tiers.csv suspects.csv; do
	expect "topo DIR: $f a regular file" regular "$tmp/in/$f"
done

# ---- compare A B into NEW, and -o OUT
$FP topo $FIX/racks332.csv -o "$tmp/new" > "$tmp/topo2.out" 2>&1
victim cmp-tmp; ln -s "$tmp/cmp-tmp" "$tmp/new/compare.csv.tmp"
victim cmpmap; ln -s "$tmp/cmpmap" "$tmp/new/compare_topology.csv"
run $FP compare "$tmp/run" "$tmp/new"
expect "compare into NEW, planted links: exit 0" [ $rc -eq 0 ]
expect "compare into NEW: the victim of compare.csv.tmp unchanged" intact cmp-tmp
expect "compare into NEW: the victim of compare_topology.csv unchanged" intact cmpmap
expect "compare into NEW: compare.csv and compare_topology.csv regular files" sh -c "[ -f '$tmp/new/compare.csv' ] && [ ! -L '$tmp/new/compare_topology.csv' ] && [ -f '$tmp/new/compare_topology.csv' ]"
mkdir "$tmp/out-dir" "$tmp/victim-dir"; ln -s "$tmp/victim-dir" "$tmp/out-link"
run $FP compare "$tmp/run" "$tmp/new" -o "$tmp/out-link"
expect "compare -o a link to a directory: refused (exit 2), said" sh -c "[ $rc -eq 2 ] && grep -q 'out-link: it is a symbolic link' '$tmp/out'"
expect "compare -o a link to a directory: nothing written where it points" [ -z "$(ls -A "$tmp/victim-dir")" ]
run $FP compare "$tmp/run" "$tmp/new" -o "$tmp/out-dir"
expect "compare -o OUT (empty): exit 0, compare.csv a regular file" sh -c "[ $rc -eq 0 ] && [ -f '$tmp/out-dir/compare.csv' ]"

[ "$FAILED" -eq 0 ]
