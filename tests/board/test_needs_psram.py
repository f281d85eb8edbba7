"""A board plays only with PSRAM (docs/building.md): a WROOM, or a WROVER whose PSRAM was not found at boot
(the SPIRAM image boots on without it: CONFIG_SPIRAM_IGNORE_NOTFOUND), has internal RAM only. There the
Python heap stays at MicroPython's 112 KiB, and the game the USB link plays leaves it less free after boot
than a die's landing keeps (doce/app.py HEADROOM: a collection would fall in a landing); Wi-Fi and TLS
would not fit beside it at all (micropython#14421). Such a board says so in one line at boot and stops
there, as for a board file it cannot start on. The simulated esp32.idf_heap_info has a PSRAM region on
"wrover" only (sim/device/esp32.py)."""

import json

import pytest

from doce_host.sim import SimBoard, SimError

REFUSAL = "no PSRAM"


def send(sim, **request):
    replies = sim.command(do="send", line=json.dumps(request) + "\n").get("link", [])
    assert len(replies) == 1, replies
    return replies[0]


def set_up_wifi(sim):
    assert send(sim, cmd="wifi", ssid="club", password="s3cret-wifi")["ok"]
    assert send(sim, cmd="mqtt", broker="127.0.0.1", port=9, board_id="b1")["ok"]


def test_a_board_without_psram_says_so_in_one_line_at_boot_and_does_not_play(tmp_path):
    with SimBoard(tmp_path, module="wrover") as sim:  # its flash set up for Wi-Fi, with a game in its journal
        set_up_wifi(sim)
        sim.place("c3", "white 4")
    journal = (tmp_path / "flash.img").read_bytes()
    with SimBoard(tmp_path, module="wroom", settle=False) as sim:  # the same flash, no PSRAM found
        assert sim.stopped, "the board played on a heap that cannot keep a landing's room"
        said = sim.take_events()
        assert len(said) == 1 and said[0]["event"] == "error" and said[0]["seq"] == 1, said
        message = said[0]["message"]
        assert REFUSAL in message and "WROVER" in message and "docs/building.md" in message, message
        with pytest.raises(SimError, match="REPL"):
            sim.place("d3", "black 2")
    assert (tmp_path / "flash.img").read_bytes() == journal, "the refused boot wrote to the flash"
    with SimBoard(tmp_path, module="wrover") as sim:  # back on a WROVER: the game and Wi-Fi's settings kept
        assert sim.state()["board"] == {"c3": "white 4"}
        assert send(sim, cmd="net")["config"]["ssid"] == "club"


def test_a_board_with_psram_starts_wifi(tmp_path):
    with SimBoard(tmp_path, module="wrover") as sim:
        sim.take_events()
        set_up_wifi(sim)
        assert not [e for e in sim.take_events() if e["event"] == "error"]
        assert "status" in send(sim, cmd="net") and sim.command(do="radio")["joins"] > 0


def test_a_simulated_board_that_does_not_say_its_module_is_the_reference_wrover(tmp_path):
    """hardware/bom.csv's U1: the module the firmware plays on (doce_host.sim DEFAULT_MODULE)."""
    import inspect

    from doce_host.sim import heap_for
    from doce_host.sim.serial_sim import SerialSim
    assert inspect.signature(SerialSim).parameters["module"].default == "wrover"  # the real-time one's too
    with SimBoard(tmp_path) as sim:
        assert sim.heap == heap_for("wrover") and not sim.stopped
