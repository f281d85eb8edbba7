"""A board never calibrated calibrates itself at its first empty board, before its first round
(firmware/doce/app.py): no piece is ever read on one median baseline for every sensor."""

import os

import fakes


def spread_board(**kw):
    """A board whose sensors sit anywhere within the DRV5055's spread, on a chip reading low."""
    return fakes.FakeSensors(fakes.board(), offset=-2000, **kw)


def worst_sensor(sensors):
    """(cell, channel) of the square centre furthest below the board's median quiescent level."""
    from doce.squares import square_name
    b = sensors.board
    centres = [b.square_channels[sq * 5] for sq in range(b.squares)]
    levels = sorted(sensors.quiescent[ch] for ch in centres)
    median = levels[len(levels) // 2]
    ch = min(centres, key=lambda c: sensors.quiescent[c] - median)
    return square_name(b.grid, b.square_of_channel[ch]), median - sensors.quiescent[ch]


def test_a_die_put_down_before_the_board_was_ever_empty_is_not_played(tmp_path):
    sensors = spread_board()
    sensors.place("c3", "white 4")
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    assert rig.take("placed") == [] and rig.take("round_start") == []
    assert rig.app.controller.mode == "clearing"
    assert not rig.app.calibration.measured and not (tmp_path / "calibration.bin").exists()
    sensors.place("b2", "black 3")
    rig.settle()
    happened = rig.take()
    assert [e for e in happened if e["event"] == "placed"] == []
    assert {"event": "clearing", "left": 2, "cells": ["b2", "c3"]} in happened
    assert not rig.app.calibration.measured


def test_once_cleared_it_calibrates_then_reads_a_weak_die_on_its_worst_sensor(tmp_path):
    sensors = spread_board(noise=100)
    cell, low = worst_sensor(sensors)
    assert low > 1000  # a sensor well below the median: on one baseline it would lose that much
    sensors.place(cell, "white 4")
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    sensors.lift(cell)
    rig.settle()
    happened = rig.take()
    kinds = [e["event"] for e in happened]
    assert kinds.index("calibrated") < kinds.index("round_start")
    assert {"event": "calibrated", "error": None} in happened
    assert rig.app.calibration.measured and (tmp_path / "calibration.bin").exists()
    assert len(set(rig.app.calibration.baseline)) > 1  # per sensor, not one median
    # Just above the threshold by less than the sensor's distance from the median: read right only
    # from its own baseline (on the median, its centre magnet would read 'between').
    weak = sensors.board.present_above + 2 * sensors.noise + 200
    assert weak - low < sensors.board.present_above
    sensors.place(cell, "white 5", signal=weak)
    rig.settle()
    assert rig.take("placed") == [{"event": "placed", "player": "white", "cell": cell, "value": 5}]


def test_every_piece_reads_right_on_the_worst_sensor_of_a_self_calibrated_board(tmp_path):
    """Every piece at every quarter turn, its magnets only a little above the threshold, on the
    square whose centre sits furthest from the board's median: read from its own baselines."""
    from doce.squares import parse_square
    from doce.squares import piece as piece_value
    sensors = spread_board(noise=100)
    cell, low = worst_sensor(sensors)
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    assert rig.take("calibrated") == [{"event": "calibrated", "error": None}]
    sq = parse_square(sensors.board.grid, cell)
    weak = sensors.board.present_above + 2 * sensors.noise + 200  # less than the centre's distance above it
    assert low > weak - sensors.board.present_above
    for name in sorted(set(sensors.board.dice.values())):
        for turn in range(4):
            sensors.place(cell, name, turn=turn, signal=weak)
            rig.settle()
            assert rig.app.scanner.settled[sq] == piece_value(name), (name, turn)
            sensors.lift(cell)
            rig.settle()


def test_it_calibrates_once_and_keeps_it_through_a_power_cut(tmp_path):
    sensors = spread_board()
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    assert rig.take("calibrated") == [{"event": "calibrated", "error": None}]
    stored = (tmp_path / "calibration.bin").read_bytes()
    baseline = list(rig.app.calibration.baseline)
    sensors.place("c3", "white 4")
    rig.settle()
    sensors.lift("c3")
    rig.settle()  # lifted mid-round: a problem, not a new calibration
    assert rig.take("calibrated") == []
    again = fakes.Rig(tmp_path, sensors)  # the power comes back
    again.settle()
    assert again.app.calibration.measured and list(again.app.calibration.baseline) == baseline
    assert again.take("calibrated") == [] and (tmp_path / "calibration.bin").read_bytes() == stored


def test_a_die_on_the_board_at_boot_is_never_calibrated_away(tmp_path):
    sensors = spread_board()
    sensors.place("d4", "black blocker")
    rig = fakes.Rig(tmp_path, sensors)
    for _ in range(5):
        rig.settle()
    assert not rig.app.calibration.measured and rig.take("calibrated") == []
    assert not (tmp_path / "calibration.bin").exists()
    sensors.lift("d4")
    rig.settle()
    assert rig.take("calibrated") == [{"event": "calibrated", "error": None}]
    centre = sensors.channels("d4")[0]
    assert abs(rig.app.calibration.baseline[centre] - sensors.quiescent[centre]) < 2 * sensors.noise


def test_a_failed_self_calibration_warns_once_waits_and_tries_again(tmp_path):
    from doce.app import SELF_CALIBRATE_RETRY_MS
    # reads empty, but too noisy to calibrate on: three spans of +-noise reach present_above
    sensors = spread_board(noise=fakes.board().present_above // 6 + 500)
    rig = fakes.Rig(tmp_path, sensors)
    retry = SELF_CALIBRATE_RETRY_MS // sensors.board.scan_period_ms + 1
    rig.settle()
    rig.run(3 * retry)  # three more tries
    warnings = rig.take("warning")
    assert len(warnings) == 1 and "too noisy to read" in warnings[0]["message"]
    assert "empty" in warnings[0]["message"]
    assert rig.app.controller.mode == "clearing" and not rig.app.calibration.measured
    sensors.noise = 250
    rig.run(retry)
    happened = rig.take()
    assert {"event": "calibrated", "error": None} in happened and "round_start" in [e["event"] for e in happened]
    assert rig.app.calibration.measured and os.path.exists(tmp_path / "calibration.bin")


def test_a_round_in_play_on_a_board_that_lost_its_calibration_waits_and_loses_nothing(tmp_path):
    sensors = spread_board()
    rig = fakes.Rig(tmp_path, sensors)
    rig.settle()
    sensors.place("c3", "white 4")
    rig.settle()
    assert rig.take("placed")
    os.remove(tmp_path / "calibration.bin")
    again = fakes.Rig(tmp_path, sensors)  # the file is gone: a piece is on the board
    again.settle()
    assert again.take("placed") == [] and not again.app.calibration.measured
    sensors.lift("c3")
    again.settle()
    happened = again.take()
    assert {"event": "calibrated", "error": None} in happened
    assert {"event": "illegal", "reason": "lifted", "cells": ["c3"]} in happened  # put it back
    sensors.place("c3", "white 4")
    again.settle()
    assert again.app.controller.mode == "playing" and again.app.controller.game.board[12]
