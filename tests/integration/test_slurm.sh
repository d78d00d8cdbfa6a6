#!/usr/bin/env bash
# Slurm as the launcher, on the emulated cluster with Slurm (scripts/fakecluster.sh up --slurm:
# slurmctld on a head node, a slurmd per node, Debian's Slurm): racks 3,3,2 with node names
# dealt across them. `srun --mpi=pmix ./fabprobe run` on every node, the host names fully
# qualified and Slurm's node names short: every Slurm file names the Slurm nodes; the
# topology.conf it wrote, installed into the running slurmctld, is what `scontrol show
# topology` shows and equals the inferred groups; `srun -N 2 --switches=1` then lands on one
# inferred leaf (without it, on two racks); SLURM_HOSTFILE=slurm-hostfile places the ranks in
# the file's order; `salloc mpirun ./fabprobe p2p` works; scripts/fabprobe.sbatch runs and
# passes fabprobe's exit code on; `down` leaves no daemon, namespace or state, also after
# slurmctld was killed under a running job. Needs root and Slurm's daemons; skipped otherwise.
# The emulated cluster is shared: run it (as make check) under flock /tmp/fabprobe-cluster.lock.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh
FC=scripts/fakecluster.sh
STATE=/run/fabprobe-fakecluster
TRUTH=$STATE/truth.csv
SLURM_ETC=$STATE/slurm/etc
if [ "$(id -u)" -ne 0 ]; then
	skip "Slurm on the emulated cluster" "needs root for network namespaces"
	exit 0
fi
for t in slurmctld:slurmctld slurmd:slurmd srun:slurm-client munged:munge; do
	if ! command -v "${t%%:*}" >/dev/null; then
		skip "Slurm on the emulated cluster" "${t%%:*} is not installed (Debian package ${t#*:}; scripts/install-deps.sh installs it)"
		exit 0
	fi
done
tmp=$(mktemp -d /tmp/fp-slurm-XXXXXX) # on the file system every emulated node shares
chmod 755 "$tmp"
trap '$FC down > /dev/null 2>&1; rm -rf "$tmp"' EXIT
HEAD() { $FC exec head "$@"; }
Q=(-c 1 -n 300 --lat-warmup 30 -W 16 --bw-iters 2 --bw-warmup 1 --no-progress)
N=8

# same_groups CSV-A COL-A CSV-B COL-B: the two files group the hosts the same way
same_groups() {
	[ "$(awk -F, -v c="$2" 'NR > 1 { g[$c] = g[$c] " " $1 } END { for (k in g) print g[k] }' "$1" | sort)" = \
	  "$(awk -F, -v c="$4" 'NR > 1 { g[$c] = g[$c] " " $1 } END { for (k in g) print g[k] }' "$3" | sort)" ]
}
# switches FILE|-: "name nodes=a,b switches=x,y" per switch of a topology.conf or of `scontrol
# show topology`, host lists expanded and sorted (a switch with Switches= is compared by them)
switches() {
	local name nodes sw
	while IFS='|' read -r name nodes sw; do
		nodes=$([ -z "$nodes" ] || HEAD scontrol show hostnames "$nodes" | sort | paste -sd, -)
		sw=$([ -z "$sw" ] || HEAD scontrol show hostnames "$sw" | sort | paste -sd, -)
		[ -z "$sw" ] || nodes=''
		echo "$name nodes=$nodes switches=$sw"
	done < <(grep -v '^#' "$1" | awk '{ name = n = s = ""; for (i = 1; i <= NF; i++) {
		if ($i ~ /^SwitchName=/) name = substr($i, 12)
		if ($i ~ /^Nodes=/) n = substr($i, 7)
		if ($i ~ /^Switches=/) s = substr($i, 10) }
		if (name != "") print name "|" n "|" s }') | sort
}
# leaf_of HOST: its tier-0 group in the run's topology.csv
leaf_of() { awk -F, -v h="$1" '$1 == h { print $3 }' "$tmp/run/topology.csv"; }
# daemons: Slurm's daemons and steps still alive, and the cluster's munged (zombies are dead:
# they wait only for init to reap them)
daemons() {
	ps -eo stat=,comm=,args= | awk -v s="$STATE" '$1 !~ /^Z/ &&
		($2 ~ /^(slurmctld|slurmd|slurmstepd)$/ || ($2 == "munged" && index($0, s)))' | wc -l
}

start=$(date +%s)
$FC up --racks 3,3,2 --interleave --slurm --degrade node05=500mbit > "$tmp/up.out" 2>&1
expect "up --slurm: 8 nodes in 3 racks with slurmctld and a slurmd each" grep -q "up: 8 nodes in 3 racks" "$tmp/up.out"
expect "sinfo: the $N nodes idle in partition all" [ "$(HEAD sinfo -h -p all -t idle -o %D 2>/dev/null)" = "$N" ]
expect "a second up --slurm with the same options does nothing" sh -c "$FC up --racks 3,3,2 --interleave --slurm --degrade node05=500mbit | grep -q 'already up'"
# the premise of --switches below: with one switch over all nodes, Slurm takes node01 and node02,
# which the interleaved names put in two racks
pair=$(HEAD timeout 60 srun -N 2 hostname 2>/dev/null | sort | paste -sd' ' -)
expect "control: without a topology, srun -N 2 lands on two racks ($pair)" \
	[ "$(awk -F, -v p=" $pair " 'NR > 1 && index(p, " " $1 " ") { print $2 }' $TRUTH | sort -u | wc -l)" -eq 2 ]

# fabprobe run under srun, each task with a fully qualified host name (Open MPI keeps it as the
# processor name with orte_keep_fqdn_hostnames) while Slurm's node names are short; node05's
# link slowed, and its eth0 taken down and up (task 4) before the link counters' second read
# SLURM_PMIX_FENCE=tree and --wait, as fabprobe.sbatch has them (docs/schedulers.md): with
# Slurm's default fences (a ring, then a tree) Open MPI 4.1 crashed a task inside MPI_Init in
# about 1 job in 25 here, and without --wait the others wait in their first collective until
# the bound. A run that made no results directory all the same is said and run once more.
# each node's NVML answers captured (tests/fixtures/mknvml.py): two NVLink domains of 4 nodes,
# node01-04 and node05-08, across the racks (the interleaved names)
/usr/bin/python3 tests/fixtures/mknvml.py "$tmp/nv" nvl72 --racks 2 --trays 4
for k in 1 2 3 4 5 6 7 8; do ln -s "$tmp/nv/$((k - 1))" "$tmp/nv/node0$k"; done
srun_run() {
	rm -rf "$tmp/run"
	HEAD timeout 150 srun --wait=30 -N $N --mpi=pmix --export=ALL,OMPI_MCA_orte_keep_fqdn_hostnames=1,SLURM_PMIX_FENCE=tree \
		unshare --uts sh -c 'hostname "$SLURMD_NODENAME.cluster.example" && exec "$@"' fqdn \
		./fabprobe run "${Q[@]}" -s 256K --no-coll --test-flap 4:eth0 --nvml-capture "$tmp/nv/%h" -o "$tmp/run" > "$tmp/run.out" 2>&1
}
srun_run
rc=$?
if [ $rc -gt 1 ] && [ ! -e "$tmp/run/meta.json" ]; then
	echo "# srun ./fabprobe run ended $rc before fabprobe made its results; again once:"
	grep -v '^ *node[0-9]* ' "$tmp/run.out" | head -n 8 | sed 's/^/#   /'
	sleep 2
	srun_run
	rc=$?
fi
# killed by the bound (124): how far it got, so that a slow run and a hung one read apart
if [ $rc -eq 124 ]; then
	echo "# srun ./fabprobe run killed after 150 s; its last lines, and the rows it wrote:"
	tail -n 8 "$tmp/run.out" | sed 's/^/#   /'
	for f in "$tmp"/run/*.csv; do [ -f "$f" ] && echo "#   $(basename "$f"): $(($(wc -l < "$f") - 1)) rows"; done
fi
expect "srun -N $N --mpi=pmix ./fabprobe run: finished with a verdict (exit $rc, $(grep -m 1 '^verdict: ' "$tmp/run.out"))" \
	sh -c "[ $rc -le 1 ] && grep -q '^verdict: ' '$tmp/run.out'"
expect "run under srun: racks 3,3,2 recovered exactly" same_groups "$tmp/run/topology.csv" 3 $TRUTH 2
expect "nodes.csv: host is the Slurm name, hostname the fully qualified one, on every node" \
	[ "$(awk -F, 'NR > 1 && $3 == $2 ".cluster.example" && $2 ~ /^node0[1-8]$/' "$tmp/run/nodes.csv" | wc -l)" -eq $N ]
for f in topology.conf topology-block.conf topology.yaml slurm-hostfile node-order.txt p2p.csv latency_mpi.csv; do
	expect "$f names the Slurm nodes, never the host names" sh -c \
		"grep -q 'node0[1-8]\|node\[' '$tmp/run/$f' && ! grep -q 'cluster.example' '$tmp/run/$f'"
done

# the NVLink domains reach the block topology, checked against Slurm's block grammar (22.05
# has no topology/block to load it), and the Kubernetes labels
blocks=$(grep '^BlockName=' "$tmp/run/topology-block.conf" | sed 's/^BlockName=b0[01] Nodes=//' | sort | paste -sd' ' -)
expect "topology-block.conf under srun: one block per NVLink domain, node[01-04] and node[05-08] ($blocks)" \
	sh -c "grep -q '^# one block per NVLink domain (2)' '$tmp/run/topology-block.conf' && [ '$blocks' = 'node[01-04] node[05-08]' ]"
printf 'ClusterName=fp\nSlurmctldHost=localhost\n' > "$tmp/block.conf"
expect "topology-block.conf: Slurm's block grammar holds ($(/usr/bin/python3 tests/integration/slurm_block_check.py "$tmp/run/topology-block.conf" "$tmp/block.conf" 2>&1))" \
	sh -c "/usr/bin/python3 tests/integration/slurm_block_check.py '$tmp/run/topology-block.conf' '$tmp/block.conf' | grep -q '^ok: 2 blocks, 0 placeholders, sizes \[4, 8\]'"
expect "k8s-node-labels.yaml: every node's NVLink domain" [ "$(grep -c '"fabprobe/nvlink-domain":' "$tmp/run/k8s-node-labels.yaml")" -eq $N ]

# the drain script, run as an admin would on the head node: node05 drained with the run's reason,
# no other node; --undrain resumes it (and only a node whose reason is still this run's)
run_id=$(sed -n 's/^ *"run_id": "\(.*\)",$/\1/p' "$tmp/run/meta.json" | head -n 1)
HEAD sh "$tmp/run/drain-slurm.sh" > "$tmp/drain.out" 2>&1
HEAD sinfo -R -h -o '%N|%E' > "$tmp/drained" 2>&1
expect "drain-slurm.sh on Slurm: node05, and no other node, drained by the run for its slowness and its flap ($(paste -sd' ' "$tmp/drained"))" \
	sh -c "[ \"\$(cut -d'|' -f1 '$tmp/drained')\" = node05 ] && grep -q '^node05|fabprobe $run_id: low_bw_node on .*link_flap eth0' '$tmp/drained'"
# (sinfo -t idle counts a drained node too: the states per node)
expect "sinfo: node05 drained, the 7 others idle" sh -c "[ \"\$($FC exec head sinfo -h -N -p all -o '%N %T' | grep -v ' idle\$')\" = 'node05 drained' ] &&
	[ \$($FC exec head sinfo -h -N -p all -o '%N %T' | grep -c ' idle\$') -eq 7 ]"
echo "# node05's drain reason: $(cut -d'|' -f2- "$tmp/drained")"
HEAD scontrol update NodeName=node03 State=DRAIN Reason="an admin's own reason"
# another run whose id begins with this one's drained node06: never this run's to resume
HEAD scontrol update NodeName=node06 State=DRAIN Reason="fabprobe ${run_id}2: low_bw_node on mpi"
# names a scheduler expands, and a node held for another reason, as if they had reached the
# script's commands (the writer refuses the first ones: tests/unit/test_emit.c): the script's
# own check skips each, drains nothing more, and says why
{ sed '/^printf .*nothing to drain/d' "$tmp/run/drain-slurm.sh"
  for n in ALL all Node05 firsttwo 'node0[1-2]' node01,node02 node03; do
	printf "node '%s' 'fabprobe %s: hostile'\n" "$n" "$run_id"
  done; } > "$tmp/hostile-drain.sh"
HEAD sh "$tmp/hostile-drain.sh" > "$tmp/hostile.out" 2>&1
expect "drain script fed ALL, all, a NodeSet, hostlists and a node held by hand: 6 skipped, node03 left as it is, nothing else drained ($(HEAD sinfo -R -h -o '%N' | paste -sd' ' -))" \
	sh -c "[ \$(grep -c '^skipped ' '$tmp/hostile.out') -eq 6 ] && grep -q '^left node03 as it is' '$tmp/hostile.out' &&
	[ \"\$($FC exec head sinfo -R -h -N -o '%N' | sort | paste -sd' ' -)\" = 'node03 node05 node06' ] &&
	[ \"\$($FC exec head scontrol show node node03 | sed -n 's/^ *Reason=//p' | cut -d'[' -f1)\" = \"an admin's own reason \" ]"
HEAD sh "$tmp/run/drain-slurm.sh" --undrain > "$tmp/undrain.out" 2>&1
expect "drain-slurm.sh --undrain: node05 resumed; node03 (by hand) and node06 (run ${run_id}2) left drained" \
	sh -c "[ \"\$($FC exec head sinfo -R -h -N -o '%N|%E' | sort | paste -sd' ' -)\" = \"node03|an admin's own reason node06|fabprobe ${run_id}2: low_bw_node on mpi\" ]"
HEAD scontrol update NodeName=node03,node06 State=RESUME
expect "sinfo: the $N nodes idle again" [ "$(HEAD sinfo -h -p all -t idle -o %D 2>/dev/null)" = "$N" ]

# why docs/schedulers.md says --mpi=pmix: Debian's Open MPI has no PMI-1/PMI-2 support
for mpi in none pmi2; do
	HEAD timeout 60 srun -N 2 --mpi=$mpi ./fabprobe p2p "${Q[@]}" -o "$tmp/mpi-$mpi" > "$tmp/mpi-$mpi.out" 2>&1
	rc=$?
	expect "srun --mpi=$mpi: Open MPI refuses to start (exit $rc, no results)" \
		sh -c "[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ ! -s '$tmp/mpi-$mpi/p2p.csv' ]"
done

# the loop closed: fabprobe's topology.conf into the running slurmctld
cp "$tmp/run/topology.conf" "$SLURM_ETC/topology.conf"
HEAD scontrol reconfigure
HEAD scontrol show topology > "$tmp/show-topology" 2>&1
switches "$tmp/run/topology.conf" > "$tmp/sw-file"
switches "$tmp/show-topology" > "$tmp/sw-slurm"
expect "scontrol show topology equals fabprobe's topology.conf ($(wc -l < "$tmp/sw-file") switches)" \
	sh -c "[ -s '$tmp/sw-file' ] && cmp -s '$tmp/sw-file' '$tmp/sw-slurm'"
leaves=$(awk '$2 != "nodes=" { print $2 }' "$tmp/sw-slurm" | sed 's/nodes=//; s/,/ /g' | sort)
inferred=$(awk -F, 'NR > 1 { g[$3] = g[$3] " " $1 } END { for (k in g) print g[k] }' "$tmp/run/topology.csv" |
	while read -r l; do tr ' ' '\n' <<< "$l" | sort | paste -sd' ' -; done | sort)
expect "Slurm's leaf switches are fabprobe's inferred groups" [ "$leaves" = "$inferred" ]
pair=$(HEAD timeout 60 srun -N 2 --switches=1 hostname 2>/dev/null | sort | paste -sd' ' -)
read -r a b <<< "$pair"
expect "srun -N 2 --switches=1: two nodes of one inferred leaf ($pair)" \
	sh -c "[ -n '$b' ] && [ '$(leaf_of "${a:-x}")' = '$(leaf_of "${b:-y}")' ] && [ -n '$(leaf_of "${a:-x}")' ]"

# ranks in slurm-hostfile's order
tasks=$(wc -l < "$tmp/run/slurm-hostfile")
HEAD env SLURM_HOSTFILE="$tmp/run/slurm-hostfile" timeout 60 srun -n "$tasks" --distribution=arbitrary \
	sh -c 'echo "$SLURM_PROCID $(hostname)"' 2>/dev/null | sort -n | cut -d' ' -f2 > "$tmp/placed"
expect "SLURM_HOSTFILE=slurm-hostfile srun --distribution=arbitrary: $tasks ranks in the file's order" \
	sh -c "[ $tasks -eq $N ] && cmp -s '$tmp/placed' '$tmp/run/slurm-hostfile'"

# mpirun inside salloc (Open MPI starts its daemons with srun); Slurm's names asked for
HEAD timeout 90 salloc -N $N mpirun ./fabprobe p2p "${Q[@]}" -s 64K --node-names slurm -o "$tmp/salloc" \
	> "$tmp/salloc.out" 2>&1
rc=$?
expect "salloc -N $N mpirun ./fabprobe p2p --node-names slurm: exit 0 (exit $rc)" [ "$rc" -eq 0 ]
expect "salloc: every ordered pair at both sizes ok" \
	[ "$(awk -F, 'NR > 1 && $20 == "ok" && $4 ~ /^node0[1-8]$/' "$tmp/salloc/p2p.csv" 2>/dev/null | wc -l)" -eq $((2 * N * (N - 1))) ]

# a launcher that copies one node's Slurm variables to every rank: caught, nodes named by host
HEAD timeout 60 salloc -N 3 mpirun -x SLURMD_NODENAME=node01 -x SLURM_TOPOLOGY_ADDR=s.node01 \
	./fabprobe inventory -o "$tmp/copied" > "$tmp/copied.out" 2>&1
rc=$?
expect "SLURMD_NODENAME copied to 3 nodes: warned, nodes named by host (exit $rc)" sh -c "[ $rc -le 1 ] &&
	grep -q 'both say they are Slurm node node01' '$tmp/copied.out' &&
	[ \$(awk -F, 'NR > 1 && \$2 == \$3' '$tmp/copied/nodes.csv' | wc -l) -eq 3 ]"

# the batch script as an admin submits it, from the directory where results should go. A job
# that made no results directory (the crash inside MPI_Init above, should it come back) is said
# and submitted once more; anything else counts.
# sbatch_wait SEC ARG...: `sbatch ARG...` from $tmp; the job's exit code once it has ended,
# asked every 0.5 s (sbatch --wait asks at growing intervals: a 10 s job took it 43 s here), or
# 124 when it has not ended within SEC s (then it is cancelled); 125: not submitted
sbatch_wait() {
	local end=$((SECONDS + $1)) id job code sig
	shift
	id=$(HEAD sh -c "cd '$tmp' && FABPROBE='$PWD/fabprobe' sbatch --parsable $*" 2> /dev/null) || return 125
	id=${id%%;*}
	while [ "$SECONDS" -lt "$end" ]; do
		job=$(HEAD scontrol show job -o "$id" 2> /dev/null)
		case $job in
		*JobState=COMPLETED* | *JobState=FAILED* | *JobState=CANCELLED* | *JobState=TIMEOUT* | *JobState=NODE_FAIL* | *JobState=OUT_OF_MEMORY*)
			code=$(sed -n 's/.* ExitCode=\([0-9]*\):\([0-9]*\).*/\1 \2/p' <<< "$job")
			read -r code sig <<< "$code"
			[ "${sig:-0}" -eq 0 ] || return $((128 + sig))
			return "${code:-125}" ;;
		'') return 125 ;;
		esac
		sleep 0.5
	done
	HEAD scancel "$id" > /dev/null 2>&1
	return 124
}
sbatch_job() {
	sbatch_wait 120 -N $N -o "$tmp/sbatch.out" "$PWD/scripts/fabprobe.sbatch" "${Q[@]}" -s 64K --no-coll --no-inventory
}
sbatch_job
rc=$?
if [ "$rc" -gt 1 ] && ! ls -d "$tmp"/results/*-job* > /dev/null 2>&1; then
	echo "# sbatch: the job ended $rc before fabprobe made its results directory; again once:"
	grep -v '^ *node[0-9]* ' "$tmp/sbatch.out" 2> /dev/null | head -n 12 | sed 's/^/#   /'
	HEAD scancel --user=root > /dev/null 2>&1
	sleep 3
	sbatch_job
	rc=$?
fi
dir=$(ls -d "$tmp"/results/*-job* 2>/dev/null | head -n 1)
expect "sbatch -N $N fabprobe.sbatch: results under the submit directory (exit $rc, $(grep -m 1 '^verdict: ' "$tmp/sbatch.out"))" \
	sh -c "[ $rc -le 1 ] && [ -s '$dir/topology.conf' ] && grep -q 'fabprobe exited $rc' '$tmp/sbatch.out'"
# on a failure, what the job printed first (a crash's signal and frames, a launch error) and
# what the node daemons logged of it
if [ "$rc" -gt 1 ]; then
	grep -v '^ *node[0-9]* ' "$tmp/sbatch.out" 2> /dev/null | head -n 20 | sed 's/^/#   /'
	grep -h -i 'segmentation\|signal\|error' /run/fabprobe-fakecluster/slurm/log/* 2> /dev/null | tail -n 10 | sed 's/^/#   /'
fi
sbatch_wait 60 -N 2 -o /dev/null "$PWD/scripts/fabprobe.sbatch" --lat-iters 0
rc=$?
expect "sbatch: fabprobe's exit code is the job's (a usage error: 2, got $rc)" [ "$rc" -eq 2 ]

# down after a killed controller, with a job's tasks still running on every node
HEAD sh -c "timeout 300 srun -N $N sleep 299.7 > /dev/null 2>&1 &"
for _ in $(seq 20); do [ "$(HEAD squeue -h -t running -o %D 2>/dev/null)" = "$N" ] && break; sleep 0.5; done
expect "a job of $N tasks runs before the kill" [ "$(HEAD squeue -h -t running -o %D 2>/dev/null)" = "$N" ]
kill -KILL "$(cat $STATE/slurm/slurmctld.pid)"
$FC down > "$tmp/down.out" 2>&1
expect "down: no Slurm daemon, step or munged left ($(daemons))" [ "$(daemons)" -eq 0 ]
expect "down: no fp- namespace left" [ -z "$(ip netns list | grep '^fp-')" ]
expect "down: no state left" [ ! -e $STATE ]
expect "no stray sleep of the job left (sleep 299.7: a duration nothing else uses)" [ -z "$(ps -eo args= | grep -x 'sleep 299.7')" ]
echo "# $(($(date +%s) - start)) s"
