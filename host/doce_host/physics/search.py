"""Worst cases, searched: for dice and boards drawn within board.json's tolerances, each
family's pose parameters are optimised to bring the (noiseless) reading as near as it can
come to another piece, or, for a seated die, to not reading right.

The search is a random start (`starts` poses) and rounds of shrinking steps around the
best few, on every pose parameter at once; its result is a margin in counts (how far the
nearest wrong reading still is) and the pose that gave it.
"""

from dataclasses import dataclass

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
        "held on the way down": Family(
            lambda ph, down, turn, p, die: poses.Pose(down=down, turn=turn + p[5], dx=p[3], dy=p[4], tilt=p[0],
                                                 tilt_to=p[1], lift=p[2]),
            ((0, 25), (0, 360), (0, depth + 2), (-offset, offset), (-offset, offset), (-twist, twist))),
        # its lowest edge or corner on the floor (a landing's second half): the same less the lift,
        # which a random start in the family above rarely puts at 0
        "tipping flat": Family(
            lambda ph, down, turn, p, die: poses.Pose(down=down, turn=turn + p[4], dx=p[2], dy=p[3], tilt=p[0],
                                                 tilt_to=p[1]),
            ((0, 25), (0, 360), (-offset, offset), (-offset, offset), (-twist, twist))),
    }


def worst(reader, boards, row, name, die, family, rng, starts=300, keep=4, rounds=5, tries=40):
    """(margin in counts, Pose) of the worst pose search finds for `die` (the piece `name`,
    'white 4') on board row `row`: the smallest margin to another piece, or to reading right
    if the family is seated."""
    ph = boards.physics
    piece = piece_value(name)
    down, turn = face_down(name), 90 * int(rng.integers(4))
    lo, hi = np.array(family.bounds, float).T

    def score(params):
        pose_list = [family.make(ph, down, turn, p, die) for p in params]
        fields = Fields()
        fields.add(np.arange(len(pose_list)), die, pose_list, np.repeat(boards.sensors[row:row + 1], len(pose_list), 0))
        d = boards.read(fields.total(len(pose_list)), rows=np.full(len(pose_list), row), noise=False)
        if family.seated:
            return reader.seated_margin(d, piece), pose_list
        return reader.closest(d, piece)[0], pose_list

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
