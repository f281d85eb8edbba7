"""What board.json sensing.gone_percent protects (issue 40): a ring reading of the centre's
pole counts as no magnet only under absent_below and under gone_percent of the centre's. A die
with one ring magnet of the centre's pole weak, fading with its die (tipping, held low), can
read as another piece only if that magnet counts as gone while the rest reads as the other
code; a seated die built right reads right only if its empty ring places of the centre's pole
count as none. So the line trades the weakest magnet protected against seated dice.

    python -m doce_host.physics.gone [--seeds 1 2] [--restarts 3] [--strengths 0.5 0.65 0.8]
                                     [--gone 25 20 18 16 15] [--pairs "black 4 E,white 1 N"]
                                     [--joint TURNS --draws 25 --fixed 1,0,0]

prints, for each dangerous (piece, magnet) and fading family, the searched least gone_percent
at which a die with that magnet at each strength reads another piece (critical(): a die is
protected at any gone_percent up to it), and for each candidate gone_percent the seated
searched worst at the empty places of the centre's pole (empty_worst()). With --joint, each weak
die's margin to another piece with a die on each square around, its pose and the neighbours
searched together (joint_nearest()), each turn's margin; e.g. issue 40's black 4 W at 8 %:

    python -m doce_host.physics.gone --pairs "black 4 W" --families "tipping flat" --strengths 0.5575 \
        --seeds 2 --joint 6 --draws 25 --fixed 1,0,0 --gone

and with --blockers each blocker built right, seated, against its whole reading (unsettled).
"""

import argparse
import copy
import itertools
import json
import time

import numpy as np

from doce.board import Board
from doce.squares import piece

from ..paths import BOARD_FILE
from . import dice, search
from .bands import under
from .campaign import NEIGHBOURS, Campaign
from .decode import Reader
from .poses import rocked, seated
from .reading import Boards, Fields
from .scene import face_down

FADING = ("tipping flat", "held low", "held on the way down")  # the families in which a die fades whole


def dangerous(table):
    """[(piece, k)]: the ring magnets (k 1-4, N E S W) of the centre's pole whose loss, with any
    of the die's ring magnets of the other pole lost too (the fringe rule lets them fade), leaves
    another code in some turn: only such a magnet, weak, can make its die read another piece."""
    turns = {}
    for code, name in table.items():
        for t in range(4):
            turns[code[0] + code[1 + t:] + code[1:1 + t]] = name
    out = []
    for name, code in dice.codes_by_piece(table).items():
        other = [i for i in range(1, 5) if code[i] not in ("0", code[0])]
        for k in [i for i in range(1, 5) if code[i] == code[0]]:
            lost = (set(drop) | {k} for n in range(len(other) + 1) for drop in itertools.combinations(other, n))
            if any(turns.get("".join("0" if i in gone else c for i, c in enumerate(code)), name) != name
                   for gone in lost):
                out.append((name, k))
    return out


class Critical:
    """A reader for search.worst whose 'margin' is the least gone_percent at which a reading
    reads as another piece (the scanner's rule: a ring reading of the centre's pole is none
    under gone_percent of the centre's, so the reading reads wrong at any gone_percent above
    the largest such ratio its wrong code needs; inf where none does)."""

    def __init__(self, board, per_mT):
        self.board = board
        self.free = Reader(board)
        # the rule off: a ring reading of the centre's pole is none under absent_below alone
        self.free.gone = self.free.strict = 100
        self.per_mT = per_mT

    def closest(self, d, right):
        return self.penalised(d, right, PENALTY)

    def penalised(self, d, right, penalty, edge=0.0):
        """Each reading's least gone_percent (as closest's margin); with `penalty` (% a mT), a code
        its reading misses with the rule off counts as its ratio plus penalty times the miss, so
        that the search is led over the edge of the poses that read it (exact: penalty inf); a
        code missed by no more than `edge` mT counts as read (the search ends on that edge)."""
        d = np.asarray(d, float)
        need = self.free.clearances(d)  # (n, 56, 5)
        p = self.free.patterns[None]
        other = self.free.values[None, :] != np.asarray(right)
        sign = np.where(p[..., :1] == 1, 1.0, -1.0)
        same = (np.sign(d[:, None, 1:]) == sign) & (p[..., 1:] == 0)
        miss = np.maximum(0, -need.min(-1) / self.per_mT - edge)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(same, 100 * np.abs(d[:, None, 1:]) / np.abs(d[:, None, :1]), 0).max(-1)
            cost = ratio + np.where(miss > 0, penalty * miss, 0)
        return np.where(other, cost, np.inf).min(-1), None


PENALTY = 100  # % of the centre a mT missed: steep, so that the search ends on the edge, not past it
EDGE = 0.1  # mT: the miss a search's last pose may keep and count as read (a lower, safe-side figure)


class SearchedDie:
    """A die of `name` with its ring magnet k (C N E S W of its face down) at `strength` of its
    remanence (None: built right), in `family` under spec's own lines, every tolerance searched
    but `fixed` ({what (search.MAGNET's): fraction}: that weak magnet's held, its size and
    remanence at the magnet check's weakest passing corner: h40o): the set-up the weak-die and
    crowded searches share."""

    def __init__(self, spec, name, k, strength, family, fixed=None):
        self.name, self.k = name, k
        self.reader = Reader(Board(spec))
        self.family = search.families(spec["physics"])[family]
        faults = [] if strength is None else [(face_down(name), k, ("weak", strength))]
        self.tolerances = (spec, spec["mechanics"]["jig"]["drill_mm"], True, faults)
        self.fixed = {search.down_magnet(k, what): float(v) for what, v in (fixed or {}).items()}

    def worst(self, seed, restart, size=None, reader=None, **kw):
        """search.worst of this die, restart `restart` of `seed` (search.DEEP unless `size`; kw:
        its readings, around, made): (margin, (pose, fractions))."""
        return search.worst(reader or self.reader, None, None, self.name, None, self.family,
                            np.random.default_rng([seed, self.k, restart]), tolerances=self.tolerances,
                            fixed=self.fixed, **(size or search.DEEP), **kw)

    def margin(self, d):
        """Readings' (n, 5) margins in counts as worst() measures them: to reading right if the
        family is seated, else to another piece."""
        if self.family.seated:
            return self.reader.seated_margin(d, piece(self.name))
        return self.reader.closest(d, piece(self.name))[0]


def critical(spec, name, k, strength, family, seed, restarts, size=None):
    """(least gone_percent found at which a die of `name` with magnet k (C N E S W of its face
    down) at `strength` of its remanence reads another piece in `family`, its reading): the
    lowest of `restarts` searches (search.DEEP unless `size`), every tolerance searched."""
    weak = SearchedDie(spec, name, k, strength, family)
    crit = Critical(weak.reader.board, Campaign(spec).per_mT)
    best = (np.inf, None)
    for r in range(restarts):
        found = []
        g, _ = weak.worst(seed, r, size, crit, readings=found)
        if found:
            g = float(crit.penalised(found[:1], piece(name), np.inf, EDGE)[0][0])
        if g < best[0]:
            best = (g, found[0] if found else None)
    return best


def nearest(spec, name, k, strength, family, seed, restarts, size=None, fixed=None):
    """The searched smallest margin (counts) to another piece of a die of `name` with magnet k
    at `strength`, in `family`, under spec's own gone_percent: the lowest of `restarts` searches
    with the board's reader (tests/physics/test_misbuilt.py's nearest_other, restarted), `fixed`
    held (SearchedDie)."""
    weak = SearchedDie(spec, name, k, strength, family, fixed)
    return min(weak.worst(seed, r, size)[0] for r in range(restarts))


def crowded_nearest(spec, name, k, strength, family, seed, fixed=None, draws=6, size=None, passes=4):
    """(margin in counts to another piece, the reading (1, 5) counts, the neighbours [(square,
    piece or None)]) of a die of `name` with magnet k at `strength` (its `fixed` tolerances
    held, SearchedDie) at its searched alone worst in `family`, under spec's own lines, with a die
    seated on each of the eight squares around chosen against it: coordinate descent over every
    piece x `draws` seated poses and none, `passes` times round the squares, read through that
    die's and board's own readout (search.worst's `made`: fields add; the readout is not
    linear). The pose and the neighbours are not searched together: a found worst, an upper
    bound on the crowded margin (h40t's crowded.py, issue 40); joint_nearest's first turn."""
    return joint_nearest(spec, name, k, strength, family, seed, fixed, draws, size, passes, turns=1)[:3]


def joint_nearest(spec, name, k, strength, family, seed, fixed=None, draws=6, size=None, passes=4, turns=4):
    """crowded_nearest's (margin, reading, neighbours) with the die's pose and its neighbours
    searched together, in `turns` turns (r40u's joint search, issue 40): each turn searches the
    die's pose and every tolerance (search.worst) with the field of the neighbours chosen so far
    added at its sensors, then chooses the neighbours again from the last choice against the die
    and board found; each turn's search is made afresh and again from the last turn's worst too
    (search.worst's start), the lower kept, and the neighbours' descent starts from the last
    choice, so a turn's margin is never above the last's (a fresh search alone rose and fell by
    turns; a warm one alone stayed in its first basin). Its first turn is crowded_nearest. The
    least margin of the turns, and each turn's, in counts: (margin, reading, neighbours, [margin a
    turn]). Still a found worst: an upper bound on the crowded margin. A seated `family`
    (strength None: a die built right): the margin to reading right, the neighbours chosen
    against it."""
    searched = SearchedDie(spec, name, k, strength, family, fixed)
    near = _candidates(Campaign(spec, seed=seed), np.random.default_rng(seed), draws)
    pick = np.zeros(len(NEIGHBOURS), int)  # candidate 0 on each square: none
    around, best, by_turn, start = None, None, [], None
    for _ in range(turns):
        # each turn searched afresh (its basins) and, after the first, warm too (the last turn's worst
        # among its starts; same rng, so the same die and board): the lower, never above the last turn
        made = []
        m, (pose, _) = searched.worst(seed, 0, size, around=around, made=made)
        if start is not None:
            warm = []
            m_warm, (pose_warm, _) = searched.worst(seed, 0, size, around=around, made=warm, start=start)
            if m_warm < m:
                pose, made = pose_warm, warm
        die, board, start = made[0]
        own = Fields()
        own.add(np.arange(1), die, [pose], board.sensors)
        own = own.total(1)
        field = _around(spec, board, near)
        pick = _choose(searched.margin, board, own, field, pick, passes)
        around = field[np.arange(len(NEIGHBOURS)), pick].sum(0)
        d = board.read(own + around, noise=False)
        by_turn.append(float(searched.margin(d)[0]))
        if best is None or by_turn[-1] < best[0]:
            best = (by_turn[-1], d, [(sq, near[j - 1][0] if j else None) for sq, j in zip(NEIGHBOURS, pick)])
    return best + (by_turn,)


def _candidates(camp, rng, draws):
    """[(piece, die, pose)]: every piece x `draws` dice of camp's pool, seated (rng): the dice
    the crowded searches put around."""
    return [(other, d, seated(camp.ph, face_down(other), rng, side=d[1]))
            for other in camp.pieces for d in (camp.pool_die(other) for _ in range(draws))]


def _around(spec, board, near):
    """(8 squares around, 1 + candidates, 5) mT: each candidate of `near` seated on each square
    around, at the sensors of `board` (one row); candidate 0: the square empty."""
    pitch = spec["physics"]["square_mm"]
    field = np.zeros((len(NEIGHBOURS), len(near) + 1, 5))
    for i, (sx, sy) in enumerate(NEIGHBOURS):
        f = Fields()  # each candidate a row, the field computed once a square
        for j, (_, d, p) in enumerate(near, 1):
            f.add([j], d, [p], board.sensors, (sx * pitch, sy * pitch))
        field[i] = f.total(len(near) + 1)
    return field


def _choose(margin, board, own, field, pick, passes):
    """The candidates on the squares around (indices into field's second axis) that bring a die
    whose own field is `own` to its least `margin` on `board`: coordinate descent from `pick`,
    `passes` times round the squares (fields add; each choice read through the board)."""
    pick = pick.copy()
    squares = np.arange(len(field))
    rows = np.zeros(field.shape[1], int)
    for _ in range(passes):
        for i in squares:
            rest = field[squares, pick].sum(0) - field[i, pick[i]]
            m = margin(board.read(own + rest + field[i], rows=rows, noise=False))
            pick[i] = int(np.argmin(m))  # ties keep the first: the empty square, then the first drawn
    return pick


def with_gone(spec, gone, key="gone_percent"):
    spec = copy.deepcopy(spec)
    spec["sensing"][key] = gone
    return spec


def empty_places(spec, reader, name, hand):
    """The ring sensors (1-4) under no magnet of a die of `name` and `hand` seated at turn 0."""
    code = dice.codes_by_piece(spec["dice"])[name]
    return sorted({1, 2, 3, 4} - {under(spec, reader, name, k, hand) for k in range(1, 5) if code[k] != "0"})


def empty_worst(spec, name, seed, calibrated=True):
    """(margin in counts, hand, sensor) of a seated die of `name` built right, searched aimed at
    each of its empty ring places (bands.least's way: search.worst from the corners of the die's
    room, either hand, polished): the square's margin at each such worst, the least of them."""
    reader = Reader(Board(spec))
    fam = search.families(spec["physics"])["seated"]
    hole = spec["mechanics"]["jig"]["drill_mm"]
    best = (np.inf, None, None)
    for hand in (0, 1):
        for s in empty_places(spec, reader, name, hand):
            m, _ = search.worst(reader, None, None, name, None, fam, np.random.default_rng([seed, s, hand]),
                                tolerances=(spec, hole, calibrated), sensor=s, turn=0,
                                fixed={search.GLUES + 4: float(hand)}, pose_corners=search.SEATED_CORNERS,
                                polish=1, corners=8)
            if m < best[0]:
                best = (m, hand, s)
    return best


def crowded_worst(spec, name, seed, rows=400, draws=6):
    """[(ring place 1-4, least margin in counts)] of a seated blocker `name` built right, with a die
    seated on each of the eight squares around it, each chosen to put the most field of the
    blocker's centre's sign at that place (fields add, so the eight choices together are the
    worst of the candidates for it): every piece, `draws` seated poses each, pool dice anywhere
    the walls let them, `rows` blockers and boards. A search over the candidates drawn, not over
    every pose: a lower bound on the crowded worst at the strict line (Scanner._decode)."""
    camp = Campaign(spec, seed=seed)
    rng = np.random.default_rng(seed)
    pitch = spec["physics"]["square_mm"]
    sign = 1 if dice.codes_by_piece(spec["dice"])[name][0] == "+" else -1
    boards = Boards(camp.ph, rows, rng, camp.board.baseline, power_on_us=camp.board.power_on_us)
    dies = [camp.pool_die(name) for _ in range(rows)]
    own = Fields()
    poses = [rocked(seated(camp.ph, face_down(name), rng, side=d[1]), d, rng.uniform(0, 360)) for d in dies]
    own.add_each(np.arange(rows), dies, poses, boards.sensors)
    own = own.total(rows)
    near = [(d, pose) for _, d, pose in _candidates(camp, rng, draws)]
    field = np.zeros((len(NEIGHBOURS), len(near), rows, 5))  # each candidate's field on each square around
    for i, (sx, sy) in enumerate(NEIGHBOURS):
        for j, (die, pose) in enumerate(near):
            f = Fields()
            f.add(np.arange(rows), die, [pose] * rows, boards.sensors, (sx * pitch, sy * pitch))
            field[i, j] = f.total(rows)
    out = []
    for place in range(1, 5):
        pick = (field[..., place] * sign).argmax(1)  # the worst candidate on each square, each row
        extra = np.take_along_axis(field, pick[:, None, :, None], 1)[:, 0].sum(0)
        d = boards.read(own + extra, noise=False)
        out.append((place, float(camp.reader.seated_margin(d, piece(name)).min())))
    return out


def joint(spec, name, k, strength, family, seed, args, size, per):
    """Print joint_nearest's finding for main()."""
    fixed = None if args.fixed is None else dict(zip(("remanence", "diameter", "height"),
                                                      map(float, args.fixed.split(","))))
    c0 = time.process_time()
    m, d, around, turns = joint_nearest(spec, name, k, strength, family, seed, fixed, args.draws, size,
                                        turns=args.joint)
    print("joint | %s | %s | strength %s held %s | seed %d | strict_gone_percent %s | %d draws | margin (mT) "
          "%+.2f, by turn %s | reading (counts) %s | around %s | %.0f s CPU"
          % (name if strength is None else "%s %s" % (name, "CNESW"[k]), family, strength, args.fixed, seed,
             spec["sensing"]["strict_gone_percent"],
             args.draws, m / per, " ".join("%+.2f" % (t / per) for t in turns), np.round(d[0]).astype(int).tolist(),
             ", ".join("%+d%+d %s" % (sx, sy, p) for (sx, sy), p in around if p), time.process_time() - c0),
          flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--restarts", type=int, default=3)
    ap.add_argument("--strengths", type=float, nargs="*", default=[0.5, 0.65, 0.8])
    ap.add_argument("--families", default=",".join(FADING))
    ap.add_argument("--gone", type=int, nargs="*", default=[25, 20, 18, 16, 15])
    ap.add_argument("--pairs", default="all", help="e.g. 'black 4 E,white 1 N'")
    ap.add_argument("--margin-at", type=int, help="search each weak die's margin at this gone_percent instead")
    ap.add_argument("--line", default="gone_percent", choices=("gone_percent", "strict_gone_percent"),
                    help="the line --margin-at and --gone set (strict_gone_percent: board.strict's pieces')")
    ap.add_argument("--size", default="3000,8,6", help="a weak search's starts,rounds,corners (search.DEEP's)")
    ap.add_argument("--joint", type=int, default=0, metavar="TURNS",
                    help="search each weak die with dice around, pose and neighbours together (joint_nearest), "
                         "this many turns (1: crowded_nearest), under the board's lines or --margin-at's")
    ap.add_argument("--draws", type=int, default=6, help="--joint: seated dice of each piece to choose from")
    ap.add_argument("--blockers", action="store_true",
                    help="--joint: each blocker built right, seated, against its whole reading, not the weak dice")
    ap.add_argument("--fixed", help="--joint: the weak magnet's remanence,diameter,height held at these fractions "
                                    "(1,0,0: the magnet check's weakest passing, smallest corner)")
    args = ap.parse_args(argv)
    spec = json.loads(BOARD_FILE.read_text())
    per = Campaign(spec).per_mT
    size = dict(zip(("starts", "rounds", "corners"), map(int, args.size.split(","))))
    if args.joint and args.blockers:
        for name in ("white blocker", "black blocker"):
            for seed in args.seeds:
                joint(spec if not args.margin_at else with_gone(spec, args.margin_at, args.line), name, 0, None,
                      "seated", seed, args, size, per)
        return
    pairs = dangerous(spec["dice"])
    print("dangerous:", ", ".join("%s %s" % (n, "CNESW"[k]) for n, k in pairs))
    if args.pairs != "all":
        want = [p.strip() for p in args.pairs.split(",")]
        pairs = [(n, k) for n, k in pairs if "%s %s" % (n, "CNESW"[k]) in want]
    for name, k in pairs:
        for family in args.families.split(","):
            for s in args.strengths:
                if args.joint:
                    for seed in args.seeds:
                        joint(spec if not args.margin_at else with_gone(spec, args.margin_at, args.line), name, k,
                              s, family, seed, args, size, per)
                    continue
                got = []
                c0 = time.process_time()
                for seed in args.seeds:
                    if args.margin_at:
                        got.append(nearest(with_gone(spec, args.margin_at, args.line), name, k, s, family, seed,
                                           args.restarts, size) / per)
                        d = None
                        continue
                    g, d = critical(spec, name, k, s, family, seed, args.restarts, size)
                    got.append(g)
                print("weak | %s %s | %s | strength %.2f | %s by seed %s | reading (mT) %s | %.0f s CPU"
                      % (name, "CNESW"[k], family, s, "margin (mT) at %s %s" % (args.line, args.margin_at)
                         if args.margin_at
                         else "least gone %", " ".join("%.2f" % g for g in got),
                         None if d is None else np.round(d / per, 1).tolist(), time.process_time() - c0),
                      flush=True)
    for gone in args.gone:
        pieces = [n for n, c in dice.codes_by_piece(spec["dice"]).items() if "0" in c]
        if args.line == "strict_gone_percent":  # only board.strict's pieces read against it
            pieces = [n for n in pieces if piece(n) in Board(spec).strict]
        for name in pieces:
            c0 = time.process_time()
            got = [empty_worst(with_gone(spec, gone, args.line), name, seed) for seed in args.seeds]
            print("seated | %s %d | %s | worst at an empty place by seed %s mT | %.0f s CPU"
                  % (args.line, gone, name,
                     " ".join("%+.2f (hand %d, %s)" % (m / per, h, "CNESW"[s]) for m, h, s in got),
                     time.process_time() - c0), flush=True)


if __name__ == "__main__":
    main()
