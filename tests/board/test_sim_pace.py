"""The simulated board keeps the chip's pace (doce/esp32.py loop): a scan every scan_period_ms, or every
idle_scan_period_ms once it has been quiet, its USB link idle, for IDLE_AFTER_MS; a die or a host's line
brings the full pace back. Faster at rest than the chip, a simulated board saw a die up to a scan sooner
than a board does, and spent twice the scans of every wait at rest."""

import json

from test_slots import ESP32, constant

from doce_host.paths import BOARD_FILE
from doce_host.sim import SimBoard

IDLE_AFTER_MS = constant("IDLE_AFTER_MS", ESP32)
SENSING = json.loads(BOARD_FILE.read_text())["sensing"]
PERIOD_MS, IDLE_MS = SENSING["scan_period_ms"], SENSING["idle_scan_period_ms"]
SCANS = 50  # scans a pace is read over


def pace(sim):
    """ms of the board's time a scan, over SCANS scans."""
    before = sim.ticks()
    sim.run(SCANS)
    return (sim.ticks() - before) / SCANS


def rest(sim):
    """Scans enough for a quiet board to pass IDLE_AFTER_MS at the full pace."""
    sim.run(IDLE_AFTER_MS // PERIOD_MS + 1)


def test_a_quiet_board_slows_after_idle_after_ms_and_a_die_or_a_host_line_brings_the_full_pace_back(tmp_path):
    assert IDLE_MS > PERIOD_MS  # else there is nothing to tell apart
    with SimBoard(tmp_path) as sim:
        assert pace(sim) == PERIOD_MS  # just booted: not yet quiet for IDLE_AFTER_MS
        rest(sim)
        assert pace(sim) == IDLE_MS
        sim.place("c3", "white 4", settle=False)
        sim.run(1)  # the scan that reads it, after the idle pause
        before = sim.ticks()
        sim.run(sim.debounce - 2)  # its debounce: nothing said on the link yet, the board not quiet
        assert sim.ticks() - before == (sim.debounce - 2) * PERIOD_MS
        sim.settle()  # (its journal write, whose flash time holds a scan, comes once it is placed)
        assert pace(sim) == PERIOD_MS
        rest(sim)
        assert pace(sim) == IDLE_MS
        sim.command(do="send", line=json.dumps({"cmd": "state", "id": 1}) + "\n", scans=0)
        assert pace(sim) == PERIOD_MS


def test_a_wait_is_the_boards_time_at_its_own_pace(tmp_path):
    """SimBoard.wait(seconds) passes that much of the board's time, at rest too (not as many scans)."""
    with SimBoard(tmp_path) as sim:
        rest(sim)
        before = sim.ticks()
        sim.wait(1)
        assert 1000 <= sim.ticks() - before < 1000 + IDLE_MS
