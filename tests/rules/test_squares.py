"""Square and piece names (doce.squares): every square and piece round-trips, and names
from outside are read strictly, on CPython and on the board's MicroPython alike."""

import json

import pytest

from doce.game import BLACK, OFF_BOARD, WHITE, Game, blocker, die
from doce.referee import play_move
from doce.squares import parse_square, piece, piece_name, square_name
from doce_host.rules import load_tables

# Not squares of a 5x5 board, though str.isdigit() and int() accept some of them as digits.
NOT_SQUARES = ["c３", "a²", "c٣", "c⁵", "c 3", "c+3", "c-3", "c03", "c0", "c6", "f1", "C3", "c", "", "3c",
               "c3 ", " c3", "cc3", "c33", None, 3, ["c3"]]
NOT_PIECES = ["white ４", "white ²", "white 7", "white 0", "white 04", "white +4", "white  4", "White 4",
              "draw 4", "white", "white blocker 1", "grey blocker", "white -1", 4, None, "black 1e0"]


@pytest.mark.parametrize("grid", [3, 5, 9, 15])
def test_every_square_name_reads_back_as_its_square(grid):
    names = [square_name(grid, sq) for sq in range(grid * grid)]
    assert len(set(names)) == grid * grid and names[0] == "a1" and names[grid] == "a2"
    assert [parse_square(grid, n) for n in names] == list(range(grid * grid))
    assert parse_square(grid, "a%d" % (grid + 1)) is None
    assert parse_square(grid, "abcdefghijklmnop"[grid] + "1") is None


@pytest.mark.parametrize("name", NOT_SQUARES)
def test_only_ascii_names_of_the_board_are_squares(name):
    assert parse_square(5, name) is None


@pytest.mark.parametrize("cell", ["c３", "a²", "c٣"])
def test_the_referee_refuses_a_square_written_in_other_digits(cell):
    game = Game(load_tables("standard"))
    assert play_move(game, {"player": "white", "cell": cell, "value": 4}) == OFF_BOARD
    assert not any(game.board)


def test_every_piece_name_reads_back_as_its_piece():
    cells = [die(p, f) for p in (WHITE, BLACK) for f in range(1, 7)] + [blocker(WHITE), blocker(BLACK)]
    assert [piece(piece_name(c), 6) for c in cells] == cells
    assert piece_name(die(BLACK, 12)) == "black 12" and piece("black 12") == die(BLACK, 12)
    assert piece_name(0) is None


@pytest.mark.parametrize("name", NOT_PIECES)
def test_only_pieces_of_the_rules_are_pieces(name):
    assert piece(name, 6) is None


def test_the_board_reads_names_as_the_host_does(micropython, tmp_path):
    """MicroPython's own string methods differ from CPython's: the same answers there."""
    script = tmp_path / "names.py"
    script.write_text(
        "import json\n"
        "from doce.squares import parse_square, piece, square_name\n"
        "print(json.dumps([[parse_square(5, n) for n in json.loads(%r)], [piece(n, 6) for n in json.loads(%r)],"
        " [square_name(15, sq) for sq in range(225)]]))\n"
        % (json.dumps(["c3", "e5", "a1"] + [n for n in NOT_SQUARES if isinstance(n, str)]),
           json.dumps(["white 6", "black blocker"] + [n for n in NOT_PIECES if isinstance(n, str)])))
    run = micropython(script)
    assert run.returncode == 0, run.stderr
    squares, pieces, names = json.loads(run.stdout)
    assert squares[:3] == [12, 24, 0] and set(squares[3:]) == {None}
    assert pieces[:2] == [die(WHITE, 6), blocker(BLACK)] and set(pieces[2:]) == {None}
    assert names == [square_name(15, sq) for sq in range(225)]
