#!/usr/bin/env bash
# Slow nodes on synthetic fabrics (build/synth-fabric): +20%, +50% and +100% of a 1.6 us leaf
# (2 of them on 32 nodes, 3 elsewhere), at 0.5%, 1%, 3% and 10% lognormal noise, on 32 nodes
# (4 leaves of 8), about 180 (3 spines of 4 leaves of 4..24) and 4,096 (3 switch levels),
# SEEDS seeds each (default 2). Prints each fabric that is not exact (tests/synth_check.py:
# every tier's groups as planted, the slow nodes named, nothing else) and "exact K of N".
#   scripts/bench-slow.sh [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-2}
[[ $seeds =~ ^[1-9][0-9]?$ ]] || { echo "usage: $0 [SEEDS (1-99)]" >&2; exit 2; }
make --no-print-directory -s fabprobe synth
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok=0 all=0
for shape in 4x8 3x4x4-24 4x4x8x32; do
	k=3; [ "$shape" = 4x8 ] && k=2
	for us in 0.32 0.8 1.6; do
		for noise in 0.5 1 3 10; do
			for seed in $(seq "$seeds"); do
				d=$tmp/$shape-$us-$noise-$seed
				mkdir -p "$d"
				build/synth-fabric --shape "$shape" --noise "$noise" --slow "$k" --slow-us "$us" --seed "$seed" \
					-o "$d/m.csv" -t "$d/t.csv"
				./fabprobe topo "$d/m.csv" -o "$d/out" > /dev/null 2>&1 || true
				r=$(python3 tests/synth_check.py "$d/t.csv" "$d/out" 2>&1 | head -1)
				all=$((all + 1))
				case $r in
				exact*) ok=$((ok + 1)) ;;
				*) echo "$shape, $k nodes +$us us, noise $noise%, seed $seed: $r" ;;
				esac
			done
		done
	done
done
echo "exact $ok of $all"
