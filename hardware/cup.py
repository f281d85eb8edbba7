"""The magnet check's cup (doce dice magnets, issue 40): dice/cup.stl, a printed square block
that sits in a well of the board (board.json physics.well_mm) with a pocket at its centre that
holds one magnet, its face cup_floor_mm over the well's floor, on the centre sensor's axis
(board.json sensing.magnet_check). Plain Python, no CAD: `python hardware/cup.py` writes it,
tests/hardware/test_cup.py checks the file is what this makes and holds the sizes.

Print it in PLA, 0.2 mm layers, solid, pocket up; lift it out of its well by the tab.
The pocket is drawn 0.1 mm wider than pocket_mm, as a printed hole comes out about 0.1 mm small (Building the dice), and
POCKET_DEPTH_MM deep, less than the shortest magnet, so a magnet stands proud to be picked out.
"""

import json
import math
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent
STL = HERE / "dice" / "cup.stl"
POCKET_DEPTH_MM = 1.0  # the shortest magnet is 1.4875 mm: 0.49 mm of it stands out, and a second stuck on stands whole
CHAMFER_MM = 0.4  # the foot's edge: a first layer squashed out 0.2-0.3 mm a side (elephant's foot) stays inside
TAB_MM = (8.0, 1.6)  # the pull tab on the cup's north edge, wide and thick: the cup sits 6.5 mm down its well
TAB_OVER_MM = 4.0  # how far the tab stands over the well's top, to be taken between two fingers
TAB_INTO_MM = 0.5  # the tab starts this far inside the block: two closed bodies overlapping, one in the slice
SIDES = 64  # the pocket's circle; a multiple of 8 so that the block's corners are on its rays
PRINT_SHRINK_MM = 0.1  # a printed hole comes out about this much small


def mesh(spec):
    """The cup's triangles, each three (x, y, z) in mm, outward by the right-hand rule: origin at
    the centre of its bottom, which rests on the well's floor. Two closed bodies: the block with
    its pocket, and the pull tab standing up from its north edge into it (a slicer takes their
    union)."""
    check = spec["sensing"]["magnet_check"]
    half = check["outside_mm"] / 2
    r = (check["pocket_mm"] + PRINT_SHRINK_MM) / 2
    floor = check["cup_floor_mm"]
    top = floor + POCKET_DEPTH_MM
    rays = [2 * math.pi * i / SIDES for i in range(SIDES)]
    ring = [(r * math.cos(a), r * math.sin(a)) for a in rays]
    square = lambda side, a: (side * math.cos(a) / max(abs(math.cos(a)), abs(math.sin(a))),  # noqa: E731
                              side * math.sin(a) / max(abs(math.cos(a)), abs(math.sin(a))))
    edge = [square(half, a) for a in rays]
    foot = [square(half - CHAMFER_MM, a) for a in rays]
    out = []
    for i in range(SIDES):
        j = (i + 1) % SIDES
        (a, b), (c, d) = ring[i], ring[j]
        (e, f), (g, h) = edge[i], edge[j]
        (k, m), (n, o) = foot[i], foot[j]
        c0 = CHAMFER_MM
        out += [((a, b, top), (e, f, top), (g, h, top)), ((a, b, top), (g, h, top), (c, d, top))]  # the top
        out += [((a, b, top), (c, d, top), (c, d, floor)), ((a, b, top), (c, d, floor), (a, b, floor))]  # pocket wall
        out += [((0.0, 0.0, floor), (a, b, floor), (c, d, floor))]  # the pocket's floor
        out += [((e, f, top), (e, f, c0), (g, h, c0)), ((e, f, top), (g, h, c0), (g, h, top))]  # the outside
        out += [((e, f, c0), (k, m, 0.0), (n, o, 0.0)), ((e, f, c0), (n, o, 0.0), (g, h, c0))]  # the foot's chamfer
        out += [((0.0, 0.0, 0.0), (n, o, 0.0), (k, m, 0.0))]  # the bottom
    width, thick = TAB_MM
    return out + box((-width / 2, half - thick, top - TAB_INTO_MM),
                     (width / 2, half, spec["physics"]["well_depth_mm"] + TAB_OVER_MM))


def box(low, high):
    """A closed box's 12 triangles, outward, from its lowest corner to its highest."""
    p = [(high[0] if i & 1 else low[0], high[1] if i & 2 else low[1], high[2] if i & 4 else low[2]) for i in range(8)]
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    return [t for q in quads for t in ((p[q[0]], p[q[1]], p[q[2]]), (p[q[0]], p[q[2]], p[q[3]]))]


def stl(triangles):
    """Binary STL bytes, a fixed header (no date) and zero normals (slicers work them out)."""
    data = bytearray(b"doce magnet check cup".ljust(80, b" "))
    data += struct.pack("<I", len(triangles))
    for t in triangles:
        data += struct.pack("<3f", 0.0, 0.0, 0.0) + b"".join(struct.pack("<3f", *p) for p in t) + b"\0\0"
    return bytes(data)


def main():
    spec = json.loads((HERE / "board.json").read_text())
    STL.write_bytes(stl(mesh(spec)))
    print(STL)


if __name__ == "__main__":
    main()
