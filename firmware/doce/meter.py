"""The chip's own figures, timed on the board with ticks_us while it plays (`doce bench --port P`):
loaded only when a host asks (the link's `bench`), never at boot. The game goes on as ever; the
meter only reads the clock at a few points of App.step and around the strip's write.

  die-to-light   from the scan that first reads a die's move, and from the scan that hands the
                 settled board on, to the strip write that shows it: a play, and a die that ends
                 the round (its scoring and the winning line's lights are in the path)
  scan period    from one scan's start to the next, at rest (the loop's sleep in it) and while
                 a die lands (no sleep: doce/esp32.py run)
  collections    each the app starts as the board comes to rest (doce/app.py), with the live heap
                 as the match has it, and one more when the host asks for the figures

Every figure is an int under 2^30 (a small int on the chip): no allocation while it measures.
"""

import gc
import sys
import time

from .arguments import BadArgument
from .heap import free as heap_free
from .ticks import ticks_diff

PLAY, WIN = 0, 1


def now_us():
    return time.ticks_us() if hasattr(time, "ticks_us") else int(time.monotonic() * 1e6) & 0x3FFFFFFF


def pieces_left(game):
    return game.dice_left[0] + game.dice_left[1] + game.blockers_left[0] + game.blockers_left[1]


class Figure:
    """Count, least, most and sum of one figure, in microseconds."""

    def __init__(self):
        self.n = self.total = self.most = 0
        self.least = None

    def add(self, us):
        self.n += 1
        self.total += us
        if us > self.most:
            self.most = us
        if self.least is None or us < self.least:
            self.least = us

    def report(self):
        return {"n": self.n, "least": self.least or 0, "most": self.most,
                "mean": self.total // self.n if self.n else 0}


class Meter:
    def __init__(self, app):
        self.app = app
        self.scan_at = self.last_at = None
        self.seen_at = self.settled_at = None  # the scan that first read the move, and the one that settled it
        self.ended = False  # whether the round had ended before the settle being timed
        self.left = 0  # dice and blockers the players had left then
        self.rest, self.landing = Figure(), Figure()  # scan periods
        self.from_seen = (Figure(), Figure())  # die-to-light, a play's and a win's
        self.from_settle = (Figure(), Figure())
        self.collect_us = Figure()
        self.live_at_longest = 0  # bytes held when the longest collection ran
        self.write = app.lights.show
        app.lights.show = self.show

    def stop(self):
        self.app.lights.show = self.write

    # -- from App.step --------------------------------------------------------------------------

    def scan(self):
        """A scan starts: the period since the last one, at rest or while something moves."""
        self.last_at, self.scan_at = self.scan_at, now_us()
        if self.last_at is not None:
            (self.rest if self.app.quiet() else self.landing).add(ticks_diff(self.scan_at, self.last_at))

    def moved(self):
        """The first scan since rest that read a move."""
        self.seen_at = self.scan_at

    def settled(self):
        """This scan hands the settled board on: its light follows in this same scan."""
        self.settled_at = self.scan_at
        game = self.app.controller.game
        self.ended = game.round_over
        self.left = pieces_left(game)

    def show(self):
        self.write()
        if self.settled_at is not None:
            at = now_us()
            game = self.app.controller.game
            if pieces_left(game) < self.left:  # a die played (not one lifted, nor a mistake shown)
                kind = WIN if game.round_over and not self.ended else PLAY
                self.from_settle[kind].add(ticks_diff(at, self.settled_at))
                if self.seen_at is not None:
                    self.from_seen[kind].add(ticks_diff(at, self.seen_at))
            self.settled_at = self.seen_at = None

    def collect(self):
        """gc.collect(), timed, with the heap as it is."""
        start = now_us()
        gc.collect()
        took = ticks_diff(now_us(), start)
        if took >= self.collect_us.most:
            self.live_at_longest = gc.mem_alloc()
        self.collect_us.add(took)

    # -- for the host ----------------------------------------------------------------------------

    def figures(self):
        self.collect()  # one more, now: the live heap as the match has it
        app = self.app
        net = app.net.status() if app.net else None
        try:
            import machine
            hz = machine.freq()
        except (ImportError, AttributeError):  # the Linux target: no clock of its own to tell
            hz = 0
        return {"cpu_hz": hz, "platform": sys.platform,
                "die_to_light": {"play": {"from_seen": self.from_seen[PLAY].report(),
                                          "from_settle": self.from_settle[PLAY].report()},
                                 "win": {"from_seen": self.from_seen[WIN].report(),
                                         "from_settle": self.from_settle[WIN].report()}},
                "scan_period": {"rest": self.rest.report(), "landing": self.landing.report()},
                "collection": dict(self.collect_us.report(), live=self.live_at_longest),
                "heap": {"free_after_boot": app.free_after_boot or 0, "free": heap_free(), "live": gc.mem_alloc()},
                "network": {"wifi": bool(net and net["wifi"]), "broker": bool(net and net["broker"]),
                            "tls": bool(net and net["broker"] and app.net.config.get("tls"))}}


def command(link, request):
    """The link's bench: start timing, the figures so far, or stop."""
    step = request.get("step")
    if step not in ("start", "figures", "end"):
        raise BadArgument("step is start, figures or end")
    app = link.app
    if step == "end":
        if app.meter is not None:
            app.meter.stop()
            app.meter = None
        return None
    if app.meter is None:
        app.meter = Meter(app)
    return app.meter.figures() if step == "figures" else None
