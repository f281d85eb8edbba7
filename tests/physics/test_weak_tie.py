"""Tying the magnet check's weakest passing magnet to what gone_percent protects (h40o): the
check passes a magnet by its moment over its batch's (remanence times size, near enough), so its
weakest is a corner of size with a remanence each; a weak-die search can hold the weak magnet
there (gone.nearest's `fixed`, search.down_magnet) and search every other tolerance."""

import json

import numpy as np

from doce_host.paths import BOARD_FILE
from doce_host.physics import magnet_check as mc
from doce_host.physics import search
from doce_host.physics.scene import face_down

SPEC = json.loads(BOARD_FILE.read_text())


def test_a_held_size_is_the_weak_magnet_s_own():
    """down_magnet names the weak magnet's tolerances: held at the small end, the one magnet
    built that small is the one the fault weakened (and no other is), whichever position k."""
    m = SPEC["physics"]["magnet"]
    name = "white 2"
    down = face_down(name)
    for k in (1, 3):
        f = np.full((1, search.TOLERANCES), 0.5)
        f[0, search.down_magnet(k, "diameter")] = 0.0
        f[0, search.down_magnet(k, "remanence")] = 1.0
        (die, _), = search.built(SPEC["physics"], SPEC, name, f, SPEC["mechanics"]["jig"]["drill_mm"], 1,
                                 SPEC["sensing"]["baseline"], True, SPEC["sensing"]["power_on_us"],
                                 faults=[(down, k, ("weak", 0.5))])[0]
        small = np.isclose(die.size[:, 0], m["diameter_mm"] - m["size_tol_mm"])
        weak = np.isclose(np.abs(die.polarisation), 0.5 * m["remanence_mT"][1])
        assert small.sum() == 1 and (small == weak).all() and die.face[small][0] == down


def test_the_weakest_passing_size_corners_bound_the_any_size_figure():
    """weak_passes with the size held reads no more than with it free, and the most over the
    four size corners is the free figure (the corners are all weak_passes takes it over)."""
    rng = np.random.default_rng(3)
    board = rng.uniform(0, 1, (3, len(mc.BOARD)))
    free = mc.weak_passes(board, SPEC, 0.5)
    held = np.array([mc.weak_passes(board, SPEC, 0.5, size) for size in mc.SIZE_CORNERS])
    assert (held <= free + 1e-12).all()
    assert np.allclose(held.max(0), free)
    # the smallest magnet reads least: the weakest that passes at that size is the strongest remanence
    assert held[0].max() < held[-1].min()
