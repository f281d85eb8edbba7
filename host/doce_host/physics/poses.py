"""Where a hand can leave a die, and the paths it takes on the way down, as dice.Pose.

Geometry from board.json "physics": the well (its side and depth), the die's side. The
square's centre is the origin, the well floor z = 0, the rim z = well depth.

    seated     in its well, anywhere the walls let it sit
    bridging   pushed beyond what the well holds: its trailing bottom edge (or corner) on
               the floor, the face down resting on the rim (a side's, or a corner's)
    leaning    tilted further than that against a neighbouring die, from the floor or the rim
    landing    lowered tilted onto an edge or a corner, then tipped down flat
    dropped    let go above the well: it falls, bounces and rocks before it lies flat

A die tilted in its well leans its pivot's face outwards, by the rim's height times the
tilt's tangent: the walls push it off centre, away from that face's wall (rooms, in_well),
and square it up or tip it back where it cannot fit at all (fitting, walled).
"""

from dataclasses import replace

import numpy as np

from .dice import Magnets, Pose, place, place_each, place_many, reach

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


def most_turn(physics, side):
    """The most (degrees) a die of `side` seated flat can turn in the widest well (well_play's
    for the narrowest die): a square of side a turned t spans a (cos t + sin t)."""
    return float(np.degrees(np.arcsin(min(1.0, 2 * well_half(physics) / (side * np.sqrt(2)))) - np.pi / 4))


def steepest_lean(physics, tilt_to=45.0, turn=0.0, side=None):
    """The steepest tilt (degrees) at which a die resting on the floor of its well fits in
    it, pivoting towards `tilt_to` (0: on an edge, 45: on a corner, its steepest), turned
    `turn`, in the loosest well the tolerances allow (`side`: the die's, default the
    narrowest): bisected on well_room."""
    lo, hi = 0.0, 45.0
    for _ in range(30):
        mid = (lo + hi) / 2
        fits = well_room(physics, Pose(down=6, turn=turn, tilt=mid, tilt_to=tilt_to), side) is not None
        lo, hi = (mid, hi) if fits else (lo, mid)
    return lo


# a cube's 8 corners (in half its side) and its 12 edges, as pairs of corners
CORNERS = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
EDGES = np.array([(i, j) for i in range(8) for j in range(i + 1, 8) if np.abs(CORNERS[i] - CORNERS[j]).sum() == 2])


def rooms(physics, pose_list, side=None):
    """The walls' room for each pose of one die: (low, high), each (n, 2): the offsets dx, dy
    at which the die (its turn, tilt and lift as they are) keeps every point of it below the
    rim inside its well. A pose with low > high on an axis cannot be in the well at all.

    The widest well the tolerances allow and the die's own side (default: the narrowest; an
    array: each pose's die's): the loosest fit, so every offset some board allows is in the room, and a pose refused
    fits no board's well. A proud magnet under the die is left out: the die counts as that
    much lower (< 0.1 mm), which only narrows the room."""
    side = physics["die_mm"][0] - physics["die_mm"][1] if side is None else side
    rim, w = physics["well_depth_mm"], well_half(physics)
    if np.ndim(side):  # a side per pose (a search's rows each draw their die): all at once
        at, _ = place_each([(_corners(s), s) for s in side], pose_list)
    else:
        at, _ = place_many(_corners(side), side, pose_list)
    at = at.reshape(len(pose_list), 8, 3) - np.array([(p.dx, p.dy, 0.0) for p in pose_list])[:, None, :]
    # the die's solid below the rim: its corners there, and where its edges cross the rim
    a, b = at[:, EDGES[:, 0]], at[:, EDGES[:, 1]]
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = a + (b - a) * ((rim - a[..., 2]) / (b[..., 2] - a[..., 2]))[..., None]
    points = np.concatenate([at, cross], axis=1)[..., :2]
    below = np.concatenate([at[..., 2] <= rim, (a[..., 2] - rim) * (b[..., 2] - rim) < 0], axis=1)[..., None]
    low = -w - np.where(below, points, np.inf).min(1)
    high = w - np.where(below, points, -np.inf).max(1)
    return low, high


def _corners(side):
    """A cube of `side` as the magnets of a die: its corners, for place_each to put them."""
    return Magnets(CORNERS * side / 2, np.zeros((8, 3)), np.zeros(8), np.zeros((8, 2)), {})


def well_room(physics, pose, side=None):
    """((low, high) of dx, (low, high) of dy) for one pose (rooms), or None if it cannot fit."""
    low, high = rooms(physics, [pose], side)
    if (low > high).any():
        return None
    return tuple(zip(low[0].tolist(), high[0].tolist()))


def in_well(physics, pose, side=None, at=None):
    """The pose the well allows the die in `pose`: its solid below the rim kept inside the
    well (rooms). at=None: moved the least distance from where it is, away from the wall it
    would cross (a wall pushes it); at=(fx, fy), each 0-1: that fraction of the way across
    its room (a hand or a wall may leave it anywhere in it). None if no offset fits: the die
    cannot be in the well in that pose (it rests higher: on the rim, or tipped less)."""
    return fitting(physics, [pose], side, None if at is None else [at], squaring=False)[0]


def fitting(physics, pose_list, side=None, at=None, squaring=True, steps=12):
    """Each pose of one die in its well (in_well), and a pose that cannot fit first squared
    up to the walls (turned back towards its quarter), then tipped back (less tilt, the same
    pivot), each the least that fits: a die held, tipping or rocking steeper than its well
    holds meets the walls, and they do that (squaring=False: None for it). `at`: each pose's
    fraction of its room (in_well), or None. `side`: as rooms'."""
    pose_list = list(pose_list)
    low, high = rooms(physics, pose_list, side)
    bad = np.flatnonzero((low > high).any(1)) if squaring else []
    for key, to in (("turn", lambda p: 90.0 * round(p.turn / 90)), ("tilt", lambda p: 0.0)):
        if not len(bad):
            break
        whole = np.array([getattr(pose_list[i], key) for i in bad])
        goal = np.array([to(pose_list[i]) for i in bad])

        def fits(frac):
            trial = [replace(pose_list[i], **{key: float(g + f * (v - g))})
                     for i, g, f, v in zip(bad, goal, frac, whole)]
            lo, hi = rooms(physics, trial, side[bad] if np.ndim(side) else side)
            return ~(lo > hi).any(1)
        ok_at_goal = fits(np.zeros(len(bad)))
        lo, hi = np.zeros(len(bad)), np.ones(len(bad))  # of the way from goal back to whole: lo fits, hi not
        for _ in range(steps):
            mid = (lo + hi) / 2
            f = fits(mid)
            lo, hi = np.where(f, mid, lo), np.where(f, hi, mid)
        for i, g, f, v in zip(bad, goal, lo, whole):
            pose_list[i] = replace(pose_list[i], **{key: float(g + f * (v - g))})
        bad = bad[~ok_at_goal]  # squared up it still cannot fit: it tips back too
    if squaring:
        low, high = rooms(physics, pose_list, side)
    out = []
    for k, pose in enumerate(pose_list):
        if (low[k] > high[k]).any():
            out.append(None)
            continue
        where = (np.clip((pose.dx, pose.dy), low[k], high[k]) if at is None
                 else low[k] + np.asarray(at[k]) * (high[k] - low[k]))
        out.append(replace(pose, dx=float(where[0]), dy=float(where[1])))
    return out


def walled(physics, path, side=None):
    """A path of one die (one turn throughout) with every pose in its well: squared up or
    tipped back where it cannot fit (fitting), a turn the walls gave it kept, and each pose
    moved the least from where the one before left it (a wall pushes it, nothing pulls it back)."""
    fitted = fitting(physics, path, side, squaring=True)
    square = 90.0 * round(path[0].turn / 90)
    twist = np.minimum.accumulate(np.abs([p.turn - square for p in fitted])) * np.sign(path[0].turn - square)
    fitted = [replace(p, turn=float(square + t)) for p, t in zip(fitted, twist)]
    low, high = rooms(physics, fitted, side)
    out, where = [], np.array((path[0].dx, path[0].dy))
    for k, pose in enumerate(fitted):
        if (low[k] > high[k]).any():  # squarer than it needed: fit it again on its own
            pose = fitting(physics, [replace(pose, dx=float(where[0]), dy=float(where[1]))], side)[0]
            where = np.array((pose.dx, pose.dy))
        else:
            where = np.clip(where, low[k], high[k])
        out.append(replace(pose, dx=float(where[0]), dy=float(where[1])))
    return out


def seated(physics, down, rng, quarter=None, side=None):
    """A die put into its well by hand, anywhere the walls let it sit (placed): turned as far
    as they let a die of its `side` turn (default the narrowest), across the room that turn
    leaves it (a die turned its most has none left to slide)."""
    quarter = rng.integers(4) if quarter is None else quarter
    return placed(physics, down, 90.0 * quarter, [rng.uniform(-1, 1)], [rng.random(2)], side)[0]


def placed(physics, down, turn, spin, at, side=None):
    """Dice seated flat in the widest well: each turned spin[i] (-1 to 1) of the most it can turn
    from `turn` (most_turn), at[i] = (fx, fy) of the way across the room the walls leave it at
    that turn (in_well). `side`: the dice's (default the narrowest), or an array of each one's."""
    side = physics["die_mm"][0] - physics["die_mm"][1] if side is None else side
    most = np.broadcast_to([most_turn(physics, s) * (1 - 1e-9) for s in np.ravel(side)],  # a hair less: at
                           (len(spin),))  # the most, rounding leaves no room
    return fitting(physics, [Pose(down=down, turn=float(turn + s * m)) for s, m in zip(spin, most)], side, list(at),
                   squaring=False)


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
    return replace(pose, lift=0.0, tilt=float(np.degrees(np.arctan2(proud, far))), tilt_to=float(toward))


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


def landing(physics, down, turn, tilt, toward, dx=0.0, dy=0.0, start=None, step=0.05, side=None, at=None):
    """The poses of a die lowered at `tilt` degrees on its lowest edge or corner (towards
    `toward`, degrees from +x) until that touches the floor, then tipped down flat about
    it: one pose each time its highest point has moved `step` mm. Starts with the lowest
    point `start` mm up (default: the rim plus 2 mm, where every magnet reads nothing).

    The walls decide where it lands (fitting): `at` (fx, fy, each 0-1) of the way across the
    room they leave it there, or (at=None) the least shift from dx, dy; squared up, or at less
    tilt, if it cannot land at `tilt`. It is lowered straight onto that spot (higher up, the
    well leaves it more room), then tipped flat with the walls pushing it (walled)."""
    start = physics["well_depth_mm"] + 2.0 if start is None else start
    floor = fitting(physics, [Pose(down=down, turn=turn, dx=dx, dy=dy, tilt=tilt, tilt_to=toward)], side,
                    None if at is None else [at])[0]
    poses = [replace(floor, lift=float(h)) for h in np.arange(start, 0.0, -step)]
    span = 2 * reach(physics["die_mm"][0] if side is None else side, floor)  # lowest point to highest, flat
    top = span * np.sin(np.radians(floor.tilt))
    tipping = [floor] + [replace(floor, tilt=float(np.degrees(np.arcsin(h / span))))
                         for h in np.arange(top, 0.0, -step)] + [replace(floor, tilt=0.0)]
    return poses + walled(physics, tipping, side)[1:]


def dropped(physics, down, turn, rng, dx=0.0, dy=0.0, height=None, period_ms=1.0, rest_ms=40, side=None):
    """A die let go `height` mm above its well (default 10-60 mm): it falls, bounces (each
    bounce keeps 20-50 % of its speed) and rocks on its edges (up to 25 degrees at the first
    impact, halving each swing), read every `period_ms`; it ends lying flat, then lies
    still for `rest_ms`. The walls push it, square it up and stop its rocking (walled)."""
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
    flat = walled(physics, poses + [Pose(down=down, turn=turn, dx=dx, dy=dy)], side)
    return flat + flat[-1:] * (int(rest_ms / period_ms) - 1)
