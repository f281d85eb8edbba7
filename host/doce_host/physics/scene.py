"""The dice on a board, each in its own pose, and what every sensor channel reads.

The simulator keeps one Scene per board. A hand changes a pose; `levels()` gives every
channel's mean `read_u16` (the device adds each read's noise). Each die's field at every
sensor is computed once per pose and cached, so a scene of 25 dice costs a sum.
"""

import zlib

import numpy as np
from doce.game import face, is_blocker
from doce.squares import parse_square
from doce.squares import piece as piece_value

from . import dice, rail, readout

RING = ((0, 0), (0, 1), (1, 0), (0, -1), (-1, 0))  # C, N, E, S, W as (x, y) steps


def sensor_positions(spec):
    """(channels, 3) where each channel's hall element sits (NaN for inputs with no sensor),
    for the nominal plate; squares from a1 at the origin, a..e along +x, 1..5 along +y."""
    ph = spec["physics"]
    depth = ph["floor_mm"][0] + ph["air_mm"][0] + ph["sensor"]["hall_depth_mm"][0]
    channels = spec["sensing"]["groups"] * spec["sensing"]["channels_per_group"]
    at = np.full((channels, 3), np.nan)
    for name, chans in spec["squares"].items():
        cx, cy = square_centre(spec, name)
        for (sx, sy), ch in zip(RING, chans):
            at[ch] = (cx + sx * ph["ring_mm"], cy + sy * ph["ring_mm"], -depth)
    return at


def square_centre(spec, name):
    pitch, sq = spec["physics"]["square_mm"], parse_square(spec["grid"], name)
    return sq % spec["grid"] * pitch, sq // spec["grid"] * pitch


def well_limits(physics):
    """(offset, turn): how far a die seated in its well can sit off centre (mm) and turn
    (degrees), at the loosest die and well the tolerances allow."""
    die = physics["die_mm"][0] - physics["die_mm"][1]
    well = physics["well_mm"][0] + physics["well_mm"][1]
    # a square of side a turned by t spans a(cos t + sin t)
    turn = np.degrees(np.arcsin(well / (die * np.sqrt(2))) - np.pi / 4)
    return (well - die) / 2, float(turn)


class Scene:
    def __init__(self, spec, seed=1):
        """seed=None: every part nominal. Otherwise the board's sensors and ADC, and each
        die's magnets, are drawn within their tolerances (repeatably, from `seed`)."""
        self.spec = spec
        self.physics = spec["physics"]
        self.sensors = sensor_positions(spec)
        self.present = ~np.isnan(self.sensors[:, 0])
        rng = np.random.default_rng(seed) if seed is not None else None
        n = int(self.present.sum())
        self.parts = readout.Parts.draw(self.physics, n, rng) if rng else readout.Parts.nominal(self.physics, n)
        if rng:  # each sensor's supply below the rail: its switch and its tracks (rail.py), from a generator
            # of its own, so the draws above stay as they were
            drop = np.random.default_rng([seed, 2]).uniform(0, rail.sensor_drop(self.physics), n)
            self.parts.supply = self.parts.supply - drop
        self.seed = seed
        self.jitter = np.random.default_rng(None if seed is None else seed + 1)
        self.dice = {}  # square name -> (piece, Pose)
        self.held = {}  # square name -> (piece, Pose): a die in a hand above a square, not on it
        self.broken = {}  # channel -> the volts a failed sensor's output is stuck at
        self._built = {}  # 'white 1' (any white die) or 'white blocker' -> (Magnets, side)
        self._cache = {}  # (piece, pose, square) -> field at every sensor

    # -- what is where ------------------------------------------------------------------

    def seated(self, square, piece, turn=0, down=None):
        """A die put into its well by hand: `turn` quarter turns, and wherever in the well
        the hand left it (drawn within the well's play)."""
        offset, twist = well_limits(self.physics)
        dx, dy = self.jitter.uniform(-offset, offset, 2)
        return dice.Pose(down=down or face_down(piece), turn=90 * turn + self.jitter.uniform(-twist, twist),
                         dx=round(float(dx), 2), dy=round(float(dy), 2))

    def put(self, square, piece, pose):
        self.dice[square] = (piece, pose)

    def remove(self, square):
        self.dice.pop(square, None)

    def hold(self, square, piece, pose):
        self.held[square] = (piece, pose)

    def let_go(self):
        self.held = {}

    # -- what the sensors read ----------------------------------------------------------

    def field(self):
        """mT at every channel with a sensor, from every die on or above the board."""
        total = np.zeros(int(self.present.sum()))
        for square, (piece, pose) in list(self.dice.items()) + list(self.held.items()):
            total += self._die_field(square, piece, pose)
        return total

    def levels(self):
        """Every channel's noiseless `read_u16` (0 where no sensor is wired)."""
        out = np.zeros(len(self.sensors), dtype=np.int64)
        out[self.present] = readout.counts(self.field(), self.parts, self.physics)
        for ch, volts in self.broken.items():
            out[ch] = readout.u16(readout.raw(np.array([volts]), self.parts, self.physics))[0]
        return [int(v) for v in out]

    def _die_field(self, square, piece, pose):
        key = (square, piece, pose)
        if key not in self._cache:
            kind = piece if piece.endswith("blocker") else piece.split()[0] + " 1"  # a die has every face
            if kind not in self._built:
                rng = None if self.seed is None else np.random.default_rng([self.seed, zlib.crc32(kind.encode())])
                self._built[kind] = dice.build(kind, self.spec["dice"], self.physics, rng,
                                               hole=self.spec["mechanics"]["jig"]["drill_mm"])
            magnets, side = self._built[kind]
            at, axis = dice.place(magnets, side, pose, square_centre(self.spec, square))
            if len(self._cache) > 2000:
                self._cache.clear()
            self._cache[key] = dice.bz(at, axis, magnets.polarisation, magnets.size, self.sensors[self.present])
        return self._cache[key]


def face_down(piece):
    """The pips on the face down for a piece named by its face up (a blocker: any face)."""
    value = piece_value(piece)
    return 6 if is_blocker(value) else 7 - face(value)
