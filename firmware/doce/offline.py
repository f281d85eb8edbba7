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
import os

from .controller import NOT_THE_MOVE
from .lights import PEER_LOST
from .ticks import ticks_add, ticks_diff

# A part that did not fit is tried again this long after, at rest: by then the garbage around the
# boot's lasting objects is gone, and the retry's collection makes the same room a new boot would.
RETRY_MS = 30000
NETWORK = "the network (Wi-Fi and MQTT)"
FRIEND = "the match with the friend's board"


def start_network(app, link, said=None):
    """Wi-Fi and MQTT as net.json says, then the match with the friend's board if paired; whatever
    fails to start (out of heap, or any other fault) waits for a retry. Each part counts as started
    only once all of it is (net.start publishes app.net last, remote.begin app.remote), so a retry
    does again whatever a failed start left undone. said: what the last failure said (a Retry's)."""
    part = NETWORK
    try:
        if app.net is None:
            from .net import start
            if not start(app, link):
                return  # no network set up: no match with a friend's board either
            if said:
                app.emit({"event": "warning", "message": "%s runs now, after all" % NETWORK})
        if app.remote is None and "remote.json" in os.listdir():
            part = FRIEND
            from .remote import resume
            resume(app)
            if said and app.remote:
                app.emit({"event": "warning", "message": "the match with the friend's board %s goes on"
                                                         % app.remote.peer})
    except Exception as e:  # noqa: BLE001  (out of heap above all; a flash read's OSError as well)
        gc.collect()  # what the failed start made is garbage now: room for the event and the game
        wait(app, link, part, e, said)


def wait(app, link, part, e, said):
    """The part that failed waits for a Retry, the friend's pieces held meanwhile (Away); said once."""
    paired = app.controller.journal.paired
    if app.remote is None and paired and app.controller.versus is None:
        app.controller.versus = Away(1 - paired[4])
        app.controller.changed = True
    why = "%s: %s" % (type(e).__name__, e)
    app.later = Retry(app, link, part + type(e).__name__)
    if app.later.said != said:
        app.emit({"event": "error", "message": "%s starting %s (%s): the board plays on offline without it, and "
                                               "tries again every %d s" % ("out of memory" if isinstance(e, MemoryError)
                                                                           else "a fault", part, why,
                                                                           RETRY_MS // 1000)})


class Retry:
    """A part that failed to start, started again at rest (App.step) once RETRY_MS have passed."""

    def __init__(self, app, link, said):
        self.app = app
        self.link = link
        self.said = said  # the part and the kind of fault said: the same again is not said again
        self.at = None  # set at the first scan: the boot has no tick

    def step(self, now):
        if self.at is None:
            self.at = ticks_add(now, RETRY_MS)
        elif ticks_diff(now, self.at) >= 0:
            self._again()

    def _again(self):  # (step's own helper: its frame on the heap only when it runs)
        app = self.app
        app.later = None
        away = app.controller.versus
        if isinstance(away, Away):
            app.controller.versus = None
        gc.collect()
        try:
            start_network(app, self.link, said=self.said)
        except BaseException:  # whatever escaped start_network's own handler: the guard back, the retry armed
            if isinstance(away, Away) and app.controller.versus is None:
                app.controller.versus = away
            app.later = self
            self.at = None
            raise


PAUSED = ("the match with the friend's board is paused: this board ran out of memory starting it, and "
          "tries again every %d s; who plays, a new match and the pairing wait till it runs" % (RETRY_MS // 1000))


class Away:
    """The friend's side of a paired match whose part (doce/remote.py) is not running: none of its
    pieces is taken, and its edge shows it away, as when its board is off the broker. Who plays, a
    new match and the pairing stay as they are meanwhile (App.paused): changed here, the friend's
    board would never hear of it, and the match would stop as a mismatch once it runs."""
    paused = True
    level = None  # a friend's board, not the board's own opponent (doce/state.py)
    move = None
    alarm = PEER_LOST

    def __init__(self, colour):
        self.colour = colour

    def refusal(self, player, square, piece):
        return NOT_THE_MOVE if player == self.colour else None

    def state(self):
        return None  # (doce remote show: no match running; the error event said why)
