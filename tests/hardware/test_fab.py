"""The files a fab takes (hardware/fab/, made by hardware/fab.py in KiCad's Python): the
Gerbers and drill files are what KiCad plots from the committed board today, the upload zip
holds exactly them, and the BOM and placement file name every part of the netlist once, in
JLCPCB's columns, where the board has it."""

import csv
import importlib.util
import math
import re
import sys
import zipfile

import pytest
from waiting import completed
from test_mechanics import outputs
from test_pcb import BOARD, HARDWARE, KICAD_PYTHON, PARTS, needs_kicad, pcb

FAB = HARDWARE / "fab"
GERBERS = sorted(FAB.glob("doce-*.gbr")) + sorted(FAB.glob("doce-*.drl"))


def rows(name):
    with open(FAB / name, newline="") as f:
        return list(csv.reader(f))


def test_the_bom_names_every_part_once_in_jlcpcbs_columns():
    header, *body = rows("doce-bom-jlcpcb.csv")
    assert header == ["Comment", "Designator", "Footprint", "LCSC Part #"]
    refs = [ref for row in body for ref in row[1].split(",")]
    assert len(refs) == len(set(refs))
    assert set(refs) == set(PARTS)
    for comment, designators, footprint, lcsc in body:
        for ref in designators.split(","):
            value = PARTS[ref]["value"] if ref != "U1" else "2x PPTC191LFBN-RC"  # the devkit's sockets
            assert comment.startswith(value) and PARTS[ref]["footprint"].endswith(":" + footprint), ref
        assert lcsc == "" or re.fullmatch(r"C\d+", lcsc)


def placed_raw():
    """{ref: (x, y, degrees)} as the board file has them (KiCad's frame, y down)."""
    out = {}
    for fp in pcb._find(pcb._sexp(BOARD.read_text()), "footprint"):
        ref = [t[2] for t in pcb._find(fp, "fp_text") if t[1] == "reference"][0]
        at = pcb._find(fp, "at")[0]
        out[ref] = (float(at[1]), float(at[2]), float(at[3]) if len(at) > 3 else 0.0)
    return out


def pads_centres():
    """{ref: (x, y)}: the middle of each footprint's pads in KiCad's frame (y down), read from
    the board file: a pad's (at) is in its footprint's frame, which is turned by the
    footprint's angle (counter-clockwise as drawn, so clockwise in y-down numbers)."""
    out = {}
    for fp in pcb._find(pcb._sexp(BOARD.read_text()), "footprint"):
        ref = [t[2] for t in pcb._find(fp, "fp_text") if t[1] == "reference"][0]
        at = pcb._find(fp, "at")[0]
        fx, fy = float(at[1]), float(at[2])
        turn = math.radians(float(at[3]) if len(at) > 3 else 0.0)
        xs, ys = [], []
        for pad in pcb._find(fp, "pad"):
            px, py = (float(v) for v in pcb._find(pad, "at")[0][1:3])
            xs.append(fx + px * math.cos(turn) + py * math.sin(turn))
            ys.append(fy - px * math.sin(turn) + py * math.cos(turn))
        out[ref] = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    return out


def test_the_placement_file_puts_every_part_where_its_pads_are():
    """Mid X/Y is the middle of the part's pads (JLCPCB's placement centre), also for the
    through-hole parts, whose footprint origin is their pin 1 (SW1's was 3.9 mm off)."""
    header, *body = rows("doce-cpl-jlcpcb.csv")
    assert header == ["Designator", "Mid X", "Mid Y", "Layer", "Rotation"]
    assert sorted(r[0] for r in body) == sorted(PARTS)
    board, centres = placed_raw(), pads_centres()
    for ref, x, y, layer, rotation in body:
        bx, by, degrees = board[ref]
        cx, cy = centres[ref]
        assert float(x.removesuffix("mm")) == pytest.approx(cx, abs=0.1), ref
        assert float(y.removesuffix("mm")) == pytest.approx(-cy, abs=0.1), ref  # y up, as in the Gerbers
        fp = footprint_of(ref)
        extra = 180 if fp.startswith(("SOT-23", "SOT-363")) else 270 if fp.startswith("SOIC-") else 90 if fp.startswith(
            "LED_WS2812B-2020") else 0
        assert float(rotation) == (degrees + extra) % 360 and layer == "Top", ref


def footprint_of(ref):
    return PARTS[ref]["footprint"].split(":")[1]


def test_the_assembler_is_asked_for_the_devkits_sockets_not_the_devkit():
    (row,) = [r for r in rows("doce-bom-jlcpcb.csv")[1:] if r[1] == "U1"]
    assert row[0].startswith("2x PPTC191LFBN-RC") and "ESP32" not in row[0]


def test_the_pads_centres_are_the_pads_middles_for_a_turned_footprint():
    """The reader above turns pads as KiCad does: a 0603 turned 90 degrees has its two pads
    one above the other, and the through-hole button's middle is not its pin 1."""
    board, centres = placed_raw(), pads_centres()
    turned = [ref for ref in PARTS if ref.startswith("R") and board[ref][2] == 90]
    assert turned
    for ref in turned:
        assert centres[ref] == pytest.approx(board[ref][:2], abs=1e-6)
    assert math.dist(centres["SW1"], board["SW1"][:2]) > 3.0


def test_sot23_and_soic_parts_are_turned_as_jlcpcbs_library_draws_them():
    rotation = {r[0]: float(r[4]) for r in rows("doce-cpl-jlcpcb.csv")[1:]}
    board = placed_raw()
    assert rotation["H1"] == (board["H1"][2] + 180) % 360  # SOT-23 (JLCKicadTools' table)
    assert rotation["U2"] == (board["U2"][2] + 270) % 360  # SOIC
    assert rotation["C1"] == board["C1"][2] % 360  # 0603: none


def test_the_upload_holds_every_gerber_and_drill_file_as_they_are():
    with zipfile.ZipFile(FAB / "doce-gerbers.zip") as z:
        assert sorted(z.namelist()) == sorted(p.name for p in GERBERS)
        for path in GERBERS:
            assert z.read(path.name) == path.read_bytes(), path.name


def test_there_is_a_gerber_for_every_layer_a_4_layer_board_needs():
    functions = {re.search(r"%TF\.FileFunction,([^*]*)\*%", p.read_text()).group(1) for p in FAB.glob("*.gbr")}
    for need in ("Copper,L1,Top", "Copper,L2,Inr", "Copper,L3,Inr", "Copper,L4,Bot", "Soldermask,Top",
                 "Soldermask,Bot", "Legend,Top", "Paste,Top", "Profile,NP"):
        assert need in functions


def test_every_via_of_the_board_is_drilled():
    vias = len(re.findall(r"^\s*\(via ", BOARD.read_text(), re.M))
    drill = (FAB / "doce-PTH.drl").read_text()
    tool = re.search(r"^; #@! TA\.AperFunction,Plated,PTH,ViaDrill\n(T\d+)C", drill, re.M).group(1)
    body = drill[drill.index("\n%\n"):]
    count, current = 0, None
    for line in body.splitlines():
        if re.fullmatch(r"T\d+", line):
            current = line
        elif line.startswith("X") and current == tool:
            count += 1
    assert vias > 500 and count == vias


@needs_kicad
def test_the_fab_files_are_what_kicad_plots_from_the_board_today(tmp_path):
    # -X importtime: every module the run imports, on stderr, those a function imports when called too
    out = completed([KICAD_PYTHON, "-X", "importtime", str(HARDWARE / "fab.py"), str(tmp_path)], timeout=300)
    assert out.returncode == 0, out.stderr
    imported = {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    scripts = {name + ".py" for name in imported if (HARDWARE / (name + ".py")).is_file()}
    unhashed = scripts - set(outputs.GROUPS["fab"]["sources"])
    assert not unhashed, "fab.py's run loads %s: outputs.py must hash them" % sorted(unhashed)
    made = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert made == sorted(str(p.relative_to(FAB)) for p in FAB.rglob("*") if p.is_file())
    assert "plate/plate-gerbers.zip" in made
    for name in made:
        assert (tmp_path / name).read_bytes() == (FAB / name).read_bytes(), name


def test_the_ws2812b_2020_is_turned_as_jlcpcbs_library_draws_it():
    """KiBot's rotation table (from the JLCKicadTools and JLC-Plugin-for-KiCad ones) turns
    LED_WS2812B-2020_PLCC4_2.0x2.0mm by 90 degrees for JLCPCB; the CPL had KiCad's rotation."""
    rotation = {r[0]: float(r[4]) for r in rows("doce-cpl-jlcpcb.csv")[1:]}
    board = placed_raw()
    leds = [ref for ref in PARTS if ref.startswith("LED")]
    assert len(leds) == 31
    for ref in leds:
        assert rotation[ref] == (board[ref][2] + 90) % 360, ref


def test_the_rotation_table_matches_by_footprint_name():
    sys.path.insert(0, str(HARDWARE))
    spec = importlib.util.spec_from_file_location("doce_fab", HARDWARE / "fab.py")
    fab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fab)
    assert fab.jlcpcb_rotation("LED_WS2812B-2020_PLCC4_2.0x2.0mm", 0) == 90
    assert fab.jlcpcb_rotation("LED_WS2812B-2020_PLCC4_2.0x2.0mm", 270) == 0
    assert fab.jlcpcb_rotation("LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm", 0) == 0  # the 5050 is not in our table
    assert fab.jlcpcb_rotation("R_0603_1608Metric", 90) == 90


def test_the_gate_resistors_and_the_bulk_capacitor_have_lcsc_numbers():
    lcsc = {r[1]: r[3] for r in rows("doce-bom-jlcpcb.csv")[1:]}
    assert lcsc["R12,R13,R14,R15,R16,R17,R18,R19"] == "C105588"
    assert lcsc["C170"] == "C15850"


def test_only_the_parts_without_a_source_lack_an_lcsc_number():
    """The load switch, 1 uF (C172 at the USB-C input too), 330 Ohm, button, decoder and current
    limit have numbers paired with their exact MPNs (fab.py cites each); the 100 uF and U1's two
    sockets (through-hole, soldered by hand) and R21 (88.7 kOhm: any of that value, README) have
    none that a source pairs with our part."""
    lcsc = {r[1]: r[3] for r in rows("doce-bom-jlcpcb.csv")[1:]}
    assert (lcsc["U12"], lcsc["C168,C171,C172"], lcsc["R9"], lcsc["SW1"]) == ("C131941", "C29936", "C105881", "C93157")
    assert (lcsc["U10"], lcsc["U13"]) == ("C6818", "C111738")
    assert sorted(d for d, number in lcsc.items() if not number) == ["C169", "R21", "U1"]


PLATE = FAB / "plate"


def drilled(path):
    """{(x, y) mm: diameter mm} of an Excellon file as KiCad writes it (metric, decimal)."""
    text = path.read_text()
    tools = {t: float(d) for t, d in re.findall(r"(?m)^(T\d+)C([0-9.]+)$", text)}
    out, tool = {}, None
    for line in text[text.index("\n%\n"):].splitlines():
        if re.fullmatch(r"T\d+", line):
            tool = line
        elif m := re.fullmatch(r"X(-?[0-9.]+)Y(-?[0-9.]+)", line):
            out[(float(m[1]), float(m[2]))] = tools[tool]
    return out


def outline(path):
    """The (x0, y0, x1, y1) mm of a Gerber profile's strokes (format 4.6)."""
    points = [(int(x) / 1e6, int(y) / 1e6) for x, y in re.findall(r"(?m)^X(-?\d+)Y(-?\d+)D0[12]\*$", path.read_text())]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def test_the_floor_plate_comes_as_files_a_pcb_fab_takes():
    """fab/plate/: the plate's outline (a Gerber profile) and its 10 unplated M3 holes (Excellon),
    where the PCB has its plate holes in the same frame; copper layers with nothing on them;
    the zip holds exactly these files."""
    import layout

    lay = layout.load()
    holes = drilled(PLATE / "plate-NPTH.drl")
    assert len(holes) == len(lay.plate_holes()) == 10
    assert set(holes.values()) == {lay.mech["hole_mm"]}
    pcb_holes = drilled(FAB / "doce-NPTH.drl")
    assert set(holes) < set(pcb_holes) and len(pcb_holes) == len(lay.pcb_holes())
    # the same holes as layout.py's, in the Gerbers' frame: x from the board's west edge, y up
    x0, y0, x1, y1 = outline(FAB / "doce-Edge_Cuts.gbr")
    px0, py0, px1, py1 = outline(PLATE / "plate-Edge_Cuts.gbr")
    bx0, by0, bx1, by1 = lay.pcb_box
    to_gerber = (x0 - bx0, y1 - by1)
    want = {(round(x + to_gerber[0], 3), round(y + to_gerber[1], 3)) for x, y in lay.plate_holes()}
    assert {(round(x, 3), round(y, 3)) for x, y in holes} == want
    lx0, ly0, lx1, ly1 = lay.plate_box
    assert (px0, py0, px1, py1) == pytest.approx(
        (lx0 + to_gerber[0], ly0 + to_gerber[1], lx1 + to_gerber[0], ly1 + to_gerber[1]))
    for side in ("F_Cu", "B_Cu"):
        gbr = (PLATE / ("plate-%s.gbr" % side)).read_text()
        assert "%TF.FileFunction,Copper," in gbr and not re.search(r"(?m)^X", gbr)  # no copper drawn
    files = sorted(p for p in PLATE.iterdir() if p.suffix in (".gbr", ".drl"))
    assert [p.name for p in files] == ["plate-B_Cu.gbr", "plate-Edge_Cuts.gbr", "plate-F_Cu.gbr", "plate-NPTH.drl"]
    with zipfile.ZipFile(PLATE / "plate-gerbers.zip") as z:
        assert sorted(z.namelist()) == [p.name for p in files]
        for path in files:
            assert z.read(path.name) == path.read_bytes(), path.name
