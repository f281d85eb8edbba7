"""The second target: the same firmware under CPython with Adafruit Blinka.

The sensors are driven by the simulated PCB and world (plain Python, so they run
under CPython too); the LEDs go through adafruit-circuitpython-neopixel, and the
bytes it would clock out are compared with what the MicroPython build sent.
"""

import importlib.util
import json
import os
import shutil

import pytest

os.environ["BLINKA_OS_AGNOSTIC"] = "1"  # Blinka's generic board, before it is imported

import board as blinka_board  # noqa: E402
import neopixel  # noqa: E402

from doce import board as boardfile  # noqa: E402
from doce import linux  # noqa: E402
from doce_host import rules  # noqa: E402
from doce_host.paths import BOARD_FILE, SIM_DEVICE  # noqa: E402
from doce_host.sim.hands import Hands  # noqa: E402


def load(name):
    spec = importlib.util.spec_from_file_location("sim_" + name, SIM_DEVICE / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CapturedStrip(neopixel.NeoPixel):
    """Adafruit's NeoPixel, keeping the bytes instead of clocking them out."""

    def _transmit(self, buffer):
        self.sent = bytes(buffer)


@pytest.fixture
def linux_board(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(BOARD_FILE, "board.json")
    (tmp_path / "rules.doct").write_bytes(rules.load_tables("standard").blob)
    machine, world = load("machine"), load("world")
    spec = boardfile.load()
    hands = Hands()
    the_world = machine.attach(world.World(spec, hands.levels()), spec, boardfile.load_spec()["power"])
    the_world.hands = hands
    # The Blinka pin names of the board file, wired to the simulated PCB's GPIO numbers.
    gpio = dict(zip(boardfile.load_spec()["linux_pins"]["mux_select"], spec.pins["mux_select"]))
    gpio.update(zip(boardfile.load_spec()["linux_pins"]["group_select"], spec.pins["group_select"]))
    gpio[boardfile.load_spec()["linux_pins"]["group_enable"]] = spec.pins["group_enable"]
    events = []
    app = linux.build(machine.ADC(None).read_u16, pin=lambda name: machine.Pin(gpio[name], machine.Pin.OUT),
                      strip=CapturedStrip, led_pin=blinka_board.NEOPIXEL, emit=events.append)
    return app, the_world, events


def test_a_play_on_linux_sends_the_same_bytes_as_on_the_esp32(linux_board, sim):
    app, world, events = linux_board
    for now in range(0, 40, 2):  # the board is on before a die goes down
        app.step(now)
    world.set(world.hands.place("c3", "white 4"))
    for now in range(40, 200, 2):
        app.step(now)
    assert [e for e in events if e["event"] == "placed"] == [
        {"event": "placed", "player": "white", "cell": "c3", "value": 4}]
    sim.place("c3", "white 4")
    assert app.lights.pixels.sent.hex() == sim.command(do="leds")["bytes"]
    assert app.lights.pixels.sent[3 * sim.led("c3"):3 * sim.led("c3") + 3] != bytes(3)


def test_the_button_is_read_from_the_board_files_linux_pin(monkeypatch):
    made = {}

    class Line:  # a Blinka DigitalInOut: idle high through its pull-up
        def __init__(self, pin):
            made["pin"], self.value = pin, True

        def switch_to_input(self, pull=None):
            made["pull"] = pull

    monkeypatch.setattr(linux.digitalio, "DigitalInOut", Line)
    name = json.loads(BOARD_FILE.read_text())["linux_pins"]["button"]
    monkeypatch.setattr(linux, "pins", type("Pins", (), {name: "the button's pin"}))  # a Raspberry Pi's names
    button = linux.pressed(name)
    assert made["pin"] == "the button's pin"
    assert made["pull"] == linux.digitalio.Pull.UP and button() is False
