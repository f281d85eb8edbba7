"""`doce fleet record DIR`: every board's games as recorded-game files (docs/referee.md), written
as the moves come in, and each refereed when a round ends, beside what the board itself said.

A file starts when a board starts a match (its new_match event) or, for a board met mid-way, at
its first move of a match that had none yet; a board met in the middle of a game is recorded
from its next match. A match against the board has "versus" (docs/referee.md; none for two
players): from a versus event before its first move (the board's button), else from the board's
state at its first move. Files are DIR/<board id>-<n>.json, rewritten (write, then rename) after every move.

A file holds a match's moves in the board's order, with none missing. The board numbers each
game event by its match (`tag`) and journal record (`record`); the broker hands an event only to
those subscribed when it comes, so one the recorder was away for (a broker restart, the board
back first) is missed. The recorder puts events in record order, holds those that come after a
gap, and asks the board to send its journal's again (`resend`, docs/protocol.md) whenever the
broker or the board was away, or a record is missing. A gap the board cannot fill is said in one
line, and the match's file ends before it.
"""

import json
import os
import threading
import time
from pathlib import Path

from doce.referee import referee

from ..recorded import GameFileError, check_versus, match_of


def opponent_of(versus):
    """Who the board plays, from a state's or a versus event's `versus`, in the recorded format:
    None for two players, and for anything a board should not have sent."""
    if not isinstance(versus, dict):
        return None
    versus = {k: versus.get(k) for k in ("colour", "level")}  # a state's also has its move
    try:
        check_versus(versus)
    except GameFileError:
        return None
    return versus


class Game:
    def __init__(self, path, rules, first):
        self.path = path
        self.recorded = {"rules": rules, "first": first, "moves": []}
        self.versus_known = False  # a versus event, or the state at its first move, has said who plays
        self.ended = False  # its match_end came

    def play_against(self, versus):
        """Who the board plays (opponent_of); none for two players, as doce referee reads it."""
        self.versus_known = True
        if versus is None:
            self.recorded.pop("versus", None)
        else:
            self.recorded["versus"] = versus

    def save(self):
        tmp = self.path.with_suffix(".new")
        tmp.write_text(json.dumps(self.recorded, indent=1) + "\n")
        os.replace(tmp, self.path)


ENDS = ("round_end", "match_end")  # they carry the record of the play that ended the round
ORDER = {"round_end": 1, "match_end": 2}  # within a record: the play, then what it ended
ASK_S = 5.0  # a resend not answered by then is asked again (the board may have been away)
GIVE_UP = 3  # answered asks that bring none of the records missing: the board has them no more
MAX_HELD = 512  # events held after a gap, per board: more is no match of ours


class Track:
    """One board's journal events as they come: applied in record order within its match."""

    def __init__(self):
        self.tag = None  # the match recorded (None: none yet)
        self.next = 1  # the record to apply next
        self.held = {}  # record -> [(event, state)] that came after a gap
        self.seen = None  # (the room's connections, the board's arrivals, its events missed) last looked at
        self.want = False  # ask the board for its records after next - 1
        self.asked = None  # (request id, when) of the resend in flight
        self.after = 0  # the ask's `after`
        self.tries = 0  # answered asks in a row that left the gap where it was
        self.checked = None  # the `after` of the last ask answered, while its events may still come
        self.again_at = 0  # not before this (a board busy sending its journal already)

    def held_count(self):
        return sum(len(events) for events in self.held.values())


class Recorder:
    def __init__(self, folder, say=print):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.games = {}  # board id -> Game being recorded
        self.counts = {}
        self.say = say
        self.disagreements = 0
        self.tracks = {}  # board id -> Track
        self.lock = threading.RLock()  # events come in the MQTT client's thread, tick() in the caller's
        self.up = None  # the broker connection, as last looked at
        self.connects = 0  # the room's connections to it then

    def start(self, ident, rules, first):
        if ident not in self.counts:  # an earlier evening's games in this folder stay: number on from them
            self.counts[ident] = max((int(p.stem.rsplit("-", 1)[1]) for p in self.folder.glob(ident + "-*.json")
                                      if p.stem.rsplit("-", 1)[1].isdigit() and p.stem.rsplit("-", 1)[0] == ident),
                                     default=0)
        n = self.counts[ident] + 1
        self.counts[ident] = n
        game = Game(self.folder / ("%s-%d.json" % (ident, n)), rules, first)
        game.save()
        self.games[ident] = game
        return game

    def event(self, ident, event, state):
        """An event from board `ident` (each once: the Room drops repeats), and its latest retained
        state (or None). A journal's event (tag and record) is applied in record order."""
        tag, record = event.get("tag"), event.get("record")
        with self.lock:
            if not tag or not isinstance(record, int):  # no journal's: as it comes
                return self.apply(ident, event, state)
            t = self.tracks.setdefault(ident, Track())
            if tag != t.tag:
                if t.tag is None and event.get("event") != "new_match":  # a board met mid-match
                    self.apply(ident, event, state)
                    if ident in self.games:  # its first move, the match's first: recorded from here
                        t.tag, t.next = tag, record + 1
                    return
                self.begun(ident, t, event)
            if record < t.next - 1 or record == t.next - 1 and event.get("event") not in ENDS:
                return  # had it
            if record == t.next - 1 or record == t.next:
                self.apply(ident, event, state)
                t.next = max(t.next, record + 1)
                while t.next in t.held:
                    for e, s in sorted(t.held.pop(t.next), key=lambda es: ORDER.get(es[0].get("event"), 0)):
                        self.apply(ident, e, s)
                    t.next += 1
                return
            if t.held_count() >= MAX_HELD:
                return self.lost(ident, t, "over %d events came after the gap" % MAX_HELD)
            t.held.setdefault(record, []).append((event, state))  # after a gap: held until it is filled
            t.want = True

    def lost(self, ident, t, why):
        """The records of track t's match that are held back behind a gap will not come: said in
        one line, and the match's file ends before the gap (its later events are not recorded)."""
        game = self.games.pop(ident, None)
        missing = "records %d to %d" % (t.next, min(t.held) - 1) if t.held else "its last records"
        self.say("%s: %s of its match never reached the recorder, and %s: %s stops at move %d" % (
            ident, missing, why, game.path.name if game else "its file", len(game.recorded["moves"]) if game else 0))
        t.tag, t.next, t.held, t.tries, t.checked = None, 1, {}, 0, None

    def begun(self, ident, t, event):
        """Track t's board began another match (`event` is the first we have of it)."""
        game = self.games.get(ident)
        if t.held:
            self.lost(ident, t, "the board began another match before sending them again")
        elif game is not None and not game.ended and (event.get("again") or event.get("record") != 1):
            # it began while the recorder was away, so the recorder may have missed the old one's end too
            self.say("%s: the board began another match while the recorder was away; %s may lack the last "
                     "moves of its match" % (ident, game.path.name))
        t.tag, t.next, t.held, t.tries, t.checked = event.get("tag"), 1, {}, 0, None

    def tick(self, room, now=None):
        """About once a second, in the caller's thread: say when the broker goes and comes back;
        ask each board for what may have been missed (resend), and give up on what it no longer
        has. (The room's lock is never taken inside the recorder's: the MQTT thread takes them the
        other way round.)"""
        now = time.monotonic() if now is None else now
        with room.lock:
            boards = {i: (b.online, b.arrivals, b.missed) for i, b in room.boards.items()}
            connects, up = room.connects, room.up
        if self.connects and connects > self.connects:  # (it may have been away between two looks)
            self.say("the broker is back: asking each board for what it sent meanwhile")
        elif self.up and not up:
            self.say("the broker went away: recording goes on when it is back")
        self.up, self.connects = up, connects
        with self.lock:
            flying = {ident: t.asked[0] for ident, t in self.tracks.items() if t.asked}
        replies = {ident: room.reply(request_id) for ident, request_id in flying.items()}
        asks, forget = [], []
        with self.lock:
            for ident, t in self.tracks.items():
                online, arrivals, missed = boards.get(ident, (False, 0, 0))
                seen = (connects, arrivals, missed)
                if t.seen is None:
                    t.seen = seen
                if seen != t.seen:  # the recorder or the board was away, or an event never came
                    t.seen, t.want = seen, True
                if t.asked and t.asked[0] == flying.get(ident):
                    reply = replies.get(ident)
                    if reply is not None:
                        t.asked = None
                        self.answered(ident, t, reply, now)
                    elif now - t.asked[1] >= ASK_S:  # not answered (the board went, or missed it): again
                        forget.append(t.asked[0])
                        t.asked, t.want = None, True
                if t.tag and (t.want or t.held) and not t.asked and online and up and now >= t.again_at:
                    if t.held and t.checked is not None:  # the last ask was answered: did its events fill the gap?
                        t.tries = t.tries + 1 if t.next - 1 <= t.checked else 0
                        t.checked = None
                        if t.tries >= GIVE_UP:
                            self.lost(ident, t, "the board no longer has them (asked %d times)" % GIVE_UP)
                            continue
                    t.after, t.want = t.next - 1, False
                    t.asked = ("", now)
                    asks.append((ident, t.tag, t.after))
        for request_id in forget:
            room.reply(request_id, forget=True)
        for ident, tag, after in asks:  # outside the lock: sending takes the room's
            request_id = room.send(ident, "resend", tag=tag, after=after)
            with self.lock:
                t = self.tracks[ident]
                if t.asked and t.asked[0] == "":
                    t.asked = (request_id, now)

    def answered(self, ident, t, reply, now):
        if reply.get("ok"):
            t.again_at = now + ASK_S  # its events come meanwhile
            t.checked = t.after
        elif reply.get("error") == "busy":  # sending its journal again already: asked when done
            t.want, t.again_at = True, now + 1
        elif t.held:  # a board that cannot (unknown_command: older firmware)
            self.lost(ident, t, "the board cannot send them again (%s)" % reply.get("error"))

    def finish(self):
        """Recording ends: a gap still open is said."""
        with self.lock:
            for ident, t in self.tracks.items():
                if t.held:
                    self.lost(ident, t, "recording stopped before the board sent them again")

    def apply(self, ident, event, state):
        """An event applied to the board's game file, in the board's order."""
        kind = event.get("event")
        s = (state or {}).get("state") or {}
        if kind == "versus":  # who plays, chosen with the board's button before the first piece
            game = self.games.get(ident)
            if game is not None and not game.recorded["moves"]:
                game.play_against(opponent_of(event.get("versus")))
                game.save()
        elif kind == "new_match":
            self.start(ident, s.get("rules") or "standard", event.get("first", "white"))
        elif kind == "placed":
            game = self.games.get(ident)
            if game is None:
                others = [c for c in (s.get("board") or {}) if c != event.get("cell")]
                if s.get("round", 1) != 1 or others:
                    return  # met mid-game: recorded from its next match
                game = self.start(ident, s.get("rules") or "standard", s.get("first") or "white")
            if not game.recorded["moves"] and not game.versus_known:  # its state by now says who plays
                game.play_against(opponent_of(s.get("versus")))
            move = {"player": event.get("player"), "cell": event.get("cell")}
            if event.get("blocker"):
                move["blocker"] = True
            else:
                move["value"] = event.get("value")
            game.recorded["moves"].append(move)
            game.save()
        elif kind == "round_end" and ident in self.games:
            self.check(ident, event)
        elif kind == "match_end" and ident in self.games:
            self.games[ident].ended = True

    def check(self, ident, event):
        """Referee the file so far; say whether it agrees with the board about the round."""
        game = self.games[ident]
        try:
            match, moves = match_of(game.recorded)
            verdicts = [v for v in referee(match, moves) if "round" in v]
        except GameFileError as e:
            self.say("%s round %s: cannot referee %s (%s)" % (ident, event.get("round"), game.path.name, e))
            return
        mine = next((v for v in verdicts if v.get("round") == event.get("round")), None)
        agree = mine is not None and mine.get("points") == event.get("points")
        self.disagreements += not agree
        self.say("%s round %s: board %s, referee %s%s" % (
            ident, event.get("round"), json.dumps(event.get("points")), json.dumps(mine and mine.get("points")),
            "" if agree else "  DISAGREE (%s)" % game.path.name))
