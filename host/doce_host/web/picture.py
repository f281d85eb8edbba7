"""The board as a picture: SVG drawn from a protocol state (docs/protocol.md).

The web page, `doce snapshot` and every step of a replay show this one drawing. Each
square is a <g class="square" data-cell="c3"> carrying what it shows as data attributes
(piece, light, zone, last, problem), so the page can take clicks and tests can read it.
"""

import math
from xml.sax.saxutils import quoteattr
from xml.sax.saxutils import escape as text

from doce.lights import BLUE, YELLOW
from doce.squares import parse_square, square_name
from doce.squares import piece as piece_value

from ..paths import load_board
from ..view import reason

SIZE = 88  # a square, in SVG units
GAP = 8
LEFT, TOP = 40, 64  # where the board starts
PANEL = 590  # where the score panel starts
PLAYER_LIGHT = {"white": "#%02x%02x%02x" % YELLOW, "black": "#%02x%02x%02x" % BLUE}
BODY = {"white": "#f4f0e6", "black": "#26262b"}
PIP = {"white": "#26262b", "black": "#f4f0e6"}
PROBLEM = "#d55e00"  # vermillion, as on the board
# Pip places on a die, in thirds of its side, per face.
PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
        5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}


def origin(sq, grid):
    """The top-left corner of square `sq`: row 1 (white's edge) at the bottom, as white sees it."""
    return LEFT + GAP + sq % grid * (SIZE + GAP), TOP + GAP + (grid - 1 - sq // grid) * (SIZE + GAP)


def led_colours(state, board):
    """Each LED as (hex colour, level 0..1): the strip's bytes, with brightness taken back
    out, so a dim light looks dim and a bright one bright, whatever the brightness."""
    raw = bytes.fromhex(state.get("leds", ""))
    scale = board.brightness_cap * state.get("brightness", 1.0)
    colours = []
    for led in range(board.led_count):
        rgb = raw[3 * led:3 * led + 3]
        if len(rgb) < 3 or not max(rgb) or scale <= 0:
            colours.append((None, 0.0))
            continue
        level = min(1.0, max(rgb) / scale / 255)
        hue = "#%02x%02x%02x" % tuple(round(c * 255 / max(rgb)) for c in rgb)
        colours.append((hue, level))
    return colours


def draw(state, title=None):
    """The whole picture, as an SVG document (a string)."""
    board = load_board()
    grid = board.grid
    side = GAP + grid * (SIZE + GAP)
    lights = led_colours(state, board)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 960 %d" class="doce-board" '
           'font-family="DejaVu Sans, Verdana, sans-serif" data-mode=%s data-to-move=%s>'
           % (TOP + side + 60, quoteattr(state["mode"]), quoteattr(state["to_move"])),
           '<defs><pattern id="zone" width="12" height="12" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><rect width="5" height="12" fill="#cc79a7" opacity="0.55"/>'
           '</pattern></defs>',
           '<rect width="100%" height="100%" fill="#f7f5f0"/>',
           '<text x="%d" y="30" font-size="22" font-weight="bold" class="headline">%s</text>'
           % (LEFT, text(title or headline(state))),
           '<rect x="%d" y="%d" width="%d" height="%d" rx="14" fill="#3b3430"/>' % (LEFT, TOP, side, side)]
    for player, y in (("black", TOP - 9), ("white", TOP + side + 9)):
        out.append(turn_lights(player, y, side, [lights[led] for led in board.turn_leds[player == "black"]]))
    for sq in range(board.squares):  # the board file's grid is the tables' grid: names agree
        out.append(square(state, sq, square_name(grid, sq), grid, lights[board.led_of_square[sq]]))
    out.extend(winning_lines(state, board))
    for i in range(grid):
        x, y = origin(i, grid)
        out.append('<text x="%d" y="%d" font-size="15" text-anchor="middle" fill="#555">%s</text>'
                   % (x + SIZE / 2, TOP + side + 40, square_name(grid, i)[0]))
        x, y = origin(i * grid, grid)
        out.append('<text x="%d" y="%d" font-size="15" text-anchor="middle" fill="#555">%d</text>'
                   % (LEFT - 18, y + SIZE / 2 + 5, i + 1))
    out.extend(panel(state))
    out.append("</svg>")
    return "\n".join(out)


def headline(state):
    mode = state["mode"]
    end = state.get("round_end")
    if mode == "match_over":
        t = state["totals"]
        who = "a draw" if state.get("winner") == "draw" else "%s wins" % state.get("winner")
        return "Match over: %s, %d to %d" % (who, max(t.values()), min(t.values()))
    if end:
        who = "a draw" if end["result"] == "draw" else "%s wins" % end["result"]
        return "Round %d: %s. Clear the board for the next round" % (end["round"], who)
    if mode == "clearing":
        return "Clear the board to start round %d" % state["round"]
    if mode == "correcting":
        return "Round %d: put the board right (%s to move)" % (state["round"], state["to_move"])
    return "Round %d of %d: %s to move" % (state["round"], state["rounds"], state["to_move"])


def turn_lights(player, y, side, lights):
    out = ['<g class="turn-lights" data-player="%s">' % player]
    for k, (hue, level) in enumerate(lights):
        x = LEFT + side / 2 + (k - 1) * 36
        out.append('<circle cx="%d" cy="%d" r="6" fill="%s" fill-opacity="%.2f" stroke="#222"/>'
                   % (x, y, hue or "#111", math.sqrt(level) if hue else 1))
    out.append("</g>")
    return "".join(out)


def square(state, sq, cell, grid, light):
    x, y = origin(sq, grid)
    hue, level = light
    in_game = state["board"].get(cell)
    seen = state.get("seen", {})
    piece = seen[cell] if cell in seen else in_game
    zone = (state["mode"] == "playing" and piece is None and cell in state["zones"].get(state["to_move"], ()))
    last = [p for p, at in state["last"].items() if at == cell and in_game]
    problem = state["problems"].get(cell)
    attrs = {"data-cell": cell, "data-piece": piece or "", "data-light": hue or "",
             "data-level": "%.2f" % level}
    if zone:
        attrs["data-zone"] = "true"
    if last:
        attrs["data-last"] = last[0]
    if problem:
        attrs["data-problem"] = problem
    out = ['<g class="square" %s>' % " ".join("%s=%s" % (k, quoteattr(v)) for k, v in attrs.items()),
           '<title>%s</title>' % text(cell + (": " + reason(problem) if problem else "")),
           '<rect x="%d" y="%d" width="%d" height="%d" rx="8" fill="#1e1b19"/>' % (x, y, SIZE, SIZE)]
    if hue:  # the LED's glow; sqrt so a dim light still reads as lit
        out.append('<rect class="light" x="%d" y="%d" width="%d" height="%d" rx="8" fill="%s" fill-opacity="%.2f"/>'
                   % (x, y, SIZE, SIZE, hue, math.sqrt(level)))
    if zone:
        out.append('<rect class="zone" x="%d" y="%d" width="%d" height="%d" rx="8" fill="url(#zone)"/>'
                   % (x, y, SIZE, SIZE))
    if piece:
        out.append(draw_piece(piece, x, y))
    elif in_game and state["mode"] == "correcting":  # missing: where it should go back
        out.append('<g opacity="0.35">%s</g>' % draw_piece(in_game, x, y))
    if last:
        out.append('<path class="last" d="M%d %dh-24v24z" fill="%s" stroke="#222"/>'
                   % (x + SIZE - 3, y + 3, PLAYER_LIGHT[last[0]]))
    if problem:
        out.append('<rect class="problem" x="%d" y="%d" width="%d" height="%d" rx="8" fill="none" '
                   'stroke="%s" stroke-width="5" stroke-dasharray="10 6"/>' % (x + 2, y + 2, SIZE - 4, SIZE - 4,
                                                                            PROBLEM))
        out.append('<circle cx="%d" cy="%d" r="11" fill="%s"/><text x="%d" y="%d" font-size="16" '
                   'font-weight="bold" text-anchor="middle" fill="#fff">!</text>'
                   % (x + 14, y + 14, PROBLEM, x + 14, y + 20))
    out.append("</g>")
    return "".join(out)


def draw_piece(piece, x, y):
    if piece == "unreadable":  # a die on its edge: something is there, it cannot be read
        return ('<g transform="rotate(18 %d %d)"><rect x="%d" y="%d" width="50" height="50" rx="9" '
                'fill="#bbb" stroke="#444" stroke-width="2"/></g><text x="%d" y="%d" font-size="30" '
                'text-anchor="middle" fill="#222">?</text>' % (x + 44, y + 44, x + 19, y + 19, x + 44, y + 55))
    # The state comes from a device over a wire: nothing in it goes into the SVG unchecked.
    if piece_value(piece) is None:  # not a piece: shown as unreadable, never as text
        return draw_piece("unreadable", x, y)
    player, what = piece.split()
    if what == "blocker":  # a disc with a bar: nobody plays here
        cx, cy = x + SIZE / 2, y + SIZE / 2
        return ('<circle class="blocker" cx="%d" cy="%d" r="28" fill="%s" stroke="%s" stroke-width="3"/>'
                '<rect x="%d" y="%d" width="36" height="10" rx="3" fill="%s"/>'
                % (cx, cy, BODY[player], PLAYER_LIGHT[player], cx - 18, cy - 5, PIP[player]))
    side, at = 56, (SIZE - 56) / 2
    out = ['<rect class="die" x="%d" y="%d" width="%d" height="%d" rx="10" fill="%s" stroke="#111" '
           'stroke-width="2"/>' % (x + at, y + at, side, side, BODY[player])]
    if int(what) not in PIPS:  # a die of more than six faces, in some rules files
        out.append('<text x="%d" y="%d" font-size="26" text-anchor="middle" fill="%s">%d</text>'
                   % (x + SIZE / 2, y + SIZE / 2 + 9, PIP[player], int(what)))
    for px, py in PIPS.get(int(what), ()):
        out.append('<circle class="pip" cx="%d" cy="%d" r="5.5" fill="%s"/>'
                   % (x + at + 10 + px * 18, y + at + 10 + py * 18, PIP[player]))
    return "".join(out)


def winning_lines(state, board):
    end = state.get("round_end")
    if not end:
        return []
    out = []
    for line in end["lines"]:
        squares = [parse_square(board.grid, c) for c in line]
        if None in squares:
            continue  # not squares of this board: nothing to draw the line through
        owners = [state["board"].get(c, "").split(" ")[0] for c in line]
        owner = max(("white", "black"), key=owners.count)
        points = " ".join("%d,%d" % (x + SIZE / 2, y + SIZE / 2) for x, y in (origin(sq, board.grid) for sq in squares))
        # A dark edge, so the line reads over its own colour; pointer-events none, so a
        # click on the line is a click on the square under it.
        out.append('<polyline points="%s" fill="none" stroke="#111" stroke-width="18" stroke-linecap="round" '
                   'stroke-opacity="0.7" pointer-events="none"/>' % points)
        out.append('<polyline class="winning-line" data-cells=%s data-player="%s" points="%s" fill="none" '
                   'stroke="%s" stroke-width="10" stroke-linecap="round" pointer-events="none"/>'
                   % (quoteattr(" ".join(line)), owner, points, PLAYER_LIGHT[owner]))
    return out


def panel(state):
    """Scores by round and for the match, the pieces in hand, and any problems, in words."""
    x = PANEL
    out = ['<g class="scores" font-size="16">',
           '<text x="%d" y="%d" font-size="18" font-weight="bold">Scores</text>' % (x, TOP + 10),
           '<text x="%d" y="%d" fill="#555">round</text><text x="%d" y="%d" text-anchor="end" fill="#555">white'
           '</text><text x="%d" y="%d" text-anchor="end" fill="#555">black</text>'
           % (x, TOP + 38, x + 170, TOP + 38, x + 250, TOP + 38)]
    y = TOP + 38
    for n, points in enumerate(state["scores"], 1):
        y += 24
        out.append('<g class="round-score" data-round="%d"><text x="%d" y="%d">%d</text><text x="%d" y="%d" '
                   'text-anchor="end">%d</text><text x="%d" y="%d" text-anchor="end">%d</text></g>'
                   % (n, x, y, n, x + 170, y, points["white"], x + 250, y, points["black"]))
    y += 30
    t = state["totals"]
    out.append('<g class="match-total" font-weight="bold"><text x="%d" y="%d">match</text><text x="%d" y="%d" '
               'text-anchor="end">%d</text><text x="%d" y="%d" text-anchor="end">%d</text></g>'
               % (x, y, x + 170, y, t["white"], x + 250, y, t["black"]))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>' % (x, y - 20, x + 255, y - 20))
    y += 44
    for player in ("white", "black"):
        out.append('<text x="%d" y="%d" class="in-hand" data-player="%s">%s: %d dice, %d blocker%s left</text>'
                   % (x, y, player, player, state["dice_left"][player], state["blockers_left"][player],
                      "" if state["blockers_left"][player] == 1 else "s"))
        y += 24
    if state["problems"]:
        y += 20
        out.append('<text x="%d" y="%d" font-weight="bold" fill="%s">To put right</text>' % (x, y, PROBLEM))
        for cell, code in sorted(state["problems"].items()):
            y += 22
            out.append('<text x="%d" y="%d" class="problem-reason" data-cell=%s font-size="14">%s</text>'
                       % (x, y, quoteattr(str(cell)), text("%s: %s" % (cell, reason(str(code))))))
    out.append("</g>")
    return out


class NoPNG(Exception):
    """PNG output needs cairo, which this computer lacks; SVG needs nothing."""


def write_png(svg, path):
    try:
        import cairosvg
    except (ImportError, OSError) as e:  # OSError: the cairo library itself is missing
        raise NoPNG("PNG needs the cairo library (Debian: apt install libcairo2); --svg works without it (%s)"
                    % e) from None
    cairosvg.svg2png(bytestring=svg.encode(), write_to=path)
