"""What hands do at the simulated table, worked out as real fields.

Both simulators (SimBoard, SerialSim) keep one Hands. Each move changes the pose of a
die in a sim.fields.Scene (the magnetic model's, in plain Python) and returns what the
device must be told: the channels whose mean reading changed, as [channel, level,
channel, level, ...], or for a movement that takes time, one such list per scan.
"""

import json
from dataclasses import replace

from ..paths import BOARD_FILE
from ..physics.geometry import Pose, face_down, square_centre, well_limits
from .fields import Scene

SLIDE_STEPS = 6  # positions a sliding die passes through between two squares


class Hands:
    def __init__(self, seed=1, spec=None):
        self.spec = spec or json.loads(BOARD_FILE.read_text())
        self.scene = Scene(self.spec, seed)
        self.well_depth = self.spec["physics"]["well_depth_mm"]
        self.jam = well_limits(self.spec["physics"])[1]  # degrees a die can lean inside its well
        self.sent = self.scene.levels()  # what the device was last told
        self.turns = {}  # square -> quarter turns, as the hand put the die down

    @property
    def pieces(self):
        """{square: (piece, quarter turns)} for the dice on the board."""
        return {sq: (piece, self.turns.get(sq, 0)) for sq, (piece, _) in self.scene.dice.items()}

    def levels(self):
        """Every channel's level, for a device that has just booted."""
        self.sent = self.scene.levels()
        return list(self.sent)

    def _changes(self):
        now = self.scene.levels()
        out = []
        for ch, (old, new) in enumerate(zip(self.sent, now)):
            if old != new:
                out += [ch, new]
        self.sent = now
        return out

    # -- moves --------------------------------------------------------------------------

    def _square(self, square):
        """Check a square's name before anything moves: a bad one changes nothing."""
        if square not in self.spec["squares"]:
            raise ValueError("no square %r on this board" % (square,))
        return square

    def place(self, square, piece, turn=0):
        """A die put into its well, `turn` quarter turns round, wherever the well lets it sit."""
        self._square(square)
        if not isinstance(turn, int) or isinstance(turn, bool):
            raise ValueError("turn is a whole number of quarter turns")
        if piece not in self.spec["dice"].values():
            raise ValueError("no piece %r (pieces: 'white 4', 'black blocker', ...)" % piece)
        self.scene.put(square, piece, self.scene.seated(square, piece, turn))
        self.turns[square] = turn
        return self._changes()

    def lift(self, square):
        self.scene.remove(self._square(square))
        self.turns.pop(square, None)
        return self._changes()

    def tilt(self, square, degrees=3, towards=0):
        """The die on `square` left leaning on one bottom edge, `degrees` up off its face.
        In its well it jams against the walls beyond a degree or two, so leaning further
        it rests on the well's rim."""
        if not 0 <= degrees <= 90:
            raise ValueError("a die leans 0 to 90 degrees")
        piece, pose = self._on(square)
        rim = self.well_depth if degrees > self.jam else 0.0
        self.scene.put(square, piece, replace(pose, tilt=degrees, tilt_to=towards, lift=rim))
        return self._changes()

    def hover(self, square, mm):
        """The die on `square` held `mm` above its well floor, level."""
        if not 0 <= mm <= 1000:
            raise ValueError("a die is held 0 to 1000 mm above its well")
        piece, pose = self._on(square)
        self.scene.put(square, piece, replace(pose, lift=mm, tilt=0))
        return self._changes()

    def settle(self, square):
        """The die on `square` drops back into its well."""
        piece, _ = self._on(square)
        self.scene.put(square, piece, self.scene.seated(square, piece, self.turns.get(square, 0)))
        return self._changes()

    def slide(self, start, end):
        """Per scan: the die on `start` lifted out of its well, carried over to `end`, and
        dropped in, through every reading in between."""
        piece, pose = self._on(start)
        if self._square(end) == start or end in self.scene.dice:
            raise ValueError("a die slides to another, empty square")
        (x0, y0), (x1, y1) = square_centre(self.spec, start), square_centre(self.spec, end)
        frames = [self.hover(start, self.well_depth + 0.5)]
        self.scene.remove(start)
        for i in range(1, SLIDE_STEPS):
            f = i / SLIDE_STEPS
            step = replace(pose, dx=pose.dx + f * (x1 - x0), dy=pose.dy + f * (y1 - y0), lift=self.well_depth + 0.5)
            self.scene.hold(start, piece, step)
            frames.append(self._changes())
        self.scene.let_go()
        self.turns[end] = self.turns.pop(start, 0)
        self.scene.put(end, piece, self.scene.seated(end, piece, self.turns[end]))
        frames.append(self._changes())
        return frames

    def pass_over(self, square, mm=8.0, piece="white 1"):
        """A die in a hand, `mm` above the board over `square`, on its way elsewhere."""
        self._square(square)
        if not 0 <= mm <= 1000 or piece not in self.spec["dice"].values():
            raise ValueError("a piece held 0 to 1000 mm up")
        self.scene.hold(square, piece, Pose(down=face_down(piece), lift=mm + self.well_depth))
        return self._changes()

    def cup(self, square, strength=1.0, down="N"):
        """A lone magnet dropped into the magnet check's cup on `square` (doce dice magnets),
        at `strength` of its remanence, face `down` ("N" or "S") down; strength 0 takes it out."""
        self._square(square)
        if not 0 <= strength <= 2 or down not in ("N", "S"):
            raise ValueError("a magnet at 0 to 2 of its remanence, N or S face down")
        if strength:
            self.scene.cups[square] = (strength, down)
        else:
            self.scene.cups.pop(square, None)
        return self._changes()

    def break_sensor(self, square, which="C", volts=0.0):
        """A sensor that failed: its output stuck at `volts` (0: dead or unsoldered)."""
        if which not in ("C", "N", "E", "S", "W") or not 0 <= volts <= 3.3:
            raise ValueError("a sensor is C, N, E, S or W, stuck at 0 to 3.3 V")
        self.scene.broken[self.spec["squares"][square]["CNESW".index(which)]] = volts
        return self._changes()

    def clear_stray(self):
        self.scene.let_go()
        return self._changes()

    def _on(self, square):
        if self._square(square) not in self.scene.dice:
            raise ValueError("no die on %s" % square)
        return self.scene.dice[square]

