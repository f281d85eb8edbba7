"""The board's mechanics from board.json: what a laser cutter and a 3D printer take.

    python hardware/mechanics.py          # writes hardware/mechanics/ and hardware/dice/

    mechanics/plate.dxf      the floor plate (bare FR-4): outline and mounting holes
    mechanics/wells.dxf      the well sheet (opal acrylic): outline, the wells, mounting holes
    mechanics/enclosure.dxf  the enclosure: its base (outline, the standoffs' holes) and its walls laid
                             flat, the south one with the opening for the USB cable
    mechanics/*.step, *.stl  the plate, the well sheet and the enclosure as solids, placed in the stack
    dice/jig.stl             the drilling jig: holds a die, guides the drill to every pocket

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


# --- drawings (ezdxf) -------------------------------------------------------------------------
def _doc():
    import ezdxf

    doc = ezdxf.new("R2010", setup=False)
    doc.units = ezdxf.units.MM
    for name, colour in (("OUTLINE", 7), ("HOLES", 1), ("WELLS", 3), ("USB", 5), ("ENGRAVE", 4)):
        doc.layers.add(name, color=colour)
    return doc


def _box(msp, box, layer):
    x0, y0, x1, y1 = box
    msp.add_lwpolyline([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], close=True, dxfattribs={"layer": layer})


def _holes(msp, lay, holes):
    for x, y in holes:
        msp.add_circle((x, y), lay.mech["hole_mm"] / 2, dxfattribs={"layer": "HOLES"})


def plate_dxf(lay):
    doc = _doc()
    msp = doc.modelspace()
    _box(msp, lay.plate_box, "OUTLINE")
    _holes(msp, lay, lay.plate_holes())
    return doc


def wells_dxf(lay):
    doc = _doc()
    msp = doc.modelspace()
    _box(msp, lay.plate_box, "OUTLINE")
    for x, y, side in lay.wells():
        _box(msp, (x - side / 2, y - side / 2, x + side / 2, y + side / 2), "WELLS")
    _holes(msp, lay, lay.plate_holes())
    return doc


def enclosure_box(lay):
    """The enclosure's base: the PCB with a clearance and the wall around it."""
    gap = lay.mech["wall_mm"]
    x0, y0, x1, y1 = lay.pcb_box
    return (x0 - 2 * gap, y0 - 2 * gap, x1 + 2 * gap, y1 + 2 * gap)


def wall_height(lay):
    """The walls stand on the base and reach the well sheet's top face."""
    s = lay.stack()
    return lay.mech["standoff_mm"] + lay.mech["pcb_mm"] + s["wells_top"]


def walls(lay):
    """{side: (length, height)}: the four walls, each wall_mm thick, standing on the base's edge;
    the north and south walls run the base's whole width, east and west fit between them."""
    x0, y0, x1, y1 = enclosure_box(lay)
    t, h = lay.mech["wall_mm"], wall_height(lay)
    return {"south": (x1 - x0, h), "north": (x1 - x0, h), "west": (y1 - y0 - 2 * t, h), "east": (y1 - y0 - 2 * t, h)}


def usb_opening(lay):
    """The opening in the south wall for the USB cable, in the wall's frame: x as the board's,
    z up from the base's top face. {"x", "z": the devkit's socket; "x0", "x1", "z0", "z1": the
    opening (z1 above the wall's top means a notch open at the top)}."""
    x, _ = lay.devkit_usb()
    z = lay.mech["standoff_mm"] + lay.mech["pcb_mm"] + USB_ABOVE_PCB_MM
    w, h = PLUG_MM[0] / 2 + PLUG_CLEARANCE_MM, PLUG_MM[1] / 2 + PLUG_CLEARANCE_MM
    return {"x": x, "z": z, "x0": x - w, "x1": x + w, "z0": z - h, "z1": z + h}


# The south wall fits one way only (its notch is near one end): its outside face is engraved
# "OUT" under the notch, with an arrow towards the wall's end nearer the notch.
MARK_DEPTH_MM = 0.4  # the arrow engraved in the solid's outside face
LETTER_MM = (3.0, 5.0)


def out_mark(lay):
    """The south wall's mark, as seen from outside, in the wall's frame (x as the board's, z up
    from the base): {"letters": open strokes spelling OUT, "arrow": its outline (tail to tip),
    "towards": +1 or -1, the end of the wall the notch is nearer}."""
    usb = usb_opening(lay)
    x0, _, x1, _ = enclosure_box(lay)
    towards = 1 if usb["x"] > (x0 + x1) / 2 else -1
    w, h = LETTER_MM
    bottom = usb["z0"] - 4.0 - h
    left = usb["x"] - (3 * w + 2 * 1.5) / 2
    o, u, t = left, left + w + 1.5, left + 2 * (w + 1.5)
    top = bottom + h
    letters = [[(o + 0.8, top), (o, top), (o, bottom), (o + w, bottom), (o + w, top), (o + 1.4, top)],
               [(u, top), (u, bottom), (u + w, bottom), (u + w, top)],
               [(t, top), (t + w, top)], [(t + w / 2, top), (t + w / 2, bottom)]]
    z = bottom - 4.0
    tail, tip = usb["x"] - towards * 7.0, usb["x"] + towards * 7.0
    neck = tip - towards * 3.0
    arrow = [(tail, z - 0.6), (neck, z - 0.6), (neck, z - 2.0), (tip, z), (neck, z + 2.0), (neck, z + 0.6),
             (tail, z + 0.6)]
    return {"letters": letters, "arrow": arrow, "towards": towards}


def enclosure_dxf(lay):
    """The base (outline and standoff holes, the PCB's place engraved, not cut) and, below it,
    the four walls laid flat, the south one with the opening for the USB cable and its
    OUT mark to engrave."""
    doc = _doc()
    msp = doc.modelspace()
    e = enclosure_box(lay)
    _box(msp, e, "OUTLINE")
    px0, py0, px1, py1 = lay.pcb_box  # where the PCB sits: lines to engrave, open so no cutter cuts them out
    msp.add_lwpolyline([(px0, py0), (px1, py0), (px1, py1), (px0, py1), (px0, py0 + 5)], close=False,
                       dxfattribs={"layer": "ENGRAVE"})
    _holes(msp, lay, lay.pcb_holes())
    usb = usb_opening(lay)
    y = e[1] - 10  # the walls, laid out below the base
    for side, (length, height) in walls(lay).items():
        y -= height
        _box(msp, (e[0], y, e[0] + length, y + height), "OUTLINE")
        if side == "south":
            bottom, top = y + usb["z0"], y + usb["z1"]
            if top >= y + height:  # the wall is lower than the plug's top: a notch open at the top
                msp.add_lwpolyline([(usb["x0"], y + height), (usb["x0"], bottom), (usb["x1"], bottom),
                                    (usb["x1"], y + height)], close=False, dxfattribs={"layer": "USB"})
            else:
                _box(msp, (usb["x0"], bottom, usb["x1"], top), "USB")
            mark = out_mark(lay)
            for stroke in mark["letters"] + [mark["arrow"]]:  # open lines: engraved, never cut out
                msp.add_lwpolyline([(u, y + v) for u, v in stroke], close=False, dxfattribs={"layer": "ENGRAVE"})
        y -= 5
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
    h = wall_height(lay)
    low = (Align.MIN, Align.MIN, Align.MIN)
    solid = Pos(x0, y0, floor - t) * Box(x1 - x0, y1 - y0, t, align=low)
    for wx0, wy0, wx1, wy1 in ((x0, y0, x1, y0 + t), (x0, y1 - t, x1, y1),
                               (x0, y0 + t, x0 + t, y1 - t), (x1 - t, y0 + t, x1, y1 - t)):
        solid += Pos(wx0, wy0, floor) * Box(wx1 - wx0, wy1 - wy0, h, align=low)
    for x, y in lay.pcb_holes():
        solid -= Pos(x, y, floor - t / 2) * Cylinder(lay.mech["hole_mm"] / 2, t + 2)
    usb = usb_opening(lay)
    solid -= Pos(usb["x0"], y0 - 1, floor + usb["z0"]) * Box(usb["x1"] - usb["x0"], t + 2, usb["z1"] - usb["z0"],
                                                             align=low)
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
    # the drill's depth stop, from its tip, with the die against the guide: the guide plate and
    # the middle of physics.magnet.pocket_mm, deeper than the tallest magnet (set flush, glue behind)
    stop = jig["guide_mm"] + sum(ph["magnet"]["pocket_mm"]) / 2
    return {"pocket": pocket, "outer": pocket + 2 * jig["wall_mm"], "depth": die / 2, "stop": stop,
            "guide": jig["guide_mm"], "drill": jig["drill_mm"], "guide_hole": jig["drill_mm"] + GUIDE_CLEARANCE_MM,
            "centre": (cx, cy), "holes": [(cx + dx * ring, cy + dy * ring) for dx, dy in layout_module.STEP.values()],
            "place_errors": errors, "place_error": sum(errors.values())}


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
    drawings = (("plate", plate_dxf(lay)), ("wells", wells_dxf(lay)), ("enclosure", enclosure_dxf(lay)))
    for name, doc in drawings:
        write_dxf(doc, mechanics / (name + ".dxf"))
        out.append(mechanics / (name + ".dxf"))
    if solids:
        solids = (("plate", plate_solid(lay)), ("wells", wells_solid(lay)), ("enclosure", enclosure_solid(lay)))
        for name, solid in solids:
            _step(solid, mechanics / (name + ".step"))
            _stl(solid, mechanics / (name + ".stl"))
            out += [mechanics / (name + ".step"), mechanics / (name + ".stl")]
        _stl(jig_solid(lay), dice / "jig.stl")
        out.append(dice / "jig.stl")
    return out


if __name__ == "__main__":
    for path in build(layout_module.load()):
        print("wrote", path.relative_to(HERE.parent))
