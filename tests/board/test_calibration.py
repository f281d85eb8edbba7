"""Calibration: measured on an empty board, kept on the board, refused when it can't be right."""

from hands import events


def test_calibration_is_measured_stored_and_used_after_a_reboot(sim):
    sim.command(do="noise", level=900)
    assert sim.command(do="calibrate")["error"] is None
    sim.restart()
    assert not any(e["event"] == "warning" for e in events(sim))
    sim.place("c3", "white 4")
    assert events(sim, "placed")


def test_calibration_refuses_a_board_with_a_die_on_it(sim):
    sim.place("b2", "black 5")
    error = sim.command(do="calibrate")["error"]
    assert error == "square b2 is not empty, or its C sensor is faulty"


def test_calibration_refuses_a_board_too_noisy_to_read(sim):
    sim.command(do="noise", level=2500)
    assert "too noisy to read" in sim.command(do="calibrate")["error"]


def test_a_damaged_calibration_file_is_reported_and_nominal_values_used(tmp_path):
    import json

    from doce.board import Board
    from doce.calibration import Calibration
    from doce_host.paths import BOARD_FILE
    board = Board(json.loads(BOARD_FILE.read_text()))
    cal = Calibration(board)
    cal.baseline[7] = 30000
    cal.save(str(tmp_path / "calibration.bin"))
    again = Calibration(board)
    assert again.load(str(tmp_path / "calibration.bin")) is None and again.baseline[7] == 30000
    data = bytearray((tmp_path / "calibration.bin").read_bytes())
    data[20] ^= 1
    (tmp_path / "calibration.bin").write_bytes(data)
    damaged = Calibration(board)
    assert "damaged" in damaged.load(str(tmp_path / "calibration.bin"))
    assert damaged.baseline[7] == board.baseline and not damaged.measured
