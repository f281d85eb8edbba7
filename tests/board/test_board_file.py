"""A wrong board file is refused with a message naming the field, never half-used."""

import copy
import json

import pytest
from waiting import completed

from doce.board import Board
from doce_host.paths import BOARD_FILE, FIRMWARE_DIR, SIM_DEVICE, tool

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
    *[("strict gone %r" % v, lambda s, v=v: s["sensing"].update(strict_gone_percent=v), "sensing.strict_gone_percent")
      for v in (True, 4.0, 0, -1, "4", None, 26)],  # 26: over gone_percent (25), it would never apply
    ("no strict gone", lambda s: s["sensing"].pop("strict_gone_percent"),
     "missing or malformed field 'strict_gone_percent'"),
    ("no dice check bands", lambda s: s["sensing"].pop("check_above"), "missing or malformed field 'check_above'"),
    *[("dice check band %s" % what, lambda s, f=f: f(s["sensing"]["check_above"]), "sensing.check_above")
      for what, f in (("missing a code", lambda a: a.pop("+++++")), ("a list", lambda a: a.update({"+++++": 20000})),
                      ("of four", lambda a: a.update({"+++++": [20000] * 4})),
                      ("under present_above", lambda a: a.update({"+++++": [20000, 20000, 14999, 20000, 20000]})),
                      ("where no magnet is", lambda a: a.update({"++000": [20000, 20000, 1, 0, 0]})),
                      ("of text", lambda a: a.update({"+++++": ["20000"] * 5})),
                      ("a code of none", lambda a: a.update({"+0000": [20000, 0, 0, 0, 0]})))],
    ("no dice", lambda s: s.pop("dice"), "missing or malformed field 'dice'"),
    ("dice a list", lambda s: s.update(dice=list(s["dice"])), "dice: one code for each of the 14 pieces"),
    ("dice null", lambda s: s.update(dice=None), "dice: one code for each of the 14 pieces"),
    ("no white 6", lambda s: s.update(dice={k: v for k, v in s["dice"].items() if v != "white 6"}),
     "dice: one code for each of the 14 pieces"),
    ("no dice at all", lambda s: s.update(dice={}), "dice: one code for each of the 14 pieces"),
    # issue 41, 6: each read after the check, so a KeyError, or a type nothing checked
    *[("no %s" % f, lambda s, f=f: s["sensing"].pop(f), "missing or malformed field '%s'" % f)
      for f in ("power_on_us", "baseline", "scan_period_ms", "idle_scan_period_ms")],
    ("no board name", lambda s: s.pop("board"), "missing or malformed field 'board'"),
    ("a board name of 100 characters", lambda s: s.update(board="x" * 100), "board: the board's name"),
    ("a board name with an escape", lambda s: s.update(board="rev \x1b[2J"), "board: the board's name"),
    ("a list for a file", lambda s: s.clear() or s.update({"0": []}), "missing or malformed field"),
    *[("%s %r" % (f, v), lambda s, f=f, v=v: s["sensing"].update({f: v}), "sensing." + f)
      for f, v in (("power_on_us", "400"), ("baseline", 0), ("baseline", 1.5), ("scan_period_ms", True),
                   ("scan_period_ms", 0), ("idle_scan_period_ms", 0.5), ("absent_below", "7500"))],
    ("an idle period shorter than a scan's", lambda s: s["sensing"].update(idle_scan_period_ms=1, scan_period_ms=2),
     "sensing.idle_scan_period_ms"),
    ("an LED count of text", lambda s: s["leds"].update(count="31"), "leds.count"),
    # doce/board.py keeps LED indices in bytes: 299 passed the check, then Board() raised a ValueError
    # naming no field (review of issue 41, 7)
    ("an LED index above 255", lambda s: (s["leds"].update(count=300), s["leds"]["squares"].update(a1=299)),
     "leds.count: 1 to 256"),
    ("no Wi-Fi brightness", lambda s: s["power"].pop("brightness_cap_wifi"), "'brightness_cap_wifi'"),
    ("a Wi-Fi brightness over full", lambda s: s["power"].update(brightness_cap_wifi=2), "power.brightness_cap_wifi"),
    # every pins.* a GPIO a DOCE board can use, as it uses it (machine.Pin took any number)
    ("no pins", lambda s: s.pop("pins"), "missing or malformed field 'pins'"),
    ("no button pin", lambda s: s["pins"].pop("button"), "pins: an object naming"),
    ("the ADC on ADC2", lambda s: s["pins"].update(sensor_adc=25), "pins.sensor_adc: GPIO 25 is not on ADC1"),
    ("the ADC on an output", lambda s: s["pins"].update(sensor_adc=4), "pins.sensor_adc: GPIO 4 is not on ADC1"),
    ("a select pin of the flash", lambda s: s["pins"].update(mux_select=[4, 13, 14, 6]), "pins.mux_select: GPIO 6"),
    ("the LEDs on an input", lambda s: s["pins"].update(leds=34), "pins.leds: GPIO 34 is an input"),
    ("the button without pull-up", lambda s: s["pins"].update(button=39), "pins.button: GPIO 39 is an input"),
    ("a PSRAM pin", lambda s: s["pins"].update(group_enable=16), "pins.group_enable: GPIO 16"),
    ("a strapping pin", lambda s: s["pins"].update(button=12), "pins.button: GPIO 12"),
    ("the USB serial", lambda s: s["pins"].update(leds=1), "pins.leds: GPIO 1"),
    ("no GPIO 20", lambda s: s["pins"].update(leds=20), "pins.leds: 20 is no ESP32 GPIO"),
    ("GPIO 40", lambda s: s["pins"].update(leds=40), "pins.leds: 40 is no ESP32 GPIO"),
    ("a pin as text", lambda s: s["pins"].update(group_enable="26"), "pins.group_enable: '26' is no ESP32 GPIO"),
    ("a pin as a float", lambda s: s["pins"].update(leds=23.0), "pins.leds: 23.0 is no ESP32 GPIO"),
    ("a pin as true", lambda s: s["pins"].update(leds=True), "pins.leds: True is no ESP32 GPIO"),
    ("a pin twice", lambda s: s["pins"].update(button=23), "pins: no GPIO used twice"),
    ("a new pin on a used GPIO", lambda s: s["pins"].update(led_power=27), "pins: no GPIO used twice"),
    ("a new pin on no GPIO", lambda s: s["pins"].update(led_power=-1), "pins.led_power: -1 is no ESP32 GPIO"),
    ("three select pins", lambda s: s["pins"].update(mux_select=[4, 13, 14]), "pins.mux_select: the 4"),
    ("no group select pins", lambda s: s["pins"].update(group_select=[]), "pins.group_select"),
]


@pytest.mark.parametrize("what, change, message", CASES, ids=[c[0] for c in CASES])
def test_a_wrong_board_file_is_refused(what, change, message):
    with pytest.raises(ValueError) as e:
        Board(broken(change))
    assert str(e.value).startswith("board file: ") and message in str(e.value)


def test_the_shipped_board_file_is_right():
    board = Board(SPEC)
    assert board.squares == 25 and board.channels == 128 and bin(board.watch_groups).count("1") == 2


@pytest.mark.parametrize("content, said", [
    (lambda s: s["pins"].update(leds=34), "pins.leds: GPIO 34 is an input"),
    (lambda s: s["sensing"].pop("baseline"), "missing or malformed field baseline"),  # (MicroPython's KeyError)
    ("{", "board.json: "),
    (None, "board.json: "),  # no file at all
])
def test_a_board_booting_on_a_wrong_board_file_says_so_in_one_line(tmp_path, content, said):
    """The firmware's own refusal (a board file copied by hand, unchecked by doce): one error event on
    its link, then the REPL, not a traceback (the real firmware in the MicroPython unix port, on the
    simulator's machine module)."""
    if callable(content):
        (tmp_path / "board.json").write_text(json.dumps(broken(content)))
    elif content is not None:
        (tmp_path / "board.json").write_text(content)
    script = ("import sys\nsys.path[:0] = [%r, %r]\nfrom doce import esp32\nesp32.run()\nprint('REPL')\n"
              % (str(SIM_DEVICE), str(FIRMWARE_DIR)))
    run = completed([tool("micropython"), "-c", script], cwd=tmp_path, timeout=60)
    lines = run.stdout.splitlines()
    assert run.returncode == 0 and len(lines) == 2 and lines[1] == "REPL", run.stdout + run.stderr
    event = json.loads(lines[0])
    assert event["event"] == "error" and event["message"].startswith("board.json: ") and said in event["message"]
    assert "the board cannot start on it" in event["message"]
