#!/usr/bin/env bash
# bench-map.sh N: the verdict on N emulated clusters, each with a fresh random layout: 8 to 12
# nodes in 3 to 5 uneven racks, every node placed at random (names say nothing), 2 tiers or 3
# (two spines), sometimes one node slowed to 1 Gbit/s, sometimes planted pair offsets
# (--pair-jitter: half the pairs +4 us each way). Each runs `fabprobe run` with the demo's
# options. A run is exact when the leaf groups of topology.csv equal the ground truth and the
# map has the truth's tiers; a false suspect is a host named in suspects*.csv that was not
# slowed; a missed fault is a slowed node nobody named. Prints a line per run and
# "k of N exact, f false suspects, m missed faults" with the time per run. Needs root.
#   scripts/bench-map.sh [N] [--seed S]          (default N 10; S: $RANDOM)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
runs=10 seed=$RANDOM
while [ $# -gt 0 ]; do
	case $1 in
	--seed) seed=$2; shift 2 ;;
	[1-9]*) runs=$1; shift ;;
	*) echo "usage: $0 [N] [--seed S]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench-map: needs root (network namespaces)" >&2; exit 2; }
make --no-print-directory -s fabprobe
FC=scripts/fakecluster.sh
# the demo's options, from the demo itself (one place to change them)
. scripts/demo-opts.sh
OPTS=("${DEMO_OPTS[@]}" --coll-max 64K --no-progress)
tmp=$(mktemp -d)
trap '$FC down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
RANDOM=$seed
echo "bench-map: $runs clusters, seed $seed"
exact=0 false=0 missed=0 times=()
for k in $(seq "$runs"); do
	nracks=$((3 + RANDOM % 3)) nodes=$((8 + RANDOM % 5))
	sizes=() left=$nodes
	for r in $(seq "$nracks"); do # every rack at least one node, the rest dealt at random
		sizes[r]=1
	done
	left=$((nodes - nracks))
	while [ $left -gt 0 ]; do
		r=$((1 + RANDOM % nracks)) sizes[r]=$((sizes[r] + 1)) left=$((left - 1))
	done
	racks=$(IFS=,; echo "${sizes[*]}")
	# every node to a rack at random, keeping the rack sizes: a shuffled list of racks
	list=()
	for r in $(seq "$nracks"); do
		for _ in $(seq "${sizes[r]}"); do list+=("$r"); done
	done
	place=()
	for i in $(seq "$nodes"); do
		j=$((RANDOM % ${#list[@]}))
		place+=(--place "$(printf 'node%02d' "$i")=${list[j]}")
		list=("${list[@]:0:j}" "${list[@]:j+1}")
	done
	args=(--racks "$racks" --uplink-rate 2gbit "${place[@]}")
	what="racks $racks"
	if [ $((RANDOM % 2)) -eq 0 ] && [ "$nracks" -ge 4 ]; then
		args+=(--spines 2)
		what+=", 2 spines"
	fi
	slow=''
	if [ $((RANDOM % 2)) -eq 0 ]; then
		pick=$((1 + RANDOM % nodes)) # drawn here: \$RANDOM in a \$(...) is reseeded, not the seed's
		slow=$(printf 'node%02d' "$pick")
		args+=(--degrade "$slow=1gbit")
		what+=", $slow slowed"
	fi
	if [ $((RANDOM % 3)) -eq 0 ]; then
		args+=(--pair-jitter 4 --pair-seed "$RANDOM")
		what+=", pair offsets"
	fi
	$FC up "${args[@]}" > "$tmp/up.txt" 2>&1 || { cat "$tmp/up.txt"; exit 1; }
	wait_idle
	start=$(date +%s)
	$FC mpirun "$PWD/fabprobe" run "${OPTS[@]}" -o "$tmp/r$k" > "$tmp/run$k.txt" 2>&1 || true
	secs=$(($(date +%s) - start))
	times+=("$secs")
	truth=/run/fabprobe-fakecluster/truth.csv
	ok=1 why=''
	if [ ! -f "$tmp/r$k/topology.csv" ]; then
		ok=0 why='no topology.csv'
	else
		t=$(awk -F, 'NR > 1 { g[$2] = g[$2] " " $1 } END { for (k in g) print g[k] }' "$truth" | sort)
		f=$(awk -F, 'NR > 1 { g[$3] = g[$3] " " $1 } END { for (k in g) print g[k] }' "$tmp/r$k/topology.csv" | sort)
		[ "$t" = "$f" ] || ok=0 why='leaf groups differ'
		want=$(( $(awk -F, 'NR > 1 && $3 != "" { s = 1 } END { print s + 2 }' "$truth") ))
		got=$(awk -F, 'NR > 1 { n++ } END { print n }' "$tmp/r$k/tiers.csv" 2>/dev/null || echo 0)
		[ "$got" = "$want" ] || ok=0 why="${why:+$why; }$got tiers, truth $want"
	fi
	named=$(cat "$tmp/r$k"/suspects*.csv 2>/dev/null | awk -F, '$1 != "kind" { print $2 }' | tr ' ' '\n' | sed '/^$/d' | sort -u | paste -sd' ' -)
	kinds=$(cat "$tmp/r$k"/suspects*.csv 2>/dev/null | awk -F, '$1 != "kind" { print $1 }' | sort -u | paste -sd' ' -)
	f_here=0 m_here=0
	for h in $named; do [ "$h" = "$slow" ] || f_here=$((f_here + 1)); done
	if [ -n "$slow" ] && ! [[ " $named " == *" $slow "* ]]; then m_here=1; fi
	exact=$((exact + ok)) false=$((false + f_here)) missed=$((missed + m_here))
	printf 'run %2d: %-60s %s, named: %s%s, %d s\n' "$k" "$what" "$([ $ok = 1 ] && echo exact || echo "NOT exact ($why)")" \
		"${named:-nobody}" "${kinds:+ ($kinds)}" "$secs"
	if [ $ok = 0 ] || [ $f_here -gt 0 ] || [ $m_here -gt 0 ]; then # kept for a look
		cp -r "$tmp/r$k" "/tmp/bench-map-r$k-$seed" 2>/dev/null && cp /run/fabprobe-fakecluster/truth.csv "/tmp/bench-map-r$k-$seed/" || true
	fi
done
echo "$exact of $runs exact, $false false suspects, $missed missed faults"
summary "seconds per run" "${times[@]}"
