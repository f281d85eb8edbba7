"""Many squares read at once, as their boards read them: the parts of each board drawn
within board.json's tolerances, the fields of the dice on and around each square, and
`read_u16` counts from each square's baseline, read after read with fresh noise.

One row is one square (its five sensors C, N, E, S, W) on a board of its own:

- the plate under it (floor, air gap: one for the square) and each sensor's depth, part
  (quiescent voltage, sensitivity) and supply drop (its group's switch and its tracks), the board's 3.3 V rail
  (its regulator's tolerance, rail.supply) and its ESP32 (Vref, INL);
- its baseline: calibrated (the mean of 32 reads of the empty square, calibration.measure,
  each read as `read` reads, with its noise and supply; a board out of the box takes the same
  at its first empty board, doce/app.py), or never calibrated (one median for the whole
  board: calibration.Calibration.centre, here the median of the square's five and 120 more
  sensors drawn for the same board; the firmware reads no piece on it, only the empty board);
- its gain: the firmware scales its thresholds by the board's median empty reading over
  `sensing.baseline` (calibration.scaled), so a read here is divided by that ratio and
  compared with the board file's thresholds (the same within a count); the scanner's
  HOLD_BETWEEN band is not scaled, so here it is HOLD_BETWEEN / gain (decode.Reader.classes);
- each read: the supply its group has then (rail.py: the regulator's load regulation,
  what is left of the switch-on dip), the sensor's output noise, and the ADC's noise.
"""

from copy import copy
from dataclasses import replace

import numpy as np

from . import dice, rail, readout
from .tolerances import Spread

RING = np.array([(0, 0), (0, 1), (1, 0), (0, -1), (-1, 0)], float)
OTHERS = 120  # the board's other sensors, for its median
CALIBRATION_READS = 32  # App.calibrate's scans (firmware/doce/app.py)
READS_AT_ONCE = 4096  # squares x reads of calibration read by one call (its arrays a few MB)


class Boards:
    def __init__(self, physics, n, rng, reference, calibrated=True, power_on_us=400, pins=None, one_noise=False):
        """`reference`: board.json sensing.baseline, the median empty reading at which the
        board file's thresholds apply as they stand; `pins`: tolerances pinned by name, each
        a fraction broadcast to its draw's shape (tolerances.py). `one_noise`: the rows are one
        board at different tolerances (search.built), so the noise of calibrating (each read's,
        the board's other sensors' means) is one draw shared by every row, from a generator of
        its own: a row's baseline then depends on its pins alone, not on its place in the batch
        or the batch's size (issue 40: a search's objective must not be noisy)."""
        ph = self.physics = physics
        self.power_on_us = power_on_us
        self.n, self.rng = n, rng
        draw = Spread(rng, pins)
        depth = (_spread(draw, ph["floor_mm"], (n, 1), "floor") + _spread(draw, ph["air_mm"], (n, 5), "air")
                 + _spread(draw, ph["sensor"]["hall_depth_mm"], (n, 5), "hall depth"))
        xy = np.broadcast_to(RING * ph["ring_mm"], (n, 5, 2))
        self.sensors = np.concatenate([xy, -depth[:, :, None]], axis=2)
        self.parts = readout.Parts.draw(ph, (n, 5), draw, chips=(n, 1))
        self.drop = draw.uniform(0, rail.sensor_drop(ph), (n, 5), name="switch drop")  # its switch and tracks
        self.rail = rail.supply(ph, draw, (n, 1))  # the board's regulator
        self.parts.supply = self.rail - self.drop
        empty = readout.counts(np.zeros((n, 5)), self.parts, ph)
        sigma = _noise_sigma(ph)
        board_rng = draw.spawn(1)[0]  # the rest of the board, for its median: leaves rng's own draws as they were
        # each draw of noise is (rows, ...), broadcast over the n rows
        noise_rng, rows = (Spread.of(rng).rng.spawn(1)[0], 1) if one_noise else (rng, n)
        others = readout.Parts.draw(ph, (n, OTHERS), board_rng, prefix="board ")
        others.vref, others.inl = self.parts.vref, self.parts.inl
        others.supply = self.rail - board_rng.uniform(0, rail.sensor_drop(ph), (n, OTHERS),
                                                                      name="board switch drop")
        others = readout.counts(np.zeros((n, OTHERS)), others, ph)
        self.gain = np.ones((n, 1))  # calibrating reads raw counts
        if calibrated:  # calibration.measure: the floor of the mean of `CALIBRATION_READS` reads
            self.baseline = np.zeros((n, 5), np.int64)
            self.baseline = self._calibration_total(noise_rng, (rows, 5)) // CALIBRATION_READS
            means_rng = noise_rng if one_noise else board_rng
            means = others + np.rint(means_rng.normal(0, sigma / np.sqrt(CALIBRATION_READS), (rows, OTHERS)))
            board = np.concatenate([self.baseline, means], axis=1)  # every sensor's 32-read mean
            middle = np.median(board, axis=1, keepdims=True)
        else:
            board = np.concatenate([empty, others], axis=1)
            board = board + np.rint(noise_rng.normal(0, sigma, (rows, board.shape[1])))  # one read of each, at boot
            self.baseline = middle = np.median(board, axis=1, keepdims=True)
        self.gain = middle / reference
        self.calibrated = calibrated

    def take(self, rows):
        """These boards' rows `rows` (indices, repeats allowed) as boards of their own: a row
        taken is the row it was, its parts, baseline and gain as they are (search.built builds
        a board once for the rows that pin it alike)."""
        out = copy(self)
        out.n = len(rows)
        out.sensors, out.drop, out.rail, out.baseline, out.gain = (
            np.asarray(a)[rows] for a in (self.sensors, self.drop, self.rail, self.baseline, self.gain))
        out.parts = self.parts.rows(rows)
        return out

    def read(self, bz, rows=None, noise=True):
        """Counts from the baseline for fields `bz` (m, 5) mT on rows `rows` (default all):
        one read each, with this read's supply and noise (noise=False: the mean reading)."""
        rows = np.arange(self.n) if rows is None else rows
        parts = self.parts.rows(rows)
        c = self._noisy(bz, parts, self.rng, bz.shape) if noise else readout.counts(bz, parts, self.physics)
        return (c - self.baseline[rows]) / self.gain[rows]

    def _calibration_total(self, rng, shape):
        """The sum of CALIBRATION_READS reads of the empty square by _noisy, each with its own
        noise drawn from `rng` at `shape` in _noisy's order, read by the ADC many at a time
        (the reads on a leading axis: every step is elementwise, the counts are the same)."""
        ph, n = self.physics, self.n
        per = max(1, min(CALIBRATION_READS, READS_AT_ONCE // n))
        total = np.zeros((n, 5), np.int64)
        for first in range(0, CALIBRATION_READS, per):
            drift, volts, adc = [], [], []
            for _ in range(min(per, CALIBRATION_READS - first)):
                drift.append(rng.uniform(-1, 1, shape) * rail.drift(ph) - rail.left_at_read(ph, self.power_on_us))
                volts.append(readout.noise_volts(ph, shape, rng))
                adc.append(adc_noise(ph, shape, rng))
            parts = replace(self.parts, supply=self.parts.supply + np.array(drift))
            reads = readout.counts(np.zeros((n, 5)), parts, ph, np.array(volts)) + np.array(adc)
            total += reads.sum(0)
        return total

    def _noisy(self, bz, parts, rng, shape):
        """Counts of one read of fields `bz` by `parts`, its supply's drift and its noise drawn
        from `rng` at `shape` (bz's, or one row of it shared by every row)."""
        ph = self.physics
        drift = rng.uniform(-1, 1, shape) * rail.drift(ph) - rail.left_at_read(ph, self.power_on_us)
        parts = replace(parts, supply=parts.supply + drift)
        return readout.counts(bz, parts, ph, readout.noise_volts(ph, shape, rng)) + adc_noise(ph, shape, rng)


class Fields:
    """Magnet-sensor pairs of many placements, summed per row by one call: every magnet of
    every face of every die, its own and its neighbours', as the cylinder it is (issue 40: the
    model cannot be kinder than the physics; a side face's magnet 4 mm over the floor is 2.3
    diameters from the ring sensor under it, nearer than the three where a dipole keeps to 2 %)."""

    def __init__(self):
        self.pairs = []  # (row index per magnet, at, axis, polarisation, size, sensors)

    def add(self, rows, die, poses, sensors, centre=(0.0, 0.0)):
        """Die `die` = (Magnets, side) in `poses` (one per row of `rows`), read by `sensors`
        (len(rows), 5, 3)."""
        magnets, side = die
        at, axis = dice.place_many(magnets, side, poses, centre)
        m = len(magnets)
        obs = np.repeat(sensors, m, axis=0)
        pol, size = np.tile(magnets.polarisation, len(poses)), np.tile(magnets.size, (len(poses), 1))
        self.pairs.append((np.repeat(np.asarray(rows), m), at, axis, pol, size, obs))

    def add_each(self, rows, dice_list, poses, sensors):
        """add() for rows each of its own die (dice of as many magnets): one pose and one
        sensors (5, 3) per row."""
        rows = np.asarray(rows)
        counts = np.array([len(d[0]) for d in dice_list])
        for m in np.unique(counts):
            k = np.flatnonzero(counts == m)
            at, axis = dice.place_each([dice_list[i] for i in k], [poses[i] for i in k])
            pol = np.concatenate([dice_list[i][0].polarisation for i in k])
            size = np.concatenate([dice_list[i][0].size for i in k])
            self.pairs.append((np.repeat(rows[k], m), at, axis, pol, size, np.repeat(sensors[k], m, axis=0)))

    def total(self, n):
        out = np.zeros((n, 5))
        if self.pairs:
            row, at, axis, pol, size, obs = (np.concatenate(x) for x in zip(*self.pairs))
            np.add.at(out, row, dice.bz_pairs(at, axis, pol, size, obs))
        return out


def adc_noise(physics, shape, rng):
    """Each read's noise as the simulated device draws it: triangular within +-noise_counts."""
    peak = physics["adc"]["noise_counts"]
    return np.rint((rng.uniform(-peak, peak, shape) + rng.uniform(-peak, peak, shape)) / 2).astype(np.int64)


def _noise_sigma(physics):
    return physics["adc"]["noise_counts"] / np.sqrt(6)  # of the triangular spread above


def _spread(draw, nominal_tol, shape, name):
    nominal, tol = nominal_tol
    return nominal + draw.uniform(-tol, tol, shape, name=name)
