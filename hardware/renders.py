"""Pictures for hardware/README.md, drawn from the files a maker gets (matplotlib, no display).

    python hardware/renders.py      # writes hardware/renders/*.png

top.png    the PCB from above: its outline and holes, the plate's border, the wells, every
           footprint of pcb/doce.kicad_pcb (sensors, LEDs, strip parts) where it is placed
stack.png  the stack from the side, at the heights layout.py gives (and the physics model uses)
jig.png    the dice jig, from its STL
gerbers/   every Gerber layer of fab/ on its own, and the board's two sides as a fab's
           viewer shows them (gerbonara reads the files; cairosvg draws its SVG)
"""

import io
import struct
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle, Circle  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import layout as layout_module  # noqa: E402
import pcb  # noqa: E402

OUT = HERE / "renders"


def top(lay, path):
    fig, ax = plt.subplots(figsize=(10, 6.8))
    x0, y0, x1, y1 = lay.pcb_box
    ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fc="#2d6a3e", ec="black"))
    px0, py0, px1, py1 = lay.plate_box
    ax.add_patch(Rectangle((px0, py0), px1 - px0, py1 - py0, fc="none", ec="#e0e0e0", ls="--", lw=1))
    for x, y, side in lay.wells():
        ax.add_patch(Rectangle((x - side / 2, y - side / 2), side, side, fc="none", ec="#bbbbbb", lw=0.8))
    for x, y in lay.pcb_holes():
        ax.add_patch(Circle((x, y), lay.mech["hole_mm"] / 2, fc="white", ec="black"))
    for kx0, ky0, kx1, ky1 in lay.antenna_keepouts():  # no copper on any layer: the devkit's antenna over it
        ax.add_patch(Rectangle((kx0, ky0), kx1 - kx0, ky1 - ky0, fc="#7a9a80", ec="#cfe8d4", hatch="///", lw=0.8))
    kx0, ky0, kx1, ky1 = lay.antenna_keepout()
    ax.text((kx0 + kx1) / 2, ky1 - 3, "antenna keep-out", ha="center", fontsize=7, color="white")
    parts, _ = pcb.read_netlist()
    at = pcb.placements(lay, parts)
    style = {"H": ("#f1c40f", 2.9, 1.3), "LED": ("white", 2.2, 2.2), "C": ("#b08850", 1.6, 0.8),
             "U": ("#222222", 7.5, 15.4), "Q": ("#444444", 2.9, 1.3), "R": ("#555555", 1.6, 0.8),
             "SW": ("#888888", 6, 6), "J": ("#b0b0b0", 8.94, 7.35)}  # J1: the USB-C receptacle's body
    for ref, (x, y, rot) in at.items():
        kind = ref.rstrip("0123456789")
        colour, w, h = style[kind]
        if ref == "U1":
            colour, w, h = "#1d3f73", layout_module.DEVKIT_ROWS_MM + 2.5, 18 * 2.54 + 2.5
            x, y = x + layout_module.DEVKIT_ROWS_MM / 2, y - 9 * 2.54
        elif ref in ("U10", "U11", "U12", "U13", "U14"):
            w, h = (6, 10) if ref == "U10" else (3, 3)
        if rot in (90, 270):
            w, h = h, w
        ax.add_patch(Rectangle((x - w / 2, y - h / 2), w, h, fc=colour, ec="none"))
    ax.text(lay.devkit_usb()[0], y0 - 6, "USB (devkit), USB-C (J1) under it", ha="center", fontsize=8)
    ax.set_xlim(x0 - 5, x1 + 5)
    ax.set_ylim(y0 - 10, y1 + 5)
    ax.set_aspect("equal")
    ax.set_title("PCB from above: wells (grey), sensors (yellow), LEDs (white), M3 holes; black's side up")
    ax.set_xlabel("mm from a1's centre")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def stack(lay, path):
    s, ph = lay.stack(), lay.physics
    fig, ax = plt.subplots(figsize=(10, 3.6))
    layers = [("PCB", s["pcb_bottom"], 0, "#2d6a3e"),
              ("floor plate (FR-4)", s["floor_bottom"], s["floor_top"], "#d8c48a"),
              ("well sheet (opal acrylic)", s["floor_top"], s["wells_top"], "#eeeeee")]
    for name, z0, z1, colour in layers:
        ax.add_patch(Rectangle((-20, z0), 60, z1 - z0, fc=colour, ec="black"))
        ax.text(41, (z0 + z1) / 2, "%s  %.2f mm" % (name, z1 - z0), va="center", fontsize=9)
    well = ph["well_mm"][0]
    ax.add_patch(Rectangle((10 - well / 2, s["floor_top"]), well, s["wells_top"] - s["floor_top"], fc="white",
                           ec="none"))
    die = ph["die_mm"][0]
    top = s["wells_top"] + 3  # the picture's top: the die (a cube) goes on above it, cut off
    ax.add_patch(Rectangle((10 - die / 2, s["floor_top"]), die, die, fc="#f5f5f5", ec="black", ls=":", zorder=3))
    ax.text(10, top - 2.2, "die (%g mm cube, cut off)" % die, ha="center", fontsize=9, zorder=4)
    me = lay.mech
    pad = me["pad_copper_mm"] + sum(me["solder_mm"]) / 2  # copper and solder under each sensor
    for x in (10 - ph["ring_mm"], 10, 10 + ph["ring_mm"]):
        ax.add_patch(Rectangle((x - 1.45, 0), 2.9, pad, fc="#b87333", ec="none"))
        ax.add_patch(Rectangle((x - 1.45, pad), 2.9, s["sensor_top"] - pad, fc="#f1c40f", ec="black"))
    mask = sum(me["mask_mm"]) / 2
    ax.add_patch(Rectangle((-17, mask), 3, me["spacer_mm"], fc="#999999", ec="black"))
    ax.text(-15.5, s["wells_top"] + 1.2, "shims %.2f +-%.2f mm" % (me["spacer_mm"], me["spacer_tol_mm"]),
            ha="center", fontsize=8)
    lo, hi = lay.air_range()
    ax.text(27, s["pcb_bottom"] - 1.3, "sensor: copper %.3f + solder %.2f-%.2f + package %.2f-%.2f mm; floor: mask "
            "%.2f-%.2f + shims %.2f +-%.2f mm" % (me["pad_copper_mm"], *me["solder_mm"], *me["sensor_height_mm"],
                                                 *me["mask_mm"], me["spacer_mm"], me["spacer_tol_mm"]),
            ha="center", fontsize=8)
    ax.text(27, s["pcb_bottom"] - 2.3, "air over a sensor: %.3f-%.3f mm, %.3f mm with every part nominal" % (
        lo, hi, lay.nominal_air()), ha="center", fontsize=8)
    ax.set_xlim(-22, 75)
    ax.set_ylim(s["pcb_bottom"] - 3.2, top)
    ax.set_aspect("equal")
    ax.set_yticks([s["pcb_bottom"], 0, s["floor_bottom"], s["floor_top"], s["wells_top"]])
    ax.set_ylabel("mm above the PCB")
    ax.set_xticks([])
    ax.set_title("The stack, drawn to scale (hardware/board.json mechanics and physics)")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _triangles(path):
    data = path.read_bytes()
    (n,) = struct.unpack_from("<I", data, 80)
    return [[struct.unpack_from("<3f", data, 84 + 50 * i + 12 + 12 * v) for v in range(3)] for i in range(n)]


def jig(path):
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    tris = _triangles(HERE / "dice" / "jig.stl")
    fig = plt.figure(figsize=(6, 5))
    ax = fig.add_subplot(projection="3d")
    ax.add_collection3d(Poly3DCollection(tris, facecolor="#5dade2", edgecolor="#1b4f72", linewidths=0.1))
    xs = [p[0] for t in tris for p in t]
    zs = [p[2] for t in tris for p in t]
    ax.set_xlim(min(xs), max(xs))
    ax.set_ylim(min(xs), max(xs))
    ax.set_zlim(min(zs), min(zs) + max(xs) - min(xs))
    ax.view_init(elev=35, azim=-60)
    ax.set_axis_off()
    ax.set_title("Dice jig (dice/jig.stl): a die slides in from below, pushed into the cut corner;\n"
                 "drill through the five guides")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


# (layer, its colour in its own picture); the composite uses the fab's usual look instead
GERBER_LAYERS = [("F_Cu", "#b87333"), ("In1_Cu", "#b87333"), ("In2_Cu", "#b87333"), ("B_Cu", "#b87333"),
                 ("F_Mask", "#1f6f3f"), ("B_Mask", "#1f6f3f"), ("F_Paste", "#808080"),
                 ("F_Silkscreen", "#202020"), ("B_Silkscreen", "#202020"), ("Edge_Cuts", "#000000")]


def gerbers(path, width_px=1600):
    """Each Gerber of fab/ as the fab reads it (gerbonara parses it, cairosvg draws it), one PNG
    a layer, all drawn in the board outline's bounds; and the top side composed from them:
    mask-green board, copper under the mask, pads where the mask opens, the silkscreen."""
    import cairosvg
    import numpy as np
    from gerbonara import GerberFile, ExcellonFile
    from gerbonara.utils import MM
    from PIL import Image

    import warnings

    warnings.filterwarnings("ignore", module="gerbonara")  # KiCad's drill header and macros, which it reads right
    path.mkdir(exist_ok=True)
    fab = HERE / "fab"
    bounds = GerberFile.open(fab / "doce-Edge_Cuts.gbr").bounding_box(MM)
    ink = {}
    for name, colour in GERBER_LAYERS:
        svg = str(GerberFile.open(fab / ("doce-%s.gbr" % name)).to_svg(force_bounds=bounds, fg="black", bg="white"))
        ink[name] = _ink(cairosvg.svg2png(bytestring=svg.encode(), output_width=width_px))
        rgb = np.full(ink[name].shape + (3,), 255, np.uint8)
        rgb[ink[name]] = _rgb(colour)
        Image.fromarray(rgb).save(path / (name + ".png"), optimize=True)
    holes = np.zeros_like(ink["F_Cu"])
    for drill in ("PTH", "NPTH"):
        svg = str(ExcellonFile.open(fab / ("doce-%s.drl" % drill)).to_svg(force_bounds=bounds, fg="black", bg="white"))
        holes |= _ink(cairosvg.svg2png(bytestring=svg.encode(), output_width=width_px))
    top = np.empty(ink["F_Cu"].shape + (3,), np.uint8)
    top[:] = _rgb("#1e5631")  # solder mask over bare board
    top[ink["F_Cu"]] = _rgb("#3f8f4f")  # copper under the mask
    top[ink["F_Mask"]] = _rgb("#d4a017")  # pads: the mask opens, gold (ENIG) or tin shows
    top[ink["F_Silkscreen"]] = _rgb("#f4f4f4")
    top[holes] = _rgb("#ffffff")
    Image.fromarray(top).save(path / "top.png", optimize=True)


def _ink(png):
    """Where a black-on-white drawing is black (its white background is only a CSS style, which
    cairosvg leaves transparent)."""
    import numpy as np
    from PIL import Image

    picture = Image.open(io.BytesIO(png)).convert("RGBA")
    white = Image.new("RGBA", picture.size, "white")
    return np.asarray(Image.alpha_composite(white, picture).convert("L")) < 128


def _rgb(colour):
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def main():
    OUT.mkdir(exist_ok=True)
    lay = layout_module.load()
    top(lay, OUT / "top.png")
    stack(lay, OUT / "stack.png")
    jig(OUT / "jig.png")
    gerbers(OUT / "gerbers")


if __name__ == "__main__":
    main()
