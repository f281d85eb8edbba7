"""The mechanical parts of bom.csv (dice, magnets, plate, well sheet, shims, standoffs, screws,
enclosure), written from board.json through layout.py: every size in them is board.json's, so a
thicker well sheet or a taller spacer changes the BOM with the drawings. schematic.py appends
these rows after the electronics.

Screws: ISO 7045 pan heads (a laser cuts no countersink), each the shortest standard length
that passes through what it clamps and still engages MIN_ENGAGEMENT_MM of a standoff's thread;
the two screws in one standoff must not meet in it.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import mechanics  # noqa: E402  (the enclosure's sizes; its CAD libraries load only when drawing)

# ISO 7045 M3 lengths in the standard's preferred range; the non-preferred 14 mm (in brackets in
# the standard's table, and rarely stocked) is left out
ISO7045_M3_MM = (4, 5, 6, 8, 10, 12, 16, 20, 25, 30)
# An ISO 7045 M3 pan head's height, k max (the standard's table): what the base's feet clear
PAN_HEAD_M3_MM = 2.4
# The enclosure's feet, one at each corner of the base, so it stands on them, not on the 12
# screw heads: 3M Bumpon SJ5003, black hemispherical, 0.44 x 0.20 in (11.2 x 5.1 mm): the size
# Maxim's (Analog Devices') EV kit BOMs give the part, e.g. the MAX38902 EV kit's "SJ-5003(BLACK)
# BUMPER; BLACK-HEMISPHERICAL ...; 0.44D/0.2BH"
FOOT = {"manufacturer": "3M", "mpn": "SJ5003", "diameter_mm": 11.2, "height_mm": 5.1, "count": 4}
# At least one diameter of thread in a brass or steel standoff: the usual rule for a screw into
# a tapped part of a metal as strong as the screw's (M3: 3 mm).
MIN_ENGAGEMENT_MM = 3.0
# DIN 988 shim rings, 3 x 6 mm, as sold: the spacer is made of the fewest of these
SHIM_MM = (1.0, 0.5, 0.3, 0.2, 0.1)


def shims(spacer_mm):
    """The DIN 988 rings that stack to spacer_mm (thickest first)."""
    out, left = [], round(spacer_mm, 3)
    for t in SHIM_MM:
        while left >= t - 1e-9:
            out.append(t)
            left = round(left - t, 3)
    if left > 1e-9:
        raise ValueError("no stack of DIN 988 shims makes %g mm" % spacer_mm)
    return out


def screw(grip_mm):
    """The shortest ISO 7045 M3 screw through grip_mm that engages MIN_ENGAGEMENT_MM of thread."""
    for length in ISO7045_M3_MM:
        if length - grip_mm >= MIN_ENGAGEMENT_MM - 1e-9:
            return length
    raise ValueError("no M3 screw is long enough for a %g mm grip" % grip_mm)


def screws(lay):
    """{where: (grip mm, screw length mm, thread in the standoff mm)} for the three kinds of screw."""
    me, s = lay.mech, lay.stack()
    grips = {"plate": s["wells_top"] + me["pcb_mm"],  # well sheet, floor, shims, PCB
             "strip": me["pcb_mm"],  # the PCB alone, at the strip's far corners
             "base": me["wall_mm"]}  # the enclosure's base (the same sheet as its walls)
    return {k: (g, screw(g), screw(g) - g) for k, g in grips.items()}


def magnets(dice):
    """(magnets a die of each colour, magnets a blocker) from the die code table: a die has
    its colour's six faces, a blocker its code on all six."""
    def count(code):
        return sum(c != "0" for c in code)
    die = {colour: sum(count(code) for code, name in dice.items() if name.startswith(colour)
                       and not name.endswith("blocker")) for colour in ("white", "black")}
    blocker = {6 * count(code) for code, name in dice.items() if name.endswith("blocker")}
    assert die["white"] == die["black"] and len(blocker) == 1, "each colour's dice alike"
    return die["white"], blocker.pop()


def rows(lay):
    """bom.csv's mechanical rows (dicts with schematic.BOM_COLUMNS' keys)."""
    me, ph = lay.mech, lay.physics
    per_die, per_blocker = magnets(lay.spec["dice"])
    jig = mechanics.jig_plan(lay)
    lid = mechanics.lid_plan(lay)
    needed = 22 * per_die + 2 * per_blocker
    x0, y0, x1, y1 = lay.plate_box
    plate = "%g x %g mm" % (x1 - x0, y1 - y0)
    px0, py0, px1, py1 = lay.pcb_box
    floor, floor_tol = ph["floor_mm"]
    well, well_tol = ph["well_mm"]
    depth = ph["well_depth_mm"]
    plate_holes, pcb_holes = len(lay.plate_holes()), len(lay.pcb_holes())
    rings = shims(me["spacer_mm"])
    ring_kinds = sorted(set(rings), reverse=True)
    sc = screws(lay)
    ex0, ey0, ex1, ey1 = mechanics.enclosure_box(lay)
    wall_h = mechanics.wall_height(lay)
    n_screws = plate_holes + (pcb_holes - plate_holes) + pcb_holes

    def row(ref, qty, part, package, notes, manufacturer="", mpn=""):
        return {"ref": ref, "qty": str(qty), "part": part, "manufacturer": manufacturer, "mpn": mpn,
                "package": package, "notes": notes}

    return [
        row("M1-M600", 600, 'Neodymium disc magnet 1/8" x 1/16" (3.18 x 1.59 mm), N52, axially magnetised',
            "disc", "2 to 5 per face (die-code.svg): %d per die and %d per blocker, %d for 22 dice and "
            "2 blockers, plus spares" % (per_die, per_blocker, needed), "K&J Magnetics", "D21-N52"),
        row("DIE1-DIE24", 24, "Die %g mm +-%g mm cube, printed from dice/die.stl (PLA, 100 %% infill, 0.2 mm layers: "
            "12 white, 12 black, each colour's 12th is its blocker), or a bought blank cube measured to that "
            "size on every pair of faces" % tuple(ph["die_mm"]), "%g mm cube" % ph["die_mm"][0],
            "drill %g mm pockets with the jig (a %d-degree twist drill, its stop %.2f mm below the guide's top: "
            "full width %g-%g mm deep), centre and %g mm towards each edge; press each magnet flush with a flat "
            "acrylic or glass plate, glue behind it (see README)" % (
                me["jig"]["drill_mm"], jig["point_deg"], jig["stop"], *ph["magnet"]["pocket_mm"], ph["ring_mm"]),
            "generic"),
        row("PL1", 1, "Top plate floor, %s, bare FR-4 %.1f mm +-%g mm (no copper, no mask: the LEDs shine "
            "through)" % (plate, floor, floor_tol), "%.1f mm FR-4" % floor,
            "its thickness sets the field at the sensors: the model assumes %.1f +-%g mm; order it as a 2-layer "
            "board with no copper (fab/plate/plate-gerbers.zip) or CNC-route it (mechanics/plate.dxf)" % (
                floor, floor_tol)),
        row("PL2", 1, "Well sheet, %s, %g mm opal acrylic, %d square holes %g +-%g mm on a %g mm pitch" % (
            plate, depth, lay.grid ** 2, well, well_tol, lay.pitch), "%g mm acrylic" % depth,
            "the wells' depth (physics.well_depth_mm); laser cut (mechanics/wells.dxf) or printed (wells.stl); "
            "glued on the floor, its holes over the squares"),
        row("PCB1", 1, "Board %g x %g mm, 4 layers, %g mm, %g mm square pitch" % (
            px1 - px0, py1 - py0, me["pcb_mm"], lay.pitch), "",
            "fab/doce-gerbers.zip; sensors on top, directly under each square; %g mm spacers to the floor" % (
                me["spacer_mm"])),
        row("SP1-SP%d" % (plate_holes * len(rings)), plate_holes * len(rings),
            "Shim ring DIN 988, 3 x 6 mm: " + ", ".join(
                "%d of %g mm" % (plate_holes * rings.count(t), t) for t in ring_kinds), "DIN 988",
            "%s at each of the plate's %d holes: the %g mm between the PCB and the floor" % (
                " + ".join("%g" % t for t in rings), plate_holes, me["spacer_mm"]), "generic"),
        row("ST1-ST%d" % pcb_holes, pcb_holes, "Standoff M3 x %g mm, female-female, brass" % me["standoff_mm"],
            "M3", "the PCB above the enclosure's base (mechanics/enclosure.dxf)", "generic"),
        row("SC1-SC%d" % n_screws, n_screws,
            "Screw M3 pan head ISO 7045 (%d x %g mm through the well sheet, plate, shims and PCB; %d x %g mm "
            "through the PCB at the strip's far corners; %d x %g mm from below through the base)" % (
                plate_holes, sc["plate"][1], pcb_holes - plate_holes, sc["strip"][1], pcb_holes, sc["base"][1]),
            "M3", "one into each end of the %d standoffs, each %.1f mm or more into its thread; pan heads sit on "
            "the well sheet's border (a laser cuts no countersink)" % (
                pcb_holes, min(v[2] for v in sc.values())), "generic"),
        row("EN1", 1, "Enclosure: base %g x %g mm, four walls %g-%g mm tall and a lid %g x %g mm over the strip with "
            "its front wall, %g mm sheet (acrylic or plywood)" % (
                ex1 - ex0, ey1 - ey0, wall_h, lid["under"], lid["plate"][2] - lid["plate"][0],
                lid["plate"][3] - lid["plate"][1], me["wall_mm"]), "%g mm sheet" % me["wall_mm"],
            "laser cut (mechanics/enclosure-laser.dxf, or enclosure.dxf at finished size); the south wall has the "
            "opening for the USB cable; glue the walls to the base and to each other (README)", "generic"),
        row("BT1", 1, "Button plunger, printed (mechanics/button.stl, PLA)", "", "stands on SW1 under the lid, "
            "through its %g mm hole" % mechanics.BUTTON_HOLE_MM, "generic"),
        row("FT1-FT%d" % FOOT["count"], FOOT["count"], "Rubber foot, self-adhesive, hemispherical %g x %g mm" % (
            FOOT["diameter_mm"], FOOT["height_mm"]), "", "under the base's corners, clear of the screw holes: "
            "%g mm tall, so the base stands above its %g mm pan heads" % (FOOT["height_mm"], PAN_HEAD_M3_MM),
            FOOT["manufacturer"], FOOT["mpn"]),
    ]
