#!/usr/bin/env bash
# fakecluster.sh: an emulated leaf/spine cluster on one machine (docs/emulated-cluster.md).
#
# One network namespace per node (fp-node01, ...) and per switch (fp-leaf1, ...,
# fp-spine or fp-spine1.., fp-core), each switch a Linux bridge, joined by veth
# pairs into one flat L2 subnet. tbf shapes node links and uplinks; a tc-BPF
# program busy-waits on every packet crossing an uplink, because this kernel has
# no netem and bridge hops alone add only 1-2 us. Nothing is added to the root
# namespace's network; all state lives in /run/fabprobe-fakecluster/ so that any
# clone (CI uses a fresh one) finds and removes a cluster an earlier run left up.
set -euo pipefail

readonly STATE_DIR=/run/fabprobe-fakecluster
readonly STATE=$STATE_DIR/state          # what up created, one key=value a line
readonly TRUTH=$STATE_DIR/truth.csv      # host,rack,spine,ip
readonly TRUTH2=$STATE_DIR/truth_eth1.csv # the same for the second network (--net2)
readonly HOSTS=$STATE_DIR/hosts          # bind-mounted over /etc/hosts in nodes
readonly HOSTFILE=$STATE_DIR/hostfile    # Open MPI hostfile, rewritten by mpirun
readonly BUILD=$STATE_DIR/build          # compiled BPF objects
readonly NETNS_DIR=/run/netns            # where iproute2 keeps named namespaces
readonly NS_PREFIX=fp-
readonly SUBNET=10.77.0.0/16
readonly SUBNET2=10.78.0.0/16             # the second network's (eth1, --net2)
readonly NS2_PREFIX=fp-b-                 # its switches: fp-b-leaf1, ..., fp-b-spine
readonly PREFIX_LEN=16
readonly PROG=${0##*/}
LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/fakecluster
readonly LIBDIR
# shellcheck source=scripts/fakecluster/slurm.sh
. "$LIBDIR/slurm.sh"
# shellcheck source=scripts/fakecluster/rails.sh
. "$LIBDIR/rails.sh"

usage() {
	cat <<EOF
usage: $PROG up --racks N[,N...] [options]   build the cluster (root)
       $PROG down                            remove it (no-op when none is up)
       $PROG status                          print it; exit 1 when none is up
       $PROG exec NODE CMD [ARG...]          run CMD on NODE (its netns, hostname, /etc/hosts)
       $PROG exec head CMD [ARG...]          with --slurm: run CMD on the head (login) node, with
                                             SLURM_CONF and Open MPI's cluster settings set
       $PROG mpirun [--slots N] [MPIRUN-ARGS...]
                                             Open MPI's mpirun over the nodes, HNP on node01

up options:
  --racks N[,N...]       nodes per rack (leaf switch), each >= 1; nodes are named
                         node01, node02, ... across racks in order (required)
  --spines N|N[,N...]    add a tier: N spines with the leaves split evenly and in
                         order among them (or a list of leaves per spine), all
                         under one core switch. Default: one spine, no core.
  --node-rate RATE       tbf rate of each node link, both directions (default 10gbit)
  --uplink-rate RATE     tbf rate of each leaf-spine uplink, both directions (default 1gbit)
  --uplink-delay-us N    busy-wait per packet on each uplink end's egress (default 25; 0 = none)
  --core-rate RATE       tbf rate of each spine-core uplink (default: the uplink rate)
  --core-delay-us N      per-packet delay on spine-core uplinks (default 50; 0 = none)
  --degrade NODE=RATE    give NODE's link RATE instead (repeatable)
  --degrade-uplink RACK=RATE
                         give rack RACK's leaf uplink RATE instead (repeatable): a slow uplink
  --pair-jitter N        half the pairs of nodes (at random by their addresses, the same
                         both ways) pay N us more each way: pair offsets that follow no
                         switch, as ECMP paths and cable lengths give (default 0 = none)
  --pair-seed N          which half (default 1)
  --place NODE=RACK      put NODE in rack RACK (1-based) instead of where --racks and
                         --interleave put it (repeatable): "one node moved to another rack"
  --interleave           number the nodes across racks in turn (node01 in rack 1, node02
                         in rack 2, ...), so that names say nothing about the topology
  --net2 N[,N...]        a second network on every node, eth1 on $SUBNET2 (the compute or
                         "backend" fabric of a GPU cluster, beside eth0's front end): its
                         own leaf switches of N nodes each, the nodes in name order (so the
                         grouping differs from eth0's when --interleave deals those), one
                         spine; Open MPI's traffic then goes over it (OOB stays on eth0).
                         Ground truth: $TRUTH2
  --net2-interleave      deal the nodes across its racks in turn instead (node01 in its
                         rack 1, node02 in its rack 2, ...)
  --net2-node-rate RATE  its node links (default 10gbit)
  --net2-uplink-rate RATE
                         its leaf-spine uplinks (default 10gbit)
  --net2-uplink-delay-us N
                         its per-packet uplink delay (default 10; 0 = none)
  --rails R              R more interfaces on every node, rail0 .. rail<R-1> (R <= 16), the
                         rails of a GPU cluster's compute fabric: rail i of every node of a
                         scalable unit under that unit's rail leaf i, the rail leaves under one
                         rail spine; rail i on 10.(80+i).0.0/16. Ground truth: truth_rails.csv
  --rail-su N            nodes per scalable unit, in name order (default: all)
  --rail-swap NODE=I,J   NODE's cables of rails I and J exchanged (repeatable)
  --rail-degrade NODE:I=RATE
                         NODE's rail I port at RATE (repeatable)
  --rail-shared NODE=RATE
                         every rail of NODE through one link of RATE each way, as NICs behind
                         one PCIe switch uplink (repeatable; truth_rails_shared.csv)
  --rail-rate RATE       each rail port's rate (default 4gbit: 4 rails at once stay
                         within what 2 cores move)
  --rail-uplink-rate RATE
                         each rail leaf's uplink (default 10gbit)
  --rail-uplink-delay-us N
                         per-packet delay on the rail uplinks (default 10; 0 = none)
  --slurm                run Slurm on it: a head node (fp-head, 'head', $HEAD_IP) on the
                         top switch with munged and slurmctld, a slurmd on every node,
                         partition 'all' over the nodes, TopologyPlugin=topology/tree
                         with one switch until you install another topology.conf into
                         $SLURM_DIR/etc/ (then: exec head scontrol reconfigure).
                         Use it from the head: $PROG exec head srun -N 8 --mpi=pmix ...
RATE is a number with bit, kbit, mbit or gbit (tc's units), e.g. 500mbit.

A second 'up' with the same options does nothing; with other options it rebuilds.
State, ground truth ($TRUTH: host,rack,spine,ip) and the
hosts file live in $STATE_DIR/. Nodes are on $SUBNET.
Exit: 0 ok, 1 failure, 2 usage error, not root or a tool missing.
For tests only: FAKECLUSTER_TEST_FAIL_AT=NAMESPACE makes 'up' fail once it has
created that namespace (e.g. fp-node02), to check that a failed up cleans up.
EOF
}

# --- messages and preconditions ---------------------------------------------

warn() { echo "$PROG: warning: $*" >&2; }
die() { echo "$PROG: $*" >&2; exit 1; }
die_usage() { echo "$PROG: $*" >&2; echo "try '$PROG --help'" >&2; exit 2; }

need_root() {
	[ "$(id -u)" -eq 0 ] ||
		{ echo "$PROG: must run as root (network namespaces, tc, BPF and mounts need it)" >&2; exit 2; }
}

# need_tool COMMAND PACKAGE: exit 2 naming the Debian package when COMMAND is absent.
need_tool() {
	command -v "$1" >/dev/null 2>&1 ||
		{ echo "$PROG: '$1' not found: install the Debian package '$2' (apt-get install $2)" >&2; exit 2; }
}

need_base_tools() {
	need_tool ip iproute2
	need_tool tc iproute2
	need_tool bridge iproute2
	need_tool unshare util-linux
	need_tool setsid util-linux
	need_tool flock util-linux
	need_tool mount mount
}

# lock_cluster: serialises up and down between concurrent callers (two clones,
# a test and a person). The lock is taken on /run itself, so that there is no
# lock file to create or leave behind; released when the script exits.
lock_cluster() {
	exec {lock_fd}</run
	flock -w 120 "$lock_fd" || die "another up or down has held the lock (flock /run) for 2 minutes"
}

# Prints the first clang found (Debian installs versioned names such as clang-14).
find_clang() {
	local c
	for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
		command -v "$c" >/dev/null 2>&1 && { echo "$c"; return 0; }
	done
	return 1
}

# --- state file ---------------------------------------------------------------

state_add() { echo "$1=$2" >>"$STATE"; }
# state_get KEY: value of the first KEY= line (empty when absent).
state_get() { if [ -f "$STATE" ]; then sed -n "/^$1=/{s/^$1=//p;q;}" "$STATE"; fi; }
# state_all KEY: every value of KEY, one a line, in the order written.
state_all() { if [ -f "$STATE" ]; then sed -n "s/^$1=//p" "$STATE"; fi; }
cluster_is_up() { [ "$(state_get complete)" = 1 ]; }

# --- option parsing and validation ---------------------------------------------

# rate_bits RATE: prints RATE in bit/s, fails when RATE is not number+unit.
rate_bits() {
	local r=${1,,}
	[[ $r =~ ^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit)$ ]] || return 1
	awk -v n="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" 'BEGIN {
		m = (u == "gbit") ? 1e9 : (u == "mbit") ? 1e6 : (u == "kbit") ? 1e3 : 1
		if (n * m < 8000) exit 1
		printf "%.0f\n", n * m }'
}

check_rate() { rate_bits "$2" >/dev/null || die_usage "$1: '$2' is not a rate such as 10gbit or 500mbit (at least 8kbit)"; }

check_delay() {
	[[ $2 =~ ^[0-9]+$ ]] && [ "$2" -le 10000 ] && return
	die_usage "$1: '$2' is not a whole number of microseconds in 0..10000"
}

# Sets the opt_* globals from the command line of 'up' and derives the layout:
# node_names[], node_rack[] (1-based), rack_spine[] (1-based, 0 = single spine).
parse_up() {
	opt_racks='' opt_spines='' opt_node_rate=10gbit opt_uplink_rate=1gbit
	opt_uplink_delay_us=25 opt_core_rate='' opt_core_delay_us=50 opt_degrade=() opt_interleave=0
	opt_degrade_uplink=() opt_place=() opt_pair_jitter=0 opt_pair_seed=1
	opt_slurm=0 opt_net2='' opt_net2_interleave=0 opt_net2_node_rate=10gbit opt_net2_uplink_rate=10gbit opt_net2_uplink_delay_us=10
	opt_rails='' opt_rail_su='' opt_rail_rate=4gbit opt_rail_uplink_rate=10gbit opt_rail_uplink_delay_us=10
	opt_rail_swap=() opt_rail_degrade=() opt_rail_shared=() opt_rail_rate_set=''
	while [ $# -gt 0 ]; do
		case $1 in
		--racks | --spines | --node-rate | --uplink-rate | --uplink-delay-us | --core-rate | \
			--core-delay-us | --degrade | --degrade-uplink | --place | --pair-jitter | --pair-seed | --net2 | --net2-node-rate | \
			--net2-uplink-rate | --net2-uplink-delay-us | --rails | --rail-su | --rail-swap | --rail-degrade | \
			--rail-shared | --rail-rate | --rail-uplink-rate | --rail-uplink-delay-us)
			[ $# -ge 2 ] || die_usage "$1 needs a value"
			local key=${1#--}
			key=opt_${key//-/_}
			case $key in
			opt_degrade) opt_degrade+=("$2") ;;
			opt_degrade_uplink) opt_degrade_uplink+=("$2") ;;
			opt_place) opt_place+=("$2") ;;
			opt_rail_swap) opt_rail_swap+=("$2") ;;
			opt_rail_degrade) opt_rail_degrade+=("$2") ;;
			opt_rail_shared) opt_rail_shared+=("$2") ;;
			opt_rail_rate | opt_rail_uplink_rate | opt_rail_uplink_delay_us) printf -v "$key" %s "$2"; opt_rail_rate_set=1 ;;
			*) printf -v "$key" %s "$2" ;;
			esac
			shift 2 ;;
		--interleave) opt_interleave=1; shift ;;
		--net2-interleave) opt_net2_interleave=1; shift ;;
		--slurm) opt_slurm=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) die_usage "up: unknown option '$1'" ;;
		esac
	done
	[ -n "$opt_racks" ] || die_usage "up: --racks is required (e.g. --racks 3,3,2)"
	[[ $opt_racks =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
		die_usage "--racks: '$opt_racks' is not a list of node counts >= 1 such as 3,3,2"
	check_rate --node-rate "$opt_node_rate"
	check_rate --uplink-rate "$opt_uplink_rate"
	[ -n "$opt_core_rate" ] || opt_core_rate=$opt_uplink_rate
	check_rate --core-rate "$opt_core_rate"
	check_delay --uplink-delay-us "$opt_uplink_delay_us"
	check_delay --core-delay-us "$opt_core_delay_us"
	check_delay --pair-jitter "$opt_pair_jitter"
	[[ $opt_pair_seed =~ ^[0-9]{1,9}$ ]] || die_usage "--pair-seed: '$opt_pair_seed' is not a whole number (up to 9 digits)"
	layout_nodes
	place_nodes
	layout_spines
	layout_net2
	local d
	for d in "${opt_degrade[@]+"${opt_degrade[@]}"}"; do
		[[ $d == ?*=?* ]] || die_usage "--degrade: '$d' is not NODE=RATE"
		node_index "${d%%=*}" >/dev/null || die_usage "--degrade: no node '${d%%=*}' (nodes are ${node_names[0]}..${node_names[-1]})"
		check_rate --degrade "${d#*=}"
	done
	for d in "${opt_degrade_uplink[@]+"${opt_degrade_uplink[@]}"}"; do
		[[ $d =~ ^[1-9][0-9]*=.+$ ]] || die_usage "--degrade-uplink: '$d' is not RACK=RATE (a rack number from 1)"
		[ "${d%%=*}" -le "$nracks" ] || die_usage "--degrade-uplink: no rack ${d%%=*} (racks are 1..$nracks)"
		check_rate --degrade-uplink "${d#*=}"
	done
	# One canonical line: a second 'up' compares it to decide between no-op and rebuild.
	local sorted_degrade
	sorted_degrade=$(printf '%s\n' "${opt_degrade[@]+"${opt_degrade[@]}"}" | sort | paste -sd, -)
	canonical="racks=$opt_racks spines=$opt_spines node_rate=${opt_node_rate,,}"
	canonical+=" uplink_rate=${opt_uplink_rate,,} uplink_delay_us=$opt_uplink_delay_us"
	if [ -n "$opt_spines" ]; then
		canonical+=" core_rate=${opt_core_rate,,} core_delay_us=$opt_core_delay_us"
	fi
	canonical+=" degrade=${sorted_degrade,,} interleave=$opt_interleave"
	if [ ${#opt_degrade_uplink[@]} -gt 0 ]; then
		canonical+=" degrade_uplink=$(printf '%s\n' "${opt_degrade_uplink[@]}" | sort | paste -sd, -)"
	fi
	if [ ${#opt_place[@]} -gt 0 ]; then
		canonical+=" place=$(printf '%s\n' "${opt_place[@]}" | sort | paste -sd, -)"
	fi
	[ "$opt_pair_jitter" = 0 ] || canonical+=" pair_jitter_us=$opt_pair_jitter pair_seed=$opt_pair_seed"
	if [ -n "$opt_net2" ]; then
		canonical+=" net2=$opt_net2 net2_node_rate=${opt_net2_node_rate,,} net2_uplink_rate=${opt_net2_uplink_rate,,}"
		canonical+=" net2_uplink_delay_us=$opt_net2_uplink_delay_us net2_interleave=$opt_net2_interleave"
	fi
	rails_parse
	[ "$opt_slurm" = 0 ] || canonical+=" slurm=1"
}

# layout_net2: node_rack2[i] for --net2 (1-based): the nodes in name order over its racks, or
# dealt across them (--net2-interleave).
layout_net2() {
	local counts r total=0
	node_rack2=() nracks2=0
	[ -n "$opt_net2" ] || return 0
	[[ $opt_net2 =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
		die_usage "--net2: '$opt_net2' is not a list of node counts >= 1 such as 4,4,4"
	IFS=, read -ra counts <<<"$opt_net2"
	for r in "${counts[@]}"; do total=$((total + r)); done
	[ "$total" -eq "${#node_names[@]}" ] ||
		die_usage "--net2 $opt_net2: $total nodes, but --racks has ${#node_names[@]}"
	check_rate --net2-node-rate "$opt_net2_node_rate"
	check_rate --net2-uplink-rate "$opt_net2_uplink_rate"
	check_delay --net2-uplink-delay-us "$opt_net2_uplink_delay_us"
	deal_racks "$opt_net2" "$opt_net2_interleave"
	node_rack2=("${dealt[@]}")
	nracks2=${#counts[@]}
}

layout_nodes() {
	local counts total=0 width r k
	IFS=, read -ra counts <<<"$opt_racks"
	for r in "${counts[@]}"; do total=$((total + r)); done
	[ "$total" -le 1000 ] || die_usage "--racks: $total nodes is more than this script supports (1000)"
	width=${#total}
	[ "$width" -ge 2 ] || width=2
	node_names=()
	for ((k = 1; k <= total; k++)); do node_names+=("$(printf "node%0${width}d" "$k")"); done
	# --interleave deals the numbers across the racks like cards: node01 in rack 1, node02 in
	# rack 2, ..., so that names say nothing about the racks
	deal_racks "$opt_racks" "$opt_interleave"
	node_rack=("${dealt[@]}")
	nracks=${#counts[@]}
}

# deal_racks N[,N...] TURNS: dealt[i], the rack (1-based) of the node of index i: the racks
# filled in order, or (TURNS 1) the nodes dealt across them in turn.
deal_racks() {
	local counts r i k=0 total=0
	IFS=, read -ra counts <<<"$1"
	for r in "${counts[@]}"; do total=$((total + r)); done
	dealt=()
	if [ "$2" = 1 ]; then
		local left=("${counts[@]}")
		while [ "$k" -lt "$total" ]; do
			for r in "${!left[@]}"; do
				[ "${left[r]}" -gt 0 ] || continue
				left[r]=$((left[r] - 1))
				dealt[k]=$((r + 1))
				k=$((k + 1))
			done
		done
	else
		for r in "${!counts[@]}"; do
			for ((i = 0; i < counts[r]; i++)); do
				dealt[k]=$((r + 1))
				k=$((k + 1))
			done
		done
	fi
}

# place_nodes: --place NODE=RACK moves NODE into RACK (the racks keep their leaf switches,
# so a rack may end up empty: a leaf with no nodes).
place_nodes() {
	local p node rack i
	for p in "${opt_place[@]+"${opt_place[@]}"}"; do
		[[ $p =~ ^([^=]+)=([1-9][0-9]*)$ ]] || die_usage "--place: '$p' is not NODE=RACK (a rack number from 1)"
		node=${BASH_REMATCH[1]} rack=${BASH_REMATCH[2]}
		i=$(node_index "$node") || die_usage "--place: no node '$node' (nodes are ${node_names[0]}..${node_names[-1]})"
		[ "$rack" -le "$nracks" ] || die_usage "--place $p: there are $nracks racks"
		node_rack[i]=$rack
	done
}

# rack_spine[r] for r = 1..nracks: its spine (1-based), or 0 when there is one spine only.
layout_spines() {
	local r s n
	rack_spine=(0)
	nspines=0
	if [ -z "$opt_spines" ]; then
		for ((r = 1; r <= nracks; r++)); do rack_spine+=(0); done
		return
	fi
	if [[ $opt_spines =~ ^[1-9][0-9]*$ ]]; then
		nspines=$opt_spines
		[ "$nspines" -le "$nracks" ] || die_usage "--spines $nspines: more spines than the $nracks racks"
		for ((r = 1; r <= nracks; r++)); do rack_spine+=($(((r - 1) * nspines / nracks + 1))); done
	elif [[ $opt_spines =~ ^[1-9][0-9]*(,[1-9][0-9]*)+$ ]]; then
		local per
		IFS=, read -ra per <<<"$opt_spines"
		nspines=${#per[@]}
		for s in "${!per[@]}"; do
			for ((n = 0; n < per[s]; n++)); do rack_spine+=($((s + 1))); done
		done
		[ $((${#rack_spine[@]} - 1)) -eq "$nracks" ] ||
			die_usage "--spines $opt_spines: lists $((${#rack_spine[@]} - 1)) leaves but there are $nracks racks"
	else
		die_usage "--spines: '$opt_spines' is not a count or a list of leaves per spine"
	fi
}

# node_index NAME: prints the 0-based index of node NAME, fails when unknown.
node_index() {
	local i
	for i in "${!node_names[@]}"; do
		[ "${node_names[i]}" = "$1" ] && { echo "$i"; return 0; }
	done
	return 1
}

node_ip() { echo "10.77.$((($1 + 1) / 256)).$((($1 + 1) % 256))"; }
# btl_subnet: where MPI's traffic goes: the second network (the compute fabric) when there is
# one, else the only one; Open MPI's daemons stay on eth0 (the management network)
btl_subnet() { if [ "$(state_get net2)" = 1 ]; then echo "$SUBNET2"; else echo "$SUBNET"; fi; }
node_ip2() { echo "10.78.$((($1 + 1) / 256)).$((($1 + 1) % 256))"; }

node_rate() {
	local d rate=$opt_node_rate
	for d in "${opt_degrade[@]+"${opt_degrade[@]}"}"; do
		[ "${d%%=*}" = "$1" ] && rate=${d#*=}
	done
	echo "$rate"
}

# --- building blocks ---------------------------------------------------------------

# ns_add NAME: a fresh namespace with loopback up and IPv6 off (so no router
# solicitations or MLD reports wander through the delayed uplinks).
ns_add() {
	# Listed before it exists: a signal between the two steps must not leave an
	# unlisted namespace (down skips listed ones that do not exist).
	state_add netns "$1"
	ip netns add "$1"
	if [ "${FAKECLUSTER_TEST_FAIL_AT:-}" = "$1" ]; then
		echo "$PROG: failing on purpose after creating $1 (FAKECLUSTER_TEST_FAIL_AT)" >&2
		return 1
	fi
	ip -n "$1" link set lo up
	# shellcheck disable=SC2016 # $p is the inner shell's
	ip netns exec "$1" sh -c 'p=/proc/sys/net/ipv6/conf
		[ -d $p ] || exit 0
		echo 1 >$p/default/disable_ipv6 && echo 1 >$p/all/disable_ipv6'
}

switch_add() {
	ns_add "$1"
	switches+=("$1")
	ip -n "$1" link add name br0 type bridge stp_state 0
	ip -n "$1" link set br0 up
}

# link_add NS_A DEV_A NS_B DEV_B: veth pair between two namespaces, both ends up;
# an end in a switch namespace becomes a port of its bridge.
link_add() {
	ip -n "$1" link add name "$2" type veth peer name "$4" netns "$3"
	local ns dev
	for ns in "$1" "$3"; do
		[ "$ns" = "$1" ] && dev=$2 || dev=$4
		if ip -n "$ns" link show br0 >/dev/null 2>&1; then
			ip -n "$ns" link set "$dev" master br0
		fi
		ip -n "$ns" link set "$dev" up
	done
}

# shape NS DEV RATE: tbf on DEV's egress. The burst is 1 ms of traffic but at
# least 128 KiB, so that 64 KiB GSO packets from the veths pass whole.
shape() {
	local bits burst
	bits=$(rate_bits "$3")
	burst=$((bits / 8 / 1000))
	[ "$burst" -ge 131072 ] || burst=131072
	if ! tc -n "$1" qdisc replace dev "$2" root tbf rate "$3" burst "$burst" latency 5ms 2>"$BUILD/tc.err"; then
		[ "$tbf_ok" = 1 ] && warn "tbf unavailable ($(head -n 1 "$BUILD/tc.err")): links are not rate-limited"
		tbf_ok=0
	fi
}

# delay NS DEV US [OBJ]: the BPF busy-wait on DEV's egress (nothing when US is 0
# or BPF turned out unusable: then only bandwidth separates the tiers).
delay() {
	[ "$3" -gt 0 ] && [ "$bpf_ok" = 1 ] || return 0
	local obj=${4:-$BUILD/delay-${3}us.o}
	if ! { tc -n "$1" qdisc add dev "$2" clsact &&
		tc -n "$1" filter add dev "$2" egress bpf da obj "$obj" sec tc; } >"$BUILD/tc.err" 2>&1; then
		warn "BPF delay unavailable (tc: $(grep -m 1 -iE 'error|invalid|fail' "$BUILD/tc.err" || head -n 1 "$BUILD/tc.err")):" \
			"continuing with bandwidth-only separation of racks"
		bpf_ok=0
	fi
}

# build_delay_objects: one BPF object per distinct delay, the delay compiled in
# (tc's loader has no simple way to pass a parameter).
build_delay_objects() {
	bpf_ok=1
	local us clang arch
	[ "$opt_uplink_delay_us" -gt 0 ] || { [ -n "$opt_spines" ] && [ "$opt_core_delay_us" -gt 0 ]; } ||
		[ "$opt_pair_jitter" -gt 0 ] || { [ -n "$opt_net2" ] && [ "$opt_net2_uplink_delay_us" -gt 0 ]; } ||
		{ [ -n "$opt_rails" ] && [ "$opt_rail_uplink_delay_us" -gt 0 ]; } || return 0
	clang=$(find_clang) || { echo "$PROG: clang not found: install the Debian package 'clang'" \
		"(or pass --uplink-delay-us 0 --core-delay-us 0 for bandwidth-only separation)" >&2; exit 2; }
	[ -f /usr/include/bpf/bpf_helpers.h ] || { echo "$PROG: bpf/bpf_helpers.h not found: install the" \
		"Debian package 'libbpf-dev' (or pass --uplink-delay-us 0 --core-delay-us 0)" >&2; exit 2; }
	# linux/bpf.h includes asm/types.h, which Debian keeps under the multiarch directory.
	arch=$("$clang" -print-multiarch 2>/dev/null || true)
	[ -n "$arch" ] || arch=$(uname -m)-linux-gnu
	for us in "$opt_uplink_delay_us" "$opt_core_delay_us" "$opt_net2_uplink_delay_us" "$opt_rail_uplink_delay_us"; do
		if [ "$us" -eq 0 ] || [ -f "$BUILD/delay-${us}us.o" ]; then continue; fi
		"$clang" -O2 -g -target bpf -I"/usr/include/$arch" -DDELAY_NS="${us}000ULL" \
			-c "$LIBDIR/delay.bpf.c" -o "$BUILD/delay-${us}us.o" ||
			die "compiling $LIBDIR/delay.bpf.c failed"
	done
	if [ "$opt_pair_jitter" -gt 0 ]; then
		"$clang" -O2 -g -target bpf -I"/usr/include/$arch" -DPAIR_NS="${opt_pair_jitter}000ULL" \
			-DPAIR_SEED="${opt_pair_seed}ULL" -c "$LIBDIR/delay.bpf.c" -o "$BUILD/pair.o" ||
			die "compiling $LIBDIR/delay.bpf.c (pair offsets) failed"
	fi
}

# uplink NS_LOW NS_HIGH RATE DELAY_US: the link from a lower switch to the one
# above; rate and delay on both ends' egress so both directions pay them.
uplink() {
	local port=${1#"$NS_PREFIX"}
	link_add "$1" uplink "$2" "$port"
	shape "$1" uplink "$3"
	shape "$2" "$port" "$3"
	delay "$1" uplink "$4"
	delay "$2" "$port" "$4"
}

# --- up -----------------------------------------------------------------------

cmd_up() {
	parse_up "$@"
	need_root
	need_base_tools
	[ "$opt_slurm" = 0 ] || slurm_need_tools
	lock_cluster
	if cluster_is_up && [ "$(state_get options)" = "$canonical" ] && all_namespaces_exist &&
		{ [ "$opt_slurm" = 0 ] || slurm_alive; }; then
		echo "$PROG: already up with the same options ($canonical)"
		return 0
	fi
	if [ -d "$STATE_DIR" ]; then
		echo "$PROG: a cluster with other options (or a half-built one) is up: removing it first"
		do_down
	fi
	refuse_unknown_namespaces
	mkdir -p "$BUILD"
	: >"$STATE"
	state_add version 1
	if [ -d "$NETNS_DIR" ]; then state_add netns_dir existing; else state_add netns_dir created; fi
	up_done=0
	set -E # so that the ERR trap names a failing command inside functions too
	trap 'echo "$PROG: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR
	trap up_cleanup EXIT
	trap 'exit 130' INT TERM
	state_add options "$canonical"
	build_delay_objects
	tbf_ok=1
	build_fabric
	write_truth_and_hosts
	rails_truth
	if [ "$opt_slurm" = 1 ]; then
		slurm_up "$([ -n "$opt_spines" ] && echo "${NS_PREFIX}core" || echo "${NS_PREFIX}spine")"
	fi
	state_add bpf_delay "$([ "$bpf_ok" = 1 ] && echo on || echo off)"
	state_add tbf "$([ "$tbf_ok" = 1 ] && echo on || echo off)"
	state_add complete 1
	up_done=1
	trap - EXIT INT TERM ERR
	echo "$PROG: up: ${#node_names[@]} nodes in $nracks racks ($canonical)"
}

up_cleanup() {
	local rc=$?
	[ "${up_done:-0}" = 1 ] && return
	trap - EXIT INT TERM ERR
	echo "$PROG: up failed: removing what it built" >&2
	set +e
	do_down >/dev/null
	exit $((rc == 0 ? 1 : rc))
}

all_namespaces_exist() {
	local ns
	for ns in $(state_all netns); do
		[ -e "$NETNS_DIR/$ns" ] || return 1
	done
}

# A namespace with our prefix that no state file lists is not ours to delete.
refuse_unknown_namespaces() {
	local stray
	stray=$(ip netns list | awk -v p="^$NS_PREFIX" '$1 ~ p { print $1 }' | paste -sd' ' -)
	[ -z "$stray" ] || die "namespaces $stray exist but $STATE does not list them;" \
		"remove them by hand if they are left from an old run: for n in $stray; do ip netns del \$n; done"
}

# uplink_rate_of RACK: its leaf's uplink rate (--degrade-uplink, else --uplink-rate)
uplink_rate_of() {
	local d rate=$opt_uplink_rate
	for d in "${opt_degrade_uplink[@]+"${opt_degrade_uplink[@]}"}"; do
		[ "${d%%=*}" = "$1" ] && rate=${d#*=}
	done
	echo "$rate"
}

build_fabric() {
	local top r s i node ns
	switches=()
	if [ -n "$opt_spines" ]; then
		top=${NS_PREFIX}core
		switch_add "$top"
		for ((s = 1; s <= nspines; s++)); do
			switch_add "${NS_PREFIX}spine$s"
			uplink "${NS_PREFIX}spine$s" "$top" "$opt_core_rate" "$opt_core_delay_us"
		done
	else
		switch_add "${NS_PREFIX}spine"
	fi
	for ((r = 1; r <= nracks; r++)); do
		switch_add "${NS_PREFIX}leaf$r"
		if [ -n "$opt_spines" ]; then top=${NS_PREFIX}spine${rack_spine[r]}; else top=${NS_PREFIX}spine; fi
		uplink "${NS_PREFIX}leaf$r" "$top" "$(uplink_rate_of "$r")" "$opt_uplink_delay_us"
	done
	for i in "${!node_names[@]}"; do
		node=${node_names[i]}
		ns=$NS_PREFIX$node
		ns_add "$ns"
		link_add "$ns" eth0 "${NS_PREFIX}leaf${node_rack[i]}" "$node"
		ip -n "$ns" addr add "$(node_ip "$i")/$PREFIX_LEN" dev eth0
		shape "$ns" eth0 "$(node_rate "$node")"
		delay "$ns" eth0 "$opt_pair_jitter" "$BUILD/pair.o"
		shape "${NS_PREFIX}leaf${node_rack[i]}" "$node" "$(node_rate "$node")"
	done
	[ -z "$opt_net2" ] || build_net2
	[ -z "$opt_rails" ] || build_rails
	wait_forwarding
}

# build_net2: the second network, eth1 on every node: leaves under one spine of its own.
build_net2() {
	local r i node
	switch_add "${NS2_PREFIX}spine"
	for ((r = 1; r <= nracks2; r++)); do
		switch_add "${NS2_PREFIX}leaf$r"
		uplink "${NS2_PREFIX}leaf$r" "${NS2_PREFIX}spine" "$opt_net2_uplink_rate" "$opt_net2_uplink_delay_us"
	done
	for i in "${!node_names[@]}"; do
		node=${node_names[i]}
		link_add "$NS_PREFIX$node" eth1 "${NS2_PREFIX}leaf${node_rack2[i]}" "$node"
		ip -n "$NS_PREFIX$node" addr add "$(node_ip2 "$i")/$PREFIX_LEN" dev eth1
		shape "$NS_PREFIX$node" eth1 "$opt_net2_node_rate"
		shape "${NS2_PREFIX}leaf${node_rack2[i]}" "$node" "$opt_net2_node_rate"
	done
}

# wait_forwarding: returns once every bridge port forwards. A port moves to
# forwarding on its carrier event, which the kernel's linkwatch may hold back
# for up to a second (seen on a bridge's first port): traffic sent before then
# is dropped, and a test that starts at once reads it as a dead link.
wait_forwarding() {
	local ns blocked
	for _ in $(seq 50); do
		blocked=''
		for ns in "${switches[@]}"; do
			blocked+=$(bridge -n "$ns" link show | sed -n "/state forwarding/!s/^/$ns: /p")
		done
		[ -n "$blocked" ] || return 0
		sleep 0.1
	done
	warn "bridge ports still not forwarding after 5 s: $blocked"
}

write_truth_and_hosts() {
	local i spine
	echo "host,rack,spine,ip" >"$TRUTH"
	printf '127.0.0.1\tlocalhost\n' >"$HOSTS"
	for i in "${!node_names[@]}"; do
		spine=''
		[ -z "$opt_spines" ] || spine=spine${rack_spine[node_rack[i]]}
		echo "${node_names[i]},leaf${node_rack[i]},$spine,$(node_ip "$i")" >>"$TRUTH"
		printf '%s\t%s\n' "$(node_ip "$i")" "${node_names[i]}" >>"$HOSTS"
	done
	[ -n "$opt_net2" ] || return 0
	echo "host,rack,spine,ip" >"$TRUTH2"
	for i in "${!node_names[@]}"; do
		echo "${node_names[i]},leaf${node_rack2[i]},,$(node_ip2 "$i")" >>"$TRUTH2"
	done
	state_add net2 1
}

# --- down ---------------------------------------------------------------------

cmd_down() {
	case ${1:-} in
	'') ;;
	-h | --help) usage; return 0 ;;
	*) die_usage "down takes no arguments" ;;
	esac
	need_root
	need_tool ip iproute2
	need_tool flock util-linux
	lock_cluster
	if [ ! -d "$STATE_DIR" ]; then
		echo "$PROG: no cluster up"
		local stray
		stray=$(ip netns list | awk -v p="^$NS_PREFIX" '$1 ~ p { print $1 }' | paste -sd' ' -)
		[ -z "$stray" ] || warn "namespaces $stray are not listed in any state file; left alone"
		return 0
	fi
	do_down
	echo "$PROG: down"
}

# Removes what the state file lists, processes first (by PID: TERM, then KILL
# after 5 s, time for an mpirun to take its daemons down and clean its session
# directory), then namespaces (which takes their veths, qdiscs and BPF filters
# with them), then the state.
do_down() {
	local ns pids pid
	local -a all
	[ "$(state_get slurm)" != 1 ] || slurm_down
	mapfile -t all < <(state_all netns)
	pids=$(cluster_pids "${all[@]+"${all[@]}"}")
	if [ -n "$pids" ]; then
		echo "$PROG: ending processes still running in the cluster: ${pids//$'\n'/ }" >&2
		for pid in $pids; do kill -TERM "$pid" 2>/dev/null || true; done
		for _ in $(seq 25); do
			pids=$(cluster_pids "${all[@]+"${all[@]}"}")
			[ -n "$pids" ] || break
			sleep 0.2
		done
		for pid in $pids; do kill -KILL "$pid" 2>/dev/null || true; done
	fi
	for ns in "${all[@]+"${all[@]}"}"; do
		[ ! -e "$NETNS_DIR/$ns" ] || ip netns del "$ns" || warn "could not delete namespace $ns"
	done
	# iproute2 turns /run/netns into a mount point on first use; undo that only if
	# we caused it and no other namespace is there now.
	if [ "$(state_get netns_dir)" = created ] && [ -d "$NETNS_DIR" ] && [ -z "$(ls -A "$NETNS_DIR")" ]; then
		umount "$NETNS_DIR" 2>/dev/null || true
		rmdir "$NETNS_DIR" 2>/dev/null || true
	fi
	rm -rf "$STATE_DIR"
}

# cluster_pids NS...: PIDs of the processes in these namespaces, but this one.
cluster_pids() {
	local ns
	for ns in "$@"; do
		[ ! -e "$NETNS_DIR/$ns" ] || ip netns pids "$ns" 2>/dev/null || true
	done | grep -vx -e "$$" || true
}

# --- status -------------------------------------------------------------------

cmd_status() {
	case ${1:-} in
	'') ;;
	-h | --help) usage; return 0 ;;
	*) die_usage "status takes no arguments" ;;
	esac
	if ! cluster_is_up; then
		echo "no cluster up"
		return 1
	fi
	local opts host rack spine ip ns
	opts=$(state_get options)
	echo "fakecluster up (state in $STATE_DIR, subnet $SUBNET)"
	echo "  options: $opts"
	echo "  BPF uplink delay: $(state_get bpf_delay); tbf rate limits: $(state_get tbf)"
	[ "$(state_get net2)" != 1 ] ||
		echo "  second network: eth1 on $SUBNET2, ground truth $TRUTH2; MPI's traffic goes over it"
	[ -z "$(state_get rails)" ] ||
		echo "  rails: rail0 .. rail$(($(state_get rails) - 1)) on 10.80.0.0/12, ground truth $TRUTH_RAILS"
	if [ "$(state_get slurm)" = 1 ]; then
		echo "  Slurm: slurmctld and munged on '$HEAD_NAME' ($HEAD_IP, namespace $HEAD_NS), a slurmd per node;" \
			"$(slurm_alive && echo "all running" || echo "SOME DAEMON IS GONE")"
		echo "  Slurm configuration: $SLURM_DIR/etc/ (SLURM_CONF=$SLURM_CONF_FILE), logs in $SLURM_DIR/log/"
	fi
	printf '  %-10s %-8s %-8s %-15s %s\n' host rack spine ip namespace
	while IFS=, read -r host rack spine ip; do
		ns=$NS_PREFIX$host
		[ -e "$NETNS_DIR/$ns" ] || ns="$ns (missing!)"
		printf '  %-10s %-8s %-8s %-15s %s\n' "$host" "$rack" "${spine:--}" "$ip" "$ns"
	done < <(tail -n +2 "$TRUTH")
}

# --- exec and mpirun ------------------------------------------------------------

# enter_argv NODE: sets enter_cmd to the command prefix that runs a command on
# NODE: inside its network namespace, in fresh UTS and mount namespaces with
# hostname NODE and our hosts file over /etc/hosts. The mount namespace is
# private (unshare's default), so the bind mount never leaks. Every step execs
# the next, so the PID of the prefix is the PID of the command.
enter_argv() {
	local ns=$NS_PREFIX$1
	if [ "$1" = "$HEAD_NAME" ]; then
		[ "$(state_get slurm)" = 1 ] || die_usage "no head node: the cluster was built without --slurm"
		ns=$HEAD_NS
	else
		grep -q "^$1," "$TRUTH" 2>/dev/null || die_usage "no node '$1' in the cluster (see '$PROG status')"
	fi
	# shellcheck disable=SC2016 # the positional parameters are the inner shell's
	enter_cmd=(ip netns exec "$ns" unshare --uts --mount -- sh -c
		'echo "$1" >/proc/sys/kernel/hostname && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"'
		fakecluster-enter "$1" "$HOSTS")
}

cmd_exec() {
	case ${1:-} in -h | --help) usage; return 0 ;; esac
	[ $# -ge 2 ] || die_usage "exec: usage: $PROG exec NODE CMD [ARG...]"
	need_root
	need_base_tools
	cluster_is_up || die "no cluster up (run '$PROG up --racks ...' first)"
	enter_argv "$1"
	if [ "$1" = "$HEAD_NAME" ]; then
		local -a head_env
		slurm_head_env
		export "${head_env[@]}"
	fi
	shift
	exec "${enter_cmd[@]}" "$@"
}

cmd_mpirun() {
	local slots=1 arg user_hosts=0
	if [ "${1:-}" = --slots ]; then
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die_usage "mpirun: --slots needs a count >= 1"
		slots=$2
		shift 2
	fi
	need_root
	need_base_tools
	need_tool mpirun openmpi-bin
	cluster_is_up || die "no cluster up (run '$PROG up --racks ...' first)"
	for arg in "$@"; do
		case $arg in
		-hostfile | --hostfile | -machinefile | --machinefile | -host | --host | -H | --default-hostfile)
			user_hosts=1 ;;
		esac
	done
	tail -n +2 "$TRUTH" | cut -d, -f1 | sed "s/\$/ slots=$slots/" >"$HOSTFILE"
	local -a hostargs=()
	[ "$user_hosts" = 1 ] || hostargs=(--hostfile "$HOSTFILE")
	local head
	head=$(sed -n 2p "$TRUTH" | cut -d, -f1)
	local btl_net
	btl_net=$(btl_subnet)
	# The HNP runs on the first node (as a head node would), so its daemons reach
	# it over the emulated subnet; the agent starts each orted the same way.
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	enter_argv "$head"
	# Open MPI 4.1's rsh launcher warns "setpgid(..) failed in parent" whenever
	# the agent execs before the parent's setpgid call, which on an idle machine
	# is nearly always; it is harmless here, so that one line is filtered out.
	local rc=0 filter filter_pid hnp
	exec {filter}> >(grep --line-buffered -v 'plm:rsh: Warning: setpgid(' >&2)
	filter_pid=$!
	# The HNP and rank 0 get a session of their own, as every orted does (it calls
	# setsid): the kernel's autogroup scheduler shares the CPUs fairly between
	# sessions, so in the caller's session rank 0 would share one slice with
	# whatever else runs there (a CPU-bound process in it made every pair of
	# node01 slow, and a healthy fabric failed). Out of the terminal's process
	# group, the HNP gets the signals sent to this script passed on.
	setsid "${enter_cmd[@]}" mpirun --allow-run-as-root "${hostargs[@]+"${hostargs[@]}"}" \
		--mca plm_rsh_agent "$LIBDIR/rsh-agent" \
		--mca plm_rsh_no_tree_spawn 1 \
		--mca hwloc_base_binding_policy none \
		--mca mpi_yield_when_idle 1 \
		--mca pml ob1 --mca btl tcp,self \
		--mca btl_tcp_if_include "$btl_net" --mca oob_tcp_if_include "$SUBNET" \
		"$@" 0<&0 2>&"$filter" {filter}>&- &
	hnp=$!
	trap 'kill -INT "$hnp" 2>/dev/null' INT
	trap 'kill -TERM "$hnp" 2>/dev/null' TERM
	trap 'kill -HUP "$hnp" 2>/dev/null' HUP
	# wait returns early (above 128) when a trapped signal arrives: wait again
	while :; do
		rc=0
		wait "$hnp" || rc=$?
		kill -0 "$hnp" 2>/dev/null || break
	done
	trap - INT TERM HUP
	exec {filter}>&-
	wait "$filter_pid" || true # its last lines out before we exit (grep -v: 1 = no line)
	return "$rc"
}

# --- main ---------------------------------------------------------------------

main() {
	local cmd=${1:-}
	[ $# -eq 0 ] || shift
	case $cmd in
	up) cmd_up "$@" ;;
	down) cmd_down "$@" ;;
	status) cmd_status "$@" ;;
	exec) cmd_exec "$@" ;;
	mpirun) cmd_mpirun "$@" ;;
	-h | --help | help) usage ;;
	'') usage >&2; exit 2 ;;
	*) die_usage "unknown command '$cmd'" ;;
	esac
}

main "$@"
