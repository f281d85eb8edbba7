"""The simulator's field table (doce_host.physics.field_table) is what `make fields` makes from
magpylib today, and agrees with magpylib within its stated error wherever a sensor can be."""

import json
import math

import magpylib
import numpy as np
import pytest

from doce_host.paths import BOARD_FILE
from doce_host.physics import field_table
from doce_host.physics.field_table import ERROR_MT, MIN_GAP, R_MAX, R_MIN, Table, aspects

PH = json.loads(BOARD_FILE.read_text())["physics"]
BR = PH["magnet"]["remanence_mT"][1]  # the strongest magnet: the largest error in mT
TABLE = Table()


def magpylib_field(rho, z, aspect):
    n = len(rho)
    return np.reshape(magpylib.func.cylinder_field(
        "B", np.column_stack([rho, np.zeros(n), z]), np.tile((1.0, aspect), (n, 1)),
        np.tile((0.0, 0.0, 1.0), (n, 1)), np.zeros((n, 3)), None), (-1, 3))[:, [0, 2]]


def test_the_shipped_table_is_what_make_fields_makes_for_the_board_files_magnets():
    """A magnet of another size in board.json, or another grid here, needs `make fields`."""
    made = Table(field_table.make(PH))
    assert TABLE.aspects == pytest.approx(aspects(PH), abs=1e-12)
    assert made.aspects == TABLE.aspects
    assert np.abs(np.array(made.values) - np.array(TABLE.values)).max() < 1e-6


@pytest.mark.parametrize("aspect", np.linspace(aspects(PH)[0], aspects(PH)[2], 5))
def test_the_table_agrees_with_magpylib_within_its_stated_error(aspect):
    """At 5,000 points from R_MIN to past R_MAX (the dipole alone beyond), every angle, at least
    MIN_GAP diameters from the magnet, for every aspect the tolerances allow."""
    rng = np.random.default_rng(int(aspect * 1000))
    r = np.exp(rng.uniform(math.log(R_MIN), math.log(2 * R_MAX), 8000))
    angle = rng.uniform(0, math.pi, len(r))
    rho, z = r * np.sin(angle), r * np.cos(angle)
    keep = np.hypot(np.maximum(rho - 0.5, 0), np.maximum(np.abs(z) - aspect / 2, 0)) >= MIN_GAP
    rho, z = rho[keep][:5000], z[keep][:5000]
    got = np.array([TABLE.field(p, q, aspect) for p, q in zip(rho, z)])
    error = np.abs(got - magpylib_field(rho, z, aspect)).max() * BR
    assert error < ERROR_MT
    assert error > ERROR_MT / 10  # the bound says what the table does, not ten times more


def test_no_sensor_comes_nearer_a_magnet_than_the_table_was_checked_for():
    """A die rests on the floor, so its magnets are above it, and every hall element is under it
    by the floor, the air gap and its depth in its package, each at its least; in the widest
    magnet's diameters."""
    gap = PH["floor_mm"][0] - PH["floor_mm"][1] + PH["air_mm"][0] - PH["air_mm"][1] + \
        PH["sensor"]["hall_depth_mm"][0] - PH["sensor"]["hall_depth_mm"][1]
    assert gap / (PH["magnet"]["diameter_mm"] + PH["magnet"]["size_tol_mm"]) >= MIN_GAP
    with pytest.raises(ValueError, match="nearer than its table"):
        TABLE.field(0.1, 0.5, 0.5)
