"""The game as a board reports it (`state`, docs/protocol.md): plain JSON values, made in one
place for the USB link, MQTT and the recorded-game replay, so they cannot drift apart."""

import binascii

from .board import UNSETTLED
from .game import NOWHERE, PLAYER_NAMES
from .referee import round_event
from .squares import piece_name, square_name


def who_plays(versus):
    """The board's opponent as hello and the versus event name it; None in a match for two."""
    return None if versus is None else {"colour": PLAYER_NAMES[versus.colour], "level": versus.level}


def snapshot(app):
    """Everything a host needs to draw the game, as plain JSON values."""
    return board_snapshot(app.controller, app.lights)


def board_snapshot(c, lights):
    """The game as controller `c` sees it and `lights` show it: the board's `state`, and the
    recorded-game replay's (doce_host.recorded), so the two cannot drift apart."""
    state = game_state(c.game)
    state["mode"] = c.mode
    state["problems"] = {square_name(c.game.tables.grid, sq): p for sq, p in enumerate(c.problems) if p}
    state["seen"] = seen(c)
    state["leds"] = binascii.hexlify(lights.colours()).decode()
    state["animated"] = lights.animated
    state["brightness"] = lights.brightness
    state["versus"] = versus_state(c)
    v = c.versus
    state["remote"] = v.state() if v is not None and v.level is None else None  # doce/remote.py
    return state


def versus_state(c):
    """In a match against the board: its colour, level, and the move it waits for (None while
    it thinks, or not its turn). None in a match for two."""
    v = c.versus
    if v is None or v.level is None:  # none, or a friend's board (state["remote"])
        return None
    state = who_plays(v)
    state["move"] = move_names(c.game.tables.grid, v.move) if v.move else None
    return state


def move_names(grid, move):
    """(blocker square or NOWHERE, square, face) as the protocol names it."""
    out = {"cell": square_name(grid, move[1]), "value": move[2]}
    if move[0] != NOWHERE:
        out["blocker"] = square_name(grid, move[0])
    return out


def seen(c):
    """What the sensors read where it differs from the game: a piece, None, or "unreadable"."""
    if not c.looked:
        return {}  # just booted: the sensors have not settled yet, so nothing is known to differ
    board = c.game.board
    t = c.game.tables
    return {square_name(t.grid, sq): "unreadable" if got == UNSETTLED else piece_name(got)
            for sq, got in enumerate(c.physical) if got != board[sq]}


def game_state(g):
    """The game itself as plain JSON values (no board around it: snapshot adds that)."""
    t = g.tables
    names = PLAYER_NAMES[:2]
    state = {
        "round": g.round, "rounds": t.rounds, "first": names[g.first],
        "to_move": names[g.to_move], "blocker_this_turn": g.blocker_this_turn,
        "board": {square_name(t.grid, sq): piece_name(cell) for sq, cell in enumerate(g.board) if cell},
        "zones": {names[p]: [square_name(t.grid, sq) for sq in g.no_play_zone(p)] for p in (0, 1)},
        "last": {names[p]: square_name(t.grid, g.last_placed[p]) if g.last_placed[p] < t.squares else None
                 for p in (0, 1)},
        "dice_left": {names[p]: g.dice_left[p] for p in (0, 1)},
        "blockers_left": {names[p]: g.blockers_left[p] for p in (0, 1)},
        "scores": [{"white": r.points[0], "black": r.points[1]} for r in g.rounds],
        "rules": t.name, "rules_checksum": "%08x" % t.checksum,
    }
    w, b = g.totals()
    state["totals"] = {"white": w, "black": b}
    if g.round_over and g.rounds:  # until the board is cleared: the line stays to be seen
        state["round_end"] = round_event(g, g.rounds[-1])
    if g.match_over:
        state["winner"] = PLAYER_NAMES[g.winner()]
    return state
