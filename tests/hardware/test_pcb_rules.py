"""What a fab and an assembler would object to in the PCB (hardware/pcb/doce.kicad_pcb), read
from the board file itself: copper under the mounting hardware, vias at pads, the mask, the
decoupling, the silkscreen and the footprints' library names."""

import math
import re

import pytest
from test_pcb import BOARD, HARDWARE, PARTS, pcb

TREE = pcb._sexp(BOARD.read_text())


def _ref(fp):
    return [t[2] for t in pcb._find(fp, "fp_text") if t[1] == "reference"][0]


def _at(node):
    at = pcb._find(node, "at")[0]
    return float(at[1]), float(at[2]), float(at[3]) if len(at) > 3 else 0.0


def _pads():
    """[(ref, number, net, x, y, w, h, degrees, corner)] in KiCad's frame (mm, y down)."""
    out = []
    for fp in pcb._find(TREE, "footprint"):
        fx, fy, frot = _at(fp)
        a = math.radians(frot)
        for pad in pcb._find(fp, "pad"):
            px, py, prot = _at(pad)
            x = fx + px * math.cos(a) + py * math.sin(a)
            y = fy - px * math.sin(a) + py * math.cos(a)
            size = pcb._find(pad, "size")[0]
            w, h = float(size[1]), float(size[2])
            ratio = pcb._find(pad, "roundrect_rratio")
            corner = {"circle": min(w, h) / 2, "oval": min(w, h) / 2}.get(pad[3], 0.0)
            if ratio:
                corner = float(ratio[0][1]) * min(w, h)
            net = pcb._find(pad, "net")
            out.append((_ref(fp), pad[1], net[0][2] if net else None, x, y, w, h, prot, corner))
    return out


PADS = _pads()


def pad_distance(pad, x, y):
    """From (x, y) to the pad's copper (0 inside)."""
    _, _, _, px, py, w, h, degrees, corner = pad
    a = math.radians(degrees)
    dx, dy = x - px, y - py
    u, v = dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)
    ex, ey = max(0.0, abs(u) - (w / 2 - corner)), max(0.0, abs(v) - (h / 2 - corner))
    return max(0.0, math.hypot(ex, ey) - corner)


def segment_distance(x, y, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - ax - t * dx, y - ay - t * dy)


def vias():
    return [(float(pcb._find(v, "at")[0][1]), float(pcb._find(v, "at")[0][2]), float(pcb._find(v, "size")[0][1]))
            for v in pcb._find(TREE, "via")]


def holes():
    return [(x, y) for ref, _, _, x, y, *_ in PADS if ref.startswith("MH")]


def test_no_copper_lies_under_a_washer_or_standoff():
    radius = pcb.KEEPOUT_MM / 2
    assert radius >= 3.5  # a 7 mm M3 washer
    for hx, hy in holes():
        for seg in pcb._find(TREE, "segment"):
            (ax, ay), (bx, by) = [(float(p[1]), float(p[2])) for p in (pcb._find(seg, k)[0] for k in ("start", "end"))]
            width = float(pcb._find(seg, "width")[0][1])
            assert segment_distance(hx, hy, ax, ay, bx, by) - width / 2 >= radius, (hx, hy)
        for x, y, size in vias():
            assert math.hypot(x - hx, y - hy) - size / 2 >= radius
        for pad in PADS:
            if not pad[0].startswith("MH"):
                assert pad_distance(pad, hx, hy) >= radius, pad[:2]
        for zone in pcb._find(TREE, "zone"):
            for poly in pcb._find(zone, "filled_polygon"):
                for p in pcb._find(pcb._find(poly, "pts")[0], "xy"):
                    assert math.hypot(float(p[1]) - hx, float(p[2]) - hy) >= radius - 0.05


def test_every_mounting_hole_has_a_keepout_on_every_copper_layer():
    areas = []
    for zone in pcb._find(TREE, "zone"):
        keep = pcb._find(zone, "keepout")
        if keep:
            rules = {k[0]: k[1] for k in keep[0][1:]}
            assert rules["tracks"] == rules["vias"] == "not_allowed"
            if rules["copperpour"] == "allowed":  # J1's shell: the inner planes pass under it (the test below)
                continue
            assert rules["copperpour"] == "not_allowed"
            layers = pcb._find(zone, "layers")[0][1:]
            assert {"F.Cu", "In1.Cu", "In2.Cu", "B.Cu"} <= set(layers)
            outline = pcb._find(pcb._find(zone, "polygon")[0], "pts")[0]
            pts = [(float(p[1]), float(p[2])) for p in pcb._find(outline, "xy")]
            areas.append((sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)))
    for hx, hy in holes():
        assert any(math.hypot(x - hx, y - hy) < 0.01 for x, y in areas), (hx, hy)


def test_no_via_is_within_0_2_mm_of_any_pad_its_own_nets_too():
    near = {}
    for pad in PADS:
        near.setdefault((round(pad[3] / 5), round(pad[4] / 5)), []).append(pad)
    worst = 9.9
    for x, y, size in vias():
        for i in (-1, 0, 1):
            for j in (-1, 0, 1):
                for pad in near.get((round(x / 5) + i, round(y / 5) + j), []):
                    worst = min(worst, pad_distance(pad, x, y) - size / 2)
    assert worst >= pcb.RULES["via_pad"] - 1e-3 >= 0.2 - 1e-3


def test_the_mask_opens_wider_than_each_pad_as_the_fab_asks():
    setup = pcb._find(TREE, "setup")[0]
    assert float(pcb._find(setup, "pad_to_mask_clearance")[0][1]) == pytest.approx(0.05)
    assert float(pcb._find(setup, "solder_mask_min_width")[0][1]) == pytest.approx(0.1)


def test_each_ic_decoupling_capacitor_is_within_3_mm_of_its_supply_pin():
    pads = {(p[0], p[1]): p for p in PADS}
    checked = 0
    for ref, info in PARTS.items():
        owner = info.get("Decouples", "")
        if owner not in ["U%d" % i for i in range(2, 11)]:  # the multiplexers and the decoder
            continue
        rail = pads[(ref, "1")][2]
        (pin,) = [p for p in PADS if p[0] == owner and p[2] == rail]
        cx = sum(pads[(ref, n)][3] for n in "12") / 2
        cy = sum(pads[(ref, n)][4] for n in "12") / 2
        assert math.hypot(cx - pin[3], cy - pin[4]) <= 3.0, (ref, owner)
        checked += 1
    assert checked == 9


def test_references_are_readable_and_none_sits_at_the_edge():
    for fp in pcb._find(TREE, "footprint"):
        (text,) = [t for t in pcb._find(fp, "fp_text") if t[1] == "reference"]
        layer = pcb._find(text, "layer")[0][1]
        assert "hide" not in text, text[2]  # on the silkscreen or the assembly (fab) drawing
        if text[2].startswith("MH"):
            assert layer == "F.Fab"  # a mounting hole's is at the board's edge
        else:
            assert layer in ("F.SilkS", "F.Fab")


def test_every_footprint_names_its_library():
    names = [fp[1] for fp in pcb._find(TREE, "footprint")]
    assert names and all(re.fullmatch(r"[\w.-]+:[\w.-]+", n) for n in names), names[:3]


def test_the_drc_report_names_no_machines_path():
    report = (HARDWARE / "pcb" / "drc.txt").read_text()
    assert "** Drc report for doce.kicad_pcb **" in report
    assert not re.search(r"/(work|home|tmp)/", report)


def _frame():
    """layout mm -> KiCad mm (the board file's frame: pcb.MARGIN from the outline's corner, y down)."""
    lay = pcb.layout_module.load()
    x0, _, _, y1 = lay.pcb_box
    return lay, (lambda x, y: (pcb.MARGIN + x - x0, pcb.MARGIN + y1 - y))


def test_no_copper_lies_in_the_antennas_rule_areas():
    """The devkit's antenna keep-outs (layout.antenna_keepouts(), tests/hardware/test_antenna.py
    for the clearances they give): every track, via, pad and plane of ours is outside both rule
    areas, and each is on every copper layer."""
    lay, at = _frame()
    boxes = []
    for kx0, ky0, kx1, ky1 in lay.antenna_keepouts():
        (lx0, ly1), (lx1, ly0) = at(kx0, ky0), at(kx1, ky1)  # the zone in KiCad's frame
        boxes.append((lx0, ly0, lx1, ly1))

    def inside(x, y, margin=0.0):
        return any(lx0 - margin < x < lx1 + margin and ly0 - margin < y < ly1 + margin
                   for lx0, ly0, lx1, ly1 in boxes)

    for seg in pcb._find(TREE, "segment"):
        (sx, sy), (ex, ey) = [(float(p[1]), float(p[2])) for p in (pcb._find(seg, k)[0] for k in ("start", "end"))]
        w = float(pcb._find(seg, "width")[0][1]) / 2
        for t in (0.0, 0.25, 0.5, 0.75, 1.0):
            assert not inside(sx + t * (ex - sx), sy + t * (ey - sy), w), (sx, sy, ex, ey)
    for x, y, size in vias():
        assert not inside(x, y, size / 2)
    for pad in PADS:
        if not pad[0].startswith("MH"):
            assert not inside(pad[3], pad[4]), pad[:2]
    for zone in pcb._find(TREE, "zone"):
        for poly in pcb._find(zone, "filled_polygon"):
            for p in pcb._find(pcb._find(poly, "pts")[0], "xy"):
                assert not inside(float(p[1]), float(p[2]), -0.01), pcb._find(zone, "net_name")
    # the rule areas themselves, on every copper layer
    areas = []
    for zone in pcb._find(TREE, "zone"):
        if pcb._find(zone, "keepout"):
            outline = pcb._find(pcb._find(zone, "polygon")[0], "pts")[0]
            pts = [(float(p[1]), float(p[2])) for p in pcb._find(outline, "xy")]
            if len(pts) == 4:
                xs, ys = [x for x, _ in pts], [y for _, y in pts]
                areas.append(((min(xs), min(ys), max(xs), max(ys)), set(pcb._find(zone, "layers")[0][1:])))
    (jx0, jy1), (jx1, jy0) = at(*pcb.usb_c_body(lay)[:2]), at(*pcb.usb_c_body(lay)[2:])
    areas = [(box, layers) for box, layers in areas if box != pytest.approx((jx0, jy0, jx1, jy1))]  # J1's shell
    flat = [v for box in sorted(box for box, _ in areas) for v in box]
    assert flat == pytest.approx([v for box in sorted(boxes) for v in box])
    assert all({"F.Cu", "In1.Cu", "In2.Cu", "B.Cu"} <= layers for _, layers in areas)
    # 15 mm from the antenna: beside it in the board's plane to the north and east, and to the west
    # (where the group switches stand) in space, over the antenna's height above our copper (the
    # socket, the header's spacer and the devkit's board: 8.5 + 2.54 + 1.6 mm)
    ax0, ay0, ax1, ay1 = lay.antenna()
    kx0, ky0, kx1, ky1 = lay.antenna_keepout()
    high = pcb.layout_module.ANTENNA_ABOVE_MM
    assert high == pytest.approx(12.64)
    assert ky1 - ay1 >= 15.0 - 1e-9 and kx1 - ax1 >= 15.0 - 1e-9
    assert ax0 - kx0 > 0 and math.hypot(ax0 - kx0, high) >= 15.0


def test_no_copper_of_ours_lies_under_j1s_shell_and_its_5v_is_a_power_track():
    """Review of issue 39: the USB-C input's 5 V (VBUS_C) was routed at 0.2 mm, one segment under
    J1's body, between its pads and its front shell tabs, where the grounded metal shell that takes
    a plug's force lies on the board over only solder mask. Now J1's body (pcb.usb_c_body) is a rule
    area on every copper layer: no track or via there, and only J1's own pads; and every VBUS_C track
    is a power track (pcb.POWER_NETS, sized in pcb.py from the 1.5 A it may carry)."""
    lay, at = _frame()
    bx0, by0, bx1, by1 = pcb.usb_c_body(lay)
    (x0, y1), (x1, y0) = at(bx0, by0), at(bx1, by1)

    def inside(x, y, margin):
        return x0 - margin < x < x1 + margin and y0 - margin < y < y1 + margin

    names = {int(n[1]): n[2] for n in pcb._find(TREE, "net")}
    widths = []
    for seg in pcb._find(TREE, "segment"):
        (sx, sy), (ex, ey) = [(float(p[1]), float(p[2])) for p in (pcb._find(seg, k)[0] for k in ("start", "end"))]
        w = float(pcb._find(seg, "width")[0][1])
        for t in (0.0, 0.25, 0.5, 0.75, 1.0):
            assert not inside(sx + t * (ex - sx), sy + t * (ey - sy), w / 2), (sx, sy, ex, ey)
        if names[int(pcb._find(seg, "net")[0][1])] == "VBUS_C":
            widths.append(w)
    for x, y, size in vias():
        assert not inside(x, y, size / 2), (x, y)
    for pad in PADS:
        if pad[0] != "J1":
            assert not inside(pad[3], pad[4], 0.0), pad[:2]
    assert "VBUS_C" in pcb.POWER_NETS and widths and set(widths) == {pcb.RULES["power_track"]}
    boxes = []  # the rule area that tells KiCad's DRC the same: tracks and vias not allowed, planes allowed
    for zone in pcb._find(TREE, "zone"):
        keep = pcb._find(zone, "keepout")
        if keep and {k[0]: k[1] for k in keep[0][1:]}["copperpour"] == "allowed":
            outline = pcb._find(pcb._find(zone, "polygon")[0], "pts")[0]
            xs, ys = zip(*[(float(q[1]), float(q[2])) for q in pcb._find(outline, "xy")])
            boxes.append((min(xs), min(ys), max(xs), max(ys)))
    assert boxes == [pytest.approx((x0, y0, x1, y1))]
