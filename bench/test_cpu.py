"""CPU seconds of each test (user+sys of the pytest worker and of the children it has waited for: the
simulated boards are MicroPython unix-port subprocesses), to find what makes `make test` slow.

A pytest plugin, and a report of what it wrote. The plugin goes on the path from a copy
(mkdir -p /tmp/cpu && cp bench/test_cpu.py /tmp/cpu/): bench/ itself there would hide Blinka's `board`
module behind bench/board.py.

    PYTHONPATH=$PWD/host:$PWD/firmware:$PWD/tests:/tmp/cpu DOCE_CPU_LOG=build/cpu.jsonl \\
        nice -n 10 .venv/bin/python -m pytest -n 2 --dist loadfile -p test_cpu tests/fleet
    .venv/bin/python bench/test_cpu.py build/cpu.jsonl          # per file, heaviest first
    .venv/bin/python bench/test_cpu.py build/cpu.jsonl --tests  # per test
    .venv/bin/python bench/test_cpu.py build/cpu.jsonl --order tests/file_cpu.txt  # make test's order

--order writes the per-file table `make test` hands its heaviest files out from first (tests/conftest.py
pytest_collection_modifyitems), headed by what it was measured against: the commit and load the log's
first line holds (the plugin writes it as the run starts), or `--against TEXT` for a log without one.
Measure the whole suite (`-n 2 --dist loadfile tests`) for it: a file left out goes last.

Each test's figure spans its setup, call and teardown: a module-scoped fixture's cost falls on the test
that first asks for it (and its teardown on the last), so a file's total is the figure to compare. A
child still running when a test ends is counted when it is reaped (RUSAGE_CHILDREN counts only those).
"""

import json
import os
import resource
import subprocess
import sys
import time
from collections import defaultdict

import pytest


LOG = os.path.abspath(os.environ["DOCE_CPU_LOG"]) if os.environ.get("DOCE_CPU_LOG") else None  # a test may chdir


def _cpu(who=resource.RUSAGE_SELF):
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


def pytest_sessionstart(session):
    """What the run measures: the commit (`git describe --dirty`) and the load as it starts; once, by
    the controller (an xdist worker has workerinput)."""
    if LOG and not hasattr(session.config, "workerinput"):
        described = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True,
                                   cwd=str(session.config.rootpath)).stdout.strip()
        with open(LOG, "a") as log:
            log.write(json.dumps({"commit": described, "load": round(os.getloadavg()[0], 1)}) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    own, kids, began = _cpu(), _cpu(resource.RUSAGE_CHILDREN), time.monotonic()
    yield
    if LOG:
        own, kids = _cpu() - own, _cpu(resource.RUSAGE_CHILDREN) - kids  # pytest's own, and its children's
        line = json.dumps({"test": item.nodeid, "cpu": round(own + kids, 3), "own": round(own, 3),
                           "wall": round(time.monotonic() - began, 3)})  # (under the run's load)
        with open(LOG, "a") as log:  # one short line a write: the workers' lines do not interleave
            log.write(line + "\n")


def main(argv):
    path, per_test = argv[0], "--tests" in argv
    totals, own, runs = defaultdict(float), defaultdict(float), []
    for line in open(path):
        row = json.loads(line)
        if "test" not in row:  # a run's head: its commit and load
            runs.append(row)
            continue
        name = row["test"] if per_test else row["test"].split("::")[0]
        totals[name] += row["cpu"]
        own[name] += row.get("own", 0)
    if "--order" in argv:
        against = argv[argv.index("--against") + 1] if "--against" in argv else ", ".join(
            "%s (load %s as it began)" % (r["commit"], r["load"]) for r in runs)
        if not against:
            sys.exit("say what the log was measured against: --against TEXT (its runs' commit, the load)")
        write_order(argv[argv.index("--order") + 1], totals, against, path)
        return
    print("     cpu  pytest's  (seconds; the rest its children's: MicroPython, mosquitto, Chromium)")
    for name, cpu in sorted(totals.items(), key=lambda kv: -kv[1]):
        print("%8.1f  %8.1f  %s" % (cpu, own[name], name))
    print("%8.1f  %8.1f  total (%d %s)" % (sum(totals.values()), sum(own.values()), len(totals),
                                           "tests" if per_test else "files"))


def write_order(path, totals, against, log):
    """The order table: each file's CPU seconds, heaviest first (tests/conftest.py reads it)."""
    with open(path, "w") as out:
        out.write("# CPU seconds of each test file (user+sys of the pytest worker and its children), heaviest first:\n"
                  "# `make test` hands xdist its files in this order (tests/conftest.py), those not here last.\n"
                  "# bench/test_cpu.py %s --order; measured against %s.\n" % (os.path.basename(log), against))
        for name, cpu in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])):
            out.write("%7.1f  %s\n" % (cpu, name))


if __name__ == "__main__":
    main(sys.argv[1:])
