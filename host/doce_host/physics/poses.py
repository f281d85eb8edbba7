"""Where a hand can leave a die, and the paths it takes on the way down, as dice.Pose.

Geometry from board.json "physics": the well (its side and depth), the die's side. The
square's centre is the origin, the well floor z = 0, the rim z = well depth.

    seated       in its well, anywhere the well's play lets it sit
    bridging     one bottom edge on the well floor, the face down resting on the rim
    landing      lowered tilted on an edge or a corner, then tipped down flat
    leaning      one bottom edge on the floor or the rim, leaning on a neighbouring die
    dropped      let go above the well: it falls, bounces and rocks before it settles
"""

import numpy as np

from .dice import Pose


def well_half(physics):
    """Half the widest well the tolerances allow (mm): where a rim begins."""
    return (physics["well_mm"][0] + physics["well_mm"][1]) / 2


def bridging(physics, down, turn, side_deg, shift, depth=None):
    """A die pushed `shift` mm towards `side_deg` (degrees from +x) beyond what its well
    holds: its trailing bottom edge on the floor, its face down resting on the rim on the
    side it was pushed to (it rests there by itself when that side's neighbour is empty)."""
    depth = physics["well_depth_mm"] if depth is None else depth
    side = physics["die_mm"][0]
    edge = side / 2 - shift  # the bottom edge on the floor, from the centre, away from the rim
    tilt = np.degrees(np.arctan2(depth, edge + well_half(physics)))
    a = np.radians(side_deg)
    return Pose(down=down, turn=turn, dx=shift * np.cos(a), dy=shift * np.sin(a), tilt=float(tilt),
                tilt_to=(side_deg + 180) % 360, lift=0.0)


def landing(physics, down, turn, tilt, toward, dx=0.0, dy=0.0, start=None, step=0.05):
    """The poses of a die lowered at `tilt` degrees on its lowest edge or corner (towards
    `toward`, degrees from +x) until that touches the floor, then tipped down flat about
    it: one pose each time its highest point has moved `step` mm. Starts with the lowest
    point `start` mm up (default: the rim plus 3 mm, where every magnet reads nothing)."""
    side = physics["die_mm"][0]
    start = physics["well_depth_mm"] + 3.0 if start is None else start
    poses = [Pose(down=down, turn=turn, dx=dx, dy=dy, tilt=tilt, tilt_to=toward, lift=float(h))
             for h in np.arange(start, 0.0, -step)]
    from .dice import reach
    span = 2 * reach(side, Pose(turn=turn, tilt_to=toward))  # lowest point to highest, flat
    top = span * np.sin(np.radians(tilt))
    for h in np.arange(top, 0.0, -step):
        poses.append(Pose(down=down, turn=turn, dx=dx, dy=dy, tilt=float(np.degrees(np.arcsin(h / span))),
                          tilt_to=toward, lift=0.0))
    poses.append(Pose(down=down, turn=turn, dx=dx, dy=dy))
    return poses
