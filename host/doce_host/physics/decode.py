"""The firmware's reading of a square, for many readings at once (numpy).

The scanner (firmware/doce/scanner.py) classifies each sensor's reading against its
thresholds and looks the square's five up in the die code (doce.board). This does the
same, array-wise, so the physics campaign reads every placement as the board would; a
test holds the two to the same answers.
"""

import numpy as np

from doce.board import BETWEEN
from doce.scanner import HOLD_BETWEEN


class Reader:
    def __init__(self, board):
        self.board = board
        self.table = np.frombuffer(bytes(board.decode), np.uint8)

    def classes(self, d, previous=None, absent=None, present=None):
        """Each reading (counts from its baseline) as the scanner classifies it: 0 none,
        1 '+', 2 '-', BETWEEN; `previous` the classes of the read before (or None)."""
        lo = self.board.absent_below if absent is None else absent
        hi = self.board.present_above if present is None else present
        a = np.abs(d)
        t = np.where(a < lo, 0, np.where(a < hi, BETWEEN, np.where(d > 0, 1, 2)))
        if previous is not None:
            t = np.where((t == 0) & (previous == BETWEEN) & (a >= lo - HOLD_BETWEEN), BETWEEN, t)
        return t

    def pieces(self, classes):
        """The piece (or EMPTY, UNSETTLED) each square's five classes C N E S W decode to."""
        t = np.asarray(classes)
        k = (((t[..., 0] * 4 + t[..., 1]) * 4 + t[..., 2]) * 4 + t[..., 3]) * 4 + t[..., 4]
        return self.table[k]

    def settled(self, reads, debounce=None):
        """What the scanner settles on along a sequence of decoded reads (one a scan): the
        list of pieces it settles, in order. A piece settles after `debounce` equal reads
        in a row (board.json debounce_scans), UNSETTLED after quiet_wait_scans."""
        from doce.board import UNSETTLED
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
