# Runs under MicroPython: micropython mp_cases.py CASES.jsonl TABLES_DIR
# One case per line, so only one case is in memory at a time; case i plays
# from TABLES_DIR/i.doct. Prints PASS/FAIL per case and "N passed, M failed".
import json
import sys

import casebook
from doce.tables import Tables

passed = failed = 0
with open(sys.argv[1]) as cases:
    for i, line in enumerate(cases):
        case = json.loads(line)
        with open("%s/%d.doct" % (sys.argv[2], i), "rb") as f:
            tables = Tables(f.read())
        problems = casebook.run(case, tables)
        if problems:
            failed += 1
            print("FAIL", case["name"], "; ".join(problems))
        else:
            passed += 1
            print("PASS", case["name"])
        case = tables = problems = None
print("%d passed, %d failed" % (passed, failed))
