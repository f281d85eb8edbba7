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
"""

import json

from .game import EMPTY
from .squares import parse_square, piece, square_name

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
        other = [i for i in range(1, SENSORS_PER_SQUARE) if fading and code[i] not in ("0", code[0])]
        for lost in range(1, 1 << len(other)):
            faded = "".join("0" if i in other and lost >> other.index(i) & 1 else code[i]
                            for i in range(SENSORS_PER_SQUARE))
            if table[_turns(faded)[0]] not in (UNSETTLED, value):
                raise ValueError("board file: die code %r less its magnets of the other pole reads as another piece"
                                 % code)
        for i in range(SENSORS_PER_SQUARE):
            for c in "0+-":
                if c != code[i] and table[_turns(code[:i] + c + code[i + 1:])[0]] != UNSETTLED:
                    raise ValueError("board file: die code %r is one magnet from another piece, or empty" % code)
    return table


def _turns(code):
    """The reading keys of `code` in its four rotations."""
    trits = [TRITS[c] for c in code]
    ring = trits[1:]
    return [key([trits[0]] + ring[t:] + ring[:t]) for t in range(4)]


# The ESP32's GPIOs (ESP32 Series datasheet, "Pin Definitions"; hardware/README.md, "ESP32 pin map"):
# 0-39 but 20, 24 and 28-31; 34-39 are inputs only, without pull-ups; ADC1 (32-39) is the ADC that
# works with Wi-Fi on. None the module already uses (6-11 its flash, 16 and 17 the WROVER's PSRAM,
# 1 and 3 the USB serial) nor that decides how the chip boots (strapping pins 0, 2, 5, 12, 15).
NO_GPIO = (20, 24, 28, 29, 30, 31)
TAKEN_GPIO = (0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17)
ADC1 = (32, 39)
PINS = ("sensor_adc", "mux_select", "group_select", "group_enable", "leds", "button")


def need(ok, field, why):
    if not ok:
        raise ValueError("board file: %s: %s" % (field, why))


def whole(value, low, high):
    """An int from low to high (JSON's true and 1.0 are not)."""
    return type(value) is int and low <= value <= high


def check_pins(pins):
    """Every pins.* a GPIO a DOCE board can use, and as it is used: machine.Pin takes any number,
    and a board given another would not boot, or would read and light nothing."""
    need(type(pins) is dict and all(name in pins for name in PINS), "pins", "an object naming " + ", ".join(PINS))
    used = []
    for name in sorted(pins):
        value = pins[name]
        numbers = value if type(value) is list and value else [value]
        for n in numbers:
            field = "pins." + name
            need(whole(n, 0, 39) and n not in NO_GPIO, field, "%r is no ESP32 GPIO (0-39, no 20, 24 or 28-31)" % (n,))
            need(n not in TAKEN_GPIO, field, "GPIO %d is the module's own (its flash, PSRAM, USB serial) or decides "
                                             "how the chip boots" % n)
            if name == "sensor_adc":
                need(ADC1[0] <= n <= ADC1[1], field, "GPIO %d is not on ADC1 (GPIO 32-39), the ADC that works with "
                                                     "Wi-Fi on" % n)
            else:
                need(n < 34, field, "GPIO %d is an input without pull-up: it can drive nothing, nor read a button" % n)
            used.append(n)
    need(len(set(used)) == len(used), "pins", "no GPIO used twice")
    need(type(pins["mux_select"]) is list and len(pins["mux_select"]) == 4, "pins.mux_select",
         "the 4 multiplexer select pins")
    need(type(pins["group_select"]) is list and len(pins["group_select"]) >= 1, "pins.group_select",
         "a list of the group select pins")


def check(spec):
    """Raise ValueError naming the first field of a board file that cannot be right (KeyError or
    TypeError for one missing or of another type than its neighbours')."""
    need(type(spec) is dict, "the file", "a JSON object")
    name = spec["board"]
    need(type(name) is str and 0 < len(name) <= 64 and all(" " <= c != "\x7f" for c in name), "board",
         "the board's name: 1 to 64 characters, none a control character")
    g = spec["grid"]
    s = spec["sensing"]
    need(whole(g, 2, 15), "grid", "2 to 15 squares a side")
    for field in ("groups", "channels_per_group", "debounce_scans", "quiet_wait_scans", "absent_below",
                  "absent_opposite_below", "present_above", "baseline_spread"):
        need(whole(s[field], 0, 65535), "sensing." + field, "a whole number")
    need(whole(s["power_on_us"], 0, 100000), "sensing.power_on_us", "the sensors' power-on wait, 0 to 100000 us")
    need(whole(s["baseline"], 1, 65535), "sensing.baseline", "an empty sensor's reading, 1 to 65535")
    need(whole(s["scan_period_ms"], 1, 1000), "sensing.scan_period_ms", "1 to 1000 ms")
    need(whole(s["idle_scan_period_ms"], s["scan_period_ms"], 1000), "sensing.idle_scan_period_ms",
         "scan_period_ms to 1000 ms")
    check_pins(spec["pins"])
    need(s["channels_per_group"] == 16, "sensing.channels_per_group", "16, read through 4 select pins")
    need(1 <= s["groups"] <= min(8, 1 << len(spec["pins"]["group_select"])), "sensing.groups",
         "1 to 8, and no more than the group select pins can pick")
    need(1 <= s["debounce_scans"] <= s["quiet_wait_scans"] <= 255, "sensing.debounce_scans",
         "1 to 255, and no more than quiet_wait_scans (at most 255)")
    need(0 < s["absent_below"] <= s["absent_opposite_below"] < s["present_above"], "sensing.absent_opposite_below",
         "at least absent_below and below present_above")
    need(type(s["fringe_percent"]) is int and 0 < s["fringe_percent"] < 100, "sensing.fringe_percent",
         "a whole percent of the centre's reading, 1 to 99")
    # above absent_below over present_above, a magnet fading with a just-present centre would
    # still count as gone under absent_below: the rule would never apply
    need(type(s["gone_percent"]) is int and 0 < s["gone_percent"] * s["present_above"] < s["absent_below"] * 100,
         "sensing.gone_percent", "a whole percent of the centre's reading, above 0 and below absent_below's "
         "percent of present_above")
    dice = spec["dice"]
    need(type(dice) is dict and sorted(dice.values()) == sorted(
        "%s %s" % (c, f) for c in ("white", "black") for f in ("1", "2", "3", "4", "5", "6", "blocker")),
        "dice", "one code for each of the 14 pieces: white 1 to 6, black 1 to 6 and each blocker")
    need(0 < s["baseline_spread"] < s["present_above"], "sensing.baseline_spread",
         "above 0 and below present_above, or a die left on a square would calibrate away")
    names = [square_name(g, sq) for sq in range(g * g)]
    for field in ("squares", "leds.squares"):
        table = spec["squares"] if field == "squares" else spec["leds"]["squares"]
        need(sorted(table) == sorted(names), field,
             "one entry for each of %s..%s, no more" % (names[0], names[-1]))
    channels = [ch for name in names for ch in spec["squares"][name]]
    need(all(len(spec["squares"][n]) == SENSORS_PER_SQUARE for n in names), "squares",
         "five channels for each square: C, N, E, S, W")
    need(all(0 <= ch < s["groups"] * 16 for ch in channels) and len(set(channels)) == len(channels),
         "squares", "every channel on a multiplexer input, and none used twice")
    need(whole(spec["leds"]["count"], 1, 1024), "leds.count", "1 to 1024 LEDs")
    turn = spec["leds"]["turn"]
    need(type(turn["white"]) is list and type(turn["black"]) is list, "leds.turn", "a list of LEDs for each side")
    leds = list(spec["leds"]["squares"].values()) + turn["white"] + turn["black"]
    need(all(whole(i, 0, spec["leds"]["count"] - 1) for i in leds) and len(set(leds)) == len(leds),
         "leds", "every LED index below leds.count, and none used twice")
    for field in ("brightness_cap", "brightness_cap_wifi"):
        cap = spec["power"][field]
        need(type(cap) in (int, float) and 0 < cap <= 1, "power." + field, "above 0, at most 1")


class Board:
    """What the firmware needs from the board file, as flat tables."""

    def __init__(self, spec):
        try:
            check(spec)
        except (KeyError, TypeError, IndexError, AttributeError) as e:
            raise ValueError("board file: missing or malformed field %s" % e)
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
        # How far an empty sensor's baseline may sit from the board's median (calibration.py)
        self.baseline_spread = s["baseline_spread"]
        self.present_above = s["present_above"]
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
        p = spec["power"]
        self.brightness_cap = p["brightness_cap"]


def load_spec(path="board.json"):
    with open(path) as f:
        return json.load(f)


def load(path="board.json"):
    return Board(load_spec(path))
