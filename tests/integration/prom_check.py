#!/usr/bin/python3
"""prom_check.py FILE: parse a fabprobe.prom with the Prometheus client's own text parser
(Debian's python3-prometheus-client) and print one line per fact for the shell tests:
  verdict V
  finding KIND HOST PATH      (a link counter's: PATH is port:PORT)
  pairs PATH NLATENCY NBANDWIDTH   (series per path)
  tier PATH TIER LATENCY_S BW_BPS
  coll BACKEND PATH OP SIZE BUSBW_BPS
Exit 1 when the file does not parse, is not UTF-8, a family is not a gauge, a sample is not
finite, or `promtool check metrics` (Debian's prometheus package) finds a problem in it."""
import math
import shutil
import subprocess
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    try:
        raw = open(sys.argv[1], "rb").read()
        fams = list(text_string_to_metric_families(raw.decode("utf-8")))
    except Exception as e:  # not UTF-8, or the parser's own error: the file is not the format
        print("prom_check: does not parse: %s" % e, file=sys.stderr)
        return 1
    if not shutil.which("promtool"):
        print("prom_check: promtool is not installed (scripts/install-deps.sh)", file=sys.stderr)
        return 1
    lint = subprocess.run(["promtool", "check", "metrics"], input=raw, capture_output=True)
    if lint.returncode != 0:
        print("prom_check: promtool check metrics: %s" % (lint.stdout + lint.stderr).decode(errors="replace")[:2000],
              file=sys.stderr)
        return 1
    pairs = {}
    for f in fams:
        if f.type != "gauge" or not f.name.startswith("fabprobe_"):
            print("prom_check: %s is a %s" % (f.name, f.type), file=sys.stderr)
            return 1
        for s in f.samples:
            if not math.isfinite(s.value):
                print("prom_check: %s %s is not finite" % (s.name, s.labels), file=sys.stderr)
                return 1
            lb = s.labels
            if s.name == "fabprobe_verdict":
                print("verdict", int(s.value))
            elif s.name == "fabprobe_finding":
                print("finding", lb["kind"], lb["host"], lb["path"] if "path" in lb else "port:" + lb["port"])
            elif s.name == "fabprobe_pair_latency_seconds":
                pairs.setdefault(lb["path"], [0, 0])[0] += 1
            elif s.name == "fabprobe_pair_bandwidth_bytes_per_second":
                pairs.setdefault(lb["path"], [0, 0])[1] += 1
            elif s.name == "fabprobe_tier_latency_seconds":
                print("tier", lb["path"], lb["tier"], s.value)
            elif s.name == "fabprobe_collective_busbw_bytes_per_second":
                print("coll", lb["backend"], lb["path"] or "-", lb["op"], lb["size"], s.value)
    for p, (nl, nb) in sorted(pairs.items()):
        print("pairs", p, nl, nb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
