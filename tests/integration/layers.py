#!/usr/bin/env python3
"""layers.py RULES ROOT: every #include "..." of the sources under ROOT/{bench,topo,kernels}
against the table of layers in RULES (docs/architecture.md, between the "layers" markers).
Prints one line per forbidden include (file:line: folder includes folder) and exits 1 when
there is one; 2 when the table or a folder is missing, or an include resolves to nothing."""
import os
import re
import sys

ROOTS = ("bench", "topo", "kernels")


def rules(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r"<!-- layers: begin -->(.*?)<!-- layers: end -->", text, re.S)
    if not m:
        sys.exit(f"{path}: no table between <!-- layers: begin --> and <!-- layers: end -->")
    table = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        table[cells[0].strip("`")] = set(re.findall(r"`([^`]+)`", cells[1]))
    return table


def folder(rel):
    parts = rel.split("/")
    if parts[:2] == ["topo", "fabric"] and len(parts) >= 4:
        return "/".join(parts[:3])
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def main():
    table = rules(sys.argv[1])
    root = sys.argv[2]
    bad = unresolved = 0
    for top in ROOTS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".cu")):
                    continue
                src = os.path.join(d, f)
                rel = os.path.relpath(src, root)
                own = folder(rel)
                if own not in table:
                    print(f"{rel}: folder {own} has no row in the table")
                    bad += 1
                    continue
                for n, line in enumerate(open(src, encoding="utf-8", errors="replace"), 1):
                    m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                    if not m:
                        continue
                    inc = m.group(1)
                    here = os.path.join(d, inc)
                    if "/" not in inc and os.path.exists(here):
                        target = own
                    else:
                        hits = [os.path.join(r, inc) for r in ROOTS if os.path.exists(os.path.join(root, r, inc))]
                        if not hits:
                            print(f"{rel}:{n}: \"{inc}\" resolves to no header of the tree")
                            unresolved += 1
                            continue
                        target = folder(hits[0])
                    if target != own and target not in table[own]:
                        print(f"{rel}:{n}: {own} includes {target} (\"{inc}\")")
                        bad += 1
    sys.exit(2 if unresolved else 1 if bad else 0)


main()
