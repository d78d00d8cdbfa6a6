#!/usr/bin/env bash
# fabprobe topo offline: a fixture matrix gives the hand-checked files; every YAML parses;
# Slurm's parser expands the hostlists to the right nodes; bad input is refused with
# file:line; names a format cannot hold are never written corrupt.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=${FABPROBE:-./fabprobe}
FIX=tests/fixtures/topo
tmp=$(mktemp -d /tmp/fp-topo-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

$FP topo $FIX/racks332.csv -o "$tmp/a" --slots 4 > "$tmp/a.out" 2>&1
expect "topo on a fixture matrix: exit 0" [ $? -eq 0 ]
# the racks of the fixture, its order and its Slurm files are checked by hand (racks {01,03,07},
# {02,05,08}, {04,06}; a depth-first walk, natural order); the node offsets are the model's
# own figures, so they are held to what the matrix allows (no node is slow: every in-rack
# pair lies within 14.47..15.58 us, so no offset reaches 0.6 us) and to their definition
# (against the median node: one of them is 0), not to a copy of an earlier output
for f in topology.conf topology-block.conf node-order.txt; do
	expect "$f matches the hand-checked file" diff <(grep -v '^#' "$tmp/a/$f") "$FIX/racks332.expected/$f"
done
expect "topology.csv: racks and order match the hand-checked file" diff <(grep -v '^#' "$tmp/a/topology.csv" | cut -d, -f1-4) "$FIX/racks332.expected/topology.csv"
expect "topology.csv: offsets within 0.6 us, the median node at 0" awk -F, 'NR == 1 { ok = ($5 == "offset_us"); next } { a = $5 < 0 ? -$5 : $5; if (a >= 0.6) ok = 0; if (a < 0.0005) zero++ } END { exit !(ok && zero >= 1) }' "$tmp/a/topology.csv"
expect "topology.conf has a comment header saying how it was made" grep -q '^# fabprobe .* topo, from .*racks332.csv' "$tmp/a/topology.conf"
expect "tiers.csv: 2 tiers, leaf p50 ~15 us, spine p50 ~80 us" awk -F, 'NR == 2 && $3 == 3 && $5 > 14 && $5 < 16 { a = 1 } NR == 3 && $3 == 1 && $5 > 75 && $5 < 85 { b = 1 } END { exit !(a && b && NR == 3) }' "$tmp/a/tiers.csv"
expect "suspects.csv has only its header" [ "$(wc -l < "$tmp/a/suspects.csv")" -eq 1 ]
expect "SLURM_HOSTFILE: 4 lines per host, hosts in tree order" diff <(uniq -c "$tmp/a/slurm-hostfile" | awk '{ print $1, $2 }') <(awk '{ print 4, $1 }' "$FIX/racks332.expected/node-order.txt")
expect "Open MPI hostfile: slots=4 in tree order" diff <(grep -v '^#' "$tmp/a/hostfile.openmpi") <(awk '{ print $1, "slots=4" }' "$FIX/racks332.expected/node-order.txt")
expect "rankfile: 32 ranks, rank 4 on the second host" grep -qx 'rank 4=node03 slot=0' "$tmp/a/rankfile.openmpi"
expect "MPICH machinefile: host:4" grep -qx 'node07:4' "$tmp/a/machinefile.mpich"

# every YAML parses, and says what it should
expect "YAML files parse and hold the expected objects" python3 - "$tmp/a" <<'PY'
import sys, yaml
d = sys.argv[1]
topo = yaml.safe_load(open(d + "/topology.yaml"))
assert [t["topology"] for t in topo] == ["fabprobe-tree", "fabprobe-block"]
assert topo[0]["cluster_default"] is True and len(topo[0]["tree"]["switches"]) == 4
assert topo[1]["block"]["block_sizes"] == [2, 4] and len(topo[1]["block"]["blocks"]) == 3
nodes = list(yaml.safe_load_all(open(d + "/k8s-node-labels.yaml")))
nodes = [n for n in nodes if n]
assert len(nodes) == 8 and all(n["kind"] == "Node" for n in nodes)
assert nodes[0]["metadata"]["labels"] == {"fabprobe/tier-0": "leaf00", "fabprobe/tier-1": "spine00"}
k = yaml.safe_load(open(d + "/kueue-topology.yaml"))
assert k["kind"] == "Topology" and [l["nodeLabel"] for l in k["spec"]["levels"]] == ["fabprobe/tier-1", "fabprobe/tier-0", "kubernetes.io/hostname"]
hn = [h for h in yaml.safe_load_all(open(d + "/volcano-hypernodes.yaml")) if h]
assert [h["spec"]["tier"] for h in hn] == [1, 1, 1, 2]
assert [m["selector"]["exactMatch"]["name"] for m in hn[3]["spec"]["members"]] == ["leaf00", "leaf01", "leaf02"]
assert all(m["type"] == "Node" for m in hn[2]["spec"]["members"]) and len(hn[2]["spec"]["members"]) == 2
PY
expect "kubectl label lines: one per node, both tiers" [ "$(grep -c "^kubectl label node 'node0[1-8]' 'fabprobe/tier-0=leaf0[0-2]' 'fabprobe/tier-1=spine00' --overwrite\$" "$tmp/a/k8s-node-labels.sh")" -eq 8 ]

# NVLink domains from the inventory's gpus.csv: one Slurm block per domain (never the leaves),
# each node labelled, Kueue's domain level; the files checked against Slurm's block grammar
# and Kueue's Topology rules; a domain that is not one is refused with file:line
A=7d1e53a4-2c3b-4f65-9d1c-0c1f2e3a4b5c.32766 B=c0ffee00-1234-4abc-8def-00112233aa01.32766 C=5a5a5a5a-0f0f-4e4e-8d8d-123456789abc.32766
{ echo "host,index,nvlink_domain"
  for h in node01 node03 node07; do echo "$h,0,$A"; echo "$h,1,$A"; done
  for h in node02 node05 node08; do echo "$h,0,$B"; echo "$h,1,$B"; done
  for h in node04 node06; do echo "$h,0,$C"; echo "$h,1,$C"; done; } > "$tmp/gpus.csv"
$FP topo $FIX/racks332.csv --gpus "$tmp/gpus.csv" -o "$tmp/nvd" > "$tmp/nvd.out" 2>&1
expect "topo --gpus: exit 0" [ $? -eq 0 ]
expect "topology-block.conf: a block per NVLink domain in the map's order, sizes 2,4" \
	diff <(grep -v '^#' "$tmp/nvd/topology-block.conf") <(printf 'BlockName=b00 Nodes=node[01,03,07]\nBlockName=b01 Nodes=node[02,05,08]\nBlockName=b02 Nodes=node[04,06]\nBlockSizes=2,4\n')
expect "topology-block.conf says its blocks are the NVLink domains" grep -q '^# one block per NVLink domain (3)' "$tmp/nvd/topology-block.conf"
if command -v scontrol > /dev/null; then
	printf 'ClusterName=fp\nSlurmctldHost=localhost\n' > "$tmp/slurm-b.conf"
	expect "topology-block.conf: Slurm's block grammar holds (Slurm >= 23.11)" \
		sh -c "/usr/bin/python3 tests/integration/slurm_block_check.py '$tmp/nvd/topology-block.conf' '$tmp/slurm-b.conf' | grep -qx 'ok: 3 blocks, 0 placeholders, sizes \[2, 4\]; needs Slurm >= 23.11'"
fi
expect "k8s labels: each node's NVLink domain, as nvidia.com/gpu.clique has it" \
	[ "$(grep -c "'fabprobe/nvlink-domain=$A' --overwrite\$" "$tmp/nvd/k8s-node-labels.sh")" -eq 3 ]
expect "Kueue Topology v1beta2: the domain level above the node, valid by Kueue's rules" /usr/bin/python3 - "$tmp/nvd/kueue-topology.yaml" <<'PY'
import re, sys, yaml
k = yaml.safe_load(open(sys.argv[1]))
assert k["apiVersion"] == "kueue.x-k8s.io/v1beta2" and k["kind"] == "Topology"
levels = [l["nodeLabel"] for l in k["spec"]["levels"]]
assert levels == ["fabprobe/tier-1", "fabprobe/tier-0", "fabprobe/nvlink-domain", "kubernetes.io/hostname"], levels
# Kueue's CRD: 1 to 8 levels, each a label name, unique, kubernetes.io/hostname only last
assert 1 <= len(levels) <= 8 and len(set(levels)) == len(levels)
name = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
assert all(name.match(l) and len(l) <= 316 for l in levels)
assert "kubernetes.io/hostname" not in levels[:-1]
PY
sed "s/,$C\$/,$C-x/" "$tmp/gpus.csv" > "$tmp/gpus-bad.csv"
$FP topo $FIX/racks332.csv --gpus "$tmp/gpus-bad.csv" -o "$tmp/dbad" > "$tmp/dbad.out" 2>&1
expect "topo --gpus with a domain that is not one: exit 2, naming file and line" \
	sh -c "[ $? -eq 2 ] && grep -q 'gpus-bad.csv:14: nvlink_domain is not <cluster UUID>.<clique id>' '$tmp/dbad.out'"
printf 'host,index,model\nnode01,0,H100\n' > "$tmp/gpus-old.csv"
$FP topo $FIX/racks332.csv --gpus "$tmp/gpus-old.csv" -o "$tmp/dold" > /dev/null 2>&1
expect "topo --gpus of a gpus.csv without nvlink_domain: the blocks are the leaves, as before" \
	diff <(grep -v '^#' "$tmp/dold/topology-block.conf") "$FIX/racks332.expected/topology-block.conf"

# Slurm's own parser reads the leaves back to the racks of the fixture
if command -v scontrol > /dev/null; then
	printf 'ClusterName=fp\nSlurmctldHost=localhost\n' > "$tmp/slurm.conf"
	got=$(grep '^SwitchName=leaf' "$tmp/a/topology.conf" | sed 's/.*Nodes=//' | while read -r hl; do SLURM_CONF=$tmp/slurm.conf scontrol show hostnames "$hl" | tr '\n' ' '; echo; done)
	expect "scontrol expands the leaves to the three racks" [ "$got" = "node01 node03 node07 
node02 node05 node08 
node04 node06 " ]
else
	skip "scontrol expands the leaves" "scontrol not installed (slurm-client)"
fi

# a custom label prefix, and one Kubernetes cannot take
$FP topo $FIX/racks332.csv -o "$tmp/b" --label-prefix topo.example.com > /dev/null 2>&1
expect "--label-prefix is used" grep -q 'topo.example.com/tier-0=leaf00' "$tmp/b/k8s-node-labels.sh"
$FP topo $FIX/racks332.csv -o "$tmp/c" --label-prefix Bad_Prefix > "$tmp/c.out" 2>&1
expect "bad --label-prefix refused with exit 2" [ $? -eq 2 ]

# host names Kubernetes cannot take: those files are not written, the others are, exit 2
sed 's/node01/Node_01/g' $FIX/racks332.csv > "$tmp/upper.csv"
$FP topo "$tmp/upper.csv" -o "$tmp/d" > "$tmp/d.out" 2>&1
rc=$?
expect "unrepresentable k8s names: exit 2" [ $rc -eq 2 ]
expect "unrepresentable k8s names: no k8s file, the reason named" sh -c "[ ! -e '$tmp/d/k8s-node-labels.sh' ] && [ ! -e '$tmp/d/k8s-node-labels.sh.tmp' ] && grep -q \"'Node_01' is not a Kubernetes node name\" '$tmp/d.out'"
expect "unrepresentable k8s names: Slurm files still written" grep -q 'Node_01' "$tmp/d/topology.conf"

# bad input: the message names the file and line
bad_case() { # NAME EXPECTED-TEXT FILE-CONTENT
	printf '%b' "$3" > "$tmp/bad.csv"
	$FP topo "$tmp/bad.csv" -o "$tmp/bad-out-$RANDOM" > "$tmp/bad.out" 2>&1
	local rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$2" "$tmp/bad.out"; then ok "bad input: $1"; else notok "bad input: $1" "rc=$rc $(head -c 300 "$tmp/bad.out")"; fi
}
bad_case "not a number" "bad.csv:3: column 2 ('a'): 'x1' is not a non-negative number" 'host,a,b\na,,1\nb,x1,\n'
bad_case "negative" "bad.csv:2: column 3 ('b'): '-1' is not" 'host,a,b\na,,-1\nb,1,\n'
bad_case "short row" "bad.csv:3: 2 cells, expected 3" 'host,a,b\na,,1\nb,1\n'
bad_case "missing row" "bad.csv:3: expected 2 rows, found 1" 'host,a,b\na,,1\n'
bad_case "rows out of order" "bad.csv:2: row 'b' where the header says 'a'" 'host,a,b\nb,1,\na,,1\n'
bad_case "extra row" "bad.csv:4: more rows than columns" 'host,a,b\na,,1\nb,1,\nc,1,1\n'
bad_case "not a matrix" "no column 'path': not a fabprobe p2p.csv" 'hello,world\n'
$FP topo "$tmp/none.csv" > "$tmp/u.out" 2>&1
expect "missing input: exit 2 naming it" sh -c "[ $? -eq 2 ] && grep -q 'none.csv: no such file' '$tmp/u.out'"
$FP topo $FIX/racks332.csv -o "$tmp/a" > "$tmp/u.out" 2>&1
expect "non-empty -o refused" sh -c "[ $? -eq 2 ] && grep -q 'not empty' '$tmp/u.out'"
$FP topo > /dev/null 2>&1
expect "no input: exit 2" [ $? -eq 2 ]

# from a p2p run's directory (single node: every rank an endpoint), written into it, once
if "${MPIRUN_LOCAL[@]}" -np 3 $FP p2p -n 100 -s 64K -W 4 --bw-iters 1 -c 1 --no-progress -o "$tmp/run" > /dev/null 2>&1; then
	$FP topo "$tmp/run" > "$tmp/run.out" 2>&1
	expect "topo into a p2p results directory: exit 2 (rank names are no k8s names) and files there" sh -c "[ $? -eq 2 ] && [ -s '$tmp/run/topology.conf' ] && [ \$(grep -c . '$tmp/run/node-order.txt') -eq 3 ]"
	$FP topo "$tmp/run" > "$tmp/run2.out" 2>&1
	expect "a second topo into the same directory is refused" sh -c "[ $? -eq 2 ] && grep -q 'already holds a topology' '$tmp/run2.out'"
else
	notok "p2p run for topo input" "mpirun failed"
fi
# an uncertain tier: pairs of nodes under switches of their own, 3 such switches under each of
# 3 spines, the pairs' step a quarter of the spine's (10, 16.25, 41.25 us, 1% noise): the map
# keeps 3 tiers and says tier 0 is uncertain; every scheduler file is written from the
# certain tiers (3 leaves of 6), never from the one fabprobe is unsure of
awk 'BEGIN { srand(7); n = 18; printf "host"; for (j = 0; j < n; j++) printf ",n%02d", j + 1; print "";
	for (i = 0; i < n; i++) { printf "n%02d", i + 1; for (j = 0; j < n; j++) {
		l = int(i / 2) == int(j / 2) ? 10 : int(i / 6) == int(j / 6) ? 16.25 : 41.25
		printf i == j ? "," : ",%.3f", l * (1 + 0.01 * (rand() + rand() + rand() - 1.5)) } print "" } }' > "$tmp/quarter.csv"
$FP topo "$tmp/quarter.csv" -o "$tmp/q" > "$tmp/q.out" 2>&1
expect "a tier at a quarter of the others' step: 3 tiers, tier 0 uncertain on the terminal and in tiers.csv" sh -c \
	"grep -q 'latency map: 3 tiers' '$tmp/q.out' && grep -q 'tier 0 (leaf): 9 groups.*UNCERTAIN' '$tmp/q.out' &&
	 awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i } NR == 2 { a = \$c[\"uncertain\"] } NR == 3 { b = \$c[\"uncertain\"] } END { exit !(a == 1 && b == 0) }' '$tmp/q/tiers.csv'"
expect "the uncertain tier: topology.conf holds the 3 spines' groups as its leaves, under one top switch" sh -c \
	"[ \$(grep -c '^SwitchName=.* Nodes=' '$tmp/q/topology.conf') -eq 3 ] && grep -q 'Nodes=n\[01-06\]' '$tmp/q/topology.conf' &&
	 [ \$(grep -c '^SwitchName=.* Switches=' '$tmp/q/topology.conf') -eq 1 ]"
expect "the uncertain tier: Kubernetes labels from the certain tiers only (leaves of 6, no third tier)" python3 - "$tmp/q" <<'PY'
import sys, yaml
d = sys.argv[1]
nodes = [x for x in yaml.safe_load_all(open(d + "/k8s-node-labels.yaml")) if x]
leaves = {}
for x in nodes:
    lb = x["metadata"]["labels"]
    assert "fabprobe/tier-2" not in lb, lb
    leaves.setdefault(lb["fabprobe/tier-0"], set()).add(x["metadata"]["name"])
assert sorted(len(v) for v in leaves.values()) == [6, 6, 6], leaves
PY

exit $((FAILED > 0))
