"""`make test`'s order: an xdist worker's collection goes heaviest file first (tests/conftest.py, from the
measured tests/file_cpu.txt), the files the table does not know last, each file whole and in its order;
and xdist hands the files out in that order, not sorted again by their number of tests."""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

# tests/conftest.py by its path: `import conftest` finds whichever folder's conftest a worker loaded last
_spec = importlib.util.spec_from_file_location("doce_tests_conftest", Path(__file__).with_name("conftest.py"))
conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conftest)
ROOT = conftest.ROOT


def collect(ids, worker=True):
    items = [SimpleNamespace(nodeid=i) for i in ids]
    config = SimpleNamespace(workerinput={}) if worker else SimpleNamespace()
    conftest.pytest_collection_modifyitems(config, items)
    return [item.nodeid for item in items]


def test_a_worker_collects_the_heaviest_file_first_each_file_whole_and_in_its_order():
    costs = conftest.file_costs()
    heavy, light = max(costs, key=costs.get), min(costs, key=costs.get)
    unknown = "tests/not_measured.py"
    collected = [light + "::b", light + "::a", unknown + "::c", heavy + "::b", heavy + "::a"]
    assert collect(collected) == [heavy + "::b", heavy + "::a", light + "::b", light + "::a", unknown + "::c"]
    assert collect(collected, worker=False) == collected  # (a run without workers keeps its order)


def test_make_test_keeps_that_order():
    recipe = (ROOT / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "--dist loadfile" in recipe and "--no-loadscope-reorder" in recipe, recipe


def test_the_table_says_what_it_was_measured_against():
    head = [line for line in conftest.FILE_CPU.read_text().splitlines() if line.startswith("#")]
    assert any("measured against" in line for line in head), head
