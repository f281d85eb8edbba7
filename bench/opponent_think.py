# The board's opponent thinking on the MicroPython unix port, for bench/opponent.py. Run with
# the firmware's .mpy files on MICROPYPATH:
#   opponent_think.py TABLES POSITIONS count     each position's move at the strongest level, one
#                                                 Opponent for all (as a board keeps one): prints its
#                                                 work; micropython.stack_use() just before and just
#                                                 after each move marks it for callgrind's
#                                                 --dump-before=mp_micropython_stack_use
#   opponent_think.py TABLES POSITIONS steps     the same, a step of think() at a time (what the board
#                                                 does between two scans): each step marked so, and
#                                                 its work printed
#   opponent_think.py TABLES POSITIONS one I [stop]
#                                                 position I's move (with `stop`: set up, do not think)
#   opponent_think.py TABLES POSITIONS heap       the bytecode of opponent.py and versus.py, the
#                                                 opponent's data, and the most a move allocates
#                                                 while it thinks (gc off)
# POSITIONS: a line a position, "board dice blockers last to_move seed [round white black]" (hex
# bytes, then the to_move and the Rng state the move was thought with; then, if given, the match
# around it: bench/position_text.py's write_match).
import gc
import sys

import micropython

gc.collect()
at_start = gc.mem_alloc()
import position_text  # noqa: E402  (bench/, this script's folder)
from doce.game import Game  # noqa: E402
from doce.tables import Tables  # noqa: E402

gc.collect()
engine = gc.mem_alloc() - at_start
from doce.opponent import Opponent  # noqa: E402
from doce.versus import Versus  # noqa: E402, F401  (the board loads both in a match against it)

gc.collect()
code = gc.mem_alloc() - at_start - engine

with open(sys.argv[1], "rb") as f:
    tables = Tables(f.read())
game = Game(tables)


def positions():
    with open(sys.argv[2]) as f:
        for line in f:
            if line.strip():
                yield line


def load(text):
    """game set to the position (and its match, if the line gives it); the seed its move was
    thought with."""
    words = position_text.read(game, text)
    position_text.read_match(game, words[1:])
    return int(words[0])


mode = sys.argv[3]
gc.collect()
before = gc.mem_alloc()
player = Opponent(tables)
gc.collect()
data = gc.mem_alloc() - before
if mode == "count":
    for text in positions():
        player.rng.x = load(text)
        micropython.stack_use()
        player.choose(game)
        micropython.stack_use()
        print(player.work)
elif mode == "steps":
    for text in positions():
        player.rng.x = load(text)
        thinking = player.think(game)
        done = False
        before = 0  # think() starts its work at 0
        while not done:
            micropython.stack_use()
            try:
                next(thinking)
            except StopIteration:
                done = True
            micropython.stack_use()
            print(player.work - before)
            before = player.work
elif mode == "one":
    for i, text in enumerate(positions()):
        if i == int(sys.argv[4]):
            player.rng.x = load(text)
    gc.collect()
    if sys.argv[-1] != "stop":
        player.choose(game)
elif mode == "heap":
    worst = 0
    for text in positions():
        player.rng.x = load(text)
        gc.collect()
        gc.disable()
        before = gc.mem_alloc()
        player.choose(game)
        worst = max(worst, gc.mem_alloc() - before)
        gc.enable()
    print('{"code": %d, "data": %d, "thinking": %d}' % (code, data, worst))
