"""Choose the strongest level's answer to the other player's opening die in the centre, and write
the answers to firmware/doce/openings.py, for the standard rules.

    python bench/openings.py

Every baseline opens a round in the centre (bench/baselines.py), and level 3 lost most of the rounds
it lost to greedy there: its answer decides the round more than any later move (issue 44; the
round logs of bench/ladder.py's matches 1000-1199 and 5000-5399). For each face of the opening
die this tries each face on a square beside the centre and on one diagonal to it (the others are
the same by the board's symmetry), and plays the round on, level 3 on MicroPython as the ladder
runs it, against greedy and against the two-ply player, colours alternating: first ROUNDS rounds
against each for every answer, then AGAIN fresh rounds for the best FINAL of them (so a lucky
first count does not decide). An answer is worth the mean points level 3 wins the round by
(less the other player's), against greedy and against two-ply, added. Seeds 100000 and up: no
ladder match uses them (match i seeds its players 2i+1 and 2i+2). Some 20 minutes on two cores.
"""

import os
import sys
import tempfile
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import ladder  # noqa: E402
from doce.game import Game  # noqa: E402
from doce.opponent import NO_BLOCKER, STRONGEST  # noqa: E402

ROUNDS = {"greedy": 40, "two-ply": 24}
AGAIN = {"greedy": 100, "two-ply": 60}
FINAL = 4
SEEDS = 100000, 300000  # the first count's, the second's
OUT = ROOT / "firmware" / "doce" / "openings.py"

HEAD = '''"""The strongest level's answer to the other player's opening die: chosen once on a PC by playing
rounds on from each answer (bench/openings.py writes this file), for the standard rules only.

Every baseline opens in the centre, and level 3 lost most of the rounds it lost to greedy by its
answer there (issue 44). The table is read as untrusted: a reply that is not a die on an empty
square is not played, and other rules are searched.
"""

from .game import EMPTY, NOWHERE

# The rules tables' checksum the replies were chosen for (doce/tables.py), its high and low 16 bits
# (a CRC-32 is a big int on the chip): other rules search.
CHECKSUM = (%d, %d)
# One byte for each opening die, at square * faces + face - 1: the reply's square * 8 + its face;
# 0 where none was chosen (level 3 searches).
REPLIES = (
%s
)
'''


def round_on(job):
    """The points level 3 wins the round by (less the other player's) when `who` opens `face` in
    the centre and level 3 answers `answer`, then both play on; level 3's colour by the seed."""
    who, face, answer, seed = job
    t = ladder.tables_named("standard")
    me = seed % 2
    game = Game(t, 1 - me)
    players = [None, None]
    players[me] = ladder.make(t, STRONGEST, 2 * seed + 1)
    players[1 - me] = ladder.make(t, who, 2 * seed + 2)
    game.place(1 - me, t.squares // 2, face)
    game.place(me, *answer)
    while not game.round_over:
        p = game.to_move
        blk, sq, f = players[p].choose(game)
        if blk != NO_BLOCKER:
            game.place_blocker(p, blk)
        game.place(p, sq, f)
    points = game.rounds[-1].points
    return points[me] - points[1 - me]


def worth(pool, face, answers, rounds, first):
    """{answer: its worth} over `rounds` rounds against each baseline."""
    jobs = [(who, face, a, s) for a in answers for who, n in rounds.items() for s in range(first, first + n)]
    margins = pool.map(round_on, jobs, chunksize=8)
    out = {a: 0.0 for a in answers}
    for (who, _, a, _), m in zip(jobs, margins):
        out[a] += m / rounds[who]
    return out


def choose(pool, t):
    """{opening face: (square, face)}, and the worths counted, for the log."""
    centre = t.squares // 2
    side = t.grid
    beside, diagonal = centre - side, centre - side + 1
    answers = [(q, f) for q in (beside, diagonal) for f in range(1, t.faces + 1)]
    chosen = {}
    for face in range(1, t.faces + 1):
        first = worth(pool, face, answers, ROUNDS, SEEDS[0])
        best = sorted(answers, key=lambda a: -first[a])[:FINAL]
        again = worth(pool, face, best, AGAIN, SEEDS[1])
        chosen[face] = max(best, key=lambda a: again[a])
        print("opening %d: %s" % (face, "  ".join("%d:%d %+.1f" % (a + (again[a],)) for a in best)), flush=True)
    return chosen


def text(t, chosen):
    table = bytearray(t.squares * t.faces)
    for face, (sq, f) in chosen.items():
        table[(t.squares // 2) * t.faces + face - 1] = sq << 3 | f
    hexed = "".join("\\x%02x" % b for b in table)
    body = "\n".join('    b"%s"' % hexed[i:i + 96] for i in range(0, len(hexed), 96))
    rest = OUT.read_text().split("\n\n\ndef reply", 1)[1]
    return HEAD % (t.checksum >> 16, t.checksum & 0xFFFF, body) + "\n\ndef reply" + rest


def main():
    from compiled import precompile
    t = ladder.tables_named("standard")
    with tempfile.TemporaryDirectory() as tmp:
        ladder._native[:] = [str(precompile(Path(tmp) / "mpy"))]
        with Pool(min(ladder.WORKERS, os.cpu_count() or 1)) as pool:
            chosen = choose(pool, t)
    OUT.write_text(text(t, chosen))
    print("wrote", OUT)


if __name__ == "__main__":
    main()
