"""The world above the board: dice on squares, as the hall sensors under them feel it.

Runs inside the simulated device (MicroPython) and under CPython alike. It reads the
die code from the board file, so a die here carries exactly the magnets a real die
would, and the sensors see them through the same channel map.

Each sensor reads baseline + field + noise, in ADC counts (0-65535). A die flat on
its square gives each magnet the board's nominal signal; a die in motion, tilted or
half on a square gives a fraction of it, which is what a real sensor sees in between.
"""

from array import array

from doce.board import SENSORS_PER_SQUARE, TRITS, piece as piece_value

SIGN = (0, 1, -1)  # trit -> polarity


class World:
    def __init__(self, board, noise=250, seed=7):
        self.board = board
        self.noise = noise
        self.seed = seed
        self.field = array("i", [0] * board.channels)  # signed counts per channel
        self.pieces = {}  # square -> (name, turn) for dice flat on their square
        self.codes = {}  # piece name -> its code, e.g. "white 4" -> "+-+00"
        for code, name in board.dice.items():
            self.codes[name] = code
        self.stray = {}  # channel -> extra field from a hand or a die passing over
        self.frames = []  # movements in progress: one frame is applied per scan

    # -- what the sensors read ------------------------------------------------

    def reading(self, channel):
        self.seed = (self.seed * 1103515245 + 12345) & 0x7FFFFFFF
        jitter = (self.seed >> 8) % (2 * self.noise + 1) - self.noise if self.noise else 0
        v = self.board.baseline + self.field[channel] + self.stray.get(channel, 0) + jitter
        return 0 if v < 0 else 65535 if v > 65535 else v

    def _set(self, square, name, turn, strength):
        """Put the magnets of `name` (None: nothing) on `square` at strength/8 of nominal."""
        first = square * SENSORS_PER_SQUARE
        trits = [0] * SENSORS_PER_SQUARE
        if name is not None:
            code = [TRITS[c] for c in self.codes[name]]
            ring = code[1:]
            turn %= 4
            trits = [code[0]] + ring[turn:] + ring[:turn]
        for i in range(SENSORS_PER_SQUARE):
            ch = self.board.square_channels[first + i]
            self.field[ch] = SIGN[trits[i]] * self.board.nominal_signal * strength // 8

    # -- what a hand does -----------------------------------------------------

    def place(self, square, name, turn=0):
        """A die (or the blocker) put down flat, `turn` quarter turns around."""
        piece_value(name)  # raises on an unknown piece
        self.pieces[square] = (name, turn)
        self._set(square, name, turn, 8)

    def lift(self, square):
        self.pieces.pop(square, None)
        self._set(square, None, 0, 8)

    def tilt(self, square, strength=3):
        """The die on `square` left tilted or half off: its magnets read strength/8."""
        name, turn = self.pieces[square]
        self._set(square, name, turn, strength)

    def settle(self, square):
        """The die on `square` drops flat again."""
        name, turn = self.pieces[square]
        self._set(square, name, turn, 8)

    def slide(self, start, end, scans_per_frame=1):
        """A die slides from `start` to `end`, half on each on the way, over a few scans."""
        name, turn = self.pieces[start]
        steps = [
            lambda: self._set(start, name, turn, 5),
            lambda: (self._set(start, name, turn, 3), self._set(end, name, turn, 3)),
            lambda: (self._set(start, None, 0, 8), self._set(end, name, turn, 5)),
            lambda: (self.pieces.pop(start, None), self.place(end, name, turn)),
        ]
        for step in steps:
            self.frames.extend([step] * scans_per_frame)

    def tick(self):
        """One scan's worth of movement."""
        if self.frames:
            self.frames.pop(0)()

    def pass_over(self, square, strength=3):
        """A hand or a die in the air over `square`: a weak field on its centre sensor."""
        ch = self.board.square_channels[square * SENSORS_PER_SQUARE]
        self.stray[ch] = self.board.nominal_signal * strength // 8

    def clear_stray(self):
        self.stray = {}
