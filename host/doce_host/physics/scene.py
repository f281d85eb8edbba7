"""The dice on a board, each in its own pose, and what every sensor channel reads.

The simulator keeps one Scene per board. A hand changes a pose; `levels()` gives every
channel's mean `read_u16` (the device adds each read's noise). Each die's field at every
sensor is computed once per pose and cached, so a scene of 25 dice costs a sum.
"""

import zlib

import numpy as np
from . import dice, rail, readout
from .geometry import face_down, sensor_places, square_centre, well_limits

__all__ = ["Scene", "face_down", "sensor_positions", "square_centre", "well_limits"]

def sensor_positions(spec):
    """(channels, 3) where each channel's hall element sits (NaN for inputs with no sensor),
    for the nominal plate (geometry.sensor_places)."""
    return np.array([p or (np.nan,) * 3 for p in sensor_places(spec)], float)


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

