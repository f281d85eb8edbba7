"""The lights: what the game and the board need the players to see, on the LEDs.

`pixels` is any strip that takes `pixels[i] = (r, g, b)`, and `show` sends it:
MicroPython's neopixel.NeoPixel with its write(), or Adafruit's NeoPixel with its
show(). That pair is the whole LED interface, on the ESP32 and on a Linux board.

Colours are from the Okabe-Ito palette, told apart with the common colour-vision
deficiencies, and every meaning also differs in brightness or blinking:
  white's dice      yellow: dim under each die, bright under white's last die
  black's dice      blue: dim under each die, bright under black's last die
  no-play zone      dim reddish purple on the empty squares the mover may not use
  a problem         blinking: vermillion on a piece that should not be there, the
                    owner's colour where a piece of the game is missing or wrong
  a won round       the winning line pulses in the winner's colour; every other
                    piece left on the board is dim vermillion until cleared away
  the match         every square pulses in the winner's colour (both, on a draw)
  turn              the edge lights of the player to move, in their colour
  a friend's board  in a remote match (doce/remote.py) their move shows as the board's move
                    does; while their board is not connected, their edge pulses reddish
                    purple; if the two boards disagree, both edges blink vermillion
  the board's move  in a match against the board, the square of its move flashes its
                    colour as many times as the face, then rests dim; for its blocker
                    the square flickers without rest
  a hint            asked with the button: shown as the board's move is, in the colour of
                    the player to move
  who plays         a press before a match's first piece: the board's colour on its edge
                    and on 1 to 4 squares of its home row for level 0 to 3; both edges
                    (in their colours) and no square for two players
  the dice check    both edges dim bluish green; its square pulses bluish green while
                    empty, is steady bluish green for a right face, blinks vermillion
                    for a wrong one (and for a die to take off before the game resumes)
docs/lights.md has the same table for players.
"""

import sys

from .controller import CLEARING, CORRECTING, LIFTED, MATCH_OVER, MOVED, PLAYING, TURNED
from .game import BLOCKER, DRAW, EMPTY, NOWHERE, WHITE, is_blocker, owner
from .tables import END
from .ticks import ticks_diff

if sys.implementation.name == "micropython":
    import micropython
else:  # CPython: the decorator does nothing
    from .native import micropython

YELLOW = (240, 228, 66)
BLUE = (0, 114, 178)
PURPLE = (204, 121, 167)
VERMILLION = (213, 94, 0)
OFF = (0, 0, 0)

DIM, NORMAL, BRIGHT = 2, 5, 8  # levels out of 8
ZONE = 3  # a mark: in the mover's no-play zone (1 and 2 mark a winning line's owner)
PULSE = b"\x02\x03\x05\x07\x08\x07\x05\x03"  # levels of one pulse
FRAME_MS = 50  # animation frame period
BLINK_MS = 250
PULSE_MS = 60  # one pulse step
# A remote match's trouble (doce/remote.py sets its `alarm`): the friend's board is not connected,
# or the two boards disagree on the game and play has stopped.
PEER_LOST, STOPPED = 1, 2


PALETTE = (YELLOW, BLUE, PURPLE, VERMILLION, (0, 158, 115))  # the last, bluish green: the dice check
LEVELS = 9  # 0 to BRIGHT


def scaled(colour, level, cap):
    return tuple(int(c * cap * level / 8 + 0.5) for c in colour)


class Lights:
    def __init__(self, pixels, show, board, brightness=1.0):
        self.pixels = pixels
        self.show = show
        self.board = board
        self.set_brightness(brightness)
        self.marks = bytearray(board.squares)  # per frame: winning lines and the zone
        self.winner = self.winner_of = None  # the match winner, worked out once per match
        self.c = self.ended = None  # this frame's controller and finished round
        self.cells = self.last = None  # this frame's board and last-placed squares
        self.animated = False  # whether the picture changes with time
        self.move_sq = NOWHERE  # the square of the board's move, shown as move_light
        self.move_light = OFF
        self.move_of = None  # the move on show, and when it came: its first flash is at once
        self.move_at = 0

    def set_brightness(self, brightness):
        """0.0-1.0 of the board's cap (the cap keeps the strip within USB power)."""
        self.brightness = max(0.0, min(1.0, brightness))
        cap = self.board.brightness_cap * self.brightness
        self.shown = [None] * self.board.led_count  # the palette entry each LED shows
        # palette[colour][level]: preallocated, so drawing allocates nothing. Its numbers first (their
        # floats are garbage), then its tuples side by side: made among that garbage they lay 700 bytes
        # apart, and the Wi-Fi's cap at boot (doce/net.py) split a paired board's free heap for good
        # (issue 41's power-cut campaign; tests/board/test_palette_heap.py)
        numbers = bytearray(3 * LEVELS * len(PALETTE))
        i = 0
        for colour in PALETTE:
            for level in range(LEVELS):
                for c in colour:
                    numbers[i] = int(c * cap * level / 8 + 0.5)  # scaled()'s
                    i += 1
        self.palette = palette = [None] * len(PALETTE)
        i = 0
        for k in range(len(PALETTE)):
            palette[k] = row = [None] * LEVELS
            for level in range(LEVELS):
                row[level] = (numbers[i], numbers[i + 1], numbers[i + 2])
                i += 3

    def render(self, controller, now_ms):
        """Draw the whole board from the controller's state, then send it. Allocates nothing."""
        self._frame(controller, now_ms)
        self._mark()
        self._draw()
        self.show()

    # Native code: a landing draws the whole board before its light shows, and as bytecode
    # this loop (two calls a square) was a fifth of a landing's work. A native frame lives on
    # the C stack, so the loop keeps its locals and allocates nothing. The squares of a game
    # in play or being cleared are drawn here; the match's end and a problem's blink by _square.
    @micropython.native
    def _draw(self):
        mode = self.c.mode
        problems = self.c.problems
        physical = self.c.physical
        cells = self.cells
        marks = self.marks
        last = self.last
        palette = self.palette
        shown = self.shown
        pixels = self.pixels
        leds = self.board.led_of_square
        for sq in range(len(cells)):
            mark = marks[sq]
            if mode == CLEARING:  # what is still on the board: a winning line pulses; the rest is to go
                if physical[sq] == EMPTY:
                    colour = OFF
                elif mark and mark != ZONE:
                    colour = palette[mark - 1][self.pulse]
                else:
                    colour = palette[3][DIM]
            elif mode != PLAYING and (mode != CORRECTING or problems[sq] is not None):
                colour = self._square(sq)
            elif sq == self.move_sq:
                colour = self.move_light
            elif mark == ZONE:
                colour = palette[2][DIM]
            else:
                cell = cells[sq]
                if cell == EMPTY or cell >= BLOCKER:
                    colour = OFF
                else:
                    p = (cell >> 4) - 1  # the die's owner
                    colour = palette[p][BRIGHT if last[p] == sq else DIM]
            led = leds[sq]
            if colour is not shown[led]:
                pixels[led] = colour
                shown[led] = colour
        for player in range(2):
            self._turn_lights(player, self._turn(player))

    def _frame(self, controller, now_ms):
        """What this frame depends on, kept on self for the small functions below."""
        self.c = controller
        game = controller.game
        self.cells = game.board
        self.last = game.last_placed
        self.ended = game.rounds[-1] if game.round_over and game.rounds else None
        mode = controller.mode
        self.animated = mode == CORRECTING or mode == MATCH_OVER or self.ended is not None
        self.move_sq = NOWHERE
        v = controller.versus
        if v and v.move and mode == PLAYING:
            self._move_frame(v.move, v.colour, now_ms)
        if v and v.alarm:
            self.animated = True
        v = controller.hint  # never at once with the board's move: a hint is not asked on its turn
        if v and v.move and mode == PLAYING:
            self._move_frame(v.move, v.colour, now_ms)
        self.blink_on = (now_ms // BLINK_MS) % 2 == 0
        self.pulse = PULSE[now_ms // PULSE_MS % len(PULSE)]
        if mode == MATCH_OVER and self.winner_of is not game:
            self.winner = game.winner()  # once per match: it sums the rounds
            self.winner_of = game

    def _move_frame(self, move, player, now_ms):
        """The board's move, or a hint, in `player`'s colour: a die's square flashes the face's
        count (250 ms on, 250 off), then rests dim for 1 s; a blocker's square flickers (100 ms)
        without rest."""
        self.animated = True
        colour = self.palette[player]
        if move is not self.move_of:  # a new move: it lights now, not at the next step of a clock
            self.move_of = move
            self.move_at = now_ms
        now_ms = ticks_diff(now_ms, self.move_at)  # ticks wrap (2**30 ms on the ESP32): never subtract them
        if move[0] != NOWHERE:
            self.move_sq = move[0]
            self.move_light = colour[BRIGHT] if now_ms // 100 % 2 == 0 else OFF
            return
        self.move_sq = move[1]
        step = now_ms // 250 % (2 * move[2] + 4)
        self.move_light = colour[DIM] if step >= 2 * move[2] else colour[BRIGHT] if step % 2 == 0 else OFF

    def render_choice(self, versus):
        """Who plays (doce.versus.Versus, or None for two players), shown after a press before a
        match's first piece: the board's colour on its edge and on level + 1 squares of its home
        row from the a-file (white's row 1, black's last), so its side tells the colour too."""
        self.animated = False
        grid = self.board.grid
        first = lit = 0
        if versus is not None:
            first = 0 if versus.colour == WHITE else grid * (grid - 1)
            lit = versus.level + 1
        for sq in range(self.board.squares):
            self._set(self.board.led_of_square[sq],
                      self.palette[versus.colour][BRIGHT] if first <= sq < first + lit else OFF)
        for player in range(2):
            on = versus is None or versus.colour == player
            self._turn_lights(player, self.palette[player][NORMAL] if on else OFF)
        self.show()

    def render_check(self, check, now_ms):
        """The dice check (doce.dice.DiceCheck): its square alone lit, both edges dim green."""
        self.blink_on = (now_ms // BLINK_MS) % 2 == 0
        self.pulse = PULSE[now_ms // PULSE_MS % len(PULSE)]
        for sq in range(self.board.squares):
            if sq != check.square:
                self._set(self.board.led_of_square[sq], OFF)
        self._set(self.board.led_of_square[check.square], self._checked(check))
        for player in range(2):
            self._turn_lights(player, self.palette[4][DIM])
        self.show()

    def _checked(self, check):
        """Empty: pulsing green (put a face down). Right: steady green. Wrong, or a die to
        take off before the game resumes: blinking vermillion."""
        result = check.result
        self.animated = result is None or check.leaving or not result["ok"]
        if result is None:
            return self.palette[4][self.pulse]
        if result["ok"] and not check.leaving:
            return self.palette[4][BRIGHT]
        return self.palette[3][BRIGHT] if self.blink_on else OFF

    def colours(self):
        """The strip's colours as last drawn, (r, g, b) bytes an LED: for a host's picture."""
        out = bytearray(3 * len(self.shown))
        for led in range(len(self.shown)):
            if self.shown[led]:
                out[3 * led:3 * led + 3] = bytes(self.shown[led])
        return out

    def _set(self, led, colour):
        # Colours are shared palette tuples, so `is` tells a change; setting a pixel
        # costs a driver call, and most of them do not change from frame to frame.
        if colour is not self.shown[led]:
            self.pixels[led] = colour
            self.shown[led] = colour

    def _turn_lights(self, player, colour):
        leds = self.board.turn_leds[player]
        for k in range(len(leds)):  # `for led in leds` would need an iterator's 4 frame slots
            self._set(leds[k], colour)

    # Small functions on purpose: MicroPython puts a frame of more than 11 slots on the
    # heap at every call, and animated frames are drawn 20 times a second.
    def _mark(self):
        """self.marks[sq]: 1 + the owner of a winning line through it, or ZONE, or 0."""
        for sq in range(len(self.marks)):
            self.marks[sq] = 0
        if self.ended is not None:
            for k in range(len(self.ended.lines)):
                self._mark_line(self.c.game.tables, self.ended.lines[k])
        elif self.c.mode != MATCH_OVER:
            self._mark_zone(self.c.game)

    def _mark_line(self, t, won):
        start = won[1] * t.line_length
        for i in range(start, start + t.line_length):
            self.marks[t.lines[i]] = 1 + won[0]

    def _mark_zone(self, game):
        """The mover's no-play zone, on the squares that are empty."""
        t = game.tables
        start = game.last_placed[game.to_move]
        if start == NOWHERE:
            return
        start *= t.zone_stride
        for i in range(start, start + t.zone_stride):
            sq = t.zone[i]
            if sq != END and game.board[sq] == EMPTY:
                self.marks[sq] = ZONE

    def _square(self, sq):
        """A square at the match's end, or one with a problem while the game waits (blinking)."""
        if self.c.mode == MATCH_OVER:
            w = self.winner
            return self.palette[w if w != DRAW else (sq + sq // self.board.grid) % 2][self.pulse]
        return self._problem(sq) if self.blink_on else OFF

    def _problem(self, sq):
        """The owner's colour where a piece of the game is missing or wrong; else vermillion."""
        problem = self.c.problems[sq]
        cell = self.c.game.board[sq]
        if cell != EMPTY and (problem == LIFTED or problem == TURNED or problem == MOVED):
            return self.palette[cell & 1 if is_blocker(cell) else owner(cell)][BRIGHT]
        return self.palette[3][BRIGHT]

    def _turn(self, player):
        mode = self.c.mode
        v = self.c.versus
        if v and v.alarm == STOPPED:
            return self.palette[3][BRIGHT] if self.blink_on else OFF
        if v and v.alarm == PEER_LOST and player == v.colour and mode != MATCH_OVER:
            return self.palette[2][self.pulse]
        if mode == MATCH_OVER:
            return self.palette[player][self.pulse] if self.winner == player or self.winner == DRAW else OFF
        if mode == CORRECTING:
            return self.palette[3][NORMAL] if player == self.c.game.to_move and self.blink_on else OFF
        if mode == PLAYING and player == self.c.game.to_move:
            return self.palette[player][NORMAL]
        return OFF
