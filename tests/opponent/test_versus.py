"""Playing against the board (firmware/doce/versus.py): thinking between scans, the move it
expects, the same move after a power cut."""

from doce.game import BLACK, WHITE, Game, blocker, die
from doce.opponent import NO_BLOCKER
from doce.controller import NOT_THE_MOVE
from doce.versus import Hint, Versus, hint, position_key
from doce_host import rules

TABLES = rules.load_tables("standard")


def think(versus, game, limit=10000):
    """Step it as the app does, once a scan, until it has a move; the scans it took."""
    for scans in range(1, limit):
        if versus.step(game):
            assert versus.move is not None
            return scans
    raise AssertionError("no move in %d scans" % limit)


def test_it_thinks_over_many_scans_and_only_on_its_turn():
    game = Game(TABLES, WHITE)
    versus = Versus(TABLES, BLACK)
    for _ in range(50):
        assert not versus.step(game) and versus.move is None  # white to move: nothing to think about
    assert game.place(WHITE, 6, 4) is None  # not the centre: its answer there is read from a table (doce/openings.py)
    scans = think(versus, game)
    assert scans > 10  # in slices, not in one go
    blk, sq, f = versus.move
    assert game.refusal(BLACK, sq, f) is None


def test_only_its_chosen_move_is_accepted_for_its_colour():
    game = Game(TABLES, WHITE)
    versus = Versus(TABLES, BLACK, 2)
    assert versus.refusal(BLACK, 0, die(BLACK, 1)) == NOT_THE_MOVE  # white's turn: it has not chosen
    game.place(WHITE, 12, 4)
    think(versus, game)
    blk, sq, f = versus.move
    assert versus.refusal(BLACK, sq, die(BLACK, f)) is None
    assert versus.refusal(BLACK, sq, die(BLACK, f % 6 + 1)) == NOT_THE_MOVE  # another face
    assert versus.refusal(BLACK, (sq + 1) % 25, die(BLACK, f)) == NOT_THE_MOVE  # another square
    assert versus.refusal(BLACK, (sq + 1) % 25, blocker(BLACK)) == NOT_THE_MOVE  # a blocker it did not choose
    assert versus.refusal(WHITE, (sq + 1) % 25, die(WHITE, f)) is None  # the person's own pieces: the rules judge


def test_the_same_position_gets_the_same_move_after_a_power_cut():
    game = Game(TABLES, WHITE)
    for sq, f in ((12, 4), (0, 2), (6, 3), (24, 1), (18, 5)):
        game.place(game.to_move, sq, f)
    first = Versus(TABLES, game.to_move)
    think(first, game)
    again = Versus(TABLES, game.to_move)  # a new board object after the reboot, the game from the journal
    for _ in range(3):
        again.step(game)
    think(again, game)
    assert again.move == first.move
    blk, sq, f = first.move
    assert blk == NO_BLOCKER and game.refusal(game.to_move, sq, f) is None


def test_after_its_blocker_is_put_down_it_asks_for_its_die():
    """White threatens d1 and black's die may not go there (next to black's d2): the blocker."""
    game = Game(TABLES, WHITE)
    versus = Versus(TABLES, BLACK)
    # white a1 c1 c4 b1, black e5 a5 d2: white's a1 b1 c1 wants a 3 on d1
    for sq, f in ((0, 3), (24, 1), (2, 3), (20, 1), (17, 1), (8, 1), (1, 3)):
        assert game.place(game.to_move, sq, f) is None, (sq, f)
        versus.step(game)
    think(versus, game)
    blk, sq, f = versus.move
    assert blk == 3
    assert versus.refusal(BLACK, 3, blocker(BLACK)) is None
    assert game.place_blocker(BLACK, 3) is None
    assert versus.step(game)  # the blocker is down: now its die alone
    assert versus.move == (NO_BLOCKER, sq, f)
    assert versus.refusal(BLACK, sq, die(BLACK, f)) is None
    assert game.place(BLACK, sq, f) is None


def test_a_hint_is_the_strongest_move_for_the_player_to_move():
    game = Game(TABLES, WHITE)
    for sq, f in ((2, 3), (24, 1), (0, 3), (20, 1), (3, 3), (18, 1)):  # white c1 a1 d1: b1 with a 3 wins
        game.place(game.to_move, sq, f)
    assert hint(TABLES, game) == (NO_BLOCKER, 1, 3)
    assert position_key(game) != position_key(Game(TABLES, WHITE))


def test_the_buttons_hint_is_thought_in_slices_and_is_the_links_hint():
    game = Game(TABLES, WHITE)
    for sq, f in ((2, 3), (24, 1), (0, 3), (20, 1), (3, 3), (18, 1)):  # white c1 a1 d1: b1 with a 3 wins
        game.place(game.to_move, sq, f)
    asked = Hint(TABLES, game.to_move)
    think(asked, game)  # a win is seen in the first slice
    assert asked.move == hint(TABLES, game) == (NO_BLOCKER, 1, 3)
    quiet = Game(TABLES, WHITE)
    quiet.place(WHITE, 6, 4)  # not the centre, whose answer is read from a table (doce/openings.py)
    asked = Hint(TABLES, quiet.to_move)
    assert think(asked, quiet) > 10  # a move to weigh: between scans, never all at once
    assert asked.move == hint(TABLES, quiet)
    asked = Hint(TABLES, game.to_move)
    think(asked, game)
    for _ in range(5):
        assert not asked.step(game) and not asked.over  # shown while the position stays
    game.place(WHITE, 11, 2)  # white plays elsewhere: the hint has nothing more to show
    assert asked.step(game) and asked.over and asked.move is None


def test_a_hint_ends_when_the_position_moves_on_within_the_turn():
    game = Game(TABLES, WHITE)
    for sq, f in ((0, 3), (24, 1), (2, 3), (20, 1), (17, 1), (8, 1), (1, 3)):  # black must block d1
        game.place(game.to_move, sq, f)
    asked = Hint(TABLES, BLACK)
    think(asked, game)
    blk, sq, f = asked.move
    assert blk == 3
    game.place_blocker(BLACK, 3)  # the blocker it showed: now its die
    assert asked.step(game) and asked.move == (NO_BLOCKER, sq, f) and not asked.over
    other = Game(TABLES, WHITE)
    for s, v in ((0, 3), (24, 1), (2, 3), (20, 1), (17, 1), (8, 1), (1, 3)):
        other.place(other.to_move, s, v)
    asked = Hint(TABLES, BLACK)
    think(asked, other)
    other.place_blocker(BLACK, 14)  # a blocker elsewhere: not the position it was asked for
    assert asked.step(other) and asked.over and asked.move is None
