"""The magnet check (issue 40): each magnet alone in a printed cup on the check square's centre
sensor, against its batch's median of the same face down (board.json sensing.magnet_check;
the model in doce_host/physics/magnet_check.py). Searched over the board's tolerances, every
magnet corner enumerated: no right magnet is refused, a magnet at refused_under_percent of
its remanence or weaker never passes (the issue's 44 % and 46 % magnets among them), and the
check's figures in board.json are the model's."""

import json

import numpy as np
import pytest

from doce_host.paths import BOARD_FILE
from doce_host.physics import magnet_check as mc

SPEC = json.loads(BOARD_FILE.read_text())
CHECK = SPEC["sensing"]["magnet_check"]
KEEP = CHECK["keep_percent"] / 100
SMALL = {"starts": 2, "passes": 2}  # a small search: every corner of the magnet, the board's searched
NOMINAL = np.full((1, len(mc.BOARD)), 0.5)


@pytest.fixture(scope="module")
def least():
    return mc.search(lambda b, sp: mc.extremes(b, sp)[0], SPEC, np.random.default_rng(5), **SMALL)[0]


def test_no_right_magnet_is_refused(least):
    """The weakest right magnet against a batch of the strongest, read the same face down, at
    the searched worst board, less a read's noise on it and on the median: still over the line."""
    worst, at = mc.search(mc.spread, SPEC, np.random.default_rng(3), **SMALL)
    assert worst - mc.noise(SPEC, least) - mc.MARGIN >= KEEP, (worst, at.round(2).tolist())
    assert (1 + mc.noise(SPEC, least)) / worst <= CHECK["most_percent"] / 100  # nor refused as two magnets


@pytest.mark.parametrize("strength", [CHECK["refused_under_percent"] / 100, 0.46, 0.44])
def test_a_weak_magnet_is_always_refused(strength, least):
    """A magnet at `strength` of its remanence, at its strongest corner and pose, against a batch
    of the weakest right magnets, at the searched board where it reads most, noise lifting it and
    lowering the median: under the line. The issue's black 3 at 44 % and black 4 at 46 %."""
    most, at = mc.search(lambda b, sp: -mc.weak_passes(b, sp, strength), SPEC, np.random.default_rng(4), **SMALL)
    assert -most * (1 + mc.noise(SPEC, least)) < KEEP, (-most, at.round(2).tolist())


def test_the_batch_s_median_must_be_a_right_magnet_s_on_this_board(least):
    """board.json level_range holds every right magnet's level at the searched corners, noise
    allowed: a batch whose median is outside it is all weak, or of another size."""
    most = -mc.search(lambda b, sp: -mc.extremes(b, sp)[1], SPEC, np.random.default_rng(6), **SMALL)[0]
    low, high = CHECK["level_range"]
    allow = mc.noise(SPEC, least)
    assert least * (1 - 2 * allow) <= low <= least * (1 - allow)
    assert most * (1 + allow) <= high <= most * (1 + 2 * allow)


def test_a_full_magnet_stays_inside_the_sensor_s_linear_range():
    """At the cup's height the strongest magnet at the steepest board reads well inside the
    DRV5055's linear range, so a weak magnet's level is its field's share."""
    strongest = -mc.search(mc.strongest_field, SPEC, np.random.default_rng(7), **SMALL)[0]
    linear = ((SPEC["physics"]["rail"]["regulator_V"][0] - 0.2 - max(SPEC["physics"]["sensor"]["quiescent_V"]))
              * 1000 / SPEC["physics"]["sensor"]["sensitivity_mV_per_mT"][1])
    assert strongest < 0.6 * linear


def test_a_magnet_s_face_down_gives_its_sign():
    up, down = [mc.fields(SPEC, NOMINAL, np.array([[0.5, 0.5, 0.5, 0, 0.5, f]]))[0, 0] for f in (0, 1)]
    assert up > 0 > down and abs(up + down) < 1e-9


def test_the_simulator_s_lone_magnet_reads_the_model_s_field():
    """sim.fields.Scene's cup (doce dice magnets on the simulator) against this model, nominal."""
    from doce_host.sim.fields import Scene
    scene = Scene(SPEC, seed=None)
    channel = SPEC["squares"]["c3"][0]
    scene.cups["c3"] = (1.0, "S")
    sim = scene.field()[scene.present.index(channel)]
    assert sim == pytest.approx(mc.fields(SPEC, NOMINAL, np.array([[0.5, 0.5, 0.5, 0, 0.5, 0]]))[0, 0], abs=0.02)


DEEP = np.ones((1, len(mc.BOARD)))  # every depth at its most: the weakest field, where a lift costs most


def test_a_magnet_tilted_on_a_burr_rests_on_its_edge():
    """r40m finding 2: a magnet tilted TILT_DEG on a burr turns about the edge still on the floor, so
    its centre rises d/2 sin(tilt): some 4 % less field on the deepest board, not the 0.08 % of a
    turn about its own centre. Both ways of tilting read alike."""
    flat, left, right = (mc.fields(SPEC, DEEP, np.array([[0, 0, 0, 0, t, 0]]))[0, 0] for t in (0.5, 0, 1))
    assert 0.94 < right / flat < 0.98 and right == pytest.approx(left, rel=0.01)


def test_the_sensor_s_place_under_the_well_is_searched():
    """r40m finding 8: the centre sensor off its well's centre (SENSOR_OFF_MM: the screws' play in the
    PCB's and the well sheet's holes, the part on its pad, the element in its package) is a board
    tolerance: the spread at a board with it is worse than at the same board with the sensor centred."""
    centred, off = NOMINAL.copy(), NOMINAL.copy()
    centred[0, mc.BOARD.index("sensor off")], off[0, mc.BOARD.index("sensor off")] = 0, 1
    assert mc.spread(off, SPEC)[0] < mc.spread(centred, SPEC)[0] - 0.01


def test_two_right_magnets_stuck_together_read_over_most_percent():
    """r40m finding 4: a second magnet snapped onto the first (the pocket is shallower than a magnet,
    so it stands whole over the cup) reads about 1.5 times one: over most_percent of a nominal batch."""
    from doce_host.physics import dice
    ph = SPEC["physics"]
    m = ph["magnet"]
    d, h, br = m["diameter_mm"], m["height_mm"], np.mean(m["remanence_mT"])
    depth = ph["floor_mm"][0] + ph["air_mm"][0] + ph["sensor"]["hall_depth_mm"][0]
    one = lambda k: dice.bz_pairs(np.array([[0, 0, CHECK["cup_floor_mm"] + h / 2 + k * h]]),  # noqa: E731
                                  np.array([[0, 0, 1.0]]), np.array([br]), np.array([[d, h]]),
                                  np.array([[[0, 0, -depth]]]))[0, 0]
    assert (one(0) + one(1)) / one(0) > CHECK["most_percent"] / 100 * 1.03
