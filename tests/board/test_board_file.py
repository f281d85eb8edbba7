"""A wrong board file is refused with a message naming the field, never half-used."""

import copy
import json

import pytest

from doce.board import Board
from doce_host.paths import BOARD_FILE

SPEC = json.loads(BOARD_FILE.read_text())


def broken(change):
    spec = copy.deepcopy(SPEC)
    change(spec)
    return spec


CASES = [
    ("a square missing", lambda s: s["squares"].pop("e5"), "squares: one entry for each of a1..e5"),
    ("a square off the grid", lambda s: s["squares"].update(a6=[125, 126, 127, 0, 1]), "squares: one entry"),
    ("a channel used twice", lambda s: s["squares"].update(e5=[0, 121, 122, 123, 124]), "none used twice"),
    ("a channel off the multiplexers", lambda s: s["squares"].update(e5=[24, 121, 122, 123, 200]),
     "every channel on a multiplexer input"),
    ("four sensors", lambda s: s["squares"].update(e5=[24, 121, 122, 123]), "five channels"),
    ("too many groups", lambda s: s["sensing"].update(groups=9), "sensing.groups"),
    ("other multiplexers", lambda s: s["sensing"].update(channels_per_group=8), "sensing.channels_per_group"),
    ("a debounce nothing reaches", lambda s: s["sensing"].update(debounce_scans=300), "sensing.debounce_scans"),
    ("an LED twice", lambda s: s["leds"]["squares"].update(e5=0), "leds: every LED index"),
    ("a brightness over full", lambda s: s["power"].update(brightness_cap=3), "power.brightness_cap"),
    ("a missing section", lambda s: s.pop("sensing"), "missing or malformed field 'sensing'"),
    *[("fringe %r" % v, lambda s, v=v: s["sensing"].update(fringe_percent=v), "sensing.fringe_percent")
      for v in (True, 0.5, 50.0, 0, 100, -5, "50", None)],
    ("no fringe", lambda s: s["sensing"].pop("fringe_percent"), "missing or malformed field 'fringe_percent'"),
    *[("gone %r" % v, lambda s, v=v: s["sensing"].update(gone_percent=v), "sensing.gone_percent")
      for v in (True, 25.0, 0, -5, "25", None, 50, 99)],  # 50: at 7500 / 15000 it never applies
    ("no gone", lambda s: s["sensing"].pop("gone_percent"), "missing or malformed field 'gone_percent'"),
    ("no dice", lambda s: s.pop("dice"), "missing or malformed field 'dice'"),
    ("dice a list", lambda s: s.update(dice=list(s["dice"])), "dice: one code for each of the 14 pieces"),
    ("dice null", lambda s: s.update(dice=None), "dice: one code for each of the 14 pieces"),
    ("no white 6", lambda s: s.update(dice={k: v for k, v in s["dice"].items() if v != "white 6"}),
     "dice: one code for each of the 14 pieces"),
    ("no dice at all", lambda s: s.update(dice={}), "dice: one code for each of the 14 pieces"),
]


@pytest.mark.parametrize("what, change, message", CASES, ids=[c[0] for c in CASES])
def test_a_wrong_board_file_is_refused(what, change, message):
    with pytest.raises(ValueError) as e:
        Board(broken(change))
    assert str(e.value).startswith("board file: ") and message in str(e.value)


def test_the_shipped_board_file_is_right():
    board = Board(SPEC)
    assert board.squares == 25 and board.channels == 128 and bin(board.watch_groups).count("1") == 2
