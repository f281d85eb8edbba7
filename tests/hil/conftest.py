"""Hardware-in-the-loop tests: a board driven only through its serial link and the world.

    pytest tests/hil                       # against the simulator, on its serial path
    pytest tests/hil --port /dev/ttyUSB0   # against a real board; a person moves the dice

The same tests either way. With a real board, each step in the world is asked of the
person at the board (run pytest with -s); without a terminal, those tests are skipped.
"""

import sys
import time

import pytest

from doce_host.link import BoardLink, LinkError
from waiting import BOOT_CPU_S, booted, until_worked


def pytest_addoption(parser):
    parser.addoption("--port", default=None,
                     help="run tests/hil against the board on this serial port instead of the simulator")


class PersonAtTheBoard:
    """The world, when it is real: each step is asked of a person."""

    def __init__(self):
        if not sys.stdin.isatty():
            pytest.skip("these steps need a person at the board (run pytest with -s in a terminal)")
        self.pieces = {}

    def ask(self, text):
        input("\n>>> %s, then press Enter " % text)

    def place(self, cell, piece, turn=0):
        self.ask("put %s on %s" % (piece, cell))
        self.pieces[cell] = (piece, turn)

    def lift(self, cell):
        self.ask("lift the piece off %s" % cell)
        self.pieces.pop(cell, None)

    def slide(self, start, end):
        self.ask("slide the piece on %s across to %s" % (start, end))
        self.pieces[end] = self.pieces.pop(start)

    def cut_power(self):
        self.ask("unplug the board's USB cable")

    def power_on(self):
        self.ask("plug the board's USB cable back in")


class Board:
    """What a test holds: the link to the board, and hands in its world."""

    def __init__(self, port, world):
        self.port = port
        self.world = world
        self.link = None
        self.connect()

    def connect(self):
        if self.link:
            self.link.close()
        self.link = BoardLink(self.port, timeout=10)
        self.link.hello()
        return self.link

    def connect_once_booted(self):
        """Connect once the board answers hello: one asked while it boots is lost, as on a board.
        The simulator's boot is waited for on its CPU; a real board's, for 20 hellos unanswered."""
        def answered():
            try:
                return self.connect()
            except LinkError:
                return None
        if hasattr(self.world, "process"):
            return until_worked(answered, lambda: self.world.process and self.world.process.pid, BOOT_CPU_S,
                                what="an answer to hello")
        for _ in range(20):
            if answered():
                return self.link
        raise AssertionError("the board did not answer hello after its power came back")

    def put(self, cell, piece):
        """Put a piece down; the board's answer (a placed or illegal event) about it."""
        self.world.place(cell, piece)
        return self.answer(cell)

    def answer(self, cell, timeout=10):
        """The next placed or illegal event about `cell` (earlier events are passed over)."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            event = self.link.next_event(max(0.0, deadline - time.monotonic()))
            if event is None:
                raise AssertionError("no answer about %s within %d s (saw %s)" % (cell, timeout, seen[-5:]))
            seen.append(event["event"])
            if event["event"] in ("placed", "illegal") and cell in event.get("cells", [event.get("cell")]):
                return event

    def clear(self):
        for cell in list(self.world.pieces):
            self.world.lift(cell)

    def close(self):
        if self.link:
            self.link.close()


@pytest.fixture
def board(request, tmp_path):
    port = request.config.getoption("--port")
    if port:
        b = Board(port, PersonAtTheBoard())
        yield b
        b.close()
        return
    from doce_host.sim.serial_sim import SerialSim
    sim = SerialSim(tmp_path)
    try:
        booted(sim)  # and the board is clear
        b = Board(sim.path, sim)
        yield b
        b.close()
    finally:
        sim.close()
