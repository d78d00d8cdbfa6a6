#!/usr/bin/env python3
"""A synthetic results directory for the report tests and scripts/bench-report.sh.

synth_results.py N DIR: N nodes in leaves of 32 under spines of 4 leaves, host names shuffled
(they say nothing about the topology), latencies 1.6 / 2.3 / 3.1 us by tier with 3% noise,
bandwidths 24 / 20 / 12 GB/s; one slow node (+0.6 us on every path, +40% at the leaf: a slow NIC) and one bad link (a quarter
of its bandwidth). Writes DIR/lat.csv and DIR/bw.csv (square matrices in name order), DIR/meta.json
and DIR/truth.csv (host,leaf,spine). `fabprobe topo DIR/lat.csv -o OUT` then infers the tree."""
import json, random, sys

n, out = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(7)
names = ["gpu%04d" % (i + 1) for i in range(n)]
rnd.shuffle(names)                     # names[i] is the host at place i of the true tree
leaf = [i // 32 for i in range(n)]
spine = [l // 4 for l in leaf]
slow = n // 3                          # a slow node
bad = (5, 6)                           # a bad link inside leaf 0
order = sorted(range(n), key=lambda i: names[i])   # matrices in name order, as p2p writes them
lat_lv, bw_lv = (1.6, 2.3, 3.1), (24.0, 20.0, 12.0)

def tier(i, j):
    return 0 if leaf[i] == leaf[j] else 1 if spine[i] == spine[j] else 2

def write(path, cell):
    with open(path, "w") as f:
        f.write("host," + ",".join(names[i] for i in order) + "\n")
        for i in order:
            f.write(names[i] + "," + ",".join("" if i == j else cell(i, j) for j in order) + "\n")

def lat(i, j):
    v = lat_lv[tier(i, j)] * (1 + rnd.uniform(-0.03, 0.03))
    return "%.3f" % (v + (0.6 if slow in (i, j) else 0))

def bw(i, j):
    v = bw_lv[tier(i, j)] * (1 + rnd.uniform(-0.03, 0.03))
    return "%.3f" % (v * (0.25 if (i, j) == bad else 1))

write(out + "/lat.csv", lat)
write(out + "/bw.csv", bw)
with open(out + "/truth.csv", "w") as f:
    f.write("host,leaf,spine\n")
    for i in range(n):
        f.write("%s,%d,%d\n" % (names[i], leaf[i], spine[i]))
meta = {"tool": "fabprobe", "version": "synthetic", "run_id": "synthetic-%d" % n, "command": "run",
        "argv": ["fabprobe", "run", "(synthetic matrices)"], "started_utc": "2026-01-01T00:00:00Z",
        "finished_utc": "2026-01-01T00:10:00Z", "exit_code": 1, "status": "failed", "ranks": n,
        "nodes": n, "endpoints": n, "mpi_library": "none (synthetic)", "hosts": [names[i] for i in order]}
with open(out + "/meta.json", "w") as f:
    json.dump(meta, f, indent=1)
