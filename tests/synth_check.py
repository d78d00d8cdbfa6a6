#!/usr/bin/env python3
"""synth_check.py TRUTH.csv RESULTS-DIR [--allow KIND,...]

Compare what `fabprobe topo` inferred (topology.csv, suspects.csv in RESULTS-DIR) with the
truth file of tests/synth_fabric.c. Exact means: at every switch level that can be seen in
latencies (more than one group, not every node alone, not the same as the level below) the
inferred groups equal the true ones up to their names, the inferred tiers are those levels plus
one top group, the planted slow nodes are exactly the slow_node suspects, and there is no other
suspect (but of the kinds allowed). Prints one line; exit 0 when exact, 1 when not."""
import csv
import sys


def partition(labels):
    groups = {}
    for host, g in labels.items():
        groups.setdefault(g, set()).add(host)
    return sorted(sorted(s) for s in groups.values())


def main():
    truth_file, out = sys.argv[1], sys.argv[2]
    allow = set()
    if len(sys.argv) > 4 and sys.argv[3] == "--allow":
        allow = set(sys.argv[4].split(","))
    with open(truth_file) as f:
        truth = list(csv.DictReader(f))
    levels = [k for k in truth[0] if k.startswith("level")]
    n = len(truth)
    want = []
    for lv in levels:
        p = partition({r["host"]: r[lv] for r in truth})
        if len(p) <= 1 or len(p) == n or (want and p == want[-1]):
            continue
        want.append(p)
    slow = {r["host"] for r in truth if r["slow"] == "1"}
    with open(out + "/topology.csv") as f:
        topo = list(csv.DictReader(f))
    tiers = [k for k in topo[0] if k.startswith("tier")]
    problems = []
    if len(tiers) != len(want) + 1:
        problems.append("%d tiers, expected %d" % (len(tiers), len(want) + 1))
    for k, p in enumerate(want):
        if k < len(tiers) - 1:
            got = partition({r["host"]: r[tiers[k]] for r in topo})
            if got != p:
                wrong = sum(1 for g in got if g not in p)
                problems.append("tier %d: %d groups, expected %d (%d groups differ)" % (k, len(got), len(p), wrong))
    if len({r[tiers[-1]] for r in topo}) != 1:
        problems.append("top tier is not one group")
    with open(out + "/suspects.csv") as f:
        sus = list(csv.DictReader(f))
    named = {s["hosts"] for s in sus if s["kind"] == "slow_node"}
    if named != slow:
        problems.append("slow nodes %s, expected %s" % (sorted(named), sorted(slow)))
    other = {}
    for s in sus:
        if s["kind"] != "slow_node" and s["kind"] not in allow:
            other[s["kind"]] = other.get(s["kind"], 0) + 1
    if other:
        problems.append("other suspects: " + ", ".join("%s %d" % kv for kv in sorted(other.items())))
    if problems:
        print("NOT exact: " + "; ".join(problems))
        return 1
    print("exact: %d nodes, %d tiers, %d slow node%s named" % (n, len(tiers), len(slow), "" if len(slow) == 1 else "s"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
