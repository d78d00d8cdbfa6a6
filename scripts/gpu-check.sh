#!/usr/bin/env bash
# GPU check of the NCCL collective backend, for a machine with GPUs:
#   scripts/gpu-check.sh [-np N] [extra fabprobe coll options...]
# Builds with CUDA and NCCL (kernels for this machine's GPU), runs the unit tests, then runs
# fabprobe coll --backend nccl over a sweep of every op (one rank per GPU; default: every GPU
# here), printing the nccl-tests table. Exits non-zero when NCCL did not run, when any element
# is wrong, when a deliberately corrupted element is NOT caught by the GPU check kernel, or on
# any error.
set -euo pipefail
cd "$(dirname "$0")/.."
np=""
if [ "${1:-}" = "-np" ]; then np=$2; shift 2; fi
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "$ngpu" -gt 0 ] || { echo "gpu-check: no GPU listed by nvidia-smi" >&2; exit 3; }
np=${np:-$ngpu}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun -np "$np" --oversubscribe --bind-to none -x NCCL_DEBUG)
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}

# kernels for the GPU here (sm_90 on H100/H200), not only PTX for the default architecture
rm -f build/kernels/fill_check.o
make WITH_CUDA=yes WITH_NCCL=yes NVCCFLAGS="-O2 -arch=native" fabprobe unit
build/tests/test_coll
out=$(mktemp -d /tmp/fp-gpu-XXXXXX)
fail=0

# verdict DIR RC: NCCL ran, rows exist, every row ok (or unsupported: NCCL has no in-place
# alltoall/sendrecv), wrong 0 everywhere
verdict() {
	local dir=$1 rc=$2 log=$1.log
	if grep -q '^coll nccl: skipped' "$log"; then echo "gpu-check: FAIL: NCCL was skipped: $(grep '^coll nccl' "$log")"; return 1; fi
	if [ "$rc" -ne 0 ]; then echo "gpu-check: FAIL: fabprobe exited $rc"; return 1; fi
	awk -F, 'NR > 1 { n++; if ($2 != "nccl") e++; else if ($17 == "unsupported") u++; else if ($17 != "ok" || $16 != "0") e++ }
		END { printf "gpu-check: %d rows, %d unsupported, %d bad\n", n, u, e; exit e > 0 || n == 0 }' "$dir/collectives.csv"
}

echo "== every op, float/half/bfloat16 sum, 8 B .. 256 MiB (x4), $np rank(s)"
set +e
"${MPIRUN[@]}" ./fabprobe coll --backend nccl -o all -d float,half,bfloat16 -O sum -b 8 -e 256M -f 4 \
	"$@" --output "$out/sweep" 2>&1 | tee "$out/sweep.log"
rc=${PIPESTATUS[0]}
verdict "$out/sweep" "$rc" || fail=1

echo "== reducing ops, every dtype and reduction, 8 B .. 1 MiB (x8)"
"${MPIRUN[@]}" ./fabprobe coll --backend nccl -o allreduce,reducescatter,reduce -d all -O all \
	-r $((np - 1)) -b 8 -e 1M -f 8 "$@" --output "$out/types" 2>&1 | tee "$out/types.log"
rc=${PIPESTATUS[0]}
verdict "$out/types" "$rc" || fail=1

echo "== a corrupted element must be caught by the GPU check (exit 1 expected)"
"${MPIRUN[@]}" ./fabprobe coll --backend nccl -o allreduce,allgather -b 1M -e 1M \
	--test-corrupt $((np - 1)) --output "$out/corrupt" > "$out/corrupt.log" 2>&1
rc=$?
set -e
if [ "$rc" -eq 1 ] && grep -q 'WRONG RESULT: nccl allreduce float sum, 1048576 B' "$out/corrupt.log"; then
	echo "gpu-check: corruption caught: $(grep -m1 'WRONG RESULT' "$out/corrupt.log")"
else
	echo "gpu-check: FAIL: corruption not caught (exit $rc)"; cat "$out/corrupt.log"; fail=1
fi
echo "results under $out"
[ "$fail" -eq 0 ] && echo "gpu-check: PASS" || echo "gpu-check: FAIL"
exit "$fail"
