#!/usr/bin/env bash
# fabprobe report: the page of a real run (4 local ranks; the emulated cluster's is checked in
# test_cluster_fabprobe.sh), of a synthetic 512-node run, and of a hostile, half-broken directory, loaded in headless
# Chromium: no console error, nothing fetched, one heat map per path and metric with N x N
# cells (or an N x N image), the suspects table = suspects.csv, host names escaped; a
# screenshot that is not blank and whose leaf blocks are lighter than the cells around them
# as their latencies are lower. Then: 1,024 nodes in under 2 s and 10 MB; mutated files never
# crash it. The browser checks are skipped, with the reason, when chromium is missing.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=$PWD/fabprobe
tmp=$(mktemp -d /tmp/fp-report-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

# ---- a real run on this machine: 4 ranks, every rank an endpoint; the report comes with it
"${MPIRUN_LOCAL[@]}" -np 4 $FP run -c 1 -n 200 --lat-warmup 20 -l 8,1K -s 64K,1M -W 8 --bw-iters 2 \
	--bw-warmup 1 --coll-max 64K --no-progress -o "$tmp/local" > "$tmp/local.out" 2>&1
rc=$?
expect "local run: exit 0 or 1 (one node's map may name suspects)" [ $rc -le 1 ]
expect "local run: says where its report is" grep -qx "report: $tmp/local/report.html" "$tmp/local.out"
expect "local run: report.html is there, one file" [ -s "$tmp/local/report.html" ]
report_browser local "$tmp/local" 4 mpi

# ---- a synthetic 512-node run: matrices in name order, the tree from `fabprobe topo`
synth() { # N DIR: a results directory of N synthetic nodes
	mkdir -p "$2.gen" && python3 tests/integration/synth_results.py "$1" "$2.gen" &&
	$FP topo "$2.gen/lat.csv" -o "$2" > "$2.topo.out" 2>&1 &&
	cp "$2.gen/lat.csv" "$2/latency_mpi.csv" && cp "$2.gen/bw.csv" "$2/bandwidth_mpi.csv" && cp "$2.gen/meta.json" "$2/"
}
if synth 512 "$tmp/s512"; then
	$FP report "$tmp/s512" > "$tmp/s512.out" 2>&1
	expect "512 nodes: report exit 0" [ $? -eq 0 ]
	expect "512 nodes: missing files named on stderr" grep -q 'p2p.csv: not in this directory' "$tmp/s512.out"
	expect "512 nodes: suspects.csv names the slow node" grep -q '^slow_node,' "$tmp/s512/suspects.csv"
	PIXELS=1 report_browser s512 "$tmp/s512" 512 mpi
else
	notok "synthetic 512-node results" "$(tail -2 "$tmp/s512.topo.out" 2>/dev/null)"
fi

# ---- 1,024 nodes: time and size (docs/figures.md)
if synth 1024 "$tmp/s1024"; then
	t0=$(date +%s%N)
	$FP report -q "$tmp/s1024" > /dev/null 2>&1
	rc=$? t=$((($(date +%s%N) - t0) / 1000000)) size=$(stat -c %s "$tmp/s1024/report.html" 2>/dev/null || echo 0)
	echo "# 1024 nodes: report in $t ms, $size bytes"
	expect "1024 nodes: report exit 0" [ $rc -eq 0 ]
	expect "1024 nodes: written in under 2 s ($t ms)" [ "$t" -lt 2000 ]
	expect "1024 nodes: under 10 MB ($size B)" [ "$size" -lt 10000000 ]
	expect "1024 nodes: both maps are 1024 x 1024 images" [ "$(grep -c 'data-n="1024" data-mode="image"' "$tmp/s1024/report.html")" -eq 2 ]
else
	notok "synthetic 1024-node results" "$(tail -2 "$tmp/s1024.topo.out" 2>/dev/null)"
fi

# ---- a run with two networks: a map per path (topology_<path>.csv, suspects_<path>.csv), as
# run writes them. mpi's leaves are the odd and the even hosts, tcp:eth0's groups of 4 in name
# order, and only tcp:eth0's map has a suspect (h06, 6 us slow): each path's heat maps show its own
# leaves and marks, the banner names the suspect on its path, the tiers and suspects per path
python3 - "$tmp/two" <<'PY'
import math, os, random, sys
d = sys.argv[1]
os.makedirs(d)
rnd = random.Random(3)
hosts = ["h%02d" % (i + 1) for i in range(12)]
def write(name, same, slow=None):
    with open(os.path.join(d, name), "w") as f:
        f.write("host," + ",".join(hosts) + "\n")
        for i in range(12):
            row = []
            for j in range(12):
                v = (20.0 if same(i, j) else 45.0) * math.exp(rnd.gauss(0, 0.01))
                row.append("" if i == j else "%.3f" % (v + (6.0 if slow in (i, j) else 0)))
            f.write(hosts[i] + "," + ",".join(row) + "\n")
write("mpi.csv", lambda i, j: i % 2 == j % 2)
write("tcp.csv", lambda i, j: i // 4 == j // 4, slow=5)
PY
$FP topo "$tmp/two/mpi.csv" -o "$tmp/two/m" > "$tmp/two/m.out" 2>&1 &&
	$FP topo "$tmp/two/tcp.csv" -o "$tmp/two/t" > "$tmp/two/t.out" 2>&1
expect "two networks: topo draws both maps (2 leaves on mpi, 3 on tcp:eth0 with its slow node)" sh -c \
	"grep -q '^slow_node,h06,' '$tmp/two/t/suspects.csv' && [ \$(grep -c , '$tmp/two/m/suspects.csv') -eq 1 ]"
mkdir -p "$tmp/two/run"
for p in mpi:m tcp_eth0:t; do
	for f in topology tiers suspects; do cp "$tmp/two/${p#*:}/$f.csv" "$tmp/two/run/${f}_${p%%:*}.csv"; done
done
for f in topology tiers suspects; do cp "$tmp/two/m/$f.csv" "$tmp/two/run/$f.csv"; done # the compute path's copies
cp "$tmp/two/mpi.csv" "$tmp/two/run/latency_mpi.csv"
cp "$tmp/two/tcp.csv" "$tmp/two/run/latency_tcp_eth0.csv"
python3 - "$tmp/two/run" <<'PY'
import json, sys
d = sys.argv[1]
hosts = ["h%02d" % (i + 1) for i in range(12)]
lat = {}
for path, f in (("mpi", "latency_mpi.csv"), ("tcp:eth0", "latency_tcp_eth0.csv")):
    rows = [l.rstrip("\n").split(",") for l in open(d + "/" + f)]
    lat[path] = {(r[0], rows[0][j]): r[j] for r in rows[1:] for j in range(1, len(r)) if r[j]}
cols = ("run_id,path,kind,src_host,dst_host,src_dev,dst_dev,line_rate_Gbps,size_B,lat_iters,lat_us_min,lat_us_avg,"
        "lat_us_p50,lat_us_p99,bw_windows,window,bw_GBps,bw_Gbps,pct_line_rate,status,note")
with open(d + "/p2p.csv", "w") as f:
    f.write(cols + "\n")
    for path in lat:
        for (a, b), v in sorted(lat[path].items()):
            f.write("two,%s,ethernet,%s,%s,,,,8,1000,%s,%s,%s,%s,,,,,,ok,\n" % (path, a, b, v, v, v, v))
            bw = 1.2 if float(v) < 30 else 0.12
            f.write("two,%s,ethernet,%s,%s,,,,1048576,,,,,,20,8,%g,%g,,ok,\n" % (path, a, b, bw, bw * 8))
json.dump({"tool": "fabprobe", "run_id": "two", "command": "run", "exit_code": 1, "status": "failed",
           "nodes": 12, "hosts": hosts}, open(d + "/meta.json", "w"))
PY
$FP report "$tmp/two/run" > "$tmp/two/report.out" 2>&1
expect "two networks: report exit 0" [ $? -eq 0 ]
page=$tmp/two/run/report.html
grep -o '<div class="banner.*</ul></div>' "$page" > "$tmp/two/banner" 2> /dev/null
expect "two networks: the banner names tcp:eth0's suspect, on its path, and mpi's map as clean" sh -c \
	"grep -q '<strong>latency map over tcp:eth0: 1 suspect (suspects_tcp_eth0.csv): slow_node h06</strong>' '$tmp/two/banner' &&
	 grep -q '<li>latency map over mpi: no suspects</li>' '$tmp/two/banner'"
# a summary.json of another schema is said, and the banner is drawn from the files as without one
printf '{"schema": "fabprobe.summary/1", "run": {}}\n' > "$tmp/two/run/summary.json"
$FP report "$tmp/two/run" > "$tmp/two/report1.out" 2>&1
expect "two networks: a summary.json of another schema is named, and the banner judges from the files" sh -c \
	"grep -q 'summary.json: schema fabprobe.summary/1, not fabprobe.summary/2: written by another fabprobe: the verdict is judged from the files' '$tmp/two/report1.out' &&
	 grep -q '<li>latency map over mpi: no suspects</li>' '$page'"
rm -f "$tmp/two/run/summary.json"
$FP report "$tmp/two/run" > "$tmp/two/report.out" 2>&1
# each path's latency heat map: its own leaf blocks, in its own tree order; marks only on tcp:eth0
fig() { awk -v p="$1" '/<h3>Path /{on = index($0, "<h3>Path " p "</h3>") > 0} on' "$page" | awk '/<figure>/{n++} n == 1'; }
blocks() { fig "$1" | grep -o '<rect class="b0"' | wc -l; }
expect "two networks: mpi's latency map outlines its 2 leaves, tcp:eth0's its 3" [ "$(blocks mpi) $(blocks tcp:eth0)" = "2 3" ]
expect "two networks: tcp:eth0's map marks its suspect, mpi's none" \
	[ "$(fig tcp:eth0 | grep -c 'suspect mark') $(fig mpi | grep -c 'suspect mark')" = "1 0" ]
order=$(fig tcp:eth0 | grep -o '<text[^>]*>h[0-9]*</text>' | head -n 12 | sed 's/<[^>]*>//g' | paste -sd' ' -)
expect "two networks: tcp:eth0's hosts in its own tree order, groups of 4 ($order)" \
	[ "$order" = "h01 h02 h03 h04 h05 h06 h07 h08 h09 h10 h11 h12" ]
order=$(fig mpi | grep -o '<text[^>]*>h[0-9]*</text>' | head -n 12 | sed 's/<[^>]*>//g' | paste -sd' ' -)
expect "two networks: mpi's hosts in its own tree order, odd then even ($order)" \
	[ "$order" = "h01 h03 h05 h07 h09 h11 h02 h04 h06 h08 h10 h12" ]
expect "two networks: tiers and suspects per path" sh -c \
	"[ \$(grep -c '<h3>Path mpi</h3>' '$page') -eq 3 ] && [ \$(grep -c '<h3>Path tcp:eth0</h3>' '$page') -eq 3 ] &&
	 grep -q '1 suspect from the latency map (suspects_tcp_eth0.csv)' '$page'"
report_browser two "$tmp/two/run" 12 mpi,tcp:eth0

# ---- hostile names, broken files: the page shows what it can, names what it cannot, escapes all
mkdir -p "$tmp/bad"
python3 - "$tmp/bad" <<'PY'
import csv, json, os, random, sys
d = sys.argv[1]
names = ['<img src=x onerror=alert(1)>', 'a"b\'c&d', '</script><script>alert(2)</script>', 'n,ode\u2028x',
         'gpu01' + 'z' * 300]
def write(name, rows):
    with open(os.path.join(d, name), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
write("latency_mpi.csv", [["host"] + names] + [[a] + ["" if a == b else "%.3f" % (2 + i + j) for j, b in enumerate(names)]
                                           for i, a in enumerate(names)])
write("bandwidth_mpi.csv", [["host"] + names[:2], [names[0], "", "x1"], [names[1], "3", ""]])
write("topology.csv", [["host", "order", "tier0", "offset_us"]] +
      [[n, i, "leaf<b>%d</b>" % (i // 3), "0"] for i, n in enumerate(names)])
write("suspects.csv", [["kind", "hosts", "metric", "value", "expected", "reason"],
                       ["slow_link", names[0] + " " + names[1], "latency_us", "9", "2", "<iframe src=javascript:alert(3)>"],
                       ["low_bw_node", "two\nlines", "bw_ratio", "0.5"]])
write("collectives.csv", [["backend", "op", "size_B", "busbw_GBps", "wrong", "status"],
                          ["<svg onload=alert(4)>", "allreduce", "8", "0.1", "3", "ok"]])
write("compare.csv", [["kind", "path", "src", "dst", "size_B", "metric", "before", "after", "change_pct", "class"],
                      ["p2p", "mpi", names[0], names[1], "8", "lat_us_p50", "2", "4", "100", "regression"],
                      ["p2p", "mpi", names[1], names[0], "8", "lat_us_p50", "3", "2.5", "-16.7", "improvement"],
                      ["topology", "", names[2], "", "", "leaf", "leaf00", "leaf01", "", "moved"]])
json.dump({"run_id": "<script>alert(5)</script>", "argv": ["fabprobe", "run", "--name", "x'; rm -rf /"],
           "hosts": names, "exit_code": 1, "status": "failed", "nodes": 5}, open(os.path.join(d, "meta.json"), "w"))
open(os.path.join(d, "coll_meta.json"), "w").write('{"backends": [{"name": "nccl", "version": "2.')
random.seed(3)
open(os.path.join(d, "nodes.csv"), "wb").write(bytes(random.randrange(256) for _ in range(4000)))
PY
$FP report "$tmp/bad" > "$tmp/bad.out" 2>&1
expect "hostile directory: exit 0 (it renders what it can)" [ $? -eq 0 ]
expect "hostile directory: the malformed matrix named with its line" grep -q 'bandwidth_mpi.csv:2: column 3' "$tmp/bad.out"
expect "hostile directory: the truncated coll_meta.json named" grep -q 'coll_meta.json: malformed' "$tmp/bad.out"
expect "hostile directory: missing p2p.csv named" grep -q 'p2p.csv: not in this directory' "$tmp/bad.out"
for raw in '<img src=x' '<script>alert' '<iframe' '<svg onload' '<b>0'; do
	expect "hostile directory: no raw '$raw' from the files in the page" [ "$(grep -c -F "$raw" "$tmp/bad/report.html")" -eq 0 ]
done
expect "hostile directory: compare.csv gives a comparison section" grep -q 'id="compare"' "$tmp/bad/report.html"
expect "hostile directory: and its regressions table" grep -q 'class="regressions"' "$tmp/bad/report.html"
report_browser bad "$tmp/bad" 5 mpi latency

# ---- mutated files never crash it (exit 0, or 2 when nothing is left to read)
crashes=0
for i in $(seq 1 40); do
	rm -rf "$tmp/fz" && cp -r "$tmp/local" "$tmp/fz" && rm -f "$tmp/fz/report.html"
	python3 - "$tmp/fz" "$i" <<'PY'
import os, random, sys
d, seed = sys.argv[1], int(sys.argv[2])
r = random.Random(seed)
files = sorted(f for f in os.listdir(d) if f.endswith((".csv", ".json")))
for f in r.sample(files, 3):
    b = bytearray(open(os.path.join(d, f), "rb").read())
    for _ in range(r.randrange(1, 20)):
        op, at = r.randrange(4), r.randrange(len(b) + 1)
        if op == 0: b = b[:at]
        elif op == 1: b[at:at] = bytes(r.choice(b'",\n\r\x00{}[]:<&') for _ in range(r.randrange(1, 8)))
        elif op == 2 and b: b[at % len(b)] = r.randrange(256)
        else: b[at:at] = b[at:at + r.randrange(500)]
    open(os.path.join(d, f), "wb").write(bytes(b))
PY
	$FP report -q "$tmp/fz" > /dev/null 2> "$tmp/fz.err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then crashes=$((crashes + 1)); echo "# seed $i: exit $rc: $(tail -1 "$tmp/fz.err")"; fi
done
expect "40 runs on mutated files: none crashed (exit 0 or 2 each)" [ $crashes -eq 0 ]
# the same on the two networks' per-path maps: only their files and p2p.csv (whose path names
# name those files) mutated
crashes=0
for i in $(seq 1 20); do
	rm -rf "$tmp/fz" && cp -r "$tmp/two/run" "$tmp/fz" && rm -f "$tmp/fz/report.html"
	python3 - "$tmp/fz" "$i" <<'PY'
import os, random, sys
d, seed = sys.argv[1], int(sys.argv[2])
r = random.Random(seed)
files = sorted(f for f in os.listdir(d) if f == "p2p.csv" or f.startswith(("topology_", "suspects_", "tiers_")))
for f in r.sample(files, 2):
    b = bytearray(open(os.path.join(d, f), "rb").read())
    for _ in range(r.randrange(1, 20)):
        op, at = r.randrange(4), r.randrange(len(b) + 1)
        if op == 0: b = b[:at]
        elif op == 1: b[at:at] = bytes(r.choice(b'",\n\r\x00:/._<&') for _ in range(r.randrange(1, 8)))
        elif op == 2 and b: b[at % len(b)] = r.randrange(256)
        else: b[at:at] = b[at:at + r.randrange(500)]
    open(os.path.join(d, f), "wb").write(bytes(b))
PY
	$FP report -q "$tmp/fz" > /dev/null 2> "$tmp/fz.err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then crashes=$((crashes + 1)); echo "# two, seed $i: exit $rc: $(tail -1 "$tmp/fz.err")"; fi
done
expect "20 runs on mutated per-path maps: none crashed (exit 0 or 2 each)" [ $crashes -eq 0 ]

# ---- usage
mkdir -p "$tmp/empty"
$FP report "$tmp/empty" > "$tmp/e.out" 2>&1
expect "an empty directory: exit 2" [ $? -eq 2 ]
expect "an empty directory: said so" grep -q 'holds none of fabprobe' "$tmp/e.out"
$FP report "$tmp/nowhere" > "$tmp/n.out" 2>&1
expect "no such directory: exit 2" [ $? -eq 2 ]
expect "no such directory: said so" grep -q 'nowhere: not a directory' "$tmp/n.out"
$FP report > /dev/null 2>&1
expect "no argument: exit 2" [ $? -eq 2 ]
exit $((FAILED > 0))
