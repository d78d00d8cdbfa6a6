# shellcheck shell=bash disable=SC2154 # node_names, opt_*, ...: fakecluster.sh's globals
# rails.sh: the rails of a GPU cluster's compute fabric, for 'fakecluster.sh up --rails R'
# (sourced by fakecluster.sh; uses its globals and helpers: STATE_DIR, NS_PREFIX, node_names[],
# state_add, switch_add, link_add, uplink, shape, delay, check_rate, check_delay, node_index,
# die_usage).
#
# Every node gets R more interfaces, rail0 .. rail<R-1>. In a rail-optimised fabric NIC i of
# every node of a scalable unit plugs into leaf switch i of that unit (rail i), and the rails
# meet only at the spines: here rail leaf fp-r<i>s<u> (rail i of scalable unit u, --rail-su
# nodes each, in name order) under one rail spine fp-rspine. A rail's interfaces are on their
# own subnet (rail i: 10.(80+i).0.0/16), all in one L2 domain through the spine, as one IB
# subnet is: a port plugged into another rail's leaf (--rail-swap) still reaches its own
# rail's peers, across the spine. Each node routes what leaves from a rail's address, or is
# bound to a rail, out of that rail (a routing table per rail: a port of one rail can probe a
# port of another), and answers ARP only on the interface that holds the address (the rails of
# one node share an L2 domain). Ground truth: truth_rails.csv (host, interface, the rail leaf
# it is plugged into, scalable unit, address).

readonly TRUTH_RAILS=$STATE_DIR/truth_rails.csv
readonly TRUTH_RAILS_SHARED=$STATE_DIR/truth_rails_shared.csv # host, the rate its rails share
readonly RAILS_MAX=16 # rails' subnets 10.80-10.95 (one /12)

# rails_parse: checks --rails and the options that go with it; sets node_su[i] (1-based) and
# rail_to[i,r] (the leaf's rail that node i's rail r is plugged into), and adds to canonical.
rails_parse() {
	local i r d node a b
	node_su=()
	declare -gA rail_to=() rail_rate=() rail_shared=()
	if [ -z "$opt_rails" ]; then
		if [ -n "$opt_rail_su$opt_rail_rate_set" ] || [ ${#opt_rail_swap[@]} -gt 0 ] || [ ${#opt_rail_degrade[@]} -gt 0 ] ||
			[ ${#opt_rail_shared[@]} -gt 0 ]; then
			die_usage "--rail-su, --rail-swap, --rail-degrade, --rail-shared and the rail rates need --rails"
		fi
		return 0
	fi
	if ! [[ $opt_rails =~ ^[1-9][0-9]?$ ]] || [ "$opt_rails" -gt "$RAILS_MAX" ]; then
		die_usage "--rails: '$opt_rails' is not a number of rails from 1 to $RAILS_MAX"
	fi
	[ -n "$opt_rail_su" ] || opt_rail_su=${#node_names[@]}
	[[ $opt_rail_su =~ ^[1-9][0-9]{0,3}$ ]] || die_usage "--rail-su: '$opt_rail_su' is not a number of nodes >= 1"
	check_rate --rail-rate "$opt_rail_rate"
	check_rate --rail-uplink-rate "$opt_rail_uplink_rate"
	check_delay --rail-uplink-delay-us "$opt_rail_uplink_delay_us"
	for i in "${!node_names[@]}"; do
		node_su[i]=$((i / opt_rail_su + 1))
		for ((r = 0; r < opt_rails; r++)); do rail_to[$i,$r]=$r; done
	done
	for d in "${opt_rail_swap[@]+"${opt_rail_swap[@]}"}"; do
		[[ $d =~ ^([^=]+)=([0-9]+),([0-9]+)$ ]] || die_usage "--rail-swap: '$d' is not NODE=I,J (two rails from 0)"
		node=${BASH_REMATCH[1]} a=${BASH_REMATCH[2]} b=${BASH_REMATCH[3]}
		i=$(node_index "$node") || die_usage "--rail-swap: no node '$node' (nodes are ${node_names[0]}..${node_names[-1]})"
		if [ "$a" -ge "$opt_rails" ] || [ "$b" -ge "$opt_rails" ] || [ "$a" = "$b" ]; then
			die_usage "--rail-swap $d: two different rails from 0 to $((opt_rails - 1))"
		fi
		if [ "${rail_to[$i,$a]}" != "$a" ] || [ "${rail_to[$i,$b]}" != "$b" ]; then
			die_usage "--rail-swap $d: a cable of $node is swapped twice"
		fi
		rail_to[$i,$a]=$b
		rail_to[$i,$b]=$a
	done
	for d in "${opt_rail_degrade[@]+"${opt_rail_degrade[@]}"}"; do
		[[ $d =~ ^([^:=]+):([0-9]+)=(.+)$ ]] || die_usage "--rail-degrade: '$d' is not NODE:I=RATE"
		node=${BASH_REMATCH[1]} r=${BASH_REMATCH[2]} a=${BASH_REMATCH[3]}
		i=$(node_index "$node") || die_usage "--rail-degrade: no node '$node' (nodes are ${node_names[0]}..${node_names[-1]})"
		[ "$r" -lt "$opt_rails" ] || die_usage "--rail-degrade $d: no rail $r (rails are 0..$((opt_rails - 1)))"
		check_rate --rail-degrade "$a"
		rail_rate[$i,$r]=$a
	done
	for d in "${opt_rail_shared[@]+"${opt_rail_shared[@]}"}"; do
		[[ $d =~ ^([^=]+)=(.+)$ ]] || die_usage "--rail-shared: '$d' is not NODE=RATE"
		node=${BASH_REMATCH[1]} a=${BASH_REMATCH[2]}
		i=$(node_index "$node") || die_usage "--rail-shared: no node '$node' (nodes are ${node_names[0]}..${node_names[-1]})"
		[ -z "${rail_shared[$i]:-}" ] || die_usage "--rail-shared $d: $node's rails are shared twice"
		check_rate --rail-shared "$a"
		rail_shared[$i]=$a
	done
	canonical+=" rails=$opt_rails rail_su=$opt_rail_su rail_rate=${opt_rail_rate,,}"
	canonical+=" rail_uplink_rate=${opt_rail_uplink_rate,,} rail_uplink_delay_us=$opt_rail_uplink_delay_us"
	[ ${#opt_rail_swap[@]} -eq 0 ] || canonical+=" rail_swap=$(printf '%s\n' "${opt_rail_swap[@]}" | sort | paste -sd, -)"
	[ ${#opt_rail_degrade[@]} -eq 0 ] ||
		canonical+=" rail_degrade=$(printf '%s\n' "${opt_rail_degrade[@]}" | sort | paste -sd, -)"
	[ ${#opt_rail_shared[@]} -eq 0 ] ||
		canonical+=" rail_shared=$(printf '%s\n' "${opt_rail_shared[@]}" | sort | paste -sd, -)"
}

rail_ip() { echo "10.$((80 + $2)).$((($1 + 1) / 256)).$((($1 + 1) % 256))"; } # NODE_INDEX RAIL
rail_leaf() { echo "${NS_PREFIX}r$1s$2"; }                                    # RAIL SU

# build_rails: the rail leaves and spine, every node's rails plugged in (swapped where asked),
# addressed, shaped (degraded where asked) and routed.
build_rails() {
	local i r u node ns nsu=0 to rate
	for i in "${!node_names[@]}"; do [ "${node_su[i]}" -le "$nsu" ] || nsu=${node_su[i]}; done
	switch_add "${NS_PREFIX}rspine"
	for ((u = 1; u <= nsu; u++)); do
		for ((r = 0; r < opt_rails; r++)); do
			switch_add "$(rail_leaf "$r" "$u")"
			uplink "$(rail_leaf "$r" "$u")" "${NS_PREFIX}rspine" "$opt_rail_uplink_rate" "$opt_rail_uplink_delay_us"
		done
	done
	for i in "${!node_names[@]}"; do
		node=${node_names[i]} ns=$NS_PREFIX${node_names[i]}
		# one L2 domain for every rail: ARP answered on the interface that holds the address
		# shellcheck disable=SC2016 # $k is the inner shell's
		ip netns exec "$ns" sh -c 'for k in all default; do
			echo 1 >/proc/sys/net/ipv4/conf/$k/arp_ignore; echo 2 >/proc/sys/net/ipv4/conf/$k/arp_announce
			echo 0 >/proc/sys/net/ipv4/conf/$k/rp_filter; done'
		for ((r = 0; r < opt_rails; r++)); do
			to=$(rail_leaf "${rail_to[$i,$r]}" "${node_su[i]}")
			rate=${rail_rate[$i,$r]:-$opt_rail_rate}
			link_add "$ns" "rail$r" "$to" "$node"
			ip -n "$ns" addr add "$(rail_ip "$i" "$r")/16" dev "rail$r"
			ip -n "$ns" route add 10.80.0.0/12 dev "rail$r" table $((100 + r))
			ip -n "$ns" rule add from "10.$((80 + r)).0.0/16" table $((100 + r)) priority $((1000 + r))
			ip -n "$ns" rule add oif "rail$r" table $((100 + r)) priority $((1100 + r))
			shape "$ns" "rail$r" "$rate"
			shape "$to" "$node" "$rate"
		done
		[ -z "${rail_shared[$i]:-}" ] || rails_share "$ns" "${rail_shared[$i]}"
	done
}

# rails_share NS RATE: every rail of the node through one link of RATE each way, as NICs behind
# one PCIe switch uplink: what each rail sends and receives is redirected through two ifb
# devices (one a direction) shaped at RATE, then goes on as before. Each rail alone still
# reaches its own rate; the rails together share RATE.
rails_share() {
	local r dir
	for dir in tx rx; do
		ip -n "$1" link add "share$dir" type ifb
		ip -n "$1" link set "share$dir" up
		shape "$1" "share$dir" "$2"
	done
	for ((r = 0; r < opt_rails; r++)); do
		tc -n "$1" qdisc add dev "rail$r" clsact
		tc -n "$1" filter add dev "rail$r" egress protocol all u32 match u32 0 0 action mirred egress redirect dev sharetx
		tc -n "$1" filter add dev "rail$r" ingress protocol all u32 match u32 0 0 action mirred egress redirect dev sharerx
	done
}

rails_truth() {
	local i r
	[ -n "$opt_rails" ] || return 0
	echo "host,interface,rail_leaf,su,ip" >"$TRUTH_RAILS"
	for i in "${!node_names[@]}"; do
		for ((r = 0; r < opt_rails; r++)); do
			echo "${node_names[i]},rail$r,rail${rail_to[$i,$r]}-su${node_su[i]},${node_su[i]},$(rail_ip "$i" "$r")" >>"$TRUTH_RAILS"
		done
	done
	echo "host,shared_rate" >"$TRUTH_RAILS_SHARED"
	for i in "${!node_names[@]}"; do
		[ -z "${rail_shared[$i]:-}" ] || echo "${node_names[i]},${rail_shared[$i]}" >>"$TRUTH_RAILS_SHARED"
	done
	state_add rails "$opt_rails"
}
