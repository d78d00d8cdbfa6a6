#!/usr/bin/python3
"""junit_check.py FILE: load a junit.xml with a standard JUnit consumer (Debian's
python3-junitparser) and print one line per fact for the shell tests:
  suite NAME TESTS FAILURES   (the counts as the consumer computes them from the cases)
  fail SUITE CASE             (one per failed case)
Exit 1 when it does not load, or a suite's declared counts differ from its cases."""
import sys

from junitparser import Failure, JUnitXml


def main():
    try:
        xml = JUnitXml.fromfile(sys.argv[1])
    except Exception as e:
        print("junit_check: does not load: %s" % e, file=sys.stderr)
        return 1
    for suite in xml:
        cases = list(suite)
        failed = [c for c in cases if any(isinstance(r, Failure) for r in c.result)]
        if suite.tests != len(cases) or suite.failures != len(failed):
            print("junit_check: suite %s says %s tests, %s failures; its cases %d, %d" %
                  (suite.name, suite.tests, suite.failures, len(cases), len(failed)), file=sys.stderr)
            return 1
        print("suite", suite.name.replace(" ", "_"), len(cases), len(failed))
        for c in failed:
            print("fail", suite.name.replace(" ", "_"), c.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
