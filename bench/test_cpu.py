"""CPU seconds of each test (user+sys of the pytest worker and of the children it has waited for: the
simulated boards are MicroPython unix-port subprocesses), to find what makes `make test` slow.

A pytest plugin, and a report of what it wrote. The plugin goes on the path from a copy
(mkdir -p /tmp/cpu && cp bench/test_cpu.py /tmp/cpu/): bench/ itself there would hide Blinka's `board`
module behind bench/board.py.

    PYTHONPATH=$PWD/host:$PWD/firmware:$PWD/tests:/tmp/cpu DOCE_CPU_LOG=build/cpu.jsonl \\
        nice -n 10 .venv/bin/python -m pytest -n 2 --dist loadfile -p test_cpu tests/fleet
    .venv/bin/python bench/test_cpu.py build/cpu.jsonl          # per file, heaviest first
    .venv/bin/python bench/test_cpu.py build/cpu.jsonl --tests  # per test

Each test's figure spans its setup, call and teardown: a module-scoped fixture's cost falls on the test
that first asks for it (and its teardown on the last), so a file's total is the figure to compare. A
child still running when a test ends is counted when it is reaped (RUSAGE_CHILDREN counts only those).
"""

import json
import os
import resource
import sys
from collections import defaultdict

import pytest


LOG = os.path.abspath(os.environ["DOCE_CPU_LOG"]) if os.environ.get("DOCE_CPU_LOG") else None  # a test may chdir


def _cpu(who=resource.RUSAGE_SELF):
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    own, kids = _cpu(), _cpu(resource.RUSAGE_CHILDREN)
    yield
    if LOG:
        own, kids = _cpu() - own, _cpu(resource.RUSAGE_CHILDREN) - kids  # pytest's own, and its children's
        line = json.dumps({"test": item.nodeid, "cpu": round(own + kids, 3), "own": round(own, 3)})
        with open(LOG, "a") as log:  # one short line a write: the workers' lines do not interleave
            log.write(line + "\n")


def main(argv):
    path, per_test = argv[0], "--tests" in argv
    totals, own = defaultdict(float), defaultdict(float)
    for line in open(path):
        row = json.loads(line)
        name = row["test"] if per_test else row["test"].split("::")[0]
        totals[name] += row["cpu"]
        own[name] += row.get("own", 0)
    print("     cpu  pytest's  (seconds; the rest its children's: MicroPython, mosquitto, Chromium)")
    for name, cpu in sorted(totals.items(), key=lambda kv: -kv[1]):
        print("%8.1f  %8.1f  %s" % (cpu, own[name], name))
    print("%8.1f  %8.1f  total (%d %s)" % (sum(totals.values()), sum(own.values()), len(totals),
                                           "tests" if per_test else "files"))


if __name__ == "__main__":
    main(sys.argv[1:])
