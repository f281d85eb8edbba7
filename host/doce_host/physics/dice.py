"""A die's magnets, from the die code, and where a pose puts them.

A die (or a blocker) is a cube with a magnet code on every face: the face with d pips
carries the code that board.json's "dice" table gives to "<colour> <7 - d>", because that
face is down when 7 - d is up. A blocker carries its one code on all six faces.

Codes are read as seen from ABOVE the board, through the die: position N points to
black's side (+y), E to the right (+x). A '+' magnet has its south pole facing out of
the face, so under it the field points up and the DRV5055 reads above its quiescent
voltage (datasheet SBAS640, 6.3.1 Magnetic Flux Direction).

Frames: the square's centre is the origin, z up, the well floor (where a seated die's
face rests) at z = 0. Millimetres and millitesla.
"""

from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from .geometry import FACES, MIRRORED, SIGNS, Pose, codes_by_piece, frames, layout
from .tolerances import Spread

__all__ = ["FACES", "SIGNS", "Pose", "codes_by_piece", "Magnets", "build", "build_many", "place", "place_many",
           "place_each", "reach", "bz", "bz_pairs"]


@dataclass
class Magnets:
    """Magnets in a die's own frame (origin at its centre): one row each."""
    at: np.ndarray  # (n, 3) centre of each magnet
    axis: np.ndarray  # (n, 3) outward normal of its face
    polarisation: np.ndarray  # (n,) mT along `axis`
    size: np.ndarray  # (n, 2) diameter, height
    glue: dict  # pips -> quarter turns its face's code was glued at
    proud: dict = None  # pips -> mm its face's proudest magnet stands out: the die rests on it
    face: np.ndarray = None  # (n,) the pips of each magnet's face
    recess: np.ndarray = None  # (n,) mm each magnet's face is below its die face's (< 0: proud)
    hand: int = 0  # 0: its faces as FACES; 1: the mirror-image die (geometry.MIRRORED)

    def __len__(self):
        return len(self.at)


def build(piece, dice, physics, rng=None, faults=(), hole=None, pins=None):
    """The magnets of one die. `piece` is 'white 4' or 'white blocker' (any face of the
    die names it); with `rng`, every magnet is drawn within its tolerances and each face's
    code is glued at a random quarter turn, and the die is of either hand (geometry.MIRRORED).
    `faults`: (pips of a face, position 0-4 in C N E
    S W order, 'missing' | 'reversed' | 'extra+' | 'extra-' | ('weak', fraction of its
    remanence) | ('sunk', mm deeper than flush)): a die built wrong. `hole`: the
    pockets' drill (board.json mechanics.jig.drill_mm), in which a narrower magnet sits off
    centre (None: every magnet centred). `pins`: tolerances pinned by name (tolerances.py)."""
    (at, axis, pol, size, glued, proud, faces, sunk, hand), side = layout(piece, dice, physics, Spread(rng, pins),
                                                                    faults, hole)
    return Magnets(np.array(at), np.array(axis), np.array(pol), np.array(size), glued, proud, np.array(faces),
                   np.array(sunk), hand), side


def build_many(piece, dice, physics, rng, pins, n, faults=(), hole=None):
    """build() for `n` dice at once, alike but for their pinned tolerances: `pins` as build's,
    each continuous one with one value per die on its last axis (a slip's (2, n)), each face's
    glue and the hand one value or one per die (n,); every draw not pinned the same for all n.
    The die i is build(..., pins of die i)'s, to the bit: layout computes it once, on arrays."""
    (at, axis, pol, size, glued, proud, faces, sunk, hand), side = layout(
        piece, dice, physics, Spread(rng, pins), faults, hole, larger=np.maximum)

    zero = np.zeros(n)

    def rows(values):  # (n, ...) from nested lists whose leaves are numbers or (n,) arrays
        return np.moveaxis(np.array([[c + zero for c in v] if isinstance(v, (list, tuple)) else v + zero
                                     for v in values]), -1, 0)
    at, axis, pol, size, sunk = rows(at), rows(axis), rows(pol), rows(size), rows(sunk)
    side, proud = side + zero, {p: v + zero for p, v in proud.items()}
    faces = np.array(faces)
    glued, hand = {p: g + zero.astype(int) for p, g in glued.items()}, hand + zero.astype(int)
    return [(Magnets(at[i], axis[i], pol[i], size[i], {p: int(g[i]) for p, g in glued.items()},
                     {p: float(v[i]) for p, v in proud.items()}, faces, sunk[i], int(hand[i])), float(side[i]))
            for i in range(n)]


def _seat(down, hand=0):
    """The rotation matrix that puts face `down` on the board, its code's N towards +y."""
    normal, north = frames(hand)[down]
    n, t = np.array(normal, float), np.array(north, float)
    source = np.column_stack([np.cross(n, t), t, n])
    return np.array([[1, 0, 0], [0, 1, 0], [0, 0, -1]], float) @ source.T


SEATS = ({pips: _seat(pips) for pips in FACES}, {pips: _seat(pips, 1) for pips in MIRRORED})  # by hand


def _about(axis, degrees):
    """Rotation matrix by `degrees` about the unit vector `axis` (Rodrigues)."""
    x, y, z = axis
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]], float)
    a = np.radians(degrees)
    return np.eye(3) + np.sin(a) * k + (1 - np.cos(a)) * k @ k


def place(magnets, side, pose, centre=(0.0, 0.0)):
    """(positions, axes) of the magnets in the board frame for a die in `pose` on the
    square whose centre is `centre`."""
    return place_many(magnets, side, [pose], centre)


def place_many(magnets, side, poses, centre=(0.0, 0.0)):
    """place() for a list of poses of one die at once (the same face down in every pose):
    positions and axes, shape (len(poses) * len(magnets), 3), pose by pose."""
    return place_each([(magnets, side)] * len(poses), poses, centre)


def place_each(dice_list, poses, centre=(0.0, 0.0)):
    """place() for each pose of its own die (dice of as many magnets, the same face down in
    every pose): positions and axes, shape (len(poses) * magnets, 3), pose by pose.

    A pose's lift is its lowest point's: flat, a magnet standing proud of the face down
    holds the die up by as much; tilted past resting on it, the die is on its edge."""
    p = np.array([(q.turn, q.dx, q.dy, q.lift, q.tilt, q.tilt_to) for q in poses], float).reshape(-1, 6)
    turn, dx, dy, lift, tilt, toward = p.T
    down = poses[0].down
    first = dice_list[0][0]
    same = all(d[0] is first for d in dice_list)  # one die in every pose: its arrays once
    stack = (lambda what: getattr(first, what)[None]) if same else (
        lambda what: np.array([getattr(d[0], what) for d in dice_list]))
    seat = np.array([SEATS[d[0].hand][down] for d in dice_list])
    side = np.array([d[1] for d in dice_list], float)
    r = np.einsum("pij,pjk->pik", _about_z(turn), seat)
    proud = np.array([_proud(d[0], down) for d in dice_list])
    shift = np.column_stack([centre[0] + dx, centre[1] + dy, side / 2 + lift + proud])
    m_at, m_axis = stack("at"), stack("axis")
    at = np.einsum("pij,pmj->pmi", r, np.broadcast_to(m_at, (len(p),) + m_at.shape[1:])) + shift[:, None, :]
    axis = np.einsum("pij,pmj->pmi", r, np.broadcast_to(m_axis, (len(p),) + m_axis.shape[1:]))
    a = np.radians(toward)
    u = np.column_stack([np.cos(a), np.sin(a), np.zeros(len(p))])
    b = np.radians(toward - turn)
    far = side / 2 * (abs(np.cos(b)) + abs(np.sin(b)))  # reach() of each pose
    pivot = shift - np.column_stack([np.zeros((len(p), 2)), side / 2]) + u * far[:, None]
    if (proud > 0).any():  # how much lower the die is, its lowest point the pivot or a proud magnet's face
        recess = stack("recess")
        out = (stack("face") == down) & (recess < 0)
        tip = m_at + m_axis * (stack("size")[..., 1] / 2)[..., None]
        tip = np.einsum("pij,pmj->pmi", r, np.broadcast_to(tip, (len(p),) + tip.shape[1:]))
        reach_in = far[:, None] - np.einsum("pmi,pi->pm", tip, u)
        t = np.radians(tilt)[:, None]
        below = np.where(out, reach_in * np.sin(t) + recess * np.cos(t), np.inf)
        drop = np.where(proud > 0, proud + np.minimum(0.0, below.min(1)), 0.0)
        at[..., 2] -= drop[:, None]
        pivot[:, 2] -= drop
    lean = _about_many(np.cross((0.0, 0.0, 1.0), u), tilt)
    at = np.einsum("pij,pmj->pmi", lean, at - pivot[:, None, :]) + pivot[:, None, :]
    axis = np.einsum("pij,pmj->pmi", lean, axis)
    return at.reshape(-1, 3), axis.reshape(-1, 3)


def _proud(magnets, down):
    """A magnet standing out of the face down holds the die up by as much (a pose's `lift`
    is the die's own lowest point)."""
    return (magnets.proud or {}).get(down, 0.0)


def _about_z(degrees):
    a = np.radians(degrees)
    r = np.zeros((len(a), 3, 3))
    r[:, 0, 0], r[:, 0, 1], r[:, 1, 0], r[:, 1, 1], r[:, 2, 2] = np.cos(a), -np.sin(a), np.sin(a), np.cos(a), 1
    return r


def _about_many(axes, degrees):
    """Rotation matrices by `degrees` about each unit vector of `axes` (Rodrigues)."""
    x, y, z = np.asarray(axes, float).T
    k = np.zeros((len(x), 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 0], k[:, 1, 2], k[:, 2, 0], k[:, 2, 1] = -z, y, z, -x, -y, x
    a = np.radians(degrees)[:, None, None]
    return np.eye(3) + np.sin(a) * k + (1 - np.cos(a)) * k @ k


def reach(side, pose):
    """How far the face down reaches from the die's centre towards `pose.tilt_to`: to the
    middle of an edge (side / 2) or, between edges, to the corner (up to side / sqrt 2)."""
    a = np.radians(pose.tilt_to - pose.turn)
    return side / 2 * (abs(np.cos(a)) + abs(np.sin(a)))


def bz(at, axis, polarisation, size, sensors, dipole=False):
    """The vertical field (mT) at each sensor from every magnet, summed: shape (len(sensors),)."""
    if len(at) == 0:
        return np.zeros(len(sensors))
    obs = np.broadcast_to(np.asarray(sensors, float), (len(at),) + np.shape(sensors))
    return bz_pairs(at, axis, polarisation, size, obs, dipole).sum(0)


def bz_pairs(at, axis, polarisation, size, observers, dipole=False):
    """The vertical field (mT) of magnet i at each of its own observers[i]: shape (m, k).

    magpylib computes each magnet as the cylinder it is, or as a point dipole of the same
    moment (four times quicker, and within 2% beyond three diameters), in SI units."""
    import magpylib
    m, k = observers.shape[:2]
    obs = observers.reshape(-1, 3) / 1000
    pos = np.repeat(at, k, 0) / 1000
    orient = Rotation.from_quat(np.repeat(_pointing(axis), k, 0))
    pol = np.repeat(polarisation, k) / 1000
    zero = np.zeros_like(pol)
    if dipole:
        volume = np.pi * (np.repeat(size[:, 0], k) / 2000) ** 2 * (np.repeat(size[:, 1], k) / 1000)
        moment = pol * volume / (4e-7 * np.pi)
        b = magpylib.func.dipole_field("B", obs, np.column_stack([zero, zero, moment]), pos, orient)
    else:
        dims = np.repeat(size, k, 0) / 1000
        b = magpylib.func.cylinder_field("B", obs, dims, np.column_stack([zero, zero, pol]), pos, orient)
    return (np.reshape(b, (-1, 3))[:, 2] * 1000).reshape(m, k)


def _pointing(axis):
    """Quaternions that turn +z into each row of `axis` (a cylinder is symmetric about it)."""
    axis = np.asarray(axis, float)
    q = np.column_stack([-axis[:, 1], axis[:, 0], np.zeros(len(axis)), 1 + axis[:, 2]])
    down = q[:, 3] < 1e-9  # +z to -z: half a turn about x
    q[down] = (1, 0, 0, 0)
    return q / np.linalg.norm(q, axis=1)[:, None]
