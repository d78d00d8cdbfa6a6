#!/usr/bin/env bash
# fabprobe coll under a real mpirun on this machine: every op, several datatypes and
# reductions, out of place and in place, all checked; the CSV columns and their arithmetic; a
# corrupted result caught; the nccl backend skipped with a reason when there is no GPU.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh
FP=./fabprobe
tmp=$(mktemp -d /tmp/fp-coll-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# small sweeps: the arithmetic and the check are tested here, not the speed
Q=(-b 8 -e 32K -f 16 -n 3 -w 1 --backend mpi)

# every row: status ok, wrong 0, nranks, size_B = count x sizeof (x nranks), root/redop only
# where they apply, algbw = size_B / time, busbw = algbw x factor (docs/measurement.md), max >= mean
check_rows() { # NP CSV [OPS: the ops every mode of which must be there; default all seven]
	awk -F, -v n="$1" -v want="${3:-allreduce,allgather,reducescatter,alltoall,broadcast,reduce,sendrecv}" '
	BEGIN { sz["float"] = 4; sz["double"] = 8; sz["int32"] = 4
		f["allreduce"] = 2 * (n - 1) / n; f["allgather"] = f["reducescatter"] = f["alltoall"] = (n - 1) / n
		f["broadcast"] = f["reduce"] = f["sendrecv"] = 1
		blk["allgather"] = blk["reducescatter"] = blk["alltoall"] = n }
	function bad(why) { printf "#   row %d: %s: %s\n", NR, why, $0; errs++ }
	function near(a, b, tol) { d = a - b; if (d < 0) d = -d; return d <= tol }
	NR == 1 { next }
	{ rows++; op = $3; seen[op "," $11]++
	  if ($17 != "ok" || $16 != "0") bad("status/wrong")
	  if ($9 != n || $10 != 1) bad("nranks/nnodes")
	  if ($4 != $5 * sz[$6] * (op in blk ? blk[op] : 1)) bad("size_B != count x sizeof")
	  if ((op == "broadcast" || op == "reduce") != ($8 != "")) bad("root")
	  if ((op == "allreduce" || op == "reducescatter" || op == "reduce") != ($7 != "")) bad("redop")
	  if (!near($14, $4 / ($12 * 1000), 1e-4 + 0.01 * $14)) bad("algbw != size_B / time")
	  if (!near($15, $14 * f[op], 2e-4 + 1e-3 * $15)) bad("busbw != algbw x factor")
	  if ($13 + 0.0005 < $12) bad("time_us_max < time_us") }
	END { k = split(want, w, ",")
	      for (i = 1; i <= k; i++) if (!seen[w[i] ",0"] || !seen[w[i] ",1"]) { printf "#   %s: missing a mode\n", w[i]; errs++ }
	      exit errs > 0 || rows == 0 }' "$2"
}

for np in 2 3 4; do
	out=$tmp/np$np
	"${MPIRUN_LOCAL[@]}" -np $np $FP coll "${Q[@]}" -o all -d float,double,int32 -O sum,max,prod,min \
		-r $((np - 1)) --output "$out" > "$out.log" 2>&1
	rc=$?
	expect "np$np: every op, 3 dtypes, 4 reductions: exit 0" [ "$rc" -eq 0 ]
	expect "np$np: every row ok, wrong 0, columns consistent, busbw = algbw x factor" check_rows $np "$out/collectives.csv"
	# 3 reducing ops x 3 dtypes x 4 redops + 4 others x 3 dtypes = 48 sweeps, both modes
	sizes=$(awk -F, 'NR > 1 && $3 == "allreduce" && $6 == "float" && $7 == "sum" && $11 == 0' "$out/collectives.csv" | wc -l)
	expect "np$np: allreduce float sum at 4 sizes (8 B..32 KiB, x16)" [ "$sizes" -eq 4 ]
	expect "np$np: table printed in nccl-tests layout" grep -q '^#       size         count      type   redop    root     time   algbw   busbw  #wrong' "$out.log"
	expect "np$np: meta.json says ok" grep -q '"status": "ok"' "$out/meta.json"
done

# fabprobe's ring over its own transports: every op it has, every count cut unevenly over
# the ranks (3, 27, 243, 2187 elements), 2 ranks (one connection both ways), 3 (an odd ring:
# three rounds of connections) and 4, all checked
RING_OPS=allreduce,reducescatter,allgather,sendrecv
for np in 2 3 4; do
	out=$tmp/ring$np
	"${MPIRUN_LOCAL[@]}" -np $np $FP coll --backend ring -b 12 -e 9K -f 9 -n 2 -w 1 -o $RING_OPS \
		-d float,double,int32 -O all --output "$out" > "$out.log" 2>&1
	rc=$?
	expect "ring np$np: 4 ops, 3 dtypes, 4 reductions: exit 0" [ "$rc" -eq 0 ]
	expect "ring np$np: every row ok, wrong 0, columns consistent" check_rows $np "$out/collectives.csv" $RING_OPS
	expect "ring np$np: backend ring, path mpi on every row" rows_hold "$out/collectives.csv" 'NR > 1' '$2 == "ring"' '$18 == "mpi"'
	expect "ring np$np: allreduce at the 4 sizes" [ "$(awk -F, 'NR > 1 && $3 == "allreduce" && $6 == "float" && $7 == "sum" && $11 == 0' "$out/collectives.csv" | wc -l)" -eq 4 ]
done
"${MPIRUN_LOCAL[@]}" -np 3 $FP coll --backend ring --path tcp:lo -b 8 -e 1M -f 32 -n 2 -w 1 -o $RING_OPS \
	--output "$tmp/ringlo" > "$tmp/ringlo.log" 2>&1
rc=$?
expect "ring over tcp:lo (fabprobe's TCP transport), 3 ranks: exit 0" [ "$rc" -eq 0 ]
expect "ring over tcp:lo: every row ok, wrong 0" check_rows 3 "$tmp/ringlo/collectives.csv" $RING_OPS
expect "ring over tcp:lo: path tcp:lo on every row, line rate unknown (lo has none)" \
	rows_hold "$tmp/ringlo/collectives.csv" 'NR > 1' '$18 == "tcp:lo"' '$19 == ""' '$20 == ""'
expect "ring over tcp:lo: the heading names the path" grep -q '^# ring over tcp:lo allreduce float sum: 3 ranks on 1 node$' "$tmp/ringlo.log"
expect "ring over tcp:lo: coll_meta.json lists the ring's path" grep -q '"ring_paths": \["tcp:lo"\]' "$tmp/ringlo/coll_meta.json"
"${MPIRUN_LOCAL[@]}" -np 2 $FP coll --backend mpi --path tcp:lo -e 1K --output "$tmp/mpilo" > "$tmp/mpilo.log" 2>&1
expect "mpi --path tcp:lo: coll_meta.json has what Open MPI reports it took (MPI_T), null for what is not its own" \
	sh -c "grep -Eq '\"OMPI_MCA_btl_tcp_if_include\": \{\"set\": \"lo\", \"was\": (null|\"[^\"]*\"), \"library\": \"lo\"\}' '$tmp/mpilo/coll_meta.json' &&
	grep -Eq '\"OMPI_MCA_btl\": \{\"set\": \"tcp,self\", \"was\": (null|\"[^\"]*\"), \"library\": \"tcp,self\"\}' '$tmp/mpilo/coll_meta.json' &&
	grep -Eq '\"NCCL_NET\": \{\"set\": \"Socket\", \"was\": (null|\"[^\"]*\"), \"library\": null\}' '$tmp/mpilo/coll_meta.json'"
expect "mpi --path tcp:lo: the terminal says what carried it, as Open MPI took it, no wrong path" \
	sh -c "grep -qx '# mpi over tcp:lo: carried by Open MPI pml=ob1 btl=tcp,self btl_tcp_if_include=lo (rank 0)' '$tmp/mpilo.log' &&
	! grep -q 'WRONG PATH' '$tmp/mpilo.log'"
expect "mpi --path tcp:lo: every row of collectives.csv carries it in carried_by" \
	sh -c "[ \$(grep -c ',\"Open MPI pml=ob1 btl=tcp,self btl_tcp_if_include=lo\"\$' '$tmp/mpilo/collectives.csv') -eq \$((\$(wc -l < '$tmp/mpilo/collectives.csv') - 1)) ]"
# MPI traffic forced off the asked path: a site's override file (which beats the environment
# fabprobe sets) puts Open MPI on shared memory; seen in a mount namespace of its own
etc=$(ompi_info --all 2> /dev/null | sed -n 's/.*"mca_base_override_param_file" (current value: "\(.*\)\/[^/]*", data source.*/\1/p')
if [ -d "$etc" ] && unshare -m true 2> /dev/null; then
	mkdir -p "$tmp/etc" && cp -a "$etc/." "$tmp/etc/" && echo 'btl = self,vader' > "$tmp/etc/openmpi-mca-params-override.conf"
	unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' forced "$tmp/etc" "$etc" \
		"${MPIRUN_LOCAL[@]}" -np 2 $FP coll --backend mpi --path tcp:lo -o allreduce -e 4K --output "$tmp/forced" \
		> "$tmp/forced.log" 2>&1
	rc=$?
	expect "mpi --path tcp:lo forced onto shared memory by the site: exit $rc (1), the run FAILS naming both" \
		sh -c "[ $rc -eq 1 ] && grep -qx '# mpi: WRONG PATH on rank 0: asked for tcp:lo, Open MPI took btl=self,vader (not tcp,self)' '$tmp/forced.log' &&
		grep -q '\"status\": \"failed\"' '$tmp/forced/meta.json'"
	expect "mpi forced off its path: every row of collectives.csv says WRONG PATH and what carried it" \
		sh -c "[ \$(grep -c ',\"WRONG PATH: Open MPI pml=ob1 btl=self,vader\"\$' '$tmp/forced/collectives.csv') -eq \$((\$(wc -l < '$tmp/forced/collectives.csv') - 1)) ] &&
		[ \$(wc -l < '$tmp/forced/collectives.csv') -gt 1 ]"
else
	skip "mpi forced off its path" "no Open MPI override file path, or no mount namespace (unshare -m)"
fi
"${MPIRUN_LOCAL[@]}" -np 2 $FP coll --backend ring --path tcp:fpnosuchif0 -e 1K --output "$tmp/ringno" > "$tmp/ringno.log" 2>&1
rc=$?
expect "ring over a netdev no rank has: exit 0, skipped with the first rank's reason" \
	sh -c "[ $rc -eq 0 ] && grep -q '^# ring over tcp:fpnosuchif0: skipped: rank 0 (' '$tmp/ringno.log' && [ \$(wc -l < '$tmp/ringno/collectives.csv') -eq 1 ]"
"${MPIRUN_LOCAL[@]}" -np 3 $FP coll --backend ring -b 1K -e 4K -f 4 -n 2 -w 1 -o allreduce,allgather \
	--test-corrupt 2 --output "$tmp/ringbad" > "$tmp/ringbad.log" 2>&1
rc=$?
expect "ring, corrupted result on rank 2: exit 1, every row wrong = 1" \
	sh -c "[ $rc -eq 1 ] && [ \$(awk -F, 'NR > 1 && \$16 == 1 && \$17 == \"wrong\"' '$tmp/ringbad/collectives.csv' | wc -l) -eq 8 ]"
expect "ring, corrupted result: the message names the ring and the rank" \
	grep -q 'WRONG RESULT: ring allreduce float sum, 1024 B (count 256), out of place: 1 wrong element(s) over 3 ranks; first on rank 2' "$tmp/ringbad.log"

# a corrupted element on rank 1 is caught in every checked row, counted once, exit 1
"${MPIRUN_LOCAL[@]}" -np 3 $FP coll -b 1K -e 4K -f 4 -n 2 -w 1 --backend mpi -o allreduce,allgather \
	--test-corrupt 1 --output "$tmp/bad" > "$tmp/bad.log" 2>&1
rc=$?
expect "corrupted result: exit code 1" [ "$rc" -eq 1 ]
expect "corrupted result: 8 rows" [ "$(count_rows "$tmp/bad/collectives.csv" 'NR > 1')" -eq 8 ]
expect "corrupted result: every row has wrong = 1, status wrong" rows_hold "$tmp/bad/collectives.csv" 'NR > 1' '$16 == 1' '$17 == "wrong"'
expect "corrupted result: the message names op, size and first bad index" \
	grep -q 'WRONG RESULT: mpi allreduce float sum, 1024 B (count 256), out of place: 1 wrong element(s) over 3 ranks; first on rank 1 at result index 128' "$tmp/bad.log"
expect "corrupted result: the table shows #wrong 1" grep -Eq '^ +4096 +1024 +float +sum +-1 .* 1 .* 1$' "$tmp/bad.log"
expect "corrupted result: meta.json says failed" grep -q '"status": "failed"' "$tmp/bad/meta.json"

# nccl named in a build without NCCL: refused with the reason (exit 2); with NCCL but without
# a GPU it is skipped with one line and, asked for by name, exit 3 (--backend all passes it by)
if $FP --version | grep -q 'nccl=no'; then
	"${MPIRUN_LOCAL[@]}" -np 2 $FP coll --backend nccl -e 1K --output "$tmp/nonccl" > "$tmp/nonccl.log" 2>&1
	rc=$?
	expect "--backend nccl in a build without NCCL: exit 2, the reason said once" \
		sh -c "[ $rc -eq 2 ] && [ \$(grep -c 'built without NCCL' '$tmp/nonccl.log') -eq 1 ]"
fi
NCCL_FP_TEST=1 "${MPIRUN_LOCAL[@]}" -x NCCL_FP_TEST -np 2 $FP coll --backend nccl -e 1K --output "$tmp/nccl" > "$tmp/nccl.log" 2>&1
rc=$?
if $FP --version | grep -q 'nccl=no'; then
	skip "nccl without a GPU" "this build has no NCCL (refused above)"
elif grep -q '^coll nccl: skipped: ' "$tmp/nccl.log"; then
	expect "nccl asked for, without a GPU: exit 3, said (exit $rc)" sh -c "[ $rc -eq 3 ] && grep -q -- '--backend nccl was asked for and cannot run here: .*no GPU' '$tmp/nccl.log'"
	expect "nccl without a GPU: one line says why" [ "$(grep -c '^coll nccl: skipped: ' "$tmp/nccl.log")" -eq 1 ]
	expect "nccl without a GPU: no rows" [ "$(wc -l < "$tmp/nccl/collectives.csv")" -eq 1 ]
	expect "nccl: coll_meta.json records the reason" \
		grep -q '"name": "nccl", "selected": true, "status": "skipped"' "$tmp/nccl/coll_meta.json"
	expect "nccl: coll_meta.json records the NCCL_* variables" grep -q '"NCCL_FP_TEST": "1"' "$tmp/nccl/coll_meta.json"
else
	skip "nccl without a GPU" "a GPU is visible here (scripts/gpu-check.sh tests that case)"
fi
"${MPIRUN_LOCAL[@]}" -np 2 $FP coll --backend all -e 64 --output "$tmp/all" > "$tmp/all.log" 2>&1
rc=$?
expect "--backend all: exit 0" [ $rc -eq 0 ]
expect "--backend all: mpi rows written" grep -q ',mpi,allreduce,64,' "$tmp/all/collectives.csv"

# MPI has no half type: that sweep is skipped with a reason, not an error
"${MPIRUN_LOCAL[@]}" -np 2 $FP coll --backend mpi -d half,float -e 64 --output "$tmp/half" > "$tmp/half.log" 2>&1
rc=$?
expect "mpi half: exit 0" [ $rc -eq 0 ]
expect "mpi half: skipped with a reason" grep -q '# mpi allreduce half sum: skipped: MPI has no standard type' "$tmp/half.log"
expect "mpi half: no half rows" sh -c "! grep -q ',half,' '$tmp/half/collectives.csv'"
expect "mpi half: float still measured" grep -q ',float,' "$tmp/half/collectives.csv"

# The watchdog (core/watchdog.h): a rank that stalls past the barrier (--test-stall) or a process
# stopped whole (SIGSTOP) mid-collective: every other rank ends within --timeout plus 5 s, exit
# 3, naming the rank that did not arrive or did not answer, and the step; the MPI backend and
# the ring alike.
for be in mpi ring; do
	t0=$(date +%s)
	"${MPIRUN_LOCAL[@]}" -np 3 timeout 60 $FP coll --backend $be --path tcp:lo -b 1K -e 1K --timeout 3 --test-stall 1 \
		--output "$tmp/stall$be" > "$tmp/stall$be.log" 2>&1
	rc=$? secs=$(($(date +%s) - t0))
	expect "$be: a rank stalled in a collective: the job ends in $secs s (<= 3 + 5 + launch), exit $rc, ranks 0 and 2 name rank 1 and its step" \
		sh -c "[ $rc -ne 0 ] && [ $secs -le 12 ] &&
		[ \$(grep -c \"^fabprobe: rank [02] (.*): '$be allreduce float count 256: timed' did not end within 3 s; rank 1 (.*) has not arrived: still at '$be allreduce float count 256: the barrier before timing'; ending this rank (exit 3)\\\$\" '$tmp/stall$be.log') -ge 1 ]"
done
# signal NAME SIG: a 3-rank mpi job into $tmp/NAME; once in its timed loop, rank 2 gets SIG;
# sets rc, secs (from the signal to the job's end) and victim
signal_rank() {
	local name=$1 sig=$2 args=(coll --backend mpi -b 1M -e 1M -n 1000000 --timeout 3 --output "$tmp/$1") job t0
	timeout 60 "${MPIRUN_LOCAL[@]}" -np 3 $FP "${args[@]}" > "$tmp/$name.log" 2>&1 &
	job=$! victim=
	for _ in $(seq 100); do # rank 2, once it is in the timed loop
		for p in $(pgrep -f "fabprobe ${args[*]}"); do
			[ "$(tr '\0' '\n' < /proc/$p/environ 2> /dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')" = 2 ] && victim=$p
		done
		[ -n "$victim" ] && grep -q '^# mpi allreduce float sum' "$tmp/$name.log" && break
		sleep 0.1
	done
	sleep 1
	t0=$(date +%s)
	[ -n "$victim" ] && kill "-$sig" "$victim"
	wait $job
	rc=$? secs=$(($(date +%s) - t0))
	[ -n "$victim" ] && kill -KILL "$victim" 2> /dev/null
}
signal_rank stopped STOP
expect "mpi: a rank stopped whole mid-collective (SIGSTOP): the others end in $secs s (<= 3 + 5), exit $rc, naming it" \
	sh -c "[ -n '$victim' ] && [ $rc -ne 0 ] && [ $secs -le 8 ] &&
	grep -q \"^fabprobe: rank [01] (.*): 'mpi allreduce float count 262144: timed' did not end within 3 s; rank 2 (.*) did not answer (stopped, hung whole or gone); ending this rank (exit 3)\" '$tmp/stopped.log'"
# a rank killed: the launcher ends the job at once (SIGTERM to the others); each says its step
# and who did not answer before the launcher's SIGKILL
signal_rank killed KILL
expect "mpi: a rank killed mid-collective: the job ends in $secs s (<= 3 + 5), exit $rc; rank 0 or 1 names its step and rank 2" \
	sh -c "[ -n '$victim' ] && [ $rc -ne 0 ] && [ $secs -le 8 ] &&
	[ \$(grep -c \"^fabprobe: rank [01] (.*): SIGTERM in 'mpi allreduce float count 262144: timed', [0-9.]* s into it\\\$\" '$tmp/killed.log') -ge 1 ] &&
	[ \$(grep -c '^fabprobe: rank [01] (.*): at the SIGTERM; rank 2 (.*) did not answer (stopped, hung whole or gone)\$' '$tmp/killed.log') -ge 1 ]"

# usage errors: exit 2, one message naming the problem
usage_case() { # NAME EXPECTED-TEXT ARGS...
	local name=$1 text=$2; shift 2
	"${MPIRUN_LOCAL[@]}" -np 2 $FP coll "$@" > "$tmp/u.out" 2>&1
	local rc=$?
	local n
	n=$(grep -c -- "$text" "$tmp/u.out")
	if [ $rc -ne 2 ]; then notok "usage: $name" "exit $rc, want 2: $(head -c 300 "$tmp/u.out")"
	elif [ "$n" -ne 1 ]; then notok "usage: $name" "$n lines say '$text', want 1: $(head -c 300 "$tmp/u.out")"
	else ok "usage: $name"; fi
}
usage_case "-f with -i refused" "both set the step" -f 2 -i 8
usage_case "zero iterations" "-n/--iters: 0 is out of range" -n 0
usage_case "root beyond the ranks" "-r/--root: rank 2 does not exist (2 ranks)" -o reduce -r 2
usage_case "--redop with no reducing op" "none of the selected ops" -o alltoall -O max
usage_case "--test-stall beyond the ranks" "--test-stall: rank 5 does not exist (2 ranks)" --test-stall 5
usage_case "--timeout 0" "--timeout" --timeout 0
expect "coll --help documents --redop" sh -c "$FP coll --help | grep -q -- '-O, --redop'"
expect "coll --help documents the output options" sh -c "$FP coll --help | grep -q -- '--output DIR'"
exit $((FAILED > 0))
