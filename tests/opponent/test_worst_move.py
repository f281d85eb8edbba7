"""The search for the opponent's slowest move (bench/worst_move.py): its mutants are positions a
match can reach, its estimate is least squares, and the hill-climb keeps what it measured worst."""

import random
import sys
from pathlib import Path

from doce.game import BLOCKER, EMPTY, NOWHERE
from doce.opponent import Opponent
from doce_host import rules

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import worst_move  # noqa: E402

TABLES = rules.load_tables("standard")
HERE = Path(__file__).parent
SMALL = 3000  # the strongest level's budget here: the search's mechanics, not its strength, are tested


def real_positions():
    """Positions of level 3's real matches (chosen_moves.txt), as the search reads them."""
    return [x.split(": ")[0] for x in (HERE / "chosen_moves.txt").read_text().splitlines()
            if x and not x.startswith("#")]


def test_mutants_are_positions_a_match_can_reach():
    """Every player's dice and blockers add up, each last square holds that player's die, no line
    is won, and the player to move has a die and a square: the opponent moves, the engine accepts."""
    rng = random.Random(5)
    texts = real_positions()
    made = set()
    for i in range(600):
        child = worst_move.mutant(TABLES, texts[i % len(texts)], rng)
        if child is None:
            continue
        made.add(child)
        game, seed = worst_move.load(TABLES, child)
        board = game.board
        for p in (0, 1):
            dice = sum(1 for c in board if c != EMPTY and c < BLOCKER and c >> 4 == p + 1)
            assert dice + game.dice_left[p] == TABLES.dice_per_player, child
            assert sum(1 for c in board if c == BLOCKER | p) + game.blockers_left[p] == TABLES.blockers_per_player
            last = game.last_placed[p]
            assert (last == NOWHERE) == (dice == 0), child
            assert last == NOWHERE or board[last] >> 4 == p + 1, child
        assert 0 <= game.dice_left[game.to_move] - game.dice_left[1 - game.to_move] <= 1  # turns alternate
        assert worst_move.playable(game)
        player = Opponent(TABLES, budget=SMALL)
        player.rng.x = seed
        blk, sq, face = player.choose(game)
        if blk != NOWHERE:
            assert game.place_blocker(game.to_move, blk) is None
        assert game.place(game.to_move, sq, face) is None
    assert len(made) > 300  # most mutations make a new position


def test_a_won_line_is_not_playable():
    game, _ = worst_move.load(TABLES, real_positions()[0])
    assert worst_move.playable(game)
    for sq, face in ((0, 3), (1, 3), (2, 3), (3, 3)):  # a1-d1, white's 3+3+3+3
        game.board[sq] = 0x10 | face
    assert not worst_move.playable(game)


def test_the_estimate_is_least_squares():
    rows = [(w, n, 1000 + 7 * w + 3 * n) for w, n in ((10, 5), (20, 1), (30, 9), (5, 40), (50, 50))]
    a, b, c = worst_move.fit(rows)
    assert round(a) == 1000 and round(b, 6) == 7 and round(c, 6) == 3


def test_the_hill_climb_keeps_the_worst_it_measures(monkeypatch):
    """With callgrind replaced by a known cost, the search measures the costliest by work first,
    finds the worst of what it measured, and never loses a worse position once found."""
    monkeypatch.setattr(worst_move, "MOVE_BUDGET", SMALL)

    def cost(text):
        work, nodes = worst_move.think(TABLES, text)
        return 5000 * work + 700 * nodes + int(text.split()[-1]) % 1000  # the seed: a cost work does not show

    def fake(mpy, tables_file, texts):
        return [cost(x) for x in texts], [worst_move.think(TABLES, x)[0] for x in texts]

    monkeypatch.setattr(worst_move, "instructions", fake)
    texts = real_positions()[:60]
    rounds = []
    measured, covered = worst_move.search(None, TABLES, None, texts, rounds=3, batch=6, report=rounds.append)
    assert covered > len(texts) and len(rounds) == 4
    assert all(m[2] == cost(x) for x, m in measured.items())
    by_work = max(texts, key=lambda x: worst_move.think(TABLES, x)[0])
    assert by_work in measured
    first = float(rounds[0].split()[-3])  # printed to 0.1 M
    assert max(m[2] for m in measured.values()) / 1e6 >= first - 0.05
    assert any(how.startswith("hill-climb") for _, _, _, how in measured.values())
