"""The magnetic model cannot be kinder than the physics (issue 40): every magnet of every face a
cylinder, a die of either hand, the DRV5055 saturating toward its output's rails, and a seated
die searched at the tolerances' corners, its side faces' magnets and glue turns too."""

import functools
import json

import numpy as np
import pytest

from doce.board import Board
from doce_host.paths import BOARD_FILE
from doce_host.physics import dice, glue, readout, search
from doce_host.physics.campaign import Campaign
from doce_host.physics.decode import Reader
from doce_host.physics.reading import Fields

SPEC = json.loads(BOARD_FILE.read_text())
PH = SPEC["physics"]
HOLE = SPEC["mechanics"]["jig"]["drill_mm"]
KINDS = ("white", "black", "white blocker", "black blocker")
# A die whose faces are glued at any quarter turn (no sheet rule, board.json physics.magnet.toward):
# the turns a search's glue fractions reach
ANY_TURN = {**PH, "magnet": {**PH["magnet"], "toward": {}}}


def _sensors():
    g = PH["floor_mm"][0] + PH["air_mm"][0] + PH["sensor"]["hall_depth_mm"][0]
    r = PH["ring_mm"]
    return np.array([(0, 0, -g), (0, r, -g), (r, 0, -g), (0, -r, -g), (-r, 0, -g)], float)


def test_every_magnet_of_every_face_is_a_cylinder():
    """The field the campaign and the searches read (reading.Fields) is every magnet of the die,
    its side faces' too, each the cylinder it is: magpylib's cylinders summed one by one. A point
    dipole for a side face's magnet near the floor, nearer the ring sensor under it than three
    diameters, is off by more than 2 % (the campaign's model before issue 40)."""
    magnets, side = dice.build("white blocker", SPEC["dice"], PH, np.random.default_rng(3), hole=HOLE)
    pose = dice.Pose(down=6, turn=1.0, dx=0.1)
    sensors = _sensors()
    fields = Fields()
    fields.add([0], (magnets, side), [pose], sensors[None])
    at, axis = dice.place(magnets, side, pose)
    each = [dice.bz(at[i:i + 1], axis[i:i + 1], magnets.polarisation[i:i + 1], magnets.size[i:i + 1], sensors)
            for i in range(len(magnets))]
    assert fields.total(1)[0] == pytest.approx(np.sum(each, 0), abs=1e-9)
    low = np.argmin(np.where(magnets.face != 6, at[:, 2], np.inf))  # the side magnet nearest the floor
    ring = sensors[np.argmin(np.linalg.norm(sensors[:, :2] - at[low, :2], axis=1))][None]
    one = (at[low:low + 1], axis[low:low + 1], magnets.polarisation[low:low + 1], magnets.size[low:low + 1])
    cylinder = dice.bz(*one, ring)[0]
    dipole = dice.bz(*one, ring, dipole=True)[0]
    assert abs(dipole / cylinder - 1) > 0.02, (cylinder, dipole)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("hand", [0, 1])
def test_a_die_of_either_hand_reads_every_face_s_code(kind, hand):
    """A blank's pips may run either way round, each face still glued as the sheet draws it,
    seen from outside (geometry.MIRRORED): every face down reads its own code, in some turn."""
    codes = dice.codes_by_piece(SPEC["dice"])
    piece = kind if kind.endswith("blocker") else kind + " 1"
    magnets, side = dice.build(piece, SPEC["dice"], PH, pins={"hand": hand})
    assert magnets.hand == hand
    turns = {code[0] + code[1:][t:] + code[1:][:t]: name for code, name in SPEC["dice"].items() for t in range(4)}
    r = PH["ring_mm"]
    for down in range(1, 7):
        at, _ = dice.place(magnets, side, dice.Pose(down=down))
        face = magnets.face == down
        read = ["0"] * 5
        for (x, y, _), pol in zip(at[face], magnets.polarisation[face]):
            spot = {(0, 0): 0, (0, 1): 1, (1, 0): 2, (0, -1): 3, (-1, 0): 4}[(round(x / r), round(y / r))]
            read[spot] = "+" if pol < 0 else "-"
        want = codes[piece if kind.endswith("blocker") else "%s %d" % (kind, 7 - down)]
        assert turns["".join(read)] == turns[want], (hand, down)


def test_the_hand_moves_only_the_faces_3_and_4_and_is_drawn():
    """The mirror image trades faces 3 and 4 (half a turn about the vertical through 1 and 6);
    a die drawn within tolerance is of either hand. (Glued by a rule, each face's turn follows
    the hand too: glue_toward.)"""
    plain, _ = dice.build("white 1", SPEC["dice"], ANY_TURN, pins={"hand": 0})
    mirror, _ = dice.build("white 1", SPEC["dice"], ANY_TURN, pins={"hand": 1})
    side = np.isin(plain.face, (3, 4))
    assert np.array_equal(plain.at[~side], mirror.at[~side])
    assert np.allclose(mirror.at[side][:, :2], -plain.at[side][:, :2])
    hands = {dice.build("white 1", SPEC["dice"], PH, np.random.default_rng(s))[0].hand for s in range(12)}
    assert hands == {0, 1}


def test_the_sensor_saturates_toward_its_output_s_rails_not_at_a_field():
    """SBAS640 5.5: V_L, linear from 0.2 V to VCC - 0.2 V, saturating beyond (at a voltage it does
    not give: here 0-0.2 V short of each rail, board.json sensor.rail_headroom_V). The most
    sensitive part with the highest quiescent voltage reaches its rail by 44 mT (the B_L the
    datasheet quotes), a typical one not before 50 mT."""
    s = PH["sensor"]

    def part(q, sens, headroom):
        return readout.Parts(np.array([q]), np.array([sens]), np.float64(1100), np.float64(0),
                             np.array([s["supply_V"]]), np.array([headroom]), np.array([headroom]))
    steep = part(s["quiescent_V"][1], s["sensitivity_mV_per_mT"][1], 0.2)
    top = s["supply_V"] - 0.2
    assert readout.volts(np.array([200.0]), steep, PH)[0] == pytest.approx(top)
    assert readout.volts(np.array([-200.0]), steep, PH)[0] == pytest.approx(0.2)
    assert readout.volts(np.array([43.0]), steep, PH)[0] < top == pytest.approx(
        readout.volts(np.array([45.0]), steep, PH)[0])
    typical = part(sum(s["quiescent_V"]) / 2, sum(s["sensitivity_mV_per_mT"]) / 2, sum(s["rail_headroom_V"]) / 2)
    assert readout.volts(np.array([44.0]), typical, PH)[0] < readout.volts(np.array([50.0]), typical, PH)[0]


def test_each_chip_s_curve_reads_every_input_of_it_as_that_chip_alone():
    """readout.raw works out each chip's ESP-IDF curve once (a board's five inputs share it) and
    reads every input by it: the same codes as each input given its own copy of its chip's Vref
    and INL, and within a code of np.interp on that chip's curve alone (no INL)."""
    from dataclasses import replace
    rng = np.random.default_rng(1)
    parts = readout.Parts.draw(PH, (40, 5), rng, chips=(40, 1))
    volts = rng.uniform(-0.2, 3.6, (40, 5))
    got = readout.raw(volts, parts, PH)
    own = replace(parts, vref=np.repeat(parts.vref, 5, 1), inl=np.repeat(parts.inl, 5, 1))
    assert np.array_equal(readout.raw(volts, own, PH), got)
    flat = replace(parts, inl=np.zeros_like(parts.inl))
    for i in range(40):
        alone = readout.raw(volts[i], replace(parts, vref=np.float64(parts.vref[i, 0]), inl=np.float64(0.0)), PH)
        assert np.abs(alone - readout.raw(volts[i:i + 1], flat.rows(np.array([i])), PH)[0]).max() <= 1


def test_the_search_pins_every_face_s_magnets_the_side_glues_and_the_hand():
    """search.built: the searched fractions reach every magnet of every face (a side magnet's
    remanence here), each side face's glue turn (of a die glued at any turn) and the die's hand."""
    f = np.full((2, search.TOLERANCES), 0.5)
    f[0, search.GLUES + 4] = 0.2  # hand 0
    f[1, search.GLUES:search.GLUES + 5] = (0.0, 0.3, 0.6, 0.9, 0.9)
    at = 1 + search.PER_FACE + 1 * (len(search.MAGNET) + search.PLACE)  # its N magnet's remanence
    f[1, at] = 1.0
    board = Board(SPEC)
    (a, _), (b, _) = search.built(ANY_TURN, SPEC, "white 1", f, HOLE, 0, board.baseline, True,
                                  board.power_on_us)[0]
    assert a.hand == 0 and b.hand == 1
    assert [b.glue[p] for p in search.face_order(6)[1:5]] == [0, 1, 2, 3]
    assert np.abs(b.polarisation).max() == PH["magnet"]["remanence_mT"][1]


@pytest.mark.parametrize("kind, faults", [("white 1", ()), ("black 1", ((3, 2, ("weak", 0.5)), (6, 0, "reversed"))),
                                           ("white blocker", ((1, 4, "extra-"),))])
def test_many_dice_built_at_once_are_each_the_die_built_alone(kind, faults):
    """dice.build_many (the searches' dice, built on arrays) gives, die for die, build()'s magnets
    for that die's pins, to the bit: random fractions for every tolerance, glue turns and hands
    drawn (one for all the dice, or one per die: search.built builds every die of a batch at
    once), and dice with faults."""
    rng = np.random.default_rng(7)
    n = 5
    for glue_turns, hand in ((rng.integers(4, size=4), 0), (rng.integers(4, size=4), 1),
                             (rng.integers(4, size=(4, n)), rng.integers(2, size=n))):
        pins = {"die side": rng.random(n), "hand": hand}
        pins.update({("glue", p): g if np.ndim(g) else int(g) for p, g in zip(search.face_order(6)[1:5], glue_turns)})
        for pips in range(1, 7):
            for k in range(5):
                pins.update({(what, pips, k): rng.random(n) for what in search.MAGNET})
                pins.update({(what, pips, k): rng.random((2, n)) for what in ("slip", "play")})
        many = dice.build_many(kind, SPEC["dice"], ANY_TURN, np.random.default_rng(3), pins, n, faults, HOLE)
        for i, (magnets, side) in enumerate(many):
            alone = {k: (v if np.ndim(v) == 0 else np.asarray(v)[..., i]) for k, v in pins.items()}
            one, one_side = dice.build(kind, SPEC["dice"], ANY_TURN, np.random.default_rng(3), faults, HOLE, alone)
            assert side == one_side
            for what in ("at", "axis", "polarisation", "size", "face", "recess"):
                assert np.array_equal(getattr(magnets, what), getattr(one, what)), what
            assert (magnets.glue, magnets.proud, magnets.hand) == (one.glue, one.proud, one.hand)


def test_dice_placed_each_in_its_own_pose_are_each_placed_alone():
    """dice.place_each (a search's rows, each its own die and pose) puts every magnet where place()
    puts it for that die alone: dice of either hand, some with a magnet standing proud (the die
    rests on it, tilted or not)."""
    physics = {**ANY_TURN, "magnet": {**ANY_TURN["magnet"], "face_recess_mm": [-0.1, 0.05]}}
    rng = np.random.default_rng(4)
    made = [dice.build("black 1", SPEC["dice"], physics, rng, hole=HOLE) for _ in range(8)]
    assert {d[0].hand for d in made} == {0, 1} and any(d[0].proud[3] > 0 for d in made)
    poses = [dice.Pose(down=3, turn=float(rng.uniform(-5, 95)), dx=float(rng.uniform(-0.3, 0.3)),
                       lift=float(rng.uniform(0, 2)) * (k % 2), tilt=float(rng.uniform(0, 10)) * (k % 3 > 0),
                       tilt_to=float(rng.uniform(0, 360))) for k in range(8)]
    at, axis = dice.place_each(made, poses, (30.0, 0.0))
    m = len(made[0][0])
    for k, (die, pose) in enumerate(zip(made, poses)):
        one_at, one_axis = dice.place(die[0], die[1], pose, (30.0, 0.0))
        assert np.allclose(at[k * m:(k + 1) * m], one_at, rtol=0, atol=1e-12)
        assert np.allclose(axis[k * m:(k + 1) * m], one_axis, rtol=0, atol=1e-12)


def test_the_search_builds_each_row_s_die_as_build_would():
    """search.built's dice (built many at once, rows of the same die shared) are dice.build's for
    each row's pins: random fractions, rows repeated and rows of either hand."""
    rng = np.random.default_rng(5)
    f = rng.random((6, search.TOLERANCES))
    f[3] = f[1]
    f[4, search.GLUES + 5:] = rng.random(search.TOLERANCES - search.GLUES - 5)  # only the board moved
    f[4, :search.GLUES + 5] = f[0, :search.GLUES + 5]
    board = Board(SPEC)
    made = search.built(ANY_TURN, SPEC, "black 4", f, HOLE, 11, board.baseline, True, board.power_on_us)[0]
    faces = search.face_order(3)
    for row, (magnets, side) in zip(f, made):
        pins, i = {"die side": row[0]}, 1
        for pips in faces:
            for k in range(5):
                for what in search.MAGNET:
                    pins[(what, pips, k)] = row[i]
                    i += 1
                pins[("slip", pips, k)], pins[("play", pips, k)] = row[i:i + 2], row[i + 2:i + 4]
                i += 4
        pins.update({("glue", p): int(4 * min(g, 0.999)) for p, g in zip(faces[1:5], row[i:i + 4])})
        pins["hand"] = int(2 * min(row[i + 4], 0.999))
        one, one_side = dice.build("black 1", SPEC["dice"], ANY_TURN, np.random.default_rng(11), pins=pins, hole=HOLE)
        assert side == one_side and np.array_equal(magnets.at, one.at) and (magnets.glue, magnets.hand) == (
            one.glue, one.hand)
        assert np.array_equal(magnets.polarisation, one.polarisation)


@pytest.mark.parametrize("calibrated", [True, False])
def test_a_search_row_s_board_is_its_own_whatever_else_is_in_the_batch(calibrated):
    """search.built's board rows are one board at different tolerances: what is not searched
    (the noise in calibrating: each read's, the board's other sensors' means) is one draw for
    every row, so a row's baseline and gain are the same alone, in a batch, and at any place in
    it. Drawn per row, a search's objective moved with the batch it was scored in (issue 40: two
    seeds' seated worsts 0.4-0.5 mT apart)."""
    rng = np.random.default_rng(6)
    f = rng.random((3, search.TOLERANCES))
    board = Board(SPEC)

    def boards(rows):
        return search.built(PH, SPEC, "black 4", rows, HOLE, 11, board.baseline, calibrated, board.power_on_us)[1]

    together = boards(f[::-1])
    for k in range(3):
        alone = boards(f[k:k + 1])
        assert np.array_equal(together.baseline[2 - k], alone.baseline[0])
        assert np.array_equal(together.gain[2 - k], alone.gain[0])


def _seated_worst(name, seed=1):
    """A seated die's searched worst (mT) at the tolerances' corners: a small search (200 starts,
    4 rounds, 3 passes to the corners), a few seconds of one core."""
    reader = Reader(Board(SPEC))
    family = search.families(PH)["seated"]
    m, _ = search.worst(reader, None, None, name, None, family, np.random.default_rng(seed),
                        tolerances=(SPEC, HOLE, True), starts=200, rounds=4, corners=3)
    return m / Campaign(SPEC).per_mT


@pytest.mark.parametrize("hand", [0, 1])
@pytest.mark.parametrize("kind", ["white blocker", "black blocker"])
def test_the_sheet_turns_a_blocker_s_faces_so_no_side_magnet_is_over_an_empty_place(kind, hand):
    """board.json physics.magnet.toward pairs a blocker's faces (1-2, 3-6, 4-5), each face's N
    towards its partner: at every edge both faces have a ring magnet or neither, on a blank
    numbered either way round. So with any face down, the side magnets near the floor sit over
    the face down's own ring magnet (of the same pole: its reading a few mT weaker), never over
    an empty ring place (issue 40: there they read 17 mT of the other pole, unsettled)."""
    magnets, side = dice.build(kind, SPEC["dice"], PH, pins={"hand": hand})
    ring = [(at, pips) for at, pips, k in zip(magnets.at, magnets.face, range(len(magnets)))
            if np.linalg.norm(at) > side / 2]  # off a face's centre: a ring magnet
    assert len(ring) == 6
    edges = {tuple(np.sign(np.round(at, 3)) * (np.abs(at) > 1)) for at, _ in ring}
    assert len(edges) == 3  # six ring magnets at three edges, two by two
    for down in range(1, 7):
        at, _ = dice.place(magnets, side, dice.Pose(down=down))
        low = at[(magnets.face != down) & (at[:, 2] < side / 2) & (np.linalg.norm(at[:, :2], axis=1) > 3)]
        own = at[(magnets.face == down) & (np.linalg.norm(at[:, :2], axis=1) > 3)]
        for x, y, _ in low:  # every side magnet in the lower half is over the face down's ring magnet
            assert np.min(np.hypot(own[:, 0] - x, own[:, 1] - y)) < 4.0, (down, (x, y))


@pytest.mark.parametrize("name", ["white blocker", "black blocker"])
def test_a_seated_blocker_reads_right_at_the_tolerances_corners(name):
    """Issue 40's finding: a blocker built legally, every side face's magnet glued toward the face
    down, at the tolerances' corners: its side magnets near the floor read several mT of the
    other pole at the ring sensors where its code has no magnet, and the square stays unsettled.
    Searched so, the board file of issue 40's start read -0.21 mT (white, seeds 1 and 2) and
    -0.69 mT (black). Glued as the sheet says (above), at least +1.5 mT (+7.9 to +8.3 mT, seeds 1 and 2)."""
    assert _seated_worst(name) >= 1.5


@pytest.mark.parametrize("name, seed", [("black 4", 1), ("white 2", 2)])
def test_a_seated_die_reads_right_at_the_tolerances_corners(name, seed):
    """The dice' worst, searched small, each with the seed that found it: glued at any quarter turn
    (the board file before the numbered dice's rule, d07a118), a seated black 4 (-+-0-) read right
    by only +0.10 mT, its empty ring place reading 18.3 mT of the other pole (the side faces'
    magnets near the floor) against absent_opposite_below's 18.4, and a white 2 (++-+0) by +0.89.
    Glued as the sheet's rule says (board.json physics.magnet.toward "black", "white"), no side
    magnet near the floor is over their empty place: searched deeper (search.deep, seed 1), +4.21
    and +3.22 mT."""
    assert _seated_worst(name, seed) >= 1.5


@pytest.mark.parametrize("hand", [0, 1])
@pytest.mark.parametrize("name", ["black 4", "white 2"])
def test_the_sheet_turns_a_die_s_faces_so_no_side_magnet_is_over_black_4_s_or_white_2_s_empty_place(name, hand):
    """board.json physics.magnet.toward "white" and "black" (doce_host.physics.glue's best rule):
    seated as the two faces nearest not reading right when glued at any turn (issue 40), every
    side magnet in the lower half of the die is over a ring magnet of the face down, on a blank
    numbered either way round."""
    down = 7 - int(name.split()[1])
    magnets, side = dice.build(name.split()[0] + " 1", SPEC["dice"], PH, pins={"hand": hand})
    at, _ = dice.place(magnets, side, dice.Pose(down=down))
    ring = np.linalg.norm(at[:, :2], axis=1) > 3
    low = at[(magnets.face != down) & (at[:, 2] < side / 2) & ring]
    own = at[(magnets.face == down) & ring]
    assert len(low)
    for x, y, _ in low:
        assert np.min(np.hypot(own[:, 0] - x, own[:, 1] - y)) < 4.0, (down, (x, y))


@pytest.mark.parametrize("hand", [0, 1])
def test_the_sheet_turns_white_s_faces_so_every_side_magnet_by_white_5_s_magnets_adds_to_them(hand):
    """White 5 (+++++) has a magnet at every ring place, each read against present_above: a side
    magnet near the floor reads at the sensor under it the pole opposite to the one it shows, so
    over white 5's '+' magnets the rule puts only magnets showing '-' (search.deep, seed 1: +5.94
    mT, where the screen's best rule of 8c93f9d left +0.34, its side magnet of face 1 showing '+')."""
    magnets, side = dice.build("white 1", SPEC["dice"], PH, pins={"hand": hand})
    at, _ = dice.place(magnets, side, dice.Pose(down=2))
    ring = np.linalg.norm(at[:, :2], axis=1) > 3
    low = (magnets.face != 2) & (at[:, 2] < side / 2) & ring
    assert low.sum() >= 3
    assert (magnets.polarisation[low] > 0).all()  # north out: reads '-' over its own face, '+' here


@pytest.mark.parametrize("colour", ["white", "black"])
def test_the_sheet_glues_each_colour_s_dice_by_a_rule_near_the_best_screened(colour):
    """Of the 4,096 rules (each face's N towards one of its four neighbours), glue.py's screen
    puts board.json's within 1 mT of the best smallest seated margin (white 8.32 against 9.01,
    black 8.76 against 9.36), and the turn matters: the worst rule's is 5.25 and 5.12. It is the
    screen's best with one face turned (white's 1, black's 5) so that more side magnets add to
    white 5's and black 6's (a magnet at every ring place): searched at the corners (search.deep,
    seed 1) +5.94 and +1.86 mT, where the screen's best left +0.34 and +1.20."""
    every = glue.rules()
    m = glue.screened(SPEC, colour, every).min(1)
    ours = every.index({int(f): v for f, v in PH["magnet"]["toward"][colour].items()})
    assert m.max() - 1 < m[ours] and m.min() + 3 < m[ours]


def test_a_weak_or_sunk_magnet_is_a_fault_a_die_may_be_built_with():
    """dice.build's faults ('weak', fraction of its remanence) and ('sunk', mm deeper than flush):
    only that magnet changes, its strength or its depth (issue 40's misbuilt dice)."""
    pins = {("remanence", 6, 2): 0.5}
    right, _ = dice.build("white 1", SPEC["dice"], PH, pins=pins)
    weak, _ = dice.build("white 1", SPEC["dice"], PH, pins=pins, faults=[(6, 2, ("weak", 0.4))])
    sunk, _ = dice.build("white 1", SPEC["dice"], PH, pins=pins, faults=[(6, 2, ("sunk", 0.5))])
    i = next(j for j, (f, at) in enumerate(zip(right.face, right.at)) if f == 6 and at[0] > 3)  # face 6's E
    ratio = weak.polarisation / right.polarisation
    assert ratio[i] == pytest.approx(0.4) and np.delete(ratio, i) == pytest.approx(1.0)
    assert sunk.recess[i] - right.recess[i] == pytest.approx(0.5)
    assert sunk.at[i][2] == pytest.approx(right.at[i][2] + 0.5)
    assert np.array_equal(np.delete(sunk.at, i, 0), np.delete(right.at, i, 0))


def test_the_campaign_says_how_far_two_passes_of_its_searches_differ():
    """campaign.Campaign.repeatability: the largest difference between two passes' worsts, and
    the report prints it."""
    import io
    campaign = Campaign(SPEC, seed=0)
    mt = campaign.per_mT
    assert campaign.repeatability() == (None, None)
    campaign.passes = {"seated, calibrated": [2.0 * mt, 2.2 * mt], "held low": [1.5 * mt, 1.6 * mt]}
    gap, family = campaign.repeatability()
    assert gap == pytest.approx(0.2) and family == "seated, calibrated"
    out = io.StringIO()
    campaign.report(out)
    assert "repeatability: 2 passes" in out.getvalue() and "within 0.20 mT (at most, seated, calibrated)" in \
        out.getvalue()


@functools.lru_cache(maxsize=None)
def _aimed_from_the_play_s_corners(name, sensor, hand, seed):
    """search.cornered's search for one sensor and hand of die (mT); minutes of one core, so kept."""
    m, _ = search.worst(Reader(Board(SPEC)), None, None, name, None, search.families(PH)["seated"],
                        np.random.default_rng(seed), tolerances=(SPEC, HOLE, True), sensor=sensor, turn=0,
                        fixed={search.GLUES + 4: float(hand)}, pose_corners=search.SEATED_CORNERS, polish=1)
    return m / Campaign(SPEC).per_mT


def test_a_seated_search_from_the_corners_of_the_die_s_room_repeats():
    """Issue 40: two seeds must agree within 0.3 mT. Black 6's weakest magnet (W, die of hand 0),
    searched from random starts (search.SEATED's 1,000 starts, 6 rounds, 8 passes to the corners)
    read +2.20 and +1.79 mT (seeds 1 and 2, at a pose no well allows, see below): each start fell
    into the basin it began in, a magnet slipped, played and pushed one way or the other, which
    no tolerance moved alone leaves. From every corner of the die's room it reads +2.74 and +2.75 (the
    noise in calibrating one draw for every row searched; drawn per row, +2.71 and +2.78)."""
    found = [_aimed_from_the_play_s_corners("black 6", 4, 0, seed) for seed in (1, 2)]
    assert max(found) - min(found) < 0.3, found


def test_make_physics_searches_every_seated_family_from_the_corners_of_the_die_s_room(monkeypatch):
    """campaign (make physics) and tune search each piece's worst with search.deep: a seated
    family's (calibrated, out of the box, never calibrated, built wrong) is cornered()'s, whose
    two seeds agree, not five searches from random starts, which did not."""
    calls = []
    monkeypatch.setattr(search, "cornered", lambda *a, **k: calls.append(a[2]) or (0.0, (None, None)))
    fams = search.families(PH)
    for name in ("seated", "seated, built wrong"):
        assert search.deep(None, "white 1", fams[name], np.random.default_rng(0), (SPEC, HOLE, True)) == (0.0,
                                                                                                         (None, None))
    assert calls == [fams["seated"], fams["seated, built wrong"]]


def test_a_die_built_wrong_is_worst_where_it_reads_right_by_the_most(monkeypatch):
    """cornered() pools its ten searches by the family's worst: the smallest margin to reading
    right for a die built right, the largest for one built wrong (it passes the dice check)."""
    margins = iter([3.0, -1.0, 5.0, 2.0, 0.5] * 4)
    monkeypatch.setattr(search, "worst", lambda *a, **k: (lambda m: (m, ("pose", m)))(next(margins)))
    fams = search.families(PH)
    assert search.cornered(None, "white 1", fams["seated"], None, None)[0] == -1.0
    assert search.cornered(None, "white 1", fams["seated, built wrong"], None, None)[0] == 5.0


def test_a_seated_black_6_reads_right_by_1_5_mT_at_the_tolerances_corners():
    """Issue 40's goal for every seated die, for the die the searches found thinnest: its five
    magnets of one pole weaken each other's readings, and its weakest (W, hand 0) reads least:
    +2.74 mT (seed 1). At the pose the seated search once allowed and no well does (offset 0.3 mm
    both ways and turned 1.75 degrees at once) it read +1.17."""
    assert _aimed_from_the_play_s_corners("black 6", 4, 0, 1) >= 1.5


def test_the_seated_search_puts_a_die_only_where_the_walls_let_it_sit():
    """A die turned as far as the widest well lets it has no room left to slide; the seated search
    once took the offsets and the turn each to its end at once (0.3 mm both ways, turned 1.75
    degrees), where black 6 read +1.17 mT: a pose no well allows. Every corner of the search's
    pose parameters, for the narrowest and the widest die, is a pose that fits, and the most
    offset and the most turn are still reached."""
    from dataclasses import replace
    from doce_host.physics import poses
    family = search.families(PH)["seated"]
    offset, twist = poses.well_play(PH)
    reached = set()
    for side in (0.0, 1.0):
        die = dice.build("black 6", SPEC["dice"], PH, pins={"die side": side})
        for corner in np.ndindex(2, 2, 3):
            p = np.array([corner[0], corner[1], corner[2] - 1, 0.0])
            pose = family.make(PH, 1, 90, p, die)
            room = poses.well_room(PH, replace(pose, dx=0.0, dy=0.0), die[1])
            assert room is not None, (side, p)
            (x0, x1), (y0, y1) = room
            assert x0 - 1e-6 <= pose.dx <= x1 + 1e-6 and y0 - 1e-6 <= pose.dy <= y1 + 1e-6, (side, p, pose, room)
            reached.add((round(abs(pose.dx), 3), round(abs(pose.turn - 90), 3)))
    assert (round(offset, 3), 0.0) in reached and (0.0, round(twist, 3)) in reached
