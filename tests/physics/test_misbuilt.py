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
none of the centre's sign is under strict_gone_percent of it: a magnet down to issue 40's
40 %, faded with its die as far as the walls let it, still reads above that line
(hardware/README.md, what gone_percent protects). The magnet check (doce dice magnets) is
a second guard: it refuses the weakest magnets before they are glued."""

import json

import numpy as np
import pytest

from doce.board import Board
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
DANGEROUS = gone.dangerous(SPEC["dice"])  # the ring magnets of the centre's pole a weak one of which can mislead


def test_the_weak_magnets_that_can_mislead_are_twelve_each_to_its_colour_s_blocker():
    """gone.dangerous: losing one of these (with any of the die's ring magnets of the other pole)
    leaves another code, and that code is one of board.strict's, the pieces read under the
    stricter line: each colour's blocker. Every other weak magnet leaves no code at all."""
    assert len(DANGEROUS) == 12
    assert sorted(piece_name(p) for p in BOARD.strict) == ["black blocker", "white blocker"]


@pytest.mark.parametrize("name, k", DANGEROUS, ids=["%s %s" % (n, "CNESW"[k]) for n, k in DANGEROUS])
def test_a_die_with_a_magnet_at_40_percent_never_reads_another_piece(name, k):
    """The issue's weak dice (black 3 at 44 %, black 4 at 46 %: held low or tilted they read as
    black's blocker in the independent model), and every other die one of whose dangerous
    magnets (above) is at 40 % of its remanence, the weakest issue 40 names: in each family
    where a die fades, every tolerance searched, it never reads another piece. With
    gone_percent's line alone (25 %), black 4's E at 45 % tipping flat read as black's blocker
    (-2.64 mT, seed 1): the magnet fell under a quarter of the centre's reading (5.4 of 42 mT)
    while its N faded as fringe. A blocker now reads only while every ring place counted as none
    of the centre's sign is under strict_gone_percent of it (board.strict): the faded magnet
    still reads over that (hardware/README.md, what gone_percent protects)."""
    found = {}
    for family in FADING:
        found[family] = nearest_other(name, k, ("weak", ISSUE_WEAK), family) / PER_MT
        if found[family] <= 0:
            break  # it reads another piece: the searches left cannot change the verdict
    assert min(found.values()) > 0, {key: round(m, 2) for key, m in found.items()}


@pytest.mark.parametrize("name, k, fault", [("white 6", 4, "reversed"), ("white 4", 4, "extra-"),
                                            ("white 3", 4, "extra-")])
def test_the_issue_s_dice_with_a_magnet_reversed_or_extra_fail_the_dice_check(name, k, fault):
    """The issue's three others (held up or tilted, white 6 with W reversed read as white's
    blocker, white 4 and white 3 with an extra '-' at W as each other): seated on the check's
    square, at their searched best corner, they do not pass the check."""
    down = face_down(name)
    m, _ = search.worst(READER, None, None, name, None, search.families(PH)["seated, built wrong"],
                        np.random.default_rng([1, k]), tolerances=(SPEC, HOLE, True, [(down, k, fault)]), **SMALL)
    assert m < 0, "%s with %s at %s passes the check by %.2f mT" % (name, fault, "CNESW"[k], m / PER_MT)


@pytest.mark.parametrize("name, k", [("black 4", 1), ("white 2", 2)])
def test_the_dice_check_finds_a_missing_magnet_at_the_tolerances_corners(name, k):
    """The two ring magnets whose place reads most with no magnet there (black 4's N, white 2's E,
    of the pole other than the centre's: the centre's fringe and the side faces' magnets read up to
    about 19 mT there, above absent_opposite_below): missing, the die still reads between, so
    the check names the magnet, at its searched best corner (-3.9 and -4.8 mT, seed 1, by the
    trits alone; its band, check_above, adds to that)."""
    down = face_down(name)
    m, _ = search.worst(READER, None, None, name, None, search.families(PH)["seated, built wrong"],
                        np.random.default_rng([1, k]), tolerances=(SPEC, HOLE, True, [(down, k, ("weak", 0.0))]),
                        **SMALL)
    assert m < 0, "%s without its %s magnet reads right by %.2f mT" % (name, "CNESW"[k], m / PER_MT)


@pytest.mark.parametrize("name", ["black 6", "white 1"])
def test_a_die_built_right_passes_the_dice_check_at_its_searched_worst_corner(name):
    """check_above is each place's searched weakest reading (the lower of seeds 1 and 2, `make
    bands`) less 1.0 mT: searched again as a whole die with a third seed (search.cornered on
    "seated, checked": each sensor aimed at, either hand), a die built right still passes, every
    magnet over its band. black 6 (-----: five magnets of one pole weaken each other's readings)
    and white 1 (among the lowest bands, its N)."""
    m, _ = search.cornered(READER, name, search.families(PH)["seated, checked"], np.random.default_rng(3),
                           (SPEC, HOLE, True))
    assert m > 0, "%s built right fails the dice check by %.2f mT" % (name, -m / PER_MT)


def test_the_model_s_dice_check_passes_what_the_board_s_passes():
    """decode.Reader.check_margin (what the searches above judge by) against doce/dice.py's
    verdict on the same readings: > 0 exactly when the board names the die's own piece, right.
    Bands raised 4,000 counts over present_above, so that they, not the thresholds, decide some."""
    from doce.board import TRITS
    from doce.dice import verdict
    spec = json.loads(json.dumps(SPEC))
    above = spec["sensing"]["check_above"]
    for code in above:
        above[code] = [n + 4000 if n else 0 for n in above[code]]
    board = Board(spec)
    reader = Reader(board)
    rng = np.random.default_rng(5)
    agree = decided_by_band = 0
    for code, name in spec["dice"].items():
        sign = np.array([{0: 0, 1: 1, 2: -1}[TRITS[c]] for c in code])
        for turn in range(4):
            ring = np.roll(sign[1:], -turn)
            d = np.concatenate([sign[:1], ring])[None] * rng.uniform(14000, 26000, (300, 5))
            d += rng.normal(0, 2500, d.shape) * (np.concatenate([sign[:1], ring]) == 0)
            passed = reader.check_margin(d, piece(name)) > 0
            trits = reader.trits(reader.classes(d), d)
            for k in range(len(d)):
                v = verdict(list(trits[k]), board.dice, [int(x) for x in np.abs(d[k])], board.check_above)
                assert passed[k] == bool(v and v["ok"] and v["face"] == name), (name, d[k].round(), v)
                agree += 1
            decided_by_band += int((reader.seated_margin(d, piece(name)) > 0).sum() - passed.sum())
    assert agree == 14 * 4 * 300 and decided_by_band > 100, decided_by_band


def test_no_code_table_keeps_a_die_that_loses_one_magnet_of_its_centre_s_pole_from_reading_another_piece():
    """Why no code table cures the weak dice above: a weak magnet of the centre's pole fading
    past gone_percent with full magnets of the other pole fading as fringe (which the table
    already allows for) must not leave another code. Enumerated over every ring of + 0 - up to
    rotation, with doce/board.py's own rules (no code a turn of another or one change from it,
    none another less some of its other pole): exactly one table of seven codes a colour
    survives, and it clashes with the other colour's (its mirror in pole): -++++ and +++++."""
    import itertools

    from doce.board import decode_table

    rings = sorted({min(r[t:] + r[:t] for t in range(4)) for r in map("".join, itertools.product("+0-", repeat=4))}
                   - {"0000"})
    turns = {r: {r[t:] + r[:t] for t in range(4)} for r in rings}

    def near(a, b):
        return any(sum(x != y for x, y in zip(a, t)) <= 1 for t in turns[b])

    def lost(r):  # less some of its '+' (the other pole: the centre is '-'), and any one '-'
        plus, minus = [i for i, c in enumerate(r) if c == "+"], [i for i, c in enumerate(r) if c == "-"]
        return {"".join("0" if i in drop or i == m else c for i, c in enumerate(r))
                for m in [None] + minus for n in range(m is None, len(plus) + 1)
                for drop in itertools.combinations(plus, n)}

    fits = {(a, b): not near(a, b) and not any(min(x[t:] + x[:t] for t in range(4)) == b for x in lost(a))
            for a in rings for b in rings if a != b}
    tables = []

    def grow(chosen, rest):
        if len(chosen) == 7:
            tables.append(chosen)
        for i, r in enumerate(rest):
            if all(fits[r, c] and fits[c, r] for c in chosen):
                grow(chosen + [r], rest[i + 1:])

    grow([], rings)
    assert len(tables) == 1 and {"++++", "----"} <= set(tables[0]), tables
    black = {"-" + r: "black %d" % k for k, r in enumerate(tables[0], 1)}
    black = {c: (v if v != "black 7" else "black blocker") for c, v in black.items()}
    flip = str.maketrans("+-", "-+")
    both = dict(black, **{c.translate(flip): v.replace("black", "white") for c, v in black.items()})
    with pytest.raises(ValueError, match="one magnet from another piece"):
        decode_table(both)
