"""`make physics`: the die code and the board, tried on placements drawn within every tolerance.

    python -m doce_host.physics.campaign [--placements N] [--seed S]

Each placement draws a board (its five sensors under the square, its ADC, the plate and
the sensors' depth), a die (each magnet's strength, size, depth and place; each face's
code glued at any quarter turn) and the die's pose, all within board.json's tolerances,
with neighbours in some of the eight squares around. The square is read as the firmware
reads it, `debounce_scans` times with fresh noise, against a calibrated baseline, through
the firmware's own decode table (doce.board). Cases:

    seated       in its well, anywhere the well lets it be           expect the piece
    crowded      the same, with all eight neighbours occupied        expect the piece
    empty        nothing on the square, all eight neighbours         expect empty
    tilted       jammed in its well up to 2 degrees, or 3-45 degrees on the rim   the piece, empty or unsettled
    lifted       held 0.2-15 mm above its well                       the piece, empty or unsettled
    sliding      carried over the plate, 2-25 mm off centre          the piece, empty or unsettled
    outside      turned 45 degrees or 3 mm off centre: on the well's rim    the piece, empty or unsettled
    misbuilt     one magnet of the face down missing, reversed or extra   unsettled, always

A placement is right, unsettled, or wrong (another piece, or empty under a seated die).
"""

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import replace

import numpy as np

from doce.board import BETWEEN, EMPTY, UNSETTLED, Board
from doce.squares import piece as piece_value

from ..paths import BOARD_FILE
from . import dice, readout
from .scene import face_down, well_limits

CASES = (("seated", 0.40), ("crowded", 0.15), ("empty", 0.08), ("tilted", 0.08), ("lifted", 0.08),
         ("sliding", 0.07), ("outside", 0.04), ("misbuilt", 0.10))
MUST_READ = ("seated", "crowded")  # a die at rest in its well: R >= 99% is the goal here
NEIGHBOURS = [(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1) if i or j]
SENSOR_ANGLE = (None, 90, 0, 270, 180)  # N, E, S, W, degrees from +x
RING_ANGLE = (90, 0, 270, 180)  # a code's N, E, S, W on a seated face before it turns
POOL = 48  # dice built per kind, each within tolerance; placements draw from them


class Campaign:
    def __init__(self, spec, seed=0):
        self.spec = spec
        self.ph = spec["physics"]
        self.board = Board(spec)
        self.rng = np.random.default_rng(seed)
        self.pieces = sorted(spec["dice"].values())
        self.codes = dice.codes_by_piece(spec["dice"])
        self.kinds = ["white 1", "black 1", "white blocker", "black blocker"]
        self.pool = {kind: [dice.build(kind, spec["dice"], self.ph, self.rng) for _ in range(POOL)]
                     for kind in self.kinds}
        self.offset, self.twist = well_limits(self.ph)
        s = spec["sensing"]
        self.absent, self.present, self.reads = s["absent_below"], s["present_above"], s["debounce_scans"]
        self.per_mT = readout.counts_per_mT(self.ph)
        self.tally = {case: Counter() for case, _ in CASES}
        self.margin = (np.inf, None)  # smallest (mT, case) between a reading and its threshold

    # -- drawing placements -------------------------------------------------------------

    def _kind(self, piece):
        return piece if piece.endswith("blocker") else piece.split()[0] + " 1"

    def _seated(self, piece):
        dx, dy = self.rng.uniform(-self.offset, self.offset, 2)
        turn = 90 * self.rng.integers(4) + self.rng.uniform(-self.twist, self.twist)
        return dice.Pose(down=face_down(piece), turn=turn, dx=dx, dy=dy)

    def draw(self, case):
        """One placement: (piece or None, (magnets, side), pose, neighbours)."""
        rng = self.rng
        piece = None if case == "empty" else self.pieces[rng.integers(len(self.pieces))]
        die = None if piece is None else self.pool[self._kind(piece)][rng.integers(POOL)]
        pose = None if piece is None else self._seated(piece)
        if case == "tilted":  # in its well it jams against the walls at the turn limit
            if rng.random() < 0.5:
                pose = replace(pose, tilt=rng.uniform(0, self.twist), tilt_to=rng.uniform(0, 360))
            else:
                pose = replace(pose, tilt=rng.uniform(3, 45), tilt_to=rng.uniform(0, 360),
                             lift=self.ph["well_depth_mm"])
        elif case == "lifted":
            pose = replace(pose, lift=rng.uniform(0.2, 15))
        elif case == "sliding":
            a, r = rng.uniform(0, 2 * np.pi), rng.uniform(2, 25)
            pose = replace(pose, dx=r * np.cos(a), dy=r * np.sin(a), lift=self.ph["well_depth_mm"] + rng.uniform(0, 3))
        elif case == "outside":  # too far out to drop into the well: it rests on the rim
            rim = self.ph["well_depth_mm"]
            if rng.random() < 0.5:
                pose = replace(pose, turn=pose.turn + 45, lift=rim)
            else:
                a = rng.uniform(0, 2 * np.pi)
                pose = replace(pose, dx=3 * np.cos(a), dy=3 * np.sin(a), lift=rim)
        elif case == "misbuilt":
            code = self.codes[piece]
            k = int(rng.integers(5))
            fault = ("extra" + "+-"[rng.integers(2)]) if code[k] == "0" else ["missing", "reversed"][rng.integers(2)]
            die = dice.build(self._kind(piece), self.spec["dice"], self.ph, rng, faults=[(pose.down, k, fault)])
        crowd = 1.0 if case in ("crowded", "empty") else 0.35
        around = []
        for step in NEIGHBOURS:
            if rng.random() < crowd:
                other = self.pieces[rng.integers(len(self.pieces))]
                around.append((step, self.pool[self._kind(other)][rng.integers(POOL)], self._seated(other)))
        return piece, die, pose, around

    # -- reading them -------------------------------------------------------------------

    def run(self, n, batch=1000, out=None):
        names = [c for c, _ in CASES]
        weights = np.array([w for _, w in CASES])
        cases = self.rng.choice(len(names), n, p=weights / weights.sum())
        for start in range(0, n, batch):
            drawn = [(names[c],) + self.draw(names[c]) for c in cases[start:start + batch]]
            self._read(drawn)
            if out:
                done = min(n, start + batch)
                print("\r  %d/%d placements" % (done, n), end="", file=out, flush=True)
        if out:
            print(file=out)
        return self

    def _read(self, drawn):
        n = len(drawn)
        ph, rng = self.ph, self.rng
        ring = ph["ring_mm"]
        # where each placement's five hall elements are: plate, air gap and element depth drawn
        depth = (_spread(rng, ph["floor_mm"], (n, 1)) + _spread(rng, ph["air_mm"], (n, 1))
                 + _spread(rng, ph["sensor"]["hall_depth_mm"], (n, 5)))
        xy = np.array([(0, 0), (0, ring), (ring, 0), (0, -ring), (-ring, 0)], float)
        sensors = np.concatenate([np.broadcast_to(xy, (n, 5, 2)), -depth[:, :, None]], axis=2)
        near, far = _Rows(), _Rows()
        for i, (case, piece, die, pose, around) in enumerate(drawn):
            if piece is not None:
                near.add(i, die, pose, (0.0, 0.0), sensors[i])
            for (sx, sy), other, other_pose in around:
                far.add(i, other, other_pose, (sx * ph["square_mm"], sy * ph["square_mm"]), sensors[i])
        bz = near.field(n, dipole=False) + far.field(n, dipole=True)
        parts = readout.Parts.draw(ph, (n, 5), rng)
        parts.zero, parts.full_scale, parts.inl = (
            rng.uniform(*ph["adc"]["zero_V"], (n, 1)), rng.uniform(*ph["adc"]["full_scale_V"], (n, 1)),
            rng.uniform(-1, 1, (n, 1)) * ph["adc"]["inl_lsb"])
        baseline = readout.counts(np.zeros((n, 5)), parts, ph)
        # a calibrated baseline: the mean of 32 noisy reads of the empty square
        baseline = baseline + np.rint(rng.normal(0, ph["adc"]["noise_counts"] / 2 / np.sqrt(32), (n, 5)))
        clean = readout.counts(bz, parts, ph) - baseline
        settled = None
        agree = np.ones(n, bool)
        for _ in range(self.reads):
            reading = readout.counts(bz, parts, ph, readout.noise_volts(ph, (n, 5), rng)) + _adc_noise(ph, (n, 5), rng)
            value = self._decode(reading - baseline)
            if settled is None:
                settled = value
            agree &= value == settled
        for i, (case, piece, die, pose, around) in enumerate(drawn):
            got = settled[i] if agree[i] else UNSETTLED
            self.tally[case][self._judge(case, piece, got)] += 1
            if case in ("seated", "crowded", "empty"):
                self._note_margin(case, piece, die, pose, clean[i])

    def _decode(self, d):
        a = np.abs(d)
        trit = np.where(a < self.absent, 0, np.where(a < self.present, BETWEEN, np.where(d > 0, 1, 2)))
        k = ((((trit[:, 0] * 4 + trit[:, 1]) * 4 + trit[:, 2]) * 4 + trit[:, 3]) * 4 + trit[:, 4])
        return np.frombuffer(bytes(self.board.decode), np.uint8)[k]

    def _judge(self, case, piece, got):
        want = EMPTY if piece is None else piece_value(piece)
        if got == want:
            return "unsettled" if case == "misbuilt" else "right"
        if got == UNSETTLED:
            return "unsettled"
        if got == EMPTY and case in ("tilted", "lifted", "sliding", "outside"):
            return "right"  # the die is in a hand or on the rim, not in the well
        return "wrong"

    def _note_margin(self, case, piece, die, pose, d):
        want = [0] * 5
        if piece is not None:
            code = self.codes[piece]
            magnets, _ = die
            glue = magnets.glue[pose.down]
            want[0] = _sign(code[0])
            for k in range(1, 5):
                angle = (RING_ANGLE[(k - 1 + glue) % 4] + pose.turn) % 360
                s = min(range(1, 5), key=lambda s: abs((SENSOR_ANGLE[s] - angle + 180) % 360 - 180))
                want[s] = _sign(code[k])
        for s in range(5):
            if want[s]:
                m = (want[s] * d[s] - self.present) / self.per_mT
            else:
                m = (self.absent - abs(d[s])) / self.per_mT
            if m < self.margin[0]:
                self.margin = (float(m), case)

    # -- the report ---------------------------------------------------------------------

    def totals(self):
        total = Counter()
        for t in self.tally.values():
            total.update(t)
        return total

    def report(self, out=sys.stdout):
        print("%-10s %9s %9s %9s %9s" % ("case", "placed", "right", "unsettled", "wrong"), file=out)
        for case, _ in CASES:
            t = self.tally[case]
            print("%-10s %9d %9d %9d %9d" % (case, sum(t.values()), t["right"], t["unsettled"], t["wrong"]), file=out)
        must = Counter()
        for case in MUST_READ:
            must.update(self.tally[case])
        print("dice at rest in their wells read right: %.3f%%" % (100.0 * must["right"] / max(1, sum(must.values()))),
              file=out)
        print("smallest margin to a threshold, without noise: %.2f mT (%s); noise is +-%.2f mT"
              % (self.margin[0], self.margin[1], self.ph["adc"]["noise_counts"] / self.per_mT), file=out)
        t = self.totals()
        print("placements %d: right %d, unsettled %d, wrong %d" % (sum(t.values()), t["right"], t["unsettled"],
                                                                  t["wrong"]), file=out)


class _Rows:
    """Magnet-sensor pairs of many placements, for one magpylib call."""

    def __init__(self):
        self.at, self.axis, self.pol, self.size, self.obs, self.into = [], [], [], [], [], []

    def add(self, i, die, pose, centre, sensors):
        magnets, side = die
        at, axis = dice.place(magnets, side, pose, centre)
        self.at.append(at)
        self.axis.append(axis)
        self.pol.append(magnets.polarisation)
        self.size.append(magnets.size)
        self.obs.append((i, sensors))

    def field(self, n, dipole):
        out = np.zeros(n * 5)
        if not self.at:
            return out.reshape(n, 5)
        at, axis = np.concatenate(self.at), np.concatenate(self.axis)
        pol, size = np.concatenate(self.pol), np.concatenate(self.size)
        counts = [len(a) for a in self.at]
        # every magnet of a die against the five sensors of its placement
        obs = np.concatenate([np.repeat(s[None], c, 0) for (i, s), c in zip(self.obs, counts)])  # (m, 5, 3)
        index = np.concatenate([np.full(c, i) for (i, _), c in zip(self.obs, counts)])
        b = dice.bz_pairs(at, axis, pol, size, obs, dipole)  # (m, 5)
        np.add.at(out, (index[:, None] * 5 + np.arange(5)).ravel(), b.ravel())
        return out.reshape(n, 5)


def _sign(mark):
    return {"+": 1, "-": -1, "0": 0}[mark]


def _spread(rng, nominal_tol, shape):
    nominal, tol = nominal_tol
    return nominal + rng.uniform(-tol, tol, shape)


def _adc_noise(ph, shape, rng):
    """Each read's noise as the simulated device draws it: triangular within +-noise_counts."""
    peak = ph["adc"]["noise_counts"]
    return np.rint((rng.uniform(-peak, peak, shape) + rng.uniform(-peak, peak, shape)) / 2).astype(np.int64)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="doce physics", description=__doc__.split("\n\n")[0])
    ap.add_argument("--placements", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    spec = json.loads(BOARD_FILE.read_text())
    began = time.monotonic()
    campaign = Campaign(spec, args.seed).run(args.placements, out=sys.stderr)
    campaign.report()
    print("(%.0f s)" % (time.monotonic() - began))
    return 1 if campaign.totals()["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
