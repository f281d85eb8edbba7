"""The LED strip's supply switch (revision B, hardware/board.json pins.led_power): off from reset,
switched on by the firmware before its first frame. The simulated strip is dark while it is off
and loses a frame sent before its supply has risen (sim/device/machine.py), so a firmware that
forgets the switch, or does not wait for it, shows nothing here as on a board."""

import json

from doce_host import image
from doce_host.paths import BOARD_FILE, FIRMWARE_DIR
from doce_host.sim import SimBoard

SPEC = json.loads(BOARD_FILE.read_text())


def lit(sim):
    return sum(sum(colour) for colour in sim.leds())


def boot_with(tmp_path, module, old, new):
    """A board whose firmware has `old` replaced by `new` in doce/`module`.py."""
    source = tmp_path / (module + ".py")
    text = (FIRMWARE_DIR / "doce" / (module + ".py")).read_text()
    assert old in text
    source.write_text(text.replace(old, new))
    files = image.app_files(chip="host")
    files[image.SLOT + "doce/%s.mpy" % module] = image.compile_mpy(source, march="host")
    folder = tmp_path / "board"
    folder.mkdir()
    (folder / "flash.img").write_bytes(image.build(files))
    return SimBoard(folder)


def test_the_board_file_gives_the_switch_a_pin_of_its_own():
    pins = SPEC["pins"]
    used = [v for k, v in pins.items() if k != "led_power"]
    flat = [n for v in used for n in (v if isinstance(v, list) else [v])]
    assert pins["led_power"] not in flat
    # no flash, PSRAM or strapping pin (hardware/README.md, pin map), and one that can drive
    assert pins["led_power"] not in (0, 2, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17) and pins["led_power"] < 34


def test_the_lights_show_once_the_firmware_switches_their_supply_on(sim):
    assert lit(sim) > 0  # the turn lights, from the first frame after boot
    assert sim.debug_state()["frames_lost"] == 0
    sim.place("c3", "white 4")
    assert sim.leds()[sim.led("c3")] != (0, 0, 0)


def test_a_firmware_that_never_switches_the_supply_on_shows_nothing(tmp_path):
    with boot_with(tmp_path, "esp32", 'if "led_power" in pins:', "if False:") as sim:
        sim.place("c3", "white 4")
        assert sim.state()["board"] == {"c3": "white 4"}  # it plays,
        assert lit(sim) == 0  # in the dark
        assert sim.debug_state()["frames_lost"] == sim.debug_state()["writes"] >= 2  # every frame it sent


def test_a_frame_sent_before_the_supply_has_risen_is_lost(tmp_path):
    """The TPS22918's soft start takes 14.5 ms to reach the level shifter's 4.5 V: the first
    frame, sent at once, is lost; a later one, once the supply is up, shows."""
    with boot_with(tmp_path, "ledpower", "RISE_MS = 20", "RISE_MS = 0") as sim:
        assert sim.debug_state()["frames_lost"] >= 1
        sim.place("c3", "white 4")  # a new frame, long after the supply rose
        assert sim.leds()[sim.led("c3")] != (0, 0, 0)
