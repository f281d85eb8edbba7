"""The scanner: raw sensor readings in, settled squares out.

Each scan reads the centre sensors of every square, and all five sensors of the
squares that are moving or settled unreadable (every die has a centre magnet, so nothing changes on a
square without its centre reading changing): only those channels, as each ADC
conversion takes 30-40 us on the ESP32. While squares are moving, a scan reads only
theirs, so they settle sooner, but every centre is read again at the scan where one of
them may settle (settled squares are handed on only from such a scan) and at least every
`debounce_scans` scans: a die put down elsewhere meanwhile is seen within that, and still
before the moving squares are handed on. A square whose readings changed is
moving until it settles: it is decoded into a piece (the board file's die code) and
debounced, changing only after reading the same for `debounce_scans` scans in a row
(an UNSETTLED reading needs `quiet_wait_scans`, so a die being placed slowly does
not flash an error). When squares have changed and the board is quiet again, scan()
returns True and the settled board is handed on whole, so two dice put down together
arrive together. After boot, the first settled board is handed on even if empty.

Each sensor is classified on its own (none, '+', '-', between, weak of either sign), and its
reading's size and sign are kept; a square is read from its five by the board file's rule
(doce.board): a weak reading of the sign opposite to a present centre, and under
fringe_percent of the centre's, is no magnet; one of the centre's sign is no magnet only
under absent_below and under gone_percent of the centre's, and the pieces a die one magnet
weak may fade into (Board.strict: each colour's blocker) read only while every such none is
under strict_gone_percent of the centre's too.

A scan allocates nothing.
"""

import sys
from array import array

from .board import BETWEEN, NO_SQUARE, SENSORS_PER_SQUARE, UNSETTLED, WEAK

# A sensor reading between the thresholds reads "no magnet" again only below absent_below less
# this: twice the ADC's peak noise (hardware/board.json physics.adc.noise_counts, 250). Else a
# magnet whose field sits at the threshold (a die half on its square) reads empty and unreadable
# by turns, its square never settles, and it is never reported.
HOLD_BETWEEN = 500

if sys.implementation.name == "micropython":
    import micropython
else:  # CPython (where a package may take the name `micropython`): viper's decorator and casts do nothing
    from .native import micropython, ptr8, ptr16


class Scanner:
    def __init__(self, sensors, board, calibration):
        self.sensors = sensors
        self.board = board
        # The calibration's arrays, held directly: recalibrating updates them in place.
        self.baseline = calibration.baseline
        self.absent_below = calibration.absent_below
        self.present_above = calibration.present_above
        self.opposite = calibration.opposite  # absent_opposite_below at this board's ADC gain
        self.trits = bytearray(board.channels)  # each sensor this scan: 0, 1 '+', 2 '-', BETWEEN, WEAK (+1)
        self.level = array("H", [0] * board.channels)  # each sensor's reading this scan, counts from its baseline
        self.sign = bytearray(board.channels)  # and its sign: 1 '+', 2 '-'
        # and when its square was last read: the fringe rule weighs a ring against its centre, so a
        # square may come to read otherwise with no sensor changing class; one that moves further
        # than HOLD_BETWEEN since marks its square as moving
        self.decoded = array("H", [0] * board.channels)
        # read_square's answer: the five trits, then a bit (1 << place) for each ring place it counted
        # as none of the centre's sign that reads at or above strict_gone_percent of the centre
        # (Board.strict; the dice check names the place)
        self.square_read = bytearray(SENSORS_PER_SQUARE + 1)
        n = board.squares
        self.moving = bytearray(b"\x01" * n)  # squares whose sensors changed, or not yet settled
        self.wanted = 0  # the groups to read next scan for the moving squares, a bit each
        # Channels a 16-bit mask a group: the centres, the moving squares' channels
        # wanted next scan, and those read this scan.
        self.centres = array("H", [0] * board.groups)
        for sq in range(n):
            self._want(self.centres, sq * SENSORS_PER_SQUARE)
        # A square settled unreadable is watched whole, like a centre (read at every scan, the
        # board still quiet): a die held on an edge, then laid flat, changes only a ring sensor.
        self.watch_groups = board.watch_groups
        self.wanted_masks = array("H", [0] * board.groups)
        self.masks = array("H", [0] * board.groups)
        self.skipped = 0  # scans in a row that left the centres out
        self.due = False  # a moving square may settle at the next scan: read every centre then
        self.reading = bytearray(n)  # this scan's decoded squares, for diagnostics
        self.candidate = bytearray(n)
        self.count = bytearray(n)
        self.settled = bytearray(n)  # the board as it has settled
        self.pending = True  # settled changes not yet handed on; at boot, the whole board
        self.waited = 0
        self.scans = 0

    def scan(self):
        """Read the board once. True when settled changes are ready to hand on."""
        # only the moving squares, until one may settle or the others have waited long enough
        skip = self.wanted and not self.due and self.skipped < self.board.debounce_scans - 1
        self.skipped = self.skipped + 1 if skip else 0
        self.due = False
        groups = self.wanted if skip else self.watch_groups | self.wanted
        self._next_masks(skip)
        self._classify(self.sensors.read(groups, self.masks), groups)
        busy = self._update(groups)
        if self.scans < 255:  # only boot needs counting, and a big int would allocate
            self.scans += 1
        if not self.pending or skip:  # handed on only from a scan that read every centre
            return False
        if (busy or self.scans < self.board.debounce_scans) and self.waited < self.board.quiet_wait_scans:
            self.waited += 1
            return False
        self.pending = False
        self.waited = 0
        return True

    # The loops run every scan, so they are viper native code: as bytecode, they and
    # HallArray's were three quarters of an idle scan's work. Native frames live on the C stack, whatever their
    # size; the bytecode functions stay small, as MicroPython puts a frame of more than
    # 11 slots on the heap at every call. On CPython the viper casts do nothing.
    @micropython.viper
    def _next_masks(self, skip: int):
        masks = ptr16(self.masks)
        centres = ptr16(self.centres)
        wanted = ptr16(self.wanted_masks)
        for g in range(int(len(self.masks))):
            masks[g] = (0 if skip else centres[g]) | wanted[g]
            wanted[g] = 0

    @micropython.viper
    def _classify(self, raw, groups: int):
        """Each sensor read this scan, against its thresholds: a south pole, a north
        pole, none, between, or weak (with its sign). A sensor whose class changed, or
        whose magnet's reading moved more than HOLD_BETWEEN since its square was last
        read, marks its square as moving."""
        per = int(self.board.channels_per_group)
        masks = ptr16(self.masks)
        r = ptr16(raw)
        base = ptr16(self.baseline)
        lo = ptr16(self.absent_below)
        hi = ptr16(self.present_above)
        trits = ptr8(self.trits)
        level = ptr16(self.level)
        sign = ptr8(self.sign)
        decoded = ptr16(self.decoded)
        where = ptr8(self.board.square_of_channel)
        moving = ptr8(self.moving)
        settled = ptr8(self.settled)
        unsettled = int(UNSETTLED)
        between = int(BETWEEN)
        weak = int(WEAK) - 1  # + 1 for '+', + 2 for '-'
        opposite = int(ptr16(self.opposite)[0])
        nowhere = int(NO_SQUARE)
        hold = int(HOLD_BETWEEN)
        for group in range(int(self.board.groups)):
            if not (groups >> group) & 1:
                continue
            ch = group * per
            mask = masks[group]
            while mask:
                if mask & 1:
                    d = r[ch] - base[ch]
                    t = 1
                    if d < 0:
                        d = 0 - d
                        t = 2
                    level[ch] = d
                    sign[ch] = t
                    if d < lo[ch]:
                        if trits[ch] >= between and d >= lo[ch] - hold:
                            t = weak + t  # held: weak until clearly gone
                        else:
                            t = 0
                    elif d < opposite:
                        t = weak + t
                    elif d < hi[ch]:
                        t = between
                    moved = d - decoded[ch]
                    if moved < 0:
                        moved = 0 - moved
                    sq = where[ch]
                    # a none's level counts too on a square settled unsettled: the gone rule weighs it
                    if t != trits[ch] or (moved > hold and (t != 0 or (sq != nowhere and settled[sq] == unsettled))):
                        trits[ch] = t
                        if sq != nowhere:
                            moving[sq] = 1
                mask >>= 1
                ch += 1

    @micropython.viper
    def _update(self, groups) -> int:
        """Decode and debounce the moving squares; the number still moving."""
        busy = 0
        self.wanted = 0
        moving = ptr8(self.moving)
        for sq in range(int(len(self.moving))):
            if moving[sq]:
                busy += int(self._update_square(sq, groups))
        return busy

    def _update_square(self, sq, groups):
        first = sq * SENSORS_PER_SQUARE
        if self._read_whole(first):  # all five sensors read this scan, none stale
            self._debounce(sq, self._decode(sq))
        if self.moving[sq]:
            self.wanted |= self.board.groups_of_square[sq]  # read all of it next scan
            self._want_square(first)
            return 1
        return 0

    @micropython.viper
    def _watch_whole(self, sq: int, whole):
        """Watch square `sq`'s ring at every scan with the centres, or stop (its centre stays).
        Native: as bytecode its range() loops allocated at every square settling unreadable."""
        per = int(self.board.channels_per_group)
        c = ptr8(self.board.square_channels)
        centres = ptr16(self.centres)
        n = int(SENSORS_PER_SQUARE)
        for i in range(sq * n + 1, sq * n + n):
            ch = c[i]
            if whole:
                centres[ch // per] |= 1 << ch % per
            else:
                centres[ch // per] &= 0xFFFF ^ (1 << ch % per)
        groups = 0  # the groups with a channel watched
        for g in range(int(len(self.centres))):
            if centres[g]:
                groups |= 1 << g
        self.watch_groups = groups

    def want(self, sq):
        """Read all five sensors of square `sq` next scan (the dice check reads its square whole)."""
        self.wanted |= self.board.groups_of_square[sq]
        self._want_square(sq * SENSORS_PER_SQUARE)

    def _want(self, masks, i):
        """Add the channel of sensor `i` (square * 5 + C, N, E, S, W) to `masks`."""
        ch = self.board.square_channels[i]
        per = self.board.channels_per_group
        masks[ch // per] |= 1 << ch % per

    # A moving square's own work at each scan, native too: as bytecode it was most of a
    # landing scan's work.
    @micropython.viper
    def _want_square(self, first: int):
        """Read the five sensors of the square whose first is `first` next scan."""
        c = ptr8(self.board.square_channels)
        masks = ptr16(self.wanted_masks)
        per = int(self.board.channels_per_group)
        for i in range(first, first + int(SENSORS_PER_SQUARE)):
            ch = c[i]
            masks[ch // per] |= 1 << ch % per

    @micropython.viper
    def _read_whole(self, first: int) -> bool:
        c = ptr8(self.board.square_channels)
        masks = ptr16(self.masks)
        per = int(self.board.channels_per_group)
        for i in range(first, first + int(SENSORS_PER_SQUARE)):
            ch = c[i]
            if not (masks[ch // per] >> ch % per) & 1:
                return False
        return True

    def _decode(self, sq):
        """The piece square `sq` reads as: its five sensors, looked up in the die code."""
        t = self.read_square(sq)
        p = self.board.decode[(((t[0] * 4 + t[1]) * 4 + t[2]) * 4 + t[3]) * 4 + t[4]]
        return UNSETTLED if t[5] and p in self.board.strict else p

    # Native too: as bytecode, its frame (more than 11 slots) was put on the heap at every call.
    @micropython.viper
    def read_square(self, sq: int):
        """Square `sq`'s five trits C, N, E, S, W (0, 1 '+', 2 '-', BETWEEN) as the die code
        reads them: a weak reading is none if its sign is opposite to a present centre's
        and it is under fringe_percent of the centre's reading (the centre's fringe), else
        BETWEEN; a ring reading of a present centre's sign under absent_below is none only
        under gone_percent of the centre's, else BETWEEN (a magnet fading with its die). Then
        a bit, 1 << place, for each ring place so counted as none of the centre's sign that
        reads at or above strict_gone_percent of the centre's (0: none): the pieces
        Board.strict read only without, and the dice check names. In self.square_read,
        overwritten by the next call."""
        c = ptr8(self.board.square_channels)
        t = ptr8(self.trits)
        level = ptr16(self.level)
        sign = ptr8(self.sign)
        decoded = ptr16(self.decoded)
        out = ptr8(self.square_read)
        between = int(BETWEEN)
        weak = int(WEAK)
        n = int(SENSORS_PER_SQUARE)
        i = sq * n
        centre = t[c[i]]
        fringe = level[c[i]] * int(self.board.fringe_percent)
        gone = level[c[i]] * int(self.board.gone_percent)
        near = level[c[i]] * int(self.board.strict_gone_percent)
        out[n] = 0
        for j in range(n):
            ch = c[i + j]
            decoded[ch] = level[ch]
            v = t[ch]
            if v >= weak:  # v - BETWEEN: 1 '+', 2 '-'; opposite to the centre when they add to 3
                v = 0 if j and v - between + centre == 3 and level[ch] * 100 < fringe else between
            elif v == 0 and j and sign[ch] == centre and level[ch] * 100 >= near:
                if level[ch] * 100 >= gone:
                    v = between
                else:
                    out[n] = out[n] | (1 << j)
            out[j] = v
        return self.square_read

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
            if piece == UNSETTLED or self.settled[sq] == UNSETTLED:
                self._watch_whole(sq, piece == UNSETTLED)
            self.settled[sq] = piece
            self.pending = True
        elif self.count[sq] + 1 >= needed:
            self.due = True
        if piece == self.settled[sq]:
            self.moving[sq] = 0
