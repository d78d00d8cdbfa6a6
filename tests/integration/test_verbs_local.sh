#!/usr/bin/env bash
# The verbs transport under a real mpirun on this machine. Without an RDMA device (none here)
# every pair of verbs:<dev>:<port> is skipped, each row saying why, the run goes on to the next
# path and exits 1 (measurements that were asked for are missing). With an active RDMA port
# here, the same run must measure every pair instead.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=./fabprobe
tmp=$(mktemp -d /tmp/fp-verbs-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
Q=(-n 50 --lat-warmup 5 -s 64K --bw-iters 2 --bw-warmup 1 -W 8 -c 1 --no-progress)

if ! $FP --version | grep -q "ibverbs=yes"; then
	skip "verbs path under mpirun" "this build has no libibverbs (WITH_IBVERBS=no or rdma-core missing)"
	$FP p2p -p verbs:mlx5_0:1 > "$tmp/usage.out" 2>&1
	rc=$?
	expect "without libibverbs the path is refused at option parsing: exit 2" [ $rc -eq 2 ]
	expect "without libibverbs the path is refused at option parsing: the message names it" \
		grep -q "unavailable path 'verbs:mlx5_0:1'" "$tmp/usage.out"
	exit $((FAILED > 0))
fi

# a device with an active port here: the data path runs for real
active=""
for s in /sys/class/infiniband/*/ports/*/state; do
	[ -e "$s" ] && grep -q ACTIVE "$s" && { p=${s%/state}; active="$(basename "$(dirname "$(dirname "$p")")"):$(basename "$p")"; break; }
done
if [ -n "$active" ]; then
	"${MPIRUN_LOCAL[@]}" -np 2 $FP p2p -p "verbs:$active" "${Q[@]}" -o "$tmp/hw" > "$tmp/hw.out" 2>&1
	expect "verbs:$active on this machine: exit 0" [ $? -eq 0 ]
	expect "verbs:$active: 4 rows" [ "$(count_rows "$tmp/hw/p2p.csv" 'NR > 1')" -eq 4 ]
	expect "verbs:$active: all ok" rows_hold "$tmp/hw/p2p.csv" 'NR > 1' '$20 == "ok"'
	expect "verbs:$active: plausible latency (0.3..500 us)" rows_hold "$tmp/hw/p2p.csv" 'NR > 1 && $9 == 8' '$13 > 0.3' '$13 < 500'
	expect "verbs:$active: plausible bandwidth" rows_hold "$tmp/hw/p2p.csv" 'NR > 1 && $9 == 65536' '$17 > 0.1'
else
	skip "verbs data path on this machine" "no active RDMA port here (nothing under /sys/class/infiniband)"
fi

# a device that is not there (here: no RDMA device at all, or none of that name)
"${MPIRUN_LOCAL[@]}" -np 2 $FP p2p -p verbs:nosuch_0:1,mpi "${Q[@]}" -o "$tmp/absent" > "$tmp/absent.out" 2>&1
rc=$?
expect "absent device: the run completes with exit 1" [ $rc -eq 1 ]
expect "absent device: both directions, every size" [ "$(count_rows "$tmp/absent/p2p.csv" '$2 == "verbs:nosuch_0:1"')" -eq 4 ]
expect "absent device: skipped, naming the device, port and host" rows_hold "$tmp/absent/p2p.csv" '$2 == "verbs:nosuch_0:1"' \
	'$20 == "skipped"' '$6 == "nosuch_0:1"' '$0 ~ /no RDMA device nosuch_0 on [^ ]+ \(it has/'
expect "absent device: no line rate or kind is invented" rows_hold "$tmp/absent/p2p.csv" '$2 ~ /^verbs/' '$3 == ""' '$8 == ""'
expect "absent device: one notice up front says the path is usable nowhere" \
	grep -q "verbs:nosuch_0:1 is usable on no endpoint, every pair is skipped: no RDMA device nosuch_0" "$tmp/absent.out"
expect "absent device: the next path (mpi) is still measured, 4 rows" [ "$(count_rows "$tmp/absent/p2p.csv" '$2 == "mpi"')" -eq 4 ]
expect "absent device: the next path (mpi) is still measured, all ok" rows_hold "$tmp/absent/p2p.csv" '$2 == "mpi"' '$20 == "ok"'

# the path as users write it, on a machine without that device
if [ ! -e /sys/class/infiniband/mlx5_0 ]; then
	"${MPIRUN_LOCAL[@]}" -np 2 -x NCCL_IB_TC=106 -x NCCL_IB_SL=3 $FP p2p -p verbs:mlx5_0:1 -n 10 -s none -c 1 --no-progress -o "$tmp/mlx" > "$tmp/mlx.out" 2>&1
	rc=$?
	expect "verbs:mlx5_0:1 without mlx5_0: exit 1" [ $rc -eq 1 ]
	expect "verbs:mlx5_0:1 without mlx5_0: both rows skipped saying why" \
		[ "$(grep -c ',skipped,.*no RDMA device mlx5_0 on ' "$tmp/mlx/p2p.csv")" -eq 2 ]
	expect "verbs:mlx5_0:1: meta.json records the QoS taken and where from (NCCL_IB_TC, NCCL_IB_SL here)" \
		/usr/bin/python3 -c 'import json,sys; q=json.load(open(sys.argv[1]))["verbs_qos"]; sys.exit(0 if (q["tclass"], q["sl"], q["flow_label"], q["tclass_from"], q["sl_from"]) == (106, 3, 0, "NCCL_IB_TC", "NCCL_IB_SL") else 1)' "$tmp/mlx/meta.json"
	"${MPIRUN_LOCAL[@]}" -np 2 -x NCCL_IB_TC=106 $FP p2p -p verbs:mlx5_0:1 --tclass 40 -n 10 -s none -c 1 --no-progress -o "$tmp/mlx2" > /dev/null 2>&1
	expect "verbs:mlx5_0:1 --tclass 40: the option wins over NCCL_IB_TC in meta.json" \
		/usr/bin/python3 -c 'import json,sys; q=json.load(open(sys.argv[1]))["verbs_qos"]; sys.exit(0 if (q["tclass"], q["tclass_from"], q["sl_from"]) == (40, "--tclass", "default") else 1)' "$tmp/mlx2/meta.json"
else
	skip "verbs:mlx5_0:1 skipped when absent" "this machine has mlx5_0"
fi

# the path argument without a port: refused before launch (a cluster job must not start on a typo), nothing written
"${MPIRUN_LOCAL[@]}" -np 2 $FP p2p -p verbs:mlx5_0 "${Q[@]}" -o "$tmp/noport" > "$tmp/noport.out" 2>&1
rc=$?
expect "verbs:mlx5_0 (no port): exit 2 before launch" [ $rc -eq 2 ]
expect "verbs:mlx5_0 (no port): says the path needs verbs:<device>:<port>" \
	grep -q 'path verbs needs a device and port: verbs:<device>:<port>' "$tmp/noport.out"
expect "verbs:mlx5_0 (no port): no results directory made" [ ! -e "$tmp/noport" ]
exit $((FAILED > 0))
