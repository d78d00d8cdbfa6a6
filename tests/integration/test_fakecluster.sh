#!/usr/bin/env bash
# Integration test of scripts/fakecluster.sh: refuses bad option values, builds emulated
# clusters, checks the ground truth, the MPI launch, the latency and bandwidth steps, and that
# 'down' leaves nothing behind. Needs root; takes 20-25 s on 2 cores.
#
# Prints one line per check: "ok - NAME", "not ok - NAME: WHY" or
# "skip - NAME: REASON". Exits 1 when a check failed, else 0 (also when
# everything was skipped because this is not root or a tool is missing).
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fc=$top/scripts/fakecluster.sh
state_dir=/run/fabprobe-fakecluster
truth=$state_dir/truth.csv
uplink_delay_us=25
core_delay_us=50

# shellcheck source=tests/integration/lib.sh
. "$top/tests/integration/lib.sh" # ok, notok, skip, FAILED

all_checks=("up refuses bad values, builds nothing" "failed up cleans up" "up 3,3,2 builds namespaces" "truth.csv matches layout"
	"second up is a no-op" "mpirun -np 8 sees every node" "mpirun: every node's ranks in a session of their own" "same-rack vs cross-rack latency"
	"cross-rack throughput limited by uplink" "degraded node throughput"
	"net2: eth1 on every node, truth_eth1.csv" "net2: each network's latency follows its own racks"
	"net2: MPI's traffic over eth1" "spines: truth.csv has spine column" "spines: cross-spine latency step"
	"rails: truth_rails.csv and the rails' addresses" "rails: a swapped cable's port reaches its rail's peers across the spine"
	"rails: a port probed from every rail of a peer lands in the leaf it is cabled into" "rails: a degraded rail port" "down leaves nothing"
	"second down is a no-op")

skip_all() {
	local c
	for c in "${all_checks[@]}"; do skip "$c" "$1"; done
	exit 0
}

# fail_rest AFTER REASON: every check listed after AFTER fails with REASON.
fail_rest() {
	local c seen=0
	for c in "${all_checks[@]}"; do
		[ "$seen" = 1 ] && notok "$c" "$2"
		[ "$c" = "$1" ] && seen=1
	done
}

# --- preconditions ----------------------------------------------------------------

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces)"
for t in ip:iproute2 tc:iproute2 ss:iproute2 unshare:util-linux; do
	command -v "${t%%:*}" >/dev/null 2>&1 || skip_all "'${t%%:*}' missing (Debian package ${t#*:})"
done
have() { command -v "$1" >/dev/null 2>&1; }
clang_ok=0
for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do have "$c" && clang_ok=1; done
[ -f /usr/include/bpf/bpf_helpers.h ] || clang_ok=0

tmp=$(mktemp -d /tmp/test_fakecluster.XXXXXX)
bg_pids=()

# is_our_child PID: PID is alive and still our child (not a recycled PID).
is_our_child() { [ "$(awk '{ print $4 }' "/proc/$1/stat" 2>/dev/null)" = "$$" ]; }

cleanup() {
	local p
	for p in "${bg_pids[@]+"${bg_pids[@]}"}"; do is_our_child "$p" && kill "$p" 2>/dev/null; done
	"$fc" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# our_namespaces: the fp-* namespaces that exist now, one a line.
our_namespaces() { ip netns list | awk '$1 ~ /^fp-/ { print $1 }' | sort; }

# Delay options for 'up': none when BPF cannot be built here.
delay_opts=(--uplink-delay-us "$uplink_delay_us" --core-delay-us "$core_delay_us")
[ "$clang_ok" = 1 ] || delay_opts=(--uplink-delay-us 0 --core-delay-us 0)

# bpf_reason: why latency checks cannot run ('' when they can).
bpf_reason() {
	[ "$clang_ok" = 1 ] || { echo "clang or libbpf-dev missing (Debian packages clang, libbpf-dev)"; return; }
	grep -qx 'bpf_delay=on' "$state_dir/state" 2>/dev/null || echo "BPF delay unavailable in this kernel"
}

# The latency probe (the image has no ping); why it is missing, when it is.
pingpong=$tmp/pingpong pingpong_reason=''
if ! have gcc; then
	pingpong_reason="gcc missing (Debian package gcc): no ping-pong tool"
elif ! gcc -O2 -o "$pingpong" "$top/scripts/fakecluster/pingpong.c" 2>"$tmp/gcc.err"; then
	pingpong_reason="scripts/fakecluster/pingpong.c does not build: $(head -n 1 "$tmp/gcc.err")"
fi

# --- helpers ---------------------------------------------------------------------------

# start_bg NODE CMD...: CMD in the background on NODE; fakecluster's exec chain
# ends in CMD itself, so the PID recorded is CMD's.
start_bg() {
	"$fc" exec "$@" >/dev/null 2>&1 &
	bg_pids+=($!)
}

# wait_listen NODE tcp|udp PORT: waits (up to 2 s) for a server on NODE to bind PORT.
wait_listen() {
	local flag=-ltnH
	[ "$2" = udp ] && flag=-lunH
	for _ in $(seq 20); do
		ip netns exec "fp-$1" ss "$flag" "sport = :$3" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# p50_us FROM TO: median half round trip (µs) of 1000 UDP ping-pongs FROM -> TO.
p50_us() {
	"$fc" exec "$1" "$pingpong" -c "$2" -n 1000 -w 100 2>/dev/null | sed -n 's/.* p50=\([0-9.]*\).*/\1/p'
}

# latency_step NAME NEAR FAR MIN_STEP_US: from node01, FAR's median must exceed
# NEAR's by MIN_STEP_US; up to 3 tries, since a busy machine can blur one.
latency_step() {
	local name=$1 near=$2 far=$3 min_step=$4 reason try a b
	reason=$(bpf_reason)
	[ -z "$reason" ] || { skip "$name" "$reason"; return; }
	[ -z "$pingpong_reason" ] || { skip "$name" "$pingpong_reason"; return; }
	start_bg "$near" "$pingpong" -s -t 30
	start_bg "$far" "$pingpong" -s -t 30
	wait_listen "$near" udp 7777
	wait_listen "$far" udp 7777
	for try in 1 2 3; do
		a=$(p50_us node01 "$near")
		b=$(p50_us node01 "$far")
		if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" -v d="$min_step" 'BEGIN { exit !(b > a + d) }'; then
			ok "$name"
			echo "# $name: median half-RTT node01-$near ${a} us, node01-$far ${b} us (try $try)" >&2
			return
		fi
	done
	notok "$name" "median half-RTT node01-$near '${a}' us, node01-$far '${b}' us; wanted a step > $min_step us"
}

# mbps FROM TO [ADDR]: iperf3 throughput FROM -> TO (at ADDR, one of its addresses) in Mbit/s
# over 2 s ('' on failure).
mbps() {
	start_bg "$2" iperf3 -s -1
	wait_listen "$2" tcp 5201
	"$fc" exec "$1" iperf3 -c "${3:-$2}" -t 2 -f m 2>/dev/null | awk '/receiver/ { print $(NF-2) }'
}

# --- checks ------------------------------------------------------------------------------

"$fc" down >/dev/null 2>&1

# Bad values are refused before anything is built: exit 2, the option and the value named.
name="up refuses bad values, builds nothing"
why=''
for bad in "--pair-jitter abc" "--pair-jitter -1" "--pair-jitter 10001" "--pair-jitter 1.5" \
	"--pair-seed x" "--pair-seed 1234567890" "--uplink-delay-us 2e3" "--uplink-rate fast" \
	"--degrade node99=1gbit" "--place node01=x" "--rails 0" "--rails 17" "--rail-su 2" "--rail-swap node01=1,2"; do
	read -r opt val <<< "$bad"
	"$fc" up --racks 2,1 "$opt" "$val" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -qF -- "$opt" "$tmp/out" || [ -n "$(our_namespaces)" ] || [ -e "$truth" ]; then
		why="$why [$bad: exit $rc, $(head -n 1 "$tmp/out")]"
		"$fc" down >/dev/null 2>&1
	fi
done
if [ -z "$why" ]; then ok "$name"; else notok "$name" "$why"; fi

# A failed up must remove everything it had made.
name="failed up cleans up"
FAKECLUSTER_TEST_FAIL_AT=fp-node02 "$fc" up --racks 2,1 "${delay_opts[@]}" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	notok "$name" "up exited 0 despite FAKECLUSTER_TEST_FAIL_AT"
elif [ -n "$(our_namespaces)" ] || [ -e "$state_dir" ]; then
	notok "$name" "left behind: $(our_namespaces | paste -sd' ' -) $(ls -d "$state_dir" 2>/dev/null)"
else
	ok "$name"
fi

name="up 3,3,2 builds namespaces"
up_opts=(--racks "3,3,2" --degrade node03=100mbit "${delay_opts[@]}")
expected_ns=$(printf '%s\n' fp-spine fp-leaf1 fp-leaf2 fp-leaf3 fp-node0{1..8} | sort)
if ! "$fc" up "${up_opts[@]}" >"$tmp/out" 2>&1; then
	notok "$name" "up failed: $(tail -n 3 "$tmp/out" | paste -sd' ' -)"
	fail_rest "$name" "the cluster did not come up"
	exit 1 # the trap cleans up
elif [ "$(our_namespaces)" != "$expected_ns" ]; then
	notok "$name" "namespaces are: $(our_namespaces | paste -sd' ' -)"
else
	ok "$name"
fi

name="truth.csv matches layout"
expected_truth="host,rack,spine,ip
node01,leaf1,,10.77.0.1
node02,leaf1,,10.77.0.2
node03,leaf1,,10.77.0.3
node04,leaf2,,10.77.0.4
node05,leaf2,,10.77.0.5
node06,leaf2,,10.77.0.6
node07,leaf3,,10.77.0.7
node08,leaf3,,10.77.0.8"
if [ "$(cat "$truth" 2>/dev/null)" = "$expected_truth" ]; then
	ok "$name"
else
	notok "$name" "got: $(paste -sd' ' "$truth" 2>/dev/null)"
fi

# Same options again: no rebuild, so every namespace keeps its identity (inode).
name="second up is a no-op"
before=$(stat -L -c %i /run/netns/fp-node01 /run/netns/fp-leaf3 2>/dev/null)
if ! "$fc" up "${up_opts[@]}" >"$tmp/out" 2>&1; then
	notok "$name" "second up failed: $(tail -n 1 "$tmp/out")"
elif [ "$(stat -L -c %i /run/netns/fp-node01 /run/netns/fp-leaf3 2>/dev/null)" != "$before" ]; then
	notok "$name" "namespaces were rebuilt"
else
	ok "$name"
fi

name="mpirun -np 8 sees every node"
if ! have mpirun || ! have mpicc; then
	skip "$name" "mpirun or mpicc missing (Debian packages openmpi-bin, libopenmpi-dev)"
else
	cat >"$tmp/procname.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char name[MPI_MAX_PROCESSOR_NAME];
	int rank, len;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Get_processor_name(name, &len);
	printf("rank %d %s %ld\n", rank, name, (long)getsid(0));
	MPI_Finalize();
	return 0;
}
EOF
	if ! mpicc -o "$tmp/procname" "$tmp/procname.c" 2>"$tmp/out"; then
		notok "$name" "mpicc failed: $(head -n 1 "$tmp/out")"
	elif ! timeout 60 "$fc" mpirun -np 8 "$tmp/procname" >"$tmp/mpi.out" 2>"$tmp/mpi.err"; then
		notok "$name" "mpirun exited $?: $(head -n 3 "$tmp/mpi.err" | paste -sd' ' -)"
	else
		got=$(awk '$1 == "rank" { print $3 }' "$tmp/mpi.out" | sort | paste -sd' ' -)
		want=$(tail -n +2 "$truth" | cut -d, -f1 | sort | paste -sd' ' -)
		nrank=$(grep -c '^rank ' "$tmp/mpi.out")
		if [ "$got" != "$want" ]; then
			notok "$name" "processor names '$got', want '$want'"
		elif [ "$nrank" -ne 8 ]; then
			notok "$name" "$nrank ranks reported, want 8"
		else
			ok "$name"
		fi
	fi
	# The kernel's autogroup scheduler shares the CPUs fairly between sessions: in
	# the caller's session, rank 0 (child of the HNP) would share one slice with
	# whatever else runs there, and node01's pairs read slow on a healthy fabric.
	name="mpirun: every node's ranks in a session of their own"
	sids=$(awk '$1 == "rank" { print $4 }' "$tmp/mpi.out" | sort -u | grep -c .)
	if [ ! -s "$tmp/mpi.out" ]; then
		skip "$name" "mpirun did not run"
	elif [ "$sids" -ne 8 ] || awk -v me="$(ps -o sid= -p $$ | tr -d ' ')" '$1 == "rank" && $4 == me { f = 1 } END { exit !f }' "$tmp/mpi.out"; then
		notok "$name" "$sids sessions for 8 nodes, or one the caller's: $(awk '$1 == "rank" { printf "%s:%s ", $3, $4 }' "$tmp/mpi.out")"
	else
		ok "$name"
	fi
fi

# Cross-rack pays the uplink delay twice each way (leaf->spine, spine->leaf),
# so its median half round trip is ~2x the delay above same-rack; asking for
# half the delay leaves room for noise, and only a missing delay fails.
latency_step "same-rack vs cross-rack latency" node02 node04 "$(awk -v d="$uplink_delay_us" 'BEGIN { print d / 2 }')"

if ! have iperf3; then
	skip "cross-rack throughput limited by uplink" "iperf3 missing (Debian package iperf3)"
	skip "degraded node throughput" "iperf3 missing (Debian package iperf3)"
elif ! grep -qx 'tbf=on' "$state_dir/state"; then
	skip "cross-rack throughput limited by uplink" "tbf unavailable in this kernel"
	skip "degraded node throughput" "tbf unavailable in this kernel"
else
	same=$(mbps node01 node02)   # 10gbit links, in practice CPU-bound
	cross=$(mbps node01 node04)  # through 1gbit uplinks
	slow=$(mbps node01 node03)   # node03 degraded to 100mbit
	echo "# iperf3 Mbit/s: same-rack node01-node02 '$same', cross-rack node01-node04 '$cross', degraded node01-node03 '$slow'" >&2
	for pair in "cross-rack throughput limited by uplink:$cross:1100" "degraded node throughput:$slow:150"; do
		IFS=: read -r name got limit <<<"$pair"
		if [ -z "$same" ] || [ -z "$got" ]; then
			notok "$name" "iperf3 gave no figure (same-rack '$same', this pair '$got')"
		elif awk -v s="$same" -v g="$got" -v l="$limit" 'BEGIN { exit !(g < l && g < s / 2) }'; then
			ok "$name"
		else
			notok "$name" "$got Mbit/s against $same Mbit/s same-rack (want < $limit and < half)"
		fi
	done
fi

# A second network (--net2): eth1 on its own switches, the nodes in name order over its racks
# while eth0's are dealt across theirs, so the two group the same nodes differently. From
# node01: node04 shares its eth0 leaf and crosses eth1's spine; node02 the other way round.
name="net2: eth1 on every node, truth_eth1.csv"
net2_opts=(--net2 3,3 --net2-uplink-delay-us 40)
[ "$clang_ok" = 1 ] || net2_opts=(--net2 3,3 --net2-uplink-delay-us 0)
if ! "$fc" up --racks 2,2,2 --interleave "${net2_opts[@]}" "${delay_opts[@]}" >"$tmp/out" 2>&1; then
	notok "$name" "up failed: $(tail -n 3 "$tmp/out" | paste -sd' ' -)"
	skip "net2: each network's latency follows its own racks" "up failed"
	skip "net2: MPI's traffic over eth1" "up failed"
else
	got=$(tail -n +2 "$state_dir/truth_eth1.csv" | cut -d, -f1,2,4 | paste -sd' ' -)
	want="node01,leaf1,10.78.0.1 node02,leaf1,10.78.0.2 node03,leaf1,10.78.0.3"
	want+=" node04,leaf2,10.78.0.4 node05,leaf2,10.78.0.5 node06,leaf2,10.78.0.6"
	addrs=$(for n in node01 node02 node03 node04 node05 node06; do
		"$fc" exec "$n" ip -4 -o addr show dev eth1 2>/dev/null | awk '{ print $4 }'; done | paste -sd' ' -)
	if [ "$got" != "$want" ]; then
		notok "$name" "truth_eth1.csv: '$got'"
	elif [ "$addrs" != "10.78.0.1/16 10.78.0.2/16 10.78.0.3/16 10.78.0.4/16 10.78.0.5/16 10.78.0.6/16" ]; then
		notok "$name" "eth1 addresses: '$addrs'"
	else
		ok "$name"
	fi
	name="net2: each network's latency follows its own racks"
	reason=$(bpf_reason)
	if [ -n "$reason" ] || [ -n "$pingpong_reason" ]; then
		skip "$name" "${reason:-$pingpong_reason}"
	else
		start_bg node02 "$pingpong" -s -t 30
		start_bg node04 "$pingpong" -s -t 30
		wait_listen node02 udp 7777
		wait_listen node04 udp 7777
		e0_02=$(p50_us node01 node02) e0_04=$(p50_us node01 node04)
		e1_02=$(p50_us node01 10.78.0.2) e1_04=$(p50_us node01 10.78.0.4)
		echo "# $name: median half-RTT from node01, eth0: node02 $e0_02 us, node04 $e0_04 us; eth1: node02 $e1_02 us, node04 $e1_04 us" >&2
		if [ -n "$e0_02" ] && [ -n "$e0_04" ] && [ -n "$e1_02" ] && [ -n "$e1_04" ] &&
			awk -v a="$e0_02" -v b="$e0_04" -v c="$e1_02" -v d="$e1_04" -v u="$uplink_delay_us" \
				'BEGIN { exit !(a > b + u / 2 && d > c + 40 / 2) }'; then
			ok "$name"
		else
			notok "$name" "eth0: node02 '$e0_02' us, node04 '$e0_04' us; eth1: node02 '$e1_02' us, node04 '$e1_04' us"
		fi
	fi
	name="net2: MPI's traffic over eth1"
	got=$(timeout 60 "$fc" mpirun -np 1 printenv OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include 2>/dev/null | paste -sd' ' -)
	if [ "$got" = "10.78.0.0/16 10.77.0.0/16" ]; then ok "$name"; else notok "$name" "btl and oob networks: '$got'"; fi
fi

# A second tier: 4 leaves under 2 spines under one core (a rebuild, other options).
name="spines: truth.csv has spine column"
if ! "$fc" up --racks 2,2,2,2 --spines 2 "${delay_opts[@]}" >"$tmp/out" 2>&1; then
	notok "$name" "up failed: $(tail -n 3 "$tmp/out" | paste -sd' ' -)"
	skip "spines: cross-spine latency step" "up failed"
else
	got=$(tail -n +2 "$truth" | cut -d, -f1-3 | paste -sd' ' -)
	want="node01,leaf1,spine1 node02,leaf1,spine1 node03,leaf2,spine1 node04,leaf2,spine1"
	want+=" node05,leaf3,spine2 node06,leaf3,spine2 node07,leaf4,spine2 node08,leaf4,spine2"
	if [ "$got" = "$want" ]; then ok "$name"; else notok "$name" "got '$got'"; fi
	# Cross-spine adds the core uplinks twice each way on top of the leaf uplinks.
	latency_step "spines: cross-spine latency step" node03 node05 "$(awk -v d="$core_delay_us" 'BEGIN { print d / 2 }')"
fi

# Rails: 6 nodes in two scalable units of 3, 4 rails; node02's cables of rails 2 and 3 swapped,
# node05's rail 1 port at 1 Gbit/s.
name="rails: truth_rails.csv and the rails' addresses"
rail_opts=(--rails 4 --rail-su 3 --rail-swap node02=2,3 --rail-degrade node05:1=1gbit --rail-uplink-delay-us 20)
[ "$clang_ok" = 1 ] || rail_opts+=(--rail-uplink-delay-us 0)
rail_checks=("rails: a swapped cable's port reaches its rail's peers across the spine"
	"rails: a port probed from every rail of a peer lands in the leaf it is cabled into" "rails: a degraded rail port")
if ! "$fc" up --racks 3,3 "${rail_opts[@]}" "${delay_opts[@]}" >"$tmp/out" 2>&1; then
	notok "$name" "up failed: $(tail -n 3 "$tmp/out" | paste -sd' ' -)"
	for c in "${rail_checks[@]}"; do skip "$c" "up failed"; done
else
	got=$(grep -E '^node0[25],' "$state_dir/truth_rails.csv" | paste -sd' ' -)
	want="node02,rail0,rail0-su1,1,10.80.0.2 node02,rail1,rail1-su1,1,10.81.0.2 node02,rail2,rail3-su1,1,10.82.0.2"
	want+=" node02,rail3,rail2-su1,1,10.83.0.2 node05,rail0,rail0-su2,2,10.80.0.5 node05,rail1,rail1-su2,2,10.81.0.5"
	want+=" node05,rail2,rail2-su2,2,10.82.0.5 node05,rail3,rail3-su2,2,10.83.0.5"
	addrs=$("$fc" exec node02 ip -4 -o addr show 2>/dev/null | awk '$2 ~ /^rail/ { print $2 "=" $4 }' | paste -sd' ' -)
	if [ "$(wc -l < "$state_dir/truth_rails.csv")" != 25 ] || [ "$got" != "$want" ]; then
		notok "$name" "truth_rails.csv: '$got'"
	elif [ "$addrs" != "rail0=10.80.0.2/16 rail1=10.81.0.2/16 rail2=10.82.0.2/16 rail3=10.83.0.2/16" ]; then
		notok "$name" "node02's rails: '$addrs'"
	else
		ok "$name"
	fi
	reason=$(bpf_reason)
	if [ -n "$reason" ] || [ -n "$pingpong_reason" ]; then
		skip "${rail_checks[0]}" "${reason:-$pingpong_reason}"
		skip "${rail_checks[1]}" "${reason:-$pingpong_reason}"
	else
		start_bg node02 "$pingpong" -s -t 30
		start_bg node03 "$pingpong" -s -t 30
		wait_listen node02 udp 7777
		wait_listen node03 udp 7777
		# node01's rail 2 to node03's (one leaf) and to node02's (cabled into rail 3's leaf)
		near=$(p50_us node01 10.82.0.3) far=$(p50_us node01 10.82.0.2)
		echo "# rails: median half-RTT over rail2 from node01: node03 $near us, node02 (swapped) $far us" >&2
		if [ -n "$near" ] && [ -n "$far" ] && awk -v a="$near" -v b="$far" 'BEGIN { exit !(b > a + 20) }'; then
			ok "${rail_checks[0]}"
		else
			notok "${rail_checks[0]}" "node03 '$near' us, node02 '$far' us: wanted a step > 20 us"
		fi
		# node02's rail2 port from each of node01's rails: nearest from rail 3 (the leaf it is in)
		row='' best='' bestv=''
		for r in 0 1 2 3; do
			v=$("$fc" exec node01 "$pingpong" -c 10.82.0.2 -B "10.8$r.0.1" -n 500 -w 50 2>/dev/null |
				sed -n 's/.* p50=\([0-9.]*\).*/\1/p')
			row+=" rail$r=$v"
			if [ -n "$v" ] && { [ -z "$bestv" ] || awk -v a="$v" -v b="$bestv" 'BEGIN { exit !(a + 10 < b) }'; }; then
				best=rail$r bestv=$v
			fi
		done
		echo "# rails: median half-RTT to node02's rail2 port from node01's:$row" >&2
		if [ "$best" = rail3 ] && ! echo "$row" | grep -q '=$\|= '; then
			ok "${rail_checks[1]}"
		else
			notok "${rail_checks[1]}" "from node01's rails:$row (nearest: '$best', wanted rail3)"
		fi
	fi
	if ! have iperf3 || ! grep -qx 'tbf=on' "$state_dir/state"; then
		skip "${rail_checks[2]}" "iperf3 or tbf unavailable"
	else
		slow=$(mbps node04 node05 10.81.0.5) fast=$(mbps node04 node05 10.80.0.5)
		echo "# rails: iperf3 Mbit/s node04 -> node05: rail1 (1gbit) '$slow', rail0 '$fast'" >&2
		if [ -n "$slow" ] && [ -n "$fast" ] && awk -v s="$slow" -v f="$fast" 'BEGIN { exit !(s < 1100 && f > 2 * s) }'; then
			ok "${rail_checks[2]}"
		else
			notok "${rail_checks[2]}" "rail1 '$slow' Mbit/s, rail0 '$fast' Mbit/s"
		fi
	fi
fi

# down must end the processes running in the nodes (by PID), remove every
# namespace, the state directory and any mount of ours.
name="down leaves nothing"
start_bg node04 sleep 300
sleeper=${bg_pids[-1]}
for _ in $(seq 40); do # until it is in node04's namespace (its exec chain takes a moment)
	ip netns pids fp-node04 2>/dev/null | grep -qx "$sleeper" && break
	sleep 0.05
done
if ! ip netns pids fp-node04 2>/dev/null | grep -qx "$sleeper"; then
	notok "$name" "could not start a process on node04 to see down end it"
elif ! "$fc" down >"$tmp/out" 2>&1; then
	notok "$name" "down failed: $(tail -n 1 "$tmp/out")"
else
	left=''
	[ -z "$(our_namespaces)" ] || left+=" namespaces: $(our_namespaces | paste -sd' ' -);"
	[ ! -e "$state_dir" ] || left+=" $state_dir;"
	# A killed child stays a zombie until reaped: alive means not in state Z.
	pstate=$(awk '{ print $3 }' "/proc/$sleeper/stat" 2>/dev/null)
	[ -z "$pstate" ] || [ "$pstate" = Z ] || left+=" process $sleeper;"
	grep -qE 'fabprobe-fakecluster|/run/netns/fp-' /proc/self/mountinfo && left+=" mounts;"
	if [ -z "$left" ]; then ok "$name"; else notok "$name" "left behind:$left"; fi
fi

name="second down is a no-op"
"$fc" down >"$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	notok "$name" "exit $rc: $(tail -n 1 "$tmp/out")"
elif ! grep -q 'no cluster up' "$tmp/out"; then
	notok "$name" "it did not say 'no cluster up': $(tail -n 1 "$tmp/out")"
else
	ok "$name"
fi

[ "$FAILED" -eq 0 ]
