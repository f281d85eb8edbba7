"""What the strip receives, and the power it may draw."""

import json

import pytest

from doce.board import Board
from doce.lights import Lights
from doce_host.paths import BOARD_FILE

SPEC = json.loads(BOARD_FILE.read_text())


@pytest.mark.parametrize("wifi", ["", "_wifi"])
def test_the_brightest_picture_stays_within_the_led_power_budget(wifi):
    """With Wi-Fi off, and at the lower cap a board must use while its Wi-Fi is on."""
    spec = json.loads(json.dumps(SPEC))
    p = spec["power"]
    p["brightness_cap"] = p["brightness_cap" + wifi]
    board = Board(spec)
    lights = Lights({}, lambda: None, board, brightness=1.0)
    brightest = max(sum(c) for colours in lights.palette for c in colours)
    worst_ma = board.led_count * brightest * p["led_ma_per_channel"] / 255
    assert worst_ma <= p["led_budget%s_ma" % wifi]
    lights.set_brightness(5.0)  # out of range: held at the cap
    assert max(sum(c) for colours in lights.palette for c in colours) == brightest


def test_the_strip_receives_grb_bytes(sim):
    sim.place("c3", "white 4")
    sim.place("a1", "black 2")  # black's last die: blue, (0, 114, 178) with no red
    sent = bytes.fromhex(sim.command(do="leds")["bytes"])  # the bytes on the wire, not decoded
    at = sim.led("a1") * 3
    green, red, blue = sent[at:at + 3]  # the WS2812B datasheet's order: G7..G0, R7..R0, B7..B0
    assert red == 0 and 0 < green < blue
    state = sim.debug_state()
    assert state["writes"] >= 2  # drawn at boot, and after the play


@pytest.mark.parametrize("face", [1, 4, 6])
def test_the_boards_move_flashes_on_time_across_the_ticks_wrap(monkeypatch, face):
    """A move shown from 50 ms before the ticks wrap (2**30 ms on the ESP32) is 80 ms old 30 ms after
    it: its first flash is still on. Ticks are subtracted with ticks_diff, never directly."""
    import time

    from doce.game import NOWHERE, WHITE
    period = 1 << 30
    monkeypatch.setattr(time, "ticks_diff", lambda a, b: ((a - b + period // 2) & (period - 1)) - period // 2,
                        raising=False)
    board = Board(SPEC)
    lights = Lights({}, lambda: None, board, brightness=1.0)
    move = (NOWHERE, 12, face)  # a die on c3, not a blocker
    lights._move_frame(move, WHITE, period - 50)  # shown first just before the wrap
    lights._move_frame(move, WHITE, 30)  # 80 ms later, the ticks wrapped
    assert lights.move_light == lights.palette[WHITE][8]  # the first flash lasts 250 ms: still on
