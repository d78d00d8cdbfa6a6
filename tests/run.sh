#!/usr/bin/env bash
# Run every test and count: unit binaries given as arguments, then tests/integration/test_*.sh
# (only those named in $FP_TESTS when it is set). Each test prints "ok - name", "not ok -
# name[: why]" or "skip - name: reason" lines; this script echoes everything and ends with the
# line "N passed, N failed, N skipped", after the failed checks listed again. A test of the
# emulated cluster (test_cluster_*, test_slurm) that fails runs once more, and the second run
# counts; the first run's failures are listed at the end too. With
# $FP_SAN_LOG (make check-san), every sanitizer report written there is one more failure, named.
# Each test's seconds are said after it, and the slowest listed at the end.
set -u
cd "$(dirname "$0")/.." || exit 3
pass=0 fail=0 skip=0
log=$(mktemp) failed=$(mktemp) retried=$(mktemp) times=$(mktemp)
trap 'rm -f "$log" "$failed" "$retried" "$times"' EXIT

run_one() {
	local name=$1; shift
	local retry=0
	[ "$1" = --retry ] && { retry=1; shift; }
	local t0=$SECONDS
	echo "# $name"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	echo "# $name: $((SECONDS - t0)) s"
	echo "$((SECONDS - t0)) $name" >>"$times"
	local p f s
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^not ok - ' "$log")
	s=$(grep -c '^skip - ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exited $rc without saying which check failed" | tee -a "$log"
		f=1
	fi
	if [ $((p + f + s)) -eq 0 ]; then
		echo "not ok - $name: ran no check" | tee -a "$log"
		f=1
	fi
	if [ "$f" -gt 0 ] && [ "$retry" = 1 ]; then
		# a test of the emulated cluster measures on this shared host: a spell of the host can
		# fail a check once; it runs once more and that run counts, the first one's failures
		# listed at the end all the same
		grep '^not ok - ' "$log" | sed "s|^|$name (first attempt, then run again): |" >>"$retried"
		echo "# $name: $f check(s) failed on the first attempt; it runs once more, and that run counts"
		run_one "$name" "$@"
		return
	fi
	grep '^not ok - ' "$log" | sed "s|^|$name: |" >>"$failed"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

for bin in "$@"; do
	run_one "$(basename "$bin")" "$bin"
done
for t in tests/integration/test_*.sh; do
	[ -e "$t" ] || continue
	if [ -n "${FP_TESTS:-}" ] && [[ " $FP_TESTS " != *" $(basename "$t") "* ]]; then
		continue
	fi
	case $(basename "$t") in
	test_cluster_*.sh | test_slurm.sh) run_one "$(basename "$t")" --retry bash "$t" ;;
	*) run_one "$(basename "$t")" bash "$t" ;;
	esac
done
if [ -n "${FP_SAN_LOG:-}" ]; then
	echo "# sanitizer reports in $FP_SAN_LOG"
	reports=0
	for r in "$FP_SAN_LOG"/*; do
		[ -f "$r" ] || continue
		echo "not ok - sanitizer report $(basename "$r"): $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$r")"
		sed 's/^/#   /' "$r" | head -40
		reports=$((reports + 1))
	done
	fail=$((fail + reports))
	if [ "$reports" -eq 0 ]; then echo "ok - no sanitizer report"; pass=$((pass + 1)); fi
fi
echo "# the slowest: $(sort -rn "$times" | head -n 6 | awk '{ printf "%s%s %d s", (NR > 1 ? ", " : ""), $2, $1 }')"
# the failures again, last, where a log cut to its tail still shows them
if [ -s "$retried" ]; then
	echo "# failed on a first attempt, then run again:"
	cut -c1-300 "$retried" | sed 's/^/#   /'
fi
if [ -s "$failed" ]; then
	echo "# the checks that failed:"
	cut -c1-300 "$failed" | sed 's/^/#   /'
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
