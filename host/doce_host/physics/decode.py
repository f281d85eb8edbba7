"""The firmware's reading of a square, for many readings at once (numpy).

The scanner (firmware/doce/scanner.py) classifies each sensor's reading against its
thresholds (none, '+', '-', BETWEEN, or weak with its sign), reads a square's five by the
board file's rule (a weak reading is none when its sign is opposite to a present centre's
and it is under fringe_percent of the centre's reading, else BETWEEN; one of the centre's
sign is none only under absent_below and gone_percent of the centre's) and looks them up in
the die code (doce.board), a piece of board.strict reading only while every ring place counted
as none of the centre's sign is under strict_gone_percent of the centre's; it settles a square
after `debounce_scans` equal reads in a row.
This does the same, array-wise, so the physics campaign reads every placement as the board
would; tests hold the two to the same answers.

`closest` measures, for a noiseless reading, how near it comes to reading as another piece:
the margin, in counts, by which the nearest wrong code misses (negative: it would be read).
"""

import numpy as np

from doce.board import BETWEEN, TRITS, UNSETTLED, WEAK
from doce.scanner import HOLD_BETWEEN
from doce.squares import piece as piece_value


class Reader:
    def __init__(self, board):
        self.board = board
        self.table = np.frombuffer(bytes(board.decode), np.uint8)
        self.lo, self.opposite, self.hi = board.absent_below, board.absent_opposite_below, board.present_above
        self.percent = board.fringe_percent
        self.gone = board.gone_percent
        self.strict = board.strict_gone_percent  # the line for board.strict's pieces (Scanner._decode)
        patterns, values, least = [], [], []
        order = sorted(board.dice)
        for code, name in board.dice.items():
            t = [TRITS[c] for c in code]
            k = 5 * order.index(code)
            w = list(board.check_above[k:k + 5]) if board.check_above is not None else [0] * 5
            for turn in range(4):
                patterns.append([t[0]] + t[1 + turn:] + t[1:1 + turn])
                least.append(w[:1] + w[1 + turn:] + w[1:1 + turn])
                values.append(piece_value(name))
        self.patterns = np.array(patterns)  # every code in every turn, (56, 5)
        self.least = np.array(least)  # and the least each of its magnets reads on a die built right (check_above)
        self.values = np.array(values)
        self.strict_rows = np.isin(self.values, board.strict)  # the patterns of board.strict's pieces

    def classes(self, d, previous=None, absent=None, gain=1.0):
        """Each reading (counts from its baseline) as the scanner classifies it: 0 none,
        1 '+', 2 '-', BETWEEN, WEAK ('+') or WEAK + 1 ('-'); `previous` the classes of the
        read before (or None); `absent` each sensor's absent_below if not the board's.

        `d` is in the board file's units (a board's counts over its ADC gain, reading.Boards),
        where the thresholds apply as they stand; `gain` (a number, or one a row) is that
        board's. The scanner holds a reading weak down to HOLD_BETWEEN raw counts below
        absent_below, unscaled: HOLD_BETWEEN / gain here."""
        lo = self.lo if absent is None else absent
        a = np.abs(d)
        sign = np.where(d < 0, 2, 1)
        weak = WEAK - 1 + sign
        t = np.where(a < lo, 0, np.where(a < self.opposite, weak, np.where(a < self.hi, BETWEEN, sign)))
        if previous is not None:
            hold = HOLD_BETWEEN / np.asarray(gain, float)
            t = np.where((a < lo) & (previous >= BETWEEN) & (a >= lo - hold), weak, t)
        return t

    def trits(self, classes, d):
        """The five trits C N E S W each square reads as (Scanner.read_square), from its
        classes and its readings `d` (the fringe rule compares a ring reading with the centre's)."""
        t = np.array(classes)
        centre = t[..., :1]
        ring = t[..., 1:]
        a = np.abs(np.asarray(d, float))
        # as the scanner compares: ring * 100 < centre * percent (0.55 * centre would round)
        opposite = (ring >= WEAK) & (ring - BETWEEN + centre == 3) & (a[..., 1:] * 100 < a[..., :1] * self.percent)
        # a ring reading of a present centre's sign is none only under gone_percent of it too
        sign = np.where(np.asarray(d)[..., 1:] < 0, 2, 1)
        faded = (ring == 0) & (sign == centre) & (a[..., 1:] * 100 >= a[..., :1] * self.gone)
        ring = np.where(opposite, 0, np.where((ring >= WEAK) | faded, BETWEEN, ring))
        return np.concatenate([np.where(centre >= WEAK, BETWEEN, centre), ring], axis=-1)

    def pieces(self, classes, d):
        """The piece (or EMPTY, UNSETTLED) each square's five classes (and readings) decode to."""
        t = self.trits(classes, d)
        k = (((t[..., 0] * 4 + t[..., 1]) * 4 + t[..., 2]) * 4 + t[..., 3]) * 4 + t[..., 4]
        p = self.table[k]
        # a ring place counted as none of the centre's sign at or over strict_gone_percent of it
        a = np.abs(np.asarray(d, float))
        sign = np.where(np.asarray(d)[..., 1:] < 0, 2, 1)
        near = ((t[..., 1:] == 0) & (sign == np.asarray(classes)[..., :1])
                & (a[..., 1:] * 100 >= a[..., :1] * self.strict)).any(-1)
        return np.where(near & np.isin(p, self.board.strict), UNSETTLED, p).astype(self.table.dtype)

    def read(self, d, previous=None, gain=1.0):
        """(pieces, classes) for readings `d`, one square a row of five (classes)."""
        c = self.classes(d, previous, gain=gain)
        return self.pieces(c, d), c

    def settled(self, reads, debounce=None):
        """What the scanner settles on along a sequence of decoded reads (one a scan): the
        pieces it settles, in order. A piece settles after `debounce` equal reads in a row
        (board.json debounce_scans), UNSETTLED after quiet_wait_scans."""
        b = self.board
        need = b.debounce_scans if debounce is None else debounce
        out, candidate, count, current = [], None, 0, None
        for piece in reads:
            piece = int(piece)
            count = count + 1 if piece == candidate else 1
            candidate = piece
            if piece != current and count >= (b.quiet_wait_scans if piece == UNSETTLED else need):
                current = piece
                out.append(piece)
        return out

    def margins(self, d):
        """(n, 56): for each reading and each code in each turn, by how many counts every
        sensor clears what that code needs of it (the smallest of the five): > 0 reads as it."""
        return self.clearances(d).min(-1)

    def clearances(self, d):
        """(n, 56, 5): margins' clearances, sensor by sensor (C N E S W)."""
        d = np.asarray(d, float)[:, None, :]
        p = self.patterns[None]
        a = np.abs(d)
        c = np.where(p[..., :1] == 1, 1.0, -1.0)  # the code's centre sign
        same = np.sign(d[..., 1:]) == c
        # the most a ring's fringe may read; under absent_below it is none whatever the centre
        fringe = np.maximum(self.lo, np.minimum(self.opposite, a[..., :1] * self.percent / 100))
        # the most a ring may read and be none: of the centre's sign, under absent_below and
        # gone_percent of the centre (strict_gone_percent for board.strict's pieces); of the
        # other, its fringe; under absent_below, either
        line = np.where(self.strict_rows, self.strict, self.gone)[None, :, None]
        gone = np.minimum(self.lo, a[..., :1] * line / 100)
        zero_ring = np.where(same, gone, fringe) - a[..., 1:]
        zero = np.concatenate([np.broadcast_to(self.lo - a[..., :1], zero_ring.shape[:-1] + (1,)), zero_ring], axis=-1)
        return np.where(p == 0, zero, np.where(p == 1, d - self.hi, -d - self.hi))

    def closest(self, d, right):
        """For readings `d` (n, 5) of a die that is `right` (a piece value, per reading or
        one): (margin, piece) of the nearest other piece; margin < 0 means read as it."""
        m = self.margins(d)
        other = self.values[None, :] != np.broadcast_to(np.asarray(right)[..., None], (len(m), 1))
        m = np.where(other, m, -np.inf)
        best = m.argmax(1)
        return -m[np.arange(len(m)), best], self.values[best]

    def _own_turn(self, d, right):
        """(clearances (n, 56, 5), margins (n, 56), each reading's nearest code of `right` in
        any turn (n,)): the turn of its own code readings `d` come nearest to reading as."""
        need = self.clearances(d)
        m = need.min(-1)
        own = self.values[None, :] == np.broadcast_to(np.asarray(right)[..., None], (len(m), 1))
        return need, m, np.where(own, m, -np.inf).argmax(1)

    def seated_pattern(self, d, right):
        """(n, 5): the code of `right` (0, 1 '+', 2 '-' each sensor) in the turn its readings
        `d` come nearest to reading right."""
        return self.patterns[self._own_turn(d, right)[2]]

    def check_margin(self, d, right, sensor=None):
        """For readings `d` of a die seated as `right` on the dice check's square: by how many
        counts it passes the check (doce/dice.py verdict: it reads right, and each magnet of its
        code reads at least check_above), in its best turn; or, given `sensor`, that sensor's.
        The verdict names extra a place of board.strict's pieces that reads none of the centre's
        sign over strict_gone_percent of it (Scanner.read_square's sixth byte), as play reads no
        such piece: so the same line as in play, for every code."""
        need, m, best = self._own_turn(d, right)
        rows = np.arange(len(m))
        d, p = np.asarray(d, float), self.patterns[best]
        need = np.where(p == 0, need[rows, best], np.minimum(need[rows, best],
                                                            np.where(p == 1, d, -d) - self.least[best]))
        return need.min(-1) if sensor is None else need[:, sensor]

    def seated_margin(self, d, right, sensor=None):
        """For readings `d` of a die seated as `right`: by how many counts it reads right
        (its best turn's smallest clearance; < 0: not read right, noise aside); or, given
        `sensor` (0-4: C N E S W), that sensor's clearance in that turn."""
        need, m, best = self._own_turn(d, right)
        rows = np.arange(len(m))
        return m[rows, best] if sensor is None else need[rows, best, sensor]


__all__ = ["Reader", "UNSETTLED"]
