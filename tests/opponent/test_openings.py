"""The strongest level's answers to an opening die (firmware/doce/openings.py): played as the table
says, and the table read as untrusted."""

from doce import openings
from doce.game import Game
from doce.opponent import NO_BLOCKER, STRONGEST, Opponent
from doce_host import rules

SMALL = 4000  # a budget: the search cut sooner, as test_opponent.py does where it plays many moves


def opened(tables, face, square=None, first=0):
    game = Game(tables, first)
    assert game.place(first, tables.squares // 2 if square is None else square, face) is None
    return game


def test_the_strongest_level_answers_a_centre_opening_from_the_table():
    tables = rules.load_tables("standard")
    centre = tables.squares // 2
    for first in (0, 1):
        for face in range(1, tables.faces + 1):
            x = openings.REPLIES[centre * tables.faces + face - 1]
            assert x, "every centre opening has an answer"
            game = opened(tables, face, first=first)
            move = Opponent(tables, STRONGEST, 7).choose(game)
            assert move == (NO_BLOCKER, x >> 3, x & 7)
            assert game.is_legal_square(1 - first, move[1])


def test_a_damaged_answer_is_not_played():
    tables = rules.load_tables("standard")
    centre = tables.squares // 2
    at = centre * tables.faces  # the answer to a 1 in the centre
    for bad in (centre << 3 | 2, 8 << 3 | 0, 8 << 3 | 7, 31 << 3 | 2):  # its own square, faces 0 and 7, off the board
        table = bytearray(openings.REPLIES)
        table[at] = bad
        saved = openings.REPLIES
        openings.REPLIES = bytes(table)
        try:
            game = opened(tables, 1)
            assert openings.reply(game, 1) is None
            blk, sq, face = Opponent(tables, STRONGEST, 7, SMALL).choose(game)  # it searches instead
            assert game.is_legal_square(1, sq) and 1 <= face <= tables.faces
        finally:
            openings.REPLIES = saved


def test_a_table_of_the_wrong_size_is_not_read():
    tables = rules.load_tables("standard")
    saved = openings.REPLIES
    openings.REPLIES = saved[:-1]
    try:
        assert openings.reply(opened(tables, 1), 1) is None
    finally:
        openings.REPLIES = saved


def test_only_the_first_die_against_one_opening_die_of_the_other_players():
    tables = rules.load_tables("standard")
    assert openings.reply(Game(tables), 0) is None  # an empty board: I open
    game = opened(tables, 1)
    assert openings.reply(game, 0) is None  # the die is mine
    assert game.place(1, 0, 3) is None
    assert openings.reply(game, 0) is None and openings.reply(game, 1) is None  # two dice down
    game = Game(tables)
    assert game.place_blocker(0, tables.squares // 2) is None
    assert openings.reply(game, 1) is None  # a blocker, not a die


def test_other_rules_search():
    for name in rules.shipped_names():
        tables = rules.load_tables(name)
        if (tables.checksum >> 16, tables.checksum & 0xFFFF) != openings.CHECKSUM:
            assert openings.reply(opened(tables, 1), 1) is None
