"""The dice's and the board's geometry in plain Python (no numpy), shared by the model
(dice.py, scene.py) and the simulator's hands (doce_host.sim.fields), so that a player's
install simulates a board without the design tools.

A die's magnets come from the die code (board.json "dice"): the face with d pips carries
the code of "<colour> <7 - d>", because that face is down when 7 - d is up; a blocker
carries its one code on all six faces. dice.py says how codes, faces and frames are read.
"""

import math
from dataclasses import dataclass

from doce.game import face, is_blocker
from doce.squares import parse_square
from doce.squares import piece as piece_value

# A standard die: each face's outward normal, and the in-face direction that its code's
# N position points along. Opposite faces sum to 7.
FACES = {
    1: ((0, 0, 1), (0, 1, 0)), 6: ((0, 0, -1), (0, 1, 0)),
    2: ((0, -1, 0), (0, 0, 1)), 5: ((0, 1, 0), (0, 0, 1)),
    3: ((1, 0, 0), (0, 0, 1)), 4: ((-1, 0, 0), (0, 0, 1)),
}
# The mirror-image die: a blank's pips may run either way round (1, 2, 3 anticlockwise about
# their corner, as on most dice, or clockwise), each face's code still glued as the dice sheet
# draws it, seen from outside. Faces 3 and 4 change places; the others stay.
MIRRORED = {**FACES, 3: FACES[4], 4: FACES[3]}
SIGNS = {"+": -1.0, "-": 1.0, "0": 0.0}  # polarisation along the outward normal: '+' points in
RING = ((0, 0), (0, 1), (1, 0), (0, -1), (-1, 0))  # a square's sensors C, N, E, S, W as (x, y) steps


@dataclass(frozen=True)
class Pose:
    """Where a die sits on its square.

    down: the pips on the face down (the face up is 7 - down); turn: degrees about the
    vertical; dx, dy: offset of its centre from the square's; lift: how far its lowest
    point is above the well floor; tilt: degrees it leans, pivoting on its lowest point
    in the direction `tilt_to` (degrees from +x): the bottom edge that faces that way, or
    the corner between two edges when it points between them."""
    down: int = 6
    turn: float = 0.0
    dx: float = 0.0
    dy: float = 0.0
    lift: float = 0.0
    tilt: float = 0.0
    tilt_to: float = 0.0


def codes_by_piece(dice):
    """{'white 4': '+0+--', ...} from board.json's {code: piece}."""
    return {name: code for code, name in dice.items()}


def face_down(piece):
    """The pips on the face down for a piece named by its face up (a blocker: any face)."""
    value = piece_value(piece)
    return 6 if is_blocker(value) else 7 - face(value)


def layout(piece, dice, physics, draw, faults=(), hole=None, larger=max):
    """The magnets of one die as plain lists, and its side: dice.build's work (read its
    docstring), drawn through `draw`, a tolerances.Spread or anything with its `uniform`
    and `integers` (the same draws in the same order, so a seed builds the same die).
    Many dice at once (dice.build_many): `draw` gives each value as an array, one per die,
    and `larger` is numpy's elementwise maximum; every figure is then such an array, and
    the glue turns and the hand may be too (pinned per die).
    The die's hand (MIRRORED) is drawn last, so that every draw before it stays as it was.
    A kind of die that the dice sheet glues by a rule (board.json physics.magnet.toward: each
    face's N towards the face it names) is glued so, whatever its glue draws say.
    Returns (at, axis, polarisation, size, glue, proud, faces, recess, hand), side."""
    colour, what = piece.split()
    codes = codes_by_piece(dice)
    m = physics["magnet"]
    side = physics["die_mm"][0] + draw.uniform(-1, 1, name="die side") * physics["die_mm"][1]
    ring = physics["ring_mm"]
    at, axis, pol, size, glued, proud, faces, sunk = [], [], [], [], {}, {}, [], []
    rings = []  # (magnet, its face's ring directions, k): placed on the ring once the glue is known
    for pips, (n, t) in FACES.items():
        code = codes[colour + " blocker"] if what == "blocker" else codes["%s %d" % (colour, 7 - pips)]
        e = cross(n, t)
        glue = _whole(draw.integers(4, name=("glue", pips)))
        glued[pips] = glue
        ring_dirs = [t, e, scaled(t, -1), scaled(e, -1)]
        proud[pips] = 0.0
        for k, mark in enumerate(code):
            sign = SIGNS[mark]
            fault = next((f[2] for f in faults if f[0] == pips and f[1] == k), None)
            if fault in ("extra+", "extra-") and sign == 0:
                sign = SIGNS[fault[-1]]
            if sign == 0 or fault == "missing":
                continue
            if fault == "reversed":
                sign = -sign
            weak, deeper = _degraded(fault)
            d = m["diameter_mm"] + draw.uniform(-1, 1, name=("diameter", pips, k)) * m["size_tol_mm"]
            h = m["height_mm"] + draw.uniform(-1, 1, name=("height", pips, k)) * m["size_tol_mm"]
            # pressed flush with a flat plate into a pocket deeper than it (pocket_mm), its glue
            # behind it: its face `recess` below the die's (face_recess_mm; < 0 would be proud)
            recess = draw.uniform(*m["face_recess_mm"], name=("recess", pips, k)) + deeper
            proud[pips] = larger(proud[pips], -recess)
            where = scaled(n, side / 2 - recess - h / 2)
            if k:
                rings.append((len(at), ring_dirs, k))
            # the jig's drilling tolerance, and the magnet's play in its hole
            play = larger(0.0, hole - d) / 2 if hole else 0.0  # a magnet narrower than its hole
            slip, loose = draw.uniform(-1, 1, 2, name=("slip", pips, k)), draw.uniform(-1, 1, 2, name=("play", pips, k))
            along, across = (slip[0] * m["place_tol_mm"] + loose[0] * play,
                             slip[1] * m["place_tol_mm"] + loose[1] * play)
            where = plus(plus(where, scaled(t, along)), scaled(e, across))
            br = draw.uniform(*m["remanence_mT"], name=("remanence", pips, k)) * weak
            at.append(where)
            axis.append(tuple(float(c) for c in n))
            pol.append(sign * br)
            size.append((d, h))
            faces.append(pips)
            sunk.append(recess)
    hand = _whole(draw.integers(2, name="hand"))
    rule = glue_rule(piece, physics)
    if rule:
        glued = {pips: _toward_either(pips, int(rule[str(pips)]), hand) for pips in FACES}
    for i, ring_dirs, k in rings:
        at[i] = plus(at[i], scaled(_pick(ring_dirs, (k - 1 + glued[faces[i]]) % 4), ring))
    if isinstance(hand, int):
        if hand:  # faces 3 and 4 trade places: half a turn about the die's vertical, each as glued
            for i, pips in enumerate(faces):
                if pips in (3, 4):
                    at[i] = (-at[i][0], -at[i][1], at[i][2])
                    axis[i] = (-axis[i][0], -axis[i][1], axis[i][2])
    else:  # a hand per die (build_many): turned by a sign, -1 where mirrored (x * -1 is -x to the bit)
        turned = 1 - 2 * hand
        for i, pips in enumerate(faces):
            if pips in (3, 4):
                at[i] = (at[i][0] * turned, at[i][1] * turned, at[i][2])
                axis[i] = (axis[i][0] * turned, axis[i][1] * turned, axis[i][2])
    return (at, axis, pol, size, glued, proud, faces, sunk, hand), side


def _whole(drawn):
    """A drawn glue turn or hand as an int, or as it is if one per die (an array, build_many)."""
    return drawn if hasattr(drawn, "__len__") else int(drawn)


def _pick(options, index):
    """options[index], or, for an index per die (an array), each die's: a direction whose parts
    are 0 or +-1, each part the sum of the one option chosen and zeros (exact)."""
    if isinstance(index, int):
        return options[index]
    return tuple(sum((index == q) * o[c] for q, o in enumerate(options)) for c in range(3))


def _toward_either(pips, other, hand):
    """glue_toward for a hand, or for a hand per die (an array of 0 and 1)."""
    if isinstance(hand, int):
        return glue_toward(pips, other, hand)
    first = glue_toward(pips, other, 0)
    return first + (glue_toward(pips, other, 1) - first) * hand


def glue_rule(piece, physics):
    """The dice sheet's rule for gluing `piece`'s kind of die ({face: the face its N points at},
    board.json physics.magnet.toward), or None: each face glued at whatever turn it is drawn."""
    colour, what = piece.split()
    return (physics["magnet"].get("toward") or {}).get(piece if what == "blocker" else colour) or None


def _degraded(fault):
    """(fraction of its remanence, mm deeper) of a magnet with `fault`: ('weak', fraction) or
    ('sunk', mm), anything else (1.0, 0.0)."""
    if isinstance(fault, tuple) and fault[0] == "weak":
        return float(fault[1]), 0.0
    if isinstance(fault, tuple) and fault[0] == "sunk":
        return 1.0, float(fault[1])
    return 1.0, 0.0


def glue_toward(pips, other, hand=0):
    """The quarter turn that points face `pips`'s N at face `other` on a die of `hand` (layout
    builds faces 3 and 4 of a mirrored die as FACES has them, then turns them half a turn)."""
    n, t = FACES[pips]
    target = frames(hand)[other][0]
    if hand and pips in (3, 4):
        target = (-target[0], -target[1], target[2])
    e = cross(n, t)
    for glue, d in enumerate((t, e, scaled(t, -1), scaled(e, -1))):
        if tuple(d) == tuple(target):
            return glue
    raise ValueError("face %d's N cannot point at face %d: not its neighbour" % (pips, other))


def frames(hand):
    """Each face's (outward normal, its code's N) on a die of `hand` (0: FACES, 1: MIRRORED)."""
    return MIRRORED if hand else FACES


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def scaled(v, k):
    return (v[0] * k, v[1] * k, v[2] * k)


def plus(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


# -- the board ----------------------------------------------------------------------------

def square_centre(spec, name):
    pitch, sq = spec["physics"]["square_mm"], parse_square(spec["grid"], name)
    return sq % spec["grid"] * pitch, sq // spec["grid"] * pitch


def sensor_places(spec):
    """[(x, y, z) or None] where each channel's hall element sits (None for inputs with no
    sensor), for the nominal plate; squares from a1 at the origin, a..e along +x, 1..5 along +y."""
    ph = spec["physics"]
    depth = ph["floor_mm"][0] + ph["air_mm"][0] + ph["sensor"]["hall_depth_mm"][0]
    at = [None] * (spec["sensing"]["groups"] * spec["sensing"]["channels_per_group"])
    for name, chans in spec["squares"].items():
        cx, cy = square_centre(spec, name)
        for (sx, sy), ch in zip(RING, chans):
            at[ch] = (cx + sx * ph["ring_mm"], cy + sy * ph["ring_mm"], -depth)
    return at


def well_limits(physics):
    """(offset, turn): how far a die seated in its well can sit off centre (mm) and turn
    (degrees), at the loosest die and well the tolerances allow."""
    die = physics["die_mm"][0] - physics["die_mm"][1]
    well = physics["well_mm"][0] + physics["well_mm"][1]
    # a square of side a turned by t spans a(cos t + sin t)
    turn = math.degrees(math.asin(well / (die * math.sqrt(2))) - math.pi / 4)
    return (well - die) / 2, float(turn)
