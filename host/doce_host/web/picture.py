"""The board as a picture: SVG drawn from a protocol state (docs/protocol.md).

The web page, `doce snapshot` and every step of a replay show this one drawing. Each
square is a <g class="square" data-cell="c3"> carrying what it shows as data attributes
(piece, light, zone, last, problem, board-move), so the page can take clicks and tests can
read it. Two layouts: wide, the scores beside the board (a computer's screen, `doce
snapshot`), and tall, the scores under it in bigger words (a phone's page).
"""

import math
from xml.sax.saxutils import quoteattr
from xml.sax.saxutils import escape as text

from doce.lights import BLUE, YELLOW
from doce.squares import parse_square, square_name
from doce.squares import piece as piece_value

from ..paths import load_board
from ..view import put_right

SIZE = 88  # a square, in SVG units
GAP = 8
PLAYER_LIGHT = {"white": "#%02x%02x%02x" % YELLOW, "black": "#%02x%02x%02x" % BLUE}
BODY = {"white": "#f4f0e6", "black": "#26262b"}
PIP = {"white": "#26262b", "black": "#f4f0e6"}
PROBLEM = "#d55e00"  # vermillion, as on the board
# Pip places on a die, in thirds of its side, per face.
PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
        5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}


class Layout:
    """Where the board and the words go, and how big the words are, in SVG units."""

    def __init__(self, tall, left, top, label, words, reasons, headline, mark, step, reason_chars):
        self.tall = tall
        self.left, self.top = left, top  # where the board starts
        self.label = label  # a row's number, a column's letter
        self.words = words  # the scores and the pieces in hand
        self.reasons = reasons  # what to put right
        self.headline = headline
        self.mark = mark  # the "!" on a square with a problem
        self.step = step  # from one line of the scores to the next
        self.reason_chars = reason_chars  # a line of what to put right, in characters that fit


# The panel beside the board, at x 590 of 960.
WIDE = Layout(False, left=40, top=64, label=15, words=16, reasons=14, headline=22, mark=16, step=24,
              reason_chars=42)
# The panel under the board. The picture is about 530 units wide, shown 390 px wide on a
# phone: 22 units is 16 px there, and still 14 px on a 340 px screen.
TALL = Layout(True, left=34, top=92, label=22, words=22, reasons=22, headline=24, mark=22, step=32,
              reason_chars=38)
# The board alone, for a tile of the tournament screen: no words, a problem's mark big enough to
# see across a room.
TILE = Layout(False, left=0, top=0, label=0, words=0, reasons=0, headline=0, mark=26, step=0, reason_chars=0)
HEADLINE_CHARS = 31  # of a tall headline's line: 24 units a letter at most 0.62 em wide, in 480 units


def origin(sq, grid, lay=WIDE):
    """The top-left corner of square `sq`: row 1 (white's edge) at the bottom, as white sees it."""
    return lay.left + GAP + sq % grid * (SIZE + GAP), lay.top + GAP + (grid - 1 - sq // grid) * (SIZE + GAP)


def wrapped(words, width, lines=None):
    """`words` in lines of at most `width` characters (a longer word gets a line of its own);
    at most `lines` lines, the last cut with an ellipsis."""
    out = []
    for word in words.split():
        if out and len(out[-1]) + 1 + len(word) <= width:
            out[-1] += " " + word
        else:
            out.append(word)
    if lines and len(out) > lines:
        out[lines - 1:] = [" ".join(out[lines - 1:])[:width - 1] + "…"]
    return out or [""]


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


def draw(state, title=None, tall=False):
    """The whole picture, as an SVG document (a string): wide, or `tall` for a phone."""
    lay = TALL if tall else WIDE
    board = load_board()
    grid = board.grid
    side = GAP + grid * (SIZE + GAP)
    left, top = lay.left, lay.top
    lights = led_colours(state, board)
    out = ['<rect width="100%" height="100%" fill="#f7f5f0"/>']
    words = title or headline(state)
    if tall:  # always two lines' room, so the board stays put when the headline changes
        for k, line in enumerate(wrapped(words, HEADLINE_CHARS, 2)):
            out.append('<text x="%d" y="%d" font-size="%d" font-weight="bold" class="headline">%s</text>'
                       % (12, 30 + 30 * k, lay.headline, text(line)))
    else:
        out.append('<text x="%d" y="30" font-size="%d" font-weight="bold" class="headline">%s</text>'
                   % (left, lay.headline, text(words)))
    out.append('<rect class="frame" x="%d" y="%d" width="%d" height="%d" rx="14" fill="#3b3430"/>'
               % (left, top, side, side))
    for player, y in (("black", top - 9), ("white", top + side + 9)):
        out.append(turn_lights(player, y, left + side / 2, [lights[led] for led in board.turn_leds[player == "black"]]))
    for sq in range(board.squares):  # the board file's grid is the tables' grid: names agree
        out.append(square(state, sq, square_name(grid, sq), grid, lights[board.led_of_square[sq]], lay))
    out.extend(winning_lines(state, board, lay))
    for i in range(grid):
        x, y = origin(i, grid, lay)
        out.append('<text x="%d" y="%d" font-size="%d" text-anchor="middle" fill="#555">%s</text>'
                   % (x + SIZE / 2, top + side + 25 + lay.label, lay.label, square_name(grid, i)[0]))
        x, y = origin(i * grid, grid, lay)
        out.append('<text x="%d" y="%d" font-size="%d" text-anchor="middle" fill="#555">%d</text>'
                   % (left - 18, y + SIZE / 2 + lay.label / 3, lay.label, i + 1))
    if tall:
        drawn, bottom = panel(state, lay, left, top + side + 90)
        width, height = left + side + 6, bottom + 24
    else:
        drawn, bottom = panel(state, lay, 590, top)
        width, height = 960, max(top + side + 60, bottom + 24)
    out.extend(drawn)
    head = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" class="doce-board" '
            'font-family="DejaVu Sans, Verdana, sans-serif" data-mode=%s data-to-move=%s data-layout="%s">'
            % (width, height, quoteattr(state["mode"]), quoteattr(state["to_move"]), "tall" if tall else "wide"),
            '<defs><pattern id="zone" width="12" height="12" patternUnits="userSpaceOnUse" '
            'patternTransform="rotate(45)"><rect width="5" height="12" fill="#cc79a7" opacity="0.55"/>'
            '</pattern></defs>')
    return "\n".join(list(head) + out + ["</svg>"])


def board_only(state):
    """The board alone, frame to frame, as SVG: dice, lights, zones, marks and winning lines, no
    words (the tournament screen's tiles say those in text of their own). Many go on one page,
    so the zones' hatching (#zone) is the page's to define, once."""
    board = load_board()
    grid, lay = board.grid, TILE
    side = GAP + grid * (SIZE + GAP)
    lights = led_colours(state, board)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" class="doce-board tile-board" '
           'data-mode=%s data-to-move=%s data-layout="tile">' % (side, side, quoteattr(str(state["mode"])),
                                                                  quoteattr(str(state["to_move"]))),
           '<rect class="frame" width="%d" height="%d" rx="14" fill="#3b3430"/>' % (side, side)]
    for sq in range(board.squares):  # (who is to move, the edge lights' news, the tile says in words)
        out.append(square(state, sq, square_name(grid, sq), grid, lights[board.led_of_square[sq]], lay))
    out.extend(winning_lines(state, board, lay))
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
    versus = state.get("versus")
    board = " (the board)" if isinstance(versus, dict) and versus.get("colour") == state["to_move"] else ""
    return "Round %d of %d: %s%s to move" % (state["round"], state["rounds"], state["to_move"], board)


def turn_lights(player, y, centre, lights):
    out = ['<g class="turn-lights" data-player="%s">' % player]
    for k, (hue, level) in enumerate(lights):
        x = centre + (k - 1) * 36
        out.append('<circle cx="%d" cy="%d" r="6" fill="%s" fill-opacity="%.2f" stroke="#222"/>'
                   % (x, y, hue or "#111", math.sqrt(level) if hue else 1))
    out.append("</g>")
    return "".join(out)


def square(state, sq, cell, grid, light, lay):
    x, y = origin(sq, grid, lay)
    hue, level = light
    in_game = state["board"].get(cell)
    seen = state.get("seen", {})
    piece = seen[cell] if cell in seen else in_game
    zone = (state["mode"] == "playing" and piece is None and cell in state["zones"].get(state["to_move"], ()))
    last = [p for p, at in state["last"].items() if at == cell and in_game]
    problem = state["problems"].get(cell)
    move = board_move(state) if piece is None and state["mode"] == "playing" else None
    move = move if move and move[0] == cell else None
    attrs = {"data-cell": cell, "data-piece": piece or "", "data-light": hue or "",
             "data-level": "%.2f" % level}
    if move:
        attrs["data-board-move"] = move[1]
    if zone:
        attrs["data-zone"] = "true"
    if last:
        attrs["data-last"] = last[0]
    if problem:
        attrs["data-problem"] = problem
    out = ['<g class="square" %s>' % " ".join("%s=%s" % (k, quoteattr(v)) for k, v in attrs.items()),
           '<title>%s</title>' % text(put_right(state, cell, problem) if problem else cell),
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
    elif move:  # the board's move, to be put down for it: faint, in a ring of its colour
        out.append('<g class="board-move" opacity="0.55">%s</g><rect x="%d" y="%d" width="%d" height="%d" rx="8" '
                   'fill="none" stroke="%s" stroke-width="4" stroke-dasharray="6 5"/>'
                   % (draw_piece(move[1], x, y), x + 5, y + 5, SIZE - 10, SIZE - 10,
                      PLAYER_LIGHT[move[1].split()[0]]))
    if last:
        out.append('<path class="last" d="M%d %dh-24v24z" fill="%s" stroke="#222"/>'
                   % (x + SIZE - 3, y + 3, PLAYER_LIGHT[last[0]]))
    if problem:
        out.append('<rect class="problem" x="%d" y="%d" width="%d" height="%d" rx="8" fill="none" '
                   'stroke="%s" stroke-width="5" stroke-dasharray="10 6"/>' % (x + 2, y + 2, SIZE - 4, SIZE - 4,
                                                                            PROBLEM))
        r = lay.mark * 0.7
        out.append('<circle cx="%d" cy="%d" r="%d" fill="%s"/><text x="%d" y="%d" font-size="%d" '
                   'font-weight="bold" text-anchor="middle" fill="#fff">!</text>'
                   % (x + 3 + r, y + 3 + r, r, PROBLEM, x + 3 + r, y + 3 + r + lay.mark * 0.375, lay.mark))
    out.append("</g>")
    return "".join(out)


def board_move(state):
    """(square, piece) the board has chosen and waits for, in a match against the board:
    its blocker's square first, while the blocker goes first. None otherwise."""
    versus = state.get("versus")  # absent from a board older than the field
    move = versus.get("move") if isinstance(versus, dict) else None
    if not isinstance(move, dict) or versus.get("colour") not in PLAYER_LIGHT:
        return None
    if move.get("blocker"):
        return move["blocker"], "%s blocker" % versus["colour"]
    return move.get("cell"), "%s %s" % (versus["colour"], move.get("value"))


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


def winning_lines(state, board, lay):
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
        points = " ".join("%d,%d" % (x + SIZE / 2, y + SIZE / 2)
                          for x, y in (origin(sq, board.grid, lay) for sq in squares))
        # A dark edge, so the line reads over its own colour; pointer-events none, so a
        # click on the line is a click on the square under it.
        out.append('<polyline points="%s" fill="none" stroke="#111" stroke-width="18" stroke-linecap="round" '
                   'stroke-opacity="0.7" pointer-events="none"/>' % points)
        out.append('<polyline class="winning-line" data-cells=%s data-player="%s" points="%s" fill="none" '
                   'stroke="%s" stroke-width="10" stroke-linecap="round" pointer-events="none"/>'
                   % (quoteattr(" ".join(line)), owner, points, PLAYER_LIGHT[owner]))
    return out


def panel(state, lay, x, top):
    """Scores by round and for the match, the pieces in hand, and any problems, in words;
    and where they end."""
    k = lay.step / 24  # the wide panel's spacing, stretched for bigger words
    white, black = (300, 440) if lay.tall else (170, 250)  # where each column ends
    out = ['<g class="scores" font-size="%d">' % lay.words,
           '<text x="%d" y="%d" font-size="%d" font-weight="bold">Scores</text>' % (x, top + 10, lay.words + 2),
           '<text x="%d" y="%d" fill="#555">round</text><text x="%d" y="%d" text-anchor="end" fill="#555">white'
           '</text><text x="%d" y="%d" text-anchor="end" fill="#555">black</text>'
           % (x, top + 38 * k, x + white, top + 38 * k, x + black, top + 38 * k)]
    y = top + 38 * k
    for n, points in enumerate(state["scores"], 1):
        y += lay.step
        out.append('<g class="round-score" data-round="%d"><text x="%d" y="%d">%d</text><text x="%d" y="%d" '
                   'text-anchor="end">%d</text><text x="%d" y="%d" text-anchor="end">%d</text></g>'
                   % (n, x, y, n, x + white, y, points["white"], x + black, y, points["black"]))
    y += 30 * k
    t = state["totals"]
    out.append('<g class="match-total" font-weight="bold"><text x="%d" y="%d">match</text><text x="%d" y="%d" '
               'text-anchor="end">%d</text><text x="%d" y="%d" text-anchor="end">%d</text></g>'
               % (x, y, x + white, y, t["white"], x + black, y, t["black"]))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>' % (x, y - 20 * k, x + black + 5, y - 20 * k))
    y += 44 * k
    for player in ("white", "black"):
        out.append('<text x="%d" y="%d" class="in-hand" data-player="%s">%s: %d dice, %d blocker%s left</text>'
                   % (x, y, player, player, state["dice_left"][player], state["blockers_left"][player],
                      "" if state["blockers_left"][player] == 1 else "s"))
        y += lay.step
    if state["problems"]:
        y += 20 * k
        out.append('<text x="%d" y="%d" font-weight="bold" fill="%s">To put right</text>' % (x, y, PROBLEM))
        for cell, code in sorted(state["problems"].items()):
            y += 22 * k
            # In lines that fit the panel; each but the last keeps its space, so the element's
            # text is the sentence whole.
            lines = wrapped(put_right(state, str(cell), str(code)), lay.reason_chars)
            spans = "".join('<tspan x="%d" y="%d">%s</tspan>'
                            % (x, y + 22 * k * n, text(line + " " * (n < len(lines) - 1)))
                            for n, line in enumerate(lines))
            out.append('<text class="problem-reason" data-cell=%s font-size="%d">%s</text>'
                       % (quoteattr(str(cell)), lay.reasons, spans))
            y += 22 * k * (len(lines) - 1)
    out.append("</g>")
    return out, y


class NoPNG(Exception):
    """No PNG: cairo is missing on this computer (SVG needs nothing), or the SVG cannot be drawn."""


def write_png(svg, path):
    try:
        import cairosvg
    except (ImportError, OSError) as e:  # OSError: the cairo library itself is missing
        raise NoPNG("PNG needs the cairo library (Debian: apt install libcairo2); --svg works without it (%s)"
                    % e) from None
    try:  # unsafe=False (its default): no external files or entities
        cairosvg.svg2png(bytestring=svg.encode(), write_to=path, unsafe=False)
    except OSError:
        raise
    except Exception as e:  # the SVG came from a page, untrusted: XML or SVG cairosvg cannot draw
        raise NoPNG("the picture is not an SVG that can be drawn (%s: %s)" % (type(e).__name__, str(e)[:200])) from None


# -- the key to the picture ------------------------------------------------------------------

KEY_LAYOUT = Layout(False, left=-GAP, top=-GAP, label=0, words=0, reasons=0, headline=0, mark=26, step=0,
                    reason_chars=0)


def glow(colour, level):
    """(hue, level) as led_colours gives them, for a light of `colour` (r, g, b) at `level` 0..1."""
    return "#%02x%02x%02x" % tuple(round(c * 255 / max(colour)) for c in colour), level


def key():
    """The key to every square the picture draws, as HTML: a swatch drawn by square() itself, and
    what it means in words. Each differs in more than its colour (brightness, a mark, hatching,
    dashes, a ring, a bar), for a colour-blind player too; docs/lights.md says the same of the
    board's own lights."""
    from doce.lights import BLUE, BRIGHT, DIM, PURPLE, VERMILLION
    dim, bright = DIM / 8, BRIGHT / 8
    entries = [
        ({"board": {"a1": "white 3"}}, glow(YELLOW, dim), "white's die: a dim yellow light"),
        ({"board": {"a1": "white 3"}, "last": {"white": "a1"}}, glow(YELLOW, bright),
         "white's last die: bright yellow, marked in its corner"),
        ({"board": {"a1": "black 3"}}, glow(BLUE, dim), "black's die: a dim blue light"),
        ({"board": {"a1": "black 3"}, "last": {"black": "a1"}}, glow(BLUE, bright),
         "black's last die: bright blue, marked in its corner"),
        ({"zones": {"white": ["a1"]}}, glow(PURPLE, dim),
         "the no-play zone of the player to move: hatched, dim reddish purple; their numbered die may not go there"),
        ({"board": {"a1": "white 2"}, "problems": {"a1": "not_your_turn"}}, glow(VERMILLION, bright),
         "to put right: a dashed vermillion frame and \u201c!\u201d, its light blinking; the words under the board "
         "say what"),
        ({"versus": {"colour": "black", "move": {"cell": "a1", "value": 4}}}, glow(BLUE, bright),
         "the board's move (or your friend's): its die faint in a dashed ring; the light flashes as many times as "
         "the pips"),
        ({"board": {"a1": "white blocker"}}, (None, 0.0), "a blocker: a disc with a bar; it has no light"),
        ({}, (None, 0.0), "an empty square: dark"),
    ]
    out = ['<ul class="key">']
    for n, (given, light, words) in enumerate(entries):
        state = {"mode": "playing", "to_move": "white", "board": {}, "seen": {}, "zones": {}, "problems": {},
                 "last": {}, "versus": None}
        state.update(given)
        drawn = (square(state, 0, "a1", 1, light, KEY_LAYOUT).replace("url(#zone)", "url(#key-zone)")
                 .replace('<g class="square"', '<g class="key-square"', 1))
        defs = ('<defs><pattern id="key-zone" width="12" height="12" patternUnits="userSpaceOnUse" '
                'patternTransform="rotate(45)"><rect width="5" height="12" fill="#cc79a7" opacity="0.55"/>'
                '</pattern></defs>') if n == 0 else ""
        out.append('<li><svg viewBox="0 0 %d %d" aria-hidden="true">%s%s</svg><span>%s</span></li>'
                   % (SIZE, SIZE, defs, drawn, text(words)))
    out.append('<li><svg viewBox="0 0 %d %d" aria-hidden="true"><rect width="%d" height="%d" rx="8" fill="#1e1b19" '
               'stroke="#009e73" stroke-width="7"/></svg><span>a hint: a thick bluish green frame</span></li>'
               % (SIZE, SIZE, SIZE, SIZE))
    out.append('<li><svg viewBox="0 0 %d %d" aria-hidden="true"><rect width="%d" height="%d" rx="8" fill="#1e1b19"/>'
               '<polyline points="0,%d %d,%d" stroke="#111" stroke-width="18" stroke-opacity="0.7"/>'
               '<polyline points="0,%d %d,%d" stroke="%s" stroke-width="10"/></svg>'
               '<span>a winning line: a bar through its squares in the winner\'s colour, its lights pulsing</span></li>'
               % ((SIZE, SIZE, SIZE, SIZE) + (SIZE / 2, SIZE, SIZE / 2) * 2 + (PLAYER_LIGHT["white"],)))
    out.append("</ul>")
    return "\n".join(out)
