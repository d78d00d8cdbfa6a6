#!/usr/bin/env bash
# The Makefile's search for NCCL, on fake trees of each layout it knows: NCCL_HOME, beside
# CUDA, the system's multiarch directory, the nvidia-nccl wheel (libnccl.so.2 alone); the first
# that has both the header and the library wins, a header without a library is passed over,
# none found is said (and an error with WITH_NCCL=yes). Then the CUDA kernels' header
# dependencies: a change to bench/coll/coll_math.h (the expected values the GPU check kernel
# shares with the host) rebuilds fill_check.o, and nothing rebuilds it when nothing changed.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
tmp=$(mktemp -d /tmp/fp-build-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
arch=$(gcc -print-multiarch 2>/dev/null)

# nccl_tree INCLUDE_DIR LIB_DIR LIB_NAME: a fake NCCL there
nccl_tree() { mkdir -p "$1" "$2" && : > "$1/nccl.h" && : > "$2/$3"; }
nccl_tree "$tmp/home/include" "$tmp/home/lib" libnccl.so
nccl_tree "$tmp/cuda/include" "$tmp/cuda/lib64" libnccl.so
nccl_tree "$tmp/sys/usr/include" "$tmp/sys/usr/lib/${arch:-x86_64-linux-gnu}" libnccl.so
nccl_tree "$tmp/site/nvidia/nccl/include" "$tmp/site/nvidia/nccl/lib" libnccl.so.2
mkdir -p "$tmp/empty" "$tmp/half/include" && : > "$tmp/half/include/nccl.h"
# found VARS...: what `make config` says it took ("WHERE|INCLUDE|LIB")
found() {
	make --no-print-directory config WITH_CUDA=no "$@" 2>&1 |
		sed -n 's/^  nccl .*found: \(.*\), include: \(.*\), lib: \(.*\))$/\1|\2|\3/p'
}
all=(NCCL_HOME="$tmp/home" CUDA_HOME="$tmp/cuda" NCCL_SYS_ROOT="$tmp/sys" NCCL_PY_SITE="$tmp/empty $tmp/site")
expect "NCCL_HOME first, when every layout has NCCL" [ "$(found "${all[@]}")" = "NCCL_HOME|$tmp/home/include|$tmp/home/lib/libnccl.so" ]
expect "then beside CUDA" [ "$(found "${all[@]:1}")" = "beside CUDA|$tmp/cuda/include|$tmp/cuda/lib64/libnccl.so" ]
expect "then the system's multiarch directory (a distribution's package)" \
	[ "$(found CUDA_HOME="$tmp/empty" "${all[@]:2}")" = "system|$tmp/sys/usr/include|$tmp/sys/usr/lib/$arch/libnccl.so" ]
expect "then the Python wheel's layout, its libnccl.so.2 alone" [ "$(found CUDA_HOME="$tmp/empty" NCCL_SYS_ROOT="$tmp/empty" \
	NCCL_PY_SITE="$tmp/empty $tmp/site")" = "Python wheel|$tmp/site/nvidia/nccl/include|$tmp/site/nvidia/nccl/lib/libnccl.so.2" ]
expect "a header without a library is passed over" [ "$(found NCCL_HOME="$tmp/half" "${all[@]:1}")" = \
	"beside CUDA|$tmp/cuda/include|$tmp/cuda/lib64/libnccl.so" ]
none=(CUDA_HOME="$tmp/empty" NCCL_SYS_ROOT="$tmp/empty" NCCL_PY_SITE="$tmp/empty")
expect "none: said" [ "$(found "${none[@]}")" = "nowhere|none|none" ]
make --no-print-directory config WITH_CUDA=no WITH_NCCL=yes "${none[@]}" > "$tmp/yes.out" 2>&1
rc=$?
expect "none with WITH_NCCL=yes: an error naming it (exit $rc)" sh -c "[ $rc -ne 0 ] && grep -q 'WITH_NCCL=yes but NCCL was not found' '$tmp/yes.out'"

# the kernels' header dependencies (a build with CUDA only)
if ! make --no-print-directory config 2>/dev/null | grep -q '^  cuda       yes'; then
	skip "fill_check.o's header dependencies" "this build has no CUDA"
elif [ ! -f build/kernels/fill_check.d ]; then
	skip "fill_check.o's header dependencies" "build/kernels/fill_check.d not there (make fabprobe first)"
else
	expect "fill_check.o: its dependencies name coll_math.h" grep -q 'bench/coll/coll_math.h' build/kernels/fill_check.d
	expect "coll_math.h changed: fill_check.o is rebuilt (make -n)" sh -c \
		"make -n -W bench/coll/coll_math.h fabprobe 2>&1 | grep -q 'nvcc .* -o build/kernels/fill_check.o'"
	expect "nothing changed: fill_check.o is not rebuilt" sh -c "! make -n fabprobe 2>&1 | grep -q 'nvcc'"
	expect "the default build has sm_90 and sm_100 code" sh -c \
		"make --no-print-directory config | grep -q 'code=sm_90 .*code=\[sm_100,compute_100\]'"
fi
exit $((FAILED > 0))
