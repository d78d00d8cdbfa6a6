# lib.sh — shared helpers of the integration tests (sourced). Each check prints one line:
# "ok - name", "not ok - name: why" or "skip - name: reason" (counted by tests/run.sh).
FAILED=0
ok()    { echo "ok - $1"; }
notok() { echo "not ok - $1${2:+: $2}"; FAILED=$((FAILED + 1)); }
skip()  { echo "skip - $1: $2"; }
# expect NAME COND...: ok when the command succeeds. One condition per expect: a check of two
# things is two expects (or rows_hold, which names the condition a row breaks).
expect() { local name=$1; shift; if "$@"; then ok "$name"; else notok "$name" "$*"; fi; }

# Open MPI on one machine: root allowed, ranks may outnumber the cores, no binding (2 cores).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN_LOCAL=(mpirun --bind-to none)

# csv_col FILE NAME: print column NAME of every data row (no quoted commas in the columns we read)
csv_col() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"
}

# csv_whole FILE: every row of the CSV FILE has the header's number of fields, quoting honoured
# (a quoted cell may hold commas)
csv_whole() {
	/usr/bin/python3 -c 'import csv, sys
r = list(csv.reader(open(sys.argv[1], newline="")))
bad = [i + 2 for i, x in enumerate(r[1:]) if len(x) != len(r[0])]
print("rows of another width: lines %s" % bad[:5]) if bad else None
sys.exit(1 if bad or not r else 0)' "$1"
}

# count_rows FILE FILTER: how many lines of the CSV FILE match the awk pattern FILTER
count_rows() { awk -F, "$2" "$1" | wc -l; }

# rows_hold FILE FILTER COND...: every line of the CSV FILE that matches the awk pattern FILTER
# meets each awk condition COND. Fails naming the condition and the line for each one broken
# (the first 5); an unreadable FILE fails too.
rows_hold() {
	local file=$1 filter=$2 prog='' c lit
	shift 2
	for c in "$@"; do
		lit=${c//\\/\\\\}
		lit=${lit//\"/\\\"}
		prog+="if (!($c)) bad(\"$lit\")"$'\n'
	done
	awk -F, "function bad(why) { if (++errs <= 5) printf \"#   %s:%d: %s is false: %s\\n\", FILENAME, FNR, why, \$0 }
		$filter { $prog }
		END { if (errs > 5) printf \"#   (%d broken in all)\\n\", errs; exit errs > 0 }" "$file"
}

# report_browser NAME DIR N PATHS [METRICS]: fabprobe's report.html of DIR (N nodes, the paths
# PATHS) loaded in headless Chromium: the DOM checks (report_check.py), and the pixel checks of
# a screenshot when PIXELS=1. Scratch files go to $tmp. Skipped, saying why, without chromium.
report_browser() {
	local name=$1 dir=$2 n=$3 paths=$4 metrics=${5:-latency,bandwidth} check=tests/integration/report_check.py
	local chrome console
	chrome=$(command -v chromium || command -v chromium-browser || true)
	if [ -z "$chrome" ]; then
		skip "$name: page checks in headless Chromium" "chromium not installed (scripts/install-deps.sh installs it)"
		return
	fi
	local ch=("$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1
		--window-size=1400,1800 --user-data-dir="$tmp/chrome" --no-first-run --disable-extensions
		"--host-resolver-rules=MAP * ~NOTFOUND")
	timeout 120 "${ch[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$dir/report.html" \
		> "$tmp/$name.dom" 2> "$tmp/$name.err"
	expect "$name: Chromium loads the page" [ -s "$tmp/$name.dom" ]
	console=$(grep -E 'CONSOLE|Uncaught' "$tmp/$name.err" | head -3)
	expect "$name: no console message or error" [ -z "$console" ]
	[ -n "$console" ] && echo "# $console"
	python3 $check dom "$tmp/$name.dom" "$dir" "$n" "$paths" "$name" "$metrics"
	if [ "${PIXELS:-0}" = 1 ]; then
		timeout 120 "${ch[@]}" --screenshot="$tmp/$name.png" "file://$dir/report.html" > /dev/null 2>&1
		python3 $check pixels "$tmp/$name.png" "$tmp/$name.dom" "$dir" "$name"
	fi
}
