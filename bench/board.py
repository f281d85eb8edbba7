# The board firmware on the MicroPython unix port, for `make bench`. Run from a folder
# holding board.json and rules.doct, with the firmware and the simulator's world.py on
# MICROPYPATH:
#   board.py heap                 play a whole match through the sensors; print heap figures
#   board.py scans N              N idle scans, the link polling: for callgrind
#   board.py idle                 the groups and channels an idle scan reads
#   board.py land CELL PIECE [MOVES] [stop]
#                                 play MOVES ("a1 w2 b1 b3 ..."), let the board settle, then
#                                 put PIECE on CELL and scan until its light is sent to the
#                                 strip; print the scans it took and the groups each read.
#                                 With `stop`: end where the die would land (callgrind's
#                                 baseline: the difference is the landing's own work).
#   board.py events CELL PIECE [MOVES]
#                                 the same landing to the end; print the bytes its events
#                                 take on the wire, and whether the round ended
#   board.py encode N             N JSON encodings of a round_end event
# The sensor buffer is filled straight from the world; the firmware's reading code runs on C
# stand-ins for the pins and ADC (as machine.Pin and ADC are C on the ESP32), so only
# firmware work is counted.
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

board = boardfile.load()


def readings(pieces):
    """The sensor readings, an array a channel, with `pieces` ({square: name}) flat on the
    board and no noise. The one place the bench asks the simulator's World."""
    from world import World
    world = World(board, noise=0)
    for sq in pieces:
        world.place(sq, pieces[sq])
    return array("H", [world.reading(ch) for ch in range(board.channels)])


class Sensors:
    """The readings the ADC would give, set when the world changes, not per scan. Each
    read also drives the real HallArray through C stand-ins for the pins and the ADC, so
    the firmware's own reading work is counted; and records, for each scan since `mark`,
    the groups and channels it read (their hardware time is added by run.py)."""

    def __init__(self):
        import micropython
        from doce.sensors import HallArray
        pin = set().add  # a C function of one argument, like a machine.Pin call
        self.hall = HallArray(micropython.stack_use, [pin] * 4, [pin] * 3, pin, board)
        self.hall.power_on_us = 0  # waiting is hardware time, added by run.py
        self.raw = readings({})
        self.groups = bytearray(64)  # the groups each scan since `mark` read, a bit each
        self.masks = array("H", [0] * 64 * board.groups)  # and its channel masks
        self.scans = 0

    def read(self, groups=0xFFFF, masks=None):
        self.hall.read(groups, masks)
        if self.scans < len(self.groups):  # recorded as is, counted after the run
            self.groups[self.scans] = groups
            at = self.scans * board.groups
            self.masks[at:at + board.groups] = masks
            self.scans += 1
        return self.raw

    def counts(self):
        """[groups, ...], [channels, ...] read by each scan since `mark`."""
        groups, channels = [], []
        for k in range(self.scans):
            n = c = 0
            for g in range(board.groups):
                if self.groups[k] >> g & 1:
                    n += 1
                    c += bin(self.masks[k * board.groups + g]).count("1")
            groups.append(n)
            channels.append(c)
        return groups, channels

    def mark(self):
        self.scans = 0


class Strip:
    """The strip; `watch` an LED to end the run as soon as a change to it is sent."""

    def __init__(self):
        self.buf = bytearray(3 * board.led_count)
        self.watch = -1
        self.changed = False

    def __setitem__(self, i, rgb):
        if i == self.watch:
            self.changed = True
        self.buf[3 * i] = rgb[1]
        self.buf[3 * i + 1] = rgb[0]
        self.buf[3 * i + 2] = rgb[2]

    def write(self):
        if self.changed:  # the light is on its way to the LED: the die-to-light path ends here
            print('{"groups": %s, "channels": %s}' % sensors.counts())
            raise SystemExit


class NoJournal:
    def die(self, *a):
        pass
    blocker = round_started = new_match = round_abandoned = die


class Out:
    """The USB serial port, counting bytes."""

    def __init__(self):
        self.bytes = 0

    def write(self, text):
        self.bytes += len(text)


class Poller:
    ipoll = bytes  # a C function: ipoll(0) -> b"", nothing waiting, as an idle USB port


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


def build(journal=True, emit=None, link=None):
    strip = Strip()
    app = App(board, sensors, strip, strip.write, load_rules(), emit or (lambda event: None))
    if not journal:
        app.controller.journal = NoJournal()
    if link:
        link.app = app
        app.link = link
    return app, strip


def fresh():
    import os
    try:
        os.remove("journal")  # start a new match
    except OSError:
        pass


def landing(args):
    """Set up MOVES, then land the piece: (app, strip, link out)."""
    fresh()
    from doce.link import Link
    out = Out()
    link = Link(None, None, out, Poller(), None)
    app, strip = build(journal=False, emit=link.event, link=link)
    cell, what = square_index(board.grid, args[0]), args[1]
    moves = args[2].split() if len(args) > 2 and args[2] != "stop" else []
    pieces = {}
    boards = []  # every reading the run will need, worked out before any counted work
    for at, move in zip(moves[0::2], moves[1::2]):
        pieces[square_index(board.grid, at)] = piece(move)
        boards.append(readings(pieces))
    pieces[cell] = piece(what)
    landed = readings(pieces)
    step(app, 10)  # boot settles
    for raw in boards:
        sensors.raw[:] = raw
        step(app, board.debounce_scans + 4)
    step(app, 4)
    assert app.quiet(), "the board must be quiet before the die lands"
    gc.collect()  # the same clean heap in both runs: the GC pause is added by run.py, as time
    return app, strip, out, cell, landed


mode = sys.argv[1]
if mode == "idle":  # the groups and channels an idle scan reads
    app = landing(["a1", "w4"])[0]
    sensors.mark()
    step(app, 1)
    print('{"groups": %s, "channels": %s}' % sensors.counts())
elif mode == "heap":
    gc.collect()
    before_app = gc.mem_alloc()
    app, strip = build()
    step(app, 10)
    gc.collect()
    app_data = gc.mem_alloc() - before_app

    def sample():
        gc.collect()
        peak[0] = max(peak[0], gc.mem_alloc())
    boards = []  # (readings, after) for every move and lift, before counting the heap
    for moves in ROUNDS:
        words = moves.split()
        cells = words[0::2]
        pieces = {}
        for cell, what in zip(cells, words[1::2]):
            pieces[square_index(5, cell)] = piece(what)
            boards.append(readings(pieces))
        for cell in cells:
            pieces.pop(square_index(5, cell))
            boards.append(readings(pieces))
    gc.collect()
    booted = gc.mem_alloc()  # the boards above are the bench's, not the firmware's
    peak = [booted]
    for raw in boards:
        sensors.raw[:] = raw
        step(app, 6, sample)
    assert app.controller.game.match_over
    del boards
    print('{"code": %d, "app": %d, "match_peak": %d}' % (code, app_data, peak[0] - booted))
elif mode == "land":
    app, strip, out, cell, landed = landing(sys.argv[2:])
    if sys.argv[-1] != "stop":
        strip.watch = board.led_of_square[cell]
        strip.changed = False
        sensors.mark()
        sensors.raw[:] = landed
        step(app, 200)
        raise SystemExit("the light never came")
elif mode == "events":
    app, strip, out, cell, landed = landing(sys.argv[2:])
    import json
    held = []
    link_event = app.emit
    app.emit = lambda event: (held.append(json.dumps(event)), link_event(event))
    before = out.bytes
    sensors.raw[:] = landed
    step(app, 20)
    assert held, "the landing sent no events"
    print('{"bytes": %d, "events": %d, "ended": %s, "largest": %s}'
          % (out.bytes - before, len(held), "true" if app.controller.game.round_over else "false",
             json.dumps(max(held, key=len))))
elif mode == "encode":  # json.dumps of a round_end event, N times (the link's encoding)
    import json
    event = {"event": "round_end", "round": 1, "result": "white", "reason": "line", "seq": 12,
             "lines": [["a1", "b1", "c1", "d1"]], "points": {"white": 35, "black": 0}}
    for _ in range(int(sys.argv[2])):
        json.dumps(event)
    print(len(json.dumps(event)))
else:  # idle scans, with the link polling an idle port as on the board
    app = landing(["a1", "w4"])[0]
    step(app, int(sys.argv[2]))
