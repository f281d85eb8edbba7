"""Calibration on simulated chips: every board the model can build calibrates, whatever
its ADC's offset and gain and its sensors' quiescent outputs, and a failed sensor is named."""

import numpy as np
import pytest

from doce_host.sim import SimBoard
from doce_host.sim.hands import Hands

SEEDS = (30, 29, 44, 11, 13, 25)  # chips from the low end of the spread to the high


def test_the_seeds_span_the_adc_spread():
    """The boards below differ as ESP32s do: half the supply reads 27,460-32,950 chip to chip
    (ESP-IDF's line for Vref 1000-1200 mV), and their medians span most of that."""
    medians = [np.median(Hands(seed).levels()[:125]) for seed in SEEDS]
    assert min(medians) < 28_000 and max(medians) > 31_500


@pytest.mark.parametrize("seed", SEEDS)
def test_every_board_built_within_tolerance_calibrates_and_reads(tmp_path, seed):
    with SimBoard(tmp_path, seed=seed) as sim:
        assert sim.command(do="calibrate")["error"] is None
        sim.place("c3", "white 4")
        sim.place("a1", "black blocker")
        state = sim.state()
        assert state["problems"] == {} and state["board"] == {"c3": "white 4", "a1": "black blocker"}


@pytest.mark.parametrize("which", ["C", "W"])
def test_a_dead_sensor_is_named(tmp_path, which):
    with SimBoard(tmp_path, seed=2) as sim:
        sim.break_sensor("d2", which)
        error = sim.command(do="calibrate")["error"]
        assert error and "d2" in error and which in error
