"""The floor under a hand: how far a press bows the floor plate down towards the sensors.

    python hardware/floor.py      # prints the bound (run by `make hardware`)

The floor (bare FR-4, physics.floor_mm) carries the well sheet (acrylic, physics.well_depth_mm
thick, a well_mm hole under every square) glued on it, and rests on shims at the plate's
holes only (layout.plate_holes). Two parts of the bow, added:

- global: the plate as a Kirchhoff plate (scikit-fem, Morley elements) whose stiffness is the
  bonded laminate's where the well sheet is glued and the bare floor's under a well and the
  glue's set-back beside it (GLUE_SETBACK_MM), held at the holes' centres, pressed at every mesh
  point of the plate in turn, the most the floor comes down over any sensor kept; plus the
  weight of the plate and a die on every square;
- local: one well's floor as a square plate clamped where the glue starts, under a point load at its
  centre (Roark's Formulas for Stress and Strain, 7th ed., Table 11.4 case 8b, a/b = 1:
  y = 0.0611 W b^2 / (E t^3), nu = 0.3). The plate model already bends that cell, so adding it
  counts it twice: on the high side only.

Every choice errs on the high side: the thinnest floor and widest well that board.json allows;
each region of the plate bends about its own neutral plane (the ribs get no help from the
floor beside them as flanges, which would stiffen them); the holes hold the plate at a point,
not over a shim's face; FR-4's crosswise modulus (its lower one) in every direction.
"""

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import layout as layout_module  # noqa: E402

# FR-4 (NEMA G10/FR4): flexural modulus crosswise 2,200,000 psi (lengthwise 2,700,000), K-Mac
# Plastics' "G10 FR4" technical data; Poisson's ratio 0.118 crosswise, 0.136 lengthwise (the
# typical FR-4 values Wikipedia's FR-4 article tabulates). Density 1.85 g/cm3.
FR4 = {"E_MPa": 2.2e6 * 0.00689476, "nu": 0.118, "density_g_cm3": 1.85}
# Cast acrylic sheet: flexural modulus 450,000 psi (ASTM D790), Poisson's ratio 0.35, specific
# gravity 1.19 (a cast acrylic colours technical data sheet: samson-supply.com, "Cast Acrylic
# Colors Technical Data"; Evonik gives PLEXIGLAS GS 3300 MPa, higher: the lower one is used).
PMMA = {"E_MPa": 450e3 * 0.00689476, "nu": 0.35, "density_g_cm3": 1.19}
# The glue: a thin, hard, full-face bond (a reactive acrylic adhesive such as ACRIFIX 2R 0190,
# or epoxy), so the floor and the well sheet bend as one section. A soft tape would let them
# slip: `bow(..., bonded=False)` gives that case. The guide has the coat kept GLUE_SETBACK_MM back
# from every well's edge (squeeze-out into a well lifts a die): the floor is taken as bare, and a
# well's floor as clamped, that much beyond each edge (hardware/README.md, step 2).
GLUE_SETBACK_MM = 0.5
PRESS_N = 20.0  # a hand leaning on the board
# A die's weight, an upper bound: a 20 mm solid cube of 1.5 g/cm3 (denser than PLA 1.24, PETG
# 1.27 or ABS 1.04) and its 24 magnets (NdFeB 7.5 g/cm3). About 0.14 N: a set on the board
# weighs a sixth of one press, spread over it.
DIE_DENSITY_G_CM3 = 1.5
MAGNET_DENSITY_G_CM3 = 7.5
MAGNETS_PER_DIE = 24
G = 9.81
ROARK_CLAMPED_SQUARE = 0.0611  # Table 11.4 case 8b, a/b = 1.0
MESH_MM = 2.5  # the plate's finite elements at most this wide (1.25 mm moves the result < 2 %)


def laminate(layers, bonded=True):
    """(D in N mm, nu) of a plate of isotropic layers [(thickness, material), ...] bottom up:
    bonded, its bending stiffness about the neutral plane with the membrane coupling taken
    out (D - B^2/A, as the transformed-section method); not bonded, the layers' own ones
    summed (each slips on the next)."""
    parts = {}
    for sign in (1, -1):  # the two eigen-parts (1, 1) and (1, -1) of an isotropic layer's stiffness
        a = b = d = 0.0
        z = 0.0
        for t, m in layers:
            q = m["E_MPa"] / (1 - m["nu"] ** 2) * (1 + sign * m["nu"])
            z0, z1 = z, z + t
            if bonded:
                a += q * (z1 - z0)
                b += q * (z1 ** 2 - z0 ** 2) / 2
                d += q * (z1 ** 3 - z0 ** 3) / 3
            else:
                d += q * t ** 3 / 12
            z = z1
        parts[sign] = d - b * b / a if bonded else d
    d11, d12 = (parts[1] + parts[-1]) / 2, (parts[1] - parts[-1]) / 2
    return d11, d12 / d11


def die_weight_n(lay):
    ph = lay.physics
    side = (ph["die_mm"][0] + ph["die_mm"][1]) / 10  # cm
    mag = ph["magnet"]
    d, h = (mag["diameter_mm"] + mag["size_tol_mm"]) / 10, (mag["height_mm"] + mag["size_tol_mm"]) / 10
    grams = side ** 3 * DIE_DENSITY_G_CM3 + MAGNETS_PER_DIE * math.pi * d * d / 4 * h * MAGNET_DENSITY_G_CM3
    return grams / 1000 * G


def worst_sizes(lay):
    """(floor thickness, well side): the thinnest floor and the widest well board.json allows."""
    ph = lay.physics
    return ph["floor_mm"][0] - ph["floor_mm"][1], ph["well_mm"][0] + ph["well_mm"][1]


def unbonded(lay):
    """The side of the floor's unbonded square under a well: the widest well and the glue's set-back."""
    return worst_sizes(lay)[1] + 2 * GLUE_SETBACK_MM


def cell_bow(lay, press=PRESS_N):
    """Local bow (mm): one well's floor clamped where the glue starts, pressed at its centre (Roark)."""
    t, side = worst_sizes(lay)[0], unbonded(lay)
    return ROARK_CLAMPED_SQUARE * press * side ** 2 / (FR4["E_MPa"] * t ** 3)


def _lines(lo, hi, breaks, step):
    """Mesh lines from lo to hi through every break, none further apart than step."""
    pts = sorted({round(v, 6) for v in breaks if lo <= v <= hi} | {lo, hi})
    out = [pts[0]]
    for a, b in zip(pts, pts[1:]):
        n = max(1, math.ceil((b - a) / step - 1e-9))
        out += [a + (b - a) * k / n for k in range(1, n + 1)]
    return out


def plate_bow(lay, press=PRESS_N, bonded=True, mesh_mm=MESH_MM, holes=None):
    """Global bow (mm): {"press": the most a press anywhere brings the floor down over a sensor,
    "at": where that press is, "middle": the same for a press on c3, "weights": the plate's and
    25 dice's own weight, "D": (the bare floor's D, the glued floor and sheet's D)}."""
    import numpy as np
    from scipy.sparse.linalg import splu
    from skfem import Basis, BilinearForm, ElementTriMorley, LinearForm, MeshTri, asm, condense
    from skfem.helpers import dd, ddot, eye, trace

    t, side = worst_sizes(lay)
    depth = lay.physics["well_depth_mm"]
    d_floor, nu_floor = laminate([(t, FR4)])
    d_ribs, nu_ribs = laminate([(t, FR4), (depth, PMMA)], bonded)
    x0, y0, x1, y1 = lay.plate_box
    centres = [lay.square_centre(sq) for sq in lay.spec["squares"]]
    holes = lay.plate_holes() if holes is None else holes
    cx = {c[0] for c in centres}
    cy = {c[1] for c in centres}
    ring = lay.physics["ring_mm"]
    bare = unbonded(lay)
    steps = (-bare / 2, -side / 2, -ring, 0, ring, side / 2, bare / 2)  # the wells' and glue's edges, the sensors
    xs = _lines(x0, x1, [v + s for v in cx for s in steps] + [h[0] for h in holes], mesh_mm)
    ys = _lines(y0, y1, [v + s for v in cy for s in steps] + [h[1] for h in holes], mesh_mm)
    mesh = MeshTri.init_tensor(np.array(xs), np.array(ys))
    basis = Basis(mesh, ElementTriMorley())
    pitch = lay.pitch

    def in_well(x, y, size=side):
        gx0, gy0, gx1, gy1 = lay.grid_box
        u = np.abs((x - gx0) % pitch - pitch / 2)
        v = np.abs((y - gy0) % pitch - pitch / 2)
        return (x > gx0) & (x < gx1) & (y > gy0) & (y < gy1) & (u < size / 2) & (v < size / 2)

    @BilinearForm
    def stiffness(u, v, w):
        well = in_well(*w.x, bare)  # the floor alone where no glue joins the sheet to it
        d = np.where(well, d_floor, d_ribs)
        nu = np.where(well, nu_floor, nu_ribs)
        k = dd(u)
        return ddot(d * ((1 - nu) * k + nu * eye(trace(k), 2)), dd(v))

    sheet_n_mm2 = G * 1e-6 * PMMA["density_g_cm3"] * depth
    floor_n_mm2 = G * 1e-6 * FR4["density_g_cm3"] * t

    @LinearForm
    def own_weight(v, w):
        return (floor_n_mm2 + np.where(in_well(*w.x), 0.0, sheet_n_mm2)) * v

    K = asm(stiffness, basis)
    value = basis.nodal_dofs[0]  # the DOF of w at each vertex
    px, py = mesh.p

    def vertex(x, y):
        return int(np.argmin((px - x) ** 2 + (py - y) ** 2))

    fixed = np.array([value[vertex(x, y)] for x, y in holes])
    free = np.setdiff1d(np.arange(basis.N), fixed)
    # ordered as a symmetric matrix (K is): less fill than splu's default COLAMD, so its 125-sensor
    # solve below takes about two thirds of the time; the bows agree to 1e-11 relative
    lu = splu(condense(K, D=fixed, expand=False).tocsc(), permc_spec="MMD_AT_PLUS_A")

    def solve(f):
        w = np.zeros(f.shape)
        w[free] = lu.solve(f[free])
        return w[value]

    f = asm(own_weight, basis)
    for x, y in centres:
        f[value[vertex(x, y)]] += die_weight_n(lay)
    weights = solve(f)
    # What matters is how far the floor comes down over a sensor. By reciprocity the bow at
    # sensor s under a press at p is the bow at p under a press at s: one solve per sensor
    # gives the bow over it for a press at every point of the plate.
    sensors = [vertex(x, y) for _, _, x, y in lay.sensors().values()]
    rhs = np.zeros((basis.N, len(sensors)))
    rhs[value[sensors], np.arange(len(sensors))] = press
    w = np.zeros(rhs.shape)
    w[free] = lu.solve(rhs[free])
    w = w[value]
    p, s = np.unravel_index(int(np.argmax(w)), w.shape)
    worst, at = float(w[p, s]), (float(px[p]), float(py[p]))
    weights = weights[sensors]
    middle = w[vertex(*lay.square_centre("c3"))].max()  # a hand leaning on the board's middle
    return {"press": worst, "at": at, "weights": float(weights.max()), "middle": float(middle), "D": (d_floor, d_ribs),
            "elements": mesh.t.shape[1]}


def bow(lay, press=PRESS_N, bonded=True, mesh_mm=MESH_MM):
    """The floor's bow bound under a press (mm) and its parts."""
    plate = plate_bow(lay, press, bonded, mesh_mm)
    local = cell_bow(lay, press)
    return dict(plate, local=local, total=plate["press"] + plate["weights"] + local)


def air_gap(lay):
    """(nominal, least, most) air between floor and sensor, from the stack (layout.air_range,
    the range the field model takes as physics.air_mm; nominal: every part at its middle)."""
    return (lay.nominal_air(),) + lay.air_range()


def report(lay):
    b = bow(lay)
    slip = bow(lay, bonded=False)
    air, least, most = air_gap(lay)
    return "\n".join([
        "floor bow under a %g N press (worst place %s mm): %.3f mm = plate %.3f + weights %.4f + cell %.4f"
        % (PRESS_N, "(%.1f, %.1f)" % b["at"], b["total"], b["press"], b["weights"], b["local"]),
        "  D: bare floor %.0f N mm, floor + well sheet %.0f N mm; %d elements" % (*b["D"], b["elements"]),
        "  with the well sheet not glued (slipping): %.3f mm" % slip["total"],
        "  air gap over a sensor: %.3f mm nominal (%.3f-%.3f mm); bow %s the nominal gap" %
        (air, least, most, "within" if b["total"] <= air else "BEYOND"),
    ])


if __name__ == "__main__":
    print(report(layout_module.load()))  # tests/hardware/test_floor.py holds it against the gap
