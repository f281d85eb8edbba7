# The board's opponent as the board runs it (MicroPython, its weighing loops native code), for
# bench/ladder.py: a line in, a move out. Run with the firmware's .mpy files on MICROPYPATH:
#   opponent_serve.py TABLES
# In:  "board dice blockers last to_move level budget rng blocker_this_turn [round white black]"
#      (the position as bench/position_text.py writes it; rng the player's Rng state before its
#      move; then the match's round and each player's points in the rounds before it, which the
#      strongest level plays to in the last round)
# Out: "blocker square face rng work" (rng after the move), or "none" when it has no move.
# The opponent keeps nothing from one move to the next but its Rng, which travels with each line,
# so one process serves every player of every match.
import sys

import position_text  # bench/, this script's folder
from doce.game import Game
from doce.opponent import Opponent
from doce.tables import Tables

with open(sys.argv[1], "rb") as f:
    tables = Tables(f.read())
game = Game(tables)
players = {}
while True:
    line = sys.stdin.readline()
    if not line:
        break
    words = position_text.read(game, line)
    level, budget, rng, placed = words[:4]
    position_text.read_match(game, words[4:])
    key = level + " " + budget
    if key not in players:
        players[key] = Opponent(tables, int(level), 1, int(budget))
    player = players[key]
    player.rng.x = int(rng)
    game.blocker_this_turn = placed == "1"
    move = player.choose(game)
    if move is None:
        print("none")
    else:
        print("%d %d %d %d %d" % (move[0], move[1], move[2], player.rng.x, player.work))
