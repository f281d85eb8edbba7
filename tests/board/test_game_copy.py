"""Game.copy: the match in objects of its own, for a boot to make again once the journal's replay is
collected (doce/app.py; tests/fleet/test_remote_boot_heap.py for why)."""

from doce.game import WHITE, Game
from doce.referee import referee
from doce_host.rules import load_tables
from test_match import MATCH


def fields(game):
    """Every field of the game, by value: a field Game gains and copy() leaves out shows here."""
    out = {}
    for name, value in vars(game).items():
        if name == "rounds":
            value = [vars(end) for end in value]
        elif isinstance(value, bytearray):
            value = bytes(value)
        out[name] = value
    return out


def test_a_copied_game_is_the_same_match_in_objects_of_its_own():
    game = Game(load_tables("standard"), WHITE)
    list(referee(game, [m for moves in MATCH[:3] for m in moves] + MATCH[3][:4]))  # three rounds and a bit
    copy = game.copy()
    assert len(game.rounds) == 3 and fields(copy) == fields(game)
    for name, value in vars(game).items():
        if isinstance(value, (bytearray, list)):
            assert vars(copy)[name] is not value, name
    for mine, its in zip(game.rounds, copy.rounds):
        assert its is not mine and its.lines is not mine.lines
    rest = MATCH[3][4:]
    assert list(referee(copy, rest)) == list(referee(game, rest))  # and the match plays on the same
    assert fields(copy) == fields(game) and copy.match_over
