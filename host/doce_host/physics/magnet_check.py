"""The magnet check (issue 40): each magnet alone, before it is glued, read in a printed cup
on the check square's centre sensor, and compared with its batch.

Its role now: a second guard. The first is the reading rule: a die one of whose ring magnets of
the centre's pole is weak can read only as each colour's blocker, which reads only under
board.json sensing.strict_gone_percent (doce/board.py strict), and such a magnet down to
issue 40's 40 % stays over that (tests/physics/test_misbuilt.py). The check still keeps the
weakest magnets (46 % and under) out of the dice, with the margin that gives.

A magnet in a glued die cannot be judged (hardware/README.md, the dice check): its sensor
saturates and its neighbours add to it. Alone, held on the centre sensor's axis with its
face `cup_floor_mm` over the well's floor (board.json mechanics.magnet_check), it reads only
itself, on the same sensor and cup as every other magnet of its batch: the board's parts and
the cup's print scale every magnet alike, and so cancel when a magnet is compared with its
batch's median. What varies between magnets, and so counts, is the magnet itself (remanence,
diameter, height: board.json physics.magnet), where it sits (its play in the cup's pocket and
the cup's in the well, a tilt on the pocket's floor) and which face is down (the sensor and
the ADC are not symmetric about zero). What is shared still matters through the response's
bends (the ADC's curve and INL, saturation), so every board corner is searched too.

`spread` is the searched least ratio of a right magnet to a batch's median (the weakest
right magnet against a batch of the strongest, each read as |counts| from the empty cup);
`weak_passes` the searched most a magnet at a fraction of its remanence reads against a batch
of the weakest right magnets. A board is a row of fractions of BOARD's tolerances (search.py's
names); a magnet a row of MAGNET's (0: the low end, 1: the high end).
"""

import itertools

import numpy as np

from . import dice
from .reading import Boards

# The board's tolerances, each a fraction of its range (tolerances.py's names), and the cup's
# print: one value for all the board's magnets.
BOARD = ("floor", "air", "hall depth", "quiescent", "sensitivity", "switch drop", "vref", "supply",
         "saturation low", "saturation high", "cup", "sensor off") + tuple("inl %d" % i for i in range(9))
INL = BOARD.index("inl 0")
# A magnet: remanence, diameter, height, off the sensor's axis, tilt (0: -most, 1: +most), face down (0: N, 1: S).
MAGNET = ("remanence", "diameter", "height", "offset", "tilt", "flip")
MAGNET_CORNERS = np.array([c for c in itertools.product((0, 1), (0, 1), (0, 1), (0, 1), (0, 0.5, 1), (0, 1))], float)
FACE = MAGNET_CORNERS[:, 5]
CUP_TOL_MM = 0.1  # the cup's floor as printed: FDM at 0.2 mm layers, +-half a layer
TILT_DEG = 3.0  # a magnet on the pocket's printed floor: 0.17 mm of unevenness across it (layer lines, a burr)
# The centre sensor off its well's centre: the PCB and the well sheet are each set by the 10 M3 screws
# in 3.2 mm holes (hardware/README.md, Assemble the stack), +-0.1 mm each, so up to 0.2 mm apart; the
# sensor on its pad (assembly, about 0.05 mm) and its Hall element in the SOT-23 (about 0.05 mm). board.json
# has no such figure (the dice model takes each well as centred on its sensors); this is the sum.
SENSOR_OFF_MM = 0.3
# Left between the searched spread less noise and the line, for what the model leaves out: a magnet
# warmed in the hand (NdFeB's Br -0.12 %/degC: 5 degC, -0.6 %) and the stack at stack_away_mm (0.2 %,
# 50 magnets coaxial over the cup at 150 mm, dice.bz_pairs); 0.8 %, rounded up.
MARGIN = 0.01
CALIBRATION_SEED = 0  # the calibrating reads' noise: one draw shared by every row (Boards one_noise)


def geometry(spec):
    """(cup floor mm, play mm): the magnet's face over the well floor, and how far its axis can
    sit from the well's centre: its play in the pocket (the narrowest magnet) and the cup's in
    the well (the widest well, the narrowest cup). The sensor's own place under the well
    (SENSOR_OFF_MM) is the board's, searched with it."""
    ph, cup = spec["physics"], spec["mechanics"]["magnet_check"]
    m = ph["magnet"]
    pocket = (cup["pocket_mm"] + CUP_TOL_MM - (m["diameter_mm"] - m["size_tol_mm"])) / 2
    well = (ph["well_mm"][0] + ph["well_mm"][1] - (cup["outside_mm"] - CUP_TOL_MM)) / 2
    return cup["cup_floor_mm"], pocket + well


def fields(spec, board, magnets, strength=1.0):
    """The vertical field (mT) at the centre sensor of each board row (its depth, its cup) of
    each magnet row, (n, 5) with the ring's four zero; `strength`: fraction of remanence."""
    ph = spec["physics"]
    m = ph["magnet"]
    floor, most_off = geometry(spec)
    b = dict(zip(BOARD, board.T))
    q = dict(zip(MAGNET, np.asarray(magnets).T))
    lo = lambda nom_tol, f: nom_tol[0] - nom_tol[1] + 2 * nom_tol[1] * f  # noqa: E731 (one line per use)
    depth = lo(ph["floor_mm"], b["floor"]) + lo(ph["air_mm"], b["air"]) + lo(ph["sensor"]["hall_depth_mm"],
                                                                              b["hall depth"])
    d = m["diameter_mm"] + m["size_tol_mm"] * (2 * q["diameter"] - 1)
    h = m["height_mm"] + m["size_tol_mm"] * (2 * q["height"] - 1)
    br = (m["remanence_mT"][0] + (m["remanence_mT"][1] - m["remanence_mT"][0]) * q["remanence"]) * strength
    tilt = np.radians(TILT_DEG * (2 * q["tilt"] - 1))
    sign = 1 - 2 * q["flip"]
    n = len(d)
    # a magnet tilted on a burr turns about the edge still on the floor: its centre rises and slides
    # (a turn about its own centre would leave the field nearly as it was: r40m finding 2)
    rise = d / 2 * np.abs(np.sin(tilt)) + h / 2 * np.cos(tilt)
    slide = np.sign(tilt) * (h / 2 * np.abs(np.sin(tilt)) + d / 2 * (1 - np.cos(tilt)))
    # the sensor is off the well's centre by the board's `sensor off`; the magnet anywhere within its
    # play of the well's centre: from the nearest it can come to the sensor's axis (0: on it) to the farthest
    sensor = b["sensor off"] * SENSOR_OFF_MM
    near = np.maximum(sensor - most_off, 0)
    off = near + q["offset"] * (sensor + most_off - near) + slide
    at = np.column_stack([off, np.zeros(n), floor + CUP_TOL_MM * (2 * b["cup"] - 1) + rise])
    axis = np.column_stack([np.sin(tilt), np.zeros(n), np.cos(tilt)]) * sign[:, None]
    obs = np.zeros((n, 1, 3))
    obs[:, 0, 2] = -depth
    out = np.zeros((n, 5))
    out[:, 0] = dice.bz_pairs(at, axis, br, np.column_stack([d, h]), obs)[:, 0]
    return out


def boards(spec, board):
    """A reading.Boards, calibrated, of one row per row of `board` (fractions of BOARD)."""
    pins = {name: board[:, i:i + 1] for i, name in enumerate(BOARD[:10])}
    pins["floor"] = board[:, :1]
    pins["inl"] = board[:, None, INL:] * 1.0
    pins["supply"] = board[:, 7:8]
    pins["board switch drop"] = board[:, 5:6]
    return Boards(spec["physics"], len(board), np.random.default_rng(CALIBRATION_SEED), spec["sensing"]["baseline"],
                  calibrated=True, power_on_us=spec["sensing"]["power_on_us"], pins=pins, one_noise=True)


def levels(spec, board, magnets, strength=1.0):
    """|counts| at the board file's gain from the empty cup, (boards, magnets): each row of
    `board` (fractions of BOARD) with every row of `magnets`; the mean reading (the host
    averages 32 reads)."""
    board = np.atleast_2d(board)
    k, m = len(board), len(magnets)
    rows = np.repeat(board, m, axis=0)
    bz = fields(spec, rows, np.tile(magnets, (k, 1)), strength)
    return np.abs(boards(spec, rows).read(bz, noise=False)[:, 0]).reshape(k, m)


def spread(board, spec):
    """Per board row: the least right magnet over the most of the same face down (the worst
    batch: all strongest). A magnet is compared only with those read the same way up: the
    ADC's INL differs at the codes either side of the empty reading: pooled, the worst board
    found (the deepest) read the weakest magnet 10 % apart by its face down, and the spread
    was 0.698, not 0.748, in the model before the tilt's lift and the sensor's place were in
    (hardware/README.md, the dice check)."""
    r = levels(spec, board, MAGNET_CORNERS)
    return np.min([r[:, FACE == f].min(1) / r[:, FACE == f].max(1) for f in (0, 1)], axis=0)


def weak_passes(board, spec, strength, size=None):
    """Per board row: the most a magnet at `strength` of its remanence reads over the least
    right magnet of the same face down (the worst batch for the check: all weakest); `size`:
    (diameter, height) as MAGNET's fractions, that magnet's size pinned (any: None)."""
    weak = levels(spec, board, MAGNET_CORNERS, strength)
    right = levels(spec, board, MAGNET_CORNERS)
    sized = np.ones(len(MAGNET_CORNERS), bool) if size is None else (MAGNET_CORNERS[:, 1:3] == size).all(1)
    return np.max([weak[:, sized & (FACE == f)].max(1) / right[:, FACE == f].min(1) for f in (0, 1)], axis=0)


def extremes(board, spec):
    """Per board row: (least, most) |counts| a right magnet reads."""
    r = levels(spec, board, MAGNET_CORNERS)
    return r.min(1), r.max(1)


def search(score, spec, rng, starts=6, passes=3, values=(0.0, 0.5, 1.0), args=()):
    """(least score, board row) over the board's tolerances, `score(rows, spec, *args)` one a
    row: from the all-low and all-high boards and `starts` random ones, every move of one
    tolerance to one of `values` scored at once and the best taken, until none lowers it
    (at most 10 x `passes` moves: the responses are monotone or nearly, so corners decide;
    the random starts catch an inside worst)."""
    firsts = [np.zeros(len(BOARD)), np.ones(len(BOARD))] + [rng.uniform(0, 1, len(BOARD)) for _ in range(starts)]
    best = (np.inf, None)
    for row in firsts:
        s = score(row[None], spec, *args)[0]
        for _ in range(10 * passes):
            moves = np.repeat(row[None], len(BOARD) * len(values), axis=0)
            for i in range(len(BOARD)):
                moves[i * len(values):(i + 1) * len(values), i] = values
            t = score(moves, spec, *args)
            j = int(np.argmin(t))
            if t[j] >= s - 1e-12:
                break
            row, s = moves[j], t[j]
        if s < best[0]:
            best = (s, row)
    return best

def noise(spec, least):
    """The ratio a read's noise can move a magnet's level over its batch's median by, at a
    reading of `least` counts: 3 sigma of a level, the mean of steady_reads reads of READS
    each less the empty cup's mean of empty_reads (doce dice magnets), on the magnet and on
    the median alike (the ADC's triangular +-noise_counts and the sensor's noise_mV_rms at
    its mean sensitivity)."""
    check = spec["mechanics"]["magnet_check"]
    ph = spec["physics"]
    per_mt = readout_per_mt(ph) * spec["sensing"]["baseline"] / readout_nominal(ph)
    sigma = np.hypot(ph["adc"]["noise_counts"] / np.sqrt(6),
                     ph["sensor"]["noise_mV_rms"] / np.mean(ph["sensor"]["sensitivity_mV_per_mT"]) * per_mt)
    return 2 * 3 * sigma * np.sqrt(1 / check["steady_reads"] + 1 / check["empty_reads"]) / np.sqrt(READS) / least


READS = 32  # the board check's read step: each input's mean of 32 reads (firmware/doce/bringup.py READS)


def readout_per_mt(ph):
    from .readout import counts_per_mT
    return counts_per_mT(ph)


def readout_nominal(ph):
    from .readout import Parts, counts
    return float(counts(np.zeros(1), Parts.nominal(ph, 1), ph)[0])


def strongest_field(board, spec):
    """Per board row: -|mT| of the strongest right magnet at its strongest pose (search minimises)."""
    k = len(board)
    bz = fields(spec, np.repeat(board, len(MAGNET_CORNERS), axis=0), np.tile(MAGNET_CORNERS, (k, 1)))
    return -np.abs(bz[:, 0]).reshape(k, -1).max(1)


def figures(spec, seed=1, starts=6, passes=3):
    """The check's figures, searched: a dict (make magnets; the tests check board.json by it)."""
    rng = np.random.default_rng(seed)
    ph = spec["physics"]
    s = ph["sensor"]
    out = {}
    out["spread"], out["spread_at"] = search(spread, spec, rng, starts, passes)
    least, _ = search(lambda b, sp: extremes(b, sp)[0], spec, rng, starts, passes)
    most, _ = search(lambda b, sp: -extremes(b, sp)[1], spec, rng, starts, passes)
    out["least"], out["most"] = least, -most
    out["noise"] = noise(spec, least)
    field, _ = search(strongest_field, spec, rng, starts, passes)
    out["strongest_mT"] = -field
    # the DRV5055's linear range ends 0.2 V short of its supply (SBAS640 5.5, V_L), the rail at its lowest,
    # less the sensor's own drop; its most sensitive part from its highest quiescent voltage
    out["linear_mT"] = ((ph["rail"]["regulator_V"][0] - 0.2 - max(s["quiescent_V"])) * 1000
                        / s["sensitivity_mV_per_mT"][1])
    r, at = search(lambda b, sp, f: -weak_passes(b, sp, f), spec, rng, starts, passes, args=(0.5,))
    out["half_reads"], out["half_at"] = -r, at
    return out


def weakest_passing(spec, keep, half_reads, allowance):
    """The least fraction of remanence that can pass a line `keep`, from what a magnet at half
    its remanence reads at most over a batch of the weakest (`half_reads`): a magnet's level
    is its field's, linear through the cup's height (figures' strongest_mT stays inside
    the linear range), and noise may lift it and lower the median by `allowance`."""
    return 0.5 * keep / (half_reads * (1 + allowance))


SIZE_CORNERS = ((0, 0), (0, 1), (1, 0), (1, 1))  # (diameter, height) as MAGNET's fractions


def weakest_corners(spec, seed=1, starts=6, passes=3):
    """{(diameter, height): the least fraction of its remanence a magnet of that size (MAGNET's
    fractions) can pass the check at}, each searched as figures' half_reads with that size
    pinned: the weakest such magnet is at the high end of remanence_mT (weak_passes takes the
    most over the rest of MAGNET), so this fraction times that end is its Br."""
    rng = np.random.default_rng(seed)
    keep = spec["sensing"]["magnet_check"]["keep_percent"] / 100
    least, _ = search(lambda b, sp: extremes(b, sp)[0], spec, rng, starts, passes)
    allowance = noise(spec, least)
    out = {}
    for size in SIZE_CORNERS:
        r, _ = search(lambda b, sp, f: -weak_passes(b, sp, f, size), spec, rng, starts, passes, args=(0.5,))
        out[size] = weakest_passing(spec, keep, -r, allowance)
    return out


def main():
    import json
    import sys
    from ..paths import BOARD_FILE
    spec = json.loads(BOARD_FILE.read_text())
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    f = figures(spec, seed)
    c = spec["mechanics"]["magnet_check"]
    keep = c["keep_percent"] / 100
    print("magnet check, cup floor %.2f mm (seed %d)" % (c["cup_floor_mm"], seed))
    print("  a right magnet over its batch's median, searched least: %.4f (board %s)"
          % (f["spread"], np.round(f["spread_at"], 2).tolist()))
    print("  a read's noise, on magnet and median: %.4f of the least level" % f["noise"])
    print("  the line: keep over %.0f %% of the median (spread less noise %.4f, less the margin %.2f: %.4f)"
          % (100 * keep, f["spread"] - f["noise"], MARGIN, f["spread"] - f["noise"] - MARGIN))
    print("  two magnets? a right magnet reads at most %.4f of its batch (noise too): most_percent %d"
          % ((1 + f["noise"]) / f["spread"], c["most_percent"]))
    print("  a right magnet's level: %.0f to %.0f counts (board.json: %s)" % (f["least"], f["most"], c["level_range"]))
    print("  strongest field %.2f mT, the sensor's linear range at its corner %.2f mT" % (f["strongest_mT"],
                                                                                        f["linear_mT"]))
    w = weakest_passing(spec, keep, f["half_reads"], f["noise"])
    print("  a magnet at 50 %% reads at most %.4f of a batch of the weakest: the weakest that can pass %.3f"
          % (f["half_reads"], w))


if __name__ == "__main__":
    main()
