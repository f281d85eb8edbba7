"""Candidate sensing thresholds, each family's worst margin: for the engineer choosing
board.json "sensing" (absent_below, absent_opposite_below, present_above).

    python -m doce_host.physics.tune [--starts S] [--rounds R] [--sampled N] CANDIDATE...

A CANDIDATE is `absent_below,absent_opposite_below,present_above` (counts at
sensing.baseline); none: the board file's own. A threshold trades families: seated and
crowded dice want present_above low and absent_below high; bridging, leaning and tipped
dice want the opposite. For each candidate and every piece, search.worst searches the pose
and every tolerance (search.TOLERANCES) of each searched family; crowded, empty and
dropped dice are not searched (their neighbours and bounces are drawn: campaign.py), so
their margins are the nearest of `--sampled` placements or paths, noiseless. Margins are
in mT at the nominal gain (campaign.Campaign.per_mT), noiseless: a read's noise is beside them.
Fewer starts and rounds than `make physics` make a quick scan; confirm the chosen point
with the defaults (search.worst's own).
"""

import argparse
import copy
import json
import sys

import numpy as np

from ..paths import BOARD_FILE
from . import search
from .campaign import Campaign

# family printed -> (search.families name(s), calibrated)
SEARCHED = {"seated, calibrated": (("seated",), True),
            "seated, never calibrated": (("seated",), False),
            "bridging a side": (("bridging a side",), True),
            "bridging a corner": (("bridging a corner",), True),
            "leaning on a neighbour": (("leaning on a neighbour",), True),
            "held on the way down": (("held on the way down",), True),
            "tipping flat": (("tipping flat",), True)}
SAMPLED = ("crowded", "empty")
PATHS = ("dropped and bouncing",)
INFORMATION = ("seated, never calibrated",)  # reads no piece in play, only the empty board: not in "smallest"
NAMES = ("absent_below", "absent_opposite_below", "present_above")


def with_thresholds(spec, thresholds):
    spec = copy.deepcopy(spec)
    spec["sensing"].update(zip(NAMES, thresholds))
    return spec


def margins(spec, seed=0, starts=300, rounds=5, sampled=2000):
    """{family: worst margin in mT} for the board file `spec`, and the noise in mT. Seated
    out of the box is the calibrated search: the board calibrated itself the same way."""
    campaign = Campaign(spec, seed)
    rng = np.random.default_rng(seed)
    fams = search.families(campaign.ph)
    out = {}
    for family, (kinds, calibrated) in SEARCHED.items():
        worst = np.inf
        for piece in campaign.pieces:
            for kind in kinds:
                m, _ = search.worst(campaign.reader, None, None, piece, None, fams[kind], rng, starts=starts,
                                    rounds=rounds, tolerances=(spec, campaign.hole, calibrated))
                worst = min(worst, m)
        out[family] = worst / campaign.per_mT
    for family in SAMPLED:
        campaign._read_static(family, sampled)
        out[family] = campaign.margin[family] / campaign.per_mT
    for family in PATHS:
        campaign._read_paths(family, max(1, sampled // 10))
        out[family] = campaign.margin[family] / campaign.per_mT
    return out, campaign.noise_mT()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="doce physics tune", description=__doc__.split("\n\n")[0])
    ap.add_argument("candidates", nargs="*", help="absent_below,absent_opposite_below,present_above")
    ap.add_argument("--starts", type=int, default=300, help="random starts per search (search.worst: 300)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of shrinking steps (search.worst: 5)")
    ap.add_argument("--sampled", type=int, default=2000, help="placements of each drawn family")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    spec = json.loads(BOARD_FILE.read_text())
    candidates = [tuple(int(x) for x in c.split(",")) for c in args.candidates] or \
        [tuple(spec["sensing"][k] for k in NAMES)]
    if any(len(c) != 3 for c in candidates):
        ap.error("a candidate is three counts: absent_below,absent_opposite_below,present_above")
    families = list(SEARCHED) + list(SAMPLED) + list(PATHS)
    print("%-22s %s" % ("family (margin, mT)", " ".join("%17s" % ",".join(map(str, c)) for c in candidates)))
    results, noise = [], None
    for c in candidates:
        got, noise = margins(with_thresholds(spec, c), args.seed, args.starts, args.rounds, args.sampled)
        results.append(got)
    for family in families:
        kind = "searched" if family in SEARCHED else "sampled"
        kind += "; for information" if family in INFORMATION else ""
        print("%-22s %s  (%s)" % (family[:22], " ".join("%17.2f" % r[family] for r in results), kind))
    print("%-22s %s" % ("smallest", " ".join("%17.2f" % min(v for k, v in r.items() if k not in INFORMATION)
                                               for r in results)))
    print("(noiseless margins; a read's noise is +-%.2f mT; searches %d starts, %d rounds, every piece)"
          % (noise, args.starts, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
