"""The dice check's comparison: a face's reading against every code, up to rotation."""

import json

import pytest

from doce.board import BETWEEN, TRITS, Board
from fakes import turned

from doce.dice import verdict
from doce_host.dice_check import describe_face as describe
from doce_host.paths import BOARD_FILE

BOARD = Board(json.loads(BOARD_FILE.read_text()))
FLIP = {0: 0, 1: 2, 2: 1}

# A made-up table, so the exact verdicts below do not depend on the board file's codes
# (which the design work changes); the board file's own table is checked further down.
CODES = {"+0-+-": "white 3", "-0+-+": "black 3", "+00++": "white 1", "+000-": "white blocker"}


def read_of(code, turn=0):
    return turned(code, turn)


def test_a_right_face_in_any_turn_is_named():
    for turn in range(4):
        assert verdict(read_of("+0-+-", turn), CODES) == {"face": "white 3", "ok": True, "wrong": [],
                                                          "read": "".join("0+-"[t] for t in read_of("+0-+-", turn))}


def test_a_reversed_magnet_is_named_where_the_maker_sees_it():
    read = read_of("+0-+-", 1)  # its ring turned a quarter: C N E S W read "+-+-0"
    read[2] = FLIP[read[2]]  # the magnet now facing east, glued the wrong way up
    v = verdict(read, CODES)
    assert v["face"] == "white 3" and not v["ok"] and v["wrong"] == [["E", "reversed"]] and v["or"] == []
    assert describe(v) == "looks like white 3, but the E magnet is reversed (reads +---0)"


def test_missing_extra_and_weak_magnets():
    sparse = {"+000-": "white blocker", "--+-+": "black 2"}
    read = read_of("--+-+")
    read[2] = 0  # E missing
    v = verdict(read, sparse)
    assert v["face"] == "black 2" and v["wrong"] == [["E", "missing"]]
    read = read_of("+000-")
    read[1] = TRITS["+"]  # an extra magnet at N
    v = verdict(read, sparse)
    assert v["face"] == "white blocker" and v["wrong"] == [["N", "extra"]] and v["or"] == []
    read = read_of("+000-")
    read[0] = BETWEEN
    v = verdict(read, CODES)
    assert v["face"] == "white blocker" and v["wrong"] == [["C", "weak"]]
    assert "the centre magnet is weak" in describe(v) and "reads ?000-" in describe(v)


def test_a_reading_as_near_to_two_codes_names_both():
    v = verdict(read_of("+0000"), {"+000-": "white blocker", "-00+0": "black 9", "+00+0": "white 9"})
    assert v["face"] == "white blocker" and v["wrong"] == [["W", "missing"]]
    assert v["or"] == [{"face": "white 9", "wrong": [["S", "missing"]]}]
    assert describe(v) == ("looks like white blocker, but the W magnet is missing; "
                           "or white 9, but the S magnet is missing (reads +0000)")


def test_an_empty_square_has_no_verdict():
    assert verdict([0, 0, 0, 0, 0], CODES) is None


def test_every_face_of_the_board_files_dice_reads_right_in_every_turn():
    for code, name in BOARD.dice.items():
        for turn in range(4):
            v = verdict(turned(code, turn), BOARD.dice)
            assert v["ok"] and v["face"] == name, (code, turn, v)


@pytest.mark.parametrize("code", sorted(BOARD.dice))
def test_one_wrong_magnet_is_never_read_as_the_same_face(code):
    """Whatever the table: a face with one magnet reversed, missing or extra is never that
    face, and never more than one position away from the code it is judged against."""
    for i in range(5):
        for fault in (0, 1, 2, BETWEEN):
            read = turned(code, 0)
            if fault == read[i] or (fault == 0 and i == 0 and not any(read[1:])):
                continue
            read[i] = fault
            v = verdict(read, BOARD.dice)
            assert not (v["ok"] and v["face"] == BOARD.dice[code])
            assert len(v["wrong"]) <= 1


def test_a_magnet_reading_less_than_a_die_built_right_can_is_named_weak_in_any_turn():
    """Each magnet of a face must read at least the board file's check_above for its place (the
    least a magnet of a die built right reads there, seated, at every corner of the tolerances):
    the E magnet of white 3 (`+--00` in the made-up table) read 1 count short, wherever the die's
    turn puts it, is weak; at its band it is right."""
    bands = {"+0-+-": [20000, 0, 17000, 18000, 19000]}
    least = [n for code in sorted(CODES) for n in bands.get(code, [15000] * 5)]  # as Board.check_above holds them
    for turn in range(4):
        level = turned_levels([30000, 0, 17000, 30000, 30000], turn)
        assert verdict(read_of("+0-+-", turn), CODES, level, least)["ok"], turn
        short = turned_levels([30000, 0, 16999, 30000, 30000], turn)
        v = verdict(read_of("+0-+-", turn), CODES, short, least)
        place = "NESW"[(1 - turn) % 4]  # the code's E place, as the ring turned puts it
        assert v["face"] == "white 3" and not v["ok"] and v["wrong"] == [[place, "weak"]], (turn, v)
        assert "the %s magnet is weak" % place in describe(v)
    assert verdict(read_of("+0-+-"), CODES, [0] * 5, None)["ok"]  # no bands (a made-up table): the trits alone


def turned_levels(levels, turn):
    """Five readings C N E S W of a code's places, with its ring turned as `turned` turns it."""
    return levels[:1] + levels[1 + turn % 4:] + levels[1:1 + turn % 4]


def test_a_board_file_s_check_above_is_at_least_present_above_at_every_magnet():
    for k, code in enumerate(sorted(BOARD.dice)):
        least = BOARD.check_above[5 * k:5 * k + 5]
        assert [n >= BOARD.present_above if c != "0" else n == 0 for c, n in zip(code, least)] == [True] * 5, code


def test_a_blocker_whose_empty_place_reads_faint_of_its_centre_s_sign_is_named_extra():
    """Board.strict's pieces (each colour's blocker) read in play only while every ring place
    counted as none of the centre's sign reads under strict_gone_percent of the centre's
    (Scanner.read_square's sixth byte: a bit, 1 << place, for each place so read). A blocker with
    a faint magnet of its centre's sign at an empty place (a sunk extra magnet) would pass on its
    five trits and never read in play: the check names that place extra, in any turn; the same
    blocker without it, and a piece play reads whatever that byte says, pass."""
    blocker = next(code for code, name in BOARD.dice.items() if name == "black blocker")
    for turn in range(4):
        read = turned(blocker, turn)
        for place in (i for i in range(1, 5) if read[i] == 0):
            v = verdict(read + [1 << place], BOARD.dice, None, None, BOARD.strict)
            assert v["face"] == "black blocker" and not v["ok"], (turn, v)
            assert v["wrong"] == [["CNESW"[place], "extra"]], (turn, v)
            assert "the %s magnet is extra" % "CNESW"[place] in describe(v)
        assert verdict(read + [0], BOARD.dice, None, None, BOARD.strict)["ok"], turn
    other = next(code for code, name in BOARD.dice.items() if name == "black 2")
    read = turned(other, 0)
    faint = sum(1 << i for i in range(1, 5) if read[i] == 0)
    assert faint and verdict(read + [faint], BOARD.dice, None, None, BOARD.strict)["ok"]
