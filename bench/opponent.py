"""Figures for the board's opponent (issue 12): printed, never asserted.

    python bench/opponent.py [--matches N] [--quick]

- the strength ladder: each level against the one below, and every level against a random
  legal player and a greedy one (it completes a line when it can, else plays at random),
  N matches a pairing (default 1,000; --quick: 100), alternating who starts;
- thinking time on an ESP32 at 240 MHz, worst and median move of the strongest level, by
  bench/board.py's method: unix-port instructions (callgrind) x ESP32 cycles per instruction;
- the heap it needs while it thinks, on MicroPython.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))
sys.path.insert(0, str(ROOT / "tests"))

from compiled import precompile  # noqa: E402
from conftest import micropython_path  # noqa: E402
from doce.game import EMPTY, Game  # noqa: E402
from doce.opponent import BUDGET, LEVELS, NO_BLOCKER, STRONGEST, Opponent, Rng  # noqa: E402
from doce.tables import END  # noqa: E402
from doce_host import rules  # noqa: E402
from esp32 import CODE_32_PER_64, CYCLES_PER_UNIX_INSTRUCTION, DATA_32_PER_64, ESP32_HZ  # noqa: E402

MATCHES = 1000  # a pairing: issue 12's "at least 1,000 matches each"
POSITIONS = 40  # matches whose positions the thinking time is measured on


class Random:
    """The random baseline: a random legal square and face; its blocker at random, once in 12 turns."""

    level = "random"

    def __init__(self, tables, seed):
        self.t = tables
        self.rng = Rng(seed)

    def choose(self, game):
        p = game.to_move
        blk = NO_BLOCKER
        if game.blockers_left[p] and not game.blocker_this_turn and not self.rng.below(12):
            empty = [sq for sq in range(self.t.squares) if game.board[sq] == EMPTY]
            blk = empty[self.rng.below(len(empty))]
        squares = [sq for sq in game.legal_squares(p) if sq != blk]
        if not squares:  # the blocker would leave no square for the die
            blk = NO_BLOCKER
            squares = game.legal_squares(p)
        return blk, squares[self.rng.below(len(squares))], 1 + self.rng.below(self.t.faces)


class Greedy(Random):
    """The greedy baseline: a die that completes a line of its own when there is one, else random."""

    level = "greedy"

    def choose(self, game):
        p = game.to_move
        t = self.t
        wins = []
        for sq in game.legal_squares(p):
            for f in range(1, t.faces + 1):
                game.board[sq] = (p + 1) << 4 | f
                row = sq * t.through_stride
                for line in t.through[row:row + t.through_stride]:
                    if line != END and game.line_winner(line) == p:
                        wins.append((NO_BLOCKER, sq, f))
                        break
                game.board[sq] = EMPTY
        if wins:
            return wins[self.rng.below(len(wins))]
        return Random.choose(self, game)


def make(tables, who, seed):
    if who == "random":
        return Random(tables, seed)
    if who == "greedy":
        return Greedy(tables, seed)
    return Opponent(tables, who, seed)


def match(args):
    """One match: (points of `a`, points of `b`); `a` is white in even seeds, and white opens odd ones."""
    name, a, b, seed = args
    tables = _tables(name)
    swap = seed % 2
    game = Game(tables, (seed // 2) % 2)
    players = [make(tables, a, seed), make(tables, b, seed + 7919)]
    if swap:
        players.reverse()
    while not game.match_over:
        if game.round_over:
            game.start_round()
        p = game.to_move
        blk, sq, face = players[p].choose(game)
        if blk != NO_BLOCKER:
            assert game.place_blocker(p, blk) is None
        assert game.place(p, sq, face) is None
    w, bl = game.totals()
    return (bl, w) if swap else (w, bl)


_cache = {}


def _tables(name):
    if name not in _cache:
        _cache[name] = rules.load_tables(name)
    return _cache[name]


def ladder(matches, name="standard"):
    pairings = [(level, level - 1) for level in range(1, LEVELS)]
    pairings += [(level, base) for base in ("random", "greedy") for level in range(LEVELS)]
    print("Opponent strength ladder (%s rules, %d matches a pairing, who starts alternates)" % (name, matches))
    print("  %-18s %6s %6s %6s   %s" % ("", "win", "draw", "loss", "average points"))
    with Pool(min(2, os.cpu_count() or 1)) as pool:
        for a, b in pairings:
            start = time.perf_counter()
            results = pool.map(match, [(name, a, b, seed) for seed in range(matches)], chunksize=10)
            won = sum(x > y for x, y in results)
            drawn = sum(x == y for x, y in results)
            label = "level %d v %s" % (a, b if isinstance(b, str) else "level %d" % b)
            print("  %-18s %5.1f%% %5.1f%% %5.1f%%   %.1f to %.1f   (%.0f s)" % (
                label, 100 * won / matches, 100 * drawn / matches, 100 * (matches - won - drawn) / matches,
                statistics.mean(x for x, _ in results), statistics.mean(y for _, y in results),
                time.perf_counter() - start))
    print("  goals: level %d beats greedy in >= 80%% of matches; each level wins more than it loses"
          " against the one below" % STRONGEST)


def positions(count, name="standard"):
    """Positions the strongest level has to move from, in matches against level 2."""
    tables = _tables(name)
    out = []
    for seed in range(count):
        game = Game(tables, seed % 2)
        players = [Opponent(tables, STRONGEST, seed), Opponent(tables, 2, seed + 1)]
        while not game.match_over:
            if game.round_over:
                game.start_round()
            p = game.to_move
            if players[p].level == STRONGEST:
                out.append("%s %s %s %s %d" % (bytes(game.board).hex(), bytes(game.dice_left).hex(),
                                               bytes(game.blockers_left).hex(), bytes(game.last_placed).hex(), p))
            blk, sq, face = players[p].choose(game)
            if blk != NO_BLOCKER:
                game.place_blocker(p, blk)
            game.place(p, sq, face)
    return out


def thinking(mpy, name="standard"):
    tables = _tables(name)
    with tempfile.TemporaryDirectory() as work:
        tfile = os.path.join(work, "rules.doct")
        Path(tfile).write_bytes(tables.blob)
        pfile = os.path.join(work, "positions")
        moves = positions(POSITIONS, name)
        Path(pfile).write_text("\n".join(moves) + "\n")
        script = str(ROOT / "bench" / "opponent_think.py")
        env = dict(os.environ, MICROPYPATH=str(mpy))

        def mp(*args, prefix=()):
            out = subprocess.run([*prefix, micropython_path(), "-X", "heapsize=256K", script, tfile, pfile, *args],
                                 capture_output=True, text=True, env=env, timeout=900)
            if out.returncode:
                raise SystemExit(out.stdout + out.stderr)
            return out
        heap = json.loads(mp("heap").stdout)
        timed = [tuple(map(int, line.split())) for line in mp("time").stdout.splitlines()]
        us = [t[0] for t in timed]
        order = sorted(range(len(timed)), key=lambda i: (timed[i][1], timed[i][0]))  # by positions weighed
        print("Opponent thinking, level %d, %d moves from %d matches against level 2 (%s rules)"
              % (STRONGEST, len(us), POSITIONS, name))
        print("  positions weighed a move: median %d, most %d (budget %d)"
              % (timed[order[len(order) // 2]][1], timed[order[-1]][1], BUDGET))
        print("  unix port here: median %.1f ms, worst %.1f ms a move" % (statistics.median(us) / 1000, max(us) / 1000))

        def fits(i, size, *stop):
            return subprocess.run([micropython_path(), "-X", "heapsize=%d" % size, script, tfile, pfile, "one",
                                   str(i), *stop], capture_output=True, env=env, timeout=900).returncode == 0

        def smallest(i, *stop):
            low, high = 1024, 256 * 1024
            while high - low > 64:
                mid = (low + high) // 2
                low, high = (low, mid) if fits(i, mid, *stop) else (mid, high)
            return high
        live = max(smallest(i) - smallest(i, "stop") for i in order[-3:])
        if not shutil.which("valgrind"):
            print("  ESP32: valgrind not installed (apt-get install valgrind); skipped")
        else:
            def count(*args):
                out = mp(*args, prefix=("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"))
                for line in out.stderr.splitlines():
                    if "Collected" in line:
                        return int(line.split(":")[-1])
                raise SystemExit("no instruction count from callgrind:\n" + out.stderr)

            def esp32_ms(i):
                work_ = count("one", str(i)) - count("one", str(i), "stop")
                return work_ * CYCLES_PER_UNIX_INSTRUCTION / ESP32_HZ * 1000
            median = esp32_ms(order[len(order) // 2])
            worst = max(esp32_ms(i) for i in order[-3:])  # the three slowest here, counted exactly
            print("  ESP32 at 240 MHz (callgrind instructions x %.2f cycles each, bench/esp32.py):"
                  % CYCLES_PER_UNIX_INSTRUCTION)
            print("    median move %.0f ms, worst move %.0f ms (goal <= 1000 ms worst)" % (median, worst))
        heap["live"] = live
        print("  heap on MicroPython (unix port, 64-bit: the ESP32's 32-bit objects are smaller):")
        print("    opponent bytecode (opponent.mpy, versus.mpy): %d bytes; its data: %d bytes"
              % (heap["code"], heap["data"]))
        print("    thinking, the three longest moves: %d bytes more heap needed (smallest -X heapsize that"
              " completes, less the same without thinking)" % live)
        print("    allocated while thinking, collected as it goes (gc off, worst move): %d bytes" % heap["thinking"])
        return heap


def opponent_figures(mpy=None, matches=MATCHES, board=None):
    """`board`: run.py's heap figures for the firmware over a match, to add the opponent to."""
    ladder(matches)
    if mpy is None:
        with tempfile.TemporaryDirectory() as tmp:
            heap = thinking(precompile(Path(tmp) / "mpy"))
    else:
        heap = thinking(mpy)
    if board:
        code = board["code"] + heap["code"]
        data = board["app"] + board["match_peak"] + heap["data"] + heap["live"]
        print("  the whole firmware with the opponent thinking (the board's high-water over a match, plus the")
        print("  opponent's bytecode, data and thinking): %d bytes here; 32-bit as on the ESP32 (run.py's ratios)"
              " %.1f KB, %.1f KB without bytecode (frozen with manifest.py)"
              % (code + data, (code * CODE_32_PER_64 + data * DATA_32_PER_64) / 1024, data * DATA_32_PER_64 / 1024))
        print("    (goal <= 32 KB, the board's stated budget; the opponent is imported only when chosen)")
    return heap


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=MATCHES, help="matches a pairing (default %(default)s)")
    ap.add_argument("--quick", action="store_true", help="100 matches a pairing")
    args = ap.parse_args()
    opponent_figures(matches=100 if args.quick else args.matches)


if __name__ == "__main__":
    main()
