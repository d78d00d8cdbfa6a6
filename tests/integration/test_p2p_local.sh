#!/usr/bin/env bash
# fabprobe p2p under a real mpirun on this machine: every pair measured, matrices, refusal to
# overwrite, timeouts, usage errors, rows kept when a run is killed.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=./fabprobe
tmp=$(mktemp -d /tmp/fp-p2p-XXXXXX)
trap 'pkill -f "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# quick settings: the numbers' plausibility is checked, not their precision
Q=(-n 200 --lat-warmup 20 -s 64K,1M --bw-iters 2 --bw-warmup 1 -W 8 -c 1 --no-progress)

check_run() { # NP DIR: every ordered pair at every size, all ok, plausible, square matrices
	local np=$1 dir=$2 rows nok
	rows=$(($(wc -l < "$dir/p2p.csv") - 1))
	expect "np$np: $((np * (np - 1) * 4)) rows (ordered pairs x 4 sizes)" [ "$rows" -eq $((np * (np - 1) * 4)) ]
	expect "np$np: every mpi row says what carried it, as the library holds it (MPI_T)" \
		[ "$(grep -cE ',"?Open MPI( [a-z_]+=[^"]*|: transports its own choice \(no pml or btl set\))"?$' "$dir/p2p.csv")" -eq "$rows" ]
	nok=$(csv_col "$dir/p2p.csv" status | grep -cv '^ok$')
	expect "np$np: every row has status ok" [ "$nok" -eq 0 ]
	expect "np$np: latencies plausible (0.05..2000 us), min <= p50 <= p99" rows_hold "$dir/p2p.csv" 'NR > 1 && $9 == 8' \
		'$13 > 0.05' '$13 < 2000' '$11 <= $13' '$13 <= $14'
	expect "np$np: a bandwidth row for every ordered pair" [ "$(count_rows "$dir/p2p.csv" 'NR > 1 && $9 == 1048576')" -eq $((np * (np - 1))) ]
	expect "np$np: bandwidths plausible (0.01..200 GB/s), Gbit/s = 8 x GB/s" rows_hold "$dir/p2p.csv" 'NR > 1 && $9 == 1048576' \
		'$17 > 0.01' '$17 < 200' '$18 - $17 * 8 <= 0.001' '$18 - $17 * 8 >= -0.001'
	for m in latency_mpi bandwidth_mpi; do
		expect "np$np: $m.csv is ${np}x${np} with host/rank labels and an empty diagonal" awk -F, -v n="$np" '
			function bad(why) { printf "#   %s:%d: %s\n", FILENAME, NR, why; errs++ }
			NR == 1 { if (NF != n + 1) bad(NF " columns, want " n + 1); if ($1 != "host") bad("header starts with " $1 ", not host")
				  for (i = 2; i <= NF; i++) lab[i - 1] = $i; next }
			{ if (NF != n + 1) bad(NF " columns, want " n + 1)
			  if ($1 != lab[NR - 1]) bad("row label " $1 ", column label " lab[NR - 1])
			  if ($1 !~ /\/r[0-9]+$/) bad("label " $1 " does not end in /r<rank>")
			  if ($NR != "") bad("diagonal cell is " $NR ", not empty")
			  for (i = 2; i <= NF; i++) if (i != NR && $i == "") bad("cell " i - 1 " is empty"); rows++ }
			END { if (rows != n) bad(rows + 0 " rows, want " n); exit errs > 0 }' "$dir/$m.csv"
	done
	expect "np$np: meta.json says ok with $np ranks" grep -q "\"ranks\": $np," "$dir/meta.json"
}

for np in 4 3; do
	"${MPIRUN_LOCAL[@]}" -np $np $FP p2p "${Q[@]}" -l 8,4K -o "$tmp/np$np" > "$tmp/np$np.out" 2>&1
	rc=$?
	expect "np$np: exit code 0" [ "$rc" -eq 0 ]
	check_run $np "$tmp/np$np"
	expect "np$np: summary printed" grep -q "endpoints, $((np * (np - 1))) directions ok, 0 failed" "$tmp/np$np.out"
done

# a second run into the same directory is refused, and the first run's files stay as they were
sum=$(md5sum "$tmp/np4/p2p.csv")
"${MPIRUN_LOCAL[@]}" -np 2 $FP p2p "${Q[@]}" -o "$tmp/np4" > "$tmp/again.out" 2>&1
rc=$?
expect "existing results directory refused with exit 2" [ "$rc" -eq 2 ]
expect "the refusal says why" grep -q "not empty: refusing to overwrite" "$tmp/again.out"
expect "the earlier run is untouched" [ "$(md5sum "$tmp/np4/p2p.csv")" = "$sum" ]
# default names never collide: two runs in the same second get two directories
"${MPIRUN_LOCAL[@]}" -np 2 $FP p2p "${Q[@]}" --results-root "$tmp/root" --name twin > /dev/null 2>&1 &
"${MPIRUN_LOCAL[@]}" -np 2 $FP p2p "${Q[@]}" --results-root "$tmp/root" --name twin > /dev/null 2>&1
wait
expect "two runs in the same second: two directories" [ "$(ls "$tmp/root" | grep -c twin)" -eq 2 ]

# rank 1 stalls past the deadline in its first pair (1,2): that pair times out naming both
# sides, every other pair completes, the exit code is 1
"${MPIRUN_LOCAL[@]}" -np 4 $FP p2p "${Q[@]}" -t 1 --test-stall 1 -o "$tmp/stall" > "$tmp/stall.out" 2>&1
rc=$?
expect "stalled pair: exit code 1" [ "$rc" -eq 1 ]
bad=$(awk -F, 'NR > 1 && $20 != "ok" { print $6 "-" $7 ":" $20 }' "$tmp/stall/p2p.csv" | sort -u | tr '\n' ' ')
expect "stalled pair: only rank1<->rank2 failed, as timeout" [ "$bad" = "rank1-rank2:timeout rank2-rank1:timeout " ]
expect "stalled pair: the note names both sides" grep -q ',timeout,[^,]*/r1: timed out[^,]*/r2: timed out' "$tmp/stall/p2p.csv"
expect "stalled pair: the other 10 directions are ok" [ "$(csv_col "$tmp/stall/p2p.csv" status | grep -c '^ok$')" -eq 30 ]
expect "stalled pair: meta.json says failed" grep -q '"status": "failed"' "$tmp/stall/meta.json"

# killed mid-run (SIGTERM to mpirun): the engine stops at its next step boundary; every row
# measured before is on disk and whole (a step's rows, 6 per pair), meta.json says interrupted
"${MPIRUN_LOCAL[@]}" -np 4 $FP p2p "${Q[@]}" -t 30 --test-stall 1 -o "$tmp/killed" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ "$(cat "$tmp/killed/p2p.csv" 2>/dev/null | wc -l)" -ge 7 ] && break; sleep 0.1; done
kill -TERM $pid; wait $pid 2>/dev/null
pkill -f "$tmp/killed"
n=$(count_rows "$tmp/killed/p2p.csv" 'NR > 1')
expect "killed run: the rows measured before are on disk" [ "$n" -ge 6 ]
expect "killed run: whole pairs only (6 rows each)" [ $((n % 6)) -eq 0 ]
expect "killed run: those rows are complete" csv_whole "$tmp/killed/p2p.csv"
expect "killed run: meta.json says interrupted" grep -q '"status": "interrupted"' "$tmp/killed/meta.json"
expect "killed run (SIGTERM): meta.json names the signal" grep -q '"signal": "SIGTERM"' "$tmp/killed/meta.json"

# usage errors: exit 2 and a message naming the problem, printed once under mpirun
usage_case() { # NAME EXPECTED-TEXT ARGS...
	local name=$1 text=$2; shift 2
	$FP "$@" > "$tmp/u.out" 2>&1
	local rc=$?
	if [ $rc -ne 2 ]; then notok "usage: $name" "exit $rc, want 2: $(head -c 200 "$tmp/u.out")"
	elif ! grep -q -- "$text" "$tmp/u.out"; then notok "usage: $name" "no '$text' in: $(head -c 200 "$tmp/u.out")"
	else ok "usage: $name"; fi
}
usage_case "zero iterations" "--lat-iters: 0 is out of range" p2p -n 0
usage_case "negative size" "--bw-sizes: '-4K' is not a size" p2p -s -4K
usage_case "absurd size" "out of range" p2p -l 64G
usage_case "-o with --name" "cannot be combined with --name" p2p -o x --name y
usage_case "unknown path" "unknown path 'eth9'" p2p --paths eth9
usage_case "unknown option" "unknown option --fast" p2p --fast
usage_case "unknown command" "unknown command 'p3p'" p3p
usage_case "compare without its two directories" "expected two results directories" compare
"${MPIRUN_LOCAL[@]}" -np 3 $FP p2p -n 0 > "$tmp/u.out" 2>&1
expect "usage error under mpirun: printed once" [ "$(grep -c 'is out of range' "$tmp/u.out")" -eq 1 ]
expect "--help exits 0 and lists p2p" sh -c "$FP --help | grep -q '^  p2p '"
expect "p2p --help documents --pair-timeout" sh -c "$FP p2p --help | grep -q -- '--pair-timeout'"
expect "--version names the build" sh -c "$FP --version | grep -q 'fabprobe [0-9.]* (hwloc='"
exit $((FAILED > 0))
