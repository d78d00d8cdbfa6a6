#!/usr/bin/python3
"""summary_check.py SUMMARY SCHEMA: validate a run's summary.json against docs/summary.schema.json
(jsonschema, Debian's python3-jsonschema), check what the schema cannot (every host of a
finding and of a group is one of the run's hosts; each tier's groups hold every host once;
the verdict is its clauses'), then print one line per fact for the shell tests to grep:
  verdict RESULT EXIT
  tiers PATH NTIERS GROUPS-PER-TIER (comma-separated)
  finding PATH KIND HOSTS(+-joined) STATE
  coll BACKEND PATH OP SIZE BUSBW PCT WRONG
  link KIND HOST PORT         (a link counter that rose)
Exit 1 with the reason on stderr when the file is not valid."""
import json
import sys

import jsonschema


def main():
    # strict UTF-8: a byte that is not UTF-8 is an error here, as in any conforming JSON reader
    summary, schema = json.load(open(sys.argv[1], encoding="utf-8")), json.load(open(sys.argv[2], encoding="utf-8"))
    try:
        jsonschema.Draft7Validator(schema).validate(summary)
    except jsonschema.ValidationError as e:
        print("summary_check: not valid: %s at %s" % (e.message, "/".join(map(str, e.absolute_path))), file=sys.stderr)
        return 1
    hosts = set(summary["run"]["hosts"])
    v = summary["verdict"]
    # the verdict is its clauses: FAIL exactly when one fails, the line their texts in order
    fails = any(c["fails"] for c in v["clauses"])
    line = "verdict: %s (%s)" % ("FAIL" if fails else "PASS", "; ".join(c["text"] for c in v["clauses"]))
    if v["result"] != ("FAIL" if fails else "PASS") or v["exit_code"] != int(fails) or v["line"] != line:
        print("summary_check: the verdict (%s, %s) is not its clauses': %s" % (v["result"], v["line"], line),
              file=sys.stderr)
        return 1
    print("verdict", v["result"], v["exit_code"])
    for p in summary["paths"]:
        m = p["map"]
        if m is None:
            continue
        for t in m["tier"]:
            seen = [h for members in t["members"].values() for h in members]
            if sorted(seen) != sorted(hosts) or len(t["members"]) != t["groups"]:
                print("summary_check: %s tier %d: its groups do not hold every host once" % (p["path"], t["tier"]),
                      file=sys.stderr)
                return 1
        print("tiers", p["path"], m["tiers"], ",".join(str(t["groups"]) for t in m["tier"]))
        groups = {g for t in m["tier"] for g in t["members"]}
        for f in m["findings"] + m["not_counted"]:
            # a slow uplink names its switch group, one of the map's
            if f["kind"] == "low_bw_uplink" and len(f["hosts"]) == 1 and f["hosts"][0] in groups:
                pass
            elif not set(f["hosts"]) <= hosts:
                print("summary_check: a finding names a host the run does not have: %s" % f["hosts"], file=sys.stderr)
                return 1
            print("finding", p["path"], f["kind"], "+".join(f["hosts"]), f["state"].replace(" ", "_"))
    for c in summary["collectives"]:
        print("coll", c["backend"], c["path"] or "-", c["op"], c["size_B"], c["busbw_GBps"], c["pct_line_rate"], c["wrong"])
    lc = summary["link_counters"]
    for f in lc["findings"]:
        if f["host"] not in hosts:
            print("summary_check: a link finding names a host the run does not have: %s" % f["host"], file=sys.stderr)
            return 1
        print("link", f["kind"], f["host"], f["port"])
    if lc["findings_total"] != v["link_findings"] or len(lc["findings"]) > lc["findings_total"]:
        print("summary_check: link findings: %d listed, %d in all, the verdict says %d" %
              (len(lc["findings"]), lc["findings_total"], v["link_findings"]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
