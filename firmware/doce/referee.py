"""Referee a recorded game: moves in the recorded format in, events out.

The format is fixed by `doce referee` (docs/referee.md): a move is
{"player": "white"|"black", "cell": "c3", "value": 1-6} or
{"player": ..., "cell": ..., "blocker": true}. Events are plain dicts.
"""

from .game import MATCH_ENDED, OFF_BOARD, PLAYER_NAMES, WHITE, BLACK
from .squares import parse_square, square_name

BAD_MOVE = "bad_move"


def play_move(game, move):
    """Apply one recorded move to `game`; return its refusal code or None."""
    if game.match_over:
        return MATCH_ENDED
    if not isinstance(move, dict) or move.get("player") not in ("white", "black"):
        return BAD_MOVE
    player = WHITE if move["player"] == "white" else BLACK
    square = parse_square(game.tables.grid, move.get("cell"))
    if square is None:
        return OFF_BOARD
    if move.get("blocker") is True:
        return game.place_blocker(player, square)
    value = move.get("value")
    if not isinstance(value, int) or isinstance(value, bool):
        value = 0  # refused as bad_value, after the checks that come first
    return game.place(player, square, value)


def round_event(game, end):
    t = game.tables
    return {
        "round": end.number,
        "result": PLAYER_NAMES[end.result],
        "reason": end.reason,
        "lines": [[square_name(t.grid, sq) for sq in t.line_squares(line)] for _, line in end.lines],
        "points": {"white": end.points[0], "black": end.points[1]},
    }


def match_event(game):
    white, black = game.totals()
    return {"match": {"white": white, "black": black, "winner": PLAYER_NAMES[game.winner()]}}


def referee(game, moves):
    """Yield the events for `moves` in order; a refused move changes nothing."""
    for i, move in enumerate(moves):
        finished = len(game.rounds)
        why = play_move(game, move)
        yield {"move": i, "ok": True} if why is None else {"move": i, "ok": False, "error": why}
        if len(game.rounds) > finished:
            yield round_event(game, game.rounds[-1])
            if game.match_over:
                yield match_event(game)
            else:
                game.start_round()
