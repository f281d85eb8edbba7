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


# Why a typed or recorded move is refused (doce referee's codes, docs/referee.md).
MOVE_REFUSALS = {
    "not_your_turn": "it is not your turn",
    "off_board": "that is not a square on this board",
    "occupied": "that square is taken",
    "no_blocker": "no blocker: it is used, or you already played it this turn",
    "bad_value": "a die shows 1 to %d",
    "no_play_zone": "that square is in your no-play zone (next to your last die)",
    "bad_move": "type a square and a face, like \"c3 4\"",
    "match_over": "the match is over",
}


def move_refused(code, faces=6):
    words = MOVE_REFUSALS.get(code, code.replace("_", " "))
    return words % faces if "%d" in words else words


def reason(code):
    return REASONS.get(code, code.replace("_", " "))


def piece_words(piece):
    """A piece as a player names it: "a white 3", "white's blocker"."""
    colour, _, what = str(piece).partition(" ")
    if what == "blocker":
        return "%s's blocker" % colour
    return "a %s %s" % (colour, what) if what else "a piece"


def put_right(state, cell, code):
    """Why the board marks `cell`, and what to do, as a player would say it:
    "b4: that is a white die; black is to move". From the state, which says what is there."""
    seen, board = state.get("seen") or {}, state.get("board") or {}
    mover = state.get("to_move")
    there = seen.get(cell) if seen.get(cell) not in (None, "unreadable") else None
    versus = state.get("versus") if isinstance(state.get("versus"), dict) else {}
    if code == "not_your_turn" and there:
        colour, what = there.split(" ", 1)
        kind = "blocker" if what == "blocker" else "die"
        if colour != mover:
            board_turn = " (the board: put its move down for it)" if versus.get("colour") == mover else ""
            return "%s: that is a %s %s; %s is to move%s" % (cell, colour, kind, mover, board_turn)
        return "%s: %s's blocker goes down before the die, not after" % (cell, colour)
    if code == "no_play_zone" and mover:
        last = (state.get("last") or {}).get(mover)
        return "%s: next to %s's last die%s, a no-play zone for %s this turn" % (
            cell, mover, " (%s)" % last if last else "", mover)
    if code == "no_blocker" and mover:
        if state.get("blocker_this_turn"):
            return "%s: %s has played a blocker this turn already" % (cell, mover)
        return "%s: %s's blocker is used up this round" % (cell, mover)
    if code == "lifted" and board.get(cell):
        return "%s: %s belongs here: put it back" % (cell, piece_words(board[cell]))
    if code == "turned" and board.get(cell):
        return "%s: %s belongs here: put it back as it was" % (cell, piece_words(board[cell]))
    if code == "moved":
        return "%s: a piece of the game was moved here: put it back where it was" % cell
    if code == "two_at_once":
        return "%s: put down with another at once: one piece at a time" % cell
    if code == "not_now":
        return "%s: put down while the board needs putting right: take it off, then fix the board" % cell
    if code == "unreadable":
        return "%s: tilted or half on the square: set it flat in the middle" % cell
    if code == "not_the_move" and isinstance(versus.get("move"), dict):
        move = versus["move"]
        return "%s: not the board's move: it plays %s" % (cell, move_words(versus["colour"], move))
    return "%s: %s" % (cell, reason(str(code)))


def move_words(colour, move):
    """The board's or a hint's move: "black 3 on b2", "its blocker on a1, then black 3 on b2"."""
    die = "%s %s on %s" % (colour, move.get("value"), move.get("cell"))
    return "its blocker on %s, then %s" % (move["blocker"], die) if move.get("blocker") else die


def problems_in_words(state):
    """Every marked square's put_right, in square-name order."""
    return [put_right(state, cell, code) for cell, code in sorted((state.get("problems") or {}).items())]


def button_press(state):
    """What a press of the board's button does now (docs/opponent.md, "With the board's button")."""
    mode = state.get("mode")
    versus = state.get("versus") if isinstance(state.get("versus"), dict) else None
    if mode == "match_over":
        return "The press starts the next match with the same players (a double press swaps who plays)."
    if mode == "clearing":
        return "No hint between rounds: the button gives one once the board is clear and the round is on."
    if mode == "correcting":
        return "No hint while the board needs putting right: fix it first."
    if not state.get("board") and state.get("round") == 1 and not state.get("scores"):
        return "Before the first piece, the button shows who plays: each press steps on (see the log)."
    if versus and versus.get("colour") == state.get("to_move"):
        move = versus.get("move")
        return ("No hint on the board's own turn: %s" % ("its move is shown: %s." % move_words(versus["colour"], move)
                                                         if isinstance(move, dict) else "it is thinking."))
    return "A hint: the square of the best move for %s flashes in light, once the board has thought." % (
        state.get("to_move"))


LEGEND = ("The board: W4 a white die showing 4, B2 a black 2, * the last die each player put down,\n"
          "#W #B the blockers, ~ the no-play zone of the player to move, ! a piece to put right, . empty.")
# The board's opponent's levels, as docs/opponent.md names them (0 to 3).
LEVEL_NAMES = ("a child learning", "a beginner", "a club player", "the strongest")


def level_words(level):
    """"level 1 (a beginner, of 0 to 3)"."""
    return "level %d (%s, of 0 to %d)" % (level, LEVEL_NAMES[level], len(LEVEL_NAMES) - 1)


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
        line += "\nTo put right: " + "; ".join(problems_in_words(state))
    return line


def who_plays(versus):
    """hello's and the versus event's `versus`, for a person."""
    if versus is None:
        return "two players"
    if isinstance(versus, dict) and versus.get("colour") in ("white", "black") and versus.get("level") in (0, 1, 2, 3):
        return "the board plays %s at level %d" % (versus["colour"], versus["level"])
    return "unknown (%s)" % json_line(versus)


def describe(event, state=None):
    """One line for a person, for any event; `state`, the board's after it, words a refusal
    as a player would ("b4 refused: that is a white die; black is to move")."""
    kind = event["event"]
    if kind == "placed":
        what = "the blocker" if event.get("blocker") else "a %d" % event["value"]
        return "%s put %s on %s" % (event["player"], what, event["cell"])
    if kind == "illegal":
        if state:
            return "refused: " + "; ".join(put_right(state, cell, event["reason"]) for cell in event["cells"])
        return "refused: %s (%s)" % (" ".join(event["cells"]), reason(event["reason"]))
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
        return "clearing the board: %d piece%s left" % (event["left"], "" if event["left"] == 1 else "s")
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
    if kind == "remote":  # a match with a friend's board (docs/remote.md)
        return remote_words(dict(event, peer="", mismatch=None))
    if kind == "remote_mismatch":
        return "the two boards disagree from move %d: play has stopped on both" % event["move"]
    if kind == "remote_refused":
        return refused_words(event)
    if kind == "calibrated":
        return "sensors calibrated" if not event.get("error") else "calibration failed: %s" % event["error"]
    if kind in ("warning", "error"):
        return "%s: %s" % (kind, printable(event["message"]))
    return json_line(event)


# Why a friend's board refused a pairing: its error's code (docs/protocol.md, `remote`), in words.
# (no_network never comes: a board with no broker tells no one.)
REFUSED = {"rules_mismatch": "it plays other rules",
           "mid_round": "a match is in play on it",
           "bad_argument": "the pairing it was given was not one it takes",
           # (this board's own rules came back: the code's checksum was wrong there, doce/remote.py)
           "wrong_code": "the code typed there was mistyped (its rules checksum), both boards playing the same rules"}
# What this board does then: a match in play there may be finished, or the code forced (doce/remote.py)
WAITING = "this board waits for it: its player may finish that match, or join again with --force"
ENDED = "nothing started, invite it again once it is put right"


def refused_words(event):
    """A remote_refused event: the friend's board will not play the match this board waited for."""
    reason = event.get("reason")
    why = REFUSED.get(reason) or "for a reason this host does not know (%s)" % printable(reason)
    if event.get("rules") and event.get("rules_checksum"):
        why += " (%s, %s)" % (printable(event["rules"]), printable(event["rules_checksum"]))
    then = WAITING if reason == "mid_round" else ENDED
    return "your friend's board %s refused the match: %s; %s" % (printable(event.get("peer")), why, then)


def remote_words(r):
    """What a friend's board is doing, in words: its move to put down, or whether it is there."""
    if r.get("mismatch") is not None:
        return "the two boards disagree from move %d: play has stopped on both" % r["mismatch"]
    move = r.get("move")
    if move and "cell" in move:
        then = "%s %d on %s" % (r["colour"], move["value"], move["cell"])
        return "your friend plays %s: put it down for them" % (
            "their blocker on %s, then %s" % (move["blocker"], then) if "blocker" in move else then)
    if move:
        return "your friend plays their blocker on %s: put it down for them" % move["blocker"]
    return "your friend's board%s (%s) is %s" % (" " + printable(r["peer"]) if r.get("peer") else "", r["colour"],
                                                 "connected" if r["connected"] else "not connected")


def json_line(message):
    import json
    return json.dumps(message)
