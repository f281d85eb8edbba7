"""The dice check's bands, board.json sensing.check_above (issue 40): for each magnet of each
piece's face down, the least the sensor under it reads of a die built right seated on the
check's square, searched with every tolerance free (search.worst aimed at that sensor from the
corners of the die's room, either hand, polished: cornered()'s way), for each of several seeds;
a place's band is its least over the seeds less ALLOW_MT, rounded down to ROUND counts.

    python -m doce_host.physics.bands [--seeds 1 2] [--pieces "white 1,black 6"] [--write]

prints each place's least per seed and how far the seeds lie apart (the search's repeat), then
the bands; --write puts them in hardware/board.json (every piece searched)."""

import argparse
import json
import re
import time

import numpy as np

from doce.board import Board

from ..paths import BOARD_FILE
from . import dice, search
from .campaign import Campaign
from .decode import Reader
from .reading import Fields
from .scene import face_down

# a read's noise (+-0.47 mT, adc.noise_counts at per_mT) and the searches' repeat (two seeds
# agree within 0.3 mT): what a band keeps under the least a die built right was found to read
ALLOW_MT = 1.0
ROUND = 50  # counts


def under(spec, reader, name, k, hand):
    """The sensor under magnet k (C N E S W of the face down) of a die of `name` and `hand`
    seated at turn 0, every tolerance at its middle, as search.worst places it: the one whose
    field changes most without that magnet (a turn of the die moves its ring over the sensors)."""
    ph, hole = spec["physics"], spec["mechanics"]["jig"]["drill_mm"]
    fam = search.families(ph)["seated"]
    lo, hi = np.array(fam.bounds, float).T
    params = np.concatenate([(lo + hi) / 2, np.full(search.TOLERANCES, 0.5)])[None]
    params[0, len(lo) + search.GLUES + 4] = hand
    out = []
    for faults in ((), [(face_down(name), k, ("weak", 0.0))]):
        dl, board = search.built(ph, spec, name, params[:, len(lo):], hole, 0, reader.board.baseline, True,
                                 reader.board.power_on_us, faults)
        f = Fields()
        f.add_each(np.arange(1), dl, fam.make_all(ph, face_down(name), 0, params, dl), board.sensors[np.arange(1)])
        out.append(f.total(1)[0])
    return int(np.argmax(np.abs(out[0] - out[1])))


def least(spec, reader, name, k, seed):
    """(counts toward its code, hand, sensor, reading) of magnet k of `name`'s face down at its
    searched weakest: the smaller over either hand, each searched from rng [seed, k, hand]."""
    ph, hole = spec["physics"], spec["mechanics"]["jig"]["drill_mm"]
    fam = search.families(ph)["seated"]
    sign = 1 if dice.codes_by_piece(spec["dice"])[name][k] == "+" else -1
    best = None
    for hand in (0, 1):
        s = under(spec, reader, name, k, hand)
        found = []
        search.worst(reader, None, None, name, None, fam, np.random.default_rng([seed, k, hand]),
                     tolerances=(spec, hole, True), readings=found, sensor=s, turn=0,
                     fixed={search.GLUES + 4: float(hand)}, pose_corners=search.SEATED_CORNERS, polish=1, corners=8)
        v = sign * found[0][s]
        if best is None or v < best[0]:
            best = (float(v), hand, s, found[0])
    return best


def bands(spec, leasts, per_mT):
    """{code: five counts} from {(piece, k): least counts} (taken whole, as printed): ALLOW_MT
    under, rounded down to ROUND, never under present_above (the check's trits already ask
    that), 0 where the code has no magnet; a code whose ring is one pole all round (+++++,
    -----) reads any of its ring magnets at any ring sensor as the die is turned, so each takes
    its ring's least."""
    floor = spec["sensing"]["present_above"]
    out = {}
    for name, code in dice.codes_by_piece(spec["dice"]).items():
        v = [leasts[(name, k)] if c != "0" else 0 for k, c in enumerate(code)]
        if len(set(code[1:])) == 1 and code[1] != "0":
            v[1:] = [min(v[1:])] * 4
        out[code] = [max(floor, int((int(x) - ALLOW_MT * per_mT) // ROUND * ROUND)) if c != "0" else 0
                     for x, c in zip(v, code)]
    return out


def write(path, check_above):
    """board.json with sensing.check_above replaced, one line a code in the file's code order."""
    text = path.read_text()
    codes = json.loads(text)["dice"]
    lines = ",\n".join('      "%s": [%s]' % (code, ", ".join(str(v) for v in check_above[code])) for code in codes)
    text, n = re.subn(r'    "check_above": \{.*?\n    \}', '    "check_above": {\n%s\n    }' % lines, text, flags=re.S)
    if n != 1:
        raise SystemExit("no sensing.check_above block in %s" % path)
    json.loads(text)
    path.write_text(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--pieces", default="all", help="comma-separated, e.g. 'white 1,black 6'")
    ap.add_argument("--write", action="store_true", help="put the bands in hardware/board.json")
    args = ap.parse_args(argv)
    spec = json.loads(BOARD_FILE.read_text())
    reader = Reader(Board(spec))
    per = Campaign(spec).per_mT
    codes = dice.codes_by_piece(spec["dice"])
    names = list(codes) if args.pieces == "all" else [n.strip() for n in args.pieces.split(",")]
    if args.write and names != list(codes):
        raise SystemExit("--write needs every piece searched")
    found = {}
    for name in names:
        for k, mark in enumerate(codes[name]):
            if mark == "0":
                continue
            for seed in args.seeds:
                c0 = time.process_time()
                v, hand, s, reading = least(spec, reader, name, k, seed)
                found.setdefault((name, k), []).append(v)
                print("%s %s %s | sensor %s | seed %d | %.2f mT (%d counts) | hand %d | reading %s | %.0f s CPU"
                      % (name, "CNESW"[k], mark, "CNESW"[s], seed, v / per, v, hand,
                         np.round(reading / per, 1).tolist(), time.process_time() - c0), flush=True)
    apart = {place: (max(v) - min(v)) / per for place, v in found.items()}
    far = max(apart, key=apart.get)
    print("seeds %s: the places' least agree within %.2f mT (%s %s)"
          % (args.seeds, apart[far], far[0], "CNESW"[far[1]]))
    if names == list(codes):
        check_above = bands(spec, {place: min(v) for place, v in found.items()}, per)
        print(json.dumps(check_above))
        if args.write:
            write(BOARD_FILE, check_above)


if __name__ == "__main__":
    main()
