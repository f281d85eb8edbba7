"""`doce fleet update`: each board of a room sent its own package (doce_host/update.py) over MQTT.

The commands are the ones `doce update` sends over USB (update_begin, update_chunk, update_commit), on the
board's cmd topic (docs/protocol.md, "MQTT"): a board takes one command a scan, so each board has one request
in flight at a time, and the boards go side by side. A board that stops answering (gone from the broker, a
dropped connection) is asked again from update_begin once it is back: its reply says how much it has stored
(`received`), and the transfer goes on from there. A board in a match answers every update command `busy`
("in a match ...", doce/link.py): it is kept waiting, asked again every MATCH_RETRY_S, and its transfer goes on
from what it stored once the match is over, however long the others take (`match_wait` bounds the wait
for a match that does not end). A board whose update_commit reply never comes, as it restarts into the new
version (Transfer.runs_it), is done once its status names the version sent. A board's replies are untrusted: one
that does not fit the protocol ends its transfer with a line that says so, never with the reply's text raw.
"""

import base64
import hashlib
import time

from ..core_time import Deadline
from ..update import CHUNK
from ..update import begin as update_begin
from ..update import not_the_version
from ..view import printable
from .update_stage import IN_A_MATCH, IN_PLAY

TRANSIENT = ("busy", "trial")  # asked again later: a burst on the board, or a version still on trial
# A chunk or commit the board has no transfer for: it rebooted since (its broker session kept our command
# for it), and keeps what it stored: update_begin again, and go on from there
LOST = "no_transfer"
# A file's bytes refused (another's chunk, unsigned, at our offset), a commit before the last byte (anyone's), or a
# chunk not at the board's offset (one of another's came first): the board kept the rest; begun again, from there.
# More than MAX_AGAIN times, and the package itself is at fault, or someone on the broker keeps at it: refused
AGAIN = ("corrupted", "incomplete")
MAX_AGAIN = 3
MAX_SAID = 120  # characters of a board's message shown: its reason, not a page of it
MATCH = "match"  # Transfer.waits while the board's match is in play
# A board in a match is asked again this often: a busy answer costs it one command's parse and reply (no module
# loaded, no flash), and the transfer starts within this of the match's end
MATCH_RETRY_S = 5.0
MATCH_WAIT_S = 3 * 3600.0  # a match still in play after this (a club's evening): the board is left waiting


class Transfer:
    """One board's package, sent one request at a time. `outcome` once it is over: done (stored, switching),
    deferred (stored, switching when the match ends: a board from before busy in a match), refused, offline
    or waiting (a match in play all of match_wait) (set by run)."""

    def __init__(self, room, ident, data, timeout, key=None):
        self.room, self.id, self.data, self.timeout = room, ident, data, timeout
        self.sha = hashlib.sha256(data).hexdigest()
        self.begin = update_begin(data, key)  # signed with the board's key: a board refuses an unsigned one
        self.received = 0
        self.asked = None  # (request id, Deadline, the request's kind and offset)
        self.begun = False  # update_begin answered since the board was last lost
        self.outcome = self.message = self.version = None
        self.seen = 0  # the board's events kept when it took the commit: its update event comes after them
        self.waits = None  # the last transient error: what the board was busy with
        self.lost = 0  # requests that got no reply in time
        self.begins = []  # `received` at each update_begin answered: after the first, where it went on from
        self.pause = None  # a Deadline before asking again (busy, trial)
        self.again = 0  # begun again after a file refused, an early commit or a chunk out of step (AGAIN)
        self.wait, self.match_wait = None, MATCH_WAIT_S  # (run sets them)
        self.heard = None  # a Deadline of `wait` from the board's last answer that moved on (run starts it)
        self.playing = None  # a Deadline of `match_wait` from the first busy of the match in play
        self.said = None  # the board's reason for its last such busy, checked (printable, cut short)
        self.committed = False  # update_commit sent: from then on the board's status may say it took the package

    def online(self):
        with self.room.lock:
            b = self.room.boards.get(self.id)
            return bool(b and b.online)

    def idle(self):
        return self.asked is None

    def step(self):
        """Send the next request, or take its reply: call it often. True while there is more to do."""
        if self.outcome:
            return False
        if self.asked:
            rid, deadline, kind = self.asked
            reply = self.room.reply(rid)
            if reply is None:
                if self.runs_it():
                    self.room.reply(rid, forget=True)
                    return False
                if deadline.passed():
                    self.room.reply(rid, forget=True)
                    self.asked, self.begun = None, False  # the board went away: begin again, resumed
                    self.lost += 1
                    self.waits = None
                return True
            self.asked = None
            self.take(kind, reply)
            return not self.outcome
        if self.runs_it():
            return False
        if (self.pause and not self.pause.passed()) or not self.online():
            return True
        if not self.begun:
            self.ask(("begin", 0), "update_begin", **{k: v for k, v in self.begin.items() if k != "cmd"})
        elif self.received < len(self.data):
            piece = self.data[self.received:self.received + CHUNK]
            self.ask(("chunk", self.received), "update_chunk", offset=self.received,
                     data=base64.b64encode(piece).decode())
        else:
            with self.room.lock:  # its update event comes after these
                self.seen = self.room.boards[self.id].count if self.id in self.room.boards else 0
            self.committed = True
            self.ask(("commit", 0), "update_commit")
        return True

    def runs_it(self):
        """After update_commit: True, and the transfer done, once the board's status says it runs the version sent.
        A board restarts into it in the scan its commit's read-back ends, and over MQTT on an ESP32 the reply still
        in lwIP dies with the Wi-Fi: the board's own word, from its new boot (its status comes before any reply
        of that boot), says it took the package, where its begin would be answered `trial`, then 'a replay'."""
        if not self.committed:
            return False
        with self.room.lock:
            b = self.room.boards.get(self.id)
            said = getattr(b, "version", None) if b is not None and b.online else None
        if not isinstance(said, int) or isinstance(said, bool) or said != self.begin["version"]:
            return False
        self.version = said
        self.end("done", "no reply to update_commit; its status says it runs version %d" % said)
        return True

    def ask(self, kind, cmd, **args):
        self.asked = (self.room.send(self.id, cmd, **args), Deadline(self.timeout), kind)

    def end(self, outcome, message=None):
        self.outcome, self.message = outcome, message

    def take(self, kind, reply):
        if reply.get("ok") is not True:
            if self.runs_it():  # a reply of the new version's boot
                return
            error = reply.get("error")
            said = printable(str(reply.get("message") or "")[:MAX_SAID])
            if error == LOST and kind[0] != "begin":
                self.begun = False
            elif error in AGAIN or (error == "bad_argument" and kind[0] == "chunk"):
                self.again += 1
                if self.again > MAX_AGAIN:
                    self.end("refused", "%s (%s, %d times)" % (said or "no reason given", error, self.again))
                self.begun = False
            elif error == "busy" and said.startswith(IN_A_MATCH):  # begun again once the match is over
                self.pause, self.begun, self.waits, self.said = Deadline(MATCH_RETRY_S), False, MATCH, said
                self.heard = Deadline(self.wait) if self.wait is not None else None  # it answers: not offline
                if self.playing is None:
                    self.playing = Deadline(self.match_wait)
            elif error in TRANSIENT:
                self.pause, self.begun, self.waits = Deadline(1.0), False, error
            elif error == "refused":
                self.end("refused", said or "refused")
            elif isinstance(error, str):
                self.end("refused", "%s (%s)" % (said or "no reason given", printable(error[:32])))
            else:
                self.end("refused", "a reply that does not fit the protocol")
            return
        what, offset = kind
        self.waits = self.playing = None
        if self.wait is not None:
            self.heard = Deadline(self.wait)  # it moved on: `wait` counts again from here
        if what in ("begin", "chunk"):
            received = reply.get("received")
            # a chunk is taken whole or refused (doce/update.py): less would have it sent again byte by byte
            least = most = min(offset + CHUNK, len(self.data)) if what == "chunk" else 0
            if what == "begin":
                most = len(self.data)
            if not isinstance(received, int) or isinstance(received, bool) or not least <= received <= most:
                self.end("refused", "a reply that does not fit the protocol (received: %s)"
                         % printable(repr(received)[:32]))
                return
            self.received, self.begun = received, True
            if what == "begin":
                self.begins.append(received)
            return
        version, deferred = reply.get("version"), reply.get("deferred")
        if not isinstance(version, int) or isinstance(version, bool) or not isinstance(deferred, bool):
            self.end("refused", "a reply that does not fit the protocol (update_commit)")
            return
        fault = not_the_version(version, self.begin["version"])  # never report what was not sent
        if fault:
            self.end("refused", fault)
            return
        self.version = version
        self.end("deferred" if deferred else "done")

    def trial(self):
        """After a commit not deferred: the board's update event from a boot after it, or None yet."""
        with self.room.lock:
            b = self.room.boards.get(self.id)
            new = min(b.count - self.seen, len(b.events)) if b else 0
            events = list(b.events)[len(b.events) - new:] if new > 0 else []
        for _, event in events:
            if event.get("event") == "update":
                return event
        return None


    def start(self, wait, match_wait):
        self.wait, self.match_wait = wait, match_wait
        self.heard = Deadline(wait)

    def expire(self):
        """Between requests: over if the board has not moved on for `wait` seconds (off the broker, not answering,
        busy or on trial all along), or its match has been in play for `match_wait`."""
        if self.waits == MATCH and self.online():
            if self.playing.passed() and self.said == IN_PLAY:
                self.end("waiting", "a match in play for all of %g s: it takes the update once run again after "
                                    "the match" % self.match_wait)
            elif self.playing.passed():  # a piece on the board, no match in play: the board's words say so
                self.end("waiting", "busy for all of %g s (%s): it takes the update once run again when the board "
                                    "is clear" % (self.match_wait, self.said))
        elif self.heard.passed():
            self.end("offline", "not on the broker" if not self.online() else
                     "still trying the version before" if self.waits == "trial" else
                     "still busy" if self.waits else "stopped answering")


def run(transfers, wait, pump=None, match_wait=MATCH_WAIT_S):
    """Send every transfer side by side until each is over. A board not on the broker, or that stopped
    answering, is tried again until `wait` seconds (of a core's time) have passed since it last moved on; then it
    is offline. A board in a match waits for its end (at most `match_wait` seconds), whatever the others do."""
    for t in transfers:
        t.start(wait, match_wait)
    while True:
        going = [t for t in transfers if t.step()]
        if not going:
            return transfers
        for t in going:
            if t.idle():
                t.expire()
        pump() if pump else time.sleep(0.01)


def canary_healthy(transfer, wait, pump=None):
    """(healthy, why not) of the canary after its commit: its update event `done` within `wait` seconds."""
    if transfer.outcome == "deferred":
        return False, "waits for its match to end before it boots the new version"
    if transfer.outcome != "done":
        return False, "was %s (%s)" % (transfer.outcome, transfer.message)
    deadline = Deadline(wait)
    while not deadline.passed():
        event = transfer.trial()
        if event:
            if event.get("stage") == "done":
                fault = not_the_version(event.get("version"), transfer.version)
                if fault:  # healthy, but on another version than the one sent
                    transfer.end("rolled_back", fault)
                    return False, fault
                return True, None
            why = printable(str(event.get("reason") or event.get("stage"))[:MAX_SAID])
            transfer.end("rolled_back", why)
            return False, "rolled back: %s" % why
        pump() if pump else time.sleep(0.05)
    return False, "did not say it was healthy within %g s" % wait


def update(room, packages, wait, timeout, keys, canary=None, trial_wait=180.0, pump=None, match_wait=MATCH_WAIT_S):
    """{board id: (outcome, message, version)} of sending packages ({board id: bytes}) to the room's boards,
    each update_begin signed with its key ({board id: key}). With a canary: that board first (after its match,
    if one is in play), and the rest only once it is healthy on trial."""
    transfers = {ident: Transfer(room, ident, data, timeout, keys.get(ident)) for ident, data in packages.items()}
    rest = [t for i, t in sorted(transfers.items()) if i != canary]
    if canary:
        first = transfers[canary]
        run([first], wait, pump, match_wait)
        healthy, why = canary_healthy(first, trial_wait, pump)
        if healthy:
            first.message = "healthy on trial"
        else:
            for t in rest:
                t.end("not_sent", "the canary %s %s" % (canary, why))
            rest = []
    run(rest, wait, pump, match_wait)
    return {i: (t.outcome, t.message, t.version) for i, t in transfers.items()}
