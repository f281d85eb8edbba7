"""The board as text, drawn from a protocol state (docs/protocol.md): one picture for
`doce status`, `doce monitor` and `doce play`."""

from doce.squares import square_name

from .paths import load_board

# Why a square is marked, in a player's words (docs/protocol.md lists the codes).
REASONS = {
    "no_play_zone": "in the no-play zone of the player to move",
    "not_your_turn": "not this player's turn",
    "no_blocker": "that player's blocker is used up",
    "two_at_once": "two pieces put down at once",
    "lifted": "a piece of the game is missing",
    "moved": "a piece of the game was moved here",
    "turned": "a piece of the game shows another face",
    "not_now": "put down while the board needs fixing",
    "unreadable": "tilted or half on the square",
    "not_the_move": "not the move the board shows",
}


def printable(text):
    """A string from a board, safe to show on a terminal: control characters (escape codes,
    a carriage return, a bidi override) written as Python escapes, '\\x1b', not sent."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def reason(code):
    return REASONS.get(code, code.replace("_", " "))


LEGEND = "W4/B2 dice (* last placed), #W/#B blockers, ~ the mover's no-play zone, ! a problem"


def draw(state, grid=None):
    """`grid`: squares a side, the board file's unless given (a state does not say)."""
    grid = grid or load_board().grid
    board = state["board"]
    zone = set(state["zones"].get(state["to_move"], [])) if state["mode"] == "playing" else set()
    last = {cell for cell in state["last"].values() if cell}
    rows = []
    for row in range(grid, 0, -1):
        cells = []
        for col in range(grid):
            cell = square_name(grid, (row - 1) * grid + col)
            piece = board.get(cell)
            if piece is None:
                text = "~" if cell in zone else "."
            elif piece.endswith("blocker"):
                text = "#" + piece[0].upper()
            else:
                text = piece[0].upper() + piece.split()[1] + ("*" if cell in last else "")
            if cell in state["problems"]:
                text += "!"
            cells.append(text.center(4))
        rows.append("%2d %s" % (row, "".join(cells)))
    rows.append("   " + "".join(square_name(grid, col)[0].center(4) for col in range(grid)))
    return "\n".join(rows)


def summary(state):
    totals = state["totals"]
    doing = {"playing": "%s to move" % state["to_move"], "correcting": "waiting for the board to be put right",
             "clearing": "clear the board to start the round",
             "match_over": "match over: %s" % state.get("winner", "")}[state["mode"]]
    line = "Round %d of %d   white %d : %d black   %s" % (
        state["round"], state["rounds"], totals["white"], totals["black"], doing)
    if state["problems"]:
        line += "\nProblems: " + ", ".join("%s: %s" % (cell, reason(why))
                                          for cell, why in sorted(state["problems"].items()))
    return line


def who_plays(versus):
    """hello's and the versus event's `versus`, for a person."""
    if versus is None:
        return "two players"
    if isinstance(versus, dict) and versus.get("colour") in ("white", "black") and versus.get("level") in (0, 1, 2, 3):
        return "the board plays %s at level %d" % (versus["colour"], versus["level"])
    return "unknown (%s)" % json_line(versus)


def describe(event):
    """One line for a person, for any event."""
    kind = event["event"]
    if kind == "placed":
        what = "the blocker" if event.get("blocker") else "a %d" % event["value"]
        return "%s put %s on %s" % (event["player"], what, event["cell"])
    if kind == "illegal":
        return "not allowed: %s (%s)" % (" ".join(event["cells"]), reason(event["reason"]))
    if kind == "round_end":
        lines = "; ".join(" ".join(line) for line in event["lines"])
        return "round %d: %s by %s%s; points white %d, black %d" % (
            event["round"], "a draw" if event["result"] == "draw" else event["result"] + " wins",
            event["reason"].replace("_", " "), " (%s)" % lines if lines else "",
            event["points"]["white"], event["points"]["black"])
    if kind == "match_end":
        m = event["match"]
        return "match over: white %d, black %d: %s" % (
            m["white"], m["black"], "a draw" if m["winner"] == "draw" else m["winner"] + " wins")
    if kind == "round_start":
        return "round %d begins: %s opens" % (event["round"], event["first"])
    if kind == "clearing":
        return "clear the board: %d piece%s left" % (event["left"], "" if event["left"] == 1 else "s")
    if kind == "corrected":
        return "the board matches the game again"
    if kind == "boot":
        return "the board started"
    if kind == "new_match":
        return "a new match: %s opens, once the board is clear" % event["first"]
    if kind == "round_restarted":
        return "round %d abandoned: it starts again once the board is clear" % event["round"]
    if kind == "versus":  # who plays, chosen with the button
        return "who plays: %s" % who_plays(event.get("versus"))
    if kind == "calibrated":
        return "sensors calibrated" if not event.get("error") else "calibration failed: %s" % event["error"]
    if kind in ("warning", "error"):
        return "%s: %s" % (kind, printable(event["message"]))
    return json_line(event)


def json_line(message):
    import json
    return json.dumps(message)
