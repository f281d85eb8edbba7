"""The rule cases in cases.json, on CPython. test_micropython.py runs the same cases there."""

from pathlib import Path

import pytest

import casebook
from doce.tables import Tables
from doce_host import rules

CASES = casebook.load(Path(__file__).with_name("cases.json"))


def case_tables(case):
    r = rules.load(case.get("rules", "standard"))
    r.update(case.get("variant", {}))
    rules.validate(r)
    return Tables(rules.compile_tables(r))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_rule(case):
    assert casebook.run(case, case_tables(case)) == [], case["rule"]
