"""The game journal in flash: every accepted action, so a power cut loses nothing.

An append-only file of records, each `kind, payload, crc32(kind + payload)`:
  M first, rules checksum (4)   a new match; starts a new file
  R round                       the board was clear and round `round` began
  D player, square, face        a numbered die
  B player, square              a blocker
  X round                       round `round` was abandoned: it starts again on a clear board
  A count (2)                   the broker has the events of the match's first `count` records
  T tag (4)                     the match's own number on MQTT, so a host knows it from another
                                (A and T are doce/outbox.py's, not plays: replay skips them)
  V colour, level               who plays: the board plays `colour` at `level`; colour 2: two
                                players. Written with M (one file, one rename: a power cut
                                leaves the old match and its opponent, or the new and its own)
                                and again when the button changes it; the last one holds.
  P match (4), colour           a match with a friend's board (doce/remote.py): its match number
                                and this board's colour. Written with M, as V is; the peer's id
                                is in remote.json, which must name the same match
After M and X the game waits for a clear board, and the wait survives a reboot.
Replay stops at the first record that is short or fails its checksum: that is the
record a power cut interrupted, and only it is lost. On LittleFS (the ESP32's file
system) an append is also atomic at close, so this is a second line of defence.

A new match is written to a new file that is then renamed over the old one, so the
journal always holds exactly one match.
"""

import os
import struct

from .crc import crc32
from .game import BLACK, WHITE, Game

PATH = "journal"
NEW_MATCH, DIE, PUT_BLOCKER, ROUND, ABANDON, ACK, TAG = b"M", b"D", b"B", b"R", b"X", b"A", b"T"
VERSUS, PAIRED = b"V", b"P"
PAYLOAD = {NEW_MATCH: 5, DIE: 3, PUT_BLOCKER: 2, ROUND: 1, ABANDON: 1, ACK: 2, TAG: 4, VERSUS: 2, PAIRED: 5}
NOT_PLAYS = (ACK, TAG, VERSUS, PAIRED)  # records about the match, not moves in it: replay skips them
TWO_PLAYERS = 2  # a V record's colour for a match for two


def versus_record(versus):
    """The V record for (colour, level) of the board's opponent, or None: two players."""
    return record(VERSUS, bytes((TWO_PLAYERS, 0) if versus is None else versus))


def record(kind, payload):
    body = kind + payload
    return body + crc32(body)  # binascii.crc32's, but no big int on the chip at every play (doce/crc.py)


def records(data):
    """(kind, payload, end offset) for each intact record, in order."""
    return list(each_record(data))


def each_record(data):
    """records(), one at a time (doce/outbox.py reads a match back without a list of it)."""
    at = 0
    while at < len(data):
        kind = data[at:at + 1]
        size = PAYLOAD.get(kind)
        end = at + 1 + (size or 0) + 4
        if size is None or end > len(data):
            break
        body = data[at:end - 4]
        if data[end - 4:end] != crc32(body):
            break
        yield kind, body[1:], end
        at = end


class Journal:
    def __init__(self, path=PATH):
        self.path = path
        self.moves = 0  # records of the match in the file, M included (not A)
        self.acked = 0  # the last A record's count
        self.tag = None  # the last T record's tag
        self.next_tag = None  # the next match's, written with its M record (doce/outbox.py picks it)
        self.versus = None  # the last V record's payload: who plays (App reads it at boot)
        self.paired = None  # the P record's payload: a match with a friend's board (doce/remote.py)
        self.next_paired = None  # the next match's, written with its M record

    def _append(self, data, move=1):
        with open(self.path, "ab") as f:
            f.write(data)
        self.moves += move

    def new_match(self, first, rules_checksum, versus=None):
        """versus: (colour, level) of the board's opponent, or None (two players)."""
        new = self.path + ".new"
        with open(new, "wb") as f:
            f.write(record(NEW_MATCH, struct.pack("<BI", first, rules_checksum)))
            if self.next_tag:
                f.write(record(TAG, self.next_tag))
            f.write(versus_record(versus))
            if self.next_paired:
                f.write(record(PAIRED, self.next_paired))
        os.rename(new, self.path)
        self.paired, self.next_paired = self.next_paired, None
        self.moves = 1
        self.acked = 0
        self.tag, self.next_tag = self.next_tag, None

    def ack(self, count):
        self._append(record(ACK, struct.pack("<H", count)), 0)
        self.acked = count

    def opponent(self, versus):
        """Who plays, chosen before the match's first piece (the button)."""
        self._append(versus_record(versus), 0)

    def mark(self, tag):
        self._append(record(TAG, tag), 0)
        self.tag = tag

    def die(self, player, square, face):
        self._append(record(DIE, bytes((player, square, face))))

    def blocker(self, player, square):
        self._append(record(PUT_BLOCKER, bytes((player, square))))

    def round_started(self, number):
        self._append(record(ROUND, bytes((number,))))

    def round_abandoned(self, number):
        self._append(record(ABANDON, bytes((number,))))

    def replay(self, tables):
        """(game, waiting, note): the match as journaled, and whether it waits for a clear
        board; game is None if there is no match to resume.

        A torn or refused record ends the replay and is cut off the file, so later
        appends follow the last good record.
        """
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except OSError:
            return None, True, None
        found = records(data)
        if not found or found[0][0] != NEW_MATCH:
            return None, True, "journal unreadable; starting a new match" if data else None
        first, checksum = struct.unpack("<BI", found[0][1])
        if checksum != tables.checksum or first not in (WHITE, BLACK):
            return None, True, "journal is for other rules; starting a new match"
        game = Game(tables, first)
        waiting = True
        applied = 1
        size = found[0][2]
        acked = 0
        self.tag = None
        self.versus = None
        self.paired = None
        for kind, payload, end in found[1:]:
            if kind in NOT_PLAYS:
                if kind == ACK:
                    acked = struct.unpack("<H", payload)[0]
                elif kind == TAG:
                    self.tag = payload
                elif kind == VERSUS:
                    self.versus = payload
                else:
                    self.paired = payload
                size = end
                continue
            waiting = self._apply(game, waiting, kind, payload)
            if waiting is None:
                break
            applied += 1
            size = end
        note = None
        if size < len(data):
            note = "journal: dropped %d damaged byte(s) after %d action(s)" % (len(data) - size, applied)
            try:
                self._rewrite(data[:size])
            except OSError as e:
                note += "; could not repair the file (%s)" % e
        self.moves = applied
        self.acked = min(acked, applied)
        return game, waiting is not False, note

    @staticmethod
    def _apply(game, waiting, kind, payload):
        """Whether the game now waits for a clear board; None if the record does not fit."""
        if kind == ROUND:
            if game.round_over and payload[0] == game.round + 1:
                game.start_round()
                return False
            return False if waiting and payload[0] == game.round and not game.round_over else None
        if kind == ABANDON:
            return True if payload[0] == game.round and game.restart_round() else None
        if waiting:
            return None  # no play before the round has begun
        if kind == DIE:
            return False if game.place(payload[0], payload[1], payload[2]) is None else None
        if kind == PUT_BLOCKER:
            return False if game.place_blocker(payload[0], payload[1]) is None else None
        return None

    def _rewrite(self, data):
        new = self.path + ".new"
        with open(new, "wb") as f:
            f.write(data)
        os.rename(new, self.path)
