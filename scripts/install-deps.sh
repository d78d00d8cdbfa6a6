#!/usr/bin/env bash
# Install from Debian's packages what fabprobe needs to build, test and run its demo.
# Idempotent: installs only what is missing and does nothing when everything is there.
#   scripts/install-deps.sh          install what is missing (root)
#   scripts/install-deps.sh --check  exit 0 when nothing is missing, 1 otherwise; installs nothing
set -euo pipefail

# package -> a file or command that proves it is installed (a glob where the path has a version)
declare -A need=(
  [openmpi-bin]=/usr/bin/mpirun
  [libopenmpi-dev]=/usr/bin/mpicc
  [hwloc]=/usr/bin/lstopo-no-graphics
  [libhwloc-dev]=/usr/include/hwloc.h
  [libibverbs-dev]=/usr/include/infiniband/verbs.h
  [rdma-core]=/usr/sbin/rdma-ndd
  [ibverbs-utils]=/usr/bin/ibv_devinfo
  [iproute2]=/usr/sbin/ip
  [pkg-config]=/usr/bin/pkg-config
  [make]=/usr/bin/make
  [gcc]=/usr/bin/gcc
  [clang]=/usr/bin/clang
  [libclang-rt-dev]='/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'  # libFuzzer (make fuzz)
  [libbpf-dev]=/usr/include/bpf/bpf_helpers.h
  [util-linux]=/usr/bin/unshare
  [procps]=/usr/bin/pkill
  [slurm-client]=/usr/bin/scontrol
  [slurmctld]=/usr/sbin/slurmctld
  [slurmd]=/usr/sbin/slurmd
  [munge]=/usr/sbin/munged
  [iperf3]=/usr/bin/iperf3
  [python3]=/usr/bin/python3
  [python3-yaml]=/usr/lib/python3/dist-packages/yaml/__init__.py
  [python3-jsonschema]=/usr/lib/python3/dist-packages/jsonschema/__init__.py  # summary.json against its schema
  [python3-prometheus-client]=/usr/lib/python3/dist-packages/prometheus_client/__init__.py  # fabprobe.prom, parsed
  [prometheus]=/usr/bin/promtool  # promtool check metrics on fabprobe.prom
  [python3-junitparser]=/usr/lib/python3/dist-packages/junitparser/__init__.py  # junit.xml, loaded
  [chromium]=/usr/bin/chromium   # headless, to test report.html (tests/integration/test_report.sh)
)

missing=()
for pkg in "${!need[@]}"; do
  compgen -G "${need[$pkg]}" > /dev/null || missing+=("$pkg")
done

if [ "${1:-}" = "--check" ]; then
  [ ${#missing[@]} -eq 0 ] && exit 0
  echo "install-deps: missing: ${missing[*]}" >&2
  exit 1
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: must run as root to install; as root run:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
