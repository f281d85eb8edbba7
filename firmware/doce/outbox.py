"""The game's events kept for the broker until it has them, and made again from the journal
(docs/protocol.md, "MQTT").

Events wait in the outbox until the broker acknowledges them (QoS 1), and go again, in order,
after a reconnect. They also survive a reboot: each is the event of one journal record
(doce/journal.py; round_end and match_end go with the play that ended it), so the journal holds
them already. When the broker has all the events of a record, an A record says so (one small
append, at most one a scan). At boot, the events of the records after the last A are made again
from the journal, a few at a time, and go before anything newer; the `resend` command makes a
match's again for a host that missed them.
"""

import json
import os
from binascii import hexlify

from .arguments import BadArgument, CommandError
from .squares import square_name

OUTBOX = 64  # events kept for the broker while it is away (a round is about 30): ~5 KB of RAM
RECORDED = ("new_match", "round_start", "placed", "round_restarted")  # one journal record each
ENDS = ("round_end", "match_end")  # after the play that ended them, of its record


class Outbox:
    def __init__(self, app, link, topic):
        self.app = app
        self.link = link  # it numbers the events (seq)
        self.topic = topic  # the board's events topic
        self.events = []  # [seq, payload, packet id or 0 if not sent on this connection, record or 0]
        self.journal = journal = app.controller.journal
        self.record = journal.moves + len(app.controller.unwritten)  # the last play's journal record
        self.done = 0  # the broker has the events of records up to this one
        self.behind = None  # events of the records the broker lacked at boot, made again from the journal
        self.old = True  # the journal's match is the one of the boot
        if not journal.tag:  # a match begun before the Wi-Fi was set up
            try:
                journal.mark(os.urandom(4))
            except OSError:
                pass
        self.tag = hexlify(journal.tag or b"").decode()
        if journal.acked < journal.moves:
            self.replay(journal.acked)
        self.lost = 0  # events dropped from a full outbox (the state still shows the game)

    def replay(self, after):
        """Make the events of the journal's records after the `after` first again (catch_up
        sends them), numbered before any new event. How many there are."""
        journal = self.journal
        try:
            with open(journal.path, "rb") as f:
                data = f.read()
        except OSError:
            data = b""
        n = 0
        for _ in replayed(self.app.tables, data, journal.moves, after, self.tag):
            n += 1
        if n:
            self.behind = replayed(self.app.tables, data, journal.moves, after, self.tag)
            self.behind_seq = self.link.seq + 1  # their numbers, taken before any new event's
            self.link.seq += n
            self.behind_end = self.link.seq
            self.old = True  # of the journal's match
        return n

    def resend(self, tag, after):
        """The `resend` command: the events of this match's records after `after` again, to the
        broker (a host that missed them while it was away: doce fleet record); of the whole
        match if `tag` is not this match's."""
        if not isinstance(tag, str) or len(tag) > 8:
            raise BadArgument("tag is a match's tag, 8 hex digits")
        if not isinstance(after, int) or isinstance(after, bool) or after < 0:
            raise BadArgument("after is a record number, 0 or more")
        if self.behind:
            raise CommandError("busy", "events of the journal are being sent again already")
        if tag != self.tag:
            after = 0
        return {"tag": self.tag, "records": self.journal.moves, "resent": self.replay(min(after, self.journal.moves))}

    def add(self, event):
        """An event the link just numbered: it waits here until the broker has it. The event as
        it goes to the broker (with its match's tag and its record, if it has one)."""
        if len(self.events) >= OUTBOX:
            self.events.pop(0)
            self.lost += 1
        kind = event["event"]
        if kind == "new_match":  # a new journal: what waits from the old one is not its records
            self.record = self.done = 0
            self.old = False
            tag = os.urandom(4)
            self.journal.next_tag = tag  # written with the match's first record
            self.tag = hexlify(tag).decode()
            for item in self.events:
                item[3] = 0
        n = 0
        if kind in RECORDED or kind in ENDS:
            if kind in RECORDED:
                self.record += 1
            n = self.record
            event = dict(event)  # the USB line's stays as it was
            event["tag"] = self.tag
            event["record"] = n
        self.events.append([event["seq"], json.dumps(event).encode(), 0, n])
        return event

    def connected(self):
        """A new connection: what the last one did not see acknowledged goes again, in order."""
        for item in self.events:
            item[2] = 0

    def send(self, session):
        """A scan's share while the broker is there: an event made again from the journal if few of
        those wait, the events not yet sent on this connection, in order (QoS 1), as many as the pipe
        has room for (pipe.room: a full outbox is some 5 KB, and the pipe's buffer would move to grow),
        and the journal told what the broker has."""
        if self.events or self.behind or self.done > self.journal.acked:  # (at rest: no frame on the heap)
            self._send(session)

    def _send(self, session):
        if self.behind and self.ahead() < 4:
            self.catch_up()
        for item in self.events:  # in order; QoS 1 until acknowledged
            if self.behind and item[0] >= self.behind_seq:
                break  # newer than the events still to be made again
            if not item[2] and not self._publish(session, item):
                break  # the rest next scan
        if self.done > self.journal.acked and not self.app.controller.unwritten:
            try:
                self.journal.ack(self.done)
            except OSError:
                pass  # the next scan tries again; at worst, events go twice after a reboot

    def _publish(self, session, item):
        if not fits(session.pipe, self.topic, item[1]):
            return False
        item[2] = session._publish(self.topic, item[1], False, 1)
        return True

    def acked(self, pid):
        """The broker's PUBACK for packet `pid` (it sends them in order: MQTT 3.1.1, 4.6)."""
        events = self.events
        for i, item in enumerate(events):
            if item[2] == pid:
                events.pop(i)
                # a record is done when its last event is (a play, then its round_end)
                if i == 0 and item[3] and not (events and events[0][3] == item[3]):
                    self.done = item[3]
                return

    def ahead(self):
        """Events waiting that were made again already: those before the next to be made again. Only
        these pace catch_up: newer events wait behind it whatever their number (counting them all,
        four newer ones stopped it for good, and with it every send on that power-on)."""
        n = 0
        for item in self.events:
            if item[0] >= self.behind_seq:
                break
            n += 1
        return n

    def catch_up(self):
        """The next event made again from the journal, in its place before the newer ones."""
        event = next(self.behind, None)
        if event is None:
            self.behind = None
            return
        seq = self.behind_seq
        self.behind_seq += 1
        event["seq"] = seq
        event["again"] = True
        n = event["record"] if self.old else 0
        i = 0
        while i < len(self.events) and self.events[i][0] < seq:
            i += 1
        self.events.insert(i, [seq, json.dumps(event).encode(), 0, n])


    def waiting(self):
        """Events the broker has yet to acknowledge, those still to be made again included."""
        return len(self.events) + (self.behind_end + 1 - self.behind_seq if self.behind else 0)


# Of the MQTT pipe's room, what the board makes (events, the state, replies, the friend's message, the
# status, news) leaves this much for the session's own small packets, written as they come and never held:
# PUBACKs (4 B each; Mosquitto has at most max_inflight_messages, 20 by default, unacknowledged: 80 B),
# PINGREQ (2 B) and a connection's three SUBSCRIBEs (under 50 B each). Without it, the pipe filled to its
# room by a slow broker grew past it with the next of these (and with the friend's message: it now waits).
KEEP_FREE = 256


def fits(pipe, topic, payload, keep=KEEP_FREE):
    """Whether a PUBLISH of `payload` on `topic` fits in what the MQTT pipe's room (doce/mqtt.py Pipe) has
    left this scan, `keep` bytes kept free; an empty pipe takes any one. Its own bytes besides: 1 of type, at
    most 2 of length, 2 + the topic, 2 of packet id (MQTT 3.1.1, 3.3; a QoS 0 one has none: counted all the
    same)."""
    out = pipe.out
    return not out or len(out) + len(payload) + len(topic) + 7 <= pipe.room - keep


def replayed(tables, data, moves, acked, tag):
    """The events of the journal's (data's) records after the `acked` first, up to `moves`, as
    the controller sent them, each with `tag` and `record`, its record's number."""
    from .game import PLAYER_NAMES, Game
    from .journal import DIE, NEW_MATCH, NOT_PLAYS, PUT_BLOCKER, ROUND, Journal, each_record
    from .referee import match_event, round_event
    game = None
    waiting = True
    n = 0
    for kind, payload, _ in each_record(data):
        if kind in NOT_PLAYS:
            continue
        n += 1
        if n > moves:
            return
        if kind == NEW_MATCH:
            first = payload[0]
            if n != 1 or int.from_bytes(payload[1:], "little") != tables.checksum:
                return
            game = Game(tables, first)
            event = {"event": "new_match", "first": PLAYER_NAMES[first]}
        else:
            ended = len(game.rounds)
            waiting = Journal._apply(game, waiting, kind, payload)
            if waiting is None:
                return
            if kind == ROUND:
                event = {"event": "round_start", "round": game.round, "first": PLAYER_NAMES[game.to_move]}
            elif kind == DIE or kind == PUT_BLOCKER:
                event = {"event": "placed", "player": PLAYER_NAMES[payload[0]],
                         "cell": square_name(tables.grid, payload[1])}
                if kind == DIE:
                    event["value"] = payload[2]
                else:
                    event["blocker"] = True
            else:
                event = {"event": "round_restarted", "round": payload[0]}
        if n <= acked:
            continue
        event["tag"] = tag
        event["record"] = n
        yield event
        if (kind == DIE or kind == PUT_BLOCKER) and len(game.rounds) > ended:
            event = round_event(game, game.rounds[-1])
            event["event"] = "round_end"
            event["tag"] = tag
            event["record"] = n
            yield event
            if game.match_over:
                event = match_event(game)
                event["event"] = "match_end"
                event["tag"] = tag
                event["record"] = n
                yield event

