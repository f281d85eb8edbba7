"""Run the rule cases in cases.json against the engine: on CPython (pytest) and MicroPython.

A case names the rule it checks, the moves (recorded format, or the short form
"W c3 4" / "B c3 b" for a blocker) and what must follow. Every test writes moves in this
short form (expand) and puts a recorded move's piece down by name (piece_of):
  refused  {move index: code} -- every other move must be accepted
  rounds   the round events, in order, exactly as the referee prints them
  match    the match event, if the match ends
  zones    {player: [squares]} -- each player's no-play zone after the moves
  to_move  who must move next
"""

import json

from doce.game import Game, WHITE, BLACK, PLAYER_NAMES, blocker, die
from doce.referee import referee
from doce.squares import piece_name, square_name


def expand(move):
    """A recorded move from the short form; anything else is passed through as it is."""
    parts = move.split() if isinstance(move, str) else ()
    if len(parts) != 3:
        return move
    who, cell, what = parts
    move = {"player": {"W": "white", "B": "black"}[who], "cell": cell}
    if what == "b":
        move["blocker"] = True
    else:
        move["value"] = int(what)
    return move


def piece_of(move):
    """The piece a recorded move puts down, by name: 'white 4', 'black blocker'."""
    player = PLAYER_NAMES.index(move["player"])
    return piece_name(blocker(player) if move.get("blocker") else die(player, move["value"]))


def load(path):
    with open(path) as f:
        return json.load(f)


def run(case, tables):
    """The list of ways the engine disagrees with `case`; empty when it passes."""
    game = Game(tables, BLACK if case.get("first") == "black" else WHITE)
    moves = [expand(m) for m in case["moves"]]
    refused = case.get("refused", {})
    problems = []
    rounds = []
    match = None
    for event in referee(game, moves):
        if "move" in event:
            want = refused.get(str(event["move"]))
            got = event.get("error")
            if want != got:
                problems.append("move %d (%s): expected %s, got %s" % (
                    event["move"], case["moves"][event["move"]], want or "ok", got or "ok"))
        elif "round" in event:
            rounds.append(event)
        else:
            match = event["match"]
    if rounds != case.get("rounds", []):
        problems.append("rounds: expected %s, got %s" % (case.get("rounds", []), rounds))
    if match != case.get("match"):
        problems.append("match: expected %s, got %s" % (case.get("match"), match))
    for name, want in case.get("zones", {}).items():
        player = PLAYER_NAMES.index(name)
        got = sorted(square_name(tables.grid, sq) for sq in game.no_play_zone(player))
        if got != sorted(want):
            problems.append("%s's zone: expected %s, got %s" % (name, sorted(want), got))
    if "to_move" in case and PLAYER_NAMES[game.to_move] != case["to_move"]:
        problems.append("to move: expected %s, got %s" % (case["to_move"], PLAYER_NAMES[game.to_move]))
    return problems
