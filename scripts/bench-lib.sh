# bench-lib.sh — shared by the bench-*.sh scripts (sourced): waiting for an idle machine and
# summarising repeated measurements (docs/figures.md: compare interleaved launches, report the
# median and the minimum).

wait_idle() { # every CPU >= 90% idle for two consecutive 1 s samples (its variables local: a
	# caller's loop variable, n or i, must not be overwritten)
	local u n s i u2 n2 s2 i2
	for _ in $(seq 30); do
		local ok=0
		for _ in 1 2; do
			read -r _ u n s i _ < /proc/stat; sleep 1; read -r _ u2 n2 s2 i2 _ < /proc/stat
			local busy=$(( (u2 + n2 + s2) - (u + n + s) )) idle=$(( i2 - i ))
			[ $((idle * 100 / (busy + idle + 1))) -ge 90 ] && ok=$((ok + 1))
		done
		[ $ok -eq 2 ] && return
	done
	echo "warning: the machine did not become idle; figures may be off" >&2
}

summary() { # NAME VALUES...: median, min and max of the values
	local name=$1; shift
	printf '%s\n' "$@" | sort -g | awk -v name="$name" '{ v[NR] = $1 } END {
		printf "%-40s median %10.3f  min %10.3f  max %10.3f  (n=%d)\n", name, v[int((NR + 1) / 2)], v[1], v[NR], NR }'
}
