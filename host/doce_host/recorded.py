"""A recorded game in `doce referee`'s format (docs/referee.md): checked, then refereed
(`doce referee`) or stepped through move by move (the web page's replay)."""

import json

from doce.controller import Controller
from doce.game import BLACK, MATCH_ENDED, WHITE, Game, blocker, die
from doce.lights import PULSE, PULSE_MS, Lights
from doce.state import board_snapshot
from doce.opponent import LEVELS
from doce.referee import referee
from doce.squares import parse_square

from . import rules as rulesfiles
from .paths import load_board
from .view import describe, move_refused, problems_in_words

KEYS = {"rules", "first", "moves", "versus"}
VERSUS_KEYS = {"colour", "level"}


MOST_MOVES = 1000  # a replay's limit: a match is well under 200 moves


class GameFileError(ValueError):
    """What is wrong with a recorded game, in one line."""


def match_of(recorded, rules=None, shipped_only=False):
    """A new Game for a recorded game (a parsed JSON value), and its moves."""
    if not isinstance(recorded, dict):
        raise GameFileError('a recorded game is a JSON object with "moves"')
    unknown = sorted(set(recorded) - KEYS)
    if unknown:
        raise GameFileError("unknown key %r (allowed: first, moves, rules, versus)" % unknown[0])
    if "versus" in recorded:
        check_versus(recorded["versus"])
    if not isinstance(recorded.get("moves"), list):
        raise GameFileError('"moves" must be a list of moves')
    first = recorded.get("first", "white")
    if first not in ("white", "black"):
        raise GameFileError('"first" must be "white" or "black", not %s' % json.dumps(first))
    name = rules or recorded.get("rules", "standard")
    if not isinstance(name, str):
        raise GameFileError('"rules" must name a rules file, like "standard"')
    if shipped_only and name not in rulesfiles.shipped_names():
        raise GameFileError('"rules": %s is not a shipped rules name (%s)'
                            % (json.dumps(name), ", ".join(rulesfiles.shipped_names())))
    try:
        tables = rulesfiles.load_tables(name)
    except rulesfiles.RulesError as e:
        raise GameFileError(str(e)) from None
    return Game(tables, WHITE if first == "white" else BLACK), recorded["moves"]


def check_versus(versus):
    """A match against the board: {"colour": "white"|"black", "level": 0-3}, nothing else."""
    if not isinstance(versus, dict):
        raise GameFileError('"versus" must be an object like {"colour": "black", "level": 3}')
    unknown = sorted(set(versus) - VERSUS_KEYS)
    if unknown:
        raise GameFileError('"versus": unknown key %r (allowed: colour, level)' % unknown[0])
    colour = versus.get("colour")
    if colour not in ("white", "black"):
        raise GameFileError('"versus": "colour" must be "white" or "black", not %s' % json.dumps(colour))
    level = versus.get("level")
    if type(level) is not int or not 0 <= level < LEVELS:
        raise GameFileError('"versus": "level" must be an integer 0 to %d, not %s'
                            % (LEVELS - 1, json.dumps(level)))


def steps(recorded, most=MOST_MOVES):
    """The game before its first move and after each one: [(state, note)], where each
    state is drawn like the board's own (docs/protocol.md), lights included. A refused
    move shows the die where it was put, marked with the reason, and changes nothing.
    Moves after the match has ended are left out."""
    game, moves = match_of(recorded, shipped_only=True)
    if len(moves) > most:
        raise GameFileError("%d moves: a replay takes at most %d" % (len(moves), most))
    out = [(board_state(game), "round 1 begins: %s opens" % ("white", "black")[game.first])]
    # The referee plays the moves; each step is drawn while it waits at the move's result,
    # before it starts the next round.
    for event in referee(game, moves):
        if "move" not in event:  # a round's end, the match's: said with the move that ended it
            kind = "round_end" if "round" in event else "match_end" if "match" in event else None
            if kind:
                state, note = out[-1]
                out[-1] = (state, note + "; " + describe(dict(event, event=kind)))
            continue
        i = event["move"]
        if event.get("error") == MATCH_ENDED:  # refused: the match has ended
            out[-1] = (out[-1][0], out[-1][1] + "; the match is over, %d later move(s) left out" % (len(moves) - i))
            break
        # Numbered as doce referee numbers them (from 0), and worded as the live page words them.
        if event["ok"]:
            move = moves[i]
            out.append((board_state(game), "move %d: %s" % (
                i, describe(dict(move, event="placed", value=move.get("value"))))))
        else:
            state = board_state(game, refused=(moves[i], event["error"]))
            out.append((state, "move %d refused: %s" % (
                i, "; ".join(problems_in_words(state)) or move_refused(event["error"], game.tables.faces))))
    return out


def board_state(game, refused=None):
    """The state a board would report for `game`, built by the board's own code: its
    controller sees the pieces (with a refused move's die where it was put, which changes
    nothing), its lights draw them, and state.board_snapshot reports them.
    `refused`: (move, why) for a move the game refused."""
    controller = Controller(game, None, lambda event: None)  # no journal: nothing is played here
    if refused and shown(refused[0], game):
        move = refused[0]
        sq = parse_square(game.tables.grid, move["cell"])
        player = WHITE if move["player"] == "white" else BLACK
        if move.get("blocker") is True:
            piece, why = blocker(player), game.refusal(player, sq, blocker=True)
        else:
            piece, why = die(player, move["value"]), game.refusal(player, sq, move["value"])
        if why and not game.board[sq]:
            physical = bytearray(game.board)
            physical[sq] = piece
            controller.reconcile(physical)  # a problem to correct, as on the board
    board = load_board()
    lights = Lights([(0, 0, 0)] * board.led_count, lambda: None, board)
    lights.render(controller, PULSE.index(max(PULSE)) * PULSE_MS)  # the frame where lines are brightest
    return board_snapshot(controller, lights)


def shown(move, game):
    """Whether a refused move is a piece that could be put on the board, to show where."""
    if not isinstance(move, dict) or move.get("player") not in ("white", "black"):
        return False
    if parse_square(game.tables.grid, move.get("cell")) is None:
        return False
    value = move.get("value")
    return move.get("blocker") is True or (type(value) is int and 1 <= value <= game.tables.faces)
