"""The scan loops are viper native code on MicroPython (doce/scanner.py, doce/sensors.py) and
plain Python on CPython: both must read every placement of the physics campaign as the
campaign's own reader (doce_host.physics.decode) does, sensor by sensor, and readings drawn
about the lines the reading rule weighs a ring against its centre by (strict_gone_percent,
gone_percent) the same way too."""

import json
import os
import sys
from pathlib import Path

import numpy as np
from waiting import completed

from doce.board import NO_SQUARE, Board
from doce_host.paths import BOARD_FILE, FIRMWARE_DIR
from doce_host.physics.campaign import STATIC, Campaign
from doce_host.physics.decode import Reader
from doce_host.physics.reading import Boards

SCRIPT = Path(__file__).with_name("scan_readings.py")
SPEC = json.loads(BOARD_FILE.read_text())
BOARD = Board(SPEC)
PLACED = 40  # boards of 25 placements each
NEAR = 12  # and boards of readings drawn about the rule's lines (near_lines)
FRAMES = PLACED + NEAR


def near_lines(rng, n):
    """(n, 5) readings of every code in every turn, its magnets 15,000-30,000 counts, each empty
    ring place either the fringe (against the centre's sign, up to 45 % of it) or of the centre's
    sign within half a percent of strict_gone_percent or of gone_percent of the centre's reading."""
    from doce.board import TRITS
    codes = sorted(SPEC["dice"])
    sign = {0: 0, 1: 1, 2: -1}
    d = np.zeros((n, 5))
    for row in range(n):
        code = codes[rng.integers(len(codes))]
        turn = rng.integers(4)
        t = [sign[TRITS[c]] for c in code]
        t = t[:1] + t[1 + turn:] + t[1:1 + turn]
        d[row] = np.array(t) * rng.uniform(15000, 30000, 5)
        for i in range(1, 5):
            if t[i] == 0:
                line = BOARD.gone_percent if rng.random() < 0.25 else BOARD.strict_gone_percent
                ratio = (line + rng.uniform(-0.5, 0.5)) / 100 if rng.random() < 0.35 else -rng.uniform(0, 0.45)
                d[row, i] = t[0] * ratio * abs(d[row, 0])
    return np.rint(d)


def campaign_boards():
    """{"baseline": [...], "boards": [[raw a channel], ...]} and, for each board, the pieces and
    sensor classes the campaign's reader gives: placements of every family, one a square."""
    campaign = Campaign(SPEC, seed=7)
    families = [name for name, _ in STATIC]
    n = PLACED * BOARD.squares
    drawn = [campaign.draw(families[i % len(families)]) for i in range(n)]
    boards = Boards(SPEC["physics"], n, campaign.rng, BOARD.baseline)
    bz = campaign._fields(boards, [(i, die, [pose], around) for i, (_, die, pose, around) in enumerate(drawn)], n)
    rng = np.random.default_rng(8)
    s = SPEC["sensing"]
    baseline = s["baseline"] + rng.integers(-s["baseline_spread"], s["baseline_spread"] + 1, BOARD.channels)
    under = baseline[np.array(BOARD.square_channels)].reshape(BOARD.squares, 5)[np.arange(FRAMES * BOARD.squares)
                                                                                 % BOARD.squares]
    d = np.rint(boards.read(bz)).astype(int)  # counts at the thresholds' gain (reading.Boards)
    d = np.concatenate([d, near_lines(rng, NEAR * BOARD.squares).astype(int)])
    d = np.clip(d + under, 0, 0xFFFF) - under  # on this board's baselines, as read_u16 reads
    pieces, trits = campaign.reader.read(d)
    # the strict line decides a good share of the drawn readings each way
    free = Reader(BOARD)
    free.strict = BOARD.gone_percent
    near, without = pieces[n:], free.read(d[n:])[0]
    assert (np.isin(near, BOARD.strict)).sum() > 10 and (near != without).sum() > 10
    boards, want = [], []
    for frame in range(FRAMES):
        raw = baseline.copy()
        want_trits = [0] * BOARD.channels
        for sq in range(BOARD.squares):
            at = frame * BOARD.squares + sq
            for i in range(5):
                ch = BOARD.square_channels[sq * 5 + i]
                raw[ch] = baseline[ch] + d[at, i]
                want_trits[ch] = int(trits[at, i])
        assert raw.min() >= 0 and raw.max() <= 0xFFFF  # as read_u16 reads
        boards.append([int(v) for v in raw])
        want.append(([int(p) for p in pieces[frame * BOARD.squares:(frame + 1) * BOARD.squares]], want_trits))
    return {"baseline": [int(v) for v in baseline], "boards": boards}, want


def read(out):
    return [json.loads(line) for line in out.splitlines()]


def test_native_and_plain_loops_read_every_placement_as_the_campaign(tmp_path, micropython):
    given, want = campaign_boards()
    readings = tmp_path / "readings.json"
    readings.write_text(json.dumps(given))
    plain = completed([sys.executable, str(SCRIPT), str(BOARD_FILE), str(readings)], timeout=300,
                      env=dict(os.environ, PYTHONPATH=str(FIRMWARE_DIR)))
    assert plain.returncode == 0, plain.stderr
    native = micropython(SCRIPT, BOARD_FILE, readings, heap="1M")
    assert native.returncode == 0, native.stdout + native.stderr
    outside = [ch for ch in range(BOARD.channels) if BOARD.square_of_channel[ch] == NO_SQUARE]
    for got in (read(plain.stdout), read(native.stdout)):
        assert len(got) == FRAMES
        for (pieces, trits), (want_pieces, want_trits) in zip(got, want):
            for ch in outside:
                trits[ch] = 0  # no sensor there: whatever the scanner made of the empty input
            assert pieces == want_pieces and trits == want_trits
    assert plain.stdout == native.stdout
