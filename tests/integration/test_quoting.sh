#!/usr/bin/env bash
# Quoting round trip (core/escape.h): fabprobe topo on a fixture matrix whose path holds U+2028
# (a YAML 1.1 line break) and whose hosts are words YAML types (yes, 007, 1e3, null, 0x1f, on,
# 2024-01-01, 1.5): every YAML file loads with PyYAML (a YAML 1.1 loader) to the intended
# documents only, every host name back as the exact string; the kubectl lines pass bash -n and
# give a fake kubectl exactly the intended arguments; a name Kubernetes refuses (NO) leaves its
# files unwritten while topology.yaml still holds it as a string.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=${FABPROBE:-./fabprobe}
tmp=$(mktemp -d /tmp/fp-quote-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
in="$tmp/in$(printf '\xe2\x80\xa8')kind: Namespace"
mkdir -p "$in"
names='node01/yes node02/007 node03/1e3 node04/null node05/0x1f node06/on node07/2024-01-01 node08/1.5'
rename() { # rename FILE, then the hosts as in $names (node08 as $1 when given)
	local s=""
	for n in $names; do s="$s s/${n%/*}/${n#*/}/g;"; done
	[ -n "${1:-}" ] && s="s/node08/$1/g; $s"
	sed "$s" tests/fixtures/topo/racks332.csv
}
rename > "$in/m.csv"
$FP topo "$in/m.csv" -o "$tmp/a" > "$tmp/a.out" 2>&1
expect "topo from a path with U+2028, hosts named yes, 007, 1e3, null, 0x1f, …: exit 0" [ $? -eq 0 ]
expect "the YAML and shell files are ASCII only" sh -c "! LC_ALL=C grep -l '[^ -~]' '$tmp/a'/*.yaml '$tmp/a'/*.sh"
expect "the comment header shows U+2028 as \\xe2\\x80\\xa8" grep -qF 'in\xe2\x80\xa8kind: Namespace' "$tmp/a/topology.yaml"

expect "YAML files: no extra document, every host name back as the exact string" python3 - "$tmp/a" $names <<'PY'
import re, sys, yaml
d, hosts = sys.argv[1], {n.split("/")[1] for n in sys.argv[2:]}
def expand(expr):  # a Slurm hostlist: name, prefix[a-b,c]suffix, comma-separated
    out = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\][^,\[]*)?", expr):
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", part)
        if not m:
            out.append(part); continue
        for r in m.group(2).split(","):
            a, _, b = r.partition("-")
            out += [m.group(1) + str(i).zfill(len(a)) + m.group(3) for i in range(int(a), int(b or a) + 1)]
    return out
def docs(f):
    v = [x for x in yaml.safe_load_all(open(d + "/" + f)) if x is not None]
    assert all(isinstance(x, (dict, list)) for x in v), f
    return v
topo = docs("topology.yaml")
assert len(topo) == 1 and [t["topology"] for t in topo[0]] == ["fabprobe-tree", "fabprobe-block"]
sw = topo[0][0]["tree"]["switches"]
leaf = [s for s in sw if "nodes" in s]
assert all(type(s["nodes"]) is str and type(s["switch"]) is str for s in leaf)
assert sorted(h for s in leaf for h in expand(s["nodes"])) == sorted(hosts), leaf
blocks = topo[0][1]["block"]["blocks"]
assert sorted(h for b in blocks for h in expand(b["nodes"])) == sorted(hosts)
nodes = docs("k8s-node-labels.yaml")
assert len(nodes) == 8 and all(n["kind"] == "Node" for n in nodes)
assert sorted(n["metadata"]["name"] for n in nodes) == sorted(hosts)
assert all(type(n["metadata"]["name"]) is str for n in nodes)
assert all(sorted(n["metadata"]["labels"]) == ["fabprobe/tier-0", "fabprobe/tier-1"] for n in nodes)
k = docs("kueue-topology.yaml")
assert len(k) == 1 and k[0]["kind"] == "Topology"
hn = docs("volcano-hypernodes.yaml")
assert len(hn) == 4 and all(h["kind"] == "HyperNode" for h in hn)
members = [m["selector"]["exactMatch"]["name"] for h in hn if h["spec"]["tier"] == 1 for m in h["spec"]["members"]]
assert all(type(m) is str for m in members) and sorted(members) == sorted(hosts)
# what the kubectl lines must say: one line per Node object, in its order
with open(d + "/expected.args", "w") as f:
    for n in nodes:
        labels = n["metadata"]["labels"]
        args = ["label", "node", n["metadata"]["name"]] + ["%s=%s" % (l, labels[l]) for l in sorted(labels)]
        f.write("".join("[%s]" % a for a in args + ["--overwrite"]) + "\n")
PY
sh="$tmp/a/k8s-node-labels.sh"
expect "k8s-node-labels.sh passes bash -n" bash -n "$sh"
bash -c 'kubectl() { printf "[%s]" "$@"; echo; }; . "$1"' _ "$sh" > "$tmp/a/got.args" 2> "$tmp/a/got.err"
expect "k8s-node-labels.sh gives kubectl exactly the intended arguments" diff "$tmp/a/got.args" "$tmp/a/expected.args"
expect "k8s-node-labels.sh runs nothing but kubectl" [ ! -s "$tmp/a/got.err" ]

# NO: a Slurm name, no Kubernetes one (upper case): the k8s files are not written
rename NO > "$in/m2.csv"
$FP topo "$in/m2.csv" -o "$tmp/b" > "$tmp/b.out" 2>&1
expect "a host named NO: exit 2 (no Kubernetes name)" [ $? -eq 2 ]
expect "a host named NO: no k8s file written" sh -c "! ls '$tmp/b' | grep -q -e '^k8s-' -e '^kueue' -e '^volcano'"
expect "a host named NO: topology.yaml holds it as the string NO" python3 - "$tmp/b/topology.yaml" <<'PY'
import sys, yaml
t = yaml.safe_load(open(sys.argv[1]))
nodes = ",".join(s["nodes"] for s in t[0]["tree"]["switches"] if "nodes" in s)
assert "NO" in nodes.split(","), nodes
PY

# the terminal: host names and paths holding ESC[2J, an OSC title and BEL are shown as \xHH
esc=$(printf '\033') bel=$(printf '\a')
clean() { ! LC_ALL=C grep -q -e "$esc" -e "$bel" "$1"; } # FILE holds no raw ESC or BEL
sed "s/node01/n$esc[2J$esc]0;x$bel/g" tests/fixtures/topo/racks332.csv > "$tmp/esc.csv"
$FP topo "$tmp/esc.csv" -o "$tmp/c" > "$tmp/c.out" 2>&1
expect "a host named ESC[2J: each of the 12 files refusing it shows it as \\x1b[2J…" [ "$(grep -cF "host name 'n\x1b[2J\x1b]0;x\x07'" "$tmp/c.out")" -eq 12 ]
expect "a host named ESC[2J: no raw ESC or BEL reaches the terminal" clean "$tmp/c.out"
$FP topo "$tmp/no$esc[2J.csv" > "$tmp/d.out" 2>&1
expect "topo on a missing path holding ESC[2J: shown escaped" grep -qF 'no\x1b[2J.csv' "$tmp/d.out"
$FP compare "$tmp/b$esc[H" "$tmp/n$esc]0;t$bel" > "$tmp/e.out" 2>&1
$FP report "$tmp/r$esc[H" >> "$tmp/e.out" 2>&1
expect "compare and report on paths holding ESC and BEL: no raw byte reaches the terminal" clean "$tmp/e.out"
exit $((FAILED > 0))
