"""`make physics`: every pose a hand can leave a die in, on boards and dice drawn within
every tolerance, read as the firmware reads them.

    python -m doce_host.physics.campaign [--placements N] [--paths M] [--search S] [--seed X]

Each placement draws a board (the plate, each sensor's depth, part and group supply, the
ESP32's ADC: reading.py), a die (each magnet's strength, size, depth and place, each
face's code glued at any quarter turn: dice.py) and a pose of its family (poses.py), with
neighbours on some of the eight squares around. The square is read `debounce_scans` times
with fresh noise through the firmware's own thresholds and die code (decode.py, which a
test holds to doce.scanner); it is right, unsettled, or wrong (another piece, or not its
own piece or empty where it must be).

    seated, calibrated     in its well, anywhere its play allows; per-sensor baselines, the
                           mean of 32 reads of the empty board (the button's 3 s hold)
    seated, out of the box the same on a board as it comes: it calibrated itself, the same 32
                           reads, at its first empty board, before its first round (app.py)
    seated, never calibrated  the same on one median baseline (Calibration.centre): a board
                           before its first empty board, which reads no piece in play, only
                           whether the board is empty (its line is for information)
    crowded                seated, all eight neighbours occupied
    empty                  nothing on the square, all eight neighbours (either baseline: a
                           board never calibrated must see it empty to calibrate)
    bridging a side        pushed 0.5-9.5 mm towards a side: trailing edge on the floor,
                           face on the rim (the neighbour that way empty)
    bridging a corner      the same towards a corner
    leaning on a neighbour tilted 3-45 degrees against the die next door, from the floor
                           or standing on its own rim
    lifted                 held 0.2-15 mm above its well
    sliding                carried over the plate, 2-25 mm off centre
    outside the well       turned 45 degrees or 3 mm off centre: on the rim
    misbuilt               one magnet of the face down missing, reversed or extra

Paths, read every scan (one read a pose, the firmware's debounce along the way):

    landing on an edge     lowered at 1-12 degrees onto an edge, then tipped flat
    landing on a corner    the same onto a corner (4.5-9 degrees: the issue's range, and more)
    dropped and bouncing   let go 10-60 mm above its well

Every pose of a path is one the well's walls allow (poses.fitting): a die tilted in its well
sits off centre, away from the wall its pivot faces, anywhere the walls leave it room; one
too steep or too turned to fit is squared up and tipped back by the walls.

A path family's margin is the nearest any scan of any of its paths comes, noiseless, to
reading as another piece.

Worst cases, searched (search.py): for dice and boards drawn the same way, the pose
parameters of each family are optimised towards another piece (seated: towards not
reading right); the smallest margin found is printed with the family. Then, for every
piece, the same search with the tolerances as parameters too (each magnet of the face
down with its play in its hole, each sensor, the plate, the ADC, the board's median:
search.TOLERANCES), bounded by board.json's, and the worst found pushed to the tolerances'
ends one by one (search._to_corners): a worst case at the tolerances' corners is searched
for, not sampled; a seated die from every corner of its room in the well, for each sensor
and hand (search.cornered), so that two passes agree. Edge landings are
searched held on the way down, held low and nearly flat, and tipping flat (lowest edge on
the floor), anywhere the well's walls allow them, on eight times as many dice and boards.
"""

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import replace

import numpy as np

from doce.board import EMPTY, UNSETTLED, Board
from doce.squares import piece as piece_value

from ..paths import BOARD_FILE
from . import dice, poses, rail, readout, search
from .decode import Reader
from .reading import Boards, Fields
from .scene import face_down

STATIC = (("seated, calibrated", 0.20), ("seated, out of the box", 0.12), ("seated, never calibrated", 0.08),
          ("crowded", 0.10), ("empty", 0.06),
          ("bridging a side", 0.10), ("bridging a corner", 0.06), ("leaning on a neighbour", 0.07),
          ("lifted", 0.05), ("sliding", 0.05), ("outside the well", 0.03), ("misbuilt", 0.08))
PATHS = (("landing on an edge", 0.4), ("landing on a corner", 0.4), ("dropped and bouncing", 0.2))
MUST_READ = ("seated, calibrated", "seated, out of the box", "seated, never calibrated", "crowded")
NEVER_CALIBRATED = ("seated, never calibrated",)  # the board's baseline; "empty" draws either
OFF_THE_FLOOR = ("bridging a side", "bridging a corner", "leaning on a neighbour", "lifted", "sliding",
                 "outside the well")
SEARCHED = {"seated, calibrated": "seated", "seated, out of the box": "seated", "seated, never calibrated": "seated",
            "bridging a side": "bridging a side",
            "bridging a corner": "bridging a corner", "leaning on a neighbour": "leaning on a neighbour",
            "landing on an edge": ("held on the way down", "held low", "tipping flat")}
# dice and boards searched per die of a static family: a landing's worst needs a rare die on
# a rare board (a proud magnet, a steep sensor), which 48 pairs missed where 4,000 paths found it
SEARCH_MORE = {"landing on an edge": 8}
NEIGHBOURS = [(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1) if i or j]
POOL = 48  # dice built per kind, each within tolerance; placements draw from them


class Campaign:
    def __init__(self, spec, seed=0, corners=0):
        self.spec = spec
        self.corners = corners  # searches per piece and family with the tolerances searched too
        self.ph = spec["physics"]
        self.board = Board(spec)
        self.reader = Reader(self.board)
        self.rng = np.random.default_rng(seed)
        self.pieces = sorted(spec["dice"].values())
        self.codes = dice.codes_by_piece(spec["dice"])
        self.kinds = ["white 1", "black 1", "white blocker", "black blocker"]
        self.hole = spec["mechanics"]["jig"]["drill_mm"]
        self.pool = {kind: [dice.build(kind, spec["dice"], self.ph, self.rng, hole=self.hole) for _ in range(POOL)]
                     for kind in self.kinds}
        # margins are in counts at the thresholds' gain (a board whose empty sensors read
        # sensing.baseline, reading.Boards), quoted in mT for the middle chip's sensor
        nominal = readout.counts(np.zeros(1), readout.Parts.nominal(self.ph, 1), self.ph)[0]
        self.per_mT = readout.counts_per_mT(self.ph) * self.board.baseline / nominal
        self.tally = {name: Counter() for name, _ in STATIC + PATHS}
        self.margin = {}  # family -> smallest noiseless margin seen (counts): to reading right, or to another piece
        self.searched = {}  # family -> (margin counts, pose) of the searched worst case
        self.passes = {}  # family -> the worst (counts) of each pass of the deep searches, each from its own starts

    # -- drawing ------------------------------------------------------------------------

    def _kind(self, piece):
        return piece if piece.endswith("blocker") else piece.split()[0] + " 1"

    def pool_die(self, piece):
        """A die of `piece`'s kind from the pool, drawn with the campaign's rng (gone.py's neighbours too)."""
        return self.pool[self._kind(piece)][self.rng.integers(POOL)]

    def draw(self, family):
        """One placement: (piece or None, die, pose, neighbours [(step, die, pose)])."""
        rng, ph = self.rng, self.ph
        piece = None if family == "empty" else self.pieces[rng.integers(len(self.pieces))]
        die = None if piece is None else self.pool_die(piece)
        down = None if piece is None else face_down(piece)
        pose = None if piece is None else poses.seated(ph, down, rng, side=die[1])
        turn = None if pose is None else pose.turn
        if family in MUST_READ:
            pose = poses.rocked(pose, die, rng.uniform(0, 360))  # on its proud magnet, if it has one
        empty_side = None
        if family.startswith("bridging"):
            push = 90 * rng.integers(4) + (45 if family.endswith("corner") else 0) + rng.uniform(-10, 10)
            pose = poses.bridging(ph, down, turn, push, rng.uniform(0.5, 9.5))
            empty_side = push
        elif family == "leaning on a neighbour":
            push, shift, on_rim = rng.uniform(0, 360), rng.uniform(0.3, 9.0), rng.random() < 0.3
            low = 3.0 if on_rim else poses.bridge_tilt(ph, turn, push, shift)
            pose = poses.leaning(ph, down, turn, push, shift, rng.uniform(min(low, 44), 45), on_rim)
        elif family == "lifted":
            pose = replace(pose, lift=rng.uniform(0.2, 15))
        elif family == "sliding":
            a, r = rng.uniform(0, 2 * np.pi), rng.uniform(2, 25)
            pose = replace(pose, dx=r * np.cos(a), dy=r * np.sin(a), lift=ph["well_depth_mm"] + rng.uniform(0, 3))
        elif family == "outside the well":
            rim = ph["well_depth_mm"]
            if rng.random() < 0.5:
                pose = replace(pose, turn=pose.turn + 45, lift=rim)
            else:
                a = rng.uniform(0, 2 * np.pi)
                pose = replace(pose, dx=3 * np.cos(a), dy=3 * np.sin(a), lift=rim)
        elif family == "misbuilt":
            code = self.codes[piece]
            k = int(rng.integers(5))
            fault = ("extra" + "+-"[rng.integers(2)]) if code[k] == "0" else ["missing", "reversed"][rng.integers(2)]
            die = dice.build(self._kind(piece), self.spec["dice"], ph, rng, faults=[(down, k, fault)], hole=self.hole)
        crowd = 1.0 if family in ("crowded", "empty") else 0.35
        around = []
        for step in NEIGHBOURS:
            if empty_side is not None and np.cos(np.radians(empty_side) - np.arctan2(step[1], step[0])) > 0.7:
                continue  # the die bridges towards it: nothing there
            if rng.random() < crowd or (family == "leaning on a neighbour" and step == _toward(pose)):
                other = self.pieces[rng.integers(len(self.pieces))]
                near = self.pool_die(other)
                around.append((step, near, poses.seated(ph, face_down(other), rng, side=near[1])))
        return piece, die, pose, around

    # -- reading placements -------------------------------------------------------------

    def run(self, placements, paths=0, searches=0, batch=1000, out=None):
        names = [n for n, _ in STATIC]
        weights = np.array([w for _, w in STATIC])
        families = self.rng.choice(len(names), placements, p=weights / weights.sum())
        for start in range(0, placements, batch):
            chunk = families[start:start + batch]
            for f in np.unique(chunk):
                self._read_static(names[f], int((chunk == f).sum()))
            _progress(out, "placements", min(placements, start + batch), placements)
        path_names = [n for n, _ in PATHS]
        weights = np.array([w for _, w in PATHS])
        kinds = self.rng.choice(len(path_names), paths, p=weights / weights.sum())
        for start in range(0, paths, 200):
            chunk = kinds[start:start + 200]
            for f in np.unique(chunk):
                self._read_paths(path_names[f], int((chunk == f).sum()))
            _progress(out, "paths", min(paths, start + 200), paths)
        if searches:
            self._search(searches, out)
        if out:
            print(file=out)
        return self

    def _read_static(self, family, n):
        drawn = [self.draw(family) for _ in range(n)]
        calibrated = family not in NEVER_CALIBRATED and (family != "empty" or self.rng.random() < 0.5)
        boards = Boards(self.ph, n, self.rng, self.board.baseline, calibrated=calibrated,
                        power_on_us=self.board.power_on_us)
        bz = self._fields(boards, [(i, d[1], [d[2]], d[3]) for i, d in enumerate(drawn)], n)
        clean = boards.read(bz, noise=False)
        settled, agree, previous = None, np.ones(n, bool), None
        for _ in range(self.board.debounce_scans):
            got, previous = self.reader.read(boards.read(bz), previous, boards.gain)
            settled = got if settled is None else settled
            agree &= got == settled
        for i, (piece, die, pose, around) in enumerate(drawn):
            got = int(settled[i]) if agree[i] else UNSETTLED
            self.tally[family][self._judge(family, piece, got)] += 1
        want = np.array([EMPTY if d[0] is None else piece_value(d[0]) for d in drawn])
        if family == "empty":
            m = self.board.absent_below - np.abs(clean).max(1)
        elif family in MUST_READ:
            m = self.reader.seated_margin(clean, want)
        else:
            m = self.reader.closest(clean, want)[0]
        if family != "misbuilt":
            self.margin[family] = min(self.margin.get(family, np.inf), float(m.min()))

    def _fields(self, boards, placed, n):
        """Fields (n, 5) mT: placed = [(row or rows, die, poses, neighbours)]."""
        fields = Fields()
        pitch = self.ph["square_mm"]
        for row, die, pose_list, around in placed:
            rows = np.atleast_1d(row)
            if die is not None:
                fields.add(rows, die, pose_list, boards.sensors[rows])
            for (sx, sy), other, other_pose in around:
                fields.add(rows, other, [other_pose] * len(rows), boards.sensors[rows], (sx * pitch, sy * pitch))
        return fields.total(n)

    def _read_paths(self, family, n):
        """n paths of one family, read one pose a scan with the firmware's debounce."""
        rng, ph = self.rng, self.ph
        offset, twist = poses.well_play(ph)
        drawn = []
        for _ in range(n):
            piece = self.pieces[rng.integers(len(self.pieces))]
            die = self.pool_die(piece)
            down, turn = face_down(piece), 90 * rng.integers(4) + rng.uniform(-twist, twist)
            if family == "dropped and bouncing":
                dx, dy = rng.uniform(-offset, offset, 2)
                path = poses.dropped(ph, down, turn, rng, dx, dy, period_ms=self.board.scan_period_ms, side=die[1])
            else:
                corner = family.endswith("corner")
                toward = turn + 90 * rng.integers(4) + (45 + rng.uniform(-20, 20) if corner else rng.uniform(-30, 30))
                tilt = rng.uniform(4.5, 9) if corner and rng.random() < 0.5 else rng.uniform(1, 12)
                # it lands anywhere the well's walls let it (at that tilt, 0.5-0.8 mm off centre at 9-12 degrees)
                path = poses.landing(ph, down, turn, tilt, toward, side=die[1], at=rng.random(2))
            drawn.append((piece, die, path))
        steps = max(len(p) for _, _, p in drawn)
        # calibrated before any piece is read
        boards = Boards(self.ph, n, rng, self.board.baseline, power_on_us=self.board.power_on_us)
        rows = np.arange(n * steps) // steps
        placed = [(np.arange(i * steps, (i + 1) * steps), die, path + [path[-1]] * (steps - len(path)), [])
                  for i, (_, die, path) in enumerate(drawn)]
        sensors = boards.sensors
        boards.sensors = sensors[rows]
        bz = self._fields(boards, placed, n * steps).reshape(n, steps, 5)
        boards.sensors = sensors
        want = np.array([piece_value(p) for p, _, _ in drawn])
        state = _Debounce(self.board, want)
        previous, nearest = None, np.inf
        for s in range(steps):
            got, previous = self.reader.read(boards.read(bz[:, s]), previous, boards.gain)
            state.step(got)
            nearest = min(nearest, float(self.reader.closest(boards.read(bz[:, s], noise=False), want)[0].min()))
        self.margin[family] = min(self.margin.get(family, np.inf), nearest)
        for i in range(n):
            right = state.current[i] == want[i]
            self.tally[family]["wrong" if state.wrong[i] else "right" if right else "unsettled"] += 1

    def _search(self, n, out):
        fams = search.families(self.ph)
        for family, kinds in SEARCHED.items():
            calibrated = family not in NEVER_CALIBRATED
            pairs = n * SEARCH_MORE.get(family, 1)
            boards = Boards(self.ph, pairs, self.rng, self.board.baseline, calibrated=calibrated,
                            power_on_us=self.board.power_on_us)
            worst = (np.inf, None)
            for row in range(pairs):
                piece = self.pieces[self.rng.integers(len(self.pieces))]
                die = self.pool_die(piece)
                for kind in (kinds,) if isinstance(kinds, str) else kinds:
                    m, pose = search.worst(self.reader, boards, row, piece, die, fams[kind], self.rng)
                    if m < worst[0]:
                        worst = (m, (piece, pose))
            # and every piece with its die's and board's tolerances searched too, not drawn: `corners`
            # passes, each with a generator of its own (its random starts; a seated die's search
            # draws only what it leaves unsearched); the worst is pooled, and the passes' spread
            # says how repeatable it is (repeatability)
            for _ in range(self.corners):
                found = np.inf
                for piece in self.pieces:
                    for kind in (kinds,) if isinstance(kinds, str) else kinds:
                        m, (pose, _) = search.deep(self.reader, piece, fams[kind], self.rng,
                                                   (self.spec, self.hole, calibrated))
                        found = min(found, m)
                        if m < worst[0]:
                            worst = (m, (piece, pose))
                self.passes.setdefault(family, []).append(found)
            self.searched[family] = worst
            _progress(out, "searched " + family, pairs, pairs)

    def _judge(self, family, piece, got):
        want = EMPTY if piece is None else piece_value(piece)
        if got == want:
            return "unsettled" if family == "misbuilt" else "right"
        if got == UNSETTLED:
            return "unsettled"
        if got == EMPTY and family in OFF_THE_FLOOR:
            return "right"  # the die is in a hand or on the rim, not in the well
        return "wrong"

    # -- the report ---------------------------------------------------------------------

    def totals(self, names=None):
        total = Counter()
        for name, t in self.tally.items():
            if names is None or name in names:
                total.update(t)
        return total

    def seated_margin(self, family):
        """The smallest margin (counts) of a seated die of `family`, sampled or searched."""
        return min(self.margin.get(family, np.inf), self.searched.get(family, (np.inf,))[0])

    def repeatability(self):
        """(mT, family): the largest difference between two passes' searched worsts of a family
        (None, None with fewer than two passes)."""
        gaps = {f: (max(p) - min(p)) / self.per_mT for f, p in self.passes.items() if len(p) > 1}
        if not gaps:
            return None, None
        family = max(gaps, key=gaps.get)
        return gaps[family], family

    def noise_mT(self):
        """A read's noise at the nominal gain: the ADC's peak and three times the sensor's rms."""
        sensor = 3 * self.ph["sensor"]["noise_mV_rms"] / sum(self.ph["sensor"]["sensitivity_mV_per_mT"]) * 2
        return self.ph["adc"]["noise_counts"] / self.per_mT + sensor

    def report(self, out=sys.stdout):
        mt = self.per_mT
        print("%-24s %8s %8s %9s %6s   %s" % ("family", "placed", "right", "unsettled", "wrong",
                                             "nearest wrong reading, noiseless (searched worst)"), file=out)
        for name, _ in STATIC + PATHS:
            t = self.tally[name]
            note = ""
            if name in self.margin:
                what = "reads right by" if name in MUST_READ or name == "empty" else "misses another piece by"
                note = "%s %.2f mT" % (what, self.margin[name] / mt)
            if name in self.searched and self.searched[name][1] is not None:
                searched = self.searched[name][0] / mt
                note += " (searched: %.2f mT)" % searched if note else "searched: %.2f mT" % searched
            print("%-24s %8d %8d %9d %6d   %s" % (name, sum(t.values()), t["right"], t["unsettled"], t["wrong"], note),
                  file=out)
        must = self.totals(MUST_READ)
        print("dice at rest in their wells read right: %.3f%%" % (100.0 * must["right"] / max(1, sum(must.values()))),
              file=out)
        seat = {k: self.seated_margin(k) / mt for k in ("seated, calibrated", "seated, out of the box",
                                                         "seated, never calibrated")}
        noise = self.noise_mT()
        print("seated margin: calibrated %.2f mT; out of the box (calibrated by itself at its first empty board) "
              "%.2f mT; a read's noise is +-%.2f mT (out of the box: %.1fx)"
              % (seat["seated, calibrated"], seat["seated, out of the box"], noise,
                 seat["seated, out of the box"] / noise), file=out)
        print("never calibrated (one median baseline; reads no piece in play, only waits for an empty board): "
              "%.2f mT (%.1fx)" % (seat["seated, never calibrated"], seat["seated, never calibrated"] / noise),
              file=out)
        left = rail.left_at_read(self.ph, self.board.power_on_us)
        print("ADC: Vref %d-%d mV (ESP-IDF), half the supply reads %d-%d; rail: a group switching on dips it %.0f mV, "
              "%.1f uV left when read" % (*self.ph["adc"]["vref_mV"], *_half_supply(self.ph), rail.dip(self.ph) * 1000,
                                          left * 1e6), file=out)
        gap, family = self.repeatability()
        if gap is not None:
            print("repeatability: %d passes of the searches with the tolerances, each from starts of its own, agree "
                  "within %.2f mT (at most, %s); each family's worst above is all passes' pooled"
                  % (len(self.passes[family]), gap, family), file=out)
        paths = self.totals([n for n, _ in PATHS])
        print("paths %d: right %d, unsettled %d, wrong %d" % (sum(paths.values()), paths["right"], paths["unsettled"],
                                                           paths["wrong"]), file=out)
        t = self.totals()
        # a searched pose that reads wrong, or a seated die that does not read right, counts; but not
        # on a board never calibrated, which reads no piece in play (it only waits for an empty board)
        wrong = t["wrong"] + sum(1 for name, (m, _) in self.searched.items() if m < 0 and name not in NEVER_CALIBRATED)
        print("placements %d: right %d, unsettled %d, wrong %d" % (sum(t.values()), t["right"], t["unsettled"], wrong),
              file=out)
        return wrong


class _Debounce:
    """The scanner's debounce over many paths at once (Scanner._debounce), and whether a
    piece other than the right one (or EMPTY) ever settled."""

    def __init__(self, board, want):
        n = len(want)
        self.board, self.want = board, want
        self.candidate = np.full(n, -1)
        self.count = np.zeros(n, int)
        self.current = np.full(n, EMPTY)
        self.wrong = np.zeros(n, bool)

    def step(self, got):
        got = got.astype(int)
        self.count = np.where(got == self.candidate, self.count + 1, 1)
        self.candidate = got
        need = np.where(got == UNSETTLED, self.board.quiet_wait_scans, self.board.debounce_scans)
        settle = (got != self.current) & (self.count >= need)
        self.current = np.where(settle, got, self.current)
        self.wrong |= settle & (got != self.want) & (got != EMPTY) & (got != UNSETTLED)


def _toward(pose):
    """The neighbouring square a leaning die leans towards (its pivot is on the other side)."""
    a = np.radians(pose.tilt_to + 180)
    return (int(np.rint(np.cos(a))), int(np.rint(np.sin(a))))


def _half_supply(ph):
    lo = readout.Parts.nominal(ph, 1)
    out = []
    for vref in reversed(ph["adc"]["vref_mV"]):
        lo.vref = np.float64(vref)
        out.append(int(readout.u16(readout.raw(np.array([ph["sensor"]["supply_V"] / 2]), lo))[0]))
    return out


def _progress(out, what, done, total):
    if out:
        print("\r  %s %d/%d" % (what, done, total) + " " * 20, end="", file=out, flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="doce physics", description=__doc__.split("\n\n")[0])
    ap.add_argument("--placements", type=int, default=100_000)
    ap.add_argument("--paths", type=int, default=10_000)
    ap.add_argument("--search", type=int, default=48, help="dice searched per family")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--corners", type=int, default=1,
                    help="searches per piece and family with every tolerance searched too (search.TOLERANCES)")
    args = ap.parse_args(argv)
    spec = json.loads(BOARD_FILE.read_text())
    began = time.monotonic()
    campaign = Campaign(spec, args.seed, args.corners).run(args.placements, args.paths, args.search, out=sys.stderr)
    wrong = campaign.report()
    print("(%.0f s)" % (time.monotonic() - began))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
