#!/usr/bin/env bash
# fabprobe inventory on this machine (real hwloc and sysfs) and on the synthetic fixtures of
# tests/fixtures/mkfixtures.sh, alone and combined under mpirun: counts, kinds, rates, classes,
# warnings, mismatches, exit codes.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=./fabprobe
FX=tests/fixtures
tmp=$(mktemp -d /tmp/fp-inv-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
has_hwloc() { $FP --version | grep -q 'hwloc=yes'; }
row() { awk -F, -v k="$2" -v v="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[k] == v' "$1"; }
field() { # FILE KEYCOL KEY COL
	awk -F, -v k="$2" -v v="$3" -v f="$4" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[k] == v { print $c[f] }' "$1"
}

# ---- this machine, no launcher (MPI singleton)
$FP inventory -o "$tmp/local" > "$tmp/local.out" 2>&1
rc=$?
expect "local: exit code 0" [ "$rc" -eq 0 ]
for f in nodes.csv nics.csv gpus.csv paths.csv inventory_mismatch.csv meta.json; do
	expect "local: $f written" [ -s "$tmp/local/$f" ]
done
expect "local: one node" [ "$(($(wc -l < "$tmp/local/nodes.csv") - 1))" -eq 1 ]
expect "local: threads = nproc ($(nproc --all))" [ "$(csv_col "$tmp/local/nodes.csv" threads)" -eq "$(nproc --all)" ]
cores=$(lscpu -p=core,socket | grep -v '^#' | sort -u | wc -l)
expect "local: cores = lscpu ($cores)" [ "$(csv_col "$tmp/local/nodes.csv" cores)" -eq "$cores" ]
numa=$(lscpu -p=node | grep -v '^#' | sort -u | wc -l)
expect "local: NUMA nodes = lscpu ($numa)" [ "$(csv_col "$tmp/local/nodes.csv" numa_nodes)" -eq "$numa" ]
memkb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
expect "local: mem_B = /proc/meminfo MemTotal" [ "$(csv_col "$tmp/local/nodes.csv" mem_B)" -eq $((memkb * 1024)) ]
expect "local: kernel = uname -r" [ "$(csv_col "$tmp/local/nodes.csv" kernel)" = "$(uname -r)" ]
expect "local: no RDMA devices is said, not an error" grep -q "ibverbs: no RDMA devices\|ibverbs: not built" "$tmp/local/nodes.csv"
for dev in $(ls /sys/class/net); do
	if [ -e "/sys/class/net/$dev/device" ]; then virt=0; else virt=1; fi
	expect "local: $dev listed (virtual=$virt)" [ "$(field "$tmp/local/nics.csv" netdev "$dev" virtual)" = "$virt" ]
	speed=$(cat "/sys/class/net/$dev/speed" 2>/dev/null || echo -1)
	want=""; [ "$speed" -gt 0 ] 2>/dev/null && want=$(awk -v s="$speed" 'BEGIN { printf "%.1f", s / 1000 }')
	expect "local: $dev rate '${want}' from speed ($speed Mb/s)" [ "$(field "$tmp/local/nics.csv" netdev "$dev" rate_Gbps)" = "$want" ]
done
real=$(ip -o -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* dev \([^ ]*\).*/\1/p')
[ -n "$real" ] && expect "local: path tcp:$real listed" grep -q "^[^,]*,tcp:$real," "$tmp/local/paths.csv"
expect "local: lo is not a path" sh -c "! grep -q ',tcp:lo,' '$tmp/local/paths.csv'"
expect "local: table printed" grep -q "^verdict: nodes agree" "$tmp/local.out"

# ---- this machine under mpirun -np 4: one node, 4 ranks
"${MPIRUN_LOCAL[@]}" --oversubscribe -np 4 $FP inventory -o "$tmp/np4" > "$tmp/np4.out" 2>&1
rc=$?
expect "np4: exit code 0" [ "$rc" -eq 0 ]
expect "np4: one node with 4 ranks" [ "$(csv_col "$tmp/np4/nodes.csv" ranks | tr '\n' ' ')" = "4 " ]
expect "np4: printed once" [ "$(grep -c '^verdict:' "$tmp/np4.out")" -eq 1 ]

# ---- fixtures, one node each
fx() { # NAME [--hwloc-xml]: run on one fixture into $tmp/NAME
	local xml=()
	[ "${2:-}" = xml ] && xml=(--hwloc-xml "$FX/$1/topo.xml")
	$FP inventory --sysfs-root "$FX/$1/sysfs" "${xml[@]}" -o "$tmp/$1" > "$tmp/$1.out" 2>&1
}
# an hwloc XML file on which hwloc itself dies (SIGSEGV in hwloc_topology_load: found by
# fuzz_inventory): checked in a child process first, refused with the reason, exit 2
if has_hwloc; then
	$FP inventory --sysfs-root "$FX/bad/sysfs" --hwloc-xml "$FX/bad/hwloc-crash.xml" -o "$tmp/crash" > "$tmp/crash.out" 2>&1
	expect "hwloc XML that crashes hwloc: exit 2" [ $? -eq 2 ]
	expect "hwloc XML that crashes hwloc: said so, naming the file" grep -q 'hwloc-crash.xml: hwloc crashed reading it' "$tmp/crash.out"
fi
fx ib-hdr xml; rc=$?
expect "ib-hdr: exit 0" [ "$rc" -eq 0 ]
expect "ib-hdr: 8 infiniband ports" [ "$(count_rows "$tmp/ib-hdr/nics.csv" '$6 == "infiniband"')" -eq 8 ]
expect "ib-hdr: infiniband ports active at 200 Gb/s 4X" rows_hold "$tmp/ib-hdr/nics.csv" '$6 == "infiniband"' \
	'$8 == "active"' '$10 == "200.0"' '$11 == 4'
expect "ib-hdr: verbs paths for the 8 ports" [ "$(grep -c ',verbs:mlx5_[0-7]:1,' "$tmp/ib-hdr/paths.csv")" -eq 8 ]
if has_hwloc; then
	expect "ib-hdr: 8 GPUs" [ "$(count_rows "$tmp/ib-hdr/gpus.csv" 'NR > 1')" -eq 8 ]
	expect "ib-hdr: each GPU PIX to its HCA" rows_hold "$tmp/ib-hdr/gpus.csv" 'NR > 1' '$8 == "PIX"'
	expect "ib-hdr: each GPU has its own HCA" [ "$(csv_col "$tmp/ib-hdr/gpus.csv" nearest_nic | sort -u | wc -l)" -eq 8 ]
	fx roce xml
	expect "roce: GPU0 PHB, GPU1 PXB" [ "$(csv_col "$tmp/roce/gpus.csv" path_class | tr '\n' ' ')" = "PHB PXB " ]
	fx ib-degraded xml; rc=$?
	expect "ib-degraded: exit 0 (one node agrees with itself)" [ "$rc" -eq 0 ]
	expect "ib-degraded: GPU across the socket warned" grep -q "warning: .*GPU 2 .*across the socket (SYS)" "$tmp/ib-degraded.out"
	expect "ib-degraded: shared NIC warned" grep -q "2 GPUs share NIC mlx5_0:1 while NIC mlx5_3:1 is idle" "$tmp/ib-degraded.out"
else
	skip "fixture GPUs and path classes" "hwloc not built"
	fx roce; fx ib-degraded
fi
expect "roce: ports are roce with RoCE v2 GIDs 5 and 3" [ "$(awk -F, '$6 == "roce" { print $19 }' "$tmp/roce/nics.csv" | tr '\n' ' ')" = "5 3 " ]
expect "ib-degraded: 2X port at 100 Gb/s" [ "$(field "$tmp/ib-degraded/nics.csv" device mlx5_1 rate_Gbps)" = "100.0" ]
expect "ib-degraded: down port has an empty rate" [ "$(field "$tmp/ib-degraded/nics.csv" device mlx5_2 rate_Gbps)" = "" ]
expect "ib-degraded: degraded width warned" grep -q "port mlx5_1:1 runs at 2X while others run at 4X" "$tmp/ib-degraded.out"
fx eth25
expect "eth25: eth0 ethernet 25 Gb/s, eth1 empty rate" [ "$(field "$tmp/eth25/nics.csv" netdev eth0 rate_Gbps),$(field "$tmp/eth25/nics.csv" netdev eth1 rate_Gbps)" = "25.0," ]
expect "eth25: virtual interfaces listed as virtual" [ "$(awk -F, '$7 == 1 { print $5 }' "$tmp/eth25/nics.csv" | tr '\n' ' ')" = "docker0 lo veth12ab " ]
expect "eth25: paths are mpi and tcp:eth0 only" [ "$(csv_col "$tmp/eth25/paths.csv" path | tr '\n' ' ')" = "mpi tcp:eth0 " ]
expect "eth25: says hwloc was not used" grep -q "hwloc: skipped\|hwloc: not built" "$tmp/eth25/nodes.csv"
fx bad xml
expect "bad: each bad file named" [ "$(grep -c "warning: .*$FX/bad/.*\(malformed\|unreadable\|cannot load\)" "$tmp/bad.out")" -ge 5 ]

# ---- two different fixtures under mpirun -np 2 (%r): mismatch, exit 1
ln -s "$PWD/$FX/ib-hdr/sysfs" "$tmp/n0"; ln -s "$PWD/$FX/ib-degraded/sysfs" "$tmp/n1"
"${MPIRUN_LOCAL[@]}" -np 2 $FP inventory --sysfs-root "$tmp/n%r" -o "$tmp/mix" > "$tmp/mix.out" 2>&1
rc=$?
expect "mixed fixtures: exit code 1" [ "$rc" -eq 1 ]
expect "mixed fixtures: two nodes" [ "$(($(wc -l < "$tmp/mix/nodes.csv") - 1))" -eq 2 ]
expect "mixed fixtures: missing port flagged on r1" grep -q "/r1,mlx5_4:1,present,no,yes" "$tmp/mix/inventory_mismatch.csv"
expect "mixed fixtures: rate mismatch flagged" grep -q "/r1,mlx5_1:1,rate_Gbps,100,200" "$tmp/mix/inventory_mismatch.csv"
expect "mixed fixtures: listed on the terminal" grep -q "^mismatch: .*/r1: " "$tmp/mix.out"
expect "mixed fixtures: meta.json says failed" grep -q '"status": "failed"' "$tmp/mix/meta.json"
# three nodes, one firmware differs: a clear majority
cp -rL "$FX/ib-hdr/sysfs" "$tmp/m2"; echo 20.99.9999 > "$tmp/m2/class/infiniband/mlx5_3/fw_ver"
ln -s "$PWD/$FX/ib-hdr/sysfs" "$tmp/m0"; ln -s "$PWD/$FX/ib-hdr/sysfs" "$tmp/m1"
"${MPIRUN_LOCAL[@]}" --oversubscribe -np 3 $FP inventory --sysfs-root "$tmp/m%r" -o "$tmp/fw" > "$tmp/fw.out" 2>&1
rc=$?
expect "firmware differs on one of 3: exit 1" [ "$rc" -eq 1 ]
expect "firmware differs: exactly that row" [ "$(tail -n +2 "$tmp/fw/inventory_mismatch.csv" | cut -d, -f2-7 | sed 's/^[^,]*\//\//')" = "/r2,mlx5_3:1,fw_ver,20.99.9999,20.31.1014,0" ]
"${MPIRUN_LOCAL[@]}" -np 2 $FP inventory --sysfs-root "$tmp/m%r" -o "$tmp/same" > /dev/null 2>&1
expect "identical fixtures: exit 0" [ $? -eq 0 ]

# ---- run: the rails of the GPU↔NIC pairing, said; judged only when every one is measured by
# nodes (two ranks of one machine are not)
if has_hwloc; then
	"${MPIRUN_LOCAL[@]}" -np 2 $FP run --sysfs-root "$FX/ib-hdr/sysfs" --hwloc-xml "$FX/ib-hdr/topo.xml" -p mpi \
		--no-coll --no-order -s none -n 20 -o "$tmp/rails" > "$tmp/rails.out" 2>&1
	rc=$?
	want="run: rails (each GPU's nearest port, in GPU order): verbs:mlx5_0:1,verbs:mlx5_1:1,verbs:mlx5_2:1,verbs:mlx5_3:1,verbs:mlx5_4:1,verbs:mlx5_5:1,verbs:mlx5_6:1,verbs:mlx5_7:1; ranks of one node: not judged"
	expect "run on the 8-GPU fixture: its 8 rails in GPU order, not judged on ranks of one node, PASS (exit $rc)" \
		sh -c "[ $rc -eq 0 ] && grep -qxF \"$want\" '$tmp/rails.out' && ! grep -q 'rails:' '$tmp/rails/summary.json'"
fi

# ---- NVML captures (tests/fixtures/mknvml.py, modelled on real nodes): an HGX H200 node has
# no NVLink domain (said once, not a fault); GB200 NVL72 racks, one domain each; their faults
NV="/usr/bin/python3 tests/fixtures/mknvml.py"
$NV "$tmp/h200" h200
$FP inventory --nvml-capture "$tmp/h200/0" -o "$tmp/nvh" > "$tmp/nvh.out" 2>&1
expect "H200 capture: exit 0 (no NVLink domain is no fault)" [ $? -eq 0 ]
expect "H200 capture: 8 GPUs in PCI order, named by NVML" \
	[ "$(csv_col "$tmp/nvh/gpus.csv" pci_addr | tr '\n' ' ')" = "0000:18:00.0 0000:2a:00.0 0000:3a:00.0 0000:5d:00.0 0000:9a:00.0 0000:ab:00.0 0000:ba:00.0 0000:db:00.0 " ]
expect "H200 capture: every GPU 18 of 18 NVLinks to the switches, fabric not supported, no domain" \
	rows_hold "$tmp/nvh/gpus.csv" 'NR > 1' '$4 == "NVIDIA H200"' '$10 == 18' '$11 == 18' '$12 == "switch"' \
	'$13 == "not_supported"' '$15 == ""'
expect "H200 capture: said once: no NVLink domain, and why" \
	[ "$(grep -c '^NVLink domains: none (the GPUs do not support NVLink fabric registration' "$tmp/nvh.out")" -eq 1 ]
$NV "$tmp/ok" nvl72 --racks 2 --trays 2
"${MPIRUN_LOCAL[@]}" --oversubscribe -np 4 $FP inventory --nvml-capture "$tmp/ok/%r" -o "$tmp/nvok" > "$tmp/nvok.out" 2>&1
expect "two NVL72 racks (2 trays each), healthy: exit 0" [ $? -eq 0 ]
expect "two NVL72 racks: two domains, every node in one" grep -qx "NVLink domains: 2, 4 of 4 nodes in one" "$tmp/nvok.out"
expect "two NVL72 racks: gpus.csv's nvlink_domain is the gpu.clique label, two values of 8 GPUs each" \
	[ "$(csv_col "$tmp/nvok/gpus.csv" nvlink_domain | sort | uniq -c | awk '{print $1, $2}' | tr '\n' ' ')" = "8 7d1e53a4-2c3b-4f65-9d1c-0c1f2e3a4b5c.32766 8 c0ffee00-1234-4abc-8def-00112233aa01.32766 " ]
expect "two NVL72 racks: the platform's chassis, slot and tray" rows_hold "$tmp/nvok/gpus.csv" '$2 ~ /r3$/' \
	'$17 == "1821124190001"' '$18 == 2' '$19 == 1'
# Kubernetes' nvidia.com/gpu.clique as a cluster has it (kubectl get nodes -o json): r0 right,
# r1 labelled with the other rack's domain, r2 without the label, r3 not listed
hosts=($(csv_col "$tmp/nvok/nodes.csv" host))
cat > "$tmp/k8s.json" <<JSON
{"apiVersion": "v1", "kind": "List", "items": [
 {"metadata": {"name": "${hosts[0]}", "labels": {"nvidia.com/gpu.clique": "7d1e53a4-2c3b-4f65-9d1c-0c1f2e3a4b5c.32766"}}},
 {"metadata": {"name": "${hosts[1]}", "labels": {"nvidia.com/gpu.clique": "c0ffee00-1234-4abc-8def-00112233aa01.32766"}}},
 {"metadata": {"name": "${hosts[2]}", "labels": {"kubernetes.io/hostname": "x"}}}]}
JSON
"${MPIRUN_LOCAL[@]}" --oversubscribe -np 4 $FP inventory --nvml-capture "$tmp/ok/%r" --k8s-nodes "$tmp/k8s.json" -o "$tmp/nvk8s" > "$tmp/nvk8s.out" 2>&1
expect "--k8s-nodes: exit 1, the two labels that disagree with the domains found, nothing else" \
	sh -c "[ $? -eq 1 ] && [ \"\$(tail -n +2 '$tmp/nvk8s/inventory_mismatch.csv' | cut -d, -f2- | sed 's/^[^,]*\///')\" = 'r1,k8s label nvidia.com/gpu.clique,value,c0ffee00..32766,7d1e53a4..32766,0
r2,k8s label nvidia.com/gpu.clique,value,absent,c0ffee00..32766,0' ]"
printf '{"items": [{"metadata": {}}]}' > "$tmp/k8s-bad.json"
$FP inventory --nvml-capture "$tmp/h200/0" --k8s-nodes "$tmp/k8s-bad.json" -o "$tmp/nvk8sbad" > "$tmp/nvk8sbad.out" 2>&1
expect "--k8s-nodes with an item without a name: exit 2, naming the file" sh -c "[ $? -eq 2 ] && grep -q 'k8s-bad.json: item 0 has no metadata.name' '$tmp/nvk8sbad.out'"
$NV "$tmp/bad" nvl72 --racks 2 --trays 3 --unregistered 4 --two-cliques 1 --zero-uuid 2 --degraded 3 --links-down 5
"${MPIRUN_LOCAL[@]}" --oversubscribe -np 6 $FP inventory --nvml-capture "$tmp/bad/%r" -o "$tmp/nvbad" > "$tmp/nvbad.out" 2>&1
expect "NVL72 faults: exit 1" [ $? -eq 1 ]
mmrow() { tail -n +2 "$tmp/nvbad/inventory_mismatch.csv" | cut -d, -f2- | sed 's/^[^,]*\//\//' | grep -qxF "$1"; }
expect "NVL72 faults: a tray that never registered" mmrow '/r4,nvlink fabric,registration,"not_started GPUs 0,1,2,3",completed,0'
expect "NVL72 faults: GPUs of one node in two cliques" mmrow '/r1,nvlink domain,cliques,2,1,0'
expect "NVL72 faults: a zero cluster UUID where the others have one" mmrow '/r2,nvlink fabric,cluster_uuid,"zero GPUs 0,1,2,3",set,0'
expect "NVL72 faults: degraded bandwidth" mmrow '/r3,nvlink fabric,fabric_health,degraded_bw GPU 1,ok,0'
expect "NVL72 faults: a GPU with two NVLinks down" mmrow '/r5,GPU 0 0008:01:00.0,nvlinks_up,16 of 18,18,0'
expect "NVL72 faults: rack 0's domain smaller than rack 1's (two of its trays left it)" \
	mmrow '/r0,nvlink domain 7d1e53a4..32766,nodes,1 node,2 nodes,0'
expect "NVL72 faults: nothing else" [ "$(($(wc -l < "$tmp/nvbad/inventory_mismatch.csv") - 1))" -eq 6 ]
# a capture with a folder that is no PCI address and values that are not their field's
mkdir -p "$tmp/junk/0000:18:00.0" "$tmp/junk/notapci"
printf 'lots\n' > "$tmp/junk/0000:18:00.0/nvlinks"; printf 'done\n' > "$tmp/junk/0000:18:00.0/fabric_state"
printf 'GPU-\033[2J\n' > "$tmp/junk/0000:18:00.0/uuid"
$FP inventory --nvml-capture "$tmp/junk" -o "$tmp/nvjunk" > "$tmp/nvjunk.out" 2>&1
expect "junk capture: read, exit 0" [ $? -eq 0 ]
expect "junk capture: each bad file named" [ "$(grep -o "warning: .*$tmp/junk/\(notapci\|0000:18:00.0/nvlinks\|0000:18:00.0/fabric_state\|0000:18:00.0/uuid\)" "$tmp/nvjunk.out" | sed 's/.*junk.//' | sort -u | wc -l)" -eq 4 ]
expect "junk capture: the values left unknown" rows_hold "$tmp/nvjunk/gpus.csv" 'NR > 1' '$9 == ""' '$10 == ""' '$13 == ""'
expect "junk capture: no control byte reaches the terminal" sh -c "! grep -q \$'\033' '$tmp/nvjunk.out'"
$FP inventory --nvml-capture "$tmp/h200/0" --nvml-save "$tmp/saved" > /dev/null 2>&1
expect "--nvml-save with --nvml-capture: refused, exit 2" [ $? -eq 2 ]

# ---- usage
$FP inventory --sysfs-root 'x/%q' > "$tmp/u.out" 2>&1
expect "usage: bad % sequence refused with exit 2" [ $? -eq 2 ]
expect "inventory --help documents --sysfs-root" sh -c "$FP inventory --help | grep -q -- '--sysfs-root'"
exit $((FAILED > 0))
