"""Misbuilt dice are caught before play (issue 40): a die with one fault either never reads
another piece, in any pose, or fails `doce dice check` (seated on the check's square, it does
not read as its own piece, so the check names it). A magnet weak down to 40 % of its remanence
is such a fault: held low or tilted, the issue's black 3 (a magnet at 44 %) and black 4 (46 %)
read as black's blocker in the independent model, and seated they read right.

What a seated check can see, searched at the tolerances' corners (search.py, "seated" and
"seated, built wrong"): a full-strength magnet's reading runs from about 24.5 mT (black 6's
weakest, the deepest sensor, the weakest magnet) to the sensor's saturation; a magnet at 40 %
reads up to 54.6 mT (black 4's N), and at 7 % most ring magnets of the centre's other pole still
read as magnets (at 4 %, black 1's N is 0.08 mT from it: the centre's fringe and the side faces'
magnets read at its sensor with no magnet there). No threshold on a seated reading
separates them (hardware/README.md, the dice check)."""

import json

import numpy as np
import pytest

from doce.board import Board
from doce.squares import piece
from doce_host.paths import BOARD_FILE
from doce_host.physics import dice, search
from doce_host.physics.campaign import Campaign
from doce_host.physics.decode import Reader
from doce_host.physics.reading import Boards, Fields
from doce_host.physics.scene import face_down

SPEC = json.loads(BOARD_FILE.read_text())
PH = SPEC["physics"]
HOLE = SPEC["mechanics"]["jig"]["drill_mm"]
BOARD = Board(SPEC)
READER = Reader(BOARD)
PER_MT = Campaign(SPEC).per_mT


def nominal_board():
    """One square of a board whose every part is the middle of its range, calibrated."""
    pins = {what: np.full((1, n), 0.5) for what, n in search.BOARD}
    pins["board switch drop"] = pins["switch drop"][:, :1]
    pins["inl"] = pins["inl"][:, None, :]
    return Boards(PH, 1, np.random.default_rng(0), BOARD.baseline, calibrated=True, power_on_us=BOARD.power_on_us,
                  pins=pins)


def checked(name, k, strength, board):
    """By how many counts a die of `name` whose magnet k (C N E S W) of the face down is at
    `strength` of its remanence reads as its own piece, seated square in its well (the dice
    check's reading): > 0, the check passes it."""
    kind = name if name.endswith("blocker") else name.split()[0] + " 1"
    down = face_down(name)
    die = dice.build(kind, SPEC["dice"], PH, hole=HOLE, faults=[(down, k, ("weak", strength))])
    fields = Fields()
    fields.add([0], die, [dice.Pose(down=down)], board.sensors[0][None])
    d = board.read(fields.total(1), rows=np.array([0]), noise=False)
    return READER.seated_margin(d, piece(name))[0]


def test_a_die_of_full_strength_passes_the_check_and_one_nearly_without_a_magnet_fails_it():
    board = nominal_board()
    code = dice.codes_by_piece(SPEC["dice"])["black 4"]
    for k, mark in enumerate(code):
        if mark != "0":
            assert checked("black 4", k, 1.0, board) > 0 > checked("black 4", k, 0.1, board), k


@pytest.mark.xfail(strict=True, reason="issue 40, not yet cured: seated, no threshold tells a magnet at 40 % "
                                       "(up to 54.6 mT at the corners) from a full one (down to 24.5 mT)")
@pytest.mark.parametrize("name, strength", [("black 3", 0.44), ("black 4", 0.46)])
def test_the_dice_check_finds_a_magnet_weak_down_to_40_percent(name, strength):
    """Issue 40's two weak dice: on a board in the middle of its tolerances, seated square, every
    magnet of the face down at that strength must fail the check (today the sensor's
    saturation hides it: a full magnet's 60-77 mT reads as ~50, a 46 % one's 35 mT as present)."""
    board = nominal_board()
    code = dice.codes_by_piece(SPEC["dice"])[name]
    passed = [k for k, mark in enumerate(code) if mark != "0" and checked(name, k, strength, board) > 0]
    assert passed == [], "%s: magnets %s at %d %% pass the check" % (name, ["CNESW"[k] for k in passed],
                                                                    100 * strength)


SMALL = {"starts": 200, "rounds": 4, "corners": 3}  # a small search: under a minute of one core a piece


@pytest.mark.parametrize("name, k", [("black 4", 1), ("white 2", 2)])
def test_the_dice_check_finds_a_missing_magnet_at_the_tolerances_corners(name, k):
    """The two ring magnets whose place reads most with no magnet there (black 4's N, white 2's E,
    of the pole other than the centre's: the centre's fringe and the side faces' magnets read up to
    about 19 mT there, above absent_opposite_below): missing, the die still reads between, so
    the check names the magnet, at its searched best corner (-3.9 and -4.8 mT, seed 1)."""
    down = face_down(name)
    m, _ = search.worst(READER, None, None, name, None, search.families(PH)["seated, built wrong"],
                        np.random.default_rng([1, k]), tolerances=(SPEC, HOLE, True, [(down, k, ("weak", 0.0))]),
                        **SMALL)
    assert m < 0, "%s without its %s magnet reads right by %.2f mT" % (name, "CNESW"[k], m / PER_MT)


def test_a_full_strength_die_passes_the_dice_check_at_its_searched_worst_corner():
    """black 6 (-----), whose five magnets of one pole weaken each other's readings: its weakest
    reads about 24.5 mT at the tolerances' corners (the lowest found, every black piece and white
    1-2 searched), present_above 23.0; each of its five sensors
    aimed at (search.deep's way), it still reads right, so the check passes it."""
    family = search.families(PH)["seated"]
    worst = min(search.worst(READER, None, None, "black 6", None, family, np.random.default_rng([1, s]),
                             tolerances=(SPEC, HOLE, True), sensor=s, **SMALL)[0] for s in range(5))
    assert worst > 0, "black 6 reads right by %.2f mT" % (worst / PER_MT)
