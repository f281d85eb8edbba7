"""Candidate sensing thresholds, each family's worst margin: for the engineer choosing
board.json "sensing" (absent_below, absent_opposite_below, present_above).

    python -m doce_host.physics.tune [--sampled N] [--only FAMILY] [--seed X] CANDIDATE...

A CANDIDATE is `absent_below,absent_opposite_below,present_above` (counts at
sensing.baseline); none: the board file's own. A threshold trades families: seated and
crowded dice want present_above low and absent_below high; bridging, leaning and tipped
dice want the opposite. For each candidate and every piece, search.worst searches the pose
and every tolerance (search.TOLERANCES) of each searched family; crowded, empty and
dropped dice are not searched (their neighbours and bounces are drawn: campaign.py), so
their margins are the nearest of `--sampled` placements or paths, noiseless. Margins are
in mT at the nominal gain (campaign.Campaign.per_mT), noiseless: a read's noise is beside them.
A searched family's margin is the worst of its own search and of every other candidate's
worst readings judged by its thresholds: a search that missed a corner at one candidate
is not an advantage there.
Each search is search.deep, as `make physics` searches.
"""

import argparse
import copy
import json
import sys

import numpy as np

from ..paths import BOARD_FILE
from doce.squares import piece as piece_value

from . import search
from .campaign import Campaign

# family printed -> (search.families name(s), calibrated)
SEARCHED = {"seated, calibrated": (("seated",), True),
            "seated, never calibrated": (("seated",), False),
            "bridging a side": (("bridging a side",), True),
            "bridging a corner": (("bridging a corner",), True),
            "leaning on a neighbour": (("leaning on a neighbour",), True),
            "held on the way down": (("held on the way down",), True),
            "held low": (("held low",), True),
            "tipping flat": (("tipping flat",), True)}
SAMPLED = ("crowded", "empty")
PATHS = ("dropped and bouncing",)
INFORMATION = ("seated, never calibrated",)  # reads no piece in play, only the empty board: not in "smallest"
NAMES = ("absent_below", "absent_opposite_below", "present_above")


def with_thresholds(spec, thresholds):
    spec = copy.deepcopy(spec)
    spec["sensing"].update(zip(NAMES, thresholds))
    return spec


def margins(spec, pooled, seed=(0, 0), sampled=2000, only=None):
    """{family: worst margin in counts} for the board file `spec`, and the Campaign. Each
    searched worst's reading is added to `pooled` {family: [(piece, reading)]}, to judge
    every candidate against every worst any candidate's search found. Seated out of the box
    is the calibrated search: the board calibrated itself the same way."""
    campaign = Campaign(spec, seed[0])
    rng = np.random.default_rng(seed)
    fams = search.families(campaign.ph)
    out = {}
    for family, (kinds, calibrated) in SEARCHED.items():
        if only and family not in only:
            continue
        worst = np.inf
        for piece in campaign.pieces:
            for kind in kinds:
                found = []
                m, _ = search.deep(campaign.reader, piece, fams[kind], rng, (spec, campaign.hole, calibrated),
                                   readings=found)
                pooled.setdefault(family, []).extend((piece, d) for d in found)
                worst = min(worst, m)
        out[family] = worst
    for family in SAMPLED:
        campaign._read_static(family, sampled)
        out[family] = campaign.margin[family]
    for family in PATHS:
        campaign._read_paths(family, max(1, sampled // 10))
        out[family] = campaign.margin[family]
    return out, campaign


def rejudged(reader, family, pooled):
    """The smallest margin (counts) of `family`'s pooled worst readings under `reader`'s thresholds."""
    if not pooled.get(family):
        return np.inf
    pieces = np.array([piece_value(p) for p, _ in pooled[family]])
    d = np.array([r for _, r in pooled[family]])
    seated = SEARCHED[family][0] == ("seated",)
    return float((reader.seated_margin(d, pieces) if seated else reader.closest(d, pieces)[0]).min())


def main(argv=None):
    ap = argparse.ArgumentParser(prog="doce physics tune", description=__doc__.split("\n\n")[0])
    ap.add_argument("candidates", nargs="*", help="absent_below,absent_opposite_below,present_above")
    ap.add_argument("--sampled", type=int, default=2000, help="placements of each drawn family")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", action="append", choices=list(SEARCHED), help="search only these families")
    args = ap.parse_args(argv)
    spec = json.loads(BOARD_FILE.read_text())
    candidates = [tuple(int(x) for x in c.split(",")) for c in args.candidates] or \
        [tuple(spec["sensing"][k] for k in NAMES)]
    if any(len(c) != 3 for c in candidates):
        ap.error("a candidate is three counts: absent_below,absent_opposite_below,present_above")
    families = [f for f in SEARCHED if not args.only or f in args.only] + list(SAMPLED) + list(PATHS)
    print("%-22s %s" % ("family (margin, mT)", " ".join("%17s" % ",".join(map(str, c)) for c in candidates)))
    pooled, results, campaigns = {}, [], []
    for i, c in enumerate(candidates):  # the searches start apart (seed + i); the drawn families alike (seed)
        got, campaign = margins(with_thresholds(spec, c), pooled, (args.seed, i), args.sampled, args.only)
        results.append(got)
        campaigns.append(campaign)
    for got, campaign in zip(results, campaigns):  # each candidate against every candidate's worst
        for family in pooled:
            got[family] = min(got.get(family, np.inf), rejudged(campaign.reader, family, pooled))
        for family in got:
            got[family] /= campaign.per_mT
    noise = campaigns[0].noise_mT()
    for family in families:
        kind = "searched" if family in SEARCHED else "sampled"
        kind += "; for information" if family in INFORMATION else ""
        print("%-22s %s  (%s)" % (family[:22], " ".join("%17.2f" % r[family] for r in results), kind))
    print("%-22s %s" % ("smallest", " ".join("%17.2f" % min(v for k, v in r.items() if k not in INFORMATION)
                                               for r in results)))
    print("(noiseless margins; a read's noise is +-%.2f mT; search.deep, every piece)" % noise)
    return 0


if __name__ == "__main__":
    sys.exit(main())
