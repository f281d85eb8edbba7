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
