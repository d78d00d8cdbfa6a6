#!/usr/bin/env bash
# GPU check of the NCCL collective backend: one prepared script for a machine with a GPU, made
# to fit in 10 minutes of it, start included.
#   scripts/gpu-check.sh [-np N] [--out DIR]
#                                         every check below; one summary line per check. Each
#                                         step's output goes to a new /tmp/fp-gpu-XXXXXX/<step>.log;
#                                         all the script prints also to DIR/gpu-check.log (DIR:
#                                         that folder unless given, e.g. $OUT on the lent
#                                         machine), and DIR/gpu-check-logs.tar.gz holds every
#                                         step's files at the end: two files in DIR
#   scripts/gpu-check.sh --fetch-debs DIR (on a Debian machine with a package registry) the .deb
#                                         files of Open MPI, hwloc and the rest into DIR, for a
#                                         GPU machine that has none: carry DIR there as debs/
# On the GPU machine the build takes Open MPI from the PATH, or else from the .deb files of
# $FP_DEBS (default: shared/debs, then debs/) unpacked under /tmp; NCCL from wherever the
# Makefile finds it (NCCL_HOME, beside CUDA, the system, the Python wheel: `make config` says).
# Checks, each a line "gpu-check: NAME: PASS|FAIL|SKIP (...)":
#   build        CUDA and NCCL found, kernels for this GPU (-arch=native), the unit tests
#   sweep        every op, float/half/bfloat16 sum, 8 B .. 128 MiB (x4), one rank per GPU; what
#                carried NCCL's traffic (collectives.csv's carried_by, from NCCL's own log)
#   types        allreduce/reducescatter/reduce, every dtype and reduction, root N-1
#   two-ranks    two ranks on one GPU (--shared-gpu, a distinct NCCL_HOSTID each: NCCL's
#                socket transport between them): groups, in-place offsets, reductions of two
#                ranks and a root of 1 for real; their timings mean nothing
#   corrupt      a corrupted element is caught by the GPU check kernel (exit 1)
#   failed-peer  rank 1 stops mid-sweep (--test-stall 1, --timeout 20): rank 0 ends its wait
#                (NCCL's bounded wait or the watchdog) and the job exits 3 within 90 s, naming
#                the collective
#   nccl-tests   with NCCL_TESTS_DIR (nccl-tests' source, carried here): all_reduce_perf built
#                and run on one GPU beside `coll --backend nccl`: algbw within 2% from 1 MiB up
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
PKGS=(openmpi-bin openmpi-common libopenmpi-dev libopenmpi3 libhwloc-dev libhwloc15 libpmix2 libevent-core-2.1-7
      libevent-pthreads-2.1-7 libfabric1 libucx0 libibverbs1 libibverbs-dev librdmacm1 libnl-3-200
      libnl-route-3-200 libpsm2-2 libpsm-infinipath1 libgfortran5 libnuma1 libxnvctrl0 ocl-icd-libopencl1 libltdl7)

if [ "${1:-}" = "--fetch-debs" ]; then
	[ -n "${2:-}" ] || { echo "usage: scripts/gpu-check.sh --fetch-debs DIR" >&2; exit 2; }
	mkdir -p "$2" && cd "$2" && apt-get download "${PKGS[@]}"
	exit $?
fi
np="" dest=""
while [ $# -gt 0 ]; do
	case $1 in
	-np) np=$2; shift 2 ;;
	--out) dest=$2; shift 2 ;;
	*) echo "usage: scripts/gpu-check.sh [-np N] [--out DIR] | --fetch-debs DIR" >&2; exit 2 ;;
	esac
done
t0=$(date +%s)
summary=()
fails=0
say() { # NAME PASS|FAIL|SKIP WHY
	summary+=("gpu-check: $1: $2 ($3)")
	echo "gpu-check: $1: $2 ($3)"
	[ "$2" != FAIL ] || fails=$((fails + 1))
}
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "$ngpu" -gt 0 ] || { echo "gpu-check: no GPU listed by nvidia-smi" >&2; exit 3; }
np=${np:-$ngpu}
out=$(mktemp -d /tmp/fp-gpu-XXXXXX)
dest=${dest:-$out}
mkdir -p "$dest" || exit 3
exec > >(tee -a "$dest/gpu-check.log") 2>&1 # a cut-off terminal loses nothing

# Open MPI and the rest: the PATH's, or the carried .deb files unpacked (no package registry)
if ! command -v mpicc > /dev/null; then
	debs=${FP_DEBS:-}
	for d in shared/debs debs; do [ -z "$debs" ] && [ -d "$d" ] && debs=$d; done
	[ -n "$debs" ] || { echo "gpu-check: no mpicc, and no .deb files (FP_DEBS, shared/debs, debs/)" >&2; exit 3; }
	root=/tmp/fp-debs
	for f in "$debs"/*.deb; do dpkg-deb -x "$f" "$root"; done
	arch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
	# Debian's names go through alternatives, which an unpacked tree lacks; Open MPI relocated
	# by OPAL_PREFIX (checked on Debian 12: mpicc, mpirun of 2 ranks from such a tree)
	mkdir -p "$root/fp-bin"
	for t in mpicc mpirun mpiexec; do ln -sf "$root/usr/bin/$t.openmpi" "$root/fp-bin/$t"; done
	export PATH=$root/fp-bin:$root/usr/bin:$PATH OPAL_PREFIX=$root/usr PMIX_INSTALL_PREFIX=$root/usr
	export LD_LIBRARY_PATH=$root/usr/lib/$arch:$root/usr/lib/$arch/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export PMIX_MCA_mca_base_component_path=$root/usr/lib/$arch/pmix2/lib/pmix
	export PKG_CONFIG_PATH=$root/usr/lib/$arch/pkgconfig:$root/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
fi
# NCCL_DEBUG left unset: fabprobe asks NCCL for its INFO log itself, in a file, to read what
# carried the traffic (carried_by); a NCCL_DEBUG of the caller's is passed on, and then not read
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --bind-to none)
[ -z "${NCCL_DEBUG:-}" ] || MPIRUN+=(-x NCCL_DEBUG)

rm -f build/kernels/fill_check.o
if make WITH_CUDA=yes WITH_NCCL=yes NVCCFLAGS="-O2 -arch=${FP_GPU_ARCH:-native}" fabprobe unit > "$out/build.log" 2>&1 &&
	build/tests/test_coll > "$out/unit.log" 2>&1; then
	say build PASS "$(make --no-print-directory config WITH_CUDA=yes WITH_NCCL=yes | sed -n 's/^  nccl *yes *(//p' | tr -d ')')"
else
	say build FAIL "see $out/build.log, $out/unit.log"
	tail -n 20 "$out/build.log"
	printf '%s\n' "${summary[@]}"
	exit 1
fi

# rows DIR: "N rows, U unsupported, B bad" of collectives.csv; exit 1 when bad or empty
rows() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { n++; if ($c["backend"] != "nccl") e++
		else if ($c["status"] == "unsupported") u++; else if ($c["status"] != "ok" || $c["wrong"] != "0") e++ }
		END { printf "%d rows, %d unsupported, %d bad", n, u, e; exit e > 0 || n == 0 }' "$1/collectives.csv" 2> /dev/null
}
# coll NAME NP [ENV...] -- ARGS...: fabprobe coll --backend nccl into $out/NAME; the exit code
coll() {
	local name=$1 n=$2 env=()
	shift 2
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	timeout 240 "${MPIRUN[@]}" -np "$n" "${env[@]}" ./fabprobe coll --backend nccl "$@" --output "$out/$name" \
		> "$out/$name.log" 2>&1
}
checked() { # NAME RC: the sweep's verdict
	local why rrc
	why=$(rows "$out/$1")
	rrc=$?
	if [ "$2" -eq 0 ] && [ "$rrc" -eq 0 ]; then say "$1" PASS "$why"; else say "$1" FAIL "exit $2, $why; $out/$1.log"; fi
}

coll sweep "$np" -- -o all -d float,half,bfloat16 -O sum -b 8 -e 128M -f 4
checked sweep $?
echo "gpu-check: what carried NCCL's traffic: $(grep -m1 -o '# nccl.*: carried by .*' "$out/sweep.log" || echo 'not said')"
coll types "$np" -- -o allreduce,reducescatter,reduce -d all -O all -r $((np - 1)) -b 8 -e 1M -f 8
checked types $?
# two ranks on GPU 0: each its own NCCL_HOSTID, so that NCCL takes them for two hosts
HOSTID=(sh -c 'NCCL_HOSTID=fp-gpu-check-$OMPI_COMM_WORLD_RANK exec "$@"' rank)
timeout 240 "${MPIRUN[@]}" -np 2 -x CUDA_VISIBLE_DEVICES=0 "${HOSTID[@]}" ./fabprobe coll --backend nccl --shared-gpu \
	-o all -d float,int32 -O all -r 1 -b 8 -e 4M -f 16 --output "$out/two-ranks" > "$out/two-ranks.log" 2>&1
checked two-ranks $?

coll corrupt "$np" -- -o allreduce,allgather -b 1M -e 1M --test-corrupt $((np - 1))
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'WRONG RESULT: nccl allreduce float sum, 1048576 B' "$out/corrupt.log"; then
	say corrupt PASS "caught: $(grep -m1 -o 'WRONG RESULT: [^:]*' "$out/corrupt.log")"
else
	say corrupt FAIL "exit $rc, not caught; $out/corrupt.log"
fi

# a hung peer: rank 1 (on GPU 0 beside rank 0 when there is one GPU) stops before its first timed batch
start=$(date +%s)
if [ "$ngpu" -ge 2 ]; then peer=() shared=(); else peer=(-x CUDA_VISIBLE_DEVICES=0 "${HOSTID[@]}") shared=(--shared-gpu); fi
timeout 120 "${MPIRUN[@]}" -np 2 "${peer[@]}" ./fabprobe coll --backend nccl "${shared[@]}" \
	-b 1M -e 1M --timeout 20 --test-stall 1 --output "$out/failed-peer" > "$out/failed-peer.log" 2>&1
rc=$? took=$(($(date +%s) - start))
if [ "$rc" -eq 3 ] && [ "$took" -le 90 ] &&
	grep -Eq 'not done after 20 s \(--timeout\)|did not end within 20 s' "$out/failed-peer.log"; then
	say failed-peer PASS "exit 3 after ${took} s: $(grep -m1 -Eo 'NCCL: [^:]*|rank [0-9]+ \([^)]*\): .[^;]*; rank 1 [^;]*' "$out/failed-peer.log")"
else
	say failed-peer FAIL "exit $rc after ${took} s; $out/failed-peer.log"
fi

# against nccl-tests' all_reduce_perf on one GPU, the same sizes (its source carried here)
if [ -z "${NCCL_TESTS_DIR:-}" ] || [ ! -f "$NCCL_TESTS_DIR/src/all_reduce.cu" ]; then
	say nccl-tests SKIP "NCCL_TESTS_DIR is not nccl-tests' source"
else
	nccl_inc=$(make --no-print-directory config WITH_CUDA=yes WITH_NCCL=yes | sed -n 's/.*include: \([^,]*\),.*/\1/p')
	if make -C "$NCCL_TESTS_DIR" MPI=0 CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" NCCL_HOME="$(dirname "$nccl_inc")" \
		> "$out/nccl-tests-build.log" 2>&1; then
		CUDA_VISIBLE_DEVICES=0 timeout 120 "$NCCL_TESTS_DIR/build/all_reduce_perf" -b 1M -e 128M -f 2 -g 1 -n 20 -w 5 \
			> "$out/perf.log" 2>&1
		coll vs-perf 1 -x CUDA_VISIBLE_DEVICES=0 -- -b 1M -e 128M -f 2 -n 20 -w 5
		# out-of-place algbw per size: all_reduce_perf's column 7 (size count type redop root time algbw)
		worst=$(awk 'FNR == NR { if ($1 ~ /^[0-9]+$/ && NF >= 8) p[$1] = $7; next }
			FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["in_place"] == 0 && ($c["size_B"] in p) { d = ($c["algbw_GBps"] - p[$c["size_B"]]) / p[$c["size_B"]]; d = d < 0 ? -d : d
				if (d > w) w = d; n++ } END { printf "%d sizes, worst %.1f%%", n, 100 * w; exit !(n > 0 && w <= 0.02) }' \
			"$out/perf.log" FS=, "$out/vs-perf/collectives.csv")
		if [ $? -eq 0 ]; then say nccl-tests PASS "algbw within 2% of all_reduce_perf: $worst"; else say nccl-tests FAIL "$worst; $out/perf.log"; fi
	else
		say nccl-tests FAIL "all_reduce_perf did not build: $out/nccl-tests-build.log"
	fi
fi
echo
printf '%s\n' "${summary[@]}"
echo "gpu-check: $((${#summary[@]} - fails)) of ${#summary[@]} checks passed or skipped, $(($(date +%s) - t0)) s; results under $out"
tar czf "$dest/gpu-check-logs.tar.gz" --exclude=gpu-check-logs.tar.gz -C "$(dirname "$out")" "$(basename "$out")" 2> /dev/null
echo "gpu-check: every step's files in $dest/gpu-check-logs.tar.gz"
[ "$fails" -eq 0 ]
