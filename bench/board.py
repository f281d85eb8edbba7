# The board firmware on the MicroPython unix port, for `make bench`. Run from a folder
# holding board.json, rules.doct and boards.json (the sensor readings run.py works out on
# the host, board by board, for this run), with the firmware on MICROPYPATH:
#   board.py heap                 play a whole match through the sensors; print heap figures
#   board.py scans N              N idle scans, the link polling: for callgrind
#   board.py idle                 the groups and channels an idle scan reads
#   board.py land CELL [stop|show]
#                                 play boards.json's boards but the last (a round's moves so
#                                 far), let each settle, then change to the last (a die on
#                                 CELL) and scan until its light is sent to the strip.
#                                 With `stop`: end where the die would land (callgrind's
#                                 baseline: the difference is the landing's own work);
#                                 with `show`: print the groups and channels each scan read,
#                                 the bytes allocated and the pixels set on the way.
#   board.py events CELL
#                                 the same landing to the end; print the bytes its events
#                                 take on the wire, and whether the round ended
#   board.py encode N             N JSON encodings of a round_end event
#   board.py collect N            a whole match played, then N collections of its live heap
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
from doce.squares import parse_square  # noqa: E402

gc.collect()
code = gc.mem_alloc() - heap_at_start

board = boardfile.load()


def boards():
    """The sensor readings run.py worked out on the host for this run, in the order the run
    needs them: an array a board, each channel's mean read_u16 (no noise)."""
    import json
    with open("boards.json") as f:
        return [array("H", levels) for levels in json.load(f)]


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
        self.raw = array("H", [0] * board.channels)
        self.groups = bytearray(64)  # the groups each scan since `mark` read, a bit each
        self.masks = array("H", [0] * 64 * board.groups)  # and its channel masks
        self.scans = 0

    def read(self, groups=0xFFFF, masks=None):
        self.hall.read(groups, masks)
        if self.scans < len(self.groups):  # recorded as is, counted after the run
            self.groups[self.scans] = groups
            at = self.scans * board.groups
            for g in range(board.groups):  # no masks: every channel of the group
                self.masks[at + g] = 0xFFFF if masks is None else masks[g]
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
        self.show = False
        self.app = None
        self.sets = 0  # pixels set since the landing began
        self.allocated = 0  # gc.mem_alloc() as it began

    def __setitem__(self, i, rgb):
        if i == self.watch:
            self.changed = True
        self.buf[3 * i] = rgb[1]
        self.buf[3 * i + 1] = rgb[0]
        self.buf[3 * i + 2] = rgb[2]
        if self.show:
            self.sets += 1

    def write(self):
        if self.changed:  # the light is on its way to the LED: the die-to-light path ends here
            if self.show:  # a run for the scans' figures, not counted
                allocated = gc.mem_alloc() - self.allocated  # no collection can have run: see landing()
                print('{"groups": %s, "channels": %s, "allocated": %d, "pixels": %d}'
                      % (sensors.counts() + (allocated, self.sets)))
            del self.app.held[:]  # the events go after the light: not this path's work
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
    """Play the boards before the last, then land the piece: (app, strip, link out, cell, last board)."""
    fresh()
    from doce.link import Link
    out = Out()
    link = Link(None, None, out, Poller(), None)
    app, strip = build(journal=False, emit=link.event, link=link)
    cell = parse_square(board.grid, args[0])
    played = boards()
    sensors.raw[:] = played[0]
    step(app, 10)  # boot settles
    for raw in played[1:-1]:
        sensors.raw[:] = raw
        step(app, board.debounce_scans + 4)
    step(app, 4)
    assert app.quiet(), "the board must be quiet before the die lands"
    gc.collect()  # the same clean heap in both runs: the GC pause is added by run.py, as time
    return app, strip, out, cell, played[-1]


mode = sys.argv[1]
if mode == "idle":  # the groups and channels an idle scan reads
    app = landing(["a1", "w4"])[0]
    sensors.mark()
    step(app, 1)
    print('{"groups": %s, "channels": %s}' % sensors.counts())
elif mode == "heap":  # boards.json: the empty board, then a whole match move by move and lift by lift
    played = boards()
    sensors.raw[:] = played[0]
    gc.collect()
    before_app = gc.mem_alloc()
    app, strip = build()
    step(app, 10)
    gc.collect()
    app_data = gc.mem_alloc() - before_app
    booted = gc.mem_alloc()  # the boards are the bench's, not the firmware's
    peak = [booted]

    def sample():
        gc.collect()
        peak[0] = max(peak[0], gc.mem_alloc())
    for raw in played[1:]:
        sensors.raw[:] = raw
        step(app, 6, sample)
    assert app.controller.game.match_over
    print('{"code": %d, "app": %d, "match_peak": %d}' % (code, app_data, peak[0] - booted))
elif mode == "collect":  # boards.json's match played, then N collections of the heap as it holds: for callgrind
    import os
    for name in ("journal", "calibration.bin"):  # every run the same: nothing left by the last
        try:
            os.remove(name)
        except OSError:
            pass
    played = boards()
    sensors.raw[:] = played[0]
    app, strip = build()
    step(app, 10)
    for raw in played[1:]:
        sensors.raw[:] = raw
        step(app, 6)
    gc.collect()
    for _ in range(int(sys.argv[2])):
        gc.collect()
    print('{"live": %d}' % gc.mem_alloc())
elif mode == "loaded":  # the modules a board loads besides the app's: USB alone, or Wi-Fi with MQTT and TLS
    gc.collect()
    before = gc.mem_alloc()
    from doce import link  # noqa: F401  (always: doce/esp32.py)
    gc.collect()
    usb = gc.mem_alloc() - before
    from doce import net  # noqa: F401  (and all it loads: wifi, mqtt with umqtt.simple, tls_paced, outbox, netconfig)
    import tls  # noqa: F401
    gc.collect()
    print('{"usb": %d, "wifi": %d}' % (usb, gc.mem_alloc() - before - usb))
elif mode == "land":
    app, strip, out, cell, landed = landing(sys.argv[2:])
    if sys.argv[-1] != "stop":
        strip.watch = board.led_of_square[cell]
        strip.changed = False
        strip.show = "show" in sys.argv
        strip.app = app
        sensors.mark()
        strip.sets = 0
        if strip.show:  # (gc.mem_alloc walks the heap: not in a counted run)
            strip.allocated = gc.mem_alloc()  # from the collected heap (a 256K heap: nothing collects it)
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
