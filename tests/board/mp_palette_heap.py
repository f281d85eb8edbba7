# Runs under MicroPython: micropython mp_palette_heap.py BOARD_JSON
# Prints how far apart the palette's tuples lie in the heap (bytes from the first to the last, by
# id(): an object's address on MicroPython), how many there are, and how many lie right after another
# (the next address up is one tuple on), after a brightness change, as the network's brightness cap
# makes one at boot (doce/net.py).
import gc
import sys

from doce.board import load
from doce.lights import Lights

board = load(sys.argv[1])
lights = Lights(None, lambda: None, board)
gc.collect()
lights.set_brightness(0.5)
gc.collect()
entries = [c for colours in lights.palette for c in colours]
ids = sorted([id(c) for c in entries])
print(ids[-1] - ids[0], len(entries), sum(1 for i in range(len(ids) - 1) if ids[i + 1] - ids[i] == int(sys.argv[2])))
