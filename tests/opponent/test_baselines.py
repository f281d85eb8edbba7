"""The ladder's baselines (bench/baselines.py): the greedy player takes the best win, never
completes the other player's line, blocks, and prefers a double threat; the Monte Carlo player
spends a fixed number of rollouts and replays the same move for the same seed."""

import sys
from pathlib import Path

import pytest

from doce.game import BLACK, WHITE, Game, blocker, die
from doce_host import rules
from test_opponent import after, blocker_moves, can_win, die_moves, positions, stops_them, threats, wins

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from baselines import NO_BLOCKER, Greedy, MonteCarlo, Rules, TwoPly  # noqa: E402

TABLES = rules.load_tables("standard")


def win_points(game, move):
    g = after(game, move)
    return g.rounds[-1].points[game.to_move]


def test_its_reading_of_lines_is_the_rules_engines():
    r = Rules(TABLES)
    checked = 0
    for game in positions(TABLES, 400, 3):
        for line in range(TABLES.line_count):
            assert r.winner(game.board, line) == game.line_winner(line)
            checked += game.line_winner(line) is not None
    for game in positions(TABLES, 300, 9):  # the moves that end a round, too
        for move in die_moves(game):
            g = after(game, move)
            for line in range(TABLES.line_count):
                assert r.winner(g.board, line) == g.line_winner(line)
                checked += g.line_winner(line) is not None
    assert checked > 50


def test_greedy_takes_the_win_worth_most():
    found = 0
    for i, game in enumerate(positions(TABLES, 800, 21)):
        if not can_win(game):
            continue
        found += 1
        move = Greedy(TABLES, i).choose(game)
        assert wins(game, move)
        assert win_points(game, move) == max(win_points(game, m) for m in die_moves(game) if wins(game, m))
    assert found >= 20


def completes_theirs(game, move):
    g = after(game, move)
    return g.round_over and any(p != game.to_move for p, _ in g.rounds[-1].lines)


def test_greedy_never_completes_the_other_players_line():
    hands_over = 0
    for i, game in enumerate(positions(TABLES, 600, 31)):
        move = Greedy(TABLES, i).choose(game)
        assert not completes_theirs(game, move)
        hands_over += any(completes_theirs(game, m) for m in die_moves(game))
    assert hands_over >= 10  # it had the chance, often


def test_greedy_blocks_a_winning_square_with_a_die_or_its_blocker():
    found = 0
    for i, game in enumerate(positions(TABLES, 1500, 1001)):
        if can_win(game):
            continue
        them = threats(game)
        if not 0 < len(them) <= 2:
            continue
        # covering them: a die on one, or the blocker on one then a die on the other or anywhere
        moves = [m for m in die_moves(game) if m[1] in them and len(them) == 1]
        moves += [m for m in blocker_moves(game, them) if len(them) == 1 or m[1] in them]
        if not any(stops_them(game, m) for m in moves):
            continue
        found += 1
        assert stops_them(game, Greedy(TABLES, i).choose(game))
    assert found >= 20


def fork_position():
    """White b1 c1 and a2 a3 (ones): a white die on a1 showing 4 to 6 makes d1 and a4 winning
    squares at once, out of reach of a black without its blocker."""
    game = Game(TABLES, WHITE)
    board = {1: die(WHITE, 1), 2: die(WHITE, 1), 5: die(WHITE, 1), 10: die(WHITE, 1), 12: die(WHITE, 2),
             14: die(BLACK, 6), 19: die(BLACK, 6), 23: die(BLACK, 5), 24: blocker(BLACK), 22: die(BLACK, 3)}
    for sq, cell in board.items():
        game.board[sq] = cell
    game.dice_left[:] = bytes((6, 7))
    game.blockers_left[:] = bytes((1, 0))
    game.last_placed[:] = bytes((12, 22))
    return game


def test_greedy_prefers_a_double_threat():
    game = fork_position()
    move = Greedy(TABLES, 1).choose(game)
    assert move[0] == NO_BLOCKER and move[1] == 0 and move[2] >= 4
    g = after(game, move)
    for reply in die_moves(g) + blocker_moves(g, range(TABLES.squares)):
        then = after(g, reply)  # whatever black answers, white wins (black's die may complete white's line)
        assert then.round_over and then.rounds[-1].result == WHITE or can_win(then)


class Counted(MonteCarlo):
    def rollout(self, game, move, answer=None):
        self.rollouts_run = getattr(self, "rollouts_run", 0) + 1
        return MonteCarlo.rollout(self, game, move, answer)


def test_monte_carlo_spends_its_rollouts_and_replays():
    games = [g for g in positions(TABLES, 200, 41) if not can_win(g) and not threats(g)][:8]
    for i, game in enumerate(games):
        player = Counted(TABLES, i, rollouts=60)
        move = player.choose(game)
        assert player.rollouts_run <= 60 and player.rollouts_run >= 60 - 6
        assert Counted(TABLES, i, rollouts=60).choose(game) == move
        assert game.refusal(game.to_move, move[1], move[2]) is None


@pytest.mark.parametrize("player", [Greedy, MonteCarlo, TwoPly])
def test_a_win_next_turn_is_taken(player):
    game = fork_position()
    move = player(TABLES, 3).choose(game)
    assert move[1] == 0 and move[2] >= 4


def best_reply(game, move):
    """Greedy's score of the other player's best reply to `move` (an independent greedy)."""
    state = after_state(game, move)
    return Greedy(TABLES, 99).ranked(state)[0][0]


def after_state(game, move):
    from baselines import after as after_move
    return after_move(game, move)


def test_two_ply_takes_the_win_worth_most():
    found = 0
    for i, game in enumerate(positions(TABLES, 800, 21)):
        if not can_win(game):
            continue
        found += 1
        move = TwoPly(TABLES, i).choose(game)
        assert wins(game, move)
        assert win_points(game, move) == max(win_points(game, m) for m in die_moves(game) if wins(game, m))
    assert found >= 20


def test_two_ply_leaves_the_weakest_best_reply_of_greedys_twelve():
    """Its move is one of greedy's 12 best, and no other of those leaves the other player a better
    best reply (by greedy's judgement, from their side); often that is not greedy's own move."""
    differs = 0
    games = [g for g in positions(TABLES, 300, 51) if not can_win(g)][:60]
    for i, game in enumerate(games):
        move = TwoPly(TABLES, i).choose(game)
        twelve = [m for _, m in Greedy(TABLES, i).ranked(game)[:12]]
        assert move in twelve
        assert game.refusal(game.to_move, move[1], move[2]) is None
        if not after(game, move).round_over and not completes_theirs(game, move):
            mine = best_reply(game, move)
            assert all(mine <= best_reply(game, m) for m in twelve if not after(game, m).round_over)
        differs += move != Greedy(TABLES, i).choose(game)
    assert differs >= 10


def test_two_ply_replays_and_never_completes_the_other_players_line():
    for i, game in enumerate(positions(TABLES, 200, 31)):
        move = TwoPly(TABLES, i).choose(game)
        assert not completes_theirs(game, move)
        assert TwoPly(TABLES, i).choose(game) == move
