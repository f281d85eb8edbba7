"""The board file (hardware/board.json): pins, sensor channels, LEDs and the die code.

Firmware and simulator both read that one file; this module turns it into the flat
tables the scan loop indexes without allocating.

The die code: each square has five linear hall sensors, at the centre (C) and at four
points around it (N, E, S, W). A sensor reads '+' (a south pole facing it), '-' (a
north pole) or '0' (no magnet). Each face of a die carries two to five magnets, and the
face that is down is the one read: its code names the piece and the face up (7 - down).
A die may sit in any of its four rotations, so the ring N, E, S, W is read up to
rotation. The codes are at least two changes apart: a magnet lost (a die tilting or
lifting), a stray one (a neighbour passing), or one glued the wrong way round makes a
reading that matches no code, which decodes to UNSETTLED, never to another die. Every
code has a centre magnet, so no piece comes, goes or changes without its centre sensor
noticing: the scanner watches the centre sensors and reads a square's ring only while it
moves.

A ring sensor with no magnet over it still feels the magnets beside it: their fringe reads
against the centre's sign, up to about a third of a seated centre's reading. So a weak
reading (between absent_below and absent_opposite_below) of the sign opposite to a present
centre's counts as no magnet under fringe_percent of the centre's reading, and as neither
otherwise (BETWEEN). A reading of the centre's sign counts as no magnet only under
absent_below and under gone_percent of the centre's: a magnet of a die held over its well
fades with the die, and no threshold alone tells it from none (hardware/README.md,
"Reading a square"). A die held so can still lose its magnets of the other sign, all
together, so no code less any of those is another code: the loader refuses such a table.
No table can keep a code from being another less one ring magnet of the centre's sign too
(tests/physics/test_misbuilt.py): a die with that magnet weak reads as that other code while
the magnet is under gone_percent. So the codes so reached (strict(): each colour's blocker)
read only while every ring place counted as none of the centre's sign is under
strict_gone_percent of the centre's; else UNSETTLED. The line is as low as a seated blocker
with dice around it allows (hardware/README.md), so it narrows that gap, not closes it.
"""

import json
from array import array

from .game import EMPTY
from .squares import parse_square, piece

UNSETTLED = 0xFF  # a reading that matches no code: a die in motion, tilted, half on
NO_SQUARE = 0xFF  # a multiplexer input with no sensor
SENSORS_PER_SQUARE = 5
TRITS = {"0": 0, "+": 1, "-": 2}
BETWEEN = 3  # a sensor reading between the thresholds: neither a magnet nor none
WEAK = 4  # a weak reading, sign '+' (WEAK + 1: sign '-'): none if opposite to the centre, else BETWEEN
CODES = 4 ** SENSORS_PER_SQUARE  # every reading of one square, BETWEEN included


def key(trits):
    """The reading C, N, E, S, W (each 0, 1 '+', 2 '-' or 3 BETWEEN) as one number."""
    k = 0
    for t in trits:
        k = k * 4 + t
    return k


def decode_table(codes, fading=True):
    """bytearray(1024): reading key -> EMPTY, a piece, or UNSETTLED. Raises ValueError for a
    code table without margin: any code one change from another, or (unless not `fading`:
    a made-up table for a test of the dice check) another less some of its ring magnets of
    the other pole than its centre's (a die fading as it is lifted)."""
    table = bytearray(CODES)  # filled in place: a list of 1024 would cost 4-8 KB of heap
    for k in range(CODES):
        table[k] = UNSETTLED
    table[0] = EMPTY  # no magnet under any sensor
    for code, name in codes.items():
        if len(code) != SENSORS_PER_SQUARE or any(c not in TRITS for c in code):
            raise ValueError("board file: die code %r is not 5 of + - 0" % code)
        if code[0] == "0":
            raise ValueError("board file: die code %r has no centre magnet" % code)
        value = piece(name)
        if value is None:
            raise ValueError("board file: die code %r: %r is no piece ('white 4', 'black blocker')" % (code, name))
        for k in _turns(code):
            if table[k] not in (UNSETTLED, value):
                raise ValueError("board file: die code %r is another code turned" % code)
            table[k] = value
    for code, name in codes.items():
        value = piece(name)
        for faded in _less(code, (), fading):
            if table[_turns(faded)[0]] not in (UNSETTLED, value):
                raise ValueError("board file: die code %r less its magnets of the other pole reads as another piece"
                                 % code)
        for i in range(SENSORS_PER_SQUARE):
            for c in "0+-":
                if c != code[i] and table[_turns(code[:i] + c + code[i + 1:])[0]] != UNSETTLED:
                    raise ValueError("board file: die code %r is one magnet from another piece, or empty" % code)
    return table


def _less(code, gone, fading=True):
    """`code` less the places `gone` and any (if `fading`) of its ring magnets of the other pole
    than its centre's, each way: what a die of it reads as while those fade."""
    other = [i for i in range(1, SENSORS_PER_SQUARE) if fading and code[i] not in ("0", code[0])]
    for lost in range(1 << len(other)):
        yield "".join("0" if i in gone or i in other and lost >> other.index(i) & 1 else code[i]
                      for i in range(SENSORS_PER_SQUARE))


def strict(codes, table):
    """The pieces (a tuple of values) whose code another code becomes by losing one ring magnet
    of its centre's pole, with any of its ring magnets of the other pole: a die with that magnet
    weak reads as one of them while it reads under gone_percent of the centre, its die fading
    (issue 40: each colour's blocker). So such a piece reads only while every ring place counted
    as none of its centre's pole reads under strict_gone_percent of the centre (Scanner._decode)."""
    out = ()
    for code, name in codes.items():
        value = piece(name)
        for k in range(1, SENSORS_PER_SQUARE):
            for faded in _less(code, (k,)) if code[k] == code[0] else ():
                v = table[_turns(faded)[0]]
                if v != UNSETTLED and v != value and v not in out:
                    out += (v,)
    return out


def _turns(code):
    """The reading keys of `code` in its four rotations."""
    trits = [TRITS[c] for c in code]
    ring = trits[1:]
    return [key([trits[0]] + ring[t:] + ring[:t]) for t in range(4)]


def checked(spec):
    """Raise ValueError naming the first field of `spec` that cannot be right (doce/board_check.py).
    The check runs once, at boot: on a board its module is let go after it, not kept in RAM."""
    import sys
    from . import board_check
    try:
        board_check.check(spec, SENSORS_PER_SQUARE)
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise ValueError("board file: missing or malformed field %s" % e)
    finally:
        if sys.implementation.name == "micropython":
            del sys.modules[board_check.__name__]
            del sys.modules[__name__.rpartition(".")[0]].board_check


class Board:
    """What the firmware needs from the board file, as flat tables."""

    def __init__(self, spec):
        checked(spec)
        self.name = spec["board"]
        self.grid = g = spec["grid"]
        self.squares = g * g
        self.pins = spec["pins"]
        s = spec["sensing"]
        self.groups = s["groups"]
        self.channels_per_group = s["channels_per_group"]
        self.channels = self.groups * self.channels_per_group
        self.power_on_us = s["power_on_us"]
        self.baseline = s["baseline"]
        self.absent_below = s["absent_below"]
        self.absent_opposite_below = s["absent_opposite_below"]
        self.fringe_percent = s["fringe_percent"]  # a weak opposite ring reading under this % of its centre's is none
        self.gone_percent = s["gone_percent"]  # a ring reading of the centre's sign is none only under this % too
        # and, for the pieces a die one magnet weak may fade into (strict()), under this % for the piece to read
        self.strict_gone_percent = s["strict_gone_percent"]
        # How far an empty sensor's baseline may sit from the board's median (calibration.py)
        self.baseline_spread = s["baseline_spread"]
        self.present_above = s["present_above"]
        # the dice check's: the least each place's magnet reads on a die built right (doce/dice.py), five
        # counts a code, the codes in sorted order, in one array (a dict of lists held ~0.6 KB more)
        self.check_above = array("H", [n for code in sorted(s["check_above"]) for n in s["check_above"][code]])
        self.debounce_scans = s["debounce_scans"]
        self.quiet_wait_scans = s["quiet_wait_scans"]
        self.scan_period_ms = s["scan_period_ms"]
        # after a quiet second (doce/esp32.py): every die landing then waits up to this long,
        # so it is part of the die-to-light time (make bench)
        self.idle_scan_period_ms = s["idle_scan_period_ms"]
        # square_channels[sq * 5 + i]: the channel of sensor i (C, N, E, S, W) of square sq;
        # square_of_channel[ch]: the square a channel's sensor is under (NO_SQUARE if none)
        self.square_channels = bytearray(self.squares * SENSORS_PER_SQUARE)
        self.square_of_channel = bytearray(self.channels)
        for ch in range(self.channels):
            self.square_of_channel[ch] = NO_SQUARE
        self.led_of_square = bytearray(self.squares)
        # groups_of_square[sq]: a bit per multiplexer group holding one of its sensors;
        # watch_groups: the groups holding a centre sensor, read at every scan
        self.groups_of_square = bytearray(self.squares)
        self.watch_groups = 0
        for name, channels in spec["squares"].items():
            sq = parse_square(g, name)
            for i in range(SENSORS_PER_SQUARE):
                self.square_channels[sq * SENSORS_PER_SQUARE + i] = channels[i]
                self.square_of_channel[channels[i]] = sq
                self.groups_of_square[sq] |= 1 << (channels[i] // self.channels_per_group)
            self.watch_groups |= 1 << (channels[0] // self.channels_per_group)
            self.led_of_square[sq] = spec["leds"]["squares"][name]
        self.all_groups = (1 << self.groups) - 1
        self.led_count = spec["leds"]["count"]
        self.turn_leds = (bytes(spec["leds"]["turn"]["white"]), bytes(spec["leds"]["turn"]["black"]))
        self.dice = spec["dice"]
        self.decode = decode_table(self.dice)
        self.strict = strict(self.dice, self.decode)
        p = spec["power"]
        self.brightness_cap = self.brightness_cap_usb = p["brightness_cap"]  # the LEDs' cap now, and on USB alone
        self.brightness_cap_wifi = p["brightness_cap_wifi"]  # while the radio is on (doce/net.py)
        # revision B: the USB-C input's CC thresholds (doce/supply.py), or None on a board without one
        self.supply_cc_counts = tuple(p["supply_cc_counts"]) if "supply_cc" in self.pins else None


def load_spec(path="board.json"):
    with open(path) as f:
        return json.load(f)


def load(path="board.json"):
    return Board(load_spec(path))
