#!/usr/bin/env bash
# bench-jitter.sh: the latency map against pair offsets that follow no switch, on the emulated
# cluster (scripts/fakecluster.sh --pair-jitter J: half the pairs, chosen by a hash of their
# addresses and the seed, pay J us more each way, as ECMP paths, cable lengths and a far socket
# give). For each layout, offset and seed it builds the cluster (node names dealt across the
# racks), runs `fabprobe run` with the demo's options and judges what a scheduler would get:
#   exact      the map's leaves and tier count are the truth's, no tier uncertain
#   left out   a tier is uncertain, and the scheduler files (k8s-node-labels.yaml's leaf
#              labels, written from the certain tiers) hold the truth's leaves, or unions of
#              whole leaves (a level left out, never a wrong one)
#   WRONG      the scheduler files' leaves are not the truth's (a level invented or lost)
# and counts the findings that held (a healthy fabric gives none). Needs root. One line a run,
# then the counts per offset.
#   scripts/bench-jitter.sh [--layouts 3,4,3:2,3,2,3:4,4,4] [--jitter 3,6,8,12] [--seeds 10]
#                           [--first S] [--fabprobe BIN]
# --fabprobe: another build to judge the same way (an older commit's, built in a temporary
# clone: git clone -q . /tmp/old && git -C /tmp/old checkout -q COMMIT && make -C /tmp/old
# WITH_CUDA=no WITH_NCCL=no fabprobe), for a side-by-side count; --first: the first seed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
layouts=3,4,3:2,3,2,3:4,4,4:6,5,6 jitters=3,6,8,12 seeds=10 first=1 bin=
while [ $# -gt 0 ]; do
	case $1 in
	--layouts) layouts=$2; shift 2 ;;
	--jitter) jitters=$2; shift 2 ;;
	--seeds) seeds=$2; shift 2 ;;
	--first) first=$2; shift 2 ;;
	--fabprobe) bin=$2; shift 2 ;;
	*) echo "usage: $0 [--layouts R:R...] [--jitter J,J...] [--seeds N] [--first S] [--fabprobe BIN]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench-jitter: needs root (network namespaces)" >&2; exit 2; }
[ -n "$bin" ] || { make --no-print-directory -s fabprobe; bin=fabprobe; }
FC=scripts/fakecluster.sh
. scripts/demo-opts.sh
OPTS=("${DEMO_OPTS[@]}" --coll-max 64K --no-order --no-progress -p tcp:eth0)
tmp=$(mktemp -d /tmp/bench-jitter-XXXXXX) # on the file system the emulated nodes share
trap '$FC down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
cp "$(readlink -f "$bin")" "$tmp/fabprobe" # this build, whatever is built while it runs
truth=/run/fabprobe-fakecluster/truth.csv

# judge DIR: "exact|left out|WRONG <findings>" from the run's files against the truth
judge() {
	/usr/bin/python3 - "$1" "$truth" <<'PY'
import csv, sys, yaml
d, truth = sys.argv[1], sys.argv[2]
def groups(pairs):
    g = {}
    for h, k in pairs:
        g.setdefault(k, set()).add(h)
    return sorted(sorted(s) for s in g.values())
t = list(csv.DictReader(open(truth)))
want = groups((r["host"], r["rack"]) for r in t)
want_tiers = 3 if any(r.get("spine") for r in t) else 2
try:
    topo = list(csv.DictReader(open(d + "/topology.csv")))
    tiers = list(csv.DictReader(open(d + "/tiers.csv")))
    nodes = [x for x in yaml.safe_load_all(open(d + "/k8s-node-labels.yaml")) if x]
except OSError as e:
    print("WRONG (no map: %s) -" % e.strerror); sys.exit()
held = 0
for name in ("suspects.csv",):
    try:
        held += sum(1 for _ in csv.DictReader(open(d + "/" + name)))
    except OSError:
        pass
sched = groups((n["metadata"]["name"], n["metadata"]["labels"]["fabprobe/tier-0"]) for n in nodes)
mapped = groups((r["host"], r["tier0"]) for r in topo)
uncertain = any(r.get("uncertain") == "1" for r in tiers)
# each scheduler group a union of whole truth leaves: coarser at worst, never a wrong level
of = {h: i for i, g in enumerate(sched) for h in g}
coarser = all(len({of.get(h) for h in g}) == 1 for g in want)
if uncertain and coarser:
    print("left-out %d" % held)
elif sched != want:
    print("WRONG %d" % held)
elif mapped == want and len(tiers) == want_tiers:
    print("exact %d" % held)
else:
    print("WRONG %d" % held)
PY
}

declare -A n_exact n_left n_wrong n_find
total=0
for layout in ${layouts//:/ }; do
	for j in ${jitters//,/ }; do
		for s in $(seq "$first" $((first + seeds - 1))); do
			$FC up --racks "$layout" --interleave --uplink-rate 1gbit --pair-jitter "$j" --pair-seed "$s" \
				> "$tmp/up.txt" 2>&1 || { cat "$tmp/up.txt"; exit 1; }
			start=$(date +%s)
			$FC mpirun "$tmp/fabprobe" run "${OPTS[@]}" -o "$tmp/r" > "$tmp/run.txt" 2>&1 || true
			secs=$(($(date +%s) - start))
			read -r verdict found < <(judge "$tmp/r")
			case $verdict in
			exact) n_exact[$j]=$((${n_exact[$j]:-0} + 1)) ;;
			left-out) n_left[$j]=$((${n_left[$j]:-0} + 1)) ;;
			*) n_wrong[$j]=$((${n_wrong[$j]:-0} + 1))
			   cp -r "$tmp/r" "/tmp/bench-jitter-$layout-$j-$s" 2>/dev/null || true ;;
			esac
			[ "$found" = - ] || n_find[$j]=$((${n_find[$j]:-0} + found))
			total=$((total + 1))
			printf 'racks %-10s jitter %2d us seed %2d: %-8s findings %s  (%s; %d s)\n' "$layout" "$j" "$s" "$verdict" \
				"$found" "$(grep -m 1 '^latency map:' "$tmp/run.txt" | cut -c1-40)" "$secs"
			rm -rf "$tmp/r"
			$FC down > /dev/null 2>&1
		done
	done
done
for j in ${jitters//,/ }; do
	printf 'jitter %2d us: %d exact, %d uncertain and left out, %d WRONG; %d findings\n' "$j" "${n_exact[$j]:-0}" \
		"${n_left[$j]:-0}" "${n_wrong[$j]:-0}" "${n_find[$j]:-0}"
done
echo "$total runs"
