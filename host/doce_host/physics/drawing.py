"""hardware/die-code.svg: every face code as a maker glues it, drawn from board.json; and
hardware/dice/faces.svg, the sheet to build a set by: every face of every die, as drilled.

    python -m doce_host.physics.drawing > hardware/die-code.svg
    python -m doce_host.physics.drawing --faces > hardware/dice/faces.svg

Each face is drawn as seen from ABOVE the board, looking down through the die at the face
lying on the plate: N towards black's side, E to the right. A test keeps the file in
step with board.json.
"""

import json
import math
import sys
from xml.sax.saxutils import escape

from ..paths import BOARD_FILE

CELL = 140  # px per face drawn
SPOTS = ((0, 0), (0, -1), (1, 0), (0, 1), (-1, 0))  # C, N, E, S, W on screen (y down)


def draw(spec):
    ph = spec["physics"]
    pieces = sorted(spec["dice"].items(), key=lambda item: (item[1].split()[0], item[1].split()[1]))
    cols = 7
    rows = (len(pieces) + cols - 1) // cols
    w, h = cols * CELL + 20, rows * (CELL + 30) + 110
    half = CELL * 0.36
    ring = half * ph["ring_mm"] / (ph["die_mm"][0] / 2)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14">Each face as seen from ABOVE the board, looking down through the '
           'die at the face on the plate.</text>',
           '<text x="10" y="38" font-size="14">Holding the face towards you, E and W change places. '
           'N points to black\'s side.</text>',
           '<text x="10" y="56">S: south pole facing out of the face (reads +).  N: north pole facing out '
           '(reads -).  Magnets %g x %g mm, ring %g mm from the centre.</text>'
           % (ph["magnet"]["diameter_mm"], ph["magnet"]["height_mm"], ph["ring_mm"])]
    dot = half * ph["magnet"]["diameter_mm"] / ph["die_mm"][0] * 2
    for i, (code, name) in enumerate(pieces):
        cx = 10 + (i % cols) * CELL + CELL / 2
        cy = 80 + (i // cols) * (CELL + 30) + CELL / 2
        out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#eee" stroke="#333"/>'
                   % (cx - half, cy - half, 2 * half, 2 * half))
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>' % (cx, cy - half - 6, "N"))
        out.append('<text x="%.1f" y="%.1f" text-anchor="start">E</text>' % (cx + half + 3, cy + 4))
        for (sx, sy), mark in zip(SPOTS, code):
            x, y = cx + sx * ring, cy + sy * ring
            if mark == "0":
                out.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="none" stroke="#999" stroke-dasharray="2,2"/>'
                           % (x, y, dot))
            else:
                fill = "#c0392b" if mark == "+" else "#1f4e99"
                out.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>' % (x, y, dot, fill))
                out.append('<text x="%.1f" y="%.1f" text-anchor="middle" fill="white" font-weight="bold">%s</text>'
                           % (x, y + 4, "S" if mark == "+" else "N"))
        label = name + (" (all faces)" if name.endswith("blocker") else " up")
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>' % (cx, cy + half + 16, escape(label)))
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%s</text>'
                   % (cx, cy + half + 29, escape(code)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


OUTSIDE = ((0, 0), (0, -1), (-1, 0), (0, 1), (1, 0))  # C, N, E, S, W seen from outside the face: E on the left


def faces(spec):
    """Every face of each kind of die, as the maker sees it in the jig: from OUTSIDE the face,
    N up (so E is on the left). The face with d pips carries the code of '<colour> 7-d'."""
    ph = spec["physics"]
    jig = spec["mechanics"]["jig"]
    # a twist drill's point: a cone of half its width and half its point angle (hardware/mechanics.py)
    point = jig["drill_mm"] / 2 / math.tan(math.radians(jig["drill_point_deg"]) / 2)
    codes = {name: code for code, name in spec["dice"].items()}
    kinds = [(c, w) for c in ("white", "black") for w in ("die", "blocker")]
    cell, half = 120, 40
    ring = half * ph["ring_mm"] / (ph["die_mm"][0] / 2)
    dot = half * ph["magnet"]["diameter_mm"] / ph["die_mm"][0] * 2
    w, h = 6 * cell + 190, len(kinds) * (cell + 20) + 164
    toward = ph["magnet"].get("toward", {})
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="12">' % (w, h), '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14">Drill and glue by this sheet: each face as you see it in the jig, '
           'from OUTSIDE the face, N up (E is on the LEFT).</text>',
           '<text x="10" y="38">S: south pole out of the face (the board reads +).  '
           'N: north pole out (reads -).</text>',
           '<text x="10" y="56">Never mirrored; turned as the rule under each face says (no quarter turn is '
           'free). Then run: doce dice check.</text>',
           '<text x="10" y="74">Pockets: %g mm drill, full width %.2f-%.2f mm deep (its %d-degree point reaches '
           '%.2f mm deeper: hardware/README.md), centre and %g mm towards each edge\'s middle.</text>'
           % (jig["drill_mm"], *ph["magnet"]["pocket_mm"], jig["drill_point_deg"], point, ph["ring_mm"]),
           '<text x="10" y="92">A drop of glue, the magnet, then press it flush with a flat acrylic or glass plate '
           '(not steel) until the glue sets.</text>',
           '<text x="10" y="110">A blocker: pencil 1-6 on the blank as on a die (1 opposite 6, 2 opposite 5, '
           '3 opposite 4). Every die and blocker:</text>',
           '<text x="10" y="128">turn each face so that its N points to the face named under it (the side '
           'magnets by the board stay off the places that must read empty: hardware/README.md).</text>']
    for row, (colour, what) in enumerate(kinds):
        top = 154 + row * (cell + 20)
        out.append('<text x="10" y="%d" font-size="14" font-weight="bold">%s %s</text>'
                   % (top + cell / 2, colour, what))
        for col, pips in enumerate(range(1, 7)):
            code = codes[colour + " blocker"] if what == "blocker" else codes["%s %d" % (colour, 7 - pips)]
            cx, cy = 170 + col * cell + cell / 2, top + cell / 2 - 8
            out.append('<rect x="%.1f" y="%.1f" width="%d" height="%d" fill="#eee" stroke="#333"/>'
                       % (cx - half, cy - half, 2 * half, 2 * half))
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle">N</text>' % (cx, cy - half - 4))
            for (sx, sy), mark in zip(OUTSIDE, code):
                x, y = cx + sx * ring, cy + sy * ring
                if mark == "0":
                    out.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="none" stroke="#999" '
                               'stroke-dasharray="2,2"/>' % (x, y, dot))
                    continue
                out.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>'
                           % (x, y, dot, "#c0392b" if mark == "+" else "#1f4e99"))
                out.append('<text x="%.1f" y="%.1f" text-anchor="middle" fill="white" font-size="10" '
                           'font-weight="bold">%s</text>' % (x, y + 4, "S" if mark == "+" else "N"))
            rule = toward.get(colour + " blocker" if what == "blocker" else colour)
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>'
                       % (cx, cy + half + 15, ("face %d: N to face %d" % (pips, rule[str(pips)])) if rule
                          else "%d pip%s" % (pips, "s" if pips > 1 else "")))
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%s</text>'
                       % (cx, cy + half + 28, escape(code)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    spec = json.loads(BOARD_FILE.read_text())
    sys.stdout.write(faces(spec) if sys.argv[1:] == ["--faces"] else draw(spec))
