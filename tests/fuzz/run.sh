#!/usr/bin/env bash
# run.sh BUILD SEEDS SECONDS TARGET... — each libFuzzer target for SECONDS, from its working
# corpus (BUILD/corpus/<target>, kept between runs), the seed corpus (SEEDS/<target>) and the
# regression corpus (tests/fuzz/regressions/<target>). A crash, a hang (-timeout) or running
# out of memory writes the input into the regression corpus: commit it, and fix the bug; make
# check replays it from then on. Leaks are judged with tests/sanitize/lsan.supp (what libraries
# keep, never fabprobe's own). Ends with one line per target and exits 1 if any failed.
# A hang is an input over 30 s: the readers' caps allow legitimate inputs that take seconds
# under the fuzzers' instrumentation (fuzz_declared: a 135-byte hostlist of 555,554 names, under
# the 1,000,000-name cap, parsed three times by the oracles, took 9.6 s; 1.1 s in the
# ordinary build), and a 10 s limit made them hangs.
set -u
cd "$(dirname "$0")/../.."
build=$1 seeds=$2 secs=$3
shift 3
failed=0 summary=""
for t in "$@"; do
	corpus=$build/corpus/$t regress=tests/fuzz/regressions/$t
	mkdir -p "$corpus" "$regress"
	echo "== $t: ${secs}s"
	LSAN_OPTIONS=suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0 \
		"$build/$t" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -max_len=16384 \
		-print_final_stats=1 -artifact_prefix="$regress/" "$corpus" "$seeds/$t" "$regress" \
		> "$build/$t.log" 2>&1
	rc=$?
	runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$t.log" | grep -o '[0-9]*$')
	if [ $rc -ne 0 ]; then
		failed=1
		grep -m1 -E 'ERROR|oracle|Timeout|out-of-memory' "$build/$t.log"
		summary+="$t: FAILED after ${runs:-?} inputs (rc $rc; the input is in $regress/, the log in $build/$t.log)"$'\n'
	else
		summary+="$t: ${runs:-?} inputs in ${secs}s, no crash, no hang"$'\n'
	fi
done
printf '%s' "$summary"
exit $failed
