"""`doce play` (what `make sim` runs for now): a match typed at the terminal."""

import io

from doce_host.play import play
from doce_host.rules import load_tables

ROUND = ["a1 2", "a5 1", "c1 4", "c5 1", "e3 1", "e5 1", "b1 3", "a3 1", "d1 3"]


def run(lines):
    out = io.StringIO()
    game = play(load_tables("standard"), io.StringIO("\n".join(lines) + "\n"), out)
    return game, out.getvalue()


def test_a_typed_round_is_refereed_and_scored():
    game, out = run(ROUND + ["quit"])
    assert "White wins round 1 by a winning line (a1 b1 c1 d1). Points: white 35, black 0." in out
    assert "Round 2: black opens." in out
    assert game.round == 2 and game.totals() == (35, 0)


def test_refusals_are_explained_and_change_nothing():
    game, out = run(["c3 4", "d4 9", "c3 2", "c3", "zz 1", "d4 b", "d4 1", "quit"])
    assert out.count("Refused: that square is taken") == 2  # c3 2, and d4 1 on the blocker
    assert "Refused: a die shows 1 to 6" in out
    assert 'Refused: type a square and a face, like "c3 4"' in out
    assert "Refused: that is not a square on this board" in out
    assert game.board[18] == 0x31  # black's blocker on d4
    assert game.to_move == 1 and game.blocker_this_turn  # black still owes a numbered die


def test_only_ascii_digits_name_a_square_or_a_face():
    game, out = run(["c３ 4", "c3 ４", "c3 ²", "quit"])
    assert "Refused: that is not a square on this board" in out
    assert out.count('Refused: type a square and a face, like "c3 4"') == 2
    assert not any(game.board)


def test_a_blocker_and_a_die_on_one_line_as_a_hint_says_them():
    game, out = run(["c3 b, then d4 2", "Hint: a1 b, then e5 3", "quit"])
    assert "Refused" not in out
    assert game.board[12] == 0x30 and game.board[18] == 0x12  # white's blocker on c3, its 2 on d4
    assert game.board[0] == 0x31 and game.board[24] == 0x23  # black's, the line a hint gives
    game, out = run(["c3 4, d1 2", "c3 4 then d1 2", "b2 b, then b2 3", "quit"])
    assert out.count("Refused: one move a line: a die (c3 4), or your blocker and then your die") == 2
    assert "Refused: that square is taken (b2 b stands: your die next)" in out
    assert game.board[6] == 0x30 and game.to_move == 0 and game.blocker_this_turn


def test_the_board_shows_dice_and_the_zone():
    _, out = run(["c3 4", "quit"])
    assert "W4*" in out
    assert out.rstrip().splitlines()[-1].startswith("Round 1 of 4   white 0 : 0 black   black to move")


# -- against the board's opponent (doce play --vs LEVEL) -----------------------------------

def hinted(out, limit=400):
    """A player who types "hint" and then plays the hint, until the match is over."""
    for _ in range(limit):
        if "Match over" in out.getvalue():
            return
        yield "hint\n"
        yield out.getvalue().rsplit("Hint: ", 1)[1].splitlines()[0] + "\n"  # typed back as said: "a2 b, then d4 3"
    raise AssertionError("the match did not end in %d moves" % limit)


def test_a_whole_match_against_the_board_with_hints():
    out = io.StringIO()
    game = play(load_tables("standard"), hinted(out), out, vs=1, colour=0)
    text = out.getvalue()
    assert game.match_over
    assert "Refused" not in text
    assert text.index("The board (white) plays") < text.index("Hint: ")  # white opens round 1: the board
    assert text.count("The board (white) plays") >= 4 * 3
    w, b = game.totals()
    assert "Match over: white %d, black %d." % (w, b) in text
    assert b > w  # the hints are the strongest level's moves; the board plays level 1


def test_the_board_replays_the_same_match_for_the_same_seed():
    def run_seed(seed):
        out = io.StringIO()
        play(load_tables("standard"), hinted(out), out, vs=2, colour=1, seed=seed)
        return [line for line in out.getvalue().splitlines() if line.startswith("The board")]
    assert run_seed(5) == run_seed(5)
    assert run_seed(5) != run_seed(6)
