# demo-opts.sh — the measurement options of the demo, sourced by scripts/demo.sh, by
# scripts/bench-map.sh and by the emulated-cluster test (tests/integration/
# test_cluster_fabprobe.sh), so that what they claim of "the demo's options" stays true:
# enough samples for clear figures on 2 cores, short enough for the demo to take under 2 minutes
# (windows of 4 MiB: at the demo's 1 Gbit/s uplinks a window of 8 took 40 s more in all).
# shellcheck shell=bash disable=SC2034 # used by the scripts that source it
DEMO_OPTS=(-c 1 -n 300 --lat-warmup 50 -s 1M -W 4 --bw-iters 3 --bw-warmup 1)
