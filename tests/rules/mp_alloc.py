# Runs under MicroPython: micropython mp_alloc.py TABLES
# Prints the bytes allocated by plays that do not end a round (the engine promises 0).
import gc
import sys

import micropython
from doce.game import Game
from doce.tables import Tables

with open(sys.argv[1], "rb") as f:
    tables = Tables(f.read())
PLAYS = [(0, 12, 4), (1, 0, 2), (0, 24, 1), (1, 4, 3), (0, 20, 5), (1, 2, 6)]


def measure():
    game = Game(tables)
    game.place_blocker(0, 6)  # white's blocker first, then white's die
    gc.collect()
    before = micropython.mem_total()
    for player, square, face in PLAYS:
        assert game.place(player, square, face) is None
        assert game.refusal(game.to_move, 12, 3) == "occupied"
    return micropython.mem_total() - before


measure()  # the first run may intern names
print(measure())
