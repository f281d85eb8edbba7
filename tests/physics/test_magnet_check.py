"""The magnet check (issue 40): each magnet alone in a printed cup on the check square's centre
sensor, against its batch's median of the same face down (board.json mechanics.magnet_check;
the model in doce_host/physics/magnet_check.py). Searched over the board's tolerances, every
magnet corner enumerated: no right magnet is refused, a magnet at refused_under_percent of
its remanence or weaker never passes (the issue's 44 % and 46 % magnets among them), and the
check's figures in board.json are the model's."""

import json

import numpy as np
import pytest

from doce_host.paths import BOARD_FILE
from doce_host.physics import magnet_check as mc

SPEC = json.loads(BOARD_FILE.read_text())
CHECK = SPEC["mechanics"]["magnet_check"]
KEEP = CHECK["keep_percent"] / 100
SMALL = {"starts": 2, "passes": 2}  # a small search: every corner of the magnet, the board's searched
NOMINAL = np.full((1, len(mc.BOARD)), 0.5)


@pytest.fixture(scope="module")
def least():
    return mc.search(lambda b, sp: mc.extremes(b, sp)[0], SPEC, np.random.default_rng(5), **SMALL)[0]


def test_no_right_magnet_is_refused(least):
    """The weakest right magnet against a batch of the strongest, read the same face down, at
    the searched worst board, less a read's noise on it and on the median: still over the line."""
    worst, at = mc.search(mc.spread, SPEC, np.random.default_rng(3), **SMALL)
    assert worst - mc.noise(SPEC, least) - mc.MARGIN >= KEEP, (worst, at.round(2).tolist())
    assert (1 + mc.noise(SPEC, least)) / worst <= CHECK["most_percent"] / 100  # nor refused as two magnets


# The issue's black 4 magnet at 46 % (hm3: it could pass at 5 and 8 steps: 0.671 with the noise at 0.018) and
# black 3 at 44 %. With 8 and 8 steps (hm5) the noise is 0.0158 of the least level and a magnet at 46 % reads
# up to 0.6591 of a batch of the weakest, 0.6695 with the noise (seeds 1 and 2, 6 starts: magnet_check's main).
ISSUE = (0.46, 0.44)


@pytest.mark.parametrize("strength", sorted({CHECK["refused_under_percent"] / 100, *ISSUE}))
def test_a_weak_magnet_is_always_refused(strength, least):
    """A magnet at `strength` of its remanence, at its strongest corner and pose, against a batch
    of the weakest right magnets, at the searched board where it reads most, noise lifting it and
    lowering the median: under the line. The issue's black 3 at 44 % and black 4 at 46 %."""
    most, at = mc.search(lambda b, sp: -mc.weak_passes(b, sp, strength), SPEC, np.random.default_rng(4), **SMALL)
    assert -most * (1 + mc.noise(SPEC, least)) < KEEP, (-most, at.round(2).tolist())


def test_the_batch_s_median_must_be_a_right_magnet_s_on_this_board(least):
    """board.json level_range holds every right magnet's level at the searched corners, noise
    allowed: a batch whose median is outside it is all weak, or of another size."""
    most = -mc.search(lambda b, sp: -mc.extremes(b, sp)[1], SPEC, np.random.default_rng(6), **SMALL)[0]
    low, high = CHECK["level_range"]
    allow = mc.noise(SPEC, least)
    assert least * (1 - 2 * allow) <= low <= least * (1 - allow)
    assert most * (1 + allow) <= high <= most * (1 + 2 * allow)


def test_a_full_magnet_stays_inside_the_sensor_s_linear_range():
    """At the cup's height the strongest magnet at the steepest board reads well inside the
    DRV5055's linear range, so a weak magnet's level is its field's share."""
    strongest = -mc.search(mc.strongest_field, SPEC, np.random.default_rng(7), **SMALL)[0]
    linear = ((SPEC["physics"]["rail"]["regulator_V"][0] - 0.2 - max(SPEC["physics"]["sensor"]["quiescent_V"]))
              * 1000 / SPEC["physics"]["sensor"]["sensitivity_mV_per_mT"][1])
    assert strongest < 0.6 * linear


def test_a_magnet_s_face_down_gives_its_sign():
    up, down = [mc.fields(SPEC, NOMINAL, np.array([[0.5, 0.5, 0.5, 0, 0.5, f]]))[0, 0] for f in (0, 1)]
    assert up > 0 > down and abs(up + down) < 1e-9


def test_the_simulator_s_lone_magnet_reads_the_model_s_field():
    """sim.fields.Scene's cup (doce dice magnets on the simulator) against this model, nominal."""
    from doce_host.sim.fields import Scene
    scene = Scene(SPEC, seed=None)
    channel = SPEC["squares"]["c3"][0]
    scene.cups["c3"] = (1.0, "S")
    sim = scene.field()[scene.present.index(channel)]
    assert sim == pytest.approx(mc.fields(SPEC, NOMINAL, np.array([[0.5, 0.5, 0.5, 0, 0.5, 0]]))[0, 0], abs=0.02)



def test_a_board_s_magnets_are_read_on_one_board():
    """Every magnet of a board row is read with that board's one baseline and gain: the ratio of two
    magnets' levels is the same for the same board wherever it sits in a search's batch. Each magnet
    on a reading.Boards row of its own (its median from other sensors drawn per row) gave up to
    0.7200 against 0.7064 for a magnet at 50 % on one board, by its place in the batch."""
    r = mc.levels(SPEC, np.repeat(NOMINAL, 8, axis=0), mc.MAGNET_CORNERS)
    ratio = r / r[:, :1]
    assert np.abs(ratio - ratio[0]).max() < 1e-9
    assert mc.weak_passes(np.repeat(NOMINAL, 8, axis=0), SPEC, 0.5).std() < 1e-9

DEEP = np.ones((1, len(mc.BOARD)))  # every depth at its most: the weakest field, where a lift costs most


def test_a_magnet_tilted_on_a_burr_rests_on_its_edge():
    """r40m finding 2: a magnet tilted TILT_DEG on a burr turns about the edge still on the floor, so
    its centre rises d/2 sin(tilt): some 4 % less field on the deepest board, not the 0.08 % of a
    turn about its own centre. Both ways of tilting read alike."""
    flat, left, right = (mc.fields(SPEC, DEEP, np.array([[0, 0, 0, 0, t, 0]]))[0, 0] for t in (0.5, 0, 1))
    assert 0.94 < right / flat < 0.98 and right == pytest.approx(left, rel=0.01)


def test_the_sensor_s_place_under_the_well_is_searched():
    """r40m finding 8: the centre sensor off its well's centre (SENSOR_OFF_MM: the screws' play in the
    PCB's and the well sheet's holes, the part on its pad, the element in its package) is a board
    tolerance: the spread at a board with it is worse than at the same board with the sensor centred."""
    centred, off = NOMINAL.copy(), NOMINAL.copy()
    centred[0, mc.BOARD.index("sensor off")], off[0, mc.BOARD.index("sensor off")] = 0, 1
    assert mc.spread(off, SPEC)[0] < mc.spread(centred, SPEC)[0] - 0.01


def test_two_right_magnets_stuck_together_read_over_most_percent():
    """r40m finding 4: a second magnet snapped onto the first (the pocket is shallower than a magnet,
    so it stands whole over the cup) reads about 1.5 times one: over most_percent of a nominal batch."""
    from doce_host.physics import dice
    ph = SPEC["physics"]
    m = ph["magnet"]
    d, h, br = m["diameter_mm"], m["height_mm"], np.mean(m["remanence_mT"])
    depth = ph["floor_mm"][0] + ph["air_mm"][0] + ph["sensor"]["hall_depth_mm"][0]
    one = lambda k: dice.bz_pairs(np.array([[0, 0, CHECK["cup_floor_mm"] + h / 2 + k * h]]),  # noqa: E731
                                  np.array([[0, 0, 1.0]]), np.array([br]), np.array([[d, h]]),
                                  np.array([[[0, 0, -depth]]]))[0, 0]
    assert (one(0) + one(1)) / one(0) > CHECK["most_percent"] / 100 * 1.03


# The board of magnet_check.lowest (every sensor's empty reading at its lowest: the most counts of noise
# at the board file's gain), as a row of mc.BOARD; its gain here is its median's, the board's other 120
# sensors drawn (reading.Boards), so a little over lowest()'s.
LOWEST = np.full(len(mc.BOARD), 0.5)
for _name, _f in (("quiescent", 0), ("vref", 1), ("supply", 0), ("switch drop", 1)):
    LOWEST[mc.BOARD.index(_name)] = _f
FIELD_MT = 9.0  # the centre sensor's field, some 5,900 counts: near the least right magnet's level


def _noise_of_reads(rows=1000, reads=100):
    """Reads of the centre sensor of LOWEST by the model's own readout (reading.Boards, each read with
    its noise and supply drawn), less each row's noise-free reading: {field: its reads}, the board."""
    board = mc.boards(SPEC, np.repeat(LOWEST[None], rows, axis=0))
    out = {}
    for field in (0.0, FIELD_MT):
        bz = np.zeros((rows, 5))
        bz[:, 0] = field
        out[field] = np.stack([board.read(bz)[:, 0] for _ in range(reads)]) - board.read(bz, noise=False)[:, 0]
    return out, board


def _without(source, monkeypatch):
    """_noise_of_reads with one source of reading.Boards._noisy made nothing, every draw still taken
    (the same numbers for the rest: what is left is that source's share alone)."""
    from doce_host.physics import rail, reading, readout
    with monkeypatch.context() as m:
        if source == "adc":
            m.setattr(reading, "adc_noise", lambda ph, shape, rng, f=reading.adc_noise: 0 * f(ph, shape, rng))
        elif source == "sensor":
            m.setattr(readout, "noise_volts", lambda ph, shape, rng, f=readout.noise_volts: 0 * f(ph, shape, rng))
        else:
            m.setattr(rail, "drift", lambda ph: 0.0)
        return _noise_of_reads()[0]


def test_a_read_s_noise_counts_every_source_the_model_draws(monkeypatch):
    """magnet_check.read_sigma against the spread of the model's own reads (100,000 each, empty and at
    some 5,900 counts): within 0.6 % (the estimate's own sigma: 0.22 %); and each source's share (the
    spread less that of the same reads with it made nothing) within 10 % of read_sigma's term for it:
    the ADC's noise, the sensor's, and the supply's drift read to read (ratiometric: more with a field).
    Without the supply read_sigma was 16-21 % under. The ADC's rounding (0.1 %) is under what this tells."""
    reads, board = _noise_of_reads()
    parts, gain = board.parts.rows([0]), float(board.gain[0, 0])
    levels = {f: float(board.read(np.array([[f, 0, 0, 0, 0]]), rows=np.arange(1), noise=False)[0, 0]
                       - board.read(np.zeros((1, 5)), rows=np.arange(1), noise=False)[0, 0]) for f in reads}
    for field, got in reads.items():
        assert mc.read_sigma(SPEC, levels[field], parts, gain) == pytest.approx(got.std(), rel=0.006), field
    for source in ("adc", "sensor", "supply"):
        left = _without(source, monkeypatch)
        for field, got in reads.items():
            share = got.var() - left[field].var()
            term = mc.read_sigma(SPEC, levels[field], parts, gain) ** 2 - mc.read_sigma(
                SPEC, levels[field], parts, gain, leave=(source,)) ** 2
            assert term == pytest.approx(share, rel=0.1), (source, field, np.sqrt(max(share, 0)), np.sqrt(term))


def test_a_level_s_noise_is_that_of_the_command_s_reads():
    """magnet_check.level_sigma against 2,000 levels read as doce dice magnets reads them (the mean of
    steady_reads steps of 32 reads at the field, less the empty cup's of empty_reads), by the model's
    own readout: within 5 % (the estimate's sigma: 1.6 %); without the supply's drift it was 21 % under."""
    rows = 2000
    board = mc.boards(SPEC, np.repeat(LOWEST[None], rows, axis=0))
    bz, empty = np.zeros((rows, 5)), np.zeros((rows, 5))
    bz[:, 0] = FIELD_MT

    def steps(field, n):
        return sum(board.read(field)[:, 0] for _ in range(n * mc.READS)) / (n * mc.READS)
    got = steps(bz, CHECK["steady_reads"]) - steps(empty, CHECK["empty_reads"])
    got -= board.read(bz, noise=False)[:, 0] - board.read(empty, noise=False)[:, 0]
    level = float(board.read(bz[:1], rows=np.arange(1), noise=False)[0, 0])
    sigma = mc.level_sigma(SPEC, level, board.parts.rows([0]), float(board.gain[0, 0]))
    assert sigma == pytest.approx(got.std(), rel=0.05)


def test_the_check_s_noise_is_at_the_board_noisiest_at_its_gain():
    """noise() takes lowest(): no board row searched reads its empty sensors lower (a smaller gain, so
    more counts of noise at the board file's gain), and at lowest() a level's noise is over that of
    the nominal board's."""
    parts, gain = mc.lowest(SPEC)
    rows = np.array([np.zeros(len(mc.BOARD)), np.ones(len(mc.BOARD)), NOMINAL[0], LOWEST])
    assert gain <= mc.boards(SPEC, rows).gain.min()
    nominal = mc.boards(SPEC, NOMINAL)
    at = mc.level_sigma(SPEC, 5350, nominal.parts.rows([0]), float(nominal.gain[0, 0]))
    assert mc.noise(SPEC, 5350) == pytest.approx(6 * mc.level_sigma(SPEC, 5350, parts, gain) / 5350)
    assert mc.noise(SPEC, 5350) > 6 * at / 5350
