# Random full matches on the rules engine; runs unchanged on CPython and MicroPython.
#   matches.py TABLES N       play N matches, print placements per second
#   matches.py TABLES 1 heap  play one match, print live heap figures (MicroPython)
# Moves are random: probe random squares and faces until the engine accepts one.
import gc
import sys
import time

gc.collect()
heap_at_start = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0

from doce.game import Game  # noqa: E402
from doce.tables import Tables  # noqa: E402

seed = 12345


def rand(n):
    global seed
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    return (seed >> 8) % n


def play_match(tables, after_play=None):
    game = Game(tables, rand(2))
    placed = 0
    while not game.match_over:
        if game.round_over:
            game.start_round()
        p = game.to_move
        sq = rand(tables.squares)
        if game.blockers_left[p] and rand(12) == 0:
            ok = game.place_blocker(p, sq) is None
        else:
            ok = game.place(p, sq, 1 + rand(tables.faces)) is None
        placed += ok
        if ok and after_play:
            after_play()
    return placed


def now():
    return time.ticks_us() / 1e6 if hasattr(time, "ticks_us") else time.perf_counter()


def live():
    gc.collect()
    return gc.mem_alloc()  # MicroPython only, as is the heap mode


heap_mode = sys.argv[3:] == ["heap"]
if heap_mode:
    code = live() - heap_at_start
with open(sys.argv[1], "rb") as f:
    tables = Tables(f.read())
if heap_mode:
    del f
    loaded = live()
    peak = [loaded]

    def after_play():
        peak[0] = max(peak[0], live())
    play_match(tables, after_play)
    print('{"code": %d, "tables": %d, "match_peak": %d}'
          % (code, loaded - heap_at_start - code, peak[0] - loaded))
else:
    matches = int(sys.argv[2])
    start = now()
    placed = sum(play_match(tables) for _ in range(matches))
    took = now() - start
    print('{"matches": %d, "placements": %d, "seconds": %.3f}' % (matches, placed, took))
