"""The PCB (hardware/pcb/doce.kicad_pcb, built by hardware/pcb.py in KiCad's Python): every
footprint where board.json puts it, the netlist SKiDL writes, and KiCad's own DRC."""

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import completed

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
BOARD = HARDWARE / "pcb" / "doce.kicad_pcb"
KICAD_PYTHON = "/usr/bin/python3"
SPEC = json.loads((HARDWARE / "board.json").read_text())


def load(name):
    sys.path.insert(0, str(HARDWARE))
    spec = importlib.util.spec_from_file_location("doce_" + name, HARDWARE / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pcb = load("pcb")
PARTS, NETS = pcb.read_netlist()


def footprints(path=BOARD):
    """{ref: {"at": (x, y) in the board frame, "pads": {pad: net}}} read from the file itself."""
    tree = pcb._sexp(path.read_text())
    (x0, y0, x1, y1) = [float(v) for v in _outline(tree)]
    out = {}
    for fp in pcb._find(tree, "footprint"):
        ref = [t[2] for t in pcb._find(fp, "fp_text") if t[1] == "reference"][0]
        at = pcb._find(fp, "at")[0]
        pads = {}
        for pad in pcb._find(fp, "pad"):
            net = pcb._find(pad, "net")
            pads[pad[1]] = net[0][2] if net else None
        out[ref] = {"at": (float(at[1]) - x0, y1 - float(at[2])), "pads": pads}
    return out


def _outline(tree):
    xs, ys = [], []
    for line in pcb._find(tree, "gr_line"):
        if pcb._find(line, "layer")[0][1] == "Edge.Cuts":
            for key in ("start", "end"):
                point = pcb._find(line, key)[0]
                xs.append(float(point[1]))
                ys.append(float(point[2]))
    return min(xs), min(ys), max(xs), max(ys)


@pytest.fixture(scope="module")
def placed():
    return footprints()


def square_centre(name):
    pitch = SPEC["physics"]["square_mm"]
    return (ord(name[0]) - ord("a")) * pitch, (int(name[1:]) - 1) * pitch


def board_origin():
    """a1's centre, from the board outline: the PCB starts the plate's border west and south
    of a1's square (board.json mechanics)."""
    half = SPEC["physics"]["square_mm"] / 2
    return half + SPEC["mechanics"]["border_mm"]


def test_every_sensor_is_under_its_square_where_the_model_puts_it(placed):
    from doce_host.physics.scene import sensor_positions

    model = sensor_positions(SPEC)
    origin = board_origin()
    seen = 0
    for ref, part in PARTS.items():
        if "Position" not in part:
            continue
        square, where = part["Position"].split()
        ch = SPEC["squares"][square]["CNESW".index(where)]
        x, y = placed[ref]["at"]
        assert (x - origin, y - origin) == pytest.approx(tuple(model[ch][:2]), abs=0.1), ref
        seen += 1
    assert seen == sum(len(c) for c in SPEC["squares"].values())


def test_every_square_led_is_at_its_offset_and_the_turn_leds_on_their_edges(placed):
    origin = board_origin()
    dx, dy = SPEC["leds"]["offset_mm"]
    for square, i in SPEC["leds"]["squares"].items():
        cx, cy = square_centre(square)
        x, y = placed["LED%d" % (i + 1)]["at"]
        assert (x - origin, y - origin) == pytest.approx((cx + dx, cy + dy), abs=0.1)
    top = (SPEC["grid"] - 0.5) * SPEC["physics"]["square_mm"] + SPEC["mechanics"]["border_mm"] / 2
    files = {square_centre(f + "1")[0] for f in SPEC["leds"]["turn_files"]}
    for player, y_want in (("black", top), ("white", -SPEC["physics"]["square_mm"] / 2
                                            - SPEC["mechanics"]["border_mm"] / 2)):
        spots = set()
        for i in SPEC["leds"]["turn"][player]:
            x, y = placed["LED%d" % (i + 1)]["at"]
            assert y - origin == pytest.approx(y_want, abs=0.1)
            spots.add(round(x - origin, 1))
        assert spots == {round(x, 1) for x in files}


def test_the_pcb_has_the_netlist_skidl_writes(placed):
    want = {(ref, pin): name for name, nodes in NETS.items() for ref, pin in nodes}
    have = {(ref, pad): net for ref, fp in placed.items() for pad, net in fp["pads"].items() if net}
    assert have == want
    assert set(PARTS) <= set(placed)
    extra = set(placed) - set(PARTS)
    assert extra and all(ref.startswith("MH") for ref in extra)  # mounting holes only


def test_a_pad_on_the_wrong_net_is_caught(placed, tmp_path):
    text = BOARD.read_text()
    start = text.index("(footprint")  # a pad's net, not the net's declaration
    wrong = text[start:].replace('(net %d "HALL0")' % _net_code("HALL0"), '(net %d "HALL1")' % _net_code("HALL1"), 1)
    (tmp_path / "bad.kicad_pcb").write_text(text[:start] + wrong)
    bad = footprints(tmp_path / "bad.kicad_pcb")
    want = {(ref, pin): name for name, nodes in NETS.items() for ref, pin in nodes}
    have = {(ref, pad): net for ref, fp in bad.items() for pad, net in fp["pads"].items() if net}
    assert have != want


def _net_code(name):
    import re

    return int(re.search(r'\(net (\d+) "%s"\)' % re.escape(name), BOARD.read_text()).group(1))


def _kicad():
    if not Path(KICAD_PYTHON).exists():
        return False
    return subprocess.run([KICAD_PYTHON, "-c", "import pcbnew"], capture_output=True).returncode == 0


needs_kicad = pytest.mark.skipif(not _kicad(), reason="KiCad's Python (Debian package kicad) is not installed")


@pytest.fixture(scope="module")
def drc(tmp_path_factory):
    """KiCad's own DRC (pcb.py --drc) on a copy of the committed board and its project file
    (KiCad 6 keeps the net classes' clearances there): its counts and report."""
    where = tmp_path_factory.mktemp("drc")
    shutil.copy(BOARD, where / "doce.kicad_pcb")
    shutil.copy(BOARD.with_suffix(".kicad_pro"), where / "doce.kicad_pro")
    out = completed([KICAD_PYTHON, str(HARDWARE / "pcb.py"), "--drc", str(where / "doce.kicad_pcb"),
                     str(where / "drc.txt")], timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1]), (where / "drc.txt").read_text()


@needs_kicad
def test_kicad_drc_finds_no_violation(drc):
    counts, report = drc
    assert counts["DRC violations"] == 0, report[:3000]
    assert counts["Footprint errors"] == 0


@needs_kicad
def test_kicad_drc_finds_every_pad_connected(drc):
    counts, report = drc
    assert counts["unconnected pads"] == 0


def test_the_devkits_own_board_is_drawn_over_the_parts_under_it(placed):
    """Review of issue 39: the devkit's courtyard covers only its two socket rows, so the parts
    between them (the USB-C input's) stand under a board nothing drew. Its footprint now draws the
    devkit's outline (27.9 x 56.6 mm, centred on the rows, DEVKIT_END_MM beyond pin 1) on F.Fab,
    and every part under it is one of the USB-C input's low parts."""
    text = (HARDWARE / "doce.pretty" / "ESP32-DevKitC_2x19_socket.kicad_mod").read_text()
    assert text == pcb.devkit_footprint()  # the committed library file is the one pcb.py writes
    rects = [r for r in pcb._find(pcb._sexp(text), "fp_rect") if pcb._find(r, "layer")[0][1] == "F.Fab"]
    ((sx, sy), (ex, ey)) = [[float(v) for v in pcb._find(rects[0], k)[0][1:]] for k in ("start", "end")]
    rows, end = pcb.layout_module.DEVKIT_ROWS_MM, pcb.layout_module.DEVKIT_END_MM
    assert len(rects) == 1 and (ex - sx, ey - sy) == pytest.approx(pcb.DEVKIT_BOARD_MM)
    assert ((sx + ex) / 2, sy) == pytest.approx((rows / 2, -end))
    ux, uy = placed["U1"]["at"]  # pin 1, the footprint's origin; its y grows south in the footprint
    under = sorted(ref for ref, p in placed.items() if ref != "U1"
                   and ux + sx < p["at"][0] < ux + ex and uy - ey < p["at"][1] < uy - sy)
    assert under == ["C172", "D1", "R22", "R23", "R24", "R25", "R26", "U14"]
    assert placed["J1"]["at"][1] + 3.03 > uy - ey  # J1's mouth is south of the devkit; its pad row under it


def test_the_guide_gives_the_led_data_lines_routed_length():
    """hardware/README.md: R9 damps the line from the shifter at the first LED; the length it quotes
    is the routed one (r39g: it said 200 mm where the copper runs 230), to the nearest 10 mm."""
    import math
    import re

    tree = pcb._sexp(BOARD.read_text())
    (r9,) = [fp for ref, fp in ((t[2], f) for f in pcb._find(tree, "footprint")
                                for t in pcb._find(f, "fp_text") if t[1] == "reference") if ref == "R9"]
    nets = {pcb._find(pad, "net")[0][1] for pad in pcb._find(r9, "pad")}
    shifter_side = [n for n in nets if any(pcb._find(s, "net")[0][1] == n for s in pcb._find(tree, "segment"))]
    lengths = {}
    for seg in pcb._find(tree, "segment"):
        net = pcb._find(seg, "net")[0][1]
        (s,), (e,) = pcb._find(seg, "start"), pcb._find(seg, "end")
        lengths[net] = lengths.get(net, 0) + math.dist((float(s[1]), float(s[2])), (float(e[1]), float(e[2])))
    routed = max(lengths[n] for n in shifter_side)
    guide = (HARDWARE / "README.md").read_text()
    quoted = int(re.search(r"at the end\s+of the (\d+) mm line from the shifter", guide)[1])
    assert routed > 100 and quoted == round(routed, -1)
