#!/usr/bin/env bash
# seeds.sh OUT — the fuzz targets' seed corpus, made from tests/fixtures (one source of truth)
# and tests/fuzz/seeds/<target>/ (small hand-made inputs):
#   OUT/fuzz_square     every fixture matrix (tests/fixtures/topo/*.csv)
#   OUT/fuzz_p2p        each fixture matrix rewritten as the p2p.csv rows that would give it
#   OUT/fuzz_judge      the hand-made inputs only (results directory, expectations, declared)
#   OUT/fuzz_compare    the hand-made inputs only (one or two results directories' files)
#   OUT/fuzz_expect     the hand-made inputs only (--expect specs: BOM, CR, CRLF, a key twice)
#   OUT/fuzz_declared   the hand-made inputs only (topology.conf, CSV with BOM and CRLF, uneven)
#   OUT/fuzz_escape     the hand-made inputs only (U+2028, terminal escapes, quotes, bad UTF-8)
#   OUT/fuzz_actions    the hand-made inputs only (host names and reasons: lists, quotes, LF)
#   OUT/fuzz_summary    the hand-made inputs only (summary.json of real and synthetic runs)
#   OUT/fuzz_nccl_log   every captured NCCL log (tests/fixtures/nccl/*.log)
#   OUT/fuzz_inventory  each captured node (tests/fixtures/<node>/sysfs, topo.xml) packed as
#                       fuzz_inventory.c's archive, with and without its hwloc XML, and the
#                       hand-made inputs (link counters at their edges)
set -eu
cd "$(dirname "$0")/../.."
out=$1
rm -rf "$out"
targets="fuzz_square fuzz_p2p fuzz_inventory fuzz_judge fuzz_escape fuzz_compare fuzz_expect fuzz_declared fuzz_actions fuzz_summary fuzz_nccl_log"
for t in $targets; do mkdir -p "$out/$t"; done
for t in $targets; do
	for f in tests/fuzz/seeds/$t/*; do [ -f "$f" ] && cp "$f" "$out/$t/"; done
done
cp tests/fixtures/nccl/*.log "$out/fuzz_nccl_log/"
for m in tests/fixtures/topo/*.csv; do
	name=$(basename "$m" .csv)
	cp "$m" "$out/fuzz_square/$name.csv"
	awk -F, 'NR == 1 { for (i = 2; i <= NF; i++) h[i] = $i
		print "run_id,path,kind,src_host,dst_host,src_dev,dst_dev,line_rate_Gbps,size_B,lat_iters,lat_us_min,lat_us_avg,lat_us_p50,lat_us_p99,bw_windows,window,bw_GBps,bw_Gbps,pct_line_rate,status,note"; next }
		{ for (i = 2; i <= NF; i++) if ($i != "")
			printf "r,mpi,,%s,%s,0,0,,8,100,%s,%s,%s,%s,,,,,,ok,\n", $1, h[i], $i, $i, $i, $i }' \
		"$m" > "$out/fuzz_p2p/$name.csv"
done
pack() { # DIR [XML]: the archive of a captured tree
	(cd "$1" && find . -mindepth 1 \( -type f -o -type l \) | LC_ALL=C sort | while read -r p; do
		p=${p#./}
		if [ -L "$p" ]; then echo "@L $p $(readlink "$p")"; else echo "@F $p"; cat "$p"; fi
	done)
	if [ -n "${2:-}" ]; then echo "@X"; cat "$2"; fi
}
for d in tests/fixtures/*/sysfs; do
	node=$(basename "$(dirname "$d")")
	pack "$d" > "$out/fuzz_inventory/$node"
	xml=$(dirname "$d")/topo.xml
	[ -f "$xml" ] && pack "$d" "$xml" > "$out/fuzz_inventory/$node+xml"
done
exit 0
