"""A cylinder magnet's field in its own frame, tabulated from magpylib: the simulator's hands
read their fields from this table (doce_host.sim.fields), so a player's install needs neither
magpylib nor numpy. `make fields` writes the table (python -m doce_host.physics.field_table);
tests/physics/test_field_table.py checks that the shipped file is what this makes, and that it
agrees with magpylib within ERROR_MT.

A magnet axially polarised along +z, centred at the origin, of diameter 1 and height
`aspect`: at a point (rho, z), rho >= 0 its distance from the axis, the field is (B_rho, B_z).
It is stored as

    (B - B_dipole) * r**3 / aspect,  per unit polarisation,

where B_dipole is the field of the point dipole of the same moment and r = |(rho, z)|: the
dipole's part is exact and taken out, the rest is smooth and dies away as 1/r**2 relative to
it; dividing by the volume's factor makes it nearly the same at every aspect. Grid: log r from
R_MIN to R_MAX diameters (NU points), the angle from the axis from 0 to 90 degrees (NT points;
below the mid-plane by symmetry: B_rho is odd in z, B_z even), and the ASPECTS of board.json's
magnet at its tolerances' extremes and nominal. Read back bilinearly in (log r, angle) and
quadratically in aspect. Beyond R_MAX only the dipole is kept: the remainder there is under
0.00012 mT a magnet at Br 1480 mT, and falls as 1 / r**5. Nearer than R_MIN the table refuses
(ValueError): every sensor is under the floor, at least MIN_GAP diameters from any magnet's
surface (tests/physics/test_field_table.py checks it against board.json).

Measured against magpylib (tests/physics/test_field_table.py) at points at least MIN_GAP
diameters from the magnet, for Br = 1480 mT (the strongest board.json allows): within
ERROR_MT, a few thousandths of a millitesla, under a tenth of one ADC step (1 LSB of the
12-bit ADC is about 0.027 mT through a DRV5055A2).
"""

import json
import math
import sys
from array import array
from pathlib import Path

from ..paths import BOARD_FILE

FILE = Path(__file__).with_name("cylinder_field.bin")
R_MIN, R_MAX = 0.8, 12.0  # diameters from the magnet's centre (12 diameters: 38 mm, a square and a half)
NU, NT = 160, 120
MIN_GAP = 0.6  # diameters: the least a sensor is from a magnet (the floor's 1.6 mm - 10 %, its air and hall depth)
ERROR_MT = 0.01  # the table's largest error against magpylib, at Br 1480 mT (the test measures it)
LOG_MIN, LOG_STEP = math.log(R_MIN), (math.log(R_MAX) - math.log(R_MIN)) / (NU - 1)
ANGLE_STEP = (math.pi / 2) / (NT - 1)
FOUR_PI = 4 * math.pi


def aspects(physics):
    """(low, nominal, high) height / diameter of board.json's magnet, at its tolerances."""
    m = physics["magnet"]
    d, h, tol = m["diameter_mm"], m["height_mm"], m["size_tol_mm"]
    return ((h - tol) / (d + tol), h / d, (h + tol) / (d - tol))


def dipole(rho, z, aspect):
    """(B_rho, B_z) of the point dipole of a magnet of diameter 1, height `aspect`, unit
    polarisation: its volume / (4 pi) x (3 z r_hat - z_hat) / r**3."""
    r2 = rho * rho + z * z
    k = math.pi / 4 * aspect / FOUR_PI / (r2 * r2 ** 0.5)  # (arrays too: make() calls it)
    return 3 * k * z * rho / r2, k * (3 * z * z / r2 - 1)


# -- making the table (the design tools: numpy and magpylib) --------------------------------

def make(physics):
    """The table as bytes: a JSON line (the grid), then float32 values, for every log r, angle
    and aspect, B_rho then B_z (the remainder above)."""
    import magpylib
    import numpy as np
    shape = aspects(physics)
    u = LOG_MIN + LOG_STEP * np.arange(NU)
    t = ANGLE_STEP * np.arange(NT)
    r, angle = np.meshgrid(np.exp(u), t, indexing="ij")
    rho, z = (r * np.sin(angle)).ravel(), (r * np.cos(angle)).ravel()
    n = len(rho)
    out = np.zeros((n, len(shape), 2))
    for k, aspect in enumerate(shape):
        b = np.reshape(magpylib.func.cylinder_field(
            "B", np.column_stack([rho, np.zeros(n), z]), np.tile((1.0, aspect), (n, 1)),
            np.tile((0.0, 0.0, 1.0), (n, 1)), np.zeros((n, 3)), None), (-1, 3))
        d_rho, d_z = dipole(rho, z, aspect)
        scale = r.ravel() ** 3 / aspect
        out[:, k, 0] = (b[:, 0] - d_rho) * scale
        out[:, k, 1] = (b[:, 2] - d_z) * scale
    head = {"r_min": R_MIN, "r_max": R_MAX, "nu": NU, "nt": NT, "aspects": list(shape),
            "made_by": "magpylib %s" % magpylib.__version__}
    return (json.dumps(head) + "\n").encode() + out.astype("<f4").tobytes()


# -- reading it (plain Python) ----------------------------------------------------------

class Table:
    """The shipped table, for magnets of board.json's size."""

    def __init__(self, data=None):
        data = FILE.read_bytes() if data is None else data
        line, _, body = data.partition(b"\n")
        self.head = json.loads(line)
        if (self.head["nu"], self.head["nt"], self.head["r_min"], self.head["r_max"]) != (NU, NT, R_MIN, R_MAX):
            raise ValueError("%s is not of this grid: run make fields" % FILE.name)
        self.aspects = tuple(self.head["aspects"])
        values = array("f")
        values.frombytes(body)
        if sys.byteorder != "little":
            values.byteswap()
        if len(values) != NU * NT * 6:
            raise ValueError("%s: %d values, not %d: run make fields" % (FILE.name, len(values), NU * NT * 6))
        self.values = values.tolist()

    def weights(self, aspect):
        """The quadratic interpolation's weight of each tabulated aspect, for `aspect`."""
        a0, a1, a2 = self.aspects
        return ((aspect - a1) * (aspect - a2) / ((a0 - a1) * (a0 - a2)),
                (aspect - a0) * (aspect - a2) / ((a1 - a0) * (a1 - a2)),
                (aspect - a0) * (aspect - a1) / ((a2 - a0) * (a2 - a1)))

    def field(self, rho, z, aspect, weights=None):
        """(B_rho, B_z) per unit polarisation at (rho, z), in diameters of a magnet of height
        `aspect` diameters (`weights`: self.weights(aspect), worked out once per magnet)."""
        w0, w1, w2 = weights or self.weights(aspect)
        r2 = rho * rho + z * z
        r = math.sqrt(r2)
        d_rho, d_z = dipole(rho, z, aspect)
        if r >= R_MAX:
            return d_rho, d_z
        if r < R_MIN:
            raise ValueError("a sensor %.2f diameters from a magnet's centre: nearer than its table (%s)"
                             % (r, R_MIN))
        fu = (math.log(r) - LOG_MIN) / LOG_STEP
        ft = math.atan2(rho, abs(z)) / ANGLE_STEP
        i, j = min(int(fu), NU - 2), min(int(ft), NT - 2)
        fu, ft = fu - i, ft - j
        v = self.values
        b_rho = b_z = 0.0
        for at, w in (((i * NT + j) * 6, (1 - fu) * (1 - ft)), (((i + 1) * NT + j) * 6, fu * (1 - ft)),
                      ((i * NT + j + 1) * 6, (1 - fu) * ft), (((i + 1) * NT + j + 1) * 6, fu * ft)):
            b_rho += w * (w0 * v[at] + w1 * v[at + 2] + w2 * v[at + 4])
            b_z += w * (w0 * v[at + 1] + w1 * v[at + 3] + w2 * v[at + 5])
        scale = aspect / (r2 * r)
        return (b_rho if z >= 0 else -b_rho) * scale + d_rho, b_z * scale + d_z


def main():
    physics = json.loads(BOARD_FILE.read_text())["physics"]
    FILE.write_bytes(make(physics))
    print("%s: %d KB, aspects %s" % (FILE, FILE.stat().st_size // 1024,
                                     ", ".join("%.3f" % a for a in aspects(physics))))


if __name__ == "__main__":
    main()
