# Runs under MicroPython, bench/ on MICROPYPATH: micropython mp_steps.py TABLES POSITIONS
# The strongest level thinks each position's move a step of think() at a time, as versus.py steps it
# between two scans, and prints "position step work bytes" for each step: its work, and the heap it
# allocated (gc off meanwhile: the interpreter's own count). POSITIONS: chosen_moves.txt's lines.
import gc
import sys

import position_text  # bench/
from doce.game import Game
from doce.opponent import Opponent
from doce.tables import Tables

with open(sys.argv[1], "rb") as f:
    tables = Tables(f.read())
game = Game(tables)
player = Opponent(tables)  # one for all the moves, as a board keeps one
with open(sys.argv[2]) as f:
    texts = [line.split(": ")[0] for line in f if line.strip() and not line.startswith("#")]
for i, text in enumerate(texts):
    player.rng.x = int(position_text.read(game, text)[0])
    thinking = player.think(game)
    step = 0
    done = False
    while not done:
        work = player.work
        gc.collect()
        gc.disable()
        before = gc.mem_alloc()
        try:
            next(thinking)
        except StopIteration:
            done = True
        allocated = gc.mem_alloc() - before
        gc.enable()
        print("%d %d %d %d" % (i, step, player.work - work, allocated))
        step += 1
