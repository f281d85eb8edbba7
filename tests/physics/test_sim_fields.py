"""The simulator's hands read the magnetic model's fields (doce_host.sim.fields, plain Python, on a
player's install) exactly as the model does (doce_host.physics, numpy and magpylib): the same
magnets in the same places, the same counts from the same fields, and the same board read within
the field table's error."""

import json
import random
from dataclasses import replace

import numpy as np
import pytest

from doce_host.paths import BOARD_FILE
from doce_host.physics import dice, readout
from doce_host.physics.field_table import ERROR_MT
from doce_host.physics.geometry import Pose, layout
from doce_host.physics.scene import Scene as Model
from doce_host.physics.tolerances import Spread
from doce_host.sim import fields

SPEC = json.loads(BOARD_FILE.read_text())
PH = SPEC["physics"]
HOLE = SPEC["mechanics"]["jig"]["drill_mm"]
KINDS = ("white 1", "black 1", "white blocker", "black blocker")


def poses(rng, n):
    """Poses of every kind the hands make: seated anywhere in the well's play, leaning on an edge or
    a corner, held up, carried across."""
    out = []
    for _ in range(n):
        out.append(Pose(down=int(rng.integers(1, 7)), turn=float(rng.uniform(-180, 180)),
                        dx=float(rng.uniform(-0.3, 0.3)), dy=float(rng.uniform(-0.3, 0.3)),
                        lift=float(rng.choice([0.0, rng.uniform(0, 12)])),
                        tilt=float(rng.choice([0.0, rng.uniform(0, 30)])),
                        tilt_to=float(rng.uniform(0, 360))))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_a_pose_puts_the_magnets_where_the_model_puts_them(kind):
    rng = np.random.default_rng(1)
    m, side = dice.build(kind, SPEC["dice"], PH, rng, hole=HOLE)
    plain = (m.at.tolist(), m.axis.tolist(), m.polarisation.tolist(), m.size.tolist(), m.glue, m.proud,
             m.face.tolist(), m.recess.tolist(), m.hand)
    for pose in poses(rng, 200):
        at, axis = dice.place(m, side, pose, (25.0, 50.0))
        got_at, got_axis = fields.place(plain, side, pose, (25.0, 50.0))
        assert np.abs(np.array(got_at) - at).max() < 1e-9, pose
        assert np.abs(np.array(got_axis) - axis).max() < 1e-12, pose


def test_a_die_resting_on_a_proud_magnet_rocks_as_the_model_says():
    """board.json's magnets are never proud; one pressed in proud (face_recess_mm < 0) holds its
    die up and tips it, in both."""
    ph = dict(PH, magnet=dict(PH["magnet"], face_recess_mm=[-0.2, 0.05]))
    rng = np.random.default_rng(4)
    m, side = dice.build("white 1", SPEC["dice"], ph, rng, hole=HOLE)
    assert max(m.proud.values()) > 0
    plain = (m.at.tolist(), m.axis.tolist(), m.polarisation.tolist(), m.size.tolist(), m.glue, m.proud,
             m.face.tolist(), m.recess.tolist(), m.hand)
    for pose in poses(rng, 200):
        at, _ = dice.place(m, side, pose)
        assert np.abs(np.array(fields.place(plain, side, pose)[0]) - at).max() < 1e-9, pose


def test_the_sensor_and_the_adc_read_a_field_as_the_model_does():
    """Every count equal, on 20 boards drawn within tolerance, fields across the linear range and
    beyond it; and a stuck sensor's volts read the same."""
    rng = np.random.default_rng(2)
    for _ in range(20):
        model = readout.Parts.draw(PH, 125, rng)
        plain = fields.Parts(model.quiescent.tolist(), model.sensitivity.tolist(), float(model.vref),
                             model.inl.tolist(), model.supply.tolist(), model.low.tolist(), model.high.tolist())
        bz = rng.uniform(-60, 60, 125)
        assert fields.counts(bz.tolist(), plain, PH) == readout.counts(bz, model, PH).tolist()
        for volts in rng.uniform(0, 3.3, 20):
            assert fields.raw(volts, plain) == readout.raw(np.array([volts]), model, PH)[0]


def test_a_board_full_of_dice_reads_as_the_model_reads_it_within_the_tables_error():
    """The same board (its sensors and ADC) and the same dice, each in its own pose on its own
    square: every sensor's field within ERROR_MT of magpylib's, and every reading within one count
    of 12 bits (where that error meets a rounding)."""
    model = Model(SPEC, seed=7)
    plain = fields.Scene(SPEC, seed=7)
    plain.parts = fields.Parts(model.parts.quiescent.tolist(), model.parts.sensitivity.tolist(),
                               float(model.parts.vref), model.parts.inl.tolist(), model.parts.supply.tolist(),
                               model.parts.low.tolist(), model.parts.high.tolist())
    for kind in KINDS:  # the model's dice, drawn with numpy, built by the shared layout
        m, side = model._built.setdefault(kind, dice.build(kind, SPEC["dice"], PH, np.random.default_rng(len(kind)),
                                                           hole=HOLE))
        plain._built[kind] = ((m.at.tolist(), m.axis.tolist(), m.polarisation.tolist(), m.size.tolist(), m.glue,
                               m.proud, m.face.tolist(), m.recess.tolist(), m.hand), side)
    rng = random.Random(3)
    pieces = sorted(SPEC["dice"].values())
    worst = 0.0
    for _ in range(2):
        for square in SPEC["squares"]:
            piece = rng.choice(pieces)
            pose = plain.seated(square, piece, rng.randrange(4))
            if rng.random() < 0.3:
                pose = replace(pose, tilt=rng.uniform(0, 3), tilt_to=rng.uniform(0, 360))
            plain.put(square, piece, pose)
            model.put(square, piece, pose)
        worst = max(worst, np.abs(np.array(plain.field()) - model.field()).max())
        a, b = np.array(plain.levels()) >> 4, np.array(model.levels()) >> 4
        assert np.abs(a - b).max() <= 1
    assert worst < ERROR_MT


def test_the_draws_fall_within_the_tolerances_and_pins_hold_them():
    draw = fields.Draw(random.Random(1))
    values = draw.uniform(2.0, 3.0, 1000)
    assert 2.0 <= min(values) < 2.01 and 2.99 < max(values) <= 3.0
    pinned = fields.Draw(random.Random(1), {"x": 0.25, ("glue", 1): 7})
    assert pinned.uniform(2.0, 3.0, name="x") == 2.25 and pinned.uniform(2.0, 3.0, 3, name="x") == [2.25] * 3
    assert pinned.integers(4, name=("glue", 1)) == 3
    assert fields.Draw().uniform(2.0, 3.0) == 2.5
    # the same die as the model builds, for the same pins: one layout for both
    pins = {("remanence", 6, 0): 0.1, "die side": 1.0, ("glue", 6): 2}
    model, side = dice.build("black 1", SPEC["dice"], PH, None, hole=HOLE, pins=pins)
    plain, plain_side = layout("black 1", SPEC["dice"], PH, fields.Draw(None, pins), hole=HOLE)
    assert plain_side == side and np.array_equal(np.array(plain[0]), model.at)
    assert np.array_equal(np.array(plain[2]), model.polarisation)
    assert Spread(None, pins).uniform(0, 1, name="die side") == fields.Draw(None, pins).uniform(0, 1, name="die side")
