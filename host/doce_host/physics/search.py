"""Worst cases, searched: for dice and boards drawn within board.json's tolerances, each
family's pose parameters are optimised to bring the (noiseless) reading as near as it can
come to another piece, or, for a seated die, to not reading right.

The search is a random start (`starts` poses) and rounds of shrinking steps around the
best few, on every pose parameter at once; its result is a margin in counts (how far the
nearest wrong reading still is) and the pose that gave it. A family that tilts a die in its
well puts it where the well's walls allow (poses.in_well): a pose the walls refuse is not
read, and every offset they allow is a parameter's range.
"""

from dataclasses import dataclass, replace

import numpy as np

from doce.squares import piece as piece_value

from . import poses
from .reading import Fields
from .scene import face_down


@dataclass
class Family:
    """A pose family as `make(physics, down, turn, params, die)` -> Pose, with each parameter's
    (low, high); `seated`: measure reading right instead of reading wrong."""
    make: object
    bounds: tuple
    seated: bool = False


def families(physics):
    offset, twist = poses.well_play(physics)
    depth = physics["well_depth_mm"]
    return {
        "seated": Family(lambda ph, down, turn, p, die: poses.rocked(
                             poses.Pose(down=down, turn=turn + p[2], dx=p[0], dy=p[1]), die, p[3]),
                         ((-offset, offset), (-offset, offset), (-twist, twist), (0, 360)), seated=True),
        "bridging a side": Family(lambda ph, down, turn, p, die: poses.bridging(ph, down, turn + p[2], p[0], p[1]),
                                  ((-15, 15), (0.5, 9.5), (-10, 10))),
        "bridging a corner": Family(lambda ph, down, turn, p, die: poses.bridging(ph, down, turn + p[2], 45 + p[0],
                                                                                 p[1]),
                                    ((-20, 20), (0.5, 9.5), (-10, 10))),
        "leaning on a neighbour": Family(
            lambda ph, down, turn, p, die: poses.leaning(
                ph, down, turn + p[3], p[0], p[1],
                p[2] if p[4] > 0.5 else max(p[2], poses.bridge_tilt(ph, turn + p[3], p[0], p[1])), p[4] > 0.5),
            ((0, 360), (0.3, 9.0), (3, 45), (-10, 10), (0, 1))),
        # its edge or corner held anywhere from the floor to above the rim, over the spot where
        # the walls let it land (p[3], p[4]: that fraction of the way across their room); a tilt
        # the walls do not let reach the floor, wedged where it is (nearest the centre)
        "held on the way down": Family(
            lambda ph, down, turn, p, die: _held(ph, poses.Pose(down=down, turn=turn + p[5], tilt=p[0], tilt_to=p[1],
                                                                lift=p[2]), die, p[3:5]),
            ((0, 25), (0, 360), (0, depth + 2), (0, 1), (0, 1), (-twist, twist))),
        # its lowest edge or corner on the floor (a landing's second half): the same less the lift,
        # which a random start in the family above rarely puts at 0
        "tipping flat": Family(
            lambda ph, down, turn, p, die: poses.in_well(ph, poses.Pose(down=down, turn=turn + p[4], tilt=p[0],
                                                                        tilt_to=p[1]), die[1], p[2:4]),
            ((0, 25), (0, 360), (0, 1), (0, 1), (-twist, twist))),
    }


def _held(physics, pose, die, at):
    """`pose` held in the well (poses.in_well): over the spot `at` of the walls' room where it
    lands at this tilt, or, if it cannot reach the floor so, where it is (None if nowhere)."""
    floor = poses.in_well(physics, replace(pose, lift=0.0), die[1], at)
    return replace(floor, lift=pose.lift) if floor is not None else poses.in_well(physics, pose, die[1])


def worst(reader, boards, row, name, die, family, rng, starts=300, keep=4, rounds=5, tries=40):
    """(margin in counts, Pose) of the worst pose search finds for `die` (the piece `name`,
    'white 4') on board row `row`: the smallest margin to another piece, or to reading right
    if the family is seated."""
    ph = boards.physics
    piece = piece_value(name)
    down, turn = face_down(name), 90 * int(rng.integers(4))
    lo, hi = np.array(family.bounds, float).T

    def score(params):
        """Each pose's margin (inf for one the well's walls do not allow: it is never read)."""
        pose_list = [family.make(ph, down, turn, p, die) for p in params]
        fit = [k for k, pose in enumerate(pose_list) if pose is not None]
        margin = np.full(len(pose_list), np.inf)
        if fit:
            placed = [pose_list[k] for k in fit]
            fields = Fields()
            fields.add(np.arange(len(placed)), die, placed, np.repeat(boards.sensors[row:row + 1], len(placed), 0))
            d = boards.read(fields.total(len(placed)), rows=np.full(len(placed), row), noise=False)
            margin[fit] = reader.seated_margin(d, piece) if family.seated else reader.closest(d, piece)[0]
        return margin, pose_list

    params = lo + (hi - lo) * rng.random((starts, len(lo)))
    margin, pose_list = score(params)
    best = np.argsort(margin)[:keep]
    params, margin = params[best], margin[best]
    for r in range(rounds):
        step = (hi - lo) * 0.25 * 0.4 ** r
        trial = np.clip(np.repeat(params, tries, 0) + rng.normal(0, 1, (len(params) * tries, len(lo))) * step, lo, hi)
        m, _ = score(trial)
        allp, allm = np.concatenate([params, trial]), np.concatenate([margin, m])
        best = np.argsort(allm)[:keep]
        params, margin = allp[best], allm[best]
    m, pose_list = score(params[:1])
    return float(m[0]), pose_list[0]
