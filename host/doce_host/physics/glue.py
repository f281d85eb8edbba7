"""Which way round to glue each face of a die: the dice sheet's rule (board.json
physics.magnet.toward, each face's N towards a neighbour face), chosen for a colour's dice.

    python -m doce_host.physics.glue [COLOUR ...]

A side face's ring magnet at the edge by the floor sits 4 mm over the face down's ring place
there, about 3 mm outside its sensor, and reads several mT at it (issue 40). Which of its
magnets lands there, and of which pole, is the side face's glue turn; glued at any turn, a
seated black 4 or white 2 reads right at the tolerances' corners by only a fraction of a mT.
A rule fixes every face's turn, so the searches take every die as glued by it. This tries
every rule (4 neighbours for each of 6 faces: 4,096) on both hands of die, every face down
seated square in its well, a die of middle magnets on three boards (every part at the middle
of its range; the shallowest, most sensitive sensors; the deepest, least sensitive) and a die
of the weakest, smallest, most recessed magnets on the deepest, and ranks them by the
smallest seated margin (decode.Reader.seated_margin, mT). It only screens: these dice and
boards are not the tolerances' corners, where search.py's seated family judges a rule. The
screen's best left white 5 and black 6 (a magnet at every ring place) nearest not reading right
there; board.json's rule is one near the best whose side magnets add to theirs instead
(hardware/README.md, the dice).
"""

import copy
import itertools
import json
import sys

import numpy as np

from doce.board import Board
from doce.squares import piece as piece_value

from ..paths import BOARD_FILE
from . import dice, search
from .campaign import Campaign
from .decode import Reader
from .geometry import FACES, glue_toward
from .reading import Boards

MIDDLE = ("quiescent", "switch drop", "vref", "supply", "board quiescent", "saturation low", "saturation high", "inl")


def boards(spec):
    """The three boards a rule is screened on, one square each, calibrated: (depth, sensitivity)
    fractions (0.5, 0.5), (0, 1) and (1, 0); every other part at the middle of its range."""
    ph, board = spec["physics"], Board(spec)
    out = []
    for depth, sens in ((0.5, 0.5), (0.0, 1.0), (1.0, 0.0)):
        pins = {what: np.full((1, n), 0.5 if what in MIDDLE else depth) for what, n in search.BOARD}
        pins["sensitivity"] = np.full((1, 5), sens)
        pins["board switch drop"] = pins["switch drop"][:, :1]
        pins["inl"] = pins["inl"][:, None, :]
        out.append(Boards(ph, 1, np.random.default_rng(0), board.baseline, calibrated=True,
                          power_on_us=board.power_on_us, pins=pins))
    return out


def rules():
    """Every rule: ({face: the neighbour its N points at}, ...)."""
    near = [[q for q in FACES if q not in (p, 7 - p)] for p in range(1, 7)]
    return [dict(zip(range(1, 7), choice)) for choice in itertools.product(*near)]


def screened(spec, colour, candidates):
    """(n, 6): each candidate rule's smallest seated margin (mT) with each face down (1-6),
    over both hands and the four screens (the module's docstring). Every magnet's field adds,
    so each face's is computed once per glue turn, hand, face down and screen, and summed for
    each rule."""
    spec = copy.deepcopy(spec)
    spec["physics"]["magnet"].get("toward", {}).pop(colour, None)  # or it would turn the faces as it says
    ph, hole = spec["physics"], spec["mechanics"]["jig"]["drill_mm"]
    reader, per_mT = Reader(Board(spec)), Campaign(spec).per_mT
    squares = boards(spec)
    # (die, board): a die of middle magnets on each board, and one of the weakest on the deepest
    weakest = {(what, p, k): end for p in FACES for k in range(5)
               for what, end in (("remanence", 0), ("diameter", 0), ("height", 0), ("recess", 1))}
    screens = [({}, b) for b in range(len(squares))] + [(weakest, 2)]
    field = np.zeros((2, 7, len(screens), 7, 4, 5))  # hand, face down, screen, face, glue turn, sensor
    for hand in (0, 1):
        for g in range(4):
            for j, (die_pins, b) in enumerate(screens):
                pins = dict(die_pins)
                pins.update({("glue", p): g for p in FACES})
                pins["hand"] = hand
                magnets, side = dice.build(colour + " 1", spec["dice"], ph, pins=pins, hole=hole)
                # each magnet's field at the five sensors, with every face down, in one call
                placed = [dice.place(magnets, side, dice.Pose(down=down)) for down in FACES]
                m = len(magnets)
                each = dice.bz_pairs(np.concatenate([at for at, _ in placed]),
                                     np.concatenate([axis for _, axis in placed]),
                                     np.tile(magnets.polarisation, len(FACES)), np.tile(magnets.size, (len(FACES), 1)),
                                     np.broadcast_to(squares[b].sensors[0], (len(FACES) * m, 5, 3)))
                for n, down in enumerate(FACES):
                    for i in range(m):
                        field[hand, down, j, magnets.face[i], g] += each[n * m + i]
    n = len(candidates)
    faces = np.arange(1, 7)
    out = np.full((n, 6), np.inf)
    for hand in (0, 1):
        glue = np.array([[glue_toward(p, rule[p], hand) for p in faces] for rule in candidates])
        for down in faces:
            piece = np.full(n, piece_value("%s %d" % (colour, 7 - down)))
            for j, (_, b) in enumerate(screens):
                d = squares[b].read(field[hand, down, j][faces[None, :], glue].sum(1), rows=np.zeros(n, int),
                                    noise=False)
                out[:, down - 1] = np.minimum(out[:, down - 1], reader.seated_margin(d, piece) / per_mT)
    return out


def main(argv=None):
    spec = json.loads(BOARD_FILE.read_text())
    for colour in (argv if argv is not None else sys.argv[1:]) or ("white", "black"):
        every = rules()
        m = screened(spec, colour, every)
        order = np.argsort(-m.min(1), kind="stable")
        ours = spec["physics"]["magnet"].get("toward", {}).get(colour)
        print("%s: the best rules of %d (smallest seated margin, mT; then face down 1-6)" % (colour, len(every)))
        for k in order[:5]:
            print("  %5.2f  %s  %s" % (m[k].min(), json.dumps({str(f): v for f, v in every[k].items()}),
                                        " ".join("%.2f" % x for x in m[k])))
        print("  the worst rule: %.2f; board.json's: %s" % (
            m.min(), "%.2f" % m[every.index({int(f): v for f, v in ours.items()})].min() if ours else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
