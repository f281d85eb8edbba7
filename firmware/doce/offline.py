"""The network and a match with a friend's board, started as far as the heap lets them.

A board's game (scanning, rules, lights, journal) never needs either. If one runs out of heap as it
starts (a module's code or qstr pool needs a block the heap no longer has in one piece: issue 41),
or meets any other fault, the board says so once, in an `error` event naming the part (on USB, and on
MQTT if it is up), plays on offline without it, and tries it again at rest every RETRY_MS; once it
runs, one `warning` says so. While a friend's match is not running the friend's pieces wait (Away):
played here, they would stop the match as a mismatch once it runs (doce/remote.py replays the
journal). The boot (doce/esp32.py) and the wifi and mqtt commands (doce/net.py) start both here.
Loaded with the game on a board with Wi-Fi set up: what catches the failures must not be one."""

import gc
import json
import os

from .controller import NOT_THE_MOVE
from .game import PLAYER_NAMES
from .lights import PEER_LOST
from .ticks import ticks_add, ticks_diff

# A part that did not fit is tried again this long after, at rest: by then the garbage around the
# boot's lasting objects is gone, and the retry's collection makes the same room a new boot would.
RETRY_MS = 30000
NETWORK = "the network (Wi-Fi and MQTT)"
FRIEND = "the match with the friend's board"


def start_network(app, link):
    """Wi-Fi and MQTT as net.json says, then the match with the friend's board if paired; whatever
    fails to start (out of heap, or any other fault) waits for a retry. Each part counts as started
    only once all of it is (net.start publishes app.net last, remote.begin app.remote), so a retry
    does again whatever a failed start left undone. Called by a Retry, or by a wifi or mqtt command
    while one waits, it says what runs now. Never raises: the game is built by then (doce/esp32.py)."""
    retry = app.later  # a part that failed before (what it said is not said again), or None
    app.later = None
    c = app.controller
    if isinstance(c.versus, Away):  # the guard off while the match starts; put back if it fails again
        c.versus = None
    part = NETWORK
    try:
        if app.net is None:
            from .net import start
            if not start(app, link):
                return  # no network set up: no match with a friend's board either
            if retry is not None and retry.part is NETWORK:
                tell(app, "%s runs now, after all", NETWORK)
        if app.remote is None and "remote.json" in os.listdir():
            part = FRIEND
            from .remote import resume
            resume(app)
            if retry is not None and app.remote:
                tell(app, "the match with the friend's board %s goes on", app.remote.peer)
    except Exception as e:  # noqa: BLE001  (out of heap above all; a flash read's OSError as well)
        gc.collect()  # what the failed start made is garbage now: room for the event and the game
        kind = type(e)
        again = retry is not None and retry.part is part and retry.kind is kind  # said at the last try
        hold(app, link, part, kind)
        if not again:
            try:
                wait(app, part, e)
            except Exception:  # noqa: BLE001  (out of heap even for the message: the one made at import)
                gc.collect()
                RETRY.why = SHORT[part is FRIEND]["message"]
                try:
                    app.emit(SHORT[part is FRIEND])
                except Exception:  # noqa: BLE001  (nor that: unsaid, and the game plays on all the same)
                    pass


def hold(app, link, part, kind):
    """The friend's pieces held (Away) and the part armed for a retry, with the objects made at import:
    this allocates nothing, so a heap too full for anything else still leaves the game playing."""
    c = app.controller
    paired = c.journal.paired
    if app.remote is None and paired and c.versus is None:
        away = AWAY[1 - paired[4]]
        away.paused = PAUSED if kind is MemoryError else PAUSED_BY_FAULT
        c.versus = away
        c.changed = True
    later = RETRY
    later.app = app
    later.link = link
    later.part = part
    later.kind = kind
    later.at = None
    app.later = later


def wait(app, part, e):
    """What failed, said in an `error` event naming the part and the fault (once: hold armed the retry), and
    kept for the wifi and mqtt commands' reply (doce/net.py command)."""
    RETRY.why = "%s starting %s (%s: %s): the board plays on offline without it, and tries again every %d s" % (
        "out of memory" if isinstance(e, MemoryError) else "a fault", part, type(e).__name__, e, RETRY_MS // 1000)
    app.emit({"event": "error", "message": RETRY.why})


def tell(app, message, what):
    """A warning that a part runs now, if the heap has room for it: never a reason for a part that
    started to count as failed."""
    try:
        app.emit({"event": "warning", "message": message % what})
    except Exception:  # noqa: BLE001  (out of heap: unsaid, the part runs all the same)
        pass


# Said when even wait's message does not fit: made here, its "seq" (doce/link.py sets it) in it already,
# and sent at once (doce/link.py Link.send), so the one dict serves every time.
SHORT = tuple({"event": "error", "message": "out of memory, or a fault, starting %s: the board plays on offline "
                                            "without it, and tries again every %d s" % (p, RETRY_MS // 1000),
               "seq": 0} for p in (NETWORK, FRIEND))


class Retry:
    """A part that failed to start, started again at rest (App.step) once RETRY_MS have passed. One,
    made at import (RETRY), armed by hold()."""

    def __init__(self):
        self.app = None
        self.link = None
        self.part = None  # what failed, and the kind of fault: the same again is not said again
        self.kind = None
        self.at = None  # set at the first scan: the boot has no tick
        self.why = None  # what the board said of it

    def step(self, now):
        if self.at is None:
            self.at = ticks_add(now, RETRY_MS)
        elif ticks_diff(now, self.at) >= 0:
            self._again()

    def _again(self):  # (step's own helper: its frame on the heap only when it runs)
        gc.collect()
        start_network(self.app, self.link)


PAUSED = ("the match with the friend's board is paused: this board ran out of memory starting it, and "
          "tries again every %d s; who plays, a new match and the pairing wait till it runs" % (RETRY_MS // 1000))
PAUSED_BY_FAULT = ("the match with the friend's board is paused: this board met a fault starting it (its error "
                   "event said which), and tries again every %d s; who plays, a new match and the pairing wait "
                   "till it runs" % (RETRY_MS // 1000))


class Away:
    """The friend's side of a paired match whose part (doce/remote.py) is not running: none of its
    pieces is taken, and its edge shows it away, as when its board is off the broker. Who plays, a
    new match and the pairing stay as they are meanwhile (App.paused): changed here, the friend's
    board would never hear of it, and the match would stop as a mismatch once it runs."""
    level = None  # a friend's board, not the board's own opponent (doce/state.py)
    move = None
    alarm = PEER_LOST

    def __init__(self, colour):
        self.colour = colour
        self.paused = PAUSED  # why, for App.paused (hold sets it: made here, so setting it allocates nothing)

    def refusal(self, player, square, piece):
        return NOT_THE_MOVE if player == self.colour else None

    def state(self):
        return None  # (the state's "remote": no match running; the error event said why. paired() says more)


def paired(app):
    """For `remote` with no peer while the match is paused (doce/link.py): paired with whom, in which
    match (remote.json, read here: doce/remote.py may be what did not fit), not running here, and why."""
    try:
        with open("remote.json") as f:
            config = json.load(f)
    except (OSError, ValueError):
        config = None
    if not isinstance(config, dict):
        config = {}
    v = app.controller.versus
    return {"peer": config.get("peer"), "colour": PLAYER_NAMES[v.colour], "match": config.get("match"),
            "connected": False, "paused": v.paused}


AWAY = (Away(0), Away(1))  # the friend white, or black
RETRY = Retry()
