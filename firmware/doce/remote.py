"""A match with a friend's board, through the room's broker (docs/remote.md).

Loaded only on a board paired with another (remote.json, and the journal's P record for the same
match), as versus.py is for a match against the board. To the controller and the lights a Remote
is the board's opponent: its `move` is the friend's move, shown in light as the board shows its
own, and `refusal` turns any other piece of the friend's colour away as not_the_move.

Both boards referee every play. n counts the match's plays (dice and blockers, both players'), and
a play's digest is a CRC-32 of the position after it. A board keeps one message for its friend's,
retained, on <prefix>/<friend's id>/remote/<own id> (the room's ACL lets only it write there):

  {"match": "7f3a01c2", "n": 12, "digest": "1a2b3c4d", "plays": [["b2", 0, "5e6f7a8b"], ["c3", 4, "1a2b3c4d"]]}

n and digest say how far this board is; plays are its own plays since the friend's last (the
last is play n), each its square, face (0: its blocker) and digest: all the other board can lack,
for a board plays on only once the friend's move is down on it. The message goes when n moves on
(once the journal has the play), when the board connects, and when the other is behind: a message
lost, sent twice, late or out of order costs nothing, the newest says it all.
Two digests that differ for one n stop both boards (`remote_mismatch`, naming that play).

Nothing stays on the broker for long: a board clears (an empty retained message) what its friend left
for it once it has read all of it it will ever need: another match's message (a stale or crossed code,
said once to the player when it comes live), a refusal or an end acted on, the friend's last message
of a match over on both boards (the pairing then ends on each). A board that ends a match, or refuses
one, while off the broker tells its friend once it is back (doce/remote_news.py).
"""

import binascii
import gc
import json
import os
import struct

from .ticks import ticks_add, ticks_diff
from .controller import CORRECTING, move_refusal
from .game import NOWHERE, PLAYER_NAMES, Game
from .lights import PEER_LOST, STOPPED
from .outbox import fits
from .squares import parse_square, square_name
from .state import move_names

CONFIG = "remote.json"  # the friend's board id, the match's number and this board's colour
MISMATCH = "remote_mismatch"  # why any piece is refused once the two boards disagree
# Plays kept with their digests. One player's plays in a row, which a message carries: at most a
# round's last die, then a blocker and a die opening the next round.
KEEP = 6
MAX_MESSAGE = 700  # bytes: a message of KEEP plays is about 450
TOO_LONG = "it is longer than %d bytes" % MAX_MESSAGE
RESEND_MS = 1000  # to a friend's board that is behind, at most one message a second
# A beat to the friend's board, live (QoS 0, never retained), and "connected" is one heard within LOST_MS:
# the only thing that crosses every broker and bridge between the two boards, so the only thing that says
# the path is up end to end (a status retained on this board's broker is changed only by the friend's
# board or its broker, and says nothing of a bridge between the clubs being down). Two beats lost, and
# 5 s for the brokers and bridges between: a line down shows within 25 s. About 60 bytes each way every
# 10 s; made once (attach), so a scan that sends one allocates nothing.
BEAT_MS = 10000
LOST_MS = 25000
NOBODY = 2  # the player of the entry for the match's start, before any play


def digest(game):
    """The position as both boards must have it after every play: a CRC-32 of the board, what
    each player has left, the markers, whose turn and the score."""
    crc = binascii.crc32(game.board)
    crc = binascii.crc32(game.dice_left, crc)
    crc = binascii.crc32(game.blockers_left, crc)
    crc = binascii.crc32(game.last_placed, crc)
    w, b = game.totals()
    return binascii.crc32(struct.pack("<BBBBHH", game.round, game.to_move, game.blocker_this_turn,
                                      len(game.rounds), w, b), crc) & 0xFFFFFFFF


class Remote:
    level = None  # not the board's own opponent: link.py tells the two apart by it

    def __init__(self, app, peer, match, colour, stopped=None):
        self.app = app
        self.peer = peer  # the friend's board id
        self.match = match  # 8 hex digits, the same on both boards
        self.colour = 1 - colour  # the friend's: its moves are shown and checked, as the board's own
        self.net = None
        self.inbox = self.outbox = self.status_topic = None
        self.n = 0  # plays so far in the match on this board
        self.digest = 0  # of the position after them
        self.recent = []  # (n, player, square, face or 0 for a blocker, digest), the last KEEP
        self.pending = []  # the friend's plays this board lacks: (n, square, face or 0, digest)
        self.peer_n = -1  # how far the friend's board said it was
        self.online = False  # the friend's board is on the broker (its retained status)
        self.left = False  # the friend's board left this match
        self.stopped = stopped  # the first play on which the boards disagree, once they do
        self.move = None  # (blocker square or NOWHERE, square, face): the friend's, to put down
        self.alarm = PEER_LOST  # for the lights (doce/lights.py)
        self.told = None  # the move the last `remote` event named
        self.mode = None  # the controller's mode when the move was last worked out
        self.fresh = True  # the move must be worked out again
        self.due = True  # a message for the friend's board waits to go
        self.again = False  # the friend's board is behind: send again, within RESEND_MS
        self.sent_at = None
        self.tell = None  # a remote_mismatch event, sent at the next scan
        self.refused = []  # why the friend's messages were refused since its last good one: each said once
        self.warned = 0  # how many of them are said: the rest, one a scan
        self.declined = None  # the friend's board refused this match: its message, till said
        self.heard = None  # the code of the last refusal said: the same again (retained, resent) is not news
        self.others = []  # other matches the friend's board was heard playing with this one: each weighed once
        self.doubt = None  # (another match, when heard live): said after LOST_MS, unless this one's beat came since
        self.said = []  # warnings for the player, one a scan: at most 1 + 4 (gone, others)
        self.gone = False  # "left this match" is said: not again, however often the friend says it
        self.sent = None  # (packet id, n) of the last message sent: the broker's PUBACK says it has it
        self.acked = -1  # the n of the last message the broker has (an end waits for the last one)
        self.finished = False  # the match is over on both boards, each with all of it: nothing more to send
        self.beat = None  # (a beat's PUBLISH header, its payload hearing nothing of the friend's, hearing it)
        self.hears = False  # the friend's beat came within LOST_MS
        self.heard_at = self.beat_at = self.beat_sent = 0
        self.asked = False  # the friend's beat says it hears nothing of this board: answered at once
        self.mine = None  # <prefix>/<own id>/remote/: every board's topic to this one

    # -- the connection ------------------------------------------------------------------

    def attach(self, net):
        self.net = net
        base = "%s/" % (net.config.get("prefix") or "doce")
        self.mine = ("%s%s/remote/" % (base, net.id)).encode()
        self.inbox = self.mine + self.peer.encode()
        self.outbox = to_peer(net, self.peer).encode()
        self.status_topic = ("%s%s/status" % (base, self.peer)).encode()
        self.beat = beat_packet(self.outbox, self.match)
        net.remote = self
        self.due = True
        if net.up:  # paired while connected: Net.connack will not call connected() for it
            self.connected()

    def connected(self):
        """The broker has taken us (again): the friend's topic and status, and our news. Every board's
        topic to this one, not the friend's alone: what another board left here, of a match this board is
        not in (the bridge between two clubs brings back a copy cleared on one side while it was down), is
        cleared unread (incoming), not left for good."""
        self.net.subscribe(self.mine + b"+")
        self.net.subscribe(self.status_topic)
        self.due = True
        self.hears = False  # (its mark may be from before a long outage: ticks wrap)
        self.beat_at = self.net.now  # a beat at once, asking the friend's for one

    def step(self, now):
        """Once a scan. Allocates nothing unless something changed."""
        # A refusal waits till what came with it is read: a join after it, a chunk later, wins
        if self.declined and self.net.drained():
            self._declined()
            if self.app.remote is not self:
                return
        c = self.app.controller
        if self.fresh or c.mode is not self.mode:
            self._show(c)
        if self.tell:
            self._tell()
        if self.doubt:
            self._doubted(now)
        if self.warned < len(self.refused) or self.said:
            self._say()
        if not self.finished and self._over(c):
            self._finish()
        alarm = STOPPED if self.stopped is not None else 0 if self.finished or self.connected_now() else PEER_LOST
        if alarm != self.alarm or self.move is not self.told:  # hosts are told (a page shows it)
            if alarm != self.alarm:
                self.alarm = alarm
                c.changed = True
            self.told = self.move
            self.app.emit({"event": "remote", "colour": PLAYER_NAMES[self.colour], "connected": alarm == 0,
                           "move": self.move_state()})
        if self.due or self.again and (self.sent_at is None or not 0 <= ticks_diff(now, self.sent_at) < RESEND_MS):
            if self._may_send(c):
                self._send(now)
        if self.net.up and not (self.finished or self.left):
            self._pulse(now)

    # (step's own helpers: more in its frame would put it on the heap at every scan)
    def _pulse(self, now):
        """The friend's beat lost once LOST_MS has passed without one; this board's own beat when due, or
        at once (within RESEND_MS) when the friend's said it hears nothing of this one."""
        if self.hears and ticks_diff(now, self.heard_at) >= LOST_MS:
            self.hears = False
        if ticks_diff(now, self.beat_at) >= 0 or self.asked and not 0 <= ticks_diff(now, self.beat_sent) < RESEND_MS:
            self._beat(now)

    def _beat(self, now):
        pipe = self.net.pipe
        payload = self.beat[2 if self.hears else 1]
        if fits(pipe, self.outbox, payload):  # else the pipe is full (a slow broker): at a later scan
            pipe.out.extend(self.beat[0])  # within the pipe's room: its buffer stays put, nothing is made
            pipe.out.extend(payload)
            self.beat_at = ticks_add(now, BEAT_MS)
            self.beat_sent = now
            self.asked = False
            self.net.send(now)

    def _doubted(self, now):
        """Another match heard (_other), LOST_MS ago: no news if the friend's beat, which names this match,
        has come since, BEAT_MS after it at the earliest (a board in this match beats every BEAT_MS; one that
        came sooner may have waited in a queue, from before the friend's board moved on). Else said, once,
        and the friend's board is told that match is over here (an end, as `remote end` sends): it says so
        too, though nothing of this match ever reaches it (it left this match, say, so this board sends
        nothing more; or this board's message was cleared unread there)."""
        match, since = self.doubt
        if ticks_diff(now, since) < LOST_MS:
            return
        self.doubt = None
        if not (self.hears and ticks_diff(self.heard_at, since) >= BEAT_MS):
            from .remote_news import tell
            tell(self.net, self.outbox, json.dumps({"match": match, "ended": True}))
            self.due = True  # this match's own message the newest left there again
            self.said.append("the friend's board %s plays another match with this board (%s, this board %s): a "
                             "code joined after a newer one, or both boards invited; nothing comes of either: pair "
                             "the two again with one code (doce remote invite, then join)" % (self.peer, match,
                                                                                               self.match))

    def _say(self):
        if self.warned < len(self.refused):
            why = self.refused[self.warned]
            self.warned += 1
            self.app.emit({"event": "warning", "message": "the friend's board (%s) sent a message this board "
                                                          "refused: %s" % (self.peer, why)})
        if self.said:
            self.app.emit({"event": "warning", "message": self.said.pop(0)})

    def _over(self, c):
        """Both boards hold the whole match, and the broker has this one's last message."""
        return self.acked == self.n == self.peer_n and c.game.match_over and self.stopped is None and not c.unwritten

    def _may_send(self, c):
        """What goes out is in the journal; nothing once the match is over on both; to a friend that
        left, nothing more but a first message (one who left before this board joined learns this
        board has, and is told)."""
        return self.net.up and not c.unwritten and not self.finished and not (self.left and self.sent)

    def connected_now(self):
        """The friend's board is on the broker, and in this match (it has said so), and so are we, and its
        beat comes (nothing is sent once the match is over on both)."""
        return self.online and self.net.up and (self.finished or self.peer_n >= 0 and not self.left and self.hears)

    def _send(self, now):
        message = self.message()
        if not fits(self.net.pipe, self.outbox, message):
            return  # the pipe full (a slow broker): due still, sent at a later scan
        self.due = self.again = False
        self.sent_at = now
        self.sent = (self.net._publish(self.outbox, message, True, 1), self.n)
        self.net.send(now)  # on its way this scan: Net.poll has written out what it had

    def puback(self, pid):
        """The broker has our message with packet id `pid` (doce/net.py)."""
        if self.sent and self.sent[0] == pid:
            self.acked = self.sent[1]

    def _clear(self, topic=None):
        """What the friend left for this board is read, all of it it needs: off the broker with it (an
        empty retained message; the room's ACL lets a board clear its own inbox, doce fleet secure);
        or, with topic self.outbox, this board's own message, to a friend's board that will not read it. A
        clear that finds the pipe full to its room (a slow broker, KEEP_FREE taken too) is not made: what it
        clears is retained, and comes again at the next connection, to be cleared then."""
        topic = topic or self.inbox
        if self.net.up and fits(self.net.pipe, topic, b"", 0):
            self.net._publish(topic, b"", True, 1)

    def _finish(self):
        """The match is over on both boards, each holding every play, and the broker has this board's
        last message: what the friend left here is cleared, and nothing more is sent (the friend's
        board, which has that last message, does the same). The pairing stays, for the finished
        match's record (who played it), till a new match; its end is then told no one."""
        self._clear()
        self.finished = True
        self._save()
        self.app.controller.changed = True

    def message(self):
        own = 1 - self.colour
        i = len(self.recent)
        while i and self.recent[i - 1][1] == own:
            i -= 1
        grid = self.app.tables.grid
        plays = [[square_name(grid, e[2]), e[3], "%08x" % e[4]] for e in self.recent[i:]]
        m = {"match": self.match, "n": self.n, "digest": "%08x" % self.digest, "plays": plays}
        if self.stopped is not None:
            m["mismatch"] = self.stopped
        return json.dumps(m)

    # -- the friend's move, shown and checked --------------------------------------------

    def _show(self, c):
        self.mode = c.mode
        self.fresh = False
        g = c.game
        p = self.pending
        move = None
        if self.stopped is None and not g.round_over and g.to_move == self.colour and p and p[0][0] == self.n + 1:
            if g.refusal(self.colour, p[0][1], p[0][2], not p[0][2]):  # the rules here refuse it: not this game
                self._stop(p[0][0], p[0][3])
            elif p[0][2]:
                move = (NOWHERE, p[0][1], p[0][2])
            elif len(p) > 1:
                move = (p[0][1], p[1][1], p[1][2])  # its blocker first, then its die
            else:
                move = (p[0][1], NOWHERE, 0)  # its blocker; the die is still to come
        if move != self.move:
            self.move = move
            c.changed = True
            if move and c.mode == CORRECTING:  # put down before a power cut, or before it came
                c.reconcile(c.physical)

    def refusal(self, player, square, piece):
        if self.stopped is not None:
            return MISMATCH
        return None if player != self.colour else move_refusal(self.move, square, piece)

    def event(self, event):
        """Net.event's: every event the board sends, after the controller made it."""
        kind = event["event"]
        if kind == "placed":
            self._placed(event)
        elif kind == "new_match":  # a match begun on this board alone
            self.end()

    def _placed(self, event):
        c = self.app.controller
        player = PLAYER_NAMES.index(event["player"])
        square = parse_square(c.game.tables.grid, event["cell"])
        self.played(player, square, event.get("value", 0), c.game)
        if player == self.colour:  # the friend's play, put down here: the positions must agree
            p = self.pending.pop(0) if self.pending else None
            if p is None or p[0] != self.n or p[1] != square or p[3] != self.digest:
                self._stop(self.n, None if p is None else p[3])
        self.due = self.fresh = True

    def played(self, player, square, value, game):
        self.n += 1
        self.digest = digest(game)
        self._keep((self.n, player, square, value, self.digest))

    def _keep(self, entry):
        if len(self.recent) == KEEP:
            self.recent.pop(0)
        self.recent.append(entry)

    def _digest_at(self, n):
        if n == self.n:
            return self.digest
        for entry in self.recent:
            if entry[0] == n:
                return entry[4]
        return None  # too long ago to compare

    # -- what the friend's board says --------------------------------------------------------

    def incoming(self, topic, msg):
        if topic == self.status_topic:
            m = strict_json(self.app, msg)
            online = m.get("online") if isinstance(m, dict) else None
            if isinstance(online, bool):
                online = online and m.get("away") is not True  # on the broker, its match not running (offline.py)
                # back: it may be behind (unless it left: its topic may hold a refusal for it now)
                self.again = self.again or online and not self.online and not self.left
                self.online = online
        elif topic == self.inbox and msg:  # empty: its retained message cleared (the organiser's tools do)
            if msg == self.beat[1] or msg == self.beat[2]:
                if not self.net.retained:  # (a beat is never retained: one that is proves nothing)
                    self._heard(msg == self.beat[1])
                return
            m = read(self.app, msg)
            if isinstance(m, str):
                self._refuse(m)
            elif "beat" in m:
                pass  # another match's: said, if it is news, by that match's own message (_other)
            elif m["match"] == self.match:
                self._take(m)
            else:
                self._other(m["match"])
        elif msg and b'"beat"' not in msg and topic.startswith(self.mine):
            self._clear(topic)  # another board's, of a match this one is not in: off the broker, unread

    def _heard(self, asks):
        self.hears = True
        self.heard_at = self.net.now
        self.asked = self.asked or asks

    def _other(self, match):
        """A message of another match, cleared unread. The friend's board may play that match with this one
        now (a code joined after a newer invitation, or both boards invited and each joined the other's: its
        message, retained, is the newest it left here), or it may be a late message of a match the two played
        before (resent, a bridge's copy, or left retained), come before the friend's board joined this one or
        while it plays it. Which, its beat tells (_doubted): a board in this match beats it every BEAT_MS, one
        in that match never. Said once, LOST_MS later, if it is the other match. (A message of this match
        proves nothing here: it may be from before the friend's board moved on.)"""
        self._clear()
        if not self.finished and match not in self.others and len(self.others) < 4:
            self.others.append(match)
            self.again = True  # ours, live, tells the friend's board the same (its copy may be cleared already)
            if self.doubt is None:
                self.doubt = (match, self.net.now)

    def too_long(self, topic):
        """A packet on `topic` too big for the board to read (doce/mqtt.py MAX_IN)."""
        if topic == self.inbox:
            self._refuse(TOO_LONG)
        elif topic.startswith(self.mine):
            self._clear(topic)  # another board's, too long to be any match's: unread, off the broker

    def _refuse(self, why):
        """A message from the friend's topic that is not the protocol's: said once for each reason,
        till a good one comes, so a player waiting on it knows why."""
        if why not in self.refused:
            self.refused.append(why)  # a few constant strings at most (read's): said in turn (step)

    def _take(self, m):
        if self.finished:  # all of it had: off the broker with what comes again
            self._clear()
            if m.get("n") == 0 and self.n and not self.gone:  # begun again there: its code joined once more
                self._replayed()
            return
        if "refused" in m:  # its board will not play this match: said at the next step
            if self.peer_n >= 0 or self._friend_played():
                self._refuse(SAID_IT_PLAYS)  # no board refuses a match it plays: the match goes on
            elif m["refused"] != self.heard:
                self.declined = m
            return
        self.declined = None  # the newest message says it all: a join after a refusal wins
        if m.get("ended"):
            if self.gone:  # said, cleared, saved once: a friend saying it again and again costs nothing more
                self.left = True
                return
            self._clear()
            self._clear(self.outbox)  # it reads none of this board's now: nothing is sent it while it is away
            if not self.left:
                self.left = self.gone = True
                self._save()
                self.said.append("the friend's board %s left this match (it was ended there, or another begun): "
                                 "pair the two again to play on" % self.peer)
            return
        self.left = False
        n, plays = m["n"], m["plays"]
        if self.peer_n < 0:  # its first here: it may lack ours (cleared by this board's match before, unread)
            self.again = True
        if self.refused:  # a good message: the next refusal is news again
            del self.refused[:]
            self.warned = 0
        for p in plays:  # the first play both boards have whose positions differ
            if p[0] <= self.n:
                self._check(p[0], p[3])
        if n <= self.n:
            self._check(n, m["digest"])
        if m.get("mismatch") is not None:  # the friend's board found one: this one stops too
            self._stop(m["mismatch"], None)
        if n > self.peer_n:
            self.peer_n = n
            self.pending = [p for p in plays if p[0] > self.n]
            if n - len(plays) > self.n:  # it has plays this board never had: not its own
                self._stop(self.n + 1, None)
            self.fresh = True
        if n < self.n:
            self.again = True

    def _replayed(self):
        """The friend's board began this match, over on both, again (its code typed once more): it is
        told the match is over here (an end, as `remote end` sends), and it says so; and so does this
        board, once."""
        from .remote_news import tell
        self.gone = True
        tell(self.net, self.outbox, json.dumps({"match": self.match, "ended": True}))
        self.said.append("the friend's board %s began this match (%s) again, over here: its code was joined "
                         "once more; nothing comes of it: pair the two again with a new code (doce remote invite, "
                         "then join)" % (self.peer, self.match))

    def _check(self, n, theirs):
        mine = self._digest_at(n)
        if mine is not None and mine != theirs:
            self._stop(n, theirs)

    def _stop(self, n, theirs):
        """The boards disagree from play n on: play stops here, and the friend's board is told."""
        if self.stopped is not None:
            return
        self.stopped = n
        self.due = self.fresh = True
        mine = self._digest_at(n)
        self.tell = {"event": "remote_mismatch", "move": n, "peer": self.peer,
                     "digest": None if mine is None else "%08x" % mine,
                     "peer_digest": None if theirs is None else "%08x" % theirs}
        self._save()
        self.app.controller.changed = True

    def _friend_played(self):
        """A play of the friend's is in this match here: it has joined it (recent holds the last KEEP
        plays, and a board plays at most 3 in a row, so one of them is the friend's if any is)."""
        for entry in self.recent:
            if entry[1] == self.colour:
                return True
        return False

    def _declined(self):
        """The friend's board refused the pairing: a player here is told why, in one event. A match
        in play on it (mid_round): this board waits on, for its player may finish it or force the
        same code. Any other reason: nothing starts (the board is for two players here again)."""
        m, self.declined = self.declined, None
        self.heard = m["refused"]
        self._clear()
        event = {"event": "remote_refused", "peer": self.peer, "reason": m["refused"]}
        if m.get("rules_checksum") == "%08x" % self.app.tables.checksum:  # its rules are this board's: the
            event["reason"] = WRONG_CODE  # code it was given had another checksum (mistyped, or forged)
        else:
            for key in ("rules", "rules_checksum"):
                if key in m:
                    event[key] = m[key]
        if m["refused"] != WAIT_FOR_FORCE:  # it never joined: no end to tell it, and nothing of ours to read
            self._clear(self.outbox)
            self._detach()
        self.app.emit(event)

    def _tell(self):
        event, self.tell = self.tell, None
        self.app.emit(event)  # a scan later: never in the middle of another event's sending

    # -- the pairing -----------------------------------------------------------------------

    def move_state(self):
        """The friend's move to put down, as the protocol names it (its blocker alone while its
        die is still to come), or None."""
        move = self.move
        if move and move[1] == NOWHERE:
            return {"blocker": square_name(self.app.tables.grid, move[0])}
        return move_names(self.app.tables.grid, move) if move else None

    def state(self):
        """For `state` (doce/state.py): who the friend's board is, and the move it waits for."""
        return {"peer": self.peer, "colour": PLAYER_NAMES[self.colour], "match": self.match,
                "connected": bool(self.net) and self.connected_now(), "move": self.move_state(), "plays": self.n,
                "mismatch": self.stopped}

    def _save(self):
        save({"peer": self.peer, "match": self.match, "colour": PLAYER_NAMES[1 - self.colour],
              "stopped": self.stopped, "left": self.left, "finished": self.finished})

    def end(self):
        """This board leaves the match (a match begun here, or `remote` with peer null): the
        friend's board is told, now or once the broker is there (tell)."""
        if self.net and not self.finished:
            from .remote_news import tell
            tell(self.net, self.outbox, json.dumps({"match": self.match, "ended": True}))
        self._detach()

    def _detach(self):
        app = self.app
        if self.net:
            self.net.remote = None
        forget()
        app.remote = None
        if app.controller.versus is self:
            app.controller.versus = None
        app.controller.changed = True

    def replay(self, journal):
        """n, the digests and this board's last plays, from the journal (at boot). The digest is
        play n's, as the friend's board has it: the game after that play, not as it is now (a round
        begun since changes the position, never the play's digest)."""
        from array import array

        from .journal import DIE, NEW_MATCH, NOT_PLAYS, PUT_BLOCKER, Journal, each_record
        try:
            with open(journal.path, "rb") as f:
                data = f.read()
        except OSError:
            data = b""
        # The last KEEP plays as plain numbers, made into recent's tuples only once the replay's garbage
        # (which grows with the match) is collected: made among it, they would split the free heap
        # where the garbage ended, ever lower in it as the match goes on (the power-cut campaign).
        ring = array("I", bytes(4 * 5 * KEEP))  # n, player, square, face or 0, digest; KEEP of them
        count = 0
        game = None
        waiting = True
        for kind, payload, _ in each_record(data):
            if kind == NEW_MATCH:
                game = Game(self.app.tables, payload[0])
                count = ring_entry(ring, count, (0, NOBODY, 0, 0, digest(game)))
            elif kind not in NOT_PLAYS and game is not None:
                waiting = Journal._apply(game, waiting, kind, payload)
                if waiting is None:
                    break
                if kind == DIE or kind == PUT_BLOCKER:
                    self.n += 1
                    count = ring_entry(ring, count, (self.n, payload[0], payload[1], payload[2] if kind == DIE else 0,
                                                     digest(game)))
        data = game = None
        gc.collect()
        for i in range(max(0, count - KEEP), count):
            j = i % KEEP * 5
            self._keep((ring[j], ring[j + 1], ring[j + 2], ring[j + 3], ring[j + 4]))
        self.digest = self.recent[-1][4] if self.recent else digest(self.app.controller.game)


def beat_packet(topic, match):
    """A beat to the friend's board on `topic`, made once: a QoS 0 PUBLISH's header (MQTT 3.1.1, 3.3),
    and its two payloads, hearing nothing of the friend's board (0: it answers at once) and hearing it."""
    payloads = [('{"match":"%s","beat":%d}' % (match, i)).encode() for i in (0, 1)]
    size = 2 + len(topic) + len(payloads[0])
    length = bytes((size,)) if size < 128 else bytes((size & 0x7F | 0x80, size >> 7))
    return b"\x30" + length + struct.pack("!H", len(topic)) + topic, payloads[0], payloads[1]


def ring_entry(ring, count, entry):
    """entry's five numbers in the ring of KEEP (Remote.replay); the count of entries so far."""
    j = count % KEEP * 5
    for k in range(5):
        ring[j + k] = entry[k]
    return count + 1


def is_hex(text):
    if not isinstance(text, str) or len(text) != 8:
        return False
    for c in text:
        if c not in "0123456789abcdef":
            return False
    return True


def is_count(value, most=999):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= most


def strict_json(app, msg):
    """One JSON object, framed as strictly as a line on the link (doce/link.py), or None."""
    return app.link.parse(msg, len(msg)) if 0 < len(msg) <= MAX_MESSAGE else None


KEYS = ("match", "n", "digest", "plays", "mismatch")
WRONG_CODE = "wrong_code"  # a rules_mismatch naming this board's own rules: the code's checksum was wrong
WAIT_FOR_FORCE = "mid_round"  # a refusal the friend's player may undo with the same code, forced
SAID_IT_PLAYS = "it refused a match it has said it plays"
REFUSAL_KEYS = ("match", "refused", "rules", "rules_checksum")


def is_word(text, letters):
    """1 to 32 of `letters`: shown to a player, so nothing a terminal would act on."""
    if not isinstance(text, str) or not 0 < len(text) <= 32:
        return False
    for c in text:
        if c not in letters:
            return False
    return True


def is_refusal(m):
    """The friend's board refused this match (doce/pairing.py refuse): why, as its error's code,
    and, for rules_mismatch only and always, its rules: a name and a checksum (this board's own when
    the code it was given had a checksum mistyped: Remote._declined)."""
    for key in m:
        if key not in REFUSAL_KEYS:
            return False
    if not is_word(m["refused"], "abcdefghijklmnopqrstuvwxyz_"):
        return False
    if m["refused"] != "rules_mismatch":
        return "rules" not in m and "rules_checksum" not in m
    rules, checksum = m.get("rules"), m.get("rules_checksum")
    return (is_word(rules, "abcdefghijklmnopqrstuvwxyz0123456789-") and rules[0] != "-"  # as doce/tables.py
            and is_hex(checksum))


def read(app, msg):
    """A message from the friend's board, checked whole: its plays as (n, square, face or 0,
    digest), numbered on to its n; if it is anything else, why not, in words for a player."""
    tables = app.tables
    if len(msg) > MAX_MESSAGE:
        return TOO_LONG
    m = strict_json(app, msg)
    if m is None:
        return "it is not one JSON object"
    if not is_hex(m.get("match")):
        return "its match is not 8 lower-case hex digits"
    if "ended" in m:
        return m if m["ended"] is True and len(m) == 2 else "its end of the match is not {match, ended: true}"
    if "beat" in m:  # (this match's own is not read: Remote.incoming knows its bytes)
        return m if is_count(m["beat"], 1) and len(m) == 2 else "its beat is not {match, beat: 0 or 1}"
    if "refused" in m:
        return m if is_refusal(m) else ("its refusal is not {match, refused: a word}, nor "
                                        "rules_mismatch with its own rules and checksum")
    for key in m:
        if key not in KEYS:
            return "it has a key the protocol does not know"
    n, plays = m.get("n"), m.get("plays")
    if not is_count(n):
        return "its n is not a whole number of plays from 0 to 999"
    if not is_hex(m.get("digest")):
        return "its digest is not 8 lower-case hex digits"
    if not isinstance(plays, list) or len(plays) > KEEP or len(plays) > n:
        return "its plays are not a list of at most %d, nor of at most n" % KEEP
    if not is_count(m.get("mismatch", 0), n + 1):  # its own plays, or the next: its friend's it refused
        return "its mismatch names no play it has had, nor the next"
    out = []
    for p in plays:  # [square, face or 0 for a blocker, digest], numbered on to n
        if not isinstance(p, list) or len(p) != 3 or not is_count(p[1], tables.faces) or not is_hex(p[2]):
            return "a play is not [square, face or 0 for a blocker, digest]"
        square = parse_square(tables.grid, p[0])
        if square is None:
            return "a play names no square of this board"
        out.append((n - len(plays) + len(out) + 1, square, p[1], int(p[2], 16)))
    m["plays"] = out
    m["digest"] = int(m["digest"], 16)
    return m


def load():
    try:
        with open(CONFIG) as f:
            config = json.load(f)
    except (OSError, ValueError):
        return {}
    return config if isinstance(config, dict) else {}


def save(config):
    with open(CONFIG + ".new", "w") as f:
        json.dump(config, f)
    os.rename(CONFIG + ".new", CONFIG)


def forget():
    try:
        os.remove(CONFIG)
    except OSError:
        pass


def begin(app, remote):
    """The match on: attached to the network first, then the board's opponent. A start that runs out
    of heap attaching leaves nothing half made, so doce/offline.py's retry does all of it again."""
    try:
        remote.attach(app.net)
    except BaseException:
        if app.net.remote is remote:
            app.net.remote = None
        raise
    app.remote = remote
    app.controller.versus = remote
    app.controller.changed = True
    app.net.said_status()  # the friend's board sees this one in the match only from now (doce/net.py)


def to_peer(net, peer):
    """The topic this board writes to `peer`'s board on: <prefix>/<peer>/remote/<own id>."""
    return "%s/%s/remote/%s" % (net.config.get("prefix") or "doce", peer, net.id)


def ending(net, peer, match):
    """Whether the news kept for `peer` (doce/remote_news.py) ends `match`: the end was under way."""
    for topic, message, _ in net.news.items if net and net.news else ():
        if topic == to_peer(net, peer):
            try:
                m = json.loads(message)
            except ValueError:
                continue
            if isinstance(m, dict) and m.get("match") == match and m.get("ended") is True:
                return True
    return False


def resume(app):
    """At boot, on a board with its network started: the match with the friend's board goes on,
    as remote.json and the journal have it, if they name the same match."""
    from .netconfig import is_topic_level
    config = load()
    colour = config.get("colour")
    journal = app.controller.journal
    try:
        ok = (colour in PLAYER_NAMES[:2] and is_topic_level(config.get("peer")) and is_hex(config.get("match"))
              and binascii.unhexlify(config["match"]) + bytes((PLAYER_NAMES.index(colour),)) == journal.paired)
    except (ValueError, TypeError):
        ok = False
    if not ok:
        forget()
        if config:
            app.emit({"event": "warning", "message": "remote.json is not for the match in the journal: "
                                                     "playing on without the friend's board"})
        return None
    if ending(app.net, config["peer"], config["match"]):  # `remote end` cut after its news was kept
        forget()
        app.emit({"event": "warning", "message": "the match with the friend's board %s was ending when the "
                                                 "power went: it is over, and the friend's board is told"
                                                 % config["peer"]})
        return None
    stopped = config.get("stopped")
    remote = Remote(app, config["peer"], config["match"], PLAYER_NAMES.index(colour),
                    stopped if is_count(stopped) else None)
    remote.left = remote.gone = config.get("left") is True  # (said before the restart: not again)
    remote.finished = config.get("finished") is True
    remote.replay(journal)
    begin(app, remote)
    gc.collect()  # (the connection's garbage: doce/app.py)
