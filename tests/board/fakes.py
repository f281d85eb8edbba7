"""Fake hardware for firmware tests under CPython: a HallArray-like sensor array with a
chip's ADC offset and each sensor's own quiescent offset, and an App built on it.

Spreads (see firmware/doce/calibration.py for their sources): the ESP32's ADC reads
half the supply at 27,460-32,950 counts (a common offset of -5,300..+180 from 32768);
each DRV5055's quiescent output is within +-59 mV of VCC/2, up to +-1,300 counts.
"""

import json
import random
from array import array

from doce.app import App
from doce.board import SENSORS_PER_SQUARE, TRITS, Board, decode_table, strict
from doce_host import rules
from doce_host.paths import BOARD_FILE

SENSOR_SPREAD = 1300  # counts: DRV5055 VQ +-59 mV at up to 21,840 counts/V
SIGNAL = 20000  # counts: a seated magnet reads 20,000-27,000 from its sensor's zero in the
                # magnetic model (doce_host.sim.hands.Hands, any seed)
SIGN = (0, 1, -1)


def board(dice=None, fading=True, **sensing):
    """The board file, with another die code table or sensing values if given (not
    `fading`: a made-up table the loader would refuse, as doce.board.decode_table)."""
    spec = json.loads(BOARD_FILE.read_text())
    spec["sensing"].update(sensing)
    b = Board(spec)
    if dice:
        b.dice, b.decode = dice, decode_table(dice, fading)
        b.strict = strict(dice, b.decode)
        b.check_above = None  # the board file's bands are for its own codes: a made-up table is judged by its trits
    return b


def turned(code, turn):
    """A code's trits C, N, E, S, W with its ring turned `turn` quarter turns."""
    trits = [TRITS[c] for c in code]
    ring = trits[1:]
    return [trits[0]] + ring[turn % 4:] + ring[:turn % 4]


def code_of(b, name):
    """The die code of a piece, from the board file (never written out in a test)."""
    return next(code for code, piece in b.dice.items() if piece == name)


class FakeSensors:
    """What HallArray.read returns: every sensor's reading, here made of a common ADC
    offset, the sensor's own offset, a field and noise."""

    def __init__(self, b, offset=0, spread=SENSOR_SPREAD, noise=250, seed=1):
        self.board = b
        self.rng = random.Random(seed)
        self.noise = noise
        self.quiescent = [b.baseline + offset + self.rng.randint(-spread, spread) for _ in range(b.channels)]
        self.field = [0] * b.channels
        self.signal = SIGNAL  # what a magnet placed reads, unless said
        self.stuck = {}  # channel -> a reading it gives whatever happens
        self.raw = array("H", [0] * b.channels)

    def read(self, groups=0xFFFF, masks=None):
        for ch in range(self.board.channels):
            if groups >> (ch // self.board.channels_per_group) & 1:
                v = self.stuck.get(ch)
                if v is None:
                    v = self.quiescent[ch] + self.field[ch] + self.rng.randint(-self.noise, self.noise)
                self.raw[ch] = max(0, min(65535, v))
        return self.raw

    def channels(self, cell):
        from doce.squares import parse_square
        sq = parse_square(self.board.grid, cell)
        return [self.board.square_channels[sq * SENSORS_PER_SQUARE + i] for i in range(SENSORS_PER_SQUARE)]

    def put(self, cell, code, turn=0, signal=None):
        """Magnets on `cell` as a code of + - 0 (C, N, E, S, W), turned `turn` quarter turns."""
        signal = self.signal if signal is None else signal
        for ch, t in zip(self.channels(cell), turned(code, turn)):
            self.field[ch] = SIGN[t] * signal

    def place(self, cell, name, turn=0, signal=None):
        self.put(cell, code_of(self.board, name), turn, signal)

    def lift(self, cell):
        self.put(cell, "00000")


class Strip(list):
    def __init__(self, n):
        super().__init__([(0, 0, 0)] * n)
        self.writes = 0

    def write(self):
        self.writes += 1


TICKS_PERIOD = 2 ** 30  # time.ticks_ms wraps there on an ESP32 (doce/ticks.py)


class Rig:
    """The App on fake sensors, stepped one scan at a time on a simulated clock."""

    def __init__(self, folder, sensors):
        self.sensors = sensors
        self.events = []
        self.strip = Strip(sensors.board.led_count)
        self.now = 0
        self.app = App(sensors.board, sensors, self.strip, self.strip.write, rules.load_tables("standard"),
                       self.events.append, journal_path=str(folder / "journal"),
                       calibration_path=str(folder / "calibration.bin"), rules_path=str(folder / "rules.doct"))

    def run(self, scans=1):
        for _ in range(scans):
            self.now = (self.now + self.sensors.board.scan_period_ms) % TICKS_PERIOD  # it wraps, as on an ESP32
            self.app.step(self.now)

    def settle(self):
        self.run(self.sensors.board.quiet_wait_scans + 2 * self.sensors.board.debounce_scans)

    def take(self, kind=None):
        taken, self.events[:] = self.events[:], []
        return [e for e in taken if kind is None or e["event"] == kind]

    def led(self, cell):
        from doce.squares import parse_square
        return self.strip[self.sensors.board.led_of_square[parse_square(self.sensors.board.grid, cell)]]
