# Runs under MicroPython: micropython mp_matches.py TABLES LEVELS MATCHES
# Plays opponent_matches.schedule(LEVELS, MATCHES) and prints "white black seed: W B DIGEST" for each.
import sys

from doce.tables import Tables
from opponent_matches import play_match, schedule

with open(sys.argv[1], "rb") as f:
    tables = Tables(f.read())
for white, black, seed in schedule(int(sys.argv[2]), int(sys.argv[3])):
    print("%d %d %d: %d %d %d" % ((white, black, seed) + play_match(tables, white, black, seed)))
