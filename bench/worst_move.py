"""The strongest level's slowest move, searched for, not sampled (issue 27), for bench/opponent.py.

A move's work is capped by a hard budget, so its worst time is the most unix-port instructions
any position makes it spend. From the positions of real matches:

1. each is thought on CPython, for its work and the faces it weighed (nodes): cheap;
2. callgrind counts the instructions of the costliest by work, and of some at random;
3. a least-squares estimate, instructions from work and nodes, fitted to those, ranks all of
   them: callgrind counts the costliest by that estimate too;
4. a hill-climb: the worst positions measured so far are mutated (a die's face changed, a
   blocker moved, a ply or two played on: each mutant is a position a match can reach), the
   mutants are ranked by the estimate, the costliest are measured, and the estimate refitted.

Callgrind runs the unix port some 50 times slower than it runs: BATCH positions a run (about a
minute), 2 + ROUNDS runs in all, a few minutes of the bench.
"""

import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))
sys.path.insert(0, str(ROOT / "tests"))

import position_text  # noqa: E402
from doce.game import BLOCKER, EMPTY, Game  # noqa: E402
from doce.opponent import BUDGET, Opponent  # noqa: E402

BATCH = 32  # positions a callgrind run measures
ROUNDS = 6  # hill-climbing rounds, a callgrind run each
PARENTS = 8  # the worst positions measured so far, which a round mutates
MUTANTS = 400  # a round's mutants, thought on CPython and ranked by the estimate
MOVE_BUDGET = BUDGET  # the work budget of the move measured: the board's (a test may make it smaller)


def instructions(mpy, tables_file, texts, mode="count"):
    """Unix-port instructions of the strongest level's move from each of `texts`, and its work
    there, counted by callgrind between the two marks opponent_think.py makes around a move;
    mode "steps": of each step of think() instead (each a slice the board does between scans)."""
    from conftest import micropython_path  # tests/conftest.py: here, not at import, so pytest's own stays its
    script = str(ROOT / "bench" / "opponent_think.py")
    env = dict(os.environ, MICROPYPATH=str(mpy))
    with tempfile.TemporaryDirectory() as work:
        pfile = os.path.join(work, "positions")
        Path(pfile).write_text("\n".join(texts) + "\n")
        out = os.path.join(work, "cg.out")
        run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                              "--dump-before=mp_micropython_stack_use", micropython_path(), "-X",
                              "heapsize=256K", script, str(tables_file), pfile, mode],
                             capture_output=True, text=True, env=env, timeout=3600)
        if run.returncode:
            raise SystemExit(run.stdout + run.stderr)
        works = [int(w) for w in run.stdout.split()]
        counts = []
        for k in range(2, 2 * len(works) + 1, 2):  # dump k holds what ran since mark k - 1: a move
            with open("%s.%d" % (out, k)) as f:
                counts.append(next(int(line.split()[1]) for line in f if line.startswith("summary:")))
        return counts, works


# -- positions -------------------------------------------------------------------------------

def load(tables, text):
    """A Game at the position "board dice blockers last to_move seed"; and the seed."""
    game = Game(tables)
    seed = position_text.read(game, text)[0]
    return game, int(seed)


def text_of(game, seed):
    return "%s %d" % (position_text.write(game), seed)


def playable(game):
    """Not over, no line already won, and the player to move has a die and a square for it."""
    t = game.tables
    return (not game.round_over and game.dice_left[game.to_move] > 0 and game.has_legal_square(game.to_move)
            and all(game.line_winner(line) is None for line in range(t.line_count)))


def mutant(tables, text, rng):
    """A position a match can reach from `text`'s, or None. A die's new face or a blocker on
    another empty square rewrites nothing that was legal when it was played (squares only fill,
    zones do not depend on faces, a blocker goes on any empty square, its player's die that turn
    is still on the board), so the position is reachable if no line is won; plies are played
    through the rules engine."""
    game, seed = load(tables, text)
    board = game.board
    kind = rng.randrange(4)
    if kind == 0:
        dice = [q for q in range(tables.squares) if board[q] != EMPTY and board[q] < BLOCKER]
        if not dice:
            return None
        q = rng.choice(dice)
        board[q] = (board[q] & 0xF0) | rng.randint(1, tables.faces)
    elif kind == 1:
        blockers = [q for q in range(tables.squares) if board[q] >= BLOCKER]
        empty = [q for q in range(tables.squares) if board[q] == EMPTY]
        if not blockers or not empty:
            return None
        q = rng.choice(blockers)
        board[rng.choice(empty)] = board[q]
        board[q] = EMPTY
    elif kind == 2:
        for _ in range(rng.randint(1, 2)):
            p = game.to_move
            squares = game.legal_squares(p)
            if not squares or not playable(game):
                return None
            if game.blockers_left[p] and rng.randrange(6) == 0:
                empty = [q for q in range(tables.squares) if board[q] == EMPTY]
                if game.place_blocker(p, rng.choice(empty)) or game.round_over:
                    return None
                squares = game.legal_squares(p)
            if game.place(p, rng.choice(squares), rng.randint(1, tables.faces)):
                return None
    else:
        seed = rng.randint(1, 65535)  # the Rng's state: xorshift16 passes through every one
    return text_of(game, seed) if playable(game) else None


def think(tables, text):
    """(work, nodes) of the strongest level's move, on CPython."""
    game, seed = load(tables, text)
    player = Opponent(tables, budget=MOVE_BUDGET)
    player.rng.x = seed
    if player.choose(game) is None:
        raise SystemExit("no move from a playable position: %s" % text)
    return player.work, player.nodes


# -- the estimate ----------------------------------------------------------------------------

def fit(rows):
    """Least squares, instructions = a + b * work + c * nodes, over rows (work, nodes, instructions)."""
    mw = statistics.mean(r[0] for r in rows)
    mn = statistics.mean(r[1] for r in rows)
    mi = statistics.mean(r[2] for r in rows)
    sww = sum((r[0] - mw) ** 2 for r in rows)
    snn = sum((r[1] - mn) ** 2 for r in rows)
    swn = sum((r[0] - mw) * (r[1] - mn) for r in rows)
    swi = sum((r[0] - mw) * (r[2] - mi) for r in rows)
    sni = sum((r[1] - mn) * (r[2] - mi) for r in rows)
    det = sww * snn - swn * swn
    if not det:
        return mi, 0.0, 0.0
    b = (swi * snn - sni * swn) / det
    c = (sni * sww - swi * swn) / det
    return mi - b * mw - c * mn, b, c


# -- the search ------------------------------------------------------------------------------

def search(mpy, tables, tables_file, texts, seed=27, rounds=ROUNDS, batch=BATCH, report=print):
    """Search for the position whose move costs the most instructions, from `texts` (positions
    of real matches). Returns (measured, covered): measured maps a position to (work, nodes,
    instructions, how it was found); covered counts the positions thought on CPython."""
    rng = random.Random(seed)
    cheap = {}
    for text in texts:
        cheap[text] = think(tables, text)
    measured = {}

    def measure(picked, how):
        picked = [x for x in dict.fromkeys(picked) if x not in measured][:batch]
        if not picked:
            return
        counts, works = instructions(mpy, tables_file, picked)
        for text, count, work in zip(picked, counts, works):
            if work != cheap[text][0]:
                raise SystemExit("MicroPython's work differs from CPython's at %s" % text)
            measured[text] = cheap[text] + (count, how)

    by_work = sorted(cheap, key=lambda x: -cheap[x][0])
    measure(by_work[:batch // 2] + rng.sample(by_work[batch // 2:], batch - batch // 2),
            "the costliest by work, and at random")
    a, b, c = fit(list(measured.values()))
    estimate = {x: a + b * w + c * n for x, (w, n) in cheap.items()}
    measure(sorted((x for x in cheap if x not in measured), key=lambda x: -estimate[x]), "the costliest by estimate")
    report("    from %d positions: ranked by work and by the estimate, the worst measured %.1f M instructions"
           % (len(texts), max(m[2] for m in measured.values()) / 1e6))
    for r in range(rounds):
        a, b, c = fit(list(measured.values()))
        parents = sorted(measured, key=lambda x: -measured[x][2])[:PARENTS]
        fresh = []
        for _ in range(MUTANTS):
            child = mutant(tables, parents[min(rng.randrange(PARENTS), rng.randrange(PARENTS))], rng)
            if child and child not in cheap:
                cheap[child] = think(tables, child)
                fresh.append(child)
        fresh.sort(key=lambda x: -(a + b * cheap[x][0] + c * cheap[x][1]))
        measure(fresh, "hill-climb round %d" % (r + 1))
        report("    hill-climb round %d: %d mutants of the %d worst, the %d costliest by the estimate measured;"
               " the worst now %.1f M" % (r + 1, len(fresh), PARENTS, batch,
                                          max(m[2] for m in measured.values()) / 1e6))
    return measured, len(cheap)
