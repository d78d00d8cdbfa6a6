#!/usr/bin/env python3
"""slurm_block_check.py FILE [SLURM_CONF]: a topology/block topology.conf checked against the
grammar of topology.conf(5) and the rules Slurm's block reader enforces (Slurm 22.05, the
emulated cluster's, has no topology/block to load it):
  - lines are `BlockName=<name> [Nodes=<hostlist>]` or `BlockSizes=<n>[,<n>...]`, keys case
    insensitive, `#` starts a comment;
  - block names are given and unique;
  - BlockSizes are positive, each a power-of-two multiple of the first (at most 2^15 of it);
  - a node is in at most one block;
  - before Slurm 25.05 every block has nodes and at least the first BlockSize of them; from
    25.05 a block without nodes is a placeholder, and a smaller block is taken.
Hostlists are expanded by `scontrol show hostnames` (SLURM_CONF given: Slurm's own parser).
Prints `ok: N blocks, M placeholders, sizes S; needs Slurm >= V` or the first error, exit 1."""
import os
import re
import subprocess
import sys


def hostnames(expr, conf):
    env = dict(os.environ, SLURM_CONF=conf) if conf else None
    out = subprocess.run(["scontrol", "show", "hostnames", expr], capture_output=True, text=True, env=env)
    if out.returncode:
        sys.exit(f"error: Nodes={expr}: scontrol cannot expand it: {out.stderr.strip()}")
    return out.stdout.split()


def main():
    path = sys.argv[1]
    conf = sys.argv[2] if len(sys.argv) > 2 else None
    blocks, sizes, seen = [], None, {}
    for n, raw in enumerate(open(path, encoding="ascii"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = dict()
        for w in line.split():
            k, eq, v = w.partition("=")
            if not eq or not v:
                sys.exit(f"error: {path}:{n}: '{w}' is not Key=Value")
            words[k.lower()] = v
        if "blocksizes" in words:
            if len(words) != 1 or sizes is not None:
                sys.exit(f"error: {path}:{n}: BlockSizes stands alone, once")
            if not re.fullmatch(r"[0-9]+(,[0-9]+)*", words["blocksizes"]):
                sys.exit(f"error: {path}:{n}: BlockSizes '{words['blocksizes']}' is not a list of counts")
            sizes = [int(x) for x in words["blocksizes"].split(",")]
            base = sizes[0]
            for s in sizes:
                q = s // base if base else 0
                if s <= 0 or s % base or q & (q - 1) or q > 1 << 15:
                    sys.exit(f"error: {path}:{n}: BlockSizes {s} is not a power-of-two multiple of {base}")
            if sizes != sorted(set(sizes)):
                sys.exit(f"error: {path}:{n}: BlockSizes not increasing")
            continue
        if set(words) - {"blockname", "nodes"} or "blockname" not in words:
            sys.exit(f"error: {path}:{n}: a line is BlockName=<name> [Nodes=<hostlist>]")
        name = words["blockname"]
        if name in [b[0] for b in blocks]:
            sys.exit(f"error: {path}:{n}: block {name} defined twice")
        nodes = hostnames(words["nodes"], conf) if "nodes" in words else []
        for h in nodes:
            if h in seen:
                sys.exit(f"error: {path}:{n}: node {h} in blocks {seen[h]} and {name}")
            seen[h] = name
        blocks.append((name, nodes))
    if not blocks:
        sys.exit(f"error: {path}: no block")
    base = sizes[0] if sizes else min(len(b[1]) for b in blocks)
    empty = [b[0] for b in blocks if not b[1]]
    small = [b[0] for b in blocks if b[1] and len(b[1]) < base]
    need = "25.05" if empty or small else "23.11"
    print(f"ok: {len(blocks)} blocks, {len(empty)} placeholders, sizes {sizes}; needs Slurm >= {need}")


main()
