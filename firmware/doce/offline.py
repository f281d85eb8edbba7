"""The network and a match with a friend's board, started as far as the heap lets them.

A board's game (scanning, rules, lights, journal) never needs either. If one runs out of heap as it
starts (a module's code or qstr pool needs a block the heap no longer has in one piece: issue 41),
the board says so once, in an `error` event naming the part (on USB, and on MQTT if it is up), plays
on offline without it, and tries it again at rest every RETRY_MS. While a friend's match is not
running the friend's pieces wait (Away): played here, they would stop the match as a mismatch once
it runs (doce/remote.py replays the journal).
"""

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


def start_network(app, link, said=False):
    """Wi-Fi and MQTT as net.json says, then the match with the friend's board if paired; whatever
    runs out of heap waits for a retry. said: the error was told once already."""
    if app.net is None:
        from_net = _start(app, said, NETWORK, _net, link)
        if from_net is None:
            return
    if app.net is not None and app.remote is None and "remote.json" in os.listdir():
        _start(app, said, FRIEND, _friend, app)


def _net(link):
    from .net import start
    return start(link.app, link) or False


def _friend(app):
    from .remote import resume
    resume(app)
    return True


def _start(app, said, part, start, arg):
    """start(arg)'s result, or None if it ran out of heap (a Retry then waits on the app)."""
    try:
        return start(arg)
    except MemoryError as e:
        gc.collect()  # what the failed start made is garbage now: room for the event and the game
        paired = app.controller.journal.paired
        if app.remote is None and paired and app.controller.versus is None:
            app.controller.versus = Away(1 - paired[4])
            app.controller.changed = True
        app.later = Retry(app, app.link)
        if not said:
            app.emit({"event": "error", "message": "out of memory starting %s (MemoryError: %s): the board plays "
                                                   "on offline without it, and tries again every %d s"
                                                   % (part, e, RETRY_MS // 1000)})
        return None


class Retry:
    """A part that ran out of heap at boot, started again at rest (App.step) once RETRY_MS have passed."""

    def __init__(self, app, link):
        self.app = app
        self.link = link
        self.at = None  # set at the first scan: the boot has no tick

    def step(self, now):
        if self.at is None:
            self.at = ticks_add(now, RETRY_MS)
        elif ticks_diff(now, self.at) >= 0:
            app = self.app
            app.later = None
            if isinstance(app.controller.versus, Away):
                app.controller.versus = None
            gc.collect()
            start_network(app, self.link, said=True)


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
