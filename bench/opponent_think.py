# The opponent thinking, on the MicroPython unix port, for bench/opponent.py. Run with the
# firmware's .mpy files on MICROPYPATH:
#   opponent_think.py TABLES POSITIONS time       each position's move: print the microseconds
#                                                 and the positions it weighed
#   opponent_think.py TABLES POSITIONS one I [stop]
#                                                 position I's move (with `stop`: load it, do not
#                                                 think: callgrind's baseline)
#   opponent_think.py TABLES POSITIONS heap       print the bytecode of opponent.py and versus.py, its data, and the
#                                                 most any move allocates while it thinks (gc off)
# POSITIONS: a line a position, "board dice blockers last to_move" as hex bytes.
import gc
import sys
import time

gc.collect()
at_start = gc.mem_alloc()
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
    board, dice, blockers, last, to_move = text.split()
    game.board[:] = bytes.fromhex(board)
    game.dice_left[:] = bytes.fromhex(dice)
    game.blockers_left[:] = bytes.fromhex(blockers)
    game.last_placed[:] = bytes.fromhex(last)
    game.to_move = int(to_move)
    game.blocker_this_turn = False


mode = sys.argv[3]
if mode == "time":
    for i, text in enumerate(positions()):
        load(text)
        player = Opponent(tables, seed=i)
        start = time.ticks_us()
        player.choose(game)
        print(time.ticks_diff(time.ticks_us(), start), player.nodes)
elif mode == "one":
    for i, text in enumerate(positions()):
        if i == int(sys.argv[4]):
            load(text)
    player = Opponent(tables, seed=int(sys.argv[4]))
    gc.collect()
    if sys.argv[-1] != "stop":
        player.choose(game)
elif mode == "heap":
    gc.collect()
    before = gc.mem_alloc()
    player = Opponent(tables)
    gc.collect()
    data = gc.mem_alloc() - before
    worst = 0
    for i, text in enumerate(positions()):
        load(text)
        player.rng.x = i % 65535 + 1
        gc.collect()
        gc.disable()
        before = gc.mem_alloc()
        player.choose(game)
        worst = max(worst, gc.mem_alloc() - before)
        gc.enable()
    print('{"code": %d, "data": %d, "thinking": %d}' % (code, data, worst))
