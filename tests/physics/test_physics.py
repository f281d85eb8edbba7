"""The magnetic model and the design it proves: fields right in sign and size, dice read
right within tolerance, and never as another piece outside it or when built wrong."""

import json
import math

import numpy as np
import pytest

from doce.board import EMPTY, UNSETTLED, Board
from doce.squares import piece as piece_value
from doce_host.paths import BOARD_FILE
from doce_host.physics import dice, readout
from doce_host.physics.campaign import Campaign
from doce_host.physics.scene import Scene, face_down, well_limits

SPEC = json.loads(BOARD_FILE.read_text())
PH = SPEC["physics"]
PIECES = sorted(SPEC["dice"].values())
BOARD = Board(SPEC)


def test_a_magnet_on_its_axis_matches_the_closed_form():
    """A '+' magnet (south pole facing down) above a sensor gives the textbook field of an
    axially magnetised cylinder, pointing up: magpylib is wired with the right units and signs."""
    m = PH["magnet"]
    br = sum(m["remanence_mT"]) / 2
    r, h = m["diameter_mm"] / 2, m["height_mm"]
    for gap in (1.0, 3.0, 6.0):  # from the magnet's face to the sensor
        at = np.array([[0.0, 0.0, gap + h / 2]])
        axis = np.array([[0.0, 0.0, -1.0]])  # the face points down, at the sensor
        b = dice.bz(at, axis, np.array([dice.SIGNS["+"] * br]), np.array([[2 * r, h]]), [(0, 0, 0)])[0]
        exact = br / 2 * ((gap + h) / math.hypot(r, gap + h) - gap / math.hypot(r, gap))
        assert b == pytest.approx(exact, rel=1e-3) and b > 0


def test_the_adc_reads_half_supply_where_esp32s_do():
    """29,600-32,800 read_u16 counts at 1.65 V, chip to chip (measured on ESP32s)."""
    rng = np.random.default_rng(3)
    seen = []
    for _ in range(400):
        parts = readout.Parts.draw(PH, 1, rng)
        seen.append(int(readout.u16(readout.raw(np.array([1.65]), parts, PH))[0]))
    assert 29_600 <= min(seen) and max(seen) <= 32_800
    assert max(seen) - min(seen) > 2000  # the spread is there, not one nominal chip


@pytest.mark.parametrize("piece", PIECES)
def test_every_piece_reads_right_in_every_quarter_turn(piece):
    scene = Scene(SPEC, seed=5)
    baseline = np.array(scene.levels())
    for turn in range(4):
        scene.put("c3", piece, scene.seated("c3", piece, turn))
        assert read(scene, baseline, "c3") == piece_value(piece), turn


@pytest.mark.parametrize("piece", PIECES)
def test_a_die_beyond_the_well_is_never_read_as_a_piece(piece):
    """Turned 45 degrees or 3 mm off centre it cannot drop into its well: it rests on the
    rim. It may read empty or unsettled, never as a piece (not even its own, half seen)."""
    scene = Scene(SPEC, seed=6)
    baseline = np.array(scene.levels())
    rim = PH["well_depth_mm"]
    for pose in (dice.Pose(down=face_down(piece), turn=45, lift=rim),
                 dice.Pose(down=face_down(piece), dx=3, lift=rim), dice.Pose(down=face_down(piece), dy=-3, lift=rim)):
        scene.put("c3", piece, pose)
        assert read(scene, baseline, "c3") in (EMPTY, UNSETTLED, piece_value(piece)), pose
        assert read(scene, baseline, "c3") not in set(map(piece_value, PIECES)) - {piece_value(piece)}


@pytest.mark.parametrize("fault", ["missing", "reversed", "extra+", "extra-"])
def test_a_die_built_wrong_reads_unsettled(fault):
    """Every piece, each of its five magnet positions: one magnet wrong is caught."""
    baseline = readout.counts(np.zeros(5), readout.Parts.nominal(PH, 5), PH)
    g = PH["floor_mm"][0] + PH["air_mm"][0] + PH["sensor"]["hall_depth_mm"][0]
    r = PH["ring_mm"]
    sensors = np.array([(0, 0, -g), (0, r, -g), (r, 0, -g), (0, -r, -g), (-r, 0, -g)])
    codes = dice.codes_by_piece(SPEC["dice"])
    tried = 0
    for piece in PIECES:
        down = face_down(piece)
        for k in range(5):
            if (codes[piece][k] == "0") != fault.startswith("extra"):
                continue
            magnets, side = dice.build(piece, SPEC["dice"], PH, faults=[(down, k, fault)])
            at, axis = dice.place(magnets, side, dice.Pose(down=down))
            bz = dice.bz(at, axis, magnets.polarisation, magnets.size, sensors)
            got = decode(readout.counts(bz, readout.Parts.nominal(PH, 5), PH) - baseline)
            assert got == UNSETTLED, (piece, k, fault)
            tried += 1
    assert tried >= 14


def test_two_thousand_placements_within_tolerance_never_read_wrong():
    """`make physics` in small: W = 0, and every die at rest in its well reads right."""
    campaign = Campaign(SPEC, seed=11).run(2000)
    assert campaign.totals()["wrong"] == 0
    for case in ("seated", "crowded", "empty"):
        tally = campaign.tally[case]
        assert tally["right"] >= 0.99 * sum(tally.values()) > 0, case
    assert campaign.tally["misbuilt"]["unsettled"] == sum(campaign.tally["misbuilt"].values()) > 0
    assert campaign.margin[0] > 0  # every reading on its side of its threshold, noise aside


def test_the_wells_hold_a_die_to_a_fraction_of_a_millimetre_and_two_degrees():
    offset, turn = well_limits(PH)
    assert 0 < offset < 0.5 and 0 < turn < 2.5


def read(scene, baseline, square):
    levels = np.array(scene.levels())
    return decode(levels[SPEC["squares"][square]] - baseline[SPEC["squares"][square]])


def decode(d):
    s = SPEC["sensing"]
    k = 0
    for x in d:
        t = 0 if abs(x) < s["absent_below"] else 3 if abs(x) < s["present_above"] else 1 if x > 0 else 2
        k = k * 4 + t
    return BOARD.decode[k]


def test_the_drawing_of_the_code_is_the_board_files():
    from doce_host.paths import ROOT
    from doce_host.physics.drawing import draw
    assert (ROOT / "hardware" / "die-code.svg").read_text() == draw(SPEC), \
        "run: python -m doce_host.physics.drawing > hardware/die-code.svg"


def test_a_bad_move_is_refused_and_changes_nothing():
    from doce_host.sim.hands import Hands
    hands = Hands(1)
    before = hands.levels()
    for move, args in [("place", ("z9", "white 1")), ("place", ("c3", "white 9")), ("place", ("c33", "white 1")),
                       ("lift", ("q1",)), ("tilt", ("c3",)), ("slide", ("c3", "c4")), ("hover", ("a1", 3)),
                       ("break_sensor", ("c3", "Q")), ("pass_over", ("x1",))]:
        with pytest.raises(ValueError):
            getattr(hands, move)(*args)
    assert hands.levels() == before and hands.pieces == {}
    hands.place("c3", "white 1")
    for move, args in [("tilt", ("c3", -50)), ("hover", ("c3", -5)), ("slide", ("c3", "c3")), ("slide", ("c3", "z9"))]:
        with pytest.raises(ValueError):
            getattr(hands, move)(*args)
    assert hands.pieces == {"c3": ("white 1", 0)} and hands.levels() == hands.sent
