"""The app's timing on CPython: ticks that wrap as MicroPython's do, lights drawn before
events are sent, and a loop that sleeps only while the board is quiet."""

from array import array

import pytest

from doce import app as appmodule
from doce import ticks
from doce.app import App
from doce.board import SENSORS_PER_SQUARE, TRITS
from doce.board import load as load_board
from doce.squares import parse_square
from doce_host import rules
from doce_host.paths import BOARD_FILE

# MicroPython on a 32-bit port (the ESP32) wraps ticks_ms at 2**30: extmod/modtime.c,
# MICROPY_PY_TIME_TICKS_PERIOD = MP_SMALL_INT_POSITIVE_MASK + 1.
PERIOD = 2 ** 30


class WrappingTime:
    """time as MicroPython has it: ticks_diff takes only ticks (values in [0, PERIOD)),
    as docs.micropython.org library/time.html requires; anything else is a bug here."""

    @staticmethod
    def ticks_add(a, delta):
        return (a + delta) % PERIOD

    @staticmethod
    def ticks_diff(a, b):
        for v in (a, b):
            if not 0 <= v < PERIOD:
                raise ValueError("ticks_diff(%d, %d): not a ticks value" % (a, b))
        return (a - b + PERIOD // 2) % PERIOD - PERIOD // 2


class Sensors:
    """Readings as the ADC would give them for the dice placed (no noise)."""

    def __init__(self, board):
        self.board = board
        self.signal = board.present_above * 3 // 2  # a magnet: clearly past the threshold
        self.raw = array("H", [board.baseline] * board.channels)

    def place(self, cell, name):
        code = next(c for c, n in self.board.dice.items() if n == name)
        sq = parse_square(self.board.grid, cell)
        for i in range(SENSORS_PER_SQUARE):
            sign = (0, 1, -1)[TRITS[code[i]]]
            self.raw[self.board.square_channels[sq * SENSORS_PER_SQUARE + i]] = (
                self.board.baseline + sign * self.signal)

    def read(self, groups=0xFFFF, masks=None):
        return self.raw


class Strip:
    def __init__(self, log):
        self.log = log

    def __setitem__(self, i, rgb):
        pass

    def write(self):
        self.log.append("lights")


@pytest.fixture
def board_app(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    board = load_board(str(BOARD_FILE))
    log = []
    sensors = Sensors(board)
    strip = Strip(log)
    app = App(board, sensors, strip, strip.write, rules.load_tables("standard"),
              lambda e: log.append(e["event"]))
    return app, sensors, log


def run(app, start, scans, period=1):
    now = start
    for _ in range(scans):
        app.step(now)
        now = (now + period) % PERIOD  # the board's clock, wrapping
    return now


def test_frame_and_retry_times_are_ticks_even_across_the_wrap(board_app, monkeypatch):
    app, sensors, log = board_app
    monkeypatch.setattr(ticks, "time", WrappingTime)
    now = run(app, PERIOD - 30, 20)  # boot: the empty board settles, a round starts
    assert "round_start" in log
    sensors.place("c3", "white 4")
    sensors.place("d4", "black 2")  # two at once: a problem, blinking, so frames are animated
    now = run(app, now, 40)
    assert app.controller.mode == "correcting" and app.lights.animated
    assert 0 <= app.next_frame < PERIOD
    drawn = log.count("lights")
    run(app, now, 2 * appmodule.FRAME_MS + 5)  # past the wrap: frames keep coming
    assert log.count("lights") >= drawn + 2


def test_a_failed_journal_write_is_retried_at_a_ticks_value(board_app, monkeypatch):
    app, sensors, log = board_app
    monkeypatch.setattr(ticks, "time", WrappingTime)
    full = [True]
    writes = app.controller.journal.round_started

    def round_started(*args):
        if full[0]:
            raise OSError(28)  # ENOSPC
        writes(*args)
    app.controller.journal.round_started = round_started
    now = run(app, PERIOD - 30, 20)
    assert "warning" in log and app.controller.unwritten
    assert 0 <= app.retry_at < PERIOD
    full[0] = False
    run(app, now, appmodule.RETRY_MS + 5)  # across the wrap, and retried once due
    assert not app.controller.unwritten


def test_a_play_is_written_however_long_the_board_has_been_on(board_app, monkeypatch):
    app, sensors, log = board_app
    monkeypatch.setattr(ticks, "time", WrappingTime)
    now = run(app, 0, 20)
    assert not app.controller.unwritten
    now = run(app, PERIOD // 2 + 1000, 1)  # days later: over half the ticks period
    sensors.place("c3", "white 4")
    run(app, now, 20)
    assert "placed" in log
    assert not app.controller.unwritten  # written at once, not half a period later


def test_the_lights_show_a_play_before_its_events_are_sent(board_app):
    app, sensors, log = board_app
    now = run(app, 0, 20)
    del log[:]
    sensors.place("c3", "white 4")
    run(app, now, 20)
    assert "placed" in log
    assert log.index("lights") < log.index("placed"), log


def test_the_loop_sleeps_only_while_nothing_moves(board_app):
    app, sensors, log = board_app
    now = run(app, 0, 20)
    assert app.quiet()
    sensors.place("c3", "white 4")
    quiet = []
    for _ in range(20):
        app.step(now)
        now += 1
        quiet.append(app.quiet())
        if "placed" in log:
            break
    assert "placed" in log
    assert not any(quiet[:-1]), quiet  # no sleep from the first scan that saw it to its light
    assert quiet[-1]  # settled and shown: back to sleeping between scans



def test_the_board_collects_its_garbage_as_it_comes_to_rest_and_never_while_a_die_lands(board_app, monkeypatch):
    """A collection sweeps the whole heap and marks what it holds (5-15 ms of a Wi-Fi board's PSRAM heap: make bench).
    Collecting once the board is at rest again, its events sent, lets the next landing start
    from a heap with its garbage gone, so none of its few allocations can start one."""
    app, sensors, log = board_app
    collections = []
    monkeypatch.setattr(appmodule.gc, "collect", lambda: collections.append(list(log)))
    now = run(app, 0, 20)
    del log[:], collections[:]
    run(app, now, 50)
    assert not collections  # an idle board: no allocation, no collection
    sensors.place("c3", "white 4")
    now = run(app, now, 20)
    assert len(collections) == 1, collections  # once, at rest
    assert "lights" in collections[0] and "placed" in collections[0]  # after the light and the events
    run(app, now, 50)
    assert len(collections) == 1


class Pcb:
    """Pins and an ADC wired as on the board: the ADC reads the channel the group and
    multiplexer select pins pick. Counts the conversions, 30-40 us each on an ESP32."""

    def __init__(self, board, sensors):
        self.board = board
        self.sensors = sensors  # the readings, by channel
        self.level = {}
        self.conversions = 0

    def pin(self, name):
        def drive(value):
            self.level[name] = value
        return drive

    def adc(self):
        self.conversions += 1
        group = sum(self.level.get(("group", b), 0) << b for b in range(3))
        mux = sum(self.level.get(("mux", b), 0) << b for b in range(4))
        assert self.level.get("enable"), "read with no group switched on"
        return self.sensors.raw[group * self.board.channels_per_group + mux]


def counted_board(tmp_path, monkeypatch):
    """The app on the firmware's own HallArray over a PCB that counts ADC conversions, booted:
    (board, world, pcb, app, event log, now)."""
    from doce.sensors import HallArray
    monkeypatch.chdir(tmp_path)
    board = load_board(str(BOARD_FILE))
    world = Sensors(board)
    pcb = Pcb(board, world)
    hall = HallArray(pcb.adc, [pcb.pin(("mux", b)) for b in range(4)], [pcb.pin(("group", b)) for b in range(3)],
                     pcb.pin("enable"), board)
    hall.power_on_us = 0
    log = []
    strip = Strip(log)
    app = App(board, hall, strip, strip.write, rules.load_tables("standard"), lambda e: log.append(e["event"]))
    now = run(app, 0, 20)
    return board, world, pcb, app, log, now


def test_a_scan_converts_only_the_centres_and_the_moving_squares_sensors(tmp_path, monkeypatch):
    board, world, pcb, app, log, now = counted_board(tmp_path, monkeypatch)
    pcb.conversions = 0
    now = run(app, now, 10)
    assert pcb.conversions == 10 * board.squares  # idle: the 25 centres, nothing else
    world.place("a2", "white 4")  # a square with sensors in 4 multiplexer groups
    counts = []
    while "placed" not in log and len(counts) < 20:
        pcb.conversions = 0
        now = run(app, now, 1)
        counts.append(pcb.conversions)
    assert "placed" in log and app.controller.game.board[parse_square(5, "a2")]
    # The scan that saw it read the centres; then a2's five sensors alone, until the scan at
    # which a2 may settle: that one reads the centres too, and the board is handed on from it.
    assert counts == [board.squares] + [5] * (board.debounce_scans - 1) + [board.squares + 4], counts


def test_the_centres_are_read_at_least_every_debounce_scans_while_a_square_never_settles(tmp_path, monkeypatch):
    """A die turned over and over never settles: the other squares are still looked at."""
    board, world, pcb, app, log, now = counted_board(tmp_path, monkeypatch)
    centres = []
    for k in range(40):
        world.place("a2", ("white 4", "white 3")[k // 2 % 2])  # a new face every other scan
        pcb.conversions = 0
        now = run(app, now, 1)
        centres.append(pcb.conversions >= board.squares)
    assert "placed" not in log
    assert all(any(centres[k:k + board.debounce_scans]) for k in range(len(centres) - board.debounce_scans)), centres


@pytest.mark.parametrize("scans", [1, 2, 3, 4])
def test_a_die_put_down_while_another_settles_is_handed_on_with_it(board_app, scans):
    app, sensors, log = board_app
    now = run(app, 0, 20)
    del log[:]
    sensors.place("a2", "white 4")
    now = run(app, now, scans)  # seen, and settling
    sensors.place("d4", "black 2")
    run(app, now, 30)
    assert "placed" not in log and "illegal" in log  # two at once, as when put down together
