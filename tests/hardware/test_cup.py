"""The magnet check's cup (hardware/cup.py, dice/cup.stl): the file is what the script makes,
it is closed, it fits the narrowest well, its pocket takes the widest magnet, and the pocket's
floor is where the magnet check's model puts a magnet's face (board.json sensing.magnet_check)."""

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
SPEC = json.loads((HARDWARE / "board.json").read_text())
CHECK = SPEC["sensing"]["magnet_check"]


sys.path.insert(0, str(HARDWARE))
import cup  # noqa: E402  (a plain script next to board.json, as mechanics.py imports layout.py)

MESH = cup.mesh(SPEC)


def test_the_stl_is_what_cup_py_makes():
    assert (HARDWARE / "dice" / "cup.stl").read_bytes() == cup.stl(MESH), "run python hardware/cup.py"


def test_the_cup_is_closed():
    """Every edge is walked once each way: no hole, every face outward alike."""
    key = lambda p: tuple(round(c, 6) for c in p)  # noqa: E731
    edges = Counter((key(t[i]), key(t[(i + 1) % 3])) for t in MESH for i in range(3))
    assert all(n == 1 and edges[(b, a)] == 1 for (a, b), n in edges.items())


def test_the_cup_fits_the_well_and_the_pocket_the_magnet():
    xs, zs = [p[0] for t in MESH for p in t], [p[2] for t in MESH for p in t]
    m, well = SPEC["physics"]["magnet"], SPEC["physics"]["well_mm"]
    assert max(xs) - min(xs) == pytest.approx(CHECK["outside_mm"], abs=1e-9)
    assert CHECK["outside_mm"] + cup.PRINT_SHRINK_MM <= well[0] - well[1] + 1e-9  # printed large by as much, it fits
    assert CHECK["pocket_mm"] >= m["diameter_mm"] + m["size_tol_mm"]  # drawn 0.1 wider, printed about pocket_mm
    assert min(zs) == 0
    block = [p for t in MESH[:-12] for p in t]
    assert max(p[2] for p in block) == pytest.approx(CHECK["cup_floor_mm"] + cup.POCKET_DEPTH_MM)
    floor = [p for p in block if abs(p[0]) < CHECK["pocket_mm"] / 2 and abs(p[1]) < CHECK["pocket_mm"] / 2
             and 0 < p[2]]
    assert min(p[2] for p in floor) == CHECK["cup_floor_mm"]  # a magnet's face over the well's floor
    assert cup.POCKET_DEPTH_MM < m["height_mm"] - m["size_tol_mm"]  # every magnet stands proud, to be picked out


def test_the_cup_comes_out_by_its_tab_and_its_foot_is_chamfered():
    """r40m finding 9: 3.5 mm tall, 6.5 mm down a 10 mm well with nothing to grip, it came out only
    with the board turned over; printed pocket up, its first layer's flare (0.2-0.3 mm a side)
    made it wider than the narrowest well. The tab stands over the well, clear of the pocket, and
    the foot's edge is cut back by more than the flare."""
    tab = [p for t in MESH[-12:] for p in t]
    assert min(p[2] for p in tab) < CHECK["cup_floor_mm"] + cup.POCKET_DEPTH_MM  # into the block: one body sliced
    assert max(p[2] for p in tab) >= SPEC["physics"]["well_depth_mm"] + 3  # two fingers' hold over the well
    assert min(abs(p[1]) for p in tab) > CHECK["pocket_mm"] / 2 + 2  # a magnet goes in past it
    assert max(max(abs(p[0]), abs(p[1])) for p in tab) <= CHECK["outside_mm"] / 2  # it fits the well as the cup does
    bottom = [p for t in MESH for p in t if p[2] == 0]
    assert max(max(abs(p[0]), abs(p[1])) for p in bottom) <= CHECK["outside_mm"] / 2 - 0.3
