"""The page's lights agree with its dice in every picture (issue 42): a die, the light under it,
the mover's no-play zone and the last die's mark come in the same frame, worked out from the
die's event by the board's own code, not from a state asked for later. Every frame the page is
sent during a round is checked against what a player sees on a board, and the time from each
click to the die's light is measured (make bench reports it beside click to picture)."""

import json
import statistics

from casebook import expand, piece_of
from clicks import place
from hands import looks

from doce_host.paths import load_board
from doce_host.web.picture import led_colours

ROUND = ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1")
COLOURS = {"white": "yellow", "black": "blue"}




def wrong_in(state, board):
    """What a frame's lights get wrong against its own dice, zone and last dice, as a player would
    see it on the board: [] when they agree. For frames of a round in play, nothing to put right."""
    lights = led_colours(state, board)  # (hue, level 0..1) an LED: dim is 2/8, bright 8/8 (doce/lights.py)
    wrong = []
    for sq in range(board.squares):
        cell = chr(97 + sq % board.grid) + str(sq // board.grid + 1)
        hue, level = lights[board.led_of_square[sq]]
        got = (looks(bytes.fromhex(hue[1:])), "bright" if level > 0.6 else "dim") if hue else ("off", "dim")
        piece = state["board"].get(cell)
        if piece and not piece.endswith("blocker"):
            player = piece.split()[0]
            want = (COLOURS[player], "bright" if state["last"][player] == cell else "dim")
        elif not piece and cell in state["zones"][state["to_move"]]:
            want = ("purple", "dim")
        else:
            want = ("off", "dim")
        if got != want:
            wrong.append((cell, piece, want, got))
    return wrong


def test_every_frame_shows_the_lights_of_its_own_dice_and_the_click_to_light_is_timed(page):
    board = load_board()
    frames = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda text: frames.append(json.loads(text))))
    page.reload()  # its socket, opened again, is heard from the start
    page.wait_for_selector("#board svg .square")
    for move in map(expand, ROUND):
        place(page, move["cell"], piece_of(move))
    page.wait_for_function("() => window.doceLightTimings.length === %d" % len(ROUND))
    timings = sorted(page.evaluate("window.doceLightTimings"))
    states = [f["state"] for f in frames if f.get("type") == "frame" and f.get("state")]
    checked = [s for s in states if s["mode"] == "playing" and not s["problems"] and not s["seen"]]
    from_events = [f for f in frames if f.get("type") == "frame" and f.get("state") and not f["from_board"]]
    assert from_events  # dice came from their events, with their lights (a slow page is sent the newest frame only)
    for state in checked:
        assert wrong_in(state, board) == [], state["board"]
    assert {cell for s in checked for cell in s["board"]} == {expand(m)["cell"] for m in ROUND}
    print("click to the die's light, %d dice: median %.0f ms, worst %.0f ms"
          % (len(timings), statistics.median(timings), timings[-1]))
