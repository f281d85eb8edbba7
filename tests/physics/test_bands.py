"""The dice check's bands (host/doce_host/physics/bands.py, `make bands`): how a place's searched
least reading becomes its band in board.json, and that writing them back changes nothing else."""

import json

from doce_host.paths import BOARD_FILE
from doce_host.physics import bands, dice
from doce_host.physics.campaign import Campaign

SPEC = json.loads(BOARD_FILE.read_text())
PER_MT = Campaign(SPEC).per_mT
CODES = dice.codes_by_piece(SPEC["dice"])


def leasts(counts):
    return {(name, k): counts for name, code in CODES.items() for k, c in enumerate(code) if c != "0"}


def test_a_band_is_the_least_less_the_allowance_rounded_down_never_under_present_above():
    least = 30 * PER_MT
    out = bands.bands(SPEC, leasts(least), PER_MT)
    want = int((least - bands.ALLOW_MT * PER_MT) // bands.ROUND * bands.ROUND)
    assert want <= least - bands.ALLOW_MT * PER_MT < want + bands.ROUND
    for code, five in out.items():
        assert five == [want if c != "0" else 0 for c in code], code
    low = bands.bands(SPEC, leasts(SPEC["sensing"]["present_above"]), PER_MT)
    assert all(n in (0, SPEC["sensing"]["present_above"]) for five in low.values() for n in five)


def test_a_ring_of_one_pole_takes_its_ring_s_least_at_every_ring_place():
    found = leasts(30 * PER_MT)
    found[("black 6", 3)] = 27 * PER_MT  # -----: any ring magnet reads at any ring sensor as the die turns
    found[("white 1", 2)] = 27 * PER_MT  # +++-0: each ring place its own
    out = bands.bands(SPEC, found, PER_MT)
    ring = out[CODES["black 6"]][1:]
    assert len(set(ring)) == 1 and ring[0] < out[CODES["black 6"]][0]
    w1 = out[CODES["white 1"]]
    assert w1[2] < w1[1] == w1[0]


def test_writing_the_board_file_s_own_bands_leaves_it_as_it_was(tmp_path):
    copy = tmp_path / "board.json"
    copy.write_text(BOARD_FILE.read_text())
    bands.write(copy, SPEC["sensing"]["check_above"])
    assert copy.read_text() == BOARD_FILE.read_text()
    changed = {code: [n + 50 if n else 0 for n in five] for code, five in SPEC["sensing"]["check_above"].items()}
    bands.write(copy, changed)
    assert json.loads(copy.read_text())["sensing"]["check_above"] == changed
