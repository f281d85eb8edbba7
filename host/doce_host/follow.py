"""Follow a game from a board's events: the state (docs/protocol.md) as an event leaves it,
worked out on the host, so a page can show a die the moment its event comes instead of
waiting for the whole `state`, about 1.3 KB, some 110 ms of a 115200-baud line.

Only what an event says for certain, with the board's rule tables, is changed, and the
lights are worked out from it as the board works them out, by the board's own code
(`lights`: its Game, Controller and Lights), so a die and its light, the zone and the last
die's marker come in the same picture. An event that does not say enough (a refused piece:
which face is it?), or a state whose lights only the board knows (a problem being put
right, a friend's board), gives None: ask the board for its state.
"""

import binascii
import copy

from doce.controller import CLEARING, MATCH_OVER, PLAYING, Controller
from doce.game import BLACK, DRAW, NOWHERE, WHITE, Game, RoundEnd
from doce.lights import PULSE, PULSE_MS, Lights
from doce.squares import parse_square, square_name
from doce.squares import piece as piece_value
from doce.tables import END

PLAYERS = ("white", "black")
# What the state's round_end keeps of the event: the event's own fields, no link numbering.
NOT_ROUND_END = ("event", "seq", "tag", "record", "again")
# Round ends after which the turn stays with the player of the die that ended the round
# (doce/game.py _after_die); after no_legal_square it has passed, as after any die.
ENDED_BY_THE_DIE = ("line", "double_line", "out_of_dice")


def after(state, event, zone_of):
    """The state `event` leaves, from the `state` before it; None when only the board knows.
    `zone_of(cell)`: the no-play zone a die on `cell` makes, by the board's rules (zones()).
    `state` is not changed."""
    follow = FOLLOWERS.get(event.get("event"))
    if follow is None or not isinstance(state, dict):
        return None
    new = copy.deepcopy(state)
    try:
        return new if follow(new, event, zone_of) is not False else None
    except (KeyError, TypeError, ValueError, AttributeError):  # a state or event not of the shape we know
        return None


def lights(state, tables, board):
    """The LEDs' colours (hex, as the state's `leds`) the board shows for `state`, drawn by its
    own Lights from its own Game and Controller set as the state says, at the frame where an
    animation is brightest; None where the state does not say enough (problems to put right,
    a friend's board: ask the board). `board`: the board file (doce.board.Board)."""
    try:
        mode = state["mode"]
        if mode not in (PLAYING, CLEARING, MATCH_OVER) or state.get("problems") or state.get("remote"):
            return None
        controller = Controller(game_of(state, tables), None, lambda event: None)
        controller.mode = mode
        controller.looked = True
        controller.physical[:] = controller.game.board
        for cell, seen in state.get("seen", {}).items():
            sq = parse_square(tables.grid, cell)
            controller.physical[sq] = 0 if seen is None else piece_value(seen, tables.faces)
        versus = state.get("versus")
        if versus and versus.get("move"):
            controller.versus = Shown(versus, tables.grid)
    except (KeyError, TypeError, ValueError, IndexError):  # a state not of the shape we know
        return None
    out = Lights([(0, 0, 0)] * board.led_count, lambda: None, board, state.get("brightness", 1.0))
    out.render(controller, PULSE.index(max(PULSE)) * PULSE_MS)
    return binascii.hexlify(out.colours()).decode(), out.animated


class Shown:
    """The board's move as its Versus holds it, for the lights: (blocker or NOWHERE, square, face)."""
    alarm = 0  # a friend's board's trouble: never the board's own opponent's

    def __init__(self, versus, grid):
        self.colour = PLAYERS.index(versus["colour"])
        move = versus["move"]
        blocker = move.get("blocker")
        self.move = (NOWHERE if blocker is None else parse_square(grid, blocker), parse_square(grid, move["cell"]),
                     move["value"])


def game_of(state, tables):
    """A Game as `state` leaves it: the board, the dice and blockers in hand, the last dice, who
    moves, and each round's result (with the last one's lines, which the lights show)."""
    g = Game(tables, PLAYERS.index(state["first"]))
    g.round = state["round"]
    for cell, name in state["board"].items():
        g.board[parse_square(tables.grid, cell)] = piece_value(name, tables.faces)
    for p, player in enumerate(PLAYERS):
        g.dice_left[p] = state["dice_left"][player]
        g.blockers_left[p] = state["blockers_left"][player]
        last = state["last"][player]
        g.last_placed[p] = NOWHERE if last is None else parse_square(tables.grid, last)
    g.to_move = PLAYERS.index(state["to_move"])
    g.blocker_this_turn = bool(state["blocker_this_turn"])
    end = state.get("round_end")
    for number, points in enumerate(state["scores"], 1):
        lines = []
        if end and number == len(state["scores"]):
            for squares in end["lines"]:
                line = line_of(tables, squares)
                lines.append((g.line_winner(line), line))
        result = WHITE if points["white"] > points["black"] else BLACK if points["black"] > points["white"] else DRAW
        g.rounds.append(RoundEnd(number, result, end["reason"] if end and number == len(state["scores"]) else None,
                                 lines, (points["white"], points["black"])))
    return g


def line_of(tables, squares):
    """The index of the line through `squares` (names, in order) in the rule tables."""
    want = [parse_square(tables.grid, cell) for cell in squares]
    for line in range(tables.line_count):
        if list(tables.line_squares(line)) == want:
            return line
    raise ValueError("no line %s in these rules" % squares)


def zones(tables):
    """zone_of for after(): the squares a die on a square makes a no-play zone, by name, from
    rule tables (doce.tables.Tables: the board's own, as `rules_get` gives them)."""
    grid, stride = tables.grid, tables.zone_stride

    def zone_of(cell):
        sq = parse_square(grid, cell)
        return [square_name(grid, z) for z in tables.zone[sq * stride:(sq + 1) * stride] if z != END]
    return zone_of


def placed(s, e, zone_of):
    if s["mode"] != "playing" or s["board"].get(e["cell"]):
        return False
    player, cell = e["player"], e["cell"]
    s["seen"].pop(cell, None)
    s["problems"] = {}
    versus = s.get("versus")
    if e.get("blocker"):
        s["board"][cell] = "%s blocker" % player
        s["blockers_left"][player] -= 1
        s["blocker_this_turn"] = True
        if versus and versus.get("move") and versus["colour"] == player:
            versus["move"].pop("blocker", None)  # its die comes next
    else:
        s["board"][cell] = "%s %d" % (player, e["value"])
        s["dice_left"][player] -= 1
        s["last"][player] = cell
        s["zones"][player] = zone_of(cell)
        s["to_move"] = other(player)
        s["blocker_this_turn"] = False
        if versus:
            versus["move"] = None
    remote = s.get("remote")  # a match with a friend's board (docs/remote.md)
    if remote:
        remote["plays"] += 1
        move = remote.get("move")
        if remote["colour"] == player and move:  # the friend's move, put down here
            if e.get("blocker") and "cell" in move:
                move.pop("blocker", None)  # its die comes next
            else:
                remote["move"] = None


def friend(s, e, zone_of):
    """A remote event: the friend's move to put down, and whether its board is there."""
    remote = s.get("remote")
    if not remote or remote["colour"] != e["colour"]:
        return False  # a pairing this state does not show: the board's own state says it
    remote["move"], remote["connected"] = e["move"], e["connected"]


def round_end(s, e, zone_of):
    if e["reason"] in ENDED_BY_THE_DIE:
        s["to_move"] = other(s["to_move"])  # the turn did not pass: the die that ended the round's player
    s["round_end"] = {k: v for k, v in e.items() if k not in NOT_ROUND_END}
    s["scores"].append(dict(e["points"]))
    for player in PLAYERS:
        s["totals"][player] += e["points"][player]
    s["mode"] = "clearing"
    if s.get("versus"):
        s["versus"]["move"] = None


def match_end(s, e, zone_of):
    s["mode"] = "match_over"
    s["winner"] = e["match"]["winner"]


def clearing(s, e, zone_of):
    """`cells`: the squares that still hold a piece (a board older than the field: unknown)."""
    cells = e.get("cells")
    if s["mode"] != "clearing" or not isinstance(cells, list) or len(cells) != e["left"]:
        return False
    held = dict(s["board"])  # what is on the board: the game's pieces, as the sensors last saw them
    for cell, piece in s["seen"].items():
        if piece is None:
            held.pop(cell, None)
        else:
            held[cell] = piece
    if any(cell not in held for cell in cells):
        return False  # a piece put down that the state never showed: which is it?
    s["seen"] = {cell: None for cell in s["board"] if cell not in cells}
    s["seen"].update((cell, held[cell]) for cell in cells if held[cell] != s["board"].get(cell))


def round_start(s, e, zone_of):
    """The board is clear and a round begins: a round's dice and blockers in hand again."""
    if s["mode"] not in ("clearing", "playing"):
        return False
    fresh = s["round"] + (1 if s.get("round_end") else 0)
    if e["round"] != fresh:
        return False  # a restarted round, or a new match: only the board knows their counts
    for player in PLAYERS:
        pieces = [p for p in s["board"].values() if p.startswith(player + " ")]
        s["dice_left"][player] += sum(not p.endswith(" blocker") for p in pieces)
        s["blockers_left"][player] += sum(p.endswith(" blocker") for p in pieces)
    s.update(mode="playing", round=e["round"], to_move=e["first"], blocker_this_turn=False, board={}, seen={},
             problems={}, zones={p: [] for p in PLAYERS}, last={p: None for p in PLAYERS})
    s.pop("round_end", None)
    if s.get("versus"):
        s["versus"]["move"] = None


def corrected(s, e, zone_of):
    """The board matches the game again: nothing differs, nothing to put right."""
    s.update(mode="playing", problems={}, seen={})


def other(player):
    return PLAYERS[1 - PLAYERS.index(player)]


FOLLOWERS = {"placed": placed, "round_end": round_end, "match_end": match_end, "clearing": clearing,
             "round_start": round_start, "corrected": corrected, "remote": friend}
