# The board firmware on the MicroPython unix port, for `make bench`. Run from a folder
# holding board.json and rules.doct, with the firmware and the simulator's world.py on
# MICROPYPATH:
#   board.py heap             play a whole match through the sensors; print heap figures
#   board.py scans N [play]   N idle scans (with `play`: a die lands after N/2): for callgrind
#   board.py reads N          N reads of the sensor array through C-implemented stand-ins
#                             for the pins and ADC (as machine.Pin and ADC are on the ESP32)
# The sensor buffer is filled straight from the world, so only firmware work is counted.
import gc
import sys
from array import array

gc.collect()
heap_at_start = gc.mem_alloc()

from doce import board as boardfile  # noqa: E402
from doce.app import App, load_rules  # noqa: E402
from doce.board import square_index  # noqa: E402

gc.collect()
code = gc.mem_alloc() - heap_at_start

from world import World  # noqa: E402

board = boardfile.load()
world = World(board, noise=0)


class Sensors:
    """The readings the ADC would give, worked out when the world changes, not per scan."""

    def __init__(self):
        self.raw = array("H", [0] * board.channels)
        self.refresh()

    def refresh(self):
        for ch in range(len(self.raw)):
            self.raw[ch] = world.reading(ch)

    def read(self, groups=0xFFFF):
        return self.raw


class Strip:
    def __init__(self):
        self.buf = bytearray(3 * board.led_count)

    def __setitem__(self, i, rgb):
        self.buf[3 * i] = rgb[1]
        self.buf[3 * i + 1] = rgb[0]
        self.buf[3 * i + 2] = rgb[2]

    def write(self):
        pass


class NoJournal:
    def die(self, *a):
        pass
    blocker = round_started = new_match = die


# Four rounds: white wins, black wins, a draw on a line each, black wins with a blocker.
ROUNDS = [
    "a1 w2 a5 b1 c1 w4 c5 b1 e3 w1 e5 b1 b1 w3 a3 b1 d1 w3",
    "a1 b2 a5 w1 c1 b4 c5 w1 e3 b1 e5 w1 b1 b3 a3 w1 d1 b3",
    "b1 w3 a2 b3 d1 w3 a4 b3 e4 w1 e5 b1 c1 w3 a3 b3 e2 w1 a1 b3",
    "a1 b2 a5 w1 e1 bx c1 b4 c5 w1 e3 b1 e5 w1 b1 b3 a3 w1 d1 b3",
]
NAMES = {"w": "white", "b": "black"}


def piece(text):
    """'w2' -> 'white 2'; 'bx' -> 'black blocker'."""
    return "%s %s" % (NAMES[text[0]], "blocker" if text[1] == "x" else text[1])


clock = [0]


def step(app, scans, after=None):
    for _ in range(scans):
        clock[0] += board.scan_period_ms
        app.step(clock[0])
        if after:
            after()


sensors = Sensors()


def build(journal=True):
    strip = Strip()
    app = App(board, sensors, strip, strip.write, load_rules(), lambda event: None)
    if not journal:
        app.controller.journal = NoJournal()
    return app


mode = sys.argv[1]
if mode == "reads":
    import micropython
    from doce.sensors import HallArray
    pin = set().add  # a C function of one argument, like a machine.Pin call
    hall = HallArray(micropython.stack_use, [pin] * 4, [pin] * 3, pin, board)
    hall.power_on_us = 0  # waiting is counted separately, as time
    for _ in range(int(sys.argv[2])):
        hall.read()
elif mode == "heap":
    gc.collect()
    before_app = gc.mem_alloc()
    app = build()
    step(app, 10)
    gc.collect()
    booted = gc.mem_alloc()
    peak = [booted]

    def sample():
        gc.collect()
        peak[0] = max(peak[0], gc.mem_alloc())
    for moves in ROUNDS:
        words = moves.split()
        cells = words[0::2]
        for cell, what in zip(cells, words[1::2]):
            world.place(square_index(5, cell), piece(what))
            sensors.refresh()
            step(app, 6, sample)
        for cell in cells:
            world.lift(square_index(5, cell))
            sensors.refresh()
            step(app, 6, sample)
    assert app.controller.game.match_over
    print('{"code": %d, "app": %d, "match_peak": %d}' % (code, booted - before_app, peak[0] - booted))
else:
    import os
    try:
        os.remove("journal")  # start a new match
    except OSError:
        pass
    app = build(journal=False)
    n = int(sys.argv[2])
    step(app, 10)  # boot settles
    step(app, n // 2)
    if sys.argv[3:] == ["play"]:
        world.place(square_index(5, "c3"), "white 4")
    sensors.refresh()  # in both runs, so only the firmware's work differs
    step(app, n - n // 2)
    assert (app.controller.game.board[12] != 0) == (sys.argv[3:] == ["play"])
