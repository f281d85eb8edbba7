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
  a won round       the winning line pulses in the winner's colour
  the match         every square pulses in the winner's colour (both, on a draw)
  turn              the edge lights of the player to move, in their colour
docs/lights.md has the same table for players.
"""

from .board import UNSETTLED
from .controller import CLEARING, CORRECTING, LIFTED, MATCH_OVER, MOVED, TURNED
from .game import DRAW, EMPTY, WHITE, is_blocker, owner

YELLOW = (240, 228, 66)
BLUE = (0, 114, 178)
PURPLE = (204, 121, 167)
VERMILLION = (213, 94, 0)
OFF = (0, 0, 0)

DIM, NORMAL, BRIGHT = 2, 5, 8  # levels out of 8
ZONE = 3  # a mark: in the mover's no-play zone (1 and 2 mark a winning line's owner)
PULSE = b"\x02\x03\x05\x07\x08\x07\x05\x03"  # levels of one pulse
BLINK_MS = 250
PULSE_MS = 60  # one pulse step


def scaled(colour, level, cap):
    return tuple(int(c * cap * level / 8 + 0.5) for c in colour)


class Lights:
    def __init__(self, pixels, show, board, brightness=1.0):
        self.pixels = pixels
        self.show = show
        self.board = board
        self.set_brightness(brightness)
        self.marks = bytearray(board.squares)  # per frame: winning lines and the zone
        self.animated = False  # whether the picture changes with time

    def set_brightness(self, brightness):
        """0.0-1.0 of the board's cap (the cap keeps the strip within USB power)."""
        self.brightness = max(0.0, min(1.0, brightness))
        cap = self.board.brightness_cap * self.brightness
        self.shown = [None] * self.board.led_count  # the palette entry each LED shows
        # palette[colour][level]: preallocated, so drawing allocates nothing
        self.palette = [[scaled(c, level, cap) for level in range(9)]
                        for c in (YELLOW, BLUE, PURPLE, VERMILLION)]

    def render(self, controller, now_ms):
        """Draw the whole board from the controller's state, then send it."""
        game = controller.game
        mode = controller.mode
        ended = game.rounds[-1] if game.round_over and game.rounds else None
        self.animated = mode in (CORRECTING, MATCH_OVER) or ended is not None
        self._mark(game, ended, mode)
        blink_on = (now_ms // BLINK_MS) % 2 == 0
        pulse = PULSE[now_ms // PULSE_MS % len(PULSE)]
        for sq in range(self.board.squares):
            self._set(self.board.led_of_square[sq], self._square(controller, sq, blink_on, pulse))
        for player in (WHITE, 1 - WHITE):
            colour = self._turn(controller, player, blink_on, pulse)
            for i in self.board.turn_leds[player]:
                self._set(i, colour)
        self.show()

    def _set(self, led, colour):
        # Colours are shared palette tuples, so `is` tells a change; setting a pixel
        # costs a driver call, and most of them do not change from frame to frame.
        if colour is not self.shown[led]:
            self.pixels[led] = colour
            self.shown[led] = colour

    def _mark(self, game, ended, mode):
        """self.marks[sq]: 1 + the owner of a winning line through it, or ZONE, or 0."""
        marks = self.marks
        for sq in range(len(marks)):
            marks[sq] = 0
        if ended is not None:
            t = game.tables
            for player, line in ended.lines:
                for sq in t.line_squares(line):
                    marks[sq] = 1 + player
        elif mode != MATCH_OVER:
            for sq in game.no_play_zone(game.to_move):
                if game.board[sq] == EMPTY:
                    marks[sq] = ZONE

    def _square(self, controller, sq, blink_on, pulse):
        game = controller.game
        pal = self.palette
        cell = game.board[sq]
        mark = self.marks[sq]
        if controller.mode == MATCH_OVER:
            w = game.winner()
            return pal[w if w != DRAW else (sq + sq // self.board.grid) % 2][pulse]
        problem = controller.problems[sq] if controller.mode == CORRECTING else None
        if problem is not None:
            if not blink_on:
                return OFF
            missing = problem in (LIFTED, TURNED) or (problem == MOVED and cell != EMPTY)
            return pal[owner(cell)][BRIGHT] if missing and not is_blocker(cell) else pal[3][BRIGHT]
        if mark == ZONE:
            return pal[2][DIM]
        if mark:
            return pal[mark - 1][pulse]  # on a winning line
        if controller.mode == CLEARING and not game.round_over and controller.physical[sq] != EMPTY:
            return pal[3][DIM]  # clear the board for the new match
        if cell != EMPTY and not is_blocker(cell) and cell != UNSETTLED:
            p = owner(cell)
            return pal[p][BRIGHT if game.last_placed[p] == sq else DIM]
        return OFF

    def _turn(self, controller, player, blink_on, pulse):
        game = controller.game
        if controller.mode == MATCH_OVER:
            w = game.winner()
            return self.palette[player][pulse] if w == player or w == DRAW else OFF
        if controller.mode == CORRECTING:
            return self.palette[3][NORMAL] if player == game.to_move and blink_on else OFF
        if not game.round_over and player == game.to_move:
            return self.palette[player][NORMAL]
        return OFF
