"""`make physics` in small, in three parts that each take a few seconds of one core (one test of
2,000 placements, 200 paths and the searches took 69 s alone and ran past pytest-timeout's 300 s on
a machine at load 13-22, issue 42): every family drawn within every tolerance and read as the
firmware reads it, W = 0."""

import io
import json
import re

from doce_host.paths import BOARD_FILE
from doce_host.physics.campaign import PATHS, SEARCHED, STATIC, Campaign

SPEC = json.loads(BOARD_FILE.read_text())


def reported(campaign, families):
    """Each family's line of the report says its nearest wrong reading (or its searched worst), once."""
    report = io.StringIO()
    wrong = campaign.report(report)
    lines = {line[:24].strip(): line[24:] for line in report.getvalue().splitlines()}
    for family in families:
        if family != "misbuilt":
            assert re.search(r"(reads right|misses another piece) by -?\d+\.\d\d mT( \(searched: -?\d+\.\d\d mT\))?$"
                             r"|searched: -?\d+\.\d\d mT$", lines[family]), lines[family]
    return wrong


def test_two_thousand_placements_never_read_wrong():
    """Every die at rest in its well reads right, every misbuilt die reads unsettled, and every
    noiseless reading is on its side of its thresholds by more than a read's noise (seated on a board
    out of the box, which calibrated itself at its first empty board: three times). A board never
    calibrated reads no piece in play (app.py), but still reads every seated die as not empty, so it
    never calibrates on one."""
    campaign = Campaign(SPEC, seed=11).run(2000)
    assert reported(campaign, [name for name, _ in STATIC]) == 0
    for family in ("seated, calibrated", "seated, out of the box", "seated, never calibrated", "crowded", "empty"):
        tally = campaign.tally[family]
        assert tally["right"] >= 0.99 * sum(tally.values()) > 0, family
    assert campaign.tally["misbuilt"]["unsettled"] == sum(campaign.tally["misbuilt"].values()) > 0
    noise = campaign.noise_mT() * campaign.per_mT
    assert min(m for f, m in campaign.margin.items() if f != "seated, never calibrated") > noise, campaign.margin
    assert campaign.seated_margin("seated, out of the box") > 3 * noise
    assert campaign.seated_margin("seated, never calibrated") > 0
    assert campaign.tally["seated, never calibrated"]["wrong"] == 0


def test_two_hundred_paths_never_read_wrong():
    """Dice landing on an edge, on a corner, dropped and bouncing, read scan by scan through the
    scanner's debounce: some settle right, none settles as another piece."""
    campaign = Campaign(SPEC, seed=12).run(0, paths=200)
    assert reported(campaign, [name for name, _ in PATHS]) == 0
    for family, _ in PATHS:
        assert campaign.tally[family]["right"] > 0 and campaign.tally[family]["wrong"] == 0, family
    noise = campaign.noise_mT() * campaign.per_mT
    assert min(campaign.margin[f] for f, _ in PATHS) > noise, campaign.margin


def test_each_searched_familys_worst_pose_reads_right():
    """The worst pose searched for in each searched family, not drawn, still reads right by more
    than a read's noise (a board never calibrated: still not empty)."""
    campaign = Campaign(SPEC, seed=13).run(0, searches=2)
    assert reported(campaign, list(SEARCHED)) == 0
    noise = campaign.noise_mT() * campaign.per_mT
    assert len(campaign.searched) == 7 and campaign.searched["seated, never calibrated"][0] > 0
    assert min(m for f, (m, _) in campaign.searched.items() if f != "seated, never calibrated") > noise
