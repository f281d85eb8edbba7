"""Misbuilt dice are caught before play (issue 40): a die with one fault either never reads
another piece, in any pose, or fails `doce dice check` (seated on the check's square, it does
not read as its own piece, or a magnet of its code reads less than any die built right reads
there: board.json sensing.check_above, so the check names it).

A magnet missing, reversed or extra changes a trit of the face seated: the code table keeps
every code two changes from any other, so the check names it. A weak (or sunk) magnet is
caught by the check only while it reads under its place's check_above: saturation hides more
(a sensor of the steepest corner saturates at fields a magnet at 40 % still reaches). Above
that line a weak magnet must never make its die read another piece: a ring magnet of the
pole other than the centre's that fades counts as none, which the code table allows for
(no code is another less such magnets); one of the centre's own pole counts as gone only
under gone_percent of the centre's reading, and the codes a die becomes by losing one such
magnet (board.strict: each colour's blocker) read only while every ring place counted as
none of the centre's sign is under strict_gone_percent of it. That keeps such a die off its
blocker from PROTECTED of the magnet's remanence (tested here), and at the line of 8 % from the
weakest the magnet check (doce dice magnets) passes, with dice around it too as far as searched
(tests/physics/test_weak_line.py), not down to issue 40's 40 % (hardware/README.md, what
gone_percent protects): a magnet the check refuses, glued anyway, is an expected failure."""

import json

import numpy as np
import pytest

from doce.board import UNSETTLED, Board
from doce.squares import piece, piece_name
from doce_host.paths import BOARD_FILE
from doce_host.physics import dice, gone, search
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
    `strength` of its remanence passes the dice check, seated square in its well (it reads as
    its own piece and each magnet at least its check_above): > 0, the check passes it."""
    kind = name if name.endswith("blocker") else name.split()[0] + " 1"
    down = face_down(name)
    die = dice.build(kind, SPEC["dice"], PH, hole=HOLE, faults=[(down, k, ("weak", strength))])
    fields = Fields()
    fields.add([0], die, [dice.Pose(down=down)], board.sensors[0][None])
    d = board.read(fields.total(1), rows=np.array([0]), noise=False)
    return READER.check_margin(d, piece(name))[0]


def test_a_die_of_full_strength_passes_the_check_and_one_nearly_without_a_magnet_fails_it():
    board = nominal_board()
    code = dice.codes_by_piece(SPEC["dice"])["black 4"]
    for k, mark in enumerate(code):
        if mark != "0":
            assert checked("black 4", k, 1.0, board) > 0 > checked("black 4", k, 0.1, board), k


SMALL = {"starts": 200, "rounds": 4, "corners": 3}  # a small search: under a minute of one core a piece
FADING = ("tipping flat", "held low", "held on the way down")  # the families in which a die fades
WEAK = {"starts": 300, "rounds": 5, "corners": 3}


def nearest_other(name, k, fault, family, seed=1):
    """The searched smallest margin (counts) to another piece of `name` with `fault` at magnet k
    of its face down, in `family`, every tolerance searched: < 0, it reads as another piece."""
    m, _ = search.worst(READER, None, None, name, None, search.families(PH)[family], np.random.default_rng([seed, k]),
                        tolerances=(SPEC, HOLE, True, [(face_down(name), k, fault)]), **WEAK)
    return m


ISSUE_WEAK = 0.40  # issue 40: a magnet weak down to 40 % remanence
PROTECTED = 0.62  # the weakest such magnet strict_gone_percent keeps off the blocker (hardware/README.md)
DANGEROUS = gone.dangerous(SPEC["dice"])  # the ring magnets of the centre's pole a weak one of which can mislead


def test_the_weak_magnets_that_can_mislead_are_twelve_each_to_its_colour_s_blocker():
    """gone.dangerous: losing one of these (with any of the die's ring magnets of the other pole)
    leaves another code, and that code is one of board.strict's, the pieces read under the
    stricter line: each colour's blocker. Every other weak magnet leaves no code at all."""
    assert len(DANGEROUS) == 12
    assert sorted(piece_name(p) for p in BOARD.strict) == ["black blocker", "white blocker"]


def never_reads_another_piece(name, k, strength):
    found = {}
    for family in FADING:
        found[family] = nearest_other(name, k, ("weak", strength), family) / PER_MT
        if found[family] <= 0:
            break  # it reads another piece: the searches left cannot change the verdict
    assert min(found.values()) > 0, {key: round(m, 2) for key, m in found.items()}


@pytest.mark.parametrize("name, k", DANGEROUS, ids=["%s %s" % (n, "CNESW"[k]) for n, k in DANGEROUS])
def test_a_die_with_a_dangerous_magnet_at_the_protected_strength_never_reads_another_piece(name, k):
    """Every die one of whose dangerous magnets (above) is at PROTECTED of its remanence, in each
    family where a die fades, every tolerance searched, never reads another piece. With
    gone_percent's line alone (25 %), black 4's E at 45 % tipping flat read as black's blocker
    (-2.64 mT, seed 1): the magnet fell under a quarter of the centre's reading (5.4 of 42 mT)
    while its N faded as fringe; at 62 % most of the twelve still did. A blocker now reads only
    while every ring place counted as none of the centre's sign is under strict_gone_percent of it
    (board.strict): a magnet at PROTECTED, faded with its die, still reads over that."""
    never_reads_another_piece(name, k, PROTECTED)


NOT_CURED = ("issue 40, not cured for a magnet the magnet check refuses: strict_gone_percent (8) is as low as a "
             "seated blocker with dice around it allows (+1.88 mT searched, hardware/README.md); white 2's S at "
             "40 %, tipping flat, reads 6.3 % of its centre (gone.critical, seed 1), under that line, and its die "
             "reads as white's blocker. The magnet check refuses magnets at 46 % or under before they are glued")


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=NOT_CURED)
def test_a_die_with_a_magnet_at_40_percent_never_reads_another_piece():
    """The issue's weakest magnet (40 %) in the die found nearest its blocker (white 2's S, tipping
    flat): gone.critical searches for the pose and corner where that magnet reads the least part
    of its centre while the rest reads as the blocker; the board's own reader must not read that
    reading as another piece."""
    ratio, reading = gone.critical(SPEC, "white 2", 3, ISSUE_WEAK, "tipping flat", 1, 1)
    assert reading is not None, "the search found no reading near the blocker"
    got, _ = READER.read(np.asarray(reading, float)[None])
    assert int(got[0]) in (piece("white 2"), UNSETTLED), "read as %s (%.2f %% of its centre)" % (
        piece_name(int(got[0])), ratio)
