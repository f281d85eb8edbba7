"""The opponent's strength ladder: each level against the one below and against the baselines
(bench/baselines.py), whole matches through the rules engine, printed with 95% intervals.

    python bench/ladder.py [--matches N] [--first I] [--pairing A B]...

A match is won on its total points. Match i (--first I plays matches I to I + N - 1, so a run
can be held apart from the matches a change was chosen on): the first player is white when i % 2 == 0, and
white opens the match when (i // 2) % 2 == 0, so colours and openers alternate evenly.
Each player's moves are drawn from its own seed, so a run replays exactly.

The strongest level plays as the board runs it: the firmware's .mpy files in MicroPython's unix
port, its weighing loops native code (OnTheBoard), some twenty times quicker than CPython runs
the same code, and the same moves (tests/opponent/test_opponent_micropython.py); --cpython plays
it on CPython instead.
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))
sys.path.insert(0, str(ROOT / "tests"))

import position_text  # noqa: E402
from baselines import Greedy, MonteCarlo, Random, TwoPly  # noqa: E402
from doce.game import Game  # noqa: E402
from doce.opponent import BUDGET, LEVELS, NO_BLOCKER, STRONGEST, Opponent, Rng  # noqa: E402
from doce_host import rules  # noqa: E402

MATCHES = 200  # a pairing: the 95% interval of a win rate near 90% is then about +-4%
BASELINES = {"random": Random, "greedy": Greedy, "monte carlo": MonteCarlo, "two-ply": TwoPly}
WORKERS = 2  # the machine's two cores, shared: the bench runs at most one extra process


def pairings():
    """(a, b): `a` is the one whose wins are counted. Each level against the one below, and the
    baselines where they tell something: random against level 0 (the child), greedy against every
    level, the two-ply player against the two strongest and Monte Carlo (the slowest, 0.2 s a
    move) against the strongest; then the baselines against each other, to place them."""
    top = LEVELS - 1
    out = [(level, level - 1) for level in range(1, LEVELS)]
    out.append((0, "random"))
    out += [(level, "greedy") for level in range(LEVELS)]
    out += [(level, "two-ply") for level in range(top - 1, LEVELS)]
    out.append((top, "monte carlo"))
    out += [("two-ply", "greedy"), ("monte carlo", "greedy"), ("two-ply", "monte carlo")]
    return out


def label(who):
    return "level %d" % who if isinstance(who, int) else who


def make(tables, who, seed):
    if who == STRONGEST and _native:
        return OnTheBoard(tables, who, seed)
    if isinstance(who, int):
        return Opponent(tables, who, seed)
    return BASELINES[who](tables, seed)


_native = []  # the .mpy files' folder, when the strongest level plays on MicroPython
_servers = {}  # this process's MicroPython, by rules name


class OnTheBoard:
    """An opponent level played by MicroPython's unix port on the firmware's .mpy files
    (bench/opponent_serve.py): a line out, a move back. Its Rng travels with each line."""

    def __init__(self, tables, level, seed, budget=BUDGET):
        self.tables = tables
        self.level = level
        self.budget = budget
        self.rng = Rng(seed)
        self.work = 0

    def choose(self, game):
        server = _server(self.tables)
        # the match's round and points so far: the strongest level plays to them in the last round
        server.stdin.write("%s %d %d %d %d %s\n" % (
            position_text.write(game), self.level, self.budget, self.rng.x, 1 if game.blocker_this_turn else 0,
            position_text.write_match(game)))
        server.stdin.flush()
        out = server.stdout.readline().split()
        if not out:
            raise SystemExit("bench/opponent_serve.py stopped: %s" % server.stderr.read())
        if out[0] == "none":
            return None
        blk, sq, face, self.rng.x, self.work = (int(x) for x in out)
        return blk, sq, face


def _server(tables):
    if tables.name not in _servers:
        from conftest import micropython_path
        folder = tempfile.mkdtemp(prefix="ladder-")
        path = os.path.join(folder, "rules.doct")
        Path(path).write_bytes(tables.blob)
        _servers[tables.name] = subprocess.Popen(
            [micropython_path(), "-X", "heapsize=512K", str(ROOT / "bench" / "opponent_serve.py"), path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, MICROPYPATH=_native[0]))
    return _servers[tables.name]


_tables = {}


def tables_named(name):
    if name not in _tables:
        _tables[name] = rules.load_tables(name)
    return _tables[name]


def match(args):
    """One match: (points of `a`, points of `b`, positions) where positions are those level
    `record` moved from, if asked: (the position and its Rng, bench/position_text.py; the work its move took)."""
    name, a, b, i, record = args
    tables = tables_named(name)
    swap = i % 2
    game = Game(tables, (i // 2) % 2)
    players = [make(tables, a, 2 * i + 1), make(tables, b, 2 * i + 2)]
    if swap:
        players.reverse()
    names = [a, b][::-1] if swap else [a, b]
    seen = []
    while not game.match_over:
        if game.round_over:
            game.start_round()
        p = game.to_move
        if names[p] == record:
            text = "%s %d" % (position_text.write(game), players[p].rng.x)
        blk, sq, face = players[p].choose(game)
        if names[p] == record:
            seen.append((text, players[p].work))
        if blk != NO_BLOCKER:
            why = game.place_blocker(p, blk)
            assert why is None, (names[p], "blocker", blk, why)
        why = game.place(p, sq, face)
        assert why is None, (names[p], sq, face, why)
    w, bl = game.totals()
    return ((bl, w) if swap else (w, bl)) + (seen,)


def wilson(k, n, z=1.96):
    """The 95% (Wilson score) interval of a proportion k / n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(pool, a, b, matches, name="standard", record=None, first=0):
    """The results of `matches` matches of a against b, matches first to first + matches - 1: a
    list of (a's points, b's points, positions)."""
    jobs = [(name, a, b, i, record) for i in range(first, first + matches)]
    if pool is None:
        return [match(j) for j in jobs]
    return pool.map(match, jobs, chunksize=max(1, matches // (8 * WORKERS)))


def row(a, b, results, seconds):
    n = len(results)
    won = sum(x > y for x, y, _ in results)
    drawn = sum(x == y for x, y, _ in results)
    low, high = wilson(won, n)
    return ("  %-24s %5d  %5.1f%% [%4.1f-%5.1f]  %5.1f%%  %5.1f%%   %5.1f to %5.1f   %5.0f s" % (
        "%s v %s" % (label(a), label(b)), n, 100 * won / n, 100 * low, 100 * high, 100 * drawn / n,
        100 * (n - won - drawn) / n, sum(x for x, _, _ in results) / n, sum(y for _, y, _ in results) / n,
        seconds))


HEADER = ("  %-24s %5s  %-20s %6s  %6s   %-14s   %s"
          % ("pairing", "games", "wins [95% interval]", "draws", "losses", "average points", "time"))


def ladder(matches=MATCHES, name="standard", which=None, record=None, workers=WORKERS, native=True, first=0):
    """Print the ladder; return the positions `record` (a level) moved from, over all its matches.
    `native`: the strongest level plays on MicroPython, as the board runs it (OnTheBoard)."""
    if native:
        from compiled import precompile
        with tempfile.TemporaryDirectory() as tmp:
            _native[:] = [str(precompile(Path(tmp) / "mpy"))]
            try:
                return _ladder(matches, name, which, record, workers, first)
            finally:
                _native[:] = []
    return _ladder(matches, name, which, record, workers, first)


def _ladder(matches, name, which, record, workers, first):
    which = which or pairings()
    print("Opponent strength ladder (%s rules, matches %d-%d of each pairing, colours and openers alternate;"
          " a match is won on points; level %d on %s)"
          % (name, first, first + matches - 1, STRONGEST,
             "MicroPython, as the board runs it" if _native else "CPython"))
    print(HEADER)
    positions = []
    with Pool(workers) if workers > 1 else _NoPool() as pool:
        for a, b in which:
            start = time.perf_counter()
            results = play(pool, a, b, matches, name, record, first)
            print(row(a, b, results, time.perf_counter() - start), flush=True)
            for _, _, seen in results:
                positions += seen
    print("  goals: each level beats the one below in >= 90% of matches; level 0 beats random sometimes, not"
          " always;")
    print("    level %d beats the two-ply player in >= 65%%, greedy in >= 95%% and Monte Carlo in >= 85%%"
          % (LEVELS - 1))
    return positions


class _NoPool:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=MATCHES, help="matches a pairing (default %(default)s)")
    ap.add_argument("--first", type=int, default=0, help="the first match's number (default %(default)s)")
    ap.add_argument("--pairing", nargs=2, action="append", metavar=("A", "B"),
                    help="a level or a baseline (random, greedy, 'monte carlo'); repeatable")
    ap.add_argument("--workers", type=int, default=min(WORKERS, os.cpu_count() or 1))
    ap.add_argument("--cpython", action="store_true", help="the strongest level on CPython, not MicroPython")
    args = ap.parse_args()
    which = None
    if args.pairing:
        which = [tuple(int(x) if x.isdigit() else x for x in p) for p in args.pairing]
    ladder(args.matches, which=which, workers=args.workers, native=not args.cpython, first=args.first)


if __name__ == "__main__":
    main()
