"""The PCB in KiCad's own format, from the netlist (doce.net) and board.json (layout.py).

    /usr/bin/python3 hardware/pcb.py         # KiCad's Python (Debian: apt-get install kicad)
    /usr/bin/python3 hardware/pcb.py --drc [BOARD REPORT]   # KiCad's DRC only (pcb/doce.kicad_pcb, pcb/drc.txt)

Every footprint of the netlist is placed where board.json puts it (layout.py), each pad gets
its net from the netlist, and the board gets its outline, mounting holes and design rules
(JLCPCB's 4-layer process, with margin). Runs in KiCad 6's own Python, so it reads the netlist
itself: a small s-expression reader, no SKiDL.
"""

import json
import math
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import layout as layout_module  # noqa: E402
import router as router_module  # noqa: E402

OUT = HERE / "pcb"
BOARD_FILE = OUT / "doce.kicad_pcb"
LIBS = Path("/usr/share/kicad/footprints")
OWN = HERE / "doce.pretty"
MARGIN = 10.0  # mm from KiCad's page origin to the board's corner

# via_pad: a via's copper from any pad's, its own net's too (solder would wick down the via)
RULES = {"clearance": 0.15, "track": 0.2, "power_track": 0.5, "via": 0.55, "via_drill": 0.3, "edge": 0.5,
         "via_pad": 0.2, "supply_track": 0.9}
# Solder mask: openings 0.05 mm larger than each pad a side, and no web of mask thinner than 0.1 mm
# (JLCPCB's process, jlcpcb.com/capabilities/pcb-capabilities; OSH Park's advice is the same 2 mil).
MASK = {"expansion": 0.05, "min_web": 0.1}
# No copper on any layer within this diameter of a mounting hole's centre: an M3 washer (DIN 125,
# 7 mm) or the DIN 988 shim (6 mm) and the standoff's hex (5.5 mm across flats, 6.4 across
# corners) press there, and 0.5 mm more for the hole's place tolerance.
KEEPOUT_MM = 8.0
POWER = re.compile(r"^(GND|VBUS|VBUS_C|\+3V3.*|\+5V_LED)$")


# --- the netlist ------------------------------------------------------------------------------
def _sexp(text):
    tokens = re.findall(r'\(|\)|"(?:[^"\\]|\\.)*"|[^\s()]+', text)
    stack = [[]]
    for t in tokens:
        if t == "(":
            stack.append([])
        elif t == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(t[1:-1] if t.startswith('"') else t)
    return stack[0][0]


def _find(node, key):
    return [n for n in node if isinstance(n, list) and n and n[0] == key]


def read_netlist(path=HERE / "doce.net"):
    """({ref: {"footprint", "value", fields...}}, {net name: [(ref, pin), ...]})"""
    tree = _sexp(path.read_text())
    parts = {}
    for comp in _find(_find(tree, "components")[0], "comp"):
        ref = _find(comp, "ref")[0][1]
        info = {"footprint": _find(comp, "footprint")[0][1], "value": _find(comp, "value")[0][1]}
        for fields in _find(comp, "fields"):
            for f in _find(fields, "field"):
                info[_find(f, "name")[0][1]] = f[2] if len(f) > 2 else ""
        parts[ref] = info
    nets = {}
    for net in _find(_find(tree, "nets")[0], "net"):
        nets[_find(net, "name")[0][1]] = [(_find(n, "ref")[0][1], _find(n, "pin")[0][1]) for n in _find(net, "node")]
    return parts, nets


# --- our own footprint --------------------------------------------------------------------------
SOCKET_HALF_MM = 1.27  # a 1x19 2.54 mm socket's body: 2.54 mm wide (Sullins PPTC series)


def devkit_footprint():
    """doce:ESP32-DevKitC_2x19_socket: two 19-pin 2.54 mm sockets 1 inch apart, J2 as pads 1-19
    and J3 as pads 20-38, pin 1 of each at the antenna end (north), the USB end south."""
    rows = layout_module.DEVKIT_ROWS_MM
    pads = []
    for i in range(38):
        x, y = (0 if i < 19 else rows), 2.54 * (i % 19)
        shape = "rect" if i in (0, 19) else "oval"
        pads.append('  (pad "%d" thru_hole %s (at %g %g) (size 1.7 1.7) (drill 1.0) (layers *.Cu *.Mask))'
                    % (i + 1, shape, x, round(y, 3)))
    long = 2.54 * 18
    lines = ['(footprint "ESP32-DevKitC_2x19_socket" (version 20211014) (generator doce_pcb) (layer "F.Cu")',
             '  (descr "ESP32-DevKitC V4 on two 1x19 2.54 mm sockets, J2 = pads 1-19, J3 = pads 20-38; USB at pad 19")',
             '  (attr through_hole)',
             '  (fp_text reference "REF**" (at %g -3) (layer "F.SilkS") (effects (font (size 1 1) (thickness 0.15))))'
             % (rows / 2),
             '  (fp_text value "ESP32-DevKitC" (at %g %g) (layer "F.Fab") (effects (font (size 1 1) (thickness 0.15))))'
             % (rows / 2, long + 3)]
    # The courtyard and the outline are the two socket rows' (SOCKET_HALF_MM each side of a row's
    # pins), not the whole devkit: it stands 8.5 mm up on its sockets (mechanics.py), so low parts
    # may sit under it between the rows (the USB-C input J1, U14 and their resistors)
    for x in (0, rows):
        for grow, layer, width in ((SOCKET_HALF_MM + 0.13, "F.SilkS", 0.12), (SOCKET_HALF_MM + 0.25, "F.CrtYd", 0.05)):
            lines.append('  (fp_rect (start %g %g) (end %g %g) (layer "%s") (width %g) (fill none))'
                         % (x - grow, -grow, x + grow, long + grow, layer, width))
    # "USB" between the rows, north of the parts under the devkit's USB end
    lines.append('  (fp_text user "USB" (at %g %g) (layer "F.SilkS") (effects (font (size 1 1) (thickness 0.15))))'
                 % (rows / 2, long - 6))
    return "\n".join(lines + pads + [")"]) + "\n"


# --- placement --------------------------------------------------------------------------------
def placements(lay, parts):
    """{ref: (x, y, degrees)} in the board frame, for every part of the netlist."""
    at = dict(lay.strip())
    sensors = {"%s %s" % (sq, where): (x, y) for sq, where, x, y in lay.sensors().values()}
    leds = lay.leds()
    for ref, p in parts.items():
        if "Position" in p:
            at[ref] = sensors[p["Position"]] + (0,)
        elif ref.startswith("LED"):
            _, x, y = leds[int(ref[3:]) - 1]
            at[ref] = (x, y, 0)
    # each decoupling capacitor within 3 mm of its part's supply pin: a multiplexer's VCC (pin
    # 24) is its north-east corner, the decoder's (pin 16) too
    near = {"H": (-0.4, 3.2, 0), "LED": (-2.6, 0, 90), "U2": (7.0, 6.5, 90), "U10": (4.5, 4.0, 90),
            "U11": (-3, 0, 90)}
    for ref, p in parts.items():
        owner = p.get("Decouples")
        if owner:
            kind = "U2" if owner in ["U%d" % i for i in range(2, 10)] else re.sub(r"\d+$", "", owner)
            kind = owner if owner in near else kind
            dx, dy, rot = near[kind]
            x, y, _ = at[owner]
            at[ref] = (x + dx, y + dy, rot)
    x, y, _ = at["U12"]
    at["C167"], at["C171"], at["C169"] = (x - 3.5, y + 2, 90), (x - 3.5, y - 2, 90), (x, y - 12, 0)
    x, y, _ = at["U13"]  # the current limit, south of the soft start: its input capacitor, R_ILIM, pull-down
    at["C168"], at["R21"], at["R20"] = (x - 3.5, y + 0.5, 90), (x + 3.5, y, 90), (x - 3.5, y - 3.0, 90)
    for g in range(8):  # each gate resistor just north of its MOSFET
        qx, qy, _ = at["Q%d" % (g + 1)]
        at["R%d" % (g + 12)] = (qx, qy + 3.5, 0)
    x, y, _ = at["LED1"]  # the data line's series resistor at the first LED's input, under the floor
    at["R9"] = (x + 2.6, y, 90)
    x, y, _ = at["U1"]
    qx = at["Q1"][0]
    at["C170"] = (qx, y - 11.5, 90)  # the 3.3 V bulk, in the group switches' column (their sources), by the devkit
    # the USB-C input (J1) on the south edge under the devkit's USB end (layout.usb_c), its mouth at
    # the edge (the footprint's front is 3.45 mm from its origin); the ideal diode U14 just north of
    # J1's pins, turned so its input (pin 1) faces J1's VBUS pins and its output (pin 6) the devkit's
    # 5V pin (19, the south end of the west row): the devkit's whole current has few millimetres of
    # copper. R24 (U14's CE) north of U14; the CC pull-downs and the input's capacitor north of J1.
    jx, south = lay.usb_c()
    at["J1"] = (jx, south + 3.45, 0)
    # U14's three rows of pads are 0.65 mm apart and 0.4 mm tall: at 9.825 mm from the edge (the
    # edge is on the router's 0.5 mm grid) each row holds a grid point 0.025 mm or more inside it
    at["U14"] = (jx - 4.0, south + 9.825, 180)
    at["R24"] = (jx - 4.0, south + 13.5, 0)
    for ref, dx in (("R22", -1.0), ("R23", 1.0), ("C172", 3.0)):
        at[ref] = (jx + dx, south + 10.5, 90)
    return at


def main(argv):
    import pcbnew

    if argv[:1] == ["--drc"]:
        return drc(pcbnew, Path(argv[1]) if argv[1:] else BOARD_FILE, Path(argv[2]) if argv[2:] else OUT / "drc.txt")
    pcbnew.KIID.SeedGenerator(29)  # the same item ids each build, so the files change only with the board
    OUT.mkdir(exist_ok=True)
    OWN.mkdir(exist_ok=True)
    (OWN / "ESP32-DevKitC_2x19_socket.kicad_mod").write_text(devkit_footprint())
    lay = layout_module.load()
    parts, nets = read_netlist()
    board = build(pcbnew, lay, parts, nets)
    print("placed %d footprints, %d nets" % (len(parts), len(nets)))
    left = route(pcbnew, board, lay)
    board.Save(str(BOARD_FILE))
    board = pcbnew.LoadBoard(str(BOARD_FILE))  # KiCad 6 fills zones only on a board it has loaded
    add_planes(pcbnew, board, lay)
    board.Save(str(BOARD_FILE))
    print("saved", BOARD_FILE.relative_to(HERE.parent))
    return 1 if left else 0  # saved all the same, to be looked at in KiCad


def outline(pcbnew, board, box, point):
    """The board's edge on Edge_Cuts: the rectangle `box` (x0, y0, x1, y1 in layout mm), placed by
    `point` (layout mm to the board's frame)."""
    x0, y0, x1, y1 = box
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
        edge = pcbnew.PCB_SHAPE(board)
        edge.SetShape(pcbnew.SHAPE_T_SEGMENT)
        edge.SetLayer(pcbnew.Edge_Cuts)
        edge.SetWidth(pcbnew.FromMM(0.1))
        edge.SetStart(point(ax, ay))
        edge.SetEnd(point(bx, by))
        board.Add(edge)


def build(pcbnew, lay, parts, nets):
    mm = pcbnew.FromMM
    x0, y0, x1, y1 = lay.pcb_box

    def point(x, y):
        return pcbnew.wxPoint(mm(MARGIN + x - x0), mm(MARGIN + y1 - y))

    board = pcbnew.BOARD()
    board.SetCopperLayerCount(4)
    ds = board.GetDesignSettings()
    ds.m_MinClearance = mm(RULES["clearance"])
    ds.m_TrackMinWidth = mm(RULES["track"])
    ds.m_ViasMinSize = mm(RULES["via"])
    ds.m_MinThroughDrill = mm(RULES["via_drill"])
    ds.m_CopperEdgeClearance = mm(RULES["edge"])
    ds.m_SolderMaskMargin = mm(MASK["expansion"])
    ds.m_SolderMaskMinWidth = mm(MASK["min_web"])
    netclass = ds.GetNetClasses().GetDefault()
    netclass.SetClearance(mm(RULES["clearance"]))
    netclass.SetTrackWidth(mm(RULES["track"]))
    netclass.SetViaDiameter(mm(RULES["via"]))
    netclass.SetViaDrill(mm(RULES["via_drill"]))

    outline(pcbnew, board, lay.pcb_box, point)

    net_items = {}
    for name in sorted(nets):
        item = pcbnew.NETINFO_ITEM(board, name)
        board.Add(item)
        net_items[name] = item
    pin_net = {(ref, pin): name for name, nodes in nets.items() for ref, pin in nodes}

    at = placements(lay, parts)
    for ref in sorted(parts, key=lambda r: (re.sub(r"\d+", "", r), int(re.sub(r"\D", "", r)))):
        lib, name = parts[ref]["footprint"].split(":")
        path = OWN if lib == "doce" else LIBS / (lib + ".pretty")
        fp = pcbnew.FootprintLoad(str(path), name)
        fp.SetFPID(pcbnew.LIB_ID(lib, name))  # with its library's nickname, as KiCad's own boards have
        fp.SetReference(ref)
        fp.SetValue(parts[ref]["value"])
        x, y, rot = at[ref]
        fp.SetPosition(point(x, y))
        fp.SetOrientationDegrees(rot)
        small = ("U11", "U12", "U13", "U14")
        if not ref.startswith(("U", "SW")) or ref in small:  # small parts: references on the fab layer
            fp.Reference().SetLayer(pcbnew.F_Fab)
            fp.Reference().SetPosition(point(x, y))
        elif ref.startswith("U") and ref != "U1":
            fp.Reference().SetPosition(point(x, y))  # on the body, clear of its neighbours' outlines
        board.Add(fp)
        for pad in fp.Pads():
            net = pin_net.get((ref, pad.GetNumber()))
            if net:
                pad.SetNet(net_items[net])
    for i, (x, y) in enumerate(lay.pcb_holes(), 1):
        fp = pcbnew.FootprintLoad(str(LIBS / "MountingHole.pretty"), "MountingHole_3.2mm_M3")
        fp.SetFPID(pcbnew.LIB_ID("MountingHole", "MountingHole_3.2mm_M3"))
        fp.SetReference("MH%d" % i)
        fp.SetPosition(point(x, y))
        fp.Reference().SetLayer(pcbnew.F_Fab)  # not on the silkscreen: it would sit at the board's edge
        fp.Reference().SetPosition(point(x, y))
        fp.SetAttributes(fp.GetAttributes() | pcbnew.FP_BOARD_ONLY | pcbnew.FP_EXCLUDE_FROM_POS_FILES
                         | pcbnew.FP_EXCLUDE_FROM_BOM)
        board.Add(fp)
        keepout(pcbnew, board, point(x, y))
    for ax0, ay0, ax1, ay1 in lay.antenna_keepouts():  # no copper under and around the devkit's antenna
        keepout(pcbnew, board, None, [point(ax0, ay0), point(ax1, ay0), point(ax1, ay1), point(ax0, ay1)])
    return board


def keepout(pcbnew, board, centre, corners=None):
    """A rule area on every copper layer, KEEPOUT_MM across `centre` (or the polygon `corners`):
    no track, via or plane there."""
    mm = pcbnew.FromMM
    zone = pcbnew.ZONE(board)
    zone.SetIsRuleArea(True)
    zone.SetDoNotAllowTracks(True)
    zone.SetDoNotAllowVias(True)
    zone.SetDoNotAllowCopperPour(True)
    zone.SetDoNotAllowPads(False)  # the hole itself is a pad; the tests measure the parts' pads
    zone.SetDoNotAllowFootprints(False)
    layers = pcbnew.LSET()
    for layer in (pcbnew.F_Cu, pcbnew.In1_Cu, pcbnew.In2_Cu, pcbnew.B_Cu):
        layers.AddLayer(layer)
    zone.SetLayerSet(layers)
    outline = zone.Outline()
    outline.NewOutline()
    if corners:
        for p in corners:
            outline.Append(p.x, p.y)
        board.Add(zone)
        return
    r = KEEPOUT_MM / 2 / math.cos(math.pi / 32)  # the 32-gon holds the circle
    for i in range(32):
        a = 2 * math.pi * (i + 0.5) / 32
        outline.Append(centre.x + mm(r * math.cos(a)), centre.y + mm(r * math.sin(a)))
    board.Add(zone)


# --- routing ----------------------------------------------------------------------------------
def planes(lay):
    """{net: (inner layer, [polygon in the board frame])}: In1 is ground everywhere; In2 is the
    LED supply under the plate, along the strip's south edge and under the LED parts low in the
    east column, and 3.3 V under the multiplexers, the devkit and the decoder. 1 mm between."""
    x0, y0, x1, y1 = lay.pcb_box
    sx = lay.strip_box[0]
    strip = lay.strip()
    east = strip["U10"][0] - 4.5  # the east column's west edge
    south = strip["U1"][1] - 18 * 2.54 - 2.0  # below the devkit's last pins
    split = strip["U11"][1] + 12  # between the LED parts and the decoder's
    led = [(x0, y0), (x1, y0), (x1, split - 0.5), (east + 0.5, split - 0.5), (east + 0.5, south - 0.5),
           (sx, south - 0.5), (sx, y1), (x0, y1)]
    v33 = [(sx + 1, south + 0.5), (east - 0.5, south + 0.5), (east - 0.5, split + 0.5), (x1, split + 0.5),
           (x1, y1), (sx + 1, y1)]
    return {"GND": ("In1.Cu", [[(x0, y0), (x1, y0), (x1, y1), (x0, y1)]]),
            "+5V_LED": ("In2.Cu", [led]), "+3V3": ("In2.Cu", [v33])}


def route(pcbnew, board, lay, log=print):
    """Route every net (router.py), add its tracks and vias, and the planes, filled by KiCad."""
    mm, to_mm = pcbnew.FromMM, pcbnew.ToMM
    x0, y0, x1, y1 = lay.pcb_box

    def kicad(x, y):
        return MARGIN + x - x0, MARGIN + y1 - y

    pads, holes = [], []
    for fp in board.GetFootprints():
        for pad in fp.Pads():
            box = pad.GetBoundingBox()
            (ax, ay), (bx, by) = to_mm(box.GetOrigin()), to_mm(box.GetEnd())
            if pad.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH:
                x, y = to_mm(pad.GetPosition())
                size = KEEPOUT_MM if fp.GetReference().startswith("MH") else to_mm(pad.GetDrillSize().x)
                holes.append((x, y, size))
                continue
            tht = pad.GetAttribute() == pcbnew.PAD_ATTRIB_PTH
            layers = (router_module.F, router_module.B) if tht else (router_module.F,)
            shape = pad.GetShape()
            if shape == pcbnew.PAD_SHAPE_RECT:
                corner = 0.0
            elif shape == pcbnew.PAD_SHAPE_ROUNDRECT:
                corner = to_mm(pad.GetRoundRectCornerRadius())
            else:  # circle, oval
                corner = min(bx - ax, by - ay) / 2
            pads.append(router_module.Pad(fp.GetReference(), pad.GetNumber(), pad.GetNetname() or None, layers,
                                          (ax, ay, bx, by), corner, to_mm(pad.GetDrillSize().x) if tht else 0.0))
    plane_polys = {net: [[kicad(*p) for p in poly] for poly in polys] for net, (_, polys) in planes(lay).items()}
    ox, oy = kicad(x0, y1)
    ex, ey = kicad(x1, y0)
    rules = router_module.Rules(RULES["clearance"], RULES["track"], RULES["power_track"], RULES["via"],
                                RULES["via_drill"], RULES["edge"], via_pad=RULES["via_pad"],
                                supply_track=RULES["supply_track"])
    boxes = []
    for ax0, ay0, ax1, ay1 in lay.antenna_keepouts():
        (kx0, ky1), (kx1, ky0) = kicad(ax0, ay0), kicad(ax1, ay1)
        boxes.append((kx0, ky0, kx1, ky1))
    # 0.5 mm tracks for USB (the devkit's and the USB-C input's) and the LEDs' supply after its current
    # limit, 0.9 mm for each sensor group's (hardware/supply.py: its drop to the farthest sensor, which
    # the sensor reads)
    power_nets = {"VBUS", "VBUS_LED"}
    r = router_module.Router((ox, oy, ex, ey), pads, holes, rules, plane_polys, power_nets=power_nets,
                             log=log, keepouts=boxes,
                             supply_nets={"+3V3_GROUP%d" % g for g in range(8)})
    r.power_pads = {("U12", "+5V_LED")}  # the LEDs' current, to the plane
    r.sources = {"Q%d" % (g + 1) for g in range(8)}  # each group's supply grows from its switch
    r.run(iterations=100)  # the 0.9 mm supplies crowd the plate: the last conflicts take longer to settle
    segs, vias = r.copper()
    nets = board.GetNetsByName()
    layer = {router_module.F: pcbnew.F_Cu, router_module.B: pcbnew.B_Cu}
    for name, L, (ax, ay), (bx, by), width in segs:
        t = pcbnew.PCB_TRACK(board)
        t.SetStart(pcbnew.wxPoint(mm(ax), mm(ay)))
        t.SetEnd(pcbnew.wxPoint(mm(bx), mm(by)))
        t.SetWidth(mm(width))
        t.SetLayer(layer[L])
        t.SetNet(nets[name])
        board.Add(t)
    for name, (x, y) in vias:
        v = pcbnew.PCB_VIA(board)
        v.SetPosition(pcbnew.wxPoint(mm(x), mm(y)))
        v.SetWidth(mm(RULES["via"]))
        v.SetDrill(mm(RULES["via_drill"]))
        v.SetViaType(pcbnew.VIATYPE_THROUGH)
        v.SetLayerPair(pcbnew.F_Cu, pcbnew.B_Cu)
        v.SetNet(nets[name])
        board.Add(v)
    left = r.unrouted()
    log("routed: %d tracks, %d vias; %d connections not made %s" % (len(segs), len(vias), len(left), left[:10]))
    return left


def add_planes(pcbnew, board, lay):
    """The inner layers' zones (planes()), filled by KiCad's zone filler."""
    mm = pcbnew.FromMM
    nets = board.GetNetsByName()
    x0, y0, x1, y1 = lay.pcb_box

    def kicad(x, y):
        return MARGIN + x - x0, MARGIN + y1 - y

    for net, (layer_name, polys) in planes(lay).items():
        for poly in polys:
            zone = pcbnew.ZONE(board)
            zone.SetLayer(board.GetLayerID(layer_name))
            zone.SetNetCode(nets[net].GetNetCode())
            outline = zone.Outline()
            outline.NewOutline()
            for p in poly:
                x, y = kicad(*p)
                outline.Append(mm(x), mm(y))
            zone.SetLocalClearance(mm(0.2))
            zone.SetMinThickness(mm(0.25))
            zone.SetPadConnection(pcbnew.ZONE_CONNECTION_THERMAL)
            zone.SetThermalReliefGap(mm(0.3))
            zone.SetThermalReliefSpokeWidth(mm(0.5))
            board.Add(zone)
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())


def drc(pcbnew, path, report):
    """KiCad's own DRC on a saved board: writes the report, prints its counts."""
    board = pcbnew.LoadBoard(str(path))
    pcbnew.WriteDRCReport(board, str(report), pcbnew.EDA_UNITS_MILLIMETRES, True)
    text = report.read_text()
    text = re.sub(r"(?m)^\*\* Created on .*$", "** Created on (date left out)", text)
    text = re.sub(r"(?m)^(\*\* Drc report for ).*?([^/\\]+) \*\*$", r"\1\2 **", text)  # not where it was built
    report.write_text(text)
    found = re.findall(r"\*\* Found (\d+) (DRC violations|unconnected pads|Footprint errors)", text)
    counts = {key: int(n) for n, key in found}
    print(json.dumps(counts))
    return 0 if counts and not any(counts.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
