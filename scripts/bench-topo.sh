#!/usr/bin/env bash
# Scale of the latency map: `fabprobe topo` on a synthetic N-node matrix (default 4096: 64
# leaves of 64 under 8 spines, 3% noise), wall time and peak memory.
#   scripts/bench-topo.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4096}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$n" "$tmp/lat.csv" <<'PY'
import random, sys
n, out = int(sys.argv[1]), sys.argv[2]
random.seed(1)
leaf = [i // 64 for i in range(n)]; spine = [l // 8 for l in leaf]
names = ["gpu%05d" % (i + 1) for i in range(n)]
random.shuffle(names)
lv = (1.6, 2.3, 3.1)
with open(out, "w") as f:
    f.write("host," + ",".join(names) + "\n")
    for i in range(n):
        row = [names[i]]
        for j in range(n):
            if i == j:
                row.append("")
            else:
                t = 0 if leaf[i] == leaf[j] else 1 if spine[i] == spine[j] else 2
                row.append("%.3f" % (lv[t] * (1 + random.uniform(-0.03, 0.03))))
        f.write(",".join(row) + "\n")
PY
echo "matrix: $n x $n, $(du -h "$tmp/lat.csv" | cut -f1)"
/usr/bin/time -f "fabprobe topo: %e s wall, %M KiB peak RSS" ./fabprobe topo "$tmp/lat.csv" -o "$tmp/out" | grep -E "tier|suspects"
