"""The game journal in flash: every accepted action, so a power cut loses nothing.

An append-only file of records, each `kind, payload, crc32(kind + payload)`:
  M first, rules checksum (4)   a new match; starts a new file
  R round                       the board was clear and round `round` began
  D player, square, face        a numbered die
  B player, square              a blocker
  X round                       round `round` was abandoned: it starts again on a clear board
After M and X the game waits for a clear board, and the wait survives a reboot.
Replay stops at the first record that is short or fails its checksum: that is the
record a power cut interrupted, and only it is lost. On LittleFS (the ESP32's file
system) an append is also atomic at close, so this is a second line of defence.

A new match is written to a new file that is then renamed over the old one, so the
journal always holds exactly one match.
"""

import binascii
import os
import struct

from .game import BLACK, WHITE, Game

PATH = "journal"
NEW_MATCH, DIE, PUT_BLOCKER, ROUND, ABANDON = b"M", b"D", b"B", b"R", b"X"
PAYLOAD = {NEW_MATCH: 5, DIE: 3, PUT_BLOCKER: 2, ROUND: 1, ABANDON: 1}


def record(kind, payload):
    body = kind + payload
    return body + struct.pack("<I", binascii.crc32(body))


def records(data):
    """(kind, payload, end offset) for each intact record, in order."""
    found = []
    at = 0
    while at < len(data):
        kind = data[at:at + 1]
        size = PAYLOAD.get(kind)
        end = at + 1 + (size or 0) + 4
        if size is None or end > len(data):
            break
        body = data[at:end - 4]
        if struct.unpack("<I", data[end - 4:end])[0] != binascii.crc32(body):
            break
        found.append((kind, body[1:], end))
        at = end
    return found


class Journal:
    def __init__(self, path=PATH):
        self.path = path

    def _append(self, data):
        with open(self.path, "ab") as f:
            f.write(data)

    def new_match(self, first, rules_checksum):
        new = self.path + ".new"
        with open(new, "wb") as f:
            f.write(record(NEW_MATCH, struct.pack("<BI", first, rules_checksum)))
        os.rename(new, self.path)

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
        for kind, payload, end in found[1:]:
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
