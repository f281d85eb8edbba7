"""Square and piece names: the one place that writes and reads 'c3' and 'white 4'.

A square is row * grid + column, as in the rule tables: 'a1' is white's left corner,
the column a letter from the left, the row a number from white's edge. A grid is at
most 15 squares a side (rules/rules.schema.json, board.check): 'a' to 'o', and a square's
index fits a byte below tables.END. A piece is 'white 4' (a die, 4 up) or 'black
blocker'; on a square it is game.die() or game.blocker().
Pure, for the board (MicroPython) and the host alike.

Names come from outside (the link, recorded games, the page), so reading is strict:
ASCII digits only. str.isdigit and int() would take 'c３' or 'a²' for a square.
"""

from .game import EMPTY, PLAYER_NAMES, WHITE, blocker, die, is_blocker


def square_name(grid, square):
    return chr(97 + square % grid) + str(square // grid + 1)


def parse_square(grid, name):
    """The square named like 'c3' on a board `grid` squares a side, or None if it names none."""
    if not isinstance(name, str) or len(name) < 2:
        return None
    col = ord(name[0]) - 97
    row = number(name[1:])
    if row is None or not 0 <= col < grid or row > grid:
        return None
    return (row - 1) * grid + col


def number(name):
    """The whole number 1 to 99 that `name` writes in ASCII digits, with no sign, space or
    leading zero; None for anything else."""
    if not isinstance(name, str) or not 1 <= len(name) <= 2 or name[0] == "0":
        return None
    n = 0
    for c in name:
        c = ord(c) - 48  # '0'
        if not 0 <= c <= 9:
            return None
        n = n * 10 + c
    return n


def piece(name, faces=15):
    """The square's byte for 'white 4' (faces 1 to `faces`, the rule tables'; a square's
    byte holds at most 15) or 'black blocker'; None for any other text."""
    if not isinstance(name, str):
        return None
    fields = name.split(" ")
    if len(fields) != 2 or fields[0] not in ("white", "black"):
        return None
    player = PLAYER_NAMES.index(fields[0])
    if fields[1] == "blocker":
        return blocker(player)
    face = number(fields[1])
    return None if face is None or face > faces else die(player, face)


def piece_name(cell):
    """A square's byte as 'white 4' or 'black blocker' (None if empty)."""
    if cell == EMPTY:
        return None
    if is_blocker(cell):
        return PLAYER_NAMES[cell & 1] + " blocker"
    return "%s %d" % ("white" if cell >> 4 == WHITE + 1 else "black", cell & 0x0F)
