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
from .game import BLOCKER, DRAW, EMPTY, WHITE, owner

YELLOW = (240, 228, 66)
BLUE = (0, 114, 178)
PURPLE = (204, 121, 167)
VERMILLION = (213, 94, 0)
OFF = (0, 0, 0)

DIM, NORMAL, BRIGHT = 2, 5, 8  # levels out of 8
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
        self.animated = False  # whether the picture changes with time

    def set_brightness(self, brightness):
        """0.0-1.0 of the board's cap (the cap keeps the strip within USB power)."""
        cap = self.board.brightness_cap * max(0.0, min(1.0, brightness))
        # palette[colour][level]: preallocated, so drawing allocates nothing
        self.palette = [[scaled(c, level, cap) for level in range(9)]
                        for c in (YELLOW, BLUE, PURPLE, VERMILLION)]

    def render(self, controller, now_ms):
        """Draw the whole board from the controller's state, then send it."""
        game = controller.game
        b = self.board
        px = self.pixels
        pal = self.palette
        mode = controller.mode
        blink_on = (now_ms // BLINK_MS) % 2 == 0
        pulse = PULSE[now_ms // PULSE_MS % len(PULSE)]
        ended = game.rounds[-1] if game.round_over and game.rounds else None
        self.animated = mode in (CORRECTING, MATCH_OVER) or ended is not None
        zone_of = game.to_move if mode != MATCH_OVER and ended is None else None
        for sq in range(b.squares):
            cell = game.board[sq]
            colour = OFF
            problem = controller.problems[sq] if mode == CORRECTING else None
            if mode == MATCH_OVER:
                w = game.winner()
                who = w if w != DRAW else (sq + sq // b.grid) % 2
                colour = pal[who][pulse]
            elif problem is not None:
                if blink_on:
                    missing = problem in (LIFTED, TURNED) or (problem == MOVED and cell != EMPTY)
                    if missing and cell != BLOCKER:
                        colour = pal[owner(cell)][BRIGHT]
                    else:
                        colour = pal[3][BRIGHT]
            elif ended is not None and self._line_owner(game, ended, sq) is not None:
                colour = pal[self._line_owner(game, ended, sq)][pulse]
            elif mode == CLEARING and ended is None and controller.physical[sq] != EMPTY:
                colour = pal[3][DIM]  # clear the board for the new match
            elif cell != EMPTY and cell != BLOCKER and cell != UNSETTLED:
                p = owner(cell)
                colour = pal[p][BRIGHT if game.last_placed[p] == sq else DIM]
            elif cell == EMPTY and zone_of is not None and game.in_no_play_zone(zone_of, sq):
                colour = pal[2][DIM]
            px[b.led_of_square[sq]] = colour
        for player in (WHITE, 1 - WHITE):
            colour = OFF
            if mode == MATCH_OVER:
                w = game.winner()
                if w == player or w == DRAW:
                    colour = pal[player][pulse]
            elif mode == CORRECTING:
                if player == game.to_move and blink_on:
                    colour = pal[3][NORMAL]
            elif ended is None and player == game.to_move:
                colour = pal[player][NORMAL]
            for i in b.turn_leds[player]:
                px[i] = colour
        self.show()

    @staticmethod
    def _line_owner(game, ended, sq):
        """The player whose winning line runs through `sq`, or None."""
        t = game.tables
        for player, line in ended.lines:
            start = line * t.line_length
            for i in range(start, start + t.line_length):
                if t.lines[i] == sq:
                    return player
        return None
