"""The power-cut campaign for remote play (tests/fleet/remote_campaign.py; issue 41), as `make test`
runs it: a whole four-round remote match with a cut at every step on both boards, at the step's
first or second flash write, torn and whole in turn, a third of them cut again as the board
recovers; both boards finish with the same whole match, every play once, and the heap after each
recovery neither runs short nor shrinks across the match, and their flash holds the match's files
and no more. The whole campaign (every write of every
step: some 1,700 cuts over 42 matches) is bench/remote_campaign.py, which `make campaign` runs."""

import json
from pathlib import Path

import pytest
from littlefs import LittleFS
from remote_campaign import RECORD, SLACK, assert_heap_holds, play, subset, summary

from doce_host import image

# What a match adds to a fresh board's files: its calibration, its journal, and the network's and
# the pairing's settings (a torn save's remote.json.new, say, left behind by a cut, would show)
MATCH_FILES = {"calibration.bin", "journal", "net.json", "remote.json"}


def flash(data):
    fs = LittleFS(block_size=image.BLOCK_SIZE, block_count=len(data) // image.BLOCK_SIZE, mount=False)
    fs.context.buffer = bytearray(data)
    fs.mount()
    return fs


def test_a_cut_at_every_step_of_a_remote_match_on_either_board_loses_nothing(tmp_path, mosquitto):
    cuts = subset()
    assert len(cuts) == 2 * 41 and len({(write, torn) for write, torn, _ in cuts.values()}) == 4
    match = play(tmp_path, mosquitto, cuts)
    print(summary(match))
    assert len(match.recoveries) >= len(cuts) // 2  # (a cut armed past a step's writes falls in the next)
    assert any(r[3] > 1 for r in match.recoveries)  # some cut again as they recovered
    assert_heap_holds(match.recoveries)
    assert_flash_holds(tmp_path)


def assert_flash_holds(folder):
    """LittleFS's OSError 28 (no space) in a reply was the dead chip's, after a cut (doce_host/sim/
    device/run.py power_gone), not a full flash: after the match's cuts each board's flash holds a
    fresh board's files and the match's, in a few blocks more than a fresh board's (52 of 512, 2 MiB;
    54 after the match, measured)."""
    fresh = flash(image.build(image.app_files("standard", chip="host")))
    for board in ("b1", "b2"):
        fs = flash((folder / board / "flash.img").read_bytes())
        assert set(fs.listdir("/")) == set(fresh.listdir("/")) | MATCH_FILES, board
        assert fs.used_block_count <= fresh.used_block_count + 8, (board, fs.used_block_count)


def recorded():
    """A match's recoveries as the campaign records them ([step, board, heap, power-ons]): int10's CI run
    of the test above (campaign_recoveries.json says where from), whose largest blocks were the luck of
    where each board's kept objects fell: 48,736 bytes whole, or 31 to 48 KB, at any step."""
    data = json.loads((Path(__file__).with_name("campaign_recoveries.json")).read_text())
    return [[step, board, {"low": low, "largest": largest, "free": free}, ons]
            for step, board, low, largest, free, ons in data["recoveries"]]


def test_the_heap_check_passes_a_match_whose_largest_blocks_were_luck():
    assert_heap_holds(recorded())  # (its upper quartiles, compared before, fell 5,104 bytes: it failed)


def test_the_heap_check_fails_a_heap_splitting_or_leaking_as_the_match_grows():
    """The same match, its largest blocks shrinking with the step (a heap splitting as the match grows,
    issue 41), or its free heap (a leak): past SLACK or RECORD by the last third, the check fails."""
    steps = max(r[0] for r in recorded())
    for key, by in (("largest", SLACK["largest"] + RECORD), ("free", RECORD + 512)):
        shrunk = recorded()
        for step, _, heap, _ in shrunk:
            heap[key] -= by * step // steps * 3 // 2
        with pytest.raises(AssertionError, match=r"^\('%s'" % key):
            assert_heap_holds(shrunk)
