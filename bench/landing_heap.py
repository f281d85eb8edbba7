"""The worst a die's landing allocates from its first read to its light, searched (issue 24).

doce/app.py keeps HEADROOM free at rest and no collection starts in a landing, so what a landing
allocates must stay under it. While a die lands the board does only the landing's own work
(doce/app.py LANDING_MS): a host's requests, the network, the button and the thinking wait. So
what grows a landing is the game: how many pieces stand, whether the die wins the round (its
round_end and scores), ends the match, is refused (a wrong square: the board corrects), and the
board's opponent. The search plays random legal rounds on the simulator (the real firmware on the
unix port) and measures every landing with a host's burst of requests on the wire (what the landing
test sends, and a ring's worth of `state`), then climbs from the worst round found: it replays its
moves with other faces and other last squares, keeping a change that allocates more.

    python bench/landing_heap.py [ROUNDS] [CLIMB]     prints the worst, with its moves
"""

import json
import random
import sys

from doce.game import BLACK, WHITE
from doce_host.rules import load_tables
from doce.squares import square_name

# A host's requests on the wire as each die lands (tests/board/test_landing_heap.py's): while a die
# lands they wait in the ring, so they must not count (doce/app.py LANDING_MS).
BURST = "".join(json.dumps({"cmd": cmd, "id": i}) + "\n" for i, cmd in enumerate(("state", "hello", "state", "state")))
LEAVE = 1024  # the heap left free before the landing (tests/board/test_landing_heap.py)
NAMES = {WHITE: "white", BLACK: "black"}


def round_moves(tables, rng, wrong=0.0):
    """A random legal round for the board: [(cell, piece)], white opening; `wrong`: the chance that
    a move is first put on a square the rules refuse (the board shows the correction)."""
    from doce.game import Game
    game = Game(tables, WHITE)
    moves = []
    while not game.round_over:
        player = game.to_move
        legal = game.legal_squares(player)
        if not legal:
            break
        if rng.random() < wrong:
            refused = [sq for sq in range(tables.squares) if sq not in legal and not game.board[sq]]
            if refused:
                moves.append((square_name(tables.grid, rng.choice(refused)), None))  # lifted again next
        sq = rng.choice(legal)
        face = rng.randint(1, tables.faces)
        game.place(player, sq, face)
        moves.append((square_name(tables.grid, sq), "%s %d" % (NAMES[player], face)))
    return moves


def measure(sim, moves):
    """What each landing of `moves` allocated to its light: [(bytes, cell, piece)]."""
    out = []
    for cell, piece in moves:
        wrong = piece is None
        who = sim.hands
        if wrong:  # a die where the rules refuse it, then taken away
            piece = "white 1"
        changes = who.place(cell, piece)
        r = sim.command(do="landing", set=changes, leave=LEAVE, traffic=BURST)
        out.append((r["allocated"], cell, piece + (" (refused)" if wrong else "")))
        if wrong:
            sim.command(do="landing", set=who.lift(cell), leave=LEAVE, traffic="")
    return out


def play(moves):
    from doce_host.sim import SimBoard
    with SimBoard(module="wrover") as sim:  # the reference board
        return measure(sim, moves)


def search(rounds=6, climb=6, seed=24):
    """(worst bytes, its moves up to the worst landing, every landing measured)."""
    rng = random.Random(seed)
    tables = load_tables("standard")
    best = (0, None)
    count = 0
    for i in range(rounds):
        moves = round_moves(tables, rng, wrong=0.1 if i % 2 else 0.0)
        figures = play(moves)
        count += len(figures)
        at = max(range(len(figures)), key=lambda k: figures[k][0])
        if figures[at][0] > best[0]:
            best = (figures[at][0], moves[:at + 1])
    for _ in range(climb):  # other faces on the worst round's pieces
        moves = [(c, p if p is None else "%s %d" % (p.split()[0], rng.randint(1, tables.faces)))
                 for c, p in best[1]]
        figures = play(moves)
        count += len(figures)
        at = max(range(len(figures)), key=lambda k: figures[k][0])
        if figures[at][0] > best[0]:
            best = (figures[at][0], moves[:at + 1])
    return best[0], best[1], count


if __name__ == "__main__":
    worst, moves, count = search(*map(int, sys.argv[1:3]))
    print("worst of %d landings: %d bytes; moves: %s" % (count, worst, " ".join("%s %s" % m for m in moves)))
