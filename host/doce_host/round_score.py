"""How a round's score is made, part by part (the rulebook's "Scoring"): what the winner gets
for the round, for a line of their own dice, for a blocker kept, for the empty squares, and
what each three dice of one face cost; for a draw, each player's share.

The parts are read from the board as the round ended (a protocol state with `round_end`),
with the rule tables' numbers; the rules engine's own sum (doce.game.Game.win_points) must
agree with them, or nothing is shown: a breakdown that does not add up would be worse than
none.
"""

from doce.game import BLACK, WHITE, Game, blocker, die, is_blocker, owner
from doce.squares import parse_square

PLAYERS = ("white", "black")
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def how_scored(tables, state):
    """{"round", "result", "players": {colour: {"parts": [[words, points]], "total"}}} for the
    round that `state` shows ended, or None (no round ended, or the parts do not add up)."""
    end = state.get("round_end") if isinstance(state, dict) else None
    if not isinstance(end, dict):
        return None
    try:
        game = position(tables, state)
        if end["result"] == "draw":
            players = {p: drawn(game, p) for p in PLAYERS}
        else:
            winner = end["result"]
            players = {winner: won(game, winner, end["lines"]),
                       other(winner): {"parts": [["the loser's score is unaffected", 0]], "total": 0}}
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):  # a state not of the shape we know
        return None
    if any(players[p]["total"] != end["points"][p] for p in PLAYERS):
        return None
    return {"round": end["round"], "result": end["result"], "players": players}


def position(tables, state):
    """A Game holding the board and the blockers in hand as the round ended."""
    game = Game(tables)
    for cell, piece in state["board"].items():
        colour, what = piece.split()
        player = PLAYERS.index(colour)
        game.board[parse_square(tables.grid, cell)] = blocker(player) if what == "blocker" else die(player, int(what))
    for p, colour in ((WHITE, "white"), (BLACK, "black")):
        game.blockers_left[p] = state["blockers_left"][colour]
    return game


def blocker_part(game, colour):
    t = game.tables
    kept = game._unused_blocker(PLAYERS.index(colour))
    return ["blocker not used", kept] if kept else ["blocker used (a kept one scores %d)" % t.unused_blocker, 0]


def drawn(game, colour):
    parts = [["a draw", game.tables.draw], blocker_part(game, colour)]
    return {"parts": parts, "total": sum(points for _, points in parts)}


def won(game, colour, lines):
    """The winner's parts for their best line (the rules engine scores the best), each line's
    points named when there are more."""
    t = game.tables
    player = PLAYERS.index(colour)
    scored = []
    for cells in lines:
        line = line_index(t, cells)
        own = game.is_all_own(line)
        parts = [["won the round", t.win],
                 ["all four dice of the line %s's" % colour if own else "the line has a die of %s's" % other(colour),
                  t.all_own_line if own else 0],
                 blocker_part(game, colour)]
        empty = sum(1 for cell in game.board if not cell)
        parts.append(["%d empty square%s" % (empty, "" if empty == 1 else "s"), t.empty_square * empty])
        parts.extend(same_faces(game, player))
        total = sum(points for _, points in parts)
        if total != game.win_points(player, line):
            raise ValueError("the parts do not add up to the rules engine's points")
        scored.append((total, " ".join(cells), parts))
    best, cells, parts = max(scored, key=lambda s: s[0])
    if len(scored) > 1:  # the best line counts
        parts = [["the best of %s" % "; ".join("%s: %d" % (c, total) for total, c, _ in scored), 0]] + parts
    return {"parts": parts, "total": best}


def same_faces(game, player):
    """The same-face penalty: each group of `same_face_group` of the player's dice showing one face."""
    t = game.tables
    count = {}
    for cell in game.board:
        if cell and owner(cell) == player and not is_blocker(cell):
            count[cell & 0x0F] = count.get(cell & 0x0F, 0) + 1
    parts = [["%s %ds" % (NUMBERS.get(n, n), face), -t.same_face_penalty * (n // t.same_face_group)]
             for face, n in sorted((face, n - n % t.same_face_group) for face, n in count.items())
             if n >= t.same_face_group]
    return parts or [["no %s dice alike" % NUMBERS.get(t.same_face_group, t.same_face_group), 0]]


def line_index(tables, cells):
    squares = [parse_square(tables.grid, c) for c in cells]
    for line in range(tables.line_count):
        if list(tables.line_squares(line)) == squares:
            return line
    raise ValueError("no line %s in these rules" % " ".join(map(str, cells)))


def other(colour):
    return PLAYERS[1 - PLAYERS.index(colour)]


def in_words(scored):
    """One line a player: "white 35: won the round 12, ... = 35"."""
    out = []
    for colour in PLAYERS:
        mine = scored["players"][colour]
        out.append("%s %d: %s" % (colour, mine["total"], ", ".join(
            "%s %s" % (words, signed(points)) for words, points in mine["parts"])))
    return out


def signed(points):
    return "%+d" % points if points else "0"

