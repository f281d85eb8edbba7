"""What board.json sensing.gone_percent protects (issue 40; hardware/README.md, "What
gone_percent protects"): a die whose one ring magnet of the centre's pole is weak reads another
piece only if, fading with its die, that magnet counts as gone (under absent_below and under
gone_percent of the centre's) while the rest reads as the other code. Lowering gone_percent
protects weaker magnets; its price is the seated die's empty ring places of the centre's pole,
which must count as none: they read up to about 12.6 % of the centre (white 4's W, the side
faces' magnets), so gone_percent has a floor."""

import json

import numpy as np
import pytest

from doce.board import Board
from doce.squares import piece
from doce_host.paths import BOARD_FILE
from doce_host.physics import dice, gone
from doce_host.physics.campaign import Campaign
from doce_host.physics.reading import Fields
from doce_host.physics.decode import Reader

SPEC = json.loads(BOARD_FILE.read_text())
PER_MT = Campaign(SPEC).per_mT

DANGEROUS = [("white 1", 1), ("white 1", 2), ("white 2", 1), ("white 2", 3), ("white 6", 1), ("white 6", 4),
             ("black 1", 3), ("black 1", 4), ("black 3", 2), ("black 3", 3), ("black 4", 2), ("black 4", 4)]


def test_the_dangerous_magnets_are_the_ring_magnets_of_the_centre_s_pole_whose_loss_is_a_blocker():
    """Of the 22 ring magnets of the centre's pole, 12 leave their colour's blocker when lost with
    the die's ring magnet of the other pole (which may fade as fringe): only these, weak, can read
    another piece. white 5's and black 6's (one pole all round) and the blockers' leave no code."""
    assert gone.dangerous(SPEC["dice"]) == DANGEROUS


def test_lowering_gone_percent_moves_no_reading_nearer_another_piece_and_none_nearer_reading_right():
    """Why only the families that must read right pay for a lower gone_percent (seated, crowded,
    the dice check): a ring reading of the centre's pole counts as none under fewer readings, so
    no reading comes nearer another piece, and none nearer reading as its own."""
    rng = np.random.default_rng(7)
    n = 20000
    d = np.column_stack([rng.choice([-1, 1], n) * rng.uniform(15000, 32000, n), rng.uniform(-20000, 20000, (n, 4))])
    names = list(dice.codes_by_piece(SPEC["dice"]))
    right = np.array([piece(names[i]) for i in rng.integers(len(names), size=n)])
    at = {}
    for percent in (25, 18):
        reader = Reader(Board(gone.with_gone(SPEC, percent)))
        at[percent] = reader.closest(d, right)[0], reader.seated_margin(d, right)
    assert (at[18][0] >= at[25][0]).all() and (at[18][1] <= at[25][1]).all()
    assert (at[18][0] > at[25][0]).sum() > 100 and (at[18][1] < at[25][1]).sum() > 100  # the rule decides some


@pytest.mark.parametrize("name", ["white 4"])
def test_a_seated_die_s_empty_places_of_the_centre_s_pole_read_as_none_by_1_5_mT(name):
    """The floor under gone_percent: white 4's W reads the most of the centre's pole with no
    magnet there (the side faces' magnets). Seated, searched aimed at each empty place from the
    corners of the die's room, either hand (gone.empty_worst): at least +1.5 mT (issue 40). At
    gone_percent 16 it read +1.43 and +1.36 mT (seeds 1 and 2), at 18 +2.31 and +2.23."""
    m, hand, sensor = gone.empty_worst(SPEC, name, 1)
    assert m / PER_MT >= 1.5, (round(m / PER_MT, 2), hand, "CNESW"[sensor])


@pytest.mark.parametrize("name", ["white blocker", "black blocker"])
def test_a_seated_blocker_with_dice_around_it_reads_by_1_5_mT_at_the_strict_line(name):
    """strict_gone_percent may go only as low as a blocker built right still reads with a die on
    each square around it, each chosen to put the most field of the blocker's centre's sign at its
    empty places (gone.crowded_worst, a small search: 400 rows and 6 draws a piece, seeds 1 and 2,
    find +1.88 mT or more at 8 %, +2.85 at 10: h40t). At 3 % the same search finds it unread: the
    test can fail."""
    for line, holds in ((SPEC["sensing"]["strict_gone_percent"], True), (3, False)):
        spec = json.loads(json.dumps(SPEC))
        spec["sensing"]["strict_gone_percent"] = line
        least = min(m for _, m in gone.crowded_worst(spec, name, 1, rows=60, draws=3)) / PER_MT
        assert (least >= 1.5) == holds, "%s at %d %%: %+.2f mT" % (name, line, least)


TIE = {"remanence": 1.0, "diameter": 0.0, "height": 0.0}  # the magnet check's weakest passing size corner (h40t)
TIE_STRENGTH = 0.5575  # its weakest passing fraction of 1480 mT there, seed 1 (h40t's corners.py; 0.5578 seed 2)


@pytest.mark.parametrize("name, k, seed, line, holds", [
    ("white 2", 1, 1, None, True), ("black 4", 4, 2, None, True), ("black 4", 4, 2, 10, False)],
    ids=["white 2 N", "black 4 W", "black 4 W at 10 %"])
def test_the_weakest_passing_magnet_at_its_alone_worst_with_dice_chosen_around_it_reads_no_other_piece(
        name, k, seed, line, holds):
    """The weakest magnet the magnet check passes (smallest size, 0.5575 of 1480 mT: h40t), in
    the two dies nearest their blocker, tipping flat at the worst found alone, with a die on each
    of the eight squares around chosen against it (gone.crowded_nearest, 6 draws a piece): not
    read as another piece at the board's strict line (at 8 %: +0.85 and +1.98 mT). At 10 %, the
    line before, the same search reads black 4's die as black's blocker (-0.53 mT): it can fail.
    Not the whole claim: searched together with its neighbours, the die's pose reads black's
    blocker at 8 % too (the expected failure below; hardware/README.md, issue 40 still open)."""
    spec = SPEC if line is None else gone.with_gone(SPEC, line, "strict_gone_percent")
    m, d, around = gone.crowded_nearest(spec, name, k, TIE_STRENGTH, "tipping flat", seed, TIE)
    assert (m > 0) == holds, "%s %s at %d %%: %+.2f mT, %s" % (
        name, "CNESW"[k], spec["sensing"]["strict_gone_percent"], m / PER_MT, around)


@pytest.mark.xfail(strict=True, reason="issue 40, open: searched together with dice chosen around it, the weakest "
                                       "passing magnet's die reads its blocker at the strict line 8 % (-0.20 mT here, "
                                       "-0.16 mT in 6 turns of 25 draws: hardware/README.md)")
def test_the_weakest_passing_magnet_with_its_pose_and_dice_around_searched_together_reads_no_other_piece():
    """The claim test_the_weakest_passing_magnet_at_its_alone_worst... holds for one found pose,
    searched jointly (gone.joint_nearest: the die's pose and every tolerance searched with its
    neighbours' field added, then the neighbours chosen again, in turns): black 4's W at the
    smallest passing corner, tipping flat, seed 2, 6 draws a piece: +1.98 mT the first turn
    (crowded_nearest), -0.20 the second, black's blocker, at strict_gone_percent 8. It fails
    today; it passes once the magnet check, the codes or the reading rule close the gap."""
    m, d, around, turns = gone.joint_nearest(SPEC, "black 4", 4, TIE_STRENGTH, "tipping flat", 2, TIE, turns=2)
    assert m > 0, "%+.2f mT (by turn %s), %s" % (m / PER_MT, [round(t / PER_MT, 2) for t in turns], around)


@pytest.mark.xfail(strict=True, reason="issue 40, open: a blocker built right with dice chosen around it reads "
                                       "unsettled (-0.31 mT here, -0.69 mT in 25 draws: hardware/README.md)")
def test_a_seated_blocker_with_dice_chosen_around_it_reads_right():
    """A blocker built right, seated, its pose and every tolerance searched, with a die on each
    square around chosen against its whole reading (gone.joint_nearest's first turn, the seated
    family, 6 draws a piece, seed 1): black's reads unsettled, -0.31 mT (white 3s and black 6s
    push an empty place of the other sign over absent_opposite_below, at any strict line). It
    passes once the design keeps such a blocker reading right."""
    m, d, around, _ = gone.joint_nearest(SPEC, "black blocker", 0, None, "seated", 1, turns=1)
    assert m > 0, "%+.2f mT, %s" % (m / PER_MT, around)


def test_the_joint_search_s_turns_only_fall():
    """Each turn of gone.joint_nearest searches afresh and from the last turn's worst too (search.worst's
    start, the same rng: the same die and board), keeping the lower, and its neighbours' descent starts
    from the last choice, so no turn's margin is above the last's. Afresh only, this small search's
    turns read +3.99, +2.89, +9.78, +2.95 mT (black 4's W at the weakest passing corner, tipping flat,
    seed 1): it can fail."""
    size = {"starts": 200, "rounds": 3, "corners": 2}
    *_, turns = gone.joint_nearest(SPEC, "black 4", 4, TIE_STRENGTH, "tipping flat", 1, TIE, draws=3, size=size,
                                   turns=4)
    assert all(b <= a for a, b in zip(turns, turns[1:])), [round(t / PER_MT, 2) for t in turns]


def test_a_searched_worst_comes_with_its_own_die_and_board():
    """The crowded searches read the weak die's worst with dice around through that die's and
    board's own readout (search.worst's `made`): read at the worst's pose, they give the search's
    own reading, and a field added around moves the search's reading as it moves theirs."""
    weak = gone.SearchedDie(SPEC, "black 4", 4, TIE_STRENGTH, "tipping flat", TIE)
    size = {"starts": 60, "rounds": 2, "corners": 1}
    around = np.array([0.0, 0.0, 0.0, 0.0, 2.0])  # mT at W: a neighbour's
    for extra in (None, around):
        found, made = [], []
        _, (pose, _) = weak.worst(2, 0, size, readings=found, made=made, around=extra)
        (die, board, _), = made
        own = Fields()
        own.add(np.arange(1), die, [pose], board.sensors)
        assert np.allclose(board.read(own.total(1) + (0 if extra is None else extra), noise=False), found[-1])
