#!/usr/bin/env bash
# Scale of compare's collectives: `fabprobe compare` of a synthetic collectives.csv of N rows
# (default 4096: 4 ops x 4 datatypes x 128 sizes x in/out of place, busbw with 3% noise) with itself, wall time and peak memory; best of 3.
#   scripts/bench-compare.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4096} nodes=${2:-16384}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/a"
python3 - "$n" "$tmp/a/collectives.csv" << 'PY'
import random, sys
n, out = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(7)
ops = ["allreduce", "reduce", "reducescatter", "allgather"]
dtypes = ["int32", "int64", "float", "double"]
rows, k = [], 0
while len(rows) < n:
    op, dt, size = ops[k % 4], dtypes[(k // 4) % 4], 1024 * (1 + (k // 16) % 128)
    redop = "" if op == "allgather" else "sum"
    rid = k // 2048  # past 4 x 4 x 128 combinations, another root keeps the keys apart
    for ip in (0, 1):
        bw = 10 * size / (size + 65536) * (1 + 0.03 * rnd.gauss(0, 1))
        rows.append("x,mpi,%s,%d,%d,%s,%s,%d,8,1,%d,1.0,1.0,%.4f,%.4f,0,ok" % (op, size, size, dt, redop, rid, ip, bw, bw))
    k += 1
with open(out, "w") as f:
    f.write("run_id,backend,op,size_B,count,dtype,redop,root,nranks,nnodes,in_place,time_us,time_us_max,algbw_GBps,busbw_GBps,wrong,status\n")
    f.write("\n".join(rows[:n]) + "\n")
PY
cp -r "$tmp/a" "$tmp/b"
for i in 1 2 3; do
	/usr/bin/time -f "%e %M" -o "$tmp/t$i" ./fabprobe compare "$tmp/a" "$tmp/b" -o "$tmp/out$i" > /dev/null || true
done
best=$(sort -g "$tmp"/t? | head -1)
echo "fabprobe compare, collectives.csv of $n rows with itself: ${best% *} s wall (best of 3), ${best#* } KiB peak RSS"
mkdir -p "$tmp/ia"
awk -v n="$nodes" -v dir="$tmp/ia" 'BEGIN {
	print "host,gpus,nics,kernel,mpi_version,cpu_model" > (dir "/nodes.csv")
	print "host,device,port,netdev,kind,state,virtual,fw_ver,rate_Gbps,width_lanes,mtu_B" > (dir "/nics.csv")
	for (i = 0; i < n; i++) {
		printf "gpu%05d,8,2,6.1,4.1,x\n", i > (dir "/nodes.csv")
		for (d = 0; d < 2; d++) printf "gpu%05d,mlx5_%d,1,ib%d,infiniband,up,0,20.1,200,4,4096\n", i, d, d > (dir "/nics.csv")
	}
}'
cp -r "$tmp/ia" "$tmp/ib"
for i in 1 2 3; do
	/usr/bin/time -f "%e %M" -o "$tmp/inv$i.time" ./fabprobe compare "$tmp/ia" "$tmp/ib" -o "$tmp/iout$i" > /dev/null || true
done
best=$(sort -g "$tmp"/inv?.time | head -1)
echo "fabprobe compare, inventory of $nodes nodes with itself: ${best% *} s wall (best of 3), ${best#* } KiB peak RSS"
