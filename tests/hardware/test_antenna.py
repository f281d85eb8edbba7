"""The devkit's antenna over the PCB, measured from the board file itself (hardware/pcb/doce.kicad_pcb):
where the file puts the devkit's sockets, where Espressif's footprint of the devkit draws the
ESP32-WROVER-E's antenna from them (layout.ANTENNA_FROM_PIN1_MM), and every piece of copper the
file holds on any layer (tracks, vias, pads, the planes as KiCad filled them).

Espressif's ESP32 Hardware Design Guidelines (PCB Layout Design, "Positioning a Module on a Base
Board", figure "Keepout Zone for ESP32 Module's Antenna"): no copper under the antenna, and a
clearance of at least 15 mm round it. The antenna stands layout.ANTENNA_ABOVE_MM over our top
copper; every layer is taken at the top copper's height (the least: the inner layers lie lower).
"""

import math

import pytest
from test_pcb import BOARD, pcb
from test_pcb_rules import PADS, TREE

layout = pcb.layout_module
COPPER = {"F.Cu", "In1.Cu", "In2.Cu", "B.Cu"}


def antenna_box(tree=TREE):
    """(x0, y0, x1, y1) in KiCad's frame (y down): the antenna from the devkit's pads in the file."""
    (u1,) = [fp for fp in pcb._find(tree, "footprint")
             if [t[2] for t in pcb._find(fp, "fp_text") if t[1] == "reference"] == ["U1"]]
    at = pcb._find(u1, "at")[0]
    x, y = float(at[1]), float(at[2])  # pad 1 (3V3), the pin-1 row; north is -y
    assert (float(at[3]) if len(at) > 3 else 0.0) == 0.0  # not turned: north is the antenna's way
    mid = x + layout.DEVKIT_ROWS_MM / 2
    near, far = layout.ANTENNA_FROM_PIN1_MM
    return mid - layout.MODULE_WIDTH_MM / 2, y - far, mid + layout.MODULE_WIDTH_MM / 2, y - near


def _point_box(px, py, box):
    x0, y0, x1, y1 = box
    return math.hypot(max(x0 - px, 0.0, px - x1), max(y0 - py, 0.0, py - y1))


def _crosses(a, b, c, d):
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def _segment_box(a, b, box):
    """The least distance in the plane from the segment a-b to the rectangle `box` (0 if it enters)."""
    x0, y0, x1, y1 = box
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    if any(_crosses(a, b, p, q) for p, q in zip(corners, corners[1:] + corners[:1])):
        return 0.0
    best = min(_point_box(*a, box), _point_box(*b, box))
    dx, dy = b[0] - a[0], b[1] - a[1]
    for cx, cy in corners:
        t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((cx - a[0]) * dx + (cy - a[1]) * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(cx - a[0] - t * dx, cy - a[1] - t * dy))
    return best


def _inside(p, poly):
    x, y = p
    hit = False
    for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1]):
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            hit = not hit
    return hit


def copper(tree=TREE):
    """[(what, segment a, segment b, half width)]: every piece of copper as a thick segment, and
    every filled plane as its outline's edges (and its corners, should the antenna sit inside one)."""
    out = []
    for seg in pcb._find(tree, "segment"):
        a, b = [(float(p[1]), float(p[2])) for p in (pcb._find(seg, k)[0] for k in ("start", "end"))]
        out.append(("track " + pcb._find(seg, "layer")[0][1], a, b, float(pcb._find(seg, "width")[0][1]) / 2))
    for via in pcb._find(tree, "via"):
        at = pcb._find(via, "at")[0]
        p = (float(at[1]), float(at[2]))
        out.append(("via", p, p, float(pcb._find(via, "size")[0][1]) / 2))
    for ref, number, _, x, y, w, h, degrees, _ in PADS:
        if not ref.startswith("MH"):  # the mounting holes are bare (NPTH)
            r = math.hypot(w, h) / 2  # the pad's circumcircle: no nearer than this, all the way round
            out.append(("pad %s.%s" % (ref, number), (x, y), (x, y), r))
    for zone in pcb._find(tree, "zone"):
        for poly in pcb._find(zone, "filled_polygon"):
            layer = pcb._find(poly, "layer")[0][1]
            pts = [(float(p[1]), float(p[2])) for p in pcb._find(pcb._find(poly, "pts")[0], "xy")]
            what = "plane %s %s" % (pcb._find(zone, "net_name")[0][1], layer)
            out.append((what, pts, None, 0.0))
    return out


def clearances(tree=TREE):
    """{what: (distance in the board's plane, distance in space)} from the antenna, nearest first:
    each piece of copper's nearest point to the antenna's outline."""
    box = antenna_box(tree)
    corners = [(box[0], box[1]), (box[2], box[1]), (box[2], box[3]), (box[0], box[3])]
    out = {}
    for what, a, b, half in copper(tree):
        if b is None:  # a filled plane: its edges, and whether the antenna lies over its inside
            d = min(_segment_box(p, q, box) for p, q in zip(a, a[1:] + a[:1]))
            if any(_inside(c, a) for c in corners) or any(_point_box(*p, box) == 0 for p in a):
                d = 0.0
        else:
            d = max(0.0, _segment_box(a, b, box) - half)
        near = out.get(what)
        if near is None or d < near[0]:
            out[what] = (d, math.hypot(d, layout.ANTENNA_ABOVE_MM))
    return dict(sorted(out.items(), key=lambda kv: kv[1]))


CLEAR = clearances()


def test_the_antenna_is_where_espressifs_footprint_of_the_devkit_draws_it():
    x0, y0, x1, y1 = antenna_box()
    assert (x1 - x0, y1 - y0) == pytest.approx((18.0, 7.01 - 1.12))
    lay = layout.load()
    ax0, ay0, ax1, ay1 = lay.antenna()
    _, py, _ = lay.strip()["U1"]
    assert (ay0 - py, ay1 - py) == pytest.approx((1.12, 7.01)) and ax1 - ax0 == pytest.approx(18.0)


def test_no_copper_on_any_layer_lies_under_the_antenna_or_within_its_margin():
    """Measured from the file: the nearest copper of every kind to the antenna's outline, in the
    board's plane. Revision B's first keep-out began 1.35 mm north of the pin-1 row, the antenna
    1.12 mm: the ground plane (In1) and the 3.3 V plane (In2) lay under its south edge (0 mm)."""
    near = {what: d for what, (d, _) in CLEAR.items() if d < layout.ANTENNA_UNDER_MARGIN_MM - 1e-6}
    assert not near, near


def test_copper_beside_and_beyond_the_antenna_is_15_mm_from_it_in_space():
    """On the three open sides (west, north, east: everything north of the sockets' pin-1 pads and
    their clearance, antenna_keepout()'s south edge), every piece of copper is 15 mm or more from
    the antenna in space. On the fourth, the module's body and the sockets' pin-1 row are there
    (Espressif's figure has the module's own body on that side): copper keeps the margin of the test
    above in the plane, 12.8 mm in space."""
    lay = layout.load()
    x0, _, _, y1 = lay.pcb_box
    south_edge = pcb.MARGIN + y1 - lay.antenna_keepout()[1]  # KiCad's frame
    box = antenna_box()
    short = {}
    for what, a, b, half in copper():
        segments = list(zip(a, a[1:] + a[:1])) if b is None else [(a, b)]
        for p, q in segments:
            if min(p[1], q[1]) - half >= south_edge - 1e-6:
                continue  # wholly south of the pin-1 band's north edge: the module's side
            if b is None and max(p[1], q[1]) > south_edge:  # a plane's edge across the band: its north part
                t = (south_edge - p[1]) / (q[1] - p[1])
                cut = (p[0] + t * (q[0] - p[0]), south_edge)
                p, q = (p, cut) if p[1] < q[1] else (cut, q)
            d = max(0.0, _segment_box(p, q, box) - half)
            if math.hypot(d, layout.ANTENNA_ABOVE_MM) < layout.ANTENNA_CLEARANCE_MM - 1e-6:
                short[what] = (round(math.hypot(d, layout.ANTENNA_ABOVE_MM), 2), p, q)
    assert not short, short


def test_the_keep_out_is_on_every_copper_layer_and_covers_the_antenna():
    boxes = []
    for zone in pcb._find(TREE, "zone"):
        if pcb._find(zone, "keepout"):
            outline = pcb._find(pcb._find(zone, "polygon")[0], "pts")[0]
            pts = [(float(p[1]), float(p[2])) for p in pcb._find(outline, "xy")]
            if len(pts) == 4:
                assert COPPER <= set(pcb._find(zone, "layers")[0][1:])
                xs, ys = [x for x, _ in pts], [y for _, y in pts]
                boxes.append((min(xs), min(ys), max(xs), max(ys)))
    x0, y0, x1, y1 = antenna_box()
    m = layout.ANTENNA_UNDER_MARGIN_MM
    grid = [(x0 - m + (x1 - x0 + 2 * m) * i / 20, y0 - m + (y1 - y0 + 2 * m) * j / 20)
            for i in range(21) for j in range(21)]
    for x, y in grid:  # every point of the antenna and its margin lies in one of the rule areas
        assert any(bx0 - 1e-6 <= x <= bx1 + 1e-6 and by0 - 1e-6 <= y <= by1 + 1e-6
                   for bx0, by0, bx1, by1 in boxes), (x, y)


def test_the_guide_quotes_the_clearances_measured_here():
    import re

    text = " ".join((BOARD.parents[1] / "README.md").read_text().split())
    plane, space = re.search(r"the nearest copper is ([\d.]+) mm from its outline in the board's plane "
                             r"\(([\d.]+) mm in space\)", text).groups()
    d, s = min(CLEAR.values())
    assert (float(plane), float(space)) == (round(d, 2), round(s, 2))
