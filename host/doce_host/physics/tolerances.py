"""Where each part falls within its tolerance: drawn at random, or pinned.

dice.build, readout.Parts.draw and reading.Boards draw every toleranced value through a
Spread by name (the names below). Unpinned, a value is drawn from the generator as before
(or is the middle of its range without one); pinned, it is that fraction of its range
(0: low end, 1: high end), and the generator still draws it, so every other draw stays
as it was. A test pins a corner; search.py searches the fractions.

    die side                          the die's edge (die_mm)
    ("glue", pips)                    the quarter turn a face's code is glued at (pinned as 0-3, not a fraction)
    ("remanence", pips, k)            a magnet's Br: the face with `pips`, code position k (C N E S W)
    ("diameter" | "height", pips, k)  its size (size_tol_mm)
    ("recess", pips, k)               its face's depth below the die's (face_recess_mm: set flush, glue behind)
    ("slip", pips, k)                 its place on the face (place_tol_mm): (along the code's N, along E)
    ("play", pips, k)                 its play in a wider hole: the same two
    floor                             each square's plate, shape (n, 1)
    air                               each sensor's air gap under it (its package's height and solder), (n, 5)
    hall depth                        each sensor's hall element under its package top, (n, 5)
    quiescent, sensitivity            each sensor's part (n, 5)
    switch drop                       its supply's drop: its group's switch and its tracks (rail.sensor_drop), (n, 5)
    vref                              each square's ESP32 (n, 1)
    inl                               its INL at each of readout.INL_KNOTS codes (n, 1, INL_KNOTS)
    supply                            each square's board's 3.3 V rail (n, 1)
    board quiescent, board sensitivity, board switch drop
                                      the board's other sensors, for its median (n, OTHERS)
"""

import numpy as np


class Spread:
    """A generator (or None: the middle of every range) whose `uniform` draws can be pinned
    by name: pins {name: fraction of the range, broadcast to the draw's shape}."""

    def __init__(self, rng=None, pins=None):
        self.rng, self.pins = rng, dict(pins or {})

    @classmethod
    def of(cls, rng):
        return rng if isinstance(rng, cls) else cls(rng)

    def uniform(self, low, high, size=None, name=None):
        drawn = None if self.rng is None else self.rng.uniform(low, high, size)
        pin = self.pins.get(name)
        if pin is None:
            return drawn if drawn is not None else _fill((low + high) / 2, size)
        return _fill(low + np.asarray(pin, float) * (high - low), size)

    def integers(self, n, name=None):
        drawn = 0 if self.rng is None else self.rng.integers(n)
        pin = self.pins.get(name)
        if pin is None:
            return drawn
        return int(pin) % n if np.ndim(pin) == 0 else np.asarray(pin).astype(int) % n  # one per die

    def spawn(self, n):
        return [Spread(r, self.pins) for r in self.rng.spawn(n)]

    def __getattr__(self, attr):  # normal, random...: the generator's own
        return getattr(self.rng, attr)


def _fill(value, size):
    """`value` at the draw's `size`; a pin with more axes than that (dice.build_many's, one value
    per die on its last axis) keeps them."""
    if size is None:
        return float(value) if np.ndim(value) == 0 else value
    shape = (size,) if np.ndim(size) == 0 else tuple(size)
    return np.broadcast_to(value, shape + np.shape(value)[len(shape):]).astype(float)
