"""The board's mechanics from board.json: what a laser cutter and a 3D printer take.

    python hardware/mechanics.py          # writes hardware/mechanics/ and hardware/dice/

    mechanics/plate.dxf      the floor plate (bare FR-4): outline and mounting holes
    mechanics/wells.dxf      the well sheet (opal acrylic): outline, the wells, mounting holes
    mechanics/enclosure.dxf  the enclosure: its base (outline, the standoffs' holes), its walls laid
                             flat (the south one with the opening for the USB cable), the lid over
                             the electronics strip and the lid's front wall
    mechanics/*-laser.dxf    the same for a laser cutter: every cut moved out by half its kerf (holes in),
                             and a test coupon to measure first (LASER, README)
    mechanics/*.step, *.stl  the plate, the well sheet, the enclosure and the lid as solids, in the stack
    mechanics/button.stl     the plunger that reaches the button through the lid
    dice/jig.stl             the drilling jig: holds a die, guides the drill to every pocket
    dice/die.stl             a die to print instead of buying a blank: 20 mm, every pocket in place

Positions come from layout.py (board.json), the solids from build123d, the drawings from
ezdxf. The DXF files hold only geometry (R2010, no timestamps), so a test can regenerate them
and compare; the solids are checked by the hash of their inputs (see outputs.py).
"""

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import layout as layout_module  # noqa: E402  (a plain script next to board.json, as schematic.py)

MECHANICS = HERE / "mechanics"
DICE = HERE / "dice"
# The devkit's USB socket, from the PCB's top face up, at its lowest (the opening is cut for it):
# - our 1x19 sockets, Sullins PPTC series: 8.5 mm bodies;
# - the plastic spacer of the devkit's own male headers, which rests on them: 0.100 in (2.54 mm),
#   Samtec TSW series catalogue (suddendocs.samtec.com/catalog_english/tsw_th.pdf), the common
#   2.54 mm pitch header insulator;
# - the devkit's 1.6 mm board;
# - the plug's centre: its 1.8 mm shell (Micro-USB Cables and Connectors Specification 1.01:
#   Micro-B plug 6.85 x 1.8 mm) lies on or above the devkit's board, so at least 0.9 mm up.
SOCKET_MM, HEADER_SPACER_MM, DEVKIT_PCB_MM, USB_CENTRE_MM = 8.5, 2.54, 1.6, 0.9
USB_ABOVE_PCB_MM = SOCKET_MM + HEADER_SPACER_MM + DEVKIT_PCB_MM + USB_CENTRE_MM
# A Micro-B cable's overmould, wide x tall, at most 10.6 x 8.5 mm (the same specification),
# taken as centred on the plug; the opening leaves 1 mm around it.
PLUG_MM = (10.6, 8.5)
PLUG_CLEARANCE_MM = 1.0
# The board's own USB-C power input (J1, revision B): a top-mount receptacle on the PCB, its mouth's
# centre taken 1.6 mm over the PCB's top face (half its height of about 3.2 mm, as we read GCT's
# drawing usb4135.pdf), and a USB-C cable's overmold at most 12.35 x 6.5 mm (USB Type-C Cable and
# Connector Specification, the plug overmold's largest size); the opening leaves PLUG_CLEARANCE_MM
# around it, more than the centre's uncertainty.
USB_C_CENTRE_MM = 1.6
USB_C_PLUG_MM = (12.35, 6.5)


# --- drawings (ezdxf) -------------------------------------------------------------------------
def _doc():
    import ezdxf

    doc = ezdxf.new("R2010", setup=False)
    doc.units = ezdxf.units.MM
    for name, colour in (("OUTLINE", 7), ("HOLES", 1), ("WELLS", 3), ("USB", 5), ("ENGRAVE", 4), ("TEST", 6)):
        doc.layers.add(name, color=colour)
    return doc


def _box(msp, box, layer, grow=0.0):
    """A closed rectangle; `grow`: moved out by that much (a cut's half kerf; negative for a hole)."""
    x0, y0, x1, y1 = box
    _outline(msp, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], layer, grow)


def _outline(msp, points, layer, grow=0.0):
    """A closed outline of square corners, counter-clockwise, moved out by `grow` (each corner along
    its two edges' outward normals: exact for square corners, inside or out)."""
    n = len(points)
    out = []
    for k, (x, y) in enumerate(points):
        (ax, ay), (bx, by) = points[k - 1], points[(k + 1) % n]
        nx = _sign(y - ay) + _sign(by - y)  # outward normal of a counter-clockwise edge (dx, dy): (dy, -dx)
        ny = -_sign(x - ax) - _sign(bx - x)
        out.append((x + grow * nx, y + grow * ny))
    msp.add_lwpolyline(out, close=True, dxfattribs={"layer": layer})


def _sign(v):
    return (v > 1e-9) - (v < -1e-9)


def _holes(msp, lay, holes, grow=0.0):
    for x, y in holes:
        msp.add_circle((x, y), lay.mech["hole_mm"] / 2 - grow, dxfattribs={"layer": "HOLES"})


# A laser cutter's beam removes a kerf about its line: every part comes out half a kerf smaller, every
# hole half a kerf larger, and through 10 mm acrylic the kerf is wider at the beam's entry than at its
# exit (taper). The *-laser.dxf files move each cut out by half the kerf (board.json mechanics.laser),
# so a part comes out at its drawn size at mid-thickness, and draw a test coupon (layer TEST) to cut
# first and measure (hardware/README.md). The plain .dxf files are the finished sizes, for a CNC
# router (its CAM offsets by the cutter's radius) or a cutting service that compensates itself.
COUPON_MM = 10.0  # the coupon's margin around its hole
# A router's cutter leaves its radius in a pocket's inside corners, and a die (a sharp cube) rides
# up on that fillet: a corner of the die at the well's corner fits a fillet of radius r only if
# r <= (well - die) / 2 / (sqrt 2 - 1), 0.36 mm in a 20.3 mm well, a cutter under 1 mm through 10 mm
# acrylic. wells-cnc.dxf draws each well's corner with a relief (a "dog-bone"): a half circle of
# the cutter's radius through the corner, centred on the diagonal inside the well, which any
# cutter up to CNC_CUTTER_MM across follows into the corner. It reaches 0.29 of the radius past
# the well's sides into the ribs, near the corners only.
CNC_CUTTER_MM = 3.175  # 1/8 in, the common size for 10 mm acrylic; a smaller one follows it too


def plate_dxf(lay, kerf=0.0):
    doc = _doc()
    msp = doc.modelspace()
    _box(msp, lay.plate_box, "OUTLINE", kerf / 2)
    _holes(msp, lay, lay.plate_holes(), kerf / 2)
    return doc


def wells_dxf(lay, kerf=0.0, cutter=0.0):
    """The well sheet; `kerf`: a laser's (wells-laser.dxf); `cutter`: a router's diameter, each well's
    corners relieved for it (wells-cnc.dxf)."""
    doc = _doc()
    msp = doc.modelspace()
    _box(msp, lay.plate_box, "OUTLINE", kerf / 2)
    for x, y, side in lay.wells():
        if cutter:
            _relieved(msp, (x - side / 2, y - side / 2, x + side / 2, y + side / 2), cutter / 2, "WELLS")
        else:
            _box(msp, (x - side / 2, y - side / 2, x + side / 2, y + side / 2), "WELLS", -kerf / 2)
    _holes(msp, lay, lay.plate_holes(), kerf / 2)
    if kerf:
        _coupon(msp, lay, lay.physics["well_mm"][0], kerf)
    return doc


def relief(box, r):
    """A square hole's outline with a dog-bone of radius `r` at each corner: counter-clockwise
    [(x, y, bulge)], each corner's half circle (bulge 1: 180 degrees, counter-clockwise) from
    the point sqrt(2) r before the corner on one side to as far along the next, through the corner."""
    x0, y0, x1, y1 = box
    d = 2 ** 0.5 * r
    # each corner: the way back along the side that ends there, and the next side's way
    corners = [((x1, y0), (-1, 0), (0, 1)), ((x1, y1), (0, -1), (-1, 0)), ((x0, y1), (1, 0), (0, -1)),
               ((x0, y0), (0, 1), (1, 0))]
    out = []
    for (cx, cy), (bx, by), (nx, ny) in corners:
        out.append((cx + bx * d, cy + by * d, 1.0))
        out.append((cx + nx * d, cy + ny * d, 0.0))
    return out


def _relieved(msp, box, r, layer):
    msp.add_lwpolyline([(x, y, 0, 0, b) for x, y, b in relief(box, r)], format="xyseb", close=True,
                       dxfattribs={"layer": layer})


def coupon(lay, hole):
    """(outer box, hole box) of the test coupon: a square of `hole` with COUPON_MM around it, west of
    the sheet's outline."""
    x0, y0, _, _ = lay.plate_box
    side = hole + 2 * COUPON_MM
    ox, oy = x0 - 10 - side, y0
    hx, hy = ox + COUPON_MM, oy + COUPON_MM
    return (ox, oy, ox + side, oy + side), (hx, hy, hx + hole, hy + hole)


def _coupon(msp, lay, hole, kerf):
    outer, inner = coupon(lay, hole)
    _box(msp, outer, "TEST", kerf / 2)
    _box(msp, inner, "TEST", -kerf / 2)


def enclosure_box(lay):
    """The enclosure's base: the PCB with a clearance and the wall around it."""
    gap = lay.mech["wall_mm"]
    x0, y0, x1, y1 = lay.pcb_box
    return (x0 - 2 * gap, y0 - 2 * gap, x1 + 2 * gap, y1 + 2 * gap)


def wall_height(lay):
    """The walls stand on the base and reach the well sheet's top face."""
    s = lay.stack()
    return lay.mech["standoff_mm"] + lay.mech["pcb_mm"] + s["wells_top"]


# The lid over the electronics strip (issue 39: the devkit stood above the walls, its pins bare). It
# clears the devkit's tallest part: the ESP32-WROVER-E module, 3.3 +-0.1 mm (its datasheet, physical
# dimensions: 18.00 x 31.40 x 3.30 mm), on the devkit's board (the stack of the USB socket above).
# The button (Omron B3F-1000, 4.3 mm tall: Omron B3F datasheet) is pressed through the lid by a
# printed plunger.
MODULE_MM = 3.4
LID_CLEARANCE_MM = 1.5
BUTTON_MM = 4.3
BUTTON_HOLE_MM = 7.0
# the plunger: its shaft, its collar (under the lid, so it cannot fall out) and the collar's height, and
# how far it stands out of the lid
PLUNGER_MM = (6.0, 10.0, 1.5, 2.0)


def lid_plan(lay):
    """The lid: a plate of the walls' sheet over the strip, on the north, south and east walls (as
    high as its underside along the strip) and on its own front wall, which stands on the PCB beside
    the well sheet. Heights z from the base's top face, x and y as the board's."""
    t, me = lay.mech["wall_mm"], lay.mech
    pcb_top = me["standoff_mm"] + me["pcb_mm"]
    devkit_top = pcb_top + SOCKET_MM + HEADER_SPACER_MM + DEVKIT_PCB_MM + MODULE_MM
    under = devkit_top + LID_CLEARANCE_MM
    x0, y0, x1, y1 = enclosure_box(lay)
    step = lay.plate_box[2] + 0.5  # the lid's west edge: just east of the well sheet
    bx, by, _ = lay.strip()["SW1"]
    button_top = pcb_top + BUTTON_MM
    shaft, collar, collar_h, above = PLUNGER_MM
    # the USB cable's overmould stands above the lid's underside (usb_opening): the lid has the
    # south wall's notch too, from its south edge to the devkit's socket and the plug's clearance
    usb, (_, socket_y) = usb_opening(lay), lay.devkit_usb()
    return {"under": under, "top": under + t, "devkit_top": devkit_top, "step": step,
            "usb_notch": (usb["x0"], y0, usb["x1"], socket_y + PLUG_CLEARANCE_MM),
            "plate": (step, y0, x1, y1), "front": (step, y0 + t, step + t, y1 - t), "front_z": (pcb_top, under),
            "button": (bx, by), "button_top": button_top, "plunger": (button_top, under + t + above),
            "shaft": shaft, "collar": collar, "collar_h": collar_h}


def walls(lay):
    """{side: (length, height)}: the four walls, each wall_mm thick, standing on the base's edge;
    the north and south walls run the base's whole width, east and west fit between them. The
    north, south and east walls stand as high as the lid's underside along the strip; `profile`
    gives their outlines."""
    x0, y0, x1, y1 = enclosure_box(lay)
    t, h = lay.mech["wall_mm"], lid_plan(lay)["under"]
    return {"south": (x1 - x0, h), "north": (x1 - x0, h), "west": (y1 - y0 - 2 * t, wall_height(lay)),
            "east": (y1 - y0 - 2 * t, h)}


def profile(lay, side):
    """A wall's outline laid flat, counter-clockwise, x along it as the board's x (north and south,
    seen from outside the south one) or from its south end (east, west), z up from the base."""
    x0, _, x1, _ = enclosure_box(lay)
    length, h = walls(lay)[side]
    if side in ("south", "north"):  # the plate's height to the lid's step, the lid's beyond
        lid = lid_plan(lay)
        return [(x0, 0.0), (x1, 0.0), (x1, h), (lid["step"], h), (lid["step"], wall_height(lay)),
                (x0, wall_height(lay))]
    return [(0.0, 0.0), (length, 0.0), (length, h), (0.0, h)]


def usb_opening(lay):
    """The opening in the south wall for the USB cable, in the wall's frame: x as the board's,
    z up from the base's top face. {"x", "z": the devkit's socket; "x0", "x1", "z0", "z1": the
    opening (z1 above the wall's top means a notch open at the top)}."""
    x, _ = lay.devkit_usb()
    z = lay.mech["standoff_mm"] + lay.mech["pcb_mm"] + USB_ABOVE_PCB_MM
    w, h = PLUG_MM[0] / 2 + PLUG_CLEARANCE_MM, PLUG_MM[1] / 2 + PLUG_CLEARANCE_MM
    return {"x": x, "z": z, "x0": x - w, "x1": x + w, "z0": z - h, "z1": z + h}


def usb_c_opening(lay):
    """Where the USB-C cable (J1) needs the south wall open, as usb_opening(): J1 sits under the
    devkit's USB end, so this lies under the devkit's notch; south_opening() joins the two."""
    x, _ = lay.usb_c()
    z = lay.mech["standoff_mm"] + lay.mech["pcb_mm"] + USB_C_CENTRE_MM
    w, h = USB_C_PLUG_MM[0] / 2 + PLUG_CLEARANCE_MM, USB_C_PLUG_MM[1] / 2 + PLUG_CLEARANCE_MM
    return {"x": x, "z": z, "x0": x - w, "x1": x + w, "z0": z - h, "z1": z + h}


def _inset(points, d):
    """A closed counter-clockwise outline of right angles, every edge moved d inwards."""
    out = []
    for i, (x, y) in enumerate(points):
        (ax, ay), (bx, by) = points[i - 1], points[(i + 1) % len(points)]
        n1 = (_sign(ay - y), _sign(x - ax))  # each edge's inward normal: (-dy, dx) of its direction
        n2 = (_sign(y - by), _sign(bx - x))
        out.append((x + d * (n1[0] + n2[0]), y + d * (n1[1] + n2[1])))
    return out


def south_opening(lay):
    """The south wall's one opening for both cables, in usb_opening()'s frame: the devkit's notch
    (usb_opening) carried down to the bottom of J1's (usb_c_opening), and J1's as wide as it needs
    below: {"boxes": the two rectangles whose union it is, "outline": its outline from the wall's
    top down and back up (a closed outline when the wall stands over the devkit's plug)}."""
    usb, c = usb_opening(lay), usb_c_opening(lay)
    top = min(usb["z1"], walls(lay)["south"][1])
    upper = (usb["x0"], c["z0"], usb["x1"], usb["z1"])
    lower = (min(c["x0"], usb["x0"]), c["z0"], max(c["x1"], usb["x1"]), c["z1"])
    lx0, lz0, lx1, lz1 = lower
    outline = [(usb["x0"], top), (usb["x0"], lz1), (lx0, lz1), (lx0, lz0), (lx1, lz0), (lx1, lz1),
               (usb["x1"], lz1), (usb["x1"], top)]
    outline = [p for i, p in enumerate(outline) if i == 0 or p != outline[i - 1]]
    outline = [p for i, p in enumerate(outline)  # a side J1's does not widen: no corner there
               if not 0 < i < len(outline) - 1 or len({outline[i - 1][0], p[0], outline[i + 1][0]}) > 1
               and len({outline[i - 1][1], p[1], outline[i + 1][1]}) > 1]
    return {"boxes": [upper, lower], "outline": outline, "open": usb["z1"] >= walls(lay)["south"][1]}


# The south wall fits one way only (its opening is near one end): its outside face is engraved
# "OUT" beside the opening, on the side away from the nearer end, with an arrow towards that end.
MARK_DEPTH_MM = 0.4  # the arrow engraved in the solid's outside face
LETTER_MM = (3.0, 5.0)
MARK_GAP_MM = 4.0  # from the opening's edge to the mark's nearest stroke


def out_mark(lay):
    """The south wall's mark, as seen from outside, in the wall's frame (x as the board's, z up
    from the base): {"letters": open strokes spelling OUT, "arrow": its outline (tail to tip),
    "towards": +1 or -1, the end of the wall the opening is nearer}."""
    usb, c = usb_opening(lay), usb_c_opening(lay)
    x0, _, x1, _ = enclosure_box(lay)
    towards = 1 if usb["x"] > (x0 + x1) / 2 else -1
    edge = min(usb["x0"], c["x0"]) if towards > 0 else max(usb["x1"], c["x1"])
    w, h = LETTER_MM
    mid = edge - towards * (MARK_GAP_MM + 7.0)  # the arrow (14 mm) is the mark's widest part
    bottom = c["z0"] + 4.0
    left = mid - (3 * w + 2 * 1.5) / 2
    o, u, t = left, left + w + 1.5, left + 2 * (w + 1.5)
    top = bottom + h
    letters = [[(o + 0.8, top), (o, top), (o, bottom), (o + w, bottom), (o + w, top), (o + 1.4, top)],
               [(u, top), (u, bottom), (u + w, bottom), (u + w, top)],
               [(t, top), (t + w, top)], [(t + w / 2, top), (t + w / 2, bottom)]]
    z = bottom - 4.0
    tail, tip = mid - towards * 7.0, mid + towards * 7.0
    neck = tip - towards * 3.0
    arrow = [(tail, z - 0.6), (neck, z - 0.6), (neck, z - 2.0), (tip, z), (neck, z + 2.0), (neck, z + 0.6),
             (tail, z + 0.6)]
    return {"letters": letters, "arrow": arrow, "towards": towards}


def enclosure_dxf(lay, kerf=0.0):
    """The base (outline and standoff holes, the PCB's place engraved, not cut) and, below it,
    the four walls laid flat, the south one with the opening for the USB cable and its
    OUT mark to engrave, then the lid (with the button's hole) and the lid's front wall."""
    doc = _doc()
    msp = doc.modelspace()
    e = enclosure_box(lay)
    g = kerf / 2
    _box(msp, e, "OUTLINE", g)
    px0, py0, px1, py1 = lay.pcb_box  # where the PCB sits: lines to engrave, open so no cutter cuts them out
    msp.add_lwpolyline([(px0, py0), (px1, py0), (px1, py1), (px0, py1), (px0, py0 + 5)], close=False,
                       dxfattribs={"layer": "ENGRAVE"})
    _holes(msp, lay, lay.pcb_holes(), g)
    y = e[1] - 10  # the walls, laid out below the base
    for side, (length, height) in walls(lay).items():
        y -= height
        shape = profile(lay, side)
        dx = 0.0 if side in ("south", "north") else e[0]
        _outline(msp, [(u + dx, y + v) for u, v in shape], "OUTLINE", g)
        if side == "south":  # both cables' opening: open at the top where the wall is lower than the plug
            cut = south_opening(lay)
            points = _inset(cut["outline"], g)  # a hole: its cut moves in by half the kerf
            if cut["open"]:
                (u0, _), (u1, _) = points[0], points[-1]
                points = [(u0, height + g)] + points[1:-1] + [(u1, height + g)]
            msp.add_lwpolyline([(u, y + v) for u, v in points], close=not cut["open"], dxfattribs={"layer": "USB"})
            mark = out_mark(lay)
            for stroke in mark["letters"] + [mark["arrow"]]:  # open lines: engraved, never cut out
                msp.add_lwpolyline([(u, y + v) for u, v in stroke], close=False, dxfattribs={"layer": "ENGRAVE"})
        y -= 5
    lid = lid_plan(lay)
    lx0, ly0, lx1, ly1 = lid["plate"]  # the lid, as it lies over the strip, moved below the walls
    y -= ly1 - ly0
    nx0, _, nx1, ny1 = lid["usb_notch"]  # open at its south edge, over the wall's notch
    _outline(msp, [(lx0, y), (nx0, y), (nx0, y + ny1 - ly0), (nx1, y + ny1 - ly0), (nx1, y), (lx1, y),
                   (lx1, y + ly1 - ly0), (lx0, y + ly1 - ly0)], "OUTLINE", g)
    bx, by = lid["button"]
    msp.add_circle((bx, y + by - ly0), BUTTON_HOLE_MM / 2 - g, dxfattribs={"layer": "HOLES"})
    fx0, fy0, fx1, fy1 = lid["front"]  # its front wall, laid flat: as long as the lid is deep
    z0, z1 = lid["front_z"]
    y -= 5 + z1 - z0
    _box(msp, (e[0], y, e[0] + fy1 - fy0, y + z1 - z0), "OUTLINE", g)
    if kerf:
        _coupon(msp, lay, COUPON_MM, kerf)
    return doc


def write_dxf(doc, path):
    import io

    buf = io.StringIO()
    doc.write(buf)
    text = re.sub(r"(\$(?:FINGERPRINTGUID|VERSIONGUID)\n *2\n)\{[^}]*\}", r"\1{00000000-0000-0000-0000-000000000000}",
                  buf.getvalue())  # ezdxf stamps each write with new ids and dates: the file follows its geometry only
    text = re.sub(r"(\$TD\w+\n *40\n)[0-9.]+", r"\g<1>2451545.0", text)
    text = re.sub(r"(?m)^([0-9.]+) @ [0-9T:.+-]+$", r"\1", text)
    path.write_text(text)


# --- solids (build123d) -----------------------------------------------------------------------
def _slab(lay, box, z0, thickness, cuts):
    from build123d import Align, Box, Cylinder, Pos

    x0, y0, x1, y1 = box
    solid = Pos(x0, y0, z0) * Box(x1 - x0, y1 - y0, thickness, align=(Align.MIN, Align.MIN, Align.MIN))
    for kind, x, y, size in cuts:
        shape = (Cylinder(size / 2, thickness + 2) if kind == "hole" else Box(size, size, thickness + 2))
        solid -= Pos(x, y, z0 + thickness / 2) * shape
    return solid


def plate_solid(lay):
    s = lay.stack()
    cuts = [("hole", x, y, lay.mech["hole_mm"]) for x, y in lay.plate_holes()]
    return _slab(lay, lay.plate_box, s["floor_bottom"], s["floor_top"] - s["floor_bottom"], cuts)


def wells_solid(lay):
    s = lay.stack()
    cuts = [("hole", x, y, lay.mech["hole_mm"]) for x, y in lay.plate_holes()]
    cuts += [("well", x, y, side) for x, y, side in lay.wells()]
    return _slab(lay, lay.plate_box, s["floor_top"], s["wells_top"] - s["floor_top"], cuts)


def enclosure_solid(lay):
    """The base and four walls, standing where the stack puts them (z from the PCB's top face),
    with the standoffs' holes, the USB cable's opening and the south wall's arrow."""
    from build123d import Align, Box, Cylinder, Plane, Polygon, Pos, extrude

    t, floor = lay.mech["wall_mm"], lay.stack()["enclosure_floor"]
    x0, y0, x1, y1 = enclosure_box(lay)
    h, high, step = wall_height(lay), lid_plan(lay)["under"], lid_plan(lay)["step"]
    low = (Align.MIN, Align.MIN, Align.MIN)
    solid = Pos(x0, y0, floor - t) * Box(x1 - x0, y1 - y0, t, align=low)
    for wx0, wy0, wx1, wy1 in ((x0, y0, x1, y0 + t), (x0, y1 - t, x1, y1),
                               (x0, y0 + t, x0 + t, y1 - t), (x1 - t, y0 + t, x1, y1 - t)):
        solid += Pos(wx0, wy0, floor) * Box(wx1 - wx0, wy1 - wy0, h, align=low)
    for wx0, wy0, wx1, wy1 in ((step, y0, x1, y0 + t), (step, y1 - t, x1, y1), (x1 - t, y0 + t, x1, y1 - t)):
        solid += Pos(wx0, wy0, floor) * Box(wx1 - wx0, wy1 - wy0, high, align=low)  # up to the lid
    for x, y in lay.pcb_holes():
        solid -= Pos(x, y, floor - t / 2) * Cylinder(lay.mech["hole_mm"] / 2, t + 2)
    for bx0, bz0, bx1, bz1 in south_opening(lay)["boxes"]:
        solid -= Pos(bx0, y0 - 1, floor + bz0) * Box(bx1 - bx0, t + 2, bz1 - bz0, align=low)
    arrow = Polygon(*[(u, floor + v) for u, v in out_mark(lay)["arrow"]], align=None)
    solid -= Pos(0, y0 + MARK_DEPTH_MM, 0) * extrude(Plane.XZ * arrow, amount=MARK_DEPTH_MM + 1)
    return solid


# Where each magnet's pocket can land, per axis, when the die is pushed into the jig's marked
# corner (jig_plan): the sum must stay within physics.magnet.place_tol_mm.
# - the die's size: its centre is half its side from the corner's walls, so half of die_mm's
#   tolerance (board.json physics.die_mm);
# - the drill's play in its guide: half of GUIDE_CLEARANCE_MM, once the maker has run the drill
#   through each printed guide hole (a printed hole comes out about 0.1 mm small, so the drill
#   reams it to its own size and the play is at most the hole as drawn);
# - the print: a guide hole's place relative to the corner's walls, 16 mm apart at most, both
#   in one print. PRINT_ERROR_MM is our assumption for a calibrated desktop FDM printer (not a
#   printer's datasheet figure): README's "Building the dice" has the maker check it with
#   calipers before drilling (each wall to the centre hole's near edge).
GUIDE_CLEARANCE_MM = 0.1
PRINT_ERROR_MM = 0.1
# The die registers against the pocket's walls at this corner (-x, -y: S and W as the guide's N
# mark reads); the jig's outer corner there is cut off at 45 degrees to mark it.
REGISTER = (-1, -1)
REGISTER_CUT_MM = 4.0


def jig_plan(lay):
    """The jig's sizes: a block with a square pocket a die slides into, open below, and a
    guide plate on top with a drill hole over each of the five magnet places (centre, and
    ring_mm towards each edge's middle). The pocket is wider than the largest die; the maker
    pushes the die into the marked corner (REGISTER), and the holes are placed from that
    corner at the nominal die's half side, so the die's play in the pocket moves nothing."""
    ph, jig = lay.physics, lay.mech["jig"]
    die, die_tol = ph["die_mm"]
    pocket = die + die_tol + jig["fit_mm"]  # the largest die slides in
    ring = ph["ring_mm"]
    cx, cy = (sx * (pocket / 2 - die / 2) for sx in REGISTER)  # the nominal die's centre, in the corner
    errors = {"die size": die_tol / 2, "drill in its guide": GUIDE_CLEARANCE_MM / 2, "print": PRINT_ERROR_MM}
    # the drill's depth stop, from its tip, with the die against the guide: the guide plate, the
    # middle of physics.magnet.pocket_mm (the depth at which the hole is still the drill's full
    # width, deeper than the tallest magnet: set flush, glue behind) and the drill's point, which
    # cuts a cone below that depth (a stop set to the tip alone left the hole full width only
    # 1.0-1.3 mm deep: a 1.69 mm magnet stood proud)
    point = point_length(jig["drill_mm"], jig["drill_point_deg"])
    full_width = sum(ph["magnet"]["pocket_mm"]) / 2
    stop = jig["guide_mm"] + full_width + point
    return {"pocket": pocket, "outer": pocket + 2 * jig["wall_mm"], "depth": die / 2, "stop": stop,
            "point": point, "point_deg": jig["drill_point_deg"], "full_width": stop - jig["guide_mm"] - point,
            "guide": jig["guide_mm"], "drill": jig["drill_mm"], "guide_hole": jig["drill_mm"] + GUIDE_CLEARANCE_MM,
            "centre": (cx, cy), "holes": [(cx + dx * ring, cy + dy * ring) for dx, dy in layout_module.STEP.values()],
            "place_errors": errors, "place_error": sum(errors.values())}


def point_length(diameter, point_deg):
    """How far a twist drill's conical point reaches below the depth where its hole is full
    width: half its diameter over the tangent of half its point angle (118 degrees, the usual
    point of an HSS jobber drill, DIN 338 type N: 0.30 x the diameter; 135 degrees, a split
    point: 0.21 x). 180 degrees is a flat-bottom cutter: no point."""
    import math

    if point_deg >= 180:
        return 0.0
    return diameter / 2 / math.tan(math.radians(point_deg) / 2)


def jig_solid(lay):
    """The jig (jig_plan). A notch marks the guide's N edge, a cut corner the corner to push the
    die into. Stand it over a die, push the die into that corner, drill, turn the die."""
    from build123d import Align, Box, Cylinder, Pos, Rot

    plan = jig_plan(lay)
    pocket, outer, depth = plan["pocket"], plan["outer"], plan["depth"]
    height = depth + plan["guide"]
    block = Box(outer, outer, height, align=(Align.CENTER, Align.CENTER, Align.MIN))
    block -= Box(pocket, pocket, depth, align=(Align.CENTER, Align.CENTER, Align.MIN))
    up = (Align.CENTER, Align.CENTER, Align.MIN)
    for cx in (-1, 1):  # room for the die's edges, so it seats flat on the guide and in the corner
        for cy in (-1, 1):
            block -= Pos(cx * pocket / 2, cy * pocket / 2, 0) * Cylinder(1.0, depth, align=up)
    for x, y in plan["holes"]:
        block -= Pos(x, y, depth - 1) * Cylinder(plan["guide_hole"] / 2, plan["guide"] + 2, align=up)
    block -= Pos(0, outer / 2, height) * Cylinder(1.5, 2.0)  # the N mark
    rx, ry = (s * outer / 2 for s in REGISTER)  # the push-here corner, cut off
    cut = REGISTER_CUT_MM * 2 ** 0.5
    block -= Pos(rx, ry, height / 2) * Rot(0, 0, 45) * Box(cut, cut, height + 2)
    return block


def lid_solid(lay):
    """The lid and its front wall, where they stand (z from the PCB's top face), with the button's hole."""
    from build123d import Align, Box, Cylinder, Pos

    lid, t = lid_plan(lay), lay.mech["wall_mm"]
    floor = lay.stack()["enclosure_floor"]  # the base's top face, in the PCB's frame
    low = (Align.MIN, Align.MIN, Align.MIN)
    lx0, ly0, lx1, ly1 = lid["plate"]
    solid = Pos(lx0, ly0, floor + lid["under"]) * Box(lx1 - lx0, ly1 - ly0, t, align=low)
    bx, by = lid["button"]
    solid -= Pos(bx, by, floor + lid["under"] + t / 2) * Cylinder(BUTTON_HOLE_MM / 2, t + 2)
    nx0, ny0, nx1, ny1 = lid["usb_notch"]
    solid -= Pos(nx0, ny0 - 1, floor + lid["under"] - 1) * Box(nx1 - nx0, ny1 - ny0 + 1, t + 2, align=low)
    fx0, fy0, fx1, fy1 = lid["front"]
    z0, z1 = lid["front_z"]
    return solid + Pos(fx0, fy0, floor + z0) * Box(fx1 - fx0, fy1 - fy0, z1 - z0, align=low)


def plunger_solid(lay):
    """The button's plunger, standing on the button (z from the PCB's top face): a shaft up through
    the lid's hole, a collar under the lid that keeps it in."""
    from build123d import Align, Cylinder, Pos

    lid = lid_plan(lay)
    floor = lay.stack()["enclosure_floor"]
    bx, by = lid["button"]
    z0, z1 = lid["plunger"]
    up = (Align.CENTER, Align.CENTER, Align.MIN)
    solid = Pos(bx, by, floor + z0) * Cylinder(lid["shaft"] / 2, z1 - z0, align=up)
    return solid + Pos(bx, by, floor + z0) * Cylinder(lid["collar"] / 2, lid["collar_h"], align=up)


def die_plan(lay):
    """A die to print (dice/die.stl): a cube of physics.die_mm with a pocket at every magnet place of
    every face (centre, ring_mm towards each edge's middle), as wide as the drill and as deep as
    physics.magnet.pocket_mm's middle, flat-bottomed. Glue magnets in the pockets the face's code
    needs (dice/faces.svg); an empty pocket changes no field. Printed holes come out about 0.1 mm
    small: run the 3.3 mm drill through each by hand, as the jig's guide holes."""
    ph = lay.physics
    return {"side": ph["die_mm"][0], "pocket": lay.mech["jig"]["drill_mm"], "depth": sum(ph["magnet"]["pocket_mm"]) / 2,
            "ring": ph["ring_mm"]}


def die_solid(lay):
    from build123d import Align, Box, Cylinder, Pos, Rot

    plan = die_plan(lay)
    side, r, depth = plan["side"], plan["pocket"] / 2, plan["depth"]
    die = Box(side, side, side)
    turns = (Rot(0, 0, 0), Rot(180, 0, 0), Rot(90, 0, 0), Rot(-90, 0, 0), Rot(0, 90, 0), Rot(0, -90, 0))
    down = (Align.CENTER, Align.CENTER, Align.MAX)
    for turn in turns:  # each face: the pockets cut from its plane inwards
        for dx, dy in layout_module.STEP.values():
            die -= turn * Pos(dx * plan["ring"], dy * plan["ring"], side / 2) * Cylinder(r, depth, align=down)
    return die


def _step(solid, path):
    from build123d import export_step

    export_step(solid, str(path))
    text = path.read_text()
    text = re.sub(r"FILE_NAME\('[^']*','[^']*'", "FILE_NAME('%s',''" % path.name, text)  # no path, no date
    path.write_text(text)


def _stl(solid, path):
    from build123d import export_stl

    export_stl(solid, str(path), tolerance=0.02, angular_tolerance=0.2)


def build(lay, root=HERE, solids=True):
    """Write every mechanical file under `root`; return their paths."""
    mechanics, dice = root / MECHANICS.name, root / DICE.name
    mechanics.mkdir(exist_ok=True)
    dice.mkdir(exist_ok=True)
    out = []
    laser = lay.mech["laser"]
    drawings = (("plate", plate_dxf(lay)), ("wells", wells_dxf(lay)), ("enclosure", enclosure_dxf(lay)),
                ("wells-laser", wells_dxf(lay, laser["kerf_wells_mm"])),
                ("wells-cnc", wells_dxf(lay, cutter=CNC_CUTTER_MM)),
                ("enclosure-laser", enclosure_dxf(lay, laser["kerf_enclosure_mm"])))
    for name, doc in drawings:
        write_dxf(doc, mechanics / (name + ".dxf"))
        out.append(mechanics / (name + ".dxf"))
    if solids:
        solids = (("plate", plate_solid(lay)), ("wells", wells_solid(lay)), ("enclosure", enclosure_solid(lay)),
                  ("lid", lid_solid(lay)))
        for name, solid in solids:
            _step(solid, mechanics / (name + ".step"))
            _stl(solid, mechanics / (name + ".stl"))
            out += [mechanics / (name + ".step"), mechanics / (name + ".stl")]
        _stl(plunger_solid(lay), mechanics / "button.stl")
        _stl(jig_solid(lay), dice / "jig.stl")
        _stl(die_solid(lay), dice / "die.stl")
        out += [mechanics / "button.stl", dice / "jig.stl", dice / "die.stl"]
    return out


if __name__ == "__main__":
    for path in build(layout_module.load()):
        print("wrote", path.relative_to(HERE.parent))
