"""Where a hand can leave a die, and the paths it takes on the way down, as dice.Pose.

Geometry from board.json "physics": the well (its side and depth), the die's side. The
square's centre is the origin, the well floor z = 0, the rim z = well depth.

    seated     in its well, anywhere the well's play lets it sit
    bridging   pushed beyond what the well holds: its trailing bottom edge (or corner) on
               the floor, the face down resting on the rim (a side's, or a corner's)
    leaning    tilted further than that against a neighbouring die, from the floor or the rim
    landing    lowered tilted onto an edge or a corner, then tipped down flat
    dropped    let go above the well: it falls, bounces and rocks before it lies flat
"""

from dataclasses import replace

import numpy as np

from .dice import Pose, place, reach

G = 9.81e-3  # mm per ms^2


def well_half(physics):
    """Half the widest well the tolerances allow (mm): where a rim begins."""
    return (physics["well_mm"][0] + physics["well_mm"][1]) / 2


def well_play(physics):
    """(offset mm, turn degrees): how far a die seated in its well can sit off centre and
    turn, at the loosest die and well the tolerances allow."""
    die = physics["die_mm"][0] - physics["die_mm"][1]
    well = physics["well_mm"][0] + physics["well_mm"][1]
    # a square of side a turned t spans a (cos t + sin t)
    turn = np.degrees(np.arcsin(well / (die * np.sqrt(2))) - np.pi / 4)
    return (well - die) / 2, float(turn)


def seated(physics, down, rng, quarter=None):
    """A die put into its well by hand, anywhere its play allows."""
    offset, twist = well_play(physics)
    quarter = rng.integers(4) if quarter is None else quarter
    dx, dy = rng.uniform(-offset, offset, 2)
    return Pose(down=down, turn=float(90 * quarter + rng.uniform(-twist, twist)), dx=float(dx), dy=float(dy))


def rocked(pose, die, toward):
    """A die whose face down has a magnet standing proud rests on it: it rocks on it onto the
    edge or corner towards `toward` (degrees from +x), its face tilted by the magnet's height
    over its distance to that edge. The same pose if no magnet stands proud."""
    magnets, side = die
    face = magnets.face == pose.down
    proud = magnets.proud.get(pose.down, 0.0) if magnets.proud else 0.0
    if proud <= 0 or not face.any():
        return pose
    at, _ = place(magnets, side, replace(pose, tilt=0.0, lift=0.0))
    tip = at[face][np.argmin(magnets.recess[face])]
    u = np.array([np.cos(np.radians(toward)), np.sin(np.radians(toward))])
    far = reach(side, replace(pose, tilt_to=toward)) - (tip[:2] - (pose.dx, pose.dy)) @ u
    return replace(pose, lift=-proud, tilt=float(np.degrees(np.arctan2(proud, far))), tilt_to=float(toward))


def bridge_tilt(physics, turn, push, shift, depth=None):
    """Degrees a die turned `turn`, pushed `shift` mm towards `push` (degrees from +x), leans
    when its trailing edge or corner is on the floor and its face down rests on the rim."""
    depth = physics["well_depth_mm"] if depth is None else depth
    side = physics["die_mm"][0]
    u = np.array([np.cos(np.radians(push)), np.sin(np.radians(push))])
    back = reach(side, Pose(turn=turn, tilt_to=push + 180))
    pivot = shift - back  # along u
    # the well's rim, where the die's face (a square of `side`, turned, centred at shift u) covers it
    w = well_half(physics)
    s = np.linspace(-w, w, 401)
    rim = np.concatenate([np.column_stack([np.full_like(s, e), s]) for e in (-w, w)]
                         + [np.column_stack([s, np.full_like(s, e)]) for e in (-w, w)])
    a = np.radians(turn)
    local = (rim - shift * u) @ np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    covered = (np.abs(local) <= side / 2).all(axis=1)
    ahead = rim[covered] @ u
    ahead = ahead[ahead > pivot + 1e-6]
    run = ahead.min() - pivot if len(ahead) else side
    return float(np.degrees(np.arctan2(depth, run)))


def bridging(physics, down, turn, push, shift, depth=None):
    """A die pushed `shift` mm towards `push` (degrees from +x) beyond what its well holds:
    its trailing bottom edge or corner on the floor, its face down on the rim ahead (it
    rests there by itself when the neighbour that way is empty)."""
    a = np.radians(push)
    return Pose(down=down, turn=turn, dx=float(shift * np.cos(a)), dy=float(shift * np.sin(a)),
                tilt=bridge_tilt(physics, turn, push, shift, depth), tilt_to=float((push + 180) % 360), lift=0.0)


def leaning(physics, down, turn, push, shift, tilt, on_rim=False):
    """A die leaning `tilt` degrees towards `push` against the die on the square that way:
    from its trailing edge on the floor (tilted further than bridging, which the neighbour
    allows), or standing on its own rim (on_rim)."""
    a = np.radians(push)
    lift = physics["well_depth_mm"] if on_rim else 0.0
    return Pose(down=down, turn=turn, dx=float(shift * np.cos(a)), dy=float(shift * np.sin(a)), tilt=float(tilt),
                tilt_to=float((push + 180) % 360), lift=lift)


def landing(physics, down, turn, tilt, toward, dx=0.0, dy=0.0, start=None, step=0.05):
    """The poses of a die lowered at `tilt` degrees on its lowest edge or corner (towards
    `toward`, degrees from +x) until that touches the floor, then tipped down flat about
    it: one pose each time its highest point has moved `step` mm. Starts with the lowest
    point `start` mm up (default: the rim plus 2 mm, where every magnet reads nothing)."""
    side = physics["die_mm"][0]
    start = physics["well_depth_mm"] + 2.0 if start is None else start
    poses = [Pose(down=down, turn=turn, dx=dx, dy=dy, tilt=tilt, tilt_to=toward, lift=float(h))
             for h in np.arange(start, 0.0, -step)]
    span = 2 * reach(side, Pose(turn=turn, tilt_to=toward))  # lowest point to highest, flat
    top = span * np.sin(np.radians(tilt))
    for h in np.arange(top, 0.0, -step):
        poses.append(Pose(down=down, turn=turn, dx=dx, dy=dy, tilt=float(np.degrees(np.arcsin(h / span))),
                          tilt_to=toward, lift=0.0))
    poses.append(Pose(down=down, turn=turn, dx=dx, dy=dy))
    return poses


def dropped(physics, down, turn, rng, dx=0.0, dy=0.0, height=None, period_ms=1.0, rest_ms=40):
    """A die let go `height` mm above its well (default 10-60 mm): it falls, bounces (each
    bounce keeps 20-50 % of its speed) and rocks on its edges (up to 25 degrees at the first
    impact, halving each swing), read every `period_ms`; it ends lying flat, then lies
    still for `rest_ms`."""
    height = rng.uniform(10, 60) if height is None else height
    keep = rng.uniform(0.2, 0.5)
    rock, toward = rng.uniform(5, 25), rng.uniform(0, 360)
    swing_ms = rng.uniform(15, 40)
    poses, h, v, t, first = [], height, 0.0, 0.0, None

    def tilt_at(t):
        if first is None:
            return rng.uniform(0, 3)  # in the air, turning a little
        since = t - first
        return abs(rock * 0.5 ** (since / swing_ms) * np.sin(np.pi * since / swing_ms))
    while True:
        v -= G * period_ms
        h += v * period_ms
        if h <= 0:
            first = t if first is None else first
            h, v = 0.0, -v * keep
            if v < 0.05:
                break
        poses.append(Pose(down=down, turn=turn, dx=dx, dy=dy, lift=float(h), tilt=float(tilt_at(t)),
                          tilt_to=float(toward)))
        if h == 0 and rng.random() < 0.1:
            toward = rng.uniform(0, 360)  # it rocks onto another edge
        t += period_ms
    while rock * 0.5 ** ((t - first) / swing_ms) > 0.05:
        poses.append(Pose(down=down, turn=turn, dx=dx, dy=dy, tilt=float(tilt_at(t)), tilt_to=float(toward)))
        t += period_ms
    poses += [Pose(down=down, turn=turn, dx=dx, dy=dy)] * int(rest_ms / period_ms)
    return poses
