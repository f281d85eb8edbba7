"""The scanner: raw sensor readings in, settled squares out.

Each scan reads the centre sensors of every square, and all five sensors of the
squares that are moving (every die has a centre magnet, so nothing changes on a
square without its centre reading changing). A square whose readings changed is
moving until it settles: it is decoded into a piece (the board file's die code) and
debounced, changing only after reading the same for `debounce_scans` scans in a row
(an UNSETTLED reading needs `quiet_wait_scans`, so a die being placed slowly does
not flash an error). When squares have changed and the board is quiet again, scan()
returns True and the settled board is handed on whole, so two dice put down together
arrive together. After boot, the first settled board is handed on even if empty.

A scan allocates nothing.
"""

from .board import BETWEEN, NO_SQUARE, SENSORS_PER_SQUARE, UNSETTLED


class Scanner:
    def __init__(self, sensors, board, calibration):
        self.sensors = sensors
        self.board = board
        # The calibration's arrays, held directly: recalibrating updates them in place.
        self.baseline = calibration.baseline
        self.absent_below = calibration.absent_below
        self.present_above = calibration.present_above
        self.trits = bytearray(board.channels)  # each sensor this scan: 0, 1 '+', 2 '-', BETWEEN
        n = board.squares
        self.moving = bytearray(b"\x01" * n)  # squares whose sensors changed, or not yet settled
        self.wanted = 0  # the groups to read in full next scan, for the moving squares
        self.reading = bytearray(n)  # this scan's decoded squares, for diagnostics
        self.candidate = bytearray(n)
        self.count = bytearray(n)
        self.settled = bytearray(n)  # the board as it has settled
        self.pending = True  # settled changes not yet handed on; at boot, the whole board
        self.waited = 0
        self.scans = 0

    def scan(self):
        """Read the board once. True when settled changes are ready to hand on."""
        groups = self.board.watch_groups | self.wanted
        self._classify(self.sensors.read(groups), groups)
        busy = self._update(groups)
        if self.scans < 255:  # only boot needs counting, and a big int would allocate
            self.scans += 1
        if not self.pending:
            return False
        if (busy or self.scans < self.board.debounce_scans) and self.waited < self.board.quiet_wait_scans:
            self.waited += 1
            return False
        self.pending = False
        self.waited = 0
        return True

    # The functions below are small on purpose: MicroPython keeps a frame of up to
    # 11 slots (locals and stack) on the C stack, and puts a bigger one on the heap
    # at every call.
    def _classify(self, raw, groups):
        for group in range(self.board.groups):
            if groups >> group & 1:
                self._classify_group(raw, group * self.board.channels_per_group)

    def _classify_group(self, raw, first):
        """Each sensor against its thresholds: a south pole, a north pole, none, or between.

        A sensor whose reading changed marks its square as moving.
        """
        for ch in range(first, first + self.board.channels_per_group):
            d = raw[ch] - self.baseline[ch]
            t = 1
            if d < 0:
                d = -d
                t = 2
            if d < self.absent_below[ch]:
                t = 0
            elif d < self.present_above[ch]:
                t = BETWEEN
            if t != self.trits[ch]:
                self.trits[ch] = t
                self._moved(ch)

    def _moved(self, ch):
        sq = self.board.square_of_channel[ch]
        if sq != NO_SQUARE:
            self.moving[sq] = 1

    def _update(self, groups):
        """Decode and debounce the moving squares; the number still moving."""
        busy = 0
        self.wanted = 0
        for sq in range(len(self.moving)):
            if self.moving[sq]:
                busy += self._update_square(sq, groups)
        return busy

    def _update_square(self, sq, groups):
        mine = self.board.groups_of_square[sq]
        if mine & groups == mine:  # all five sensors read this scan, none stale
            self._debounce(sq, self._decode(sq))
        if self.moving[sq]:
            self.wanted |= mine  # read all of it next scan
            return 1
        return 0

    def _decode(self, sq):
        """The piece square `sq` reads as: its five sensors, looked up in the die code."""
        c = self.board.square_channels
        t = self.trits
        i = sq * SENSORS_PER_SQUARE
        k = t[c[i]]
        k = k * 4 + t[c[i + 1]]
        k = k * 4 + t[c[i + 2]]
        k = k * 4 + t[c[i + 3]]
        k = k * 4 + t[c[i + 4]]
        return self.board.decode[k]

    def _debounce(self, sq, piece):
        """Count `piece` on `sq`; settle it when it has held long enough."""
        self.reading[sq] = piece
        if piece != self.candidate[sq]:
            self.candidate[sq] = piece
            self.count[sq] = 1
        elif self.count[sq] < 255:
            self.count[sq] += 1
        needed = self.board.quiet_wait_scans if piece == UNSETTLED else self.board.debounce_scans
        if piece != self.settled[sq] and self.count[sq] >= needed:
            self.settled[sq] = piece
            self.pending = True
        if piece == self.settled[sq]:
            self.moving[sq] = 0
