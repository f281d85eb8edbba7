"""The sensors' switched supplies as the routed copper carries them: each group's rail
(`+3V3_GROUPn`) from its P-MOSFET's drain to its sixteen sensors, solved as a resistor network.

    python hardware/supply.py             # every sensor's drop, worst first (pcb/doce.kicad_pcb)

Every track is a resistor of its copper (length x resistivity / (width x thickness)), every via
its plated barrel, every pad a node of no resistance; a track's end joins whatever copper of its
net lies under it on its layer (a pad, another track's end or middle, a via). The drain's pad is
held at 0 V and each sensor's VCC pad draws its most current; the network's node voltages are
the sensors' drops below their switch. The DRV5055's output is ratiometric (SBAS640 6.3.4), so a
sensor on a lower supply reads a lower zero and a lower gain; physics/rail.py takes the worst
drop found here (board.json physics.rail.track_mV) into the model, and tests/hardware checks
both against the board.

Figures (board.json mechanics and the sources named):
- copper: 1 oz finished outer copper (README, ordering the PCB: 35 um), 10 % thinner at worst
  (IPC-4562's weight tolerance for copper foil: 31.5 um); annealed copper 1.724e-8 Ohm m at
  20 C (IEC 60028), rising 0.393 % a kelvin, taken at 50 C (a board warmed by its LEDs and
  regulator in a closed enclosure): 0.61 mOhm a square, against 0.49 at 35 um and 20 C;
- vias: 0.3 mm drilled through 1.6 mm, plated 20 um (IPC-6012 class 2, the least average
  barrel plating): 1.6 mOhm each at 50 C, small beside the tracks;
- each sensor draws I_CC 10 mA at most (DRV5055 datasheet, TI SBAS640, 5.5 Electrical
  Characteristics), all sixteen of a group at once (a group is read whole).
"""

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pcb as pcb_module  # noqa: E402  (its netlist reader only: no KiCad needed)

BOARD_FILE = HERE / "pcb" / "doce.kicad_pcb"
RHO_20C = 1.724e-8  # Ohm m, annealed copper (IEC 60028)
ALPHA = 0.00393  # per kelvin
COPPER_UM = 35.0  # 1 oz finished outer copper (the fab's)
COPPER_TOL = 0.10  # IPC-4562: copper foil weight -10 %
HOT_C = 50.0
VIA_DRILL_MM, VIA_PLATING_UM = 0.3, 20.0
SENSOR_MA = 10.0  # DRV5055 I_CC max (SBAS640 5.5)
WORST = {"thickness_um": COPPER_UM * (1 - COPPER_TOL), "celsius": HOT_C}
NOMINAL = {"thickness_um": COPPER_UM, "celsius": 20.0}


def resistivity(celsius):
    return RHO_20C * (1 + ALPHA * (celsius - 20.0))


def sheet_mohm(copper=WORST):
    """mOhm a square of outer copper."""
    return resistivity(copper["celsius"]) / (copper["thickness_um"] * 1e-6) * 1e3


def via_mohm(copper=WORST, board_mm=1.6):
    barrel = math.pi * VIA_DRILL_MM * 1e-3 * VIA_PLATING_UM * 1e-6
    return resistivity(copper["celsius"]) * board_mm * 1e-3 / barrel * 1e3


def read_copper(path=BOARD_FILE):
    """{net: {"segments": [(layer, (x, y), (x, y), width)], "vias": [(x, y)], "pads": [(ref, number,
    layers, x, y, w, h, degrees)]}} from a routed board (KiCad's frame, mm)."""
    tree = pcb_module._sexp(Path(path).read_text())
    names = {n[1]: n[2] for n in pcb_module._find(tree, "net")}
    nets = {}

    def of(node):
        net = pcb_module._find(node, "net")
        name = names.get(net[0][1]) if net else None
        return nets.setdefault(name, {"segments": [], "vias": [], "pads": []}) if name else None

    for seg in pcb_module._find(tree, "segment"):
        (a, b) = [tuple(float(v) for v in pcb_module._find(seg, k)[0][1:3]) for k in ("start", "end")]
        of(seg)["segments"].append((pcb_module._find(seg, "layer")[0][1], a, b,
                                    float(pcb_module._find(seg, "width")[0][1])))
    for via in pcb_module._find(tree, "via"):
        of(via)["vias"].append(tuple(float(v) for v in pcb_module._find(via, "at")[0][1:3]))
    for fp in pcb_module._find(tree, "footprint"):
        ref = [t[2] for t in pcb_module._find(fp, "fp_text") if t[1] == "reference"][0]
        at = pcb_module._find(fp, "at")[0]
        fx, fy = float(at[1]), float(at[2])
        a = math.radians(float(at[3]) if len(at) > 3 else 0.0)
        for pad in pcb_module._find(fp, "pad"):
            net = of(pad)
            if net is None:
                continue
            pat = pcb_module._find(pad, "at")[0]
            px, py = float(pat[1]), float(pat[2])
            size = pcb_module._find(pad, "size")[0]
            layers = pcb_module._find(pad, "layers")[0][1:]
            net["pads"].append((ref, pad[1], layers, fx + px * math.cos(a) + py * math.sin(a),
                                fy - px * math.sin(a) + py * math.cos(a), float(size[1]), float(size[2]),
                                float(pat[3]) if len(pat) > 3 else 0.0))
    return nets


def _on_pad(pad, layer, x, y):
    _, _, layers, px, py, w, h, degrees = pad
    if layer not in layers and "*.Cu" not in layers and not (layer == "F.Cu" and "F&B.Cu" in layers):
        return False
    a = math.radians(degrees)
    dx, dy = x - px, y - py
    u, v = dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)
    return abs(u) <= w / 2 + 1e-6 and abs(v) <= h / 2 + 1e-6


def _on_segment(p, a, b):
    (x, y), (ax, ay), (bx, by) = p, a, b
    cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
    if abs(cross) > 1e-6 * max(1.0, math.hypot(bx - ax, by - ay)):
        return False
    return min(ax, bx) - 1e-6 <= x <= max(ax, bx) + 1e-6 and min(ay, by) - 1e-6 <= y <= max(ay, by) + 1e-6


def network(net, copper=WORST):
    """(nodes, resistors): nodes are ("pad", ref, number) or (layer, x, y); resistors
    (node, node, ohms), from one net's copper."""
    sheet = sheet_mohm(copper) / 1000
    via = via_mohm(copper) / 1000
    points = {}  # layer -> set of (x, y) where copper joins
    for layer, a, b, _ in net["segments"]:
        points.setdefault(layer, set()).update((_key(a), _key(b)))
    for x, y in net["vias"]:
        for layer in ("F.Cu", "B.Cu"):
            points.setdefault(layer, set()).add(_key((x, y)))
    for pad in net["pads"]:  # a track may run over a pad without ending on it: it joins there
        px, py = pad[3], pad[4]
        for layer, a, b, _ in net["segments"]:
            (ax, ay), (bx, by) = a, b
            dx, dy = bx - ax, by - ay
            t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
            q = _key((ax + t * dx, ay + t * dy))
            if _on_pad(pad, layer, *q):
                points[layer].add(q)
    resistors = []
    for layer, a, b, width in net["segments"]:
        on = sorted((p for p in points[layer] if _on_segment(p, a, b)),
                    key=lambda p: math.hypot(p[0] - a[0], p[1] - a[1]))
        for p, q in zip(on, on[1:]):
            length = math.hypot(q[0] - p[0], q[1] - p[1])
            if length > 1e-9:
                resistors.append(((layer,) + p, (layer,) + q, sheet * length / width))
    for x, y in net["vias"]:
        resistors.append((("F.Cu",) + _key((x, y)), ("B.Cu",) + _key((x, y)), via))
    for pad in net["pads"]:
        node = ("pad", pad[0], pad[1])
        for layer, pts in points.items():
            for p in pts:
                if _on_pad(pad, layer, *p):
                    resistors.append((node, (layer,) + p, 0.0))
    nodes = sorted({n for r in resistors for n in r[:2]} | {("pad", p[0], p[1]) for p in net["pads"]}, key=str)
    return nodes, resistors


def _key(p):
    return (round(p[0], 4), round(p[1], 4))


def drops(net, source, sinks, copper=WORST):
    """{sink: volts below `source`} when each sink pad ((ref, number)) draws its amps:
    sinks {(ref, number): amps}. Zero-ohm joins merge their nodes."""
    import numpy as np

    nodes, resistors = network(net, copper)
    parent = {n: n for n in nodes}

    def find(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for a, b, ohms in resistors:
        if ohms == 0.0:
            parent[find(a)] = find(b)
    groups = sorted({find(n) for n in nodes}, key=str)
    index = {g: i for i, g in enumerate(groups)}
    g = np.zeros((len(groups), len(groups)))
    for a, b, ohms in resistors:
        i, j = index[find(a)], index[find(b)]
        if ohms == 0.0 or i == j:
            continue
        g[i, i] += 1 / ohms
        g[j, j] += 1 / ohms
        g[i, j] -= 1 / ohms
        g[j, i] -= 1 / ohms
    current = np.zeros(len(groups))
    for (ref, number), amps in sinks.items():
        current[index[find(("pad", ref, number))]] -= amps
    root = index[find(("pad",) + source)]
    keep = [i for i in range(len(groups)) if i != root]
    v = np.zeros(len(groups))
    v[keep] = np.linalg.solve(g[np.ix_(keep, keep)], current[keep])  # singular if a sink is cut off
    return {sink: -float(v[index[find(("pad",) + sink)]]) for sink in sinks}


def group_drops(path=BOARD_FILE, copper=WORST, netlist=None):
    """{sensor ref: (group net, volts below its switch's drain)} for every sensor."""
    parts, nets = netlist or pcb_module.read_netlist()
    copper_by_net = read_copper(path)
    out = {}
    for name, nodes in sorted(nets.items()):
        if not name.startswith("+3V3_GROUP"):
            continue
        (drain,) = [(ref, pin) for ref, pin in nodes if ref.startswith("Q")]
        sensors = {(ref, pin): SENSOR_MA / 1000 for ref, pin in nodes if ref.startswith("H")}
        for (ref, _), volts in drops(copper_by_net[name], drain, sensors, copper).items():
            out[ref] = (name, volts)
    return out


def limit_mv(spec):
    """The most a sensor's tracks may drop its supply, from the calibration's margin.

    Calibration refuses a sensor whose empty reading is more than sensing.baseline_spread from the
    board's median (firmware/doce/calibration.py). Two healthy sensors differ by at most their
    quiescent outputs' spread (physics.sensor.quiescent_V) and half their switches' drop (the
    output is ratiometric: it moves by half its supply's change at zero field), read by the
    steepest ADC (Vref 1000 mV, ESP-IDF's line: 21.8 counts a mV): what is left of baseline_spread
    is the margin kept for drift and the ADC's nonlinearity. A sensor's track drop moves its zero
    by half the drop; it may take at most half that margin."""
    from_vref = 1000 * 196602 / 4096 / 65536  # mV a raw count, ESP-IDF's line at Vref 1000 mV
    counts_per_mv = 16 / from_vref  # read_u16 widens 12 bits to 16
    ph = spec["physics"]
    switch_mv = ph["rail"]["group_sensors"] * ph["sensor"]["supply_mA"][1] * ph["rail"]["switch_mohm"] / 1000
    healthy = ((ph["sensor"]["quiescent_V"][1] - ph["sensor"]["quiescent_V"][0]) * 1000 + switch_mv / 2) * counts_per_mv
    margin = spec["sensing"]["baseline_spread"] - healthy
    return 2 * (margin / 2 / counts_per_mv)  # half the margin at the output is twice that at the supply


def main():
    parts, _ = pcb_module.read_netlist()
    worst = group_drops()
    nominal = group_drops(copper=NOMINAL)
    import json

    print("sheet resistance %.3f mOhm/sq (worst), %.3f (35 um, 20 C); via %.2f mOhm; the limit %.1f mV"
          % (sheet_mohm(), sheet_mohm(NOMINAL), via_mohm(), limit_mv(json.loads((HERE / "board.json").read_text()))))
    for ref, (net, volts) in sorted(worst.items(), key=lambda kv: -kv[1][1])[:10]:
        print("%-5s %-12s %-8s %5.1f mV (nominal copper %5.1f mV)" % (ref, net, parts[ref].get("Position", ""),
                                                                    volts * 1000, nominal[ref][1] * 1000))
    by_group = {}
    for net, volts in worst.values():
        by_group.setdefault(net, []).append(volts * 1000)
    for net, mv in sorted(by_group.items()):
        print("%s: %.1f-%.1f mV" % (net, min(mv), max(mv)))


if __name__ == "__main__":
    main()
