#!/usr/bin/env bash
# Hostile input, faults and full disks (issue 13), as a user or an attacker would try them
# from the command line: nothing crashes, nothing is injected into a generated file, and no
# run's files lie about how it ended. Each check names the finding it covers. Local mpirun
# only (no emulated cluster).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=${FABPROBE:-./fabprobe}
FIX=tests/fixtures/topo
tmp=$(mktemp -d /tmp/fp-hostile-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run CMD... : its exit code in $rc, its output (stdout and stderr) in $tmp/out
run() { "$@" > "$tmp/out" 2>&1; rc=$?; }
says() { grep -q -- "$1" "$tmp/out"; }

P2P_HEAD='run_id,path,kind,src_host,dst_host,src_dev,dst_dev,line_rate_Gbps,size_B,lat_iters,lat_us_min,lat_us_avg,lat_us_p50,lat_us_p99,bw_windows,window,bw_GBps,bw_Gbps,pct_line_rate,status,note'
p2p_row() { echo "r,mpi,,$1,$2,$3,$4,,8,10,$5,,,,,,,,,ok,"; }

# ---- 1: endpoint keys sorting between TAB and '/' (two single-node runs concatenated)
{
	echo "$P2P_HEAD"
	p2p_row n n 0 1 1.0; p2p_row n n 1 0 1.1; p2p_row n n-a 0 0 9.0
	p2p_row n-a n 0 0 9.1; p2p_row n n-a 1 0 9.2; p2p_row n-a n 0 1 9.3
} > "$tmp/concat.csv"
run $FP topo "$tmp/concat.csv" -o "$tmp/concat"
expect "1: hosts n (two ranks) and n-a: no crash, exit 2 only for the k8s names" sh -c "[ $rc -eq 2 ] && grep -qx 'n/0' '$tmp/concat/node-order.txt'"
{ echo "$P2P_HEAD"; p2p_row "$(printf 'a\tb')" c 0 0 1.0; p2p_row c "$(printf 'a\tb')" 0 0 1.0; p2p_row "$(head -c 700 /dev/zero | tr '\0' x)" c 0 0 2.0; } > "$tmp/tab.csv"
run $FP topo "$tmp/tab.csv" -o "$tmp/tab"
expect "1: a TAB in a host name and a 700-byte name: no crash (exit 2: no file format takes the TAB)" [ $rc -eq 2 ]

# ---- 2: a newline in the input path never becomes a line of a generated file
evil="$tmp/x
SwitchName=evil Nodes=node01
kubectl delete node node01
.csv"
cp $FIX/racks332.csv "$evil"
run $FP topo "$evil" -o "$tmp/inj"
expect "2: a newline in the input path: exit 0" [ $rc -eq 0 ]
expect "2: no injected line in topology.conf or k8s-node-labels.sh" sh -c "! grep -q '^SwitchName=evil' '$tmp/inj/topology.conf' && ! grep -q '^kubectl delete' '$tmp/inj/k8s-node-labels.sh' && grep -q 'x.x0aSwitchName=evil' '$tmp/inj/topology.conf'"

# ---- 3: names a format cannot hold are refused, file by file, with the reason; duplicates
sed 's/node01/a#b/g' $FIX/racks332.csv > "$tmp/hash.csv"
run $FP topo "$tmp/hash.csv" -o "$tmp/hash"
expect "3: '#' in a name: exit 2, no topology.conf, the reason said" sh -c "[ $rc -eq 2 ] && [ ! -e '$tmp/hash/topology.conf' ] && grep -q \"topology.conf not written: host name 'a#b'.*comment\" '$tmp/out'"
sed 's/node01/a"b/g' $FIX/racks332.csv > "$tmp/quote.csv"
run $FP topo "$tmp/quote.csv" -o "$tmp/quote"
expect "3: '\"' in a name: no topology.yaml, no host files" sh -c "[ $rc -eq 2 ] && [ ! -e '$tmp/quote/topology.yaml' ] && [ ! -e '$tmp/quote/hostfile.openmpi' ] && [ -e '$tmp/quote/topology.csv' ]"
sed 's/node03/node01/g' $FIX/racks332.csv > "$tmp/dup.csv"
run $FP topo "$tmp/dup.csv" -o "$tmp/dup"
expect "3: a host name twice: exit 2, nothing written" sh -c "[ $rc -eq 2 ] && grep -q \"'node01' appears twice\" '$tmp/out' && [ ! -e '$tmp/dup' ]"

# ---- 8: unusable captured sources are a usage error, before any directory is made
run $FP inventory --sysfs-root /dev/null -o "$tmp/inv1"
expect "8: --sysfs-root /dev/null: exit 2, said, no results directory" sh -c "[ $rc -eq 2 ] && grep -q 'sysfs-root /dev/null: not a directory' '$tmp/out' && [ ! -e '$tmp/inv1' ]"
run $FP inventory --hwloc-xml /nonexistent.xml -o "$tmp/inv2"
expect "8: --hwloc-xml /nonexistent.xml: exit 2" sh -c "[ $rc -eq 2 ] && grep -q 'hwloc-xml /nonexistent.xml' '$tmp/out'"
mkdir -p "$tmp/fifo/class/net/eth0"
mkfifo "$tmp/fifo/class/net/eth0/mtu"
printf '100000000000000000000000\n' > "$tmp/fifo/class/net/eth0/speed"
printf 'up\n' > "$tmp/fifo/class/net/eth0/operstate"
run timeout 30 $FP inventory --sysfs-root "$tmp/fifo" -o "$tmp/inv3"
expect "8: a FIFO in a captured tree: no hang; rate 10^23 Mb/s left empty with a warning" sh -c "[ $rc -eq 0 ] && grep -q 'outside (0, 10000\]: left empty' '$tmp/out' && [ \"\$(awk -F, 'NR == 2 { print \$10 \$13 }' '$tmp/inv3/nics.csv')\" = '' ]"

exit $((FAILED > 0))
