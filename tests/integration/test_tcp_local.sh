#!/usr/bin/env bash
# The tcp transport on this machine (loopback): every pair measured, and each failure mode
# (a wrong token, a peer that never connects, a reset mid-stream) leaves rows with a failure
# status naming the sides, while the run completes. The emulated-cluster test covers the
# namespaces' interfaces and line rates.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FP=./fabprobe
tmp=$(mktemp -d /tmp/fp-tcp-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
Q=(-p tcp:lo -n 200 -s 256K -W 8 --bw-iters 2 -c 1 --no-progress)

"${MPIRUN_LOCAL[@]}" -np 3 $FP p2p "${Q[@]}" -o "$tmp/ok" > "$tmp/ok.out" 2>&1
expect "tcp:lo, 3 ranks: exit 0" [ $? -eq 0 ]
expect "tcp:lo: 12 rows" [ "$(count_rows "$tmp/ok/p2p.csv" 'NR > 1')" -eq 12 ]
expect "tcp:lo: all ok, path and devices named" rows_hold "$tmp/ok/p2p.csv" 'NR > 1' \
	'$2 == "tcp:lo"' '$3 == "loopback"' '$4 ~ /\/r[0-2]$/' '$6 == "lo"' '$7 == "lo"' '$20 == "ok"'
expect "tcp:lo: every row says what carried it: TCP bound to lo at both ends" \
	[ "$(grep -c ',"TCP, both ends bound to lo"$' "$tmp/ok/p2p.csv")" -eq 12 ]
expect "tcp:lo: plausible latency" rows_hold "$tmp/ok/p2p.csv" 'NR > 1 && $9 == 8' '$13 > 1' '$13 < 5000'
expect "tcp:lo: plausible bandwidth" rows_hold "$tmp/ok/p2p.csv" 'NR > 1 && $9 == 262144' '$17 > 0.01'
expect "tcp:lo: latency matrix named after the path" [ -s "$tmp/ok/latency_tcp_lo.csv" ]
expect "tcp:lo: bandwidth matrix named after the path" [ -s "$tmp/ok/bandwidth_tcp_lo.csv" ]

fault_case() { # FAULT NAME EXPECTED-STATUS EXPECTED-NOTE-REGEX
	local dir="$tmp/$1"
	"${MPIRUN_LOCAL[@]}" -np 3 $FP p2p "${Q[@]}" -t 2 --test-fault "$1" -o "$dir" > "$dir.out" 2>&1
	local rc=$?
	expect "$2: the run completes with exit 1" [ $rc -eq 1 ]
	expect "$2: failed rows say $3 and name the sides" grep -Eq ",$3,$4" "$dir/p2p.csv"
	local r="/r${1#*:}" # how endpoint names of the faulty rank end
	expect "$2: pairs without the faulty rank are ok" rows_hold "$dir/p2p.csv" \
		"NR > 1 && substr(\$4, length(\$4) - 2) != \"$r\" && substr(\$5, length(\$5) - 2) != \"$r\"" '$20 == "ok"'
}
fault_case bad-token:0 "wrong token" error "vm[^,]*/r0: the peer closed the connection after the hello[^,]*; [^,]*/r[12]: timed out waiting for the peer to connect"
expect "wrong token: the rejection is logged with the address" grep -q "rejected a connection from 127.0.0.1" "$tmp/bad-token:0.out"
fault_case no-connect:1 "peer never connects" timeout "[^,]*/r2: timed out waiting for the peer to connect"
fault_case reset:2 "reset mid-stream" error "[^,]*/r2: test fault: reset the connection mid-stream; [^,]*/r[01]: (recv: Connection reset by peer|connection closed by the peer)"

"${MPIRUN_LOCAL[@]}" -np 2 $FP p2p -p tcp:nosuch0 -n 10 -s none -c 1 --no-progress -o "$tmp/noif" > "$tmp/noif.out" 2>&1
rc=$?
expect "an interface that is not there: exit 1" [ $rc -eq 1 ]
expect "an interface that is not there: pairs skipped saying so (not 'no IPv4 address')" grep -q ',skipped,.*no such interface nosuch0' "$tmp/noif/p2p.csv"

# a listener open to anyone: strangers that connect to the listener and never finish a hello (one
# silent, one half a hello, ahead of the peer's connection on every pair of rank 0) do not
# hold it: every pair is measured, each stranger logged as it is rejected
"${MPIRUN_LOCAL[@]}" -np 3 $FP p2p "${Q[@]}" -t 30 --test-fault stranger:0 -o "$tmp/stranger" > "$tmp/stranger.out" 2>&1
rc=$?
expect "strangers on the listener: exit 0" [ $rc -eq 0 ]
expect "strangers on the listener: all 12 rows ok" [ "$(awk -F, 'NR > 1 && $20 == "ok"' "$tmp/stranger/p2p.csv" | wc -l)" -eq 12 ]
expect "strangers on the listener: the silent one logged as rejected after 2 s" [ "$(grep -c 'rejected a connection from 127.0.0.1.*no hello within 2 s (0 of 24 bytes)' "$tmp/stranger.out")" -eq 2 ]
expect "strangers on the listener: the half hello logged as rejected after 2 s" [ "$(grep -c 'rejected a connection from 127.0.0.1.*no hello within 2 s (12 of 24 bytes)' "$tmp/stranger.out")" -eq 2 ]
exit $((FAILED > 0))
