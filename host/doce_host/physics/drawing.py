"""hardware/die-code.svg: every face code as a maker glues it, drawn from board.json.

    python -m doce_host.physics.drawing > hardware/die-code.svg

Each face is drawn as seen from ABOVE the board, looking down through the die at the face
lying on the plate: N towards black's side, E to the right. A test keeps the file in
step with board.json.
"""

import json
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


if __name__ == "__main__":
    sys.stdout.write(draw(json.loads(BOARD_FILE.read_text())))
