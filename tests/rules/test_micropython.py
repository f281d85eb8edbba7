"""The same rule cases on the MicroPython unix port, in a 64 KB heap like an ESP32's."""

import json
from pathlib import Path

import pytest

from test_cases import CASES, case_tables

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def results(micropython, tmp_path_factory):
    work = tmp_path_factory.mktemp("mp_cases")
    with open(work / "cases.jsonl", "w") as f:
        for i, case in enumerate(CASES):
            f.write(json.dumps(case) + "\n")
            (work / ("%d.doct" % i)).write_bytes(case_tables(case).blob)
    run = micropython(HERE / "mp_cases.py", work / "cases.jsonl", work, path=[HERE])
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "%d passed, 0 failed" % len(CASES), run.stdout
    return {line.split()[1]: line for line in lines[:-1]}


@pytest.mark.parametrize("name", [c["name"] for c in CASES])
def test_rule_on_micropython(results, name):
    assert results[name] == "PASS " + name


def test_a_play_allocates_nothing_on_micropython(micropython, tmp_path):
    """The engine's promise: until a round ends, playing allocates nothing."""
    (tmp_path / "standard.doct").write_bytes(case_tables({"rules": "standard"}).blob)
    run = micropython(HERE / "mp_alloc.py", tmp_path / "standard.doct")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0"
