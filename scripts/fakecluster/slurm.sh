# shellcheck shell=bash disable=SC2154 # node_names, enter_cmd, ...: fakecluster.sh's globals
# slurm.sh: Slurm on the emulated cluster, for 'fakecluster.sh up --slurm' (sourced by
# fakecluster.sh; uses its globals and helpers: STATE_DIR, HOSTS, NS_PREFIX, SUBNET,
# node_names[], state_add, ns_add, link_add, enter_argv, die, warn).
#
# A head namespace (fp-head, host name "head", 10.77.255.254) on the top switch runs a
# private munged and slurmctld, as a head or login node would; each node namespace runs a
# slurmd under the node's host name. Everything lives under $SLURM_DIR: configuration,
# munge key and socket, slurmctld's state, per-node spool, TmpFS, pid and log files (%n).
# Facts that make it work here (Debian 12, Slurm 22.05):
#  - slurmd initialises a cgroup plugin even with proctrack/linuxproc and task/none, and
#    autodetection fails in a network namespace ('ip netns exec' mounts a fresh sysfs with
#    nothing on /sys/fs/cgroup: "No filesystem mounted on /sys/fs/cgroup"). Naming
#    CgroupPlugin=cgroup/v1 skips the detection; no plugin in use then touches a cgroup, so
#    nothing needs mounting, and the nodes cannot fight over one cgroup tree.
#  - the nodes share one file system, so PMIx's per-job directory collides ("File exists")
#    unless TmpFS is per node (%n); spool, pid and log files likewise.
#  - munged refuses a socket directory that others can write: it is 0755.

readonly SLURM_DIR=$STATE_DIR/slurm
readonly SLURM_CONF_FILE=$SLURM_DIR/etc/slurm.conf
readonly HEAD_NS=${NS_PREFIX}head
readonly HEAD_NAME=head
readonly HEAD_IP=10.77.255.254

slurm_need_tools() {
	need_tool slurmctld slurmctld
	need_tool slurmd slurmd
	need_tool srun slurm-client
	need_tool munged munge
	[ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so ] || [ -n "$(find /usr/lib* -name mpi_pmix.so -path '*slurm*' 2>/dev/null | head -n 1)" ] ||
		warn "Slurm's mpi_pmix plugin not found: srun --mpi=pmix will fail (Debian: slurm-wlm-basic-plugins)"
}

# The environment of a command on the head: Slurm's configuration, and Open MPI's settings
# for the emulated cluster (the same as 'fakecluster.sh mpirun' passes), so that both
# 'srun --mpi=pmix' (direct launch: the ranks read OMPI_MCA_*) and 'mpirun' inside salloc
# (orted started by srun) work without options. Jobs take it to the nodes (--export=ALL).
slurm_head_env() {
	# shellcheck disable=SC2054 # tcp,self is one value
	head_env=(SLURM_CONF="$SLURM_CONF_FILE"
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
		OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self
		OMPI_MCA_btl_tcp_if_include="$(btl_subnet)" OMPI_MCA_oob_tcp_if_include="$SUBNET"
		OMPI_MCA_hwloc_base_binding_policy=none)
}

# slurm_up TOP_SWITCH_NS: the head, the configuration, munged, slurmctld and one slurmd per
# node; returns once every node is idle.
slurm_up() {
	local n
	state_add slurm 1
	ns_add "$HEAD_NS"
	link_add "$HEAD_NS" eth0 "$1" "$HEAD_NAME"
	ip -n "$HEAD_NS" addr add "$HEAD_IP/$PREFIX_LEN" dev eth0
	printf '%s\t%s\n' "$HEAD_IP" "$HEAD_NAME" >>"$HOSTS"
	mkdir -p "$SLURM_DIR"/{etc,munge,log,ctld,spool,tmp}
	chmod 0755 "$SLURM_DIR" "$SLURM_DIR/munge"
	for n in "${node_names[@]}"; do mkdir -p "$SLURM_DIR/spool/$n" "$SLURM_DIR/tmp/$n"; done
	head -c 1024 /dev/urandom >"$SLURM_DIR/munge/munge.key"
	chmod 0400 "$SLURM_DIR/munge/munge.key"
	slurm_write_conf
	enter_argv "$HEAD_NAME"
	slurm_daemon munged "${enter_cmd[@]}" munged --socket="$SLURM_DIR/munge/munge.socket.2" \
		--key-file="$SLURM_DIR/munge/munge.key" --pid-file="$SLURM_DIR/munge/munged.pid" \
		--log-file="$SLURM_DIR/log/munged.log" --seed-file="$SLURM_DIR/munge/munged.seed"
	slurm_daemon slurmctld "${enter_cmd[@]}" slurmctld -f "$SLURM_CONF_FILE"
	for n in "${node_names[@]}"; do
		enter_argv "$n"
		slurm_daemon "slurmd.$n" "${enter_cmd[@]}" slurmd -f "$SLURM_CONF_FILE" -N "$n"
	done
	slurm_wait_idle
}

# slurm_daemon NAME CMD...: start a daemon (it forks away) with none of our descriptors open
# but its standard output and error, which go to log/NAME.out: a lock (up's on /run, the
# caller's flock) or a pipe (a caller's $(...)) held by a daemon would be held until down.
slurm_daemon() {
	local name=$1 fd
	shift
	(
		for fd in "/proc/$BASHPID/fd"/*; do
			fd=${fd##*/}
			if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
		done
		exec "$@" </dev/null >>"$SLURM_DIR/log/$name.out" 2>&1
	) || slurm_fail "$name did not start (exit $?)"
}

# Prints the last lines of every log, then fails (up's EXIT trap removes what was built).
slurm_fail() {
	local f
	for f in "$SLURM_DIR"/log/*; do
		[ -f "$f" ] || continue
		echo "--- $f (last lines)" >&2
		tail -n 5 "$f" >&2
	done
	die "$1"
}

slurm_write_conf() {
	local i d=$SLURM_DIR
	{
		echo "# slurm.conf of the emulated cluster (scripts/fakecluster.sh up --slurm); generated"
		echo "ClusterName=fakecluster"
		echo "SlurmctldHost=$HEAD_NAME($HEAD_IP)"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "AuthType=auth/munge"
		echo "AuthInfo=socket=$d/munge/munge.socket.2"
		echo "CredType=cred/munge"
		echo "StateSaveLocation=$d/ctld"
		echo "SlurmctldPidFile=$d/slurmctld.pid"
		echo "SlurmctldLogFile=$d/log/slurmctld.log"
		echo "SlurmdSpoolDir=$d/spool/%n"
		echo "SlurmdPidFile=$d/spool/%n/slurmd.pid"
		echo "SlurmdLogFile=$d/log/slurmd.%n.log"
		echo "TmpFS=$d/tmp/%n"
		echo "ProctrackType=proctrack/linuxproc"
		echo "TaskPlugin=task/none"
		echo "JobAcctGatherType=jobacct_gather/none"
		echo "AccountingStorageType=accounting_storage/none"
		echo "JobCompType=jobcomp/none"
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=CR_Core"
		echo "TopologyPlugin=topology/tree"
		echo "MpiDefault=none"
		echo "ReturnToService=2"
		echo "KillWait=5"
		echo "InactiveLimit=0"
		echo "MinJobAge=60"
		# one CPU per node: each node is one slot, as one rank per node is what fabprobe runs
		for i in "${!node_names[@]}"; do
			echo "NodeName=${node_names[i]} NodeAddr=$(node_ip "$i") CPUs=1 Sockets=1 CoresPerSocket=1 ThreadsPerCore=1 State=UNKNOWN"
		done
		# a NodeSet: a name Slurm expands to several nodes (the drain script must never act on it)
		echo "NodeSet=firsttwo Nodes=${node_names[0]},${node_names[1]}"
		echo "PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
	} >"$d/etc/slurm.conf"
	echo "CgroupPlugin=cgroup/v1" >"$d/etc/cgroup.conf"
	# until fabprobe's is installed: every node on one switch (what a site without a
	# topology.conf has)
	{
		echo "# topology.conf of the emulated cluster until one is installed: one switch"
		echo "SwitchName=fakecluster Nodes=$(IFS=,; echo "${node_names[*]}")"
	} >"$d/etc/topology.conf"
}

# slurm_head CMD [ARG...]: run CMD on the head with slurm_head_env (returns its status).
slurm_head() {
	local -a head_env
	slurm_head_env
	enter_argv "$HEAD_NAME"
	env "${head_env[@]}" "${enter_cmd[@]}" "$@"
}

slurm_wait_idle() {
	local idle=0 want=${#node_names[@]}
	for _ in $(seq 60); do
		idle=$(slurm_head sinfo -h -t idle -o %D 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
		[ "$idle" -eq "$want" ] && return 0
		sleep 0.5
	done
	slurm_fail "only $idle of $want Slurm nodes became idle in 30 s"
}

# slurm_alive: munged, slurmctld and every slurmd still run (their pid files name live processes).
slurm_alive() {
	local f n
	for f in "$SLURM_DIR/munge/munged.pid" "$SLURM_DIR/slurmctld.pid"; do
		[ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null || return 1
	done
	for n in $(tail -n +2 "$TRUTH" | cut -d, -f1); do
		f=$SLURM_DIR/spool/$n/slurmd.pid
		[ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null || return 1
	done
}

# slurm_down: cancel every job and wait (10 s at most) for them to end, so that slurmstepd
# cleans up after its tasks; the caller then ends whatever still runs in the namespaces.
# Does nothing useful, quickly, when slurmctld is gone (a killed run).
slurm_down() {
	[ -e "$NETNS_DIR/$HEAD_NS" ] && [ -s "$SLURM_DIR/slurmctld.pid" ] &&
		kill -0 "$(cat "$SLURM_DIR/slurmctld.pid")" 2>/dev/null || return 0
	local jobs
	jobs=$(slurm_head timeout 10 squeue -h -o %A 2>/dev/null | paste -sd' ' -) || true
	[ -n "$jobs" ] || return 0
	echo "$PROG: cancelling Slurm jobs $jobs" >&2
	# shellcheck disable=SC2086 # one argument per job id
	slurm_head timeout 10 scancel $jobs 2>/dev/null || true
	for _ in $(seq 20); do
		[ -z "$(slurm_head timeout 5 squeue -h -o %A 2>/dev/null)" ] && return 0
		sleep 0.5
	done
	warn "Slurm jobs still listed after 10 s: ending their processes"
}
