# Runs under MicroPython: micropython mp_palette_heap.py BOARD_JSON
# Prints how far apart the palette's tuples lie in the heap (bytes from the first to the end of the
# last, by id(): an object's address on MicroPython) and their own bytes, after a brightness change,
# as the network's brightness cap makes one at boot (doce/net.py).
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
ids = [id(c) for c in entries]
print(max(ids) - min(ids), len(entries))
