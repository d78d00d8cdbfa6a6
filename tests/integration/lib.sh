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
