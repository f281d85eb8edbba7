"""Worst cases, searched: for dice and boards drawn within board.json's tolerances, each
family's pose parameters are optimised to bring the (noiseless) reading as near as it can
come to another piece, or, for a seated die, to not reading right.

The search is a random start (`starts` poses) and rounds of shrinking steps around the
best few, on every pose parameter at once; with the tolerances searched too, the best is
then pushed to their ends (_to_corners). Its result is a margin in counts (how far the
nearest wrong reading still is) and the pose that gave it. A family that tilts a die in its
well puts it where the well's walls allow (poses.in_well): a pose the walls refuse is not
read, and every offset they allow is a parameter's range.

A seated die sits anywhere the walls let it: turned at most as far as its side allows in the
widest well, and across the room that turn leaves (a die turned its most cannot also slide).
Its worst is searched so that it repeats by cornered(): from every corner of that room
instead of random starts, for each sensor and hand (issue 40: two seeds within 0.3 mT); deep(),
so `make physics` and tune, search a seated family so.
"""

from dataclasses import dataclass, replace

import numpy as np

from doce.squares import piece as piece_value

from . import dice, poses, readout
from .geometry import glue_rule
from .reading import Boards, Fields
from .scene import face_down


@dataclass
class Family:
    """A pose family as `make(physics, down, turn, params, die)` -> Pose, with each parameter's
    (low, high); `seated`: measure reading right instead of reading wrong."""
    make: object
    bounds: tuple
    seated: bool = False
    built_wrong: bool = False  # seated, a die built wrong: the largest margin to passing the dice check is the worst
    checked: bool = False  # seated on the dice check's square: the margin to passing it (reading right, each
                           # magnet at least its check_above), not only to reading right
    many: object = None  # make() for many rows at once, (physics, down, turn, params (n, k), dice) -> poses

    def make_all(self, physics, down, turn, params, dice_list):
        if self.many is not None:
            return self.many(physics, down, turn, params, dice_list)
        return [self.make(physics, down, turn, p, d) for p, d in zip(params, dice_list)]


def families(physics):
    offset, twist = poses.well_play(physics)
    depth = physics["well_depth_mm"]
    lean = poses.steepest_lean(physics) + 0.5  # a die on the floor leans no further (its walls)
    # anywhere the walls let it sit: turned p[2] of the most they let this die turn, then p[0:2]
    # of the way across the room that turn leaves (a die turned its most has none to slide)
    seated = Family(_seated_pose, ((0, 1), (0, 1), (-1, 1), (0, 360)), seated=True, many=_seated_poses)
    return {
        "seated": seated,
        # a die built wrong, seated on the dice check's square: the check passes it only if it reads
        # as its own piece there and each magnet reads at least its check_above (doce/dice.py), so
        # its worst is its largest margin to passing
        "seated, built wrong": replace(seated, built_wrong=True, checked=True),
        # a die built right on the dice check's square: it must pass (its bands are searched so)
        "seated, checked": replace(seated, checked=True),
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
        "held on the way down": Family(_held_pose,
                                       ((0, 25), (0, 360), (0, depth + 2), (0, 1), (0, 1), (-twist, twist)),
                                       many=_held_poses),
        # the same held low and nearly flat, no steeper than the walls let it lean on the floor: a
        # random start above rarely comes there, where a die fades whole and its tilt lifts one
        # side's magnets a little further (the independent checker's wrong reads, issue 23)
        "held low": Family(_held_pose, ((0, lean), (0, 360), (0, 4), (0, 1), (0, 1), (-twist, twist)),
                           many=_held_poses),
        # its lowest edge or corner on the floor (a landing's second half): the same less the lift,
        # which a random start in the family above rarely puts at 0; no steeper than the walls let
        # a die lean there, so the starts are spent on poses that fit
        "tipping flat": Family(_tipping_pose, ((0, lean), (0, 360), (0, 1), (0, 1), (-twist, twist)),
                               many=_tipping_poses),
    }


def _seated_pose(physics, down, turn, p, die):
    """The seated family's pose: turned p[2] (-1 to 1) of the most the widest well lets a die of
    its side turn, p[0:2] of the way across the room left at that turn, rocked towards p[3]."""
    return _seated_poses(physics, down, turn, np.asarray(p, float)[None], [die])[0]


def _seated_poses(physics, down, turn, params, dice_list):
    """_seated_pose for each row of `params` and its die: the walls' room worked out for every
    row at once (poses.placed, each row at its own die's side)."""
    sides = np.array([d[1] for d in dice_list], float)
    placed = poses.placed(physics, down, turn, params[:, 2], params[:, :2], sides)
    return [None if pose is None else poses.rocked(pose, die, toward)
            for pose, die, toward in zip(placed, dice_list, params[:, 3])]


def _held_pose(physics, down, turn, p, die):
    """The held families' pose: tilted p[0] towards p[1], p[2] up, over the spot p[3:5] of the
    walls' room, turned p[5] more (_held)."""
    return _held_poses(physics, down, turn, np.asarray(p, float)[None], [die])[0]


def _held_poses(physics, down, turn, params, dice_list):
    """_held_pose for each row of `params` and its die: held in the well (poses.in_well) over the
    spot p[3:5] of the walls' room where it lands at this tilt, or, if it cannot reach the floor
    so, where it is (None if nowhere); the walls worked out for every row at once (a search
    scores hundreds of rows a call, each alone took a poses.fitting)."""
    held = [poses.Pose(down=down, turn=turn + p[5], tilt=p[0], tilt_to=p[1], lift=p[2]) for p in params]
    floor = _in_well_each(physics, [replace(pose, lift=0.0) for pose in held], dice_list, params[:, 3:5])
    out = [None if f is None else replace(f, lift=pose.lift) for f, pose in zip(floor, held)]
    wedged = [k for k, f in enumerate(floor) if f is None]
    if wedged:
        again = _in_well_each(physics, [held[k] for k in wedged], [dice_list[k] for k in wedged], None)
        for k, pose in zip(wedged, again):
            out[k] = pose
    return out


def _tipping_pose(physics, down, turn, p, die):
    """The "tipping flat" family's pose: tilted p[0] towards p[1], its lowest edge on the floor,
    p[2:4] of the way across the walls' room, turned p[4] more."""
    return _tipping_poses(physics, down, turn, np.asarray(p, float)[None], [die])[0]


def _tipping_poses(physics, down, turn, params, dice_list):
    """_tipping_pose for each row of `params` and its die, the walls worked out at once."""
    tipped = [poses.Pose(down=down, turn=turn + p[4], tilt=p[0], tilt_to=p[1]) for p in params]
    return _in_well_each(physics, tipped, dice_list, params[:, 2:4])


def _in_well_each(physics, pose_list, dice_list, at):
    """poses.in_well of each pose for its die (at: each row's (fx, fy), or None), in one
    poses.fitting, each pose at its die's side: the walls' room of a pose depends on it and its
    side alone (a search drawing every tolerance has as many sides as rows)."""
    sides = np.array([d[1] for d in dice_list], float)
    return poses.fitting(physics, pose_list, sides, None if at is None else list(at), squaring=False)


# The tolerances searched with a pose (tolerances.py's names): per magnet of every face, the
# face down first, then the four sides, then the face up (C N E S W; then its slip and its play
# in the hole, two each); each side face's glue turn and the die's hand; per sensor of the
# square, per square and board; each a fraction of its range. A side face's magnet near the
# floor reads several mT at the ring sensor under it (issue 40), so every magnet is searched.
MAGNET = ("remanence", "diameter", "height", "recess")
PLACE = 4  # slip (2) and play (2)
PER_FACE = 5 * (len(MAGNET) + PLACE)
BOARD = (("floor", 1), ("air", 5), ("hall depth", 5), ("quiescent", 5), ("sensitivity", 5), ("switch drop", 5),
         ("vref", 1), ("inl", readout.INL_KNOTS), ("supply", 1), ("board quiescent", 1),
         ("saturation low", 5), ("saturation high", 5))
GLUES = 1 + 6 * PER_FACE  # where the side faces' glue turns start, then the hand
TOLERANCES = GLUES + 4 + 1 + sum(n for _, n in BOARD)  # die side, magnets, side glues, hand, board


def down_magnet(k, what):
    """The index, among the tolerances (worst's `fixed`), of `what` (MAGNET's) of the magnet at
    position k (C N E S W) of the face down: face_order puts that face first, after the die side."""
    return 1 + k * (len(MAGNET) + PLACE) + MAGNET.index(what)


def face_order(down):
    """The faces in the order their magnets' tolerances are searched: down, the sides, up."""
    return [down] + [p for p in range(1, 7) if p not in (down, 7 - down)] + [7 - down]


# A deep search, for a worst case with every tolerance searched (campaign, tune): a shallower
# one (300 starts, 5 rounds, 3 passes) found a held black 1 of the design before 3.5 mT from
# another piece where this finds it read as black's blocker (tests/physics/test_poses.py).
# Not converged: two deep searches of one family may still differ by a mT or two.
DEEP = {"starts": 3000, "rounds": 8, "corners": 6}
# A seated die's from random starts, one sensor at a time: what cornered() replaced (its worsts
# did not repeat); the tests' measure of what aiming at a sensor gains
SEATED = {"starts": 1000, "rounds": 6, "corners": 8}


SEATED_CORNERS = (0, 1)  # the seated family's offset (x, y) across its room: cornered()'s starts (the turn polished)


def cornered(reader, name, family, rng, tolerances, readings=None, hands=(0, 1), polish=1, passes=8):
    """(margin, (pose, fractions)) of a seated die's worst, searched so that it repeats: for each
    hand of die and each of its five sensors, worst() aimed at that sensor from every corner of
    the die's room in its well (pose_corners), then polished (its turn too). Random starts on
    some 300 parameters fell into whichever basin they began in (a magnet slipped, played and
    pushed one way or the other, which no one tolerance moved alone leaves): black 6's W by two
    seeds 2.2 and 1.8 mT apart by 0.4. The die keeps one quarter turn (0): every sensor's
    tolerances are the same, so a turn only moves which sensor reads which magnet, and the
    five searches cover every magnet of the face (drawn per search, two could aim at one)."""
    best, reading = (np.inf, None), []
    sign = -1 if family.built_wrong else 1  # built wrong, the worst is the largest margin (worst())
    for hand in hands:
        for sensor in range(5):
            found = []
            m, pose = worst(reader, None, None, name, None, family, rng, tolerances=tolerances, readings=found,
                            sensor=sensor, turn=0, fixed={GLUES + 4: float(hand)}, pose_corners=SEATED_CORNERS,
                            polish=polish, corners=passes)
            if sign * m < sign * best[0] or best[1] is None:
                best, reading = (m, pose), found
    if readings is not None:
        readings.extend(reading)
    return best


def deep(reader, name, family, rng, tolerances, readings=None):
    """(margin, (pose, fractions)) of `name`'s worst in `family`, every tolerance searched: a
    seated family's by cornered() (a seated die reads right only if each of its five sensors
    does: a search for the smallest of the five follows whichever is smallest at its start,
    most often a fringe, while the weakest magnet's reading, saturated toward the sensor's
    rail, shows it no slope; from random starts it did not repeat), any other's from random
    starts (DEEP)."""
    if family.seated:
        return cornered(reader, name, family, rng, tolerances, readings)
    return worst(reader, None, None, name, None, family, rng, tolerances=tolerances, readings=readings, **DEEP)


def _to_corners(score, params, margin, first, passes, held=None):
    """A worst case's tolerances (params[first:]) pushed to their ends: each pass scores every
    tolerance moved alone to 0 and to 1, then takes every move that helped at once, or, if
    together they do not, the best alone. A margin is most often worst at a tolerance's end
    (a weaker magnet, a deeper sensor), which a random search's shrinking steps seldom reach
    on 80 parameters at once. `held`: a mask of the tolerances not to move. Returns
    (params (1, n), margin (1,))."""
    free = first + (np.flatnonzero(~held) if held is not None else np.arange(len(params) - first))
    params, margin, _ = _corner_passes(score, params, margin, free, passes)
    return params[None], np.array([margin])


def _corner_passes(score, params, margin, cols, passes):
    """_to_corners over the columns `cols` of params: (params, margin, the columns whose moves
    changed the margin in the first pass: the ones that matter for this pose)."""
    changed = None
    for _ in range(passes):
        moves = np.repeat(params[None], 2 * len(cols), 0)
        at = np.arange(len(moves))
        moves[at, cols[at // 2]] = at % 2
        m, _, _ = score(moves)
        if changed is None:
            changed = np.unique(cols[at[m != margin] // 2])
        better = m < margin
        if not better.any():
            break
        together = params.copy()
        for k in np.flatnonzero(better)[np.argsort(m[better])[::-1]]:  # the best move last: it wins a tie
            together[cols[k // 2]] = k % 2
        m_all, _, _ = score(together[None])
        best = int(np.argmin(m))
        params, margin = (together, m_all[0]) if m_all[0] < m[best] else (moves[best], m[best])
    return params, margin, changed if changed is not None else cols[:0]


def _from_pose_corners(score, mode, lo, hi, first, which, passes):
    """worst()'s start from every corner of the pose parameters `which`: (params (1, n), margin
    (1,)) of the worst descent. While mode["field"], `score` follows the aimed sensor's field:
    each start then descends by its field first, then by its margin. Each objective's columns
    that mattered in the first start's first pass are the ones moved from the other starts
    (the field depends on no part of the readout); the best is pushed over all of them at the
    end (_polish)."""
    free = first + np.flatnonzero(lo[first:] != hi[first:])
    active, best = {}, (np.inf, None)
    steps = (True, False) if mode["field"] else (False,)
    for corner in np.ndindex(*(2,) * len(which)):
        p = (lo + hi) / 2
        p[which] = np.where(np.array(corner) == 1, hi[which], lo[which])
        for field in steps:
            mode["field"] = field
            m = score(p[None])[0][0]
            p, m, changed = _corner_passes(score, p, m, active.get(field, free), passes)
            active.setdefault(field, changed)
        if m < best[0]:
            best = (m, p)
    mode["field"] = False
    return best[1][None], np.array([best[0]]), active.get(False, free)


def _polish(score, params, margin, lo, hi, first, rng, cycles, tries, passes, held, cols=None):
    """The pose (params[:first]) searched again with the tolerances held where _to_corners put
    them (shrinking steps about it), then the tolerances pushed to their corners again from the
    new pose, `cycles` times or until a cycle gains nothing: the corners found for one pose are
    not the worst for the pose they make worst. `cols`: the tolerances' columns to push (those
    that mattered), then every one, until a pass over all of them gains nothing. Returns
    (params (1, n), margin (1,))."""
    free = first + np.flatnonzero(~held)
    cols = free if cols is None else cols
    for _ in range(cycles):
        before = margin
        for r in range(6):
            step = (hi[:first] - lo[:first]) * 0.1 * 0.5 ** r
            trial = np.repeat(params[None], tries, 0)
            trial[:, :first] = np.clip(params[:first] + rng.normal(0, 1, (tries, first)) * step, lo[:first], hi[:first])
            m, _, _ = score(trial)
            k = int(np.argmin(m))
            if m[k] < margin:
                params, margin = trial[k], m[k]
        params, margin, _ = _corner_passes(score, params, margin, cols, passes)
        if margin >= before:
            break
    if cycles and len(cols) < len(free):
        for _ in range(passes):
            before = margin
            params, margin, _ = _corner_passes(score, params, margin, free, 1)
            if margin >= before:
                break
            params, margin, _ = _corner_passes(score, params, margin, cols, passes)
    return params[None], np.array([margin])


def _once(read):
    """`read(params)` -> (poses, readings, fields), each row worked out once a search: a row
    scored before (a corner pass moves each tolerance to an end it may already be at, and
    scores the best row again) is looked up, not rebuilt. A row's result is its own, whatever
    else is in the batch (built's one_noise; every step after is row by row)."""
    seen = {}

    def rows(params):
        keys = [p.tobytes() for p in params]
        new = {}
        for k, key in enumerate(keys):
            if key not in seen:
                new.setdefault(key, k)
        if new:
            pose_list, d, bz = read(params[list(new.values())])
            seen.update(zip(new, zip(pose_list, d, bz)))
        got = [seen[key] for key in keys]
        return [g[0] for g in got], np.array([g[1] for g in got]), np.array([g[2] for g in got])
    return rows


def built(physics, spec, name, fractions, hole, seed, reference, calibrated, power_on_us, faults=()):
    """The die (kind of `name`) and a Boards of one row per row of `fractions` (n, TOLERANCES),
    every searched tolerance pinned there; what is not searched (the face down's and up's glue
    turns, the noise in calibrating) drawn from `seed`, the same for every row (Boards'
    one_noise): a row's die and board are its fractions' whatever else is in the batch."""
    down = face_down(name)
    kind = name if name.endswith("blocker") else name.split()[0] + " 1"
    faces = face_order(down)
    # rows that move only the pose or the board share a die; the others are built at once
    keys = {}
    for f in fractions:
        keys.setdefault(f[:GLUES + 5].tobytes(), f[:GLUES + 5])
    unique = np.array(list(keys.values())).reshape(-1, GLUES + 5)
    glues = (4 * np.minimum(unique[:, GLUES:GLUES + 4], 0.999)).astype(int)
    if glue_rule(kind, physics):  # the sheet's rule turns every face, whatever its glue draws say
        glues[:] = 0
    f = unique.T  # (GLUES + 5, n): one die per column
    pins, i = {"die side": f[0]}, 1
    for pips in faces:
        for k in range(5):
            for what in MAGNET:
                pins[(what, pips, k)] = f[i]
                i += 1
            pins[("slip", pips, k)] = f[i:i + 2]
            pins[("play", pips, k)] = f[i + 2:i + 4]
            i += 4
    pins.update({("glue", p): glues[:, j] for j, p in enumerate(faces[1:5])})
    pins["hand"] = (2 * np.minimum(unique[:, GLUES + 4], 0.999)).astype(int)
    built_now = dice.build_many(kind, spec["dice"], physics, np.random.default_rng(seed), pins, len(unique),
                                hole=hole, faults=faults)
    made = {row.tobytes(): die for row, die in zip(unique, built_now)}
    dice_out = [made[f[:GLUES + 5].tobytes()] for f in fractions]
    # rows that move only the die or the pose share a board: each board built once (Boards'
    # one_noise: a row's board is its pins' whatever else is in the batch), then taken per row
    first, which = {}, []
    for k, f in enumerate(fractions):
        which.append(first.setdefault(f[GLUES + 5:].tobytes(), (len(first), k))[0])
    board_rows = fractions[[k for _, k in first.values()]]
    i = GLUES + 4 + 1
    pins = {}
    for what, n in BOARD:
        pins[what] = board_rows[:, i:i + n]
        i += n
    pins["board switch drop"] = pins["switch drop"][:, :1]
    pins["inl"] = pins["inl"][:, None, :]  # per chip (n, 1, INL_KNOTS)
    boards = Boards(physics, len(board_rows), np.random.default_rng(seed), reference, calibrated=calibrated,
                    power_on_us=power_on_us, pins=pins, one_noise=True)
    return dice_out, boards.take(np.array(which))


def worst(reader, boards, row, name, die, family, rng, starts=300, keep=4, rounds=5, tries=40, tolerances=None,
          readings=None, corners=3, sensor=None, turn=None, fixed=None, polish=0, pose_corners=None, around=None,
          made=None, start=None):
    """(margin in counts, Pose) of the worst pose search finds for `die` (the piece `name`,
    'white 4') on board row `row`: the smallest margin to another piece, or to reading right
    if the family is seated (built wrong: the largest, > 0 where it reads right and would pass
    the dice check). `tolerances` (spec, hole, calibrated[, faults]: a die built wrong,
    dice.build's): search the die's and the
    board's tolerances too (`die`, `boards` and `row` are then not used); the result's pose
    then comes with its die and board as (pose, fractions). `readings`: a list to append the
    worst pose's noiseless reading to (counts at the thresholds' gain), to judge it again
    against other thresholds (tune.py). With tolerances, the best pose found is then pushed
    to the tolerances' corners (`corners` passes of _to_corners). `sensor` (0-4, seated
    families): search for that sensor's smallest clearance, not the square's (see seated);
    the margin returned is the square's. `turn`: the die's quarter turns on the square (None:
    drawn); `fixed`: {tolerance index: fraction} held, not searched (deep's hand). `polish`:
    cycles of the pose searched again at the corners found, then the corners again, until
    neither helps (_polish). `pose_corners` (with tolerances): no random starts; instead the
    search starts from each corner of these pose parameters (indices into family.bounds; the
    others at their middle), every tolerance at its middle, and pushes the tolerances to their
    corners from there (_corner_passes): a seated die's worst pose is at its play's ends, and
    from there a tolerance moved alone either helps or not, so every start descends to its own
    basin (a magnet slipped, played and pushed the same way) the same way whatever the seed.
    `around`: a field (mT at the five sensors) added to the die's before its readout: dice on the
    squares around (gone.joint_nearest). `made` (with tolerances): a list to append the worst's
    own (die, Boards of one row, params: pose then fractions) to, built as the search built them
    (the seed of what it does not search is its own), to read it with other dice around. `start`
    (random starts only): rows of params (made's) scored with the random starts, so a search with
    the same rng from a worst found before ends no higher than that worst scores now."""
    ph = boards.physics if tolerances is None else tolerances[0]["physics"]
    piece = piece_value(name)
    drawn = 90 * int(rng.integers(4))
    down, turn = face_down(name), drawn if turn is None else 90 * turn
    lo, hi = np.array(family.bounds, float).T
    poses_n = len(lo)
    if tolerances:
        lo, hi = np.concatenate([lo, np.zeros(TOLERANCES)]), np.concatenate([hi, np.ones(TOLERANCES)])
        for k, v in (fixed or {}).items():
            lo[poses_n + k] = hi[poses_n + k] = v
        seed = int(rng.integers(2 ** 32))

    aim = sensor
    # Aimed at one sensor of a seated die, the search first follows its field: its reading is
    # saturated (toward the sensor's rail) for all but the weakest magnets, and shows no slope.
    mode = {"field": sensor is not None and family.seated}

    def build(fractions):
        spec, hole, calibrated = tolerances[:3]
        return built(ph, spec, name, fractions, hole, seed, reader.board.baseline, calibrated,
                     reader.board.power_on_us, tolerances[3] if len(tolerances) > 3 else ())

    @_once
    def read(params):
        """Each row's pose (None where the well's walls do not allow it), its noiseless reading
        and its field (n, 5, `around`'s added), nan where not read."""
        if tolerances:
            dice_list, board = build(params[:, poses_n:])
            rows = np.arange(len(params))
        else:
            dice_list, board, rows = [die] * len(params), boards, np.full(len(params), row)
        pose_list = family.make_all(ph, down, turn, params, dice_list)
        fit = [k for k, pose in enumerate(pose_list) if pose is not None]
        d, bz = np.full((len(pose_list), 5), np.nan), np.full((len(pose_list), 5), np.nan)
        if fit:
            fields = Fields()
            fields.add_each(np.arange(len(fit)), [dice_list[k] for k in fit], [pose_list[k] for k in fit],
                            board.sensors[rows[fit]])
            bz[fit] = fields.total(len(fit))
            if around is not None:
                bz[fit] += around
            d[fit] = board.read(bz[fit], rows=rows[fit], noise=False)
        return pose_list, d, bz

    def score(params):
        """Each pose's margin (inf for one the well's walls do not allow: it is never read)."""
        pose_list, d, bz = read(params)
        fit = [k for k, pose in enumerate(pose_list) if pose is not None]
        margin = np.full(len(pose_list), np.inf)
        if fit:
            if mode["field"]:  # the aimed sensor's field, toward what its code needs (mT; no clipping)
                want, b = reader.seated_pattern(d[fit], piece)[:, aim], bz[fit, aim]
                margin[fit] = np.where(want == 0, -np.abs(b), np.where(want == 1, b, -b))
            else:
                margin[fit] = (reader.check_margin(d[fit], piece, aim) * (-1 if family.built_wrong else 1)
                               if family.checked else reader.seated_margin(d[fit], piece, aim) if family.seated
                               else reader.closest(d[fit], piece)[0])
        if tolerances:
            pose_list = [(p, f) for p, f in zip(pose_list, params[:, poses_n:])]
        return margin, pose_list, d

    if tolerances and pose_corners is not None:
        params, margin, cols = _from_pose_corners(score, mode, lo, hi, poses_n, list(pose_corners), corners)
        held = lo[poses_n:] == hi[poses_n:]
        params, margin = _polish(score, params[0], margin[0], lo, hi, poses_n, rng, polish, tries, corners, held, cols)
        starts, rounds = 0, 0
    else:
        params = lo + (hi - lo) * rng.random((starts, len(lo)))
        if start is not None:  # drawn all the same, so the rng's later draws are as without it
            params = np.concatenate([params, np.clip(np.reshape(start, (-1, len(lo))), lo, hi)])
        margin, pose_list, _ = score(params)
        best = np.argsort(margin)[:keep]
        params, margin = params[best], margin[best]
    for r in range(rounds):
        step = (hi - lo) * 0.25 * 0.4 ** r
        trial = np.clip(np.repeat(params, tries, 0) + rng.normal(0, 1, (len(params) * tries, len(lo))) * step, lo, hi)
        m, _, _ = score(trial)
        allp, allm = np.concatenate([params, trial]), np.concatenate([margin, m])
        best = np.argsort(allm)[:keep]
        params, margin = allp[best], allm[best]
    if mode["field"]:  # then its reading, from where its field is weakest
        mode["field"] = False
        margin, _, _ = score(params)
    if tolerances and pose_corners is None:
        held = lo[poses_n:] == hi[poses_n:]
        params, margin = _to_corners(score, params[0], margin[0], poses_n, passes=corners, held=held)
        params, margin = _polish(score, params[0], margin[0], lo, hi, poses_n, rng, polish, tries, corners, held)
    aim = None  # the square's margin, whatever the search aimed at
    m, pose_list, d = score(params[:1])
    if readings is not None and np.isfinite(m[0]):
        readings.append(d[0])
    if made is not None and tolerances:
        (own,), board = build(params[:1, poses_n:])
        made.append((own, board, params[0].copy()))
    return float(m[0]) * (-1 if family.built_wrong else 1), pose_list[0]
