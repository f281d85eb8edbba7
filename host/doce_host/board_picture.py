"""The PCB drawn as SVG, every part where the board's PCB file places it (hardware/pcb/doce.kicad_pcb,
written by hardware/pcb.py), with the faulty parts `doce check board` found marked and named.
The picture is drawn the way `doce snapshot` draws a board (web/picture.py: its fonts, its PNG).
"""

import re
from functools import lru_cache
from xml.sax.saxutils import escape, quoteattr

from .paths import ROOT
from .web.picture import wrapped, write_png  # noqa: F401  (write_png: the snapshot's PNG, for the command)

PCB_FILE = ROOT / "hardware" / "pcb" / "doce.kicad_pcb"
_AT = re.compile(r"\(at ([-\d.]+) ([-\d.]+)")
_REF = re.compile(r'\(fp_text reference "([^"]+)"|\(property "Reference" "([^"]+)"')
_EDGE = re.compile(r'\(gr_line \(start ([-\d.]+) ([-\d.]+)\) \(end ([-\d.]+) ([-\d.]+)\) \(layer "Edge\.Cuts"\)')
SCALE = 4  # px per mm
MARGIN = 24


@lru_cache(maxsize=1)
def placement(path=PCB_FILE):
    """({ref: (x, y, side)}, (x0, y0, x1, y1) the board's outline), in KiCad's mm (y down)."""
    text = path.read_text()
    parts = {}
    for chunk in text.split("\n  (footprint ")[1:]:
        at, ref = _AT.search(chunk), _REF.search(chunk)
        if at and ref:
            side = "back" if chunk.startswith('"') and '(layer "B.Cu")' in chunk[:200] else "front"
            parts[ref.group(1) or ref.group(2)] = (float(at.group(1)), float(at.group(2)), side)
    xs, ys = [], []
    for m in _EDGE.finditer(text):
        xs += [float(m.group(1)), float(m.group(3))]
        ys += [float(m.group(2)), float(m.group(4))]
    if not xs:
        xs = [p[0] for p in parts.values()]
        ys = [p[1] for p in parts.values()]
    return parts, (min(xs), min(ys), max(xs), max(ys))


def draw(faults, title="doce check board", squares=None):
    """SVG of the PCB, `faults` (board_check.Fault) marked: a ring on each part they name, numbered as
    listed below the board. `squares`: {square: the ref of its centre sensor}, to label the grid."""
    parts, (x0, y0, x1, y1) = placement()
    w = (x1 - x0) * SCALE + 2 * MARGIN

    def px(x, y):
        return MARGIN + (x - x0) * SCALE, MARGIN + 40 + (y - y0) * SCALE

    lines = []
    for n, fault in enumerate(faults, 1):
        lines += wrapped("%d. %s" % (n, fault.line()), int(w / 8.5))
    h = (y1 - y0) * SCALE + 2 * MARGIN + 60 + 20 * len(lines)
    said = "%d faults" % len(faults) if faults else "no fault found"
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="DejaVu Sans, Verdana, sans-serif" data-faults="%d">' % (w, h, w, h, len(faults)),
           '<rect width="100%" height="100%" fill="#ffffff"/>',
           '<text x="%d" y="%d" font-size="22" fill="#222">%s</text>' % (
               MARGIN, MARGIN + 10, escape("%s: %s" % (title, said)))]
    bx, by = px(x0, y0)
    out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#1d5f3a" stroke="#0c2f1c"/>'
               % (bx, by, (x1 - x0) * SCALE, (y1 - y0) * SCALE))
    for ref, (x, y, side) in sorted(parts.items()):
        cx, cy = px(x, y)
        out.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" data-ref=%s/>'
                   % (cx, cy, 2.2 if ref.startswith("C") else 3.2, "#9fc5a8" if side == "front" else "#557f63",
                      quoteattr(ref)))
    for square, ref in (squares or {}).items():
        if ref in parts:
            cx, cy = px(*parts[ref][:2])
            out.append('<text x="%.1f" y="%.1f" font-size="13" fill="#e8f3ea" text-anchor="middle">%s</text>'
                       % (cx, cy - 30, escape(square)))
    for n, fault in enumerate(faults, 1):
        for ref in fault.parts:
            if ref not in parts:
                continue
            cx, cy = px(*parts[ref][:2])
            out.append('<circle cx="%.1f" cy="%.1f" r="11" fill="none" stroke="#d55e00" stroke-width="3" '
                       'class="fault" data-ref=%s data-fault="%d"/>' % (cx, cy, quoteattr(ref), n))
            out.append('<text x="%.1f" y="%.1f" font-size="13" font-weight="bold" fill="#ffd8bf">%d %s</text>'
                       % (cx + 12, cy - 10, n, escape(ref)))
    y = by + (y1 - y0) * SCALE + 30
    for line in lines:
        out.append('<text x="%d" y="%d" font-size="14" fill="#222">%s</text>' % (MARGIN, y, escape(line)))
        y += 20
    out.append("</svg>")
    return "\n".join(out)
