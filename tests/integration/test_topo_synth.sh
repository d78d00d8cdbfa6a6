#!/usr/bin/env bash
# The latency map on synthetic fabrics with a known tree (tests/synth_fabric.c): each knob of
# the generator at small N (and one fabric of 4,096 nodes at 10% noise), three seeds each, every case exact (the groups of every tier equal
# the truth up to their names), the planted slow nodes named, nothing else a suspect; single
# switches of 2..12 nodes give one group and no suspect (tests/synth_check.py); captured runs of
# the emulated cluster give its racks and spines.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
SYNTH=${BUILD:-build}/synth-fabric
if [ ! -x "$SYNTH" ]; then
	notok "synthetic fabrics" "$SYNTH not built (make unit)"
	exit 1
fi
tmp=$(mktemp -d /tmp/fp-synth-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# fabric NAME ALLOW SYNTH-ARGS...: three seeds, all exact
fabric() {
	local name=$1 allow=$2 bad=0 why='' out
	shift 2
	for seed in 1 2 3; do
		local d=$tmp/$name-$seed
		mkdir -p "$d"
		if ! "$SYNTH" "$@" --seed "$seed" -o "$d/m.csv" -t "$d/t.csv" ||
		   ! ./fabprobe topo "$d/m.csv" -o "$d/out" > "$d/out.txt" 2>&1; then
			bad=1 why="seed $seed: generator or fabprobe failed: $(tail -c 300 "$d/out.txt" 2>/dev/null)"
			continue
		fi
		if ! out=$(python3 tests/synth_check.py "$d/t.csv" "$d/out" ${allow:+--allow "$allow"}); then
			bad=1 why="seed $seed: $out"
		fi
	done
	if [ $bad -eq 0 ]; then ok "$name: exact, three seeds"; else notok "$name" "$why"; fi
}

# shapes: children per level from the top, the last nodes per leaf (ranges: uneven)
fabric "2 tiers, 4 even leaves, 1% noise"                '' --shape 4x8 --noise 1
fabric "2 tiers, uneven leaves of 1..64, 3% noise"       '' --shape 5x1-64 --noise 3
fabric "3 tiers, uneven leaves of 1..24, 5% noise"       '' --shape 3x4x1-24 --noise 5
fabric "4 tiers (3 switch levels), leaves of 1..12"      '' --shape 2x2x3x1-12 --noise 5
fabric "10% noise, leaves of 4..24"                      '' --shape 3x4x4-24 --noise 10
fabric "per-node offsets up to 0.2 us"                   '' --shape 3x4x1-24 --noise 3 --offset-us 0.2
fabric "2 slow nodes (+0.6 us), named"                   '' --shape 3x4x1-24 --noise 3 --slow 2
fabric "5% of cells missing"                 unmeasured_pair --shape 3x4x1-24 --noise 3 --missing 5
fabric "per-pair cable offsets up to 0.1 us"             '' --shape 3x4x1-24 --noise 3 --cable-us 0.1
fabric "unrelated host names"                            '' --shape 3x4x1-24 --noise 3 --names unrelated
fabric "host names in tree order"                        '' --shape 3x4x1-24 --noise 3 --names ordered
fabric "every defect at once, 4 tiers"       unmeasured_pair --shape 2x2x3x1-16 --noise 5 --offset-us 0.2 --slow 2 \
	--missing 5 --cable-us 0.1 --names unrelated
fabric "InfiniBand-like: 0.2 us a tier, 3% noise, cables" '' --shape 2x4x8-24 --hop-us 0.1 --noise 3 --cable-us 0.1
fabric "emulated-cluster-like: 6 us in a rack, 60 across" '' --shape 3x2-4 --leaf-us 6 --hop-us 27 --noise 8
fabric "emulated-cluster-like, 3 tiers (2 spines)"        '' --shape 2x2x2 --leaf-us 6 --hop-us 27 --noise 8
fabric "emulated-cluster-like, two racks of 1..4"         '' --shape 2x1-4 --leaf-us 6 --hop-us 27 --noise 8
fabric "emulated-cluster-like, a node +6 us slow in a rack" '' --shape 3x2-3 --leaf-us 3.4 --hop-us 28 --noise 5 --slow 1 \
	--slow-us 6
fabric "emulated-cluster-like, racks of 3, a node +1.8 us slow" '' --shape 3x3 --leaf-us 5 --hop-us 27 --noise 2 --slow 1 \
	--slow-us 1.8
fabric "bimodal pair offsets: half the pairs +1.5 us (30% of a 5 us leaf, 3% across), racks of 6..16" '' \
	--shape 4x6-16 --leaf-us 5 --hop-us 27 --noise 2 --pair-step-us 1.5
fabric "bimodal pair offsets, 3 tiers, racks of 6..12"    '' --shape 2x3x6-12 --leaf-us 5 --hop-us 27 --noise 2 --pair-step-us 1.5
fabric "low noise (0.5%), 2 slow nodes +25%, named in their leaf" '' --shape 3x4x4-24 --noise 0.5 --slow 2 --slow-us 0.4
fabric "1% noise, 3 slow nodes +100%, named in their leaf" '' --shape 3x4x4-24 --noise 1 --slow 3 --slow-us 1.6
fabric "10% noise, 3 slow nodes +100%, named in their leaf" '' --shape 3x4x4-24 --noise 10 --slow 3 --slow-us 1.6
fabric "every node alone on its leaf: one group"         '' --shape 6x1 --noise 3
# at scale, the noise high (a 0.5 us step is 2.7 pair sigmas): a node whose one pair with a
# node of another leaf read fast must not stay paired with it, nor come in with it
fabric "4,096 nodes, 3 switch levels, 10% noise, every defect" unmeasured_pair --shape 4x4x8x32 --noise 10 \
	--offset-us 0.2 --slow 2 --missing 5 --cable-us 0.1
for n in 2 3 5 8 12; do
	fabric "one switch, $n nodes, 3% noise: one group"    '' --shape 1x$n --noise 3
done

# captured runs of the emulated cluster (tests/fixtures/topo/emulated/README): the racks, and
# the spines, recovered from real, noisy minimum latencies
same_groups() { # TOPOLOGY.CSV COLUMN TRUTH.CSV COLUMN: each group as its sorted hosts
	[ "$(awk -F, -v c="$2" 'NR > 1 { print $c, $1 }' "$1" | sort | awk '$1 != p { if (NR > 1) print l; l = ""; p = $1 } { l = l " " $2 } END { print l }' | sort)" = \
	  "$(awk -F, -v c="$4" 'NR > 1 { print $c, $1 }' "$3" | sort | awk '$1 != p { if (NR > 1) print l; l = ""; p = $1 } { l = l " " $2 } END { print l }' | sort)" ]
}
E=tests/fixtures/topo/emulated
for f in $E/*.p2p.csv; do
	r=$(basename "$f" .p2p.csv)
	case $r in
	p*) t=$E/truth-332.csv ;; d*) t=$E/truth-332-degraded.csv ;; s*) t=$E/truth-2222-spines2.csv ;;
	x*) t=$E/truth-4444-spines2.csv ;; e*) t=$E/truth-66-eth1.csv ;;
	esac
	./fabprobe topo "$f" -o "$tmp/emu-$r" > "$tmp/emu-$r.txt" 2>&1
	if [ "${r#[sx]}" != "$r" ]; then
		expect "emulated cluster, captured run $r: leaves and spines recovered, 3 tiers" sh -c \
			"grep -q 'latency map: 3 tiers' '$tmp/emu-$r.txt' && $(declare -f same_groups); same_groups '$tmp/emu-$r/topology.csv' 3 '$t' 2 && same_groups '$tmp/emu-$r/topology.csv' 4 '$t' 3"
	else
		expect "emulated cluster, captured run $r: racks recovered, 2 tiers" sh -c \
			"grep -q 'latency map: 2 tiers' '$tmp/emu-$r.txt' && $(declare -f same_groups); same_groups '$tmp/emu-$r/topology.csv' 3 '$t' 2"
	fi
done
for r in x1 x2 x3 x4; do
	expect "emulated cluster, captured run $r (in-leaf minima on two levels, 9 and 10.5 us): no suspect" \
		sh -c "[ \$(wc -l < '$tmp/emu-$r/suspects.csv') -eq 1 ]"
done
# x3, x4 (README): the mpi path, whose in-rack minima spread widely; the latency passes'
# disagreement (lat_us_min_hi) is the map's repeat noise. Without the column the same minima
# split the racks: the trap the fixtures hold.
for r in x3 x4; do
	./fabprobe topo $E/$r.p2p.csv --path mpi -o "$tmp/emu-$r-mpi" > "$tmp/emu-$r-mpi.txt" 2>&1
	expect "emulated cluster, captured run $r, path mpi: leaves and spines recovered, 3 tiers, no suspect, the repeat noise said" sh -c \
		"grep -q 'latency map: 3 tiers (.*; the latency passes disagree by [0-9.]*% on [0-9]* leaf directions)' '$tmp/emu-$r-mpi.txt' &&
		 [ \$(wc -l < '$tmp/emu-$r-mpi/suspects.csv') -eq 1 ] && $(declare -f same_groups);
		 same_groups '$tmp/emu-$r-mpi/topology.csv' 3 $E/truth-4444-spines2.csv 2 && same_groups '$tmp/emu-$r-mpi/topology.csv' 4 $E/truth-4444-spines2.csv 3"
	awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "lat_us_min_hi") c = i } NR > 1 { $c = "" } { print }' \
		$E/$r.p2p.csv > "$tmp/$r-one-pass.csv"
	./fabprobe topo "$tmp/$r-one-pass.csv" --path mpi -o "$tmp/emu-$r-one" > "$tmp/emu-$r-one.txt" 2>&1
done
# without the column the racks split (the trap the repeat noise closes), and the split's step (2%
# of the spines') is what refuses it now: no switch, the map exact
expect "emulated cluster, captured run x3, path mpi, without lat_us_min_hi: the racks' split not taken (its step), exact" sh -c \
	"grep -q 'latency map: 3 tiers' '$tmp/emu-x3-one.txt' && grep -q '1 tier not taken as a switch' '$tmp/emu-x3-one.txt' &&
	 $(declare -f same_groups); same_groups '$tmp/emu-x3-one/topology.csv' 3 $E/truth-4444-spines2.csv 2"
# x4 without the column: its first map left 4 nodes alone on leaves whose pairs to their
# nearest group read near the leaf level, not at the spine's where the map joined them: their
# offsets (lone_offset), and the map chosen again places them: exact, the repeat noise or not
expect "emulated cluster, captured run x4, path mpi, without lat_us_min_hi: lone nodes placed with their nearest group, exact" sh -c \
	"grep -q 'latency map: 3 tiers' '$tmp/emu-x4-one.txt' && $(declare -f same_groups); same_groups '$tmp/emu-x4-one/topology.csv' 3 $E/truth-4444-spines2.csv 2"
# e1 (README): the demo's compute fabric, racks 6,6, one pass; the rows said 2.4%, the leaves'
# own pairs spread 5%: the lowest tier's spread is the second round's floor, and the leaf of 6
# stays whole (without it, split in halves of 3: 3 tiers)
expect "emulated cluster, captured run e1 (leaves of 6, in-leaf minima 22-33 us): no suspect, the noise of the leaves' pairs" sh -c \
	"[ \$(wc -l < '$tmp/emu-e1/suspects.csv') -eq 1 ] && grep -q 'latency map: 2 tiers (pair noise [4-9]\.' '$tmp/emu-e1.txt'"
# e2: one node's pairs to its 5 leaf mates 26 us, theirs 23, across the spine 47: no leaf of its
# own (its 5 pairs were 5 fast_link suspects where the map joined it at the spine)
expect "emulated cluster, captured run e2 (a node 12% slower to its leaf mates alone): no suspect" \
	sh -c "[ \$(wc -l < '$tmp/emu-e2/suspects.csv') -eq 1 ]"
expect "emulated cluster, the degraded node05 named as a low-bandwidth node" grep -q '^low_bw_node,node05,' "$tmp/emu-d1/suspects.csv"
# a partial re-measurement (c1, README): the redraw takes the first map's noise as its floor,
# as run's confirmation does, and the racks stand; without the floor, it invents a tier
./fabprobe topo $E/c1.first.csv --path tcp:eth0 -o "$tmp/c1a" > "$tmp/c1a.txt" 2>&1
nu=$(sed -n 's/^latency map: .*, \([0-9.]*\) us at the lowest tier)$/\1/p' "$tmp/c1a.txt")
expect "captured c1, first pass: racks 4,3,3,2 recovered (noise ${nu:-?} us at the lowest tier)" sh -c \
	"grep -q 'latency map: 2 tiers' '$tmp/c1a.txt' && $(declare -f same_groups); same_groups '$tmp/c1a/topology.csv' 3 $E/truth-4332.csv 2"
./fabprobe topo $E/c1.confirmed.csv --path tcp:eth0 --noise-us "${nu:-0.2}" -o "$tmp/c1b" > "$tmp/c1b.txt" 2>&1
expect "captured c1, re-measured pairs in place, the first map's noise as floor: racks still exact, 2 tiers" sh -c \
	"grep -q 'latency map: 2 tiers' '$tmp/c1b.txt' && $(declare -f same_groups); same_groups '$tmp/c1b/topology.csv' 3 $E/truth-4332.csv 2"
./fabprobe topo $E/c1.confirmed.csv --path tcp:eth0 -o "$tmp/c1c" > "$tmp/c1c.txt" 2>&1
expect "captured c1, the same without the floor: the tier that follows no switch found, and not taken (its step)" sh -c \
	"grep -q 'latency map: 2 tiers' '$tmp/c1c.txt' && grep -q '1 tier not taken as a switch' '$tmp/c1c.txt' &&
	 $(declare -f same_groups); same_groups '$tmp/c1c/topology.csv' 3 $E/truth-4332.csv 2"

# what the terminal and tiers.csv say
d=$tmp/"one switch, 8 nodes, 3% noise: one group-1"
expect "one switch: 'no tier structure above the noise' on the terminal" grep -q 'no tier structure above the noise' "$d/out.txt"
d=$tmp/"3 tiers, uneven leaves of 1..24, 5% noise-1"
expect "tiers.csv: each boundary's separation (z >= 5, >= 1.5 sigmas) and its pairs" awk -F, '
	NR == 1 { ok = $9 == "sep_z" && $10 == "sep_sigma" && $11 == "sep_pairs" && $12 == "within_pairs"; next }
	NR < 4 { ok = ok && $9 >= 5 && $10 >= 1.5 && $11 >= 1 && $12 >= 1; next }
	NR == 4 { ok = ok && $9 == "" }
	END { exit !(ok && NR == 4) }' "$d/out/tiers.csv"
expect "terminal: the separation of each tier" grep -q 'tier 0 (leaf): .* every group stands z >= ' "$d/out.txt"
exit $((FAILED > 0))
