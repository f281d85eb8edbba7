"""The scanner: raw sensor readings in, settled squares out.

Each scan reads every sensor, turns each square's five readings into a piece (the
board file's die code) and debounces it: a square changes only after reading the
same for `debounce_scans` scans in a row (an UNSETTLED reading needs
`quiet_wait_scans`, so a die being placed slowly does not flash an error). When
squares have changed and the board is quiet again, scan() returns True and the
settled board is handed on whole, so two dice put down together arrive together.
After boot, the first settled board is handed on even if it is empty.

A scan allocates nothing.
"""

from .board import SENSORS_PER_SQUARE, UNSETTLED


class Scanner:
    def __init__(self, sensors, board, calibration):
        self.sensors = sensors
        self.board = board
        self.calibration = calibration
        n = board.squares
        self.reading = bytearray(n)  # this scan's decoded squares, for diagnostics
        self.candidate = bytearray(n)
        self.count = bytearray(n)
        self.settled = bytearray(n)  # the board as it has settled
        self.pending = True  # settled changes not yet handed on; at boot, the whole board
        self.waited = 0
        self.scans = 0

    def scan(self):
        """Read the board once. True when settled changes are ready to hand on."""
        raw = self.sensors.read()
        b = self.board
        cal = self.calibration
        channels = b.square_channels
        baseline = cal.baseline
        decode = b.decode
        steady = b.debounce_scans
        slow = b.quiet_wait_scans
        busy = 0
        for sq in range(b.squares):
            absent = cal.absent_below[sq]
            present = cal.present_above[sq]
            k = 0
            first = sq * SENSORS_PER_SQUARE
            for i in range(first, first + SENSORS_PER_SQUARE):
                ch = channels[i]
                d = raw[ch] - baseline[ch]
                if d >= present:
                    k = k * 3 + 1
                elif d <= -present:
                    k = k * 3 + 2
                elif -absent < d < absent:
                    k = k * 3
                else:
                    k = -1  # between the thresholds: neither magnet nor none
                    break
            piece = UNSETTLED if k < 0 else decode[k]
            self.reading[sq] = piece
            if piece != self.candidate[sq]:
                self.candidate[sq] = piece
                self.count[sq] = 1
            elif self.count[sq] < 255:
                self.count[sq] += 1
            if piece != self.settled[sq] and self.count[sq] >= (slow if piece == UNSETTLED else steady):
                self.settled[sq] = piece
                self.pending = True
            if self.candidate[sq] != self.settled[sq]:
                busy += 1
        self.scans += 1
        if not self.pending:
            return False
        if (busy or self.scans < steady) and self.waited < slow:
            self.waited += 1
            return False
        self.pending = False
        self.waited = 0
        return True
