"""The mechanics a maker cuts and prints (hardware/mechanics.py): drawn from board.json, in
step with the stack the physics model assumes, and kept in the repository as built today."""

import importlib.util
import json
import math
import struct
import sys
from pathlib import Path

import pytest

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
REGENERATE = "out of date: run `make hardware` and commit the result"


def load(name):
    sys.path.insert(0, str(HARDWARE))
    spec = importlib.util.spec_from_file_location("doce_" + name, HARDWARE / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


layout, outputs = load("layout"), load("outputs")
SPEC = json.loads((HARDWARE / "board.json").read_text())
LAY = layout.Layout(SPEC)
PH = SPEC["physics"]


def geometry(path):
    """A drawing's content: every entity's kind, layer and coordinates (ezdxf orders some
    bookkeeping objects differently from run to run, so the bytes may differ)."""
    import ezdxf

    out = []
    for e in ezdxf.readfile(path).modelspace():
        if e.dxftype() == "LWPOLYLINE":
            shape = tuple((round(x, 4), round(y, 4)) for x, y, *_ in e.get_points()) + (e.closed,)
        else:
            shape = (tuple(round(v, 4) for v in e.dxf.center), round(e.dxf.radius, 4))
        out.append((e.dxftype(), e.dxf.layer, shape))
    return sorted(out)


def test_the_drawings_are_what_mechanics_py_draws_today(tmp_path):
    mechanics = load("mechanics")
    for path in mechanics.build(LAY, tmp_path, solids=False):
        kept = HARDWARE / path.relative_to(tmp_path)
        assert geometry(kept) == geometry(path), "%s %s" % (kept.name, REGENERATE)
        assert len(geometry(kept)) > 1


@pytest.mark.parametrize("group", sorted(outputs.GROUPS))
def test_the_generated_files_are_the_ones_their_inputs_make(group):
    record = outputs.recorded().get(group)
    if group == "pcb" and record is None:
        pytest.skip("the PCB is not generated yet")
    assert record, "hardware/generated.json has no %s: run `make hardware`" % group
    assert record["inputs"] == outputs.input_hash(group), "the %s files are %s" % (group, REGENERATE)
    assert record["files"] == outputs.file_hashes(group), "a %s file differs from what was built" % group


def test_a_changed_board_file_changes_the_inputs(monkeypatch, tmp_path):
    spec = json.loads((HARDWARE / "board.json").read_text())
    before = outputs.input_hash("mechanics")
    spec["physics"]["well_depth_mm"] += 0.5
    for name in outputs.GROUPS["mechanics"]["sources"]:
        (tmp_path / name).write_bytes((HARDWARE / name).read_bytes())
    (tmp_path / "board.json").write_text(json.dumps(spec))
    monkeypatch.setattr(outputs, "HERE", tmp_path)
    assert outputs.input_hash("mechanics") != before


def test_the_wells_are_under_the_squares():
    import ezdxf

    doc = ezdxf.readfile(HARDWARE / "mechanics" / "wells.dxf")
    wells = sorted((round(min(p[0] for p in e.get_points()) + PH["well_mm"][0] / 2, 3),
                    round(min(p[1] for p in e.get_points()) + PH["well_mm"][0] / 2, 3))
                   for e in doc.modelspace().query("LWPOLYLINE[layer=='WELLS']"))
    assert wells == sorted((round(x, 3), round(y, 3)) for x, y, _ in LAY.wells())
    assert len(wells) == SPEC["grid"] ** 2


def _boxes_overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_every_led_is_clear_of_every_well_and_sensor():
    w, h, _ = SPEC["leds"]["package_mm"]
    side = PH["well_mm"][0] + PH["well_mm"][1]  # the largest well
    sensor = 3.0  # a SOT-23 with its leads
    for _, x, y in LAY.leds().values():
        led = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        for wx, wy, _ in LAY.wells():
            assert not _boxes_overlap(led, (wx - side / 2, wy - side / 2, wx + side / 2, wy + side / 2))
        for _, _, sx, sy in LAY.sensors().values():
            assert not _boxes_overlap(led, (sx - sensor / 2, sy - sensor / 2, sx + sensor / 2, sy + sensor / 2))
        x0, y0, x1, y1 = LAY.plate_box
        assert x0 < led[0] and led[2] < x1 and y0 < led[1] and led[3] < y1  # under the plate


def test_the_old_led_place_is_caught():
    spec = json.loads((HARDWARE / "board.json").read_text())
    spec["leds"]["offset_mm"] = [-11.0, -11.0]
    w = spec["leds"]["package_mm"][0]
    side = PH["well_mm"][0] + PH["well_mm"][1]
    _, x, y = layout.Layout(spec).leds()[0]
    assert _boxes_overlap((x - w / 2, y - w / 2, x + w / 2, y + w / 2), (-side / 2, -side / 2, side / 2, side / 2))


def test_the_stack_keeps_the_air_gap_the_physics_model_assumes():
    nominal, tol = PH["air_mm"]
    least, most = LAY.air_range()
    assert nominal - tol <= least and most <= nominal + tol, \
        "spacer %g mm on sensors %s mm tall leaves %.2f-%.2f mm of air; the model takes %s" % (
            LAY.mech["spacer_mm"], LAY.mech["sensor_height_mm"], least, most, PH["air_mm"])
    # every part's height above the PCB fits under the floor
    assert max(LAY.mech["sensor_height_mm"]) <= LAY.mech["spacer_mm"] + 0.05  # at worst the floor rests on it
    assert SPEC["leds"]["package_mm"][2] < LAY.mech["spacer_mm"]


def test_the_hall_elements_sit_as_deep_as_the_model_puts_them():
    from doce_host.physics.scene import sensor_positions

    model = -sensor_positions(SPEC)[0][2]
    hall = PH["sensor"]["hall_depth_mm"][0]
    assert model == pytest.approx(PH["floor_mm"][0] + PH["air_mm"][0] + hall)
    lo, hi = LAY.mech["sensor_height_mm"]
    air_lo, air_hi = PH["air_mm"][0] - PH["air_mm"][1], PH["air_mm"][0] + PH["air_mm"][1]
    for height in (lo, hi, (lo + hi) / 2):
        depth = LAY.hall_depth(height)
        assert PH["floor_mm"][0] + air_lo + hall <= depth + 1e-9 <= PH["floor_mm"][0] + air_hi + hall + 2e-9


def _stl_z(path):
    data = path.read_bytes()
    (n,) = struct.unpack_from("<I", data, 80)
    zs = [struct.unpack_from("<f", data, 84 + 50 * i + 12 + 12 * v + 8)[0] for i in range(n) for v in range(3)]
    return min(zs), max(zs)


def test_the_solids_sit_at_the_stack_heights():
    s = LAY.stack()
    assert _stl_z(HARDWARE / "mechanics" / "plate.stl") == pytest.approx((s["floor_bottom"], s["floor_top"]), abs=1e-4)
    assert _stl_z(HARDWARE / "mechanics" / "wells.stl") == pytest.approx((s["floor_top"], s["wells_top"]), abs=1e-4)
    assert s["wells_top"] - s["floor_top"] == pytest.approx(PH["well_depth_mm"])
    assert s["floor_top"] - s["floor_bottom"] == pytest.approx(PH["floor_mm"][0])


def test_the_jig_guides_the_drill_to_every_magnet_place():
    plan = load("mechanics").jig_plan(LAY)
    ring = PH["ring_mm"]
    assert sorted(plan["holes"]) == sorted([(0, 0), (0, ring), (ring, 0), (0, -ring), (-ring, 0)])
    assert plan["pocket"] >= PH["die_mm"][0] + PH["die_mm"][1]  # the largest die goes in
    assert plan["pocket"] - (PH["die_mm"][0] - PH["die_mm"][1]) <= 2 * PH["magnet"]["place_tol_mm"] + 0.2
    magnet = PH["magnet"]
    assert magnet["diameter_mm"] + magnet["size_tol_mm"] <= plan["drill"]
    x, y = _stl_z(HARDWARE / "dice" / "jig.stl")
    assert y - x == pytest.approx(plan["depth"] + plan["guide"], abs=1e-4)


def test_the_face_sheet_is_drawn_from_the_board_file():
    from doce_host.physics.drawing import faces

    sheet = faces(SPEC)
    assert (HARDWARE / "dice" / "faces.svg").read_text() == sheet, \
        "run: python -m doce_host.physics.drawing --faces > hardware/dice/faces.svg"
    codes = {name: code for code, name in SPEC["dice"].items()}
    for colour in ("white", "black"):
        for up in range(1, 7):
            assert ">%s<" % codes["%s %d" % (colour, up)] in sheet
    assert sheet.count(">%s<" % codes["white blocker"]) == 6


def test_the_bom_names_the_sizes_the_drawings_have():
    import csv
    import re

    rows = {r["ref"]: r for r in csv.DictReader((HARDWARE / "mechanical.csv").open())}

    def size(ref):
        w, h = re.search(r"(\d+(?:\.\d+)?) x (\d+(?:\.\d+)?) mm", rows[ref]["part"]).groups()
        return float(w), float(h)

    x0, y0, x1, y1 = LAY.plate_box
    assert size("PL1") == size("PL2") == (x1 - x0, y1 - y0)
    x0, y0, x1, y1 = LAY.pcb_box
    assert size("PCB1") == (x1 - x0, y1 - y0)
    assert "%g mm spacers" % LAY.mech["spacer_mm"] in rows["PCB1"]["notes"]


def test_the_board_gets_its_file_without_the_mechanics():
    from doce_host.image import device_board

    shipped = json.loads(device_board())
    assert "mechanics" not in shipped and "mechanics" in SPEC
    assert shipped == {k: v for k, v in SPEC.items() if k != "mechanics"}


def _stl_points(path):
    data = path.read_bytes()
    (n,) = struct.unpack_from("<I", data, 80)
    return [struct.unpack_from("<3f", data, 84 + 50 * i + 12 + 12 * v) for i in range(n) for v in range(3)]


def test_the_jigs_guide_holes_leave_the_drill_room_to_turn():
    plan = load("mechanics").jig_plan(LAY)
    top = plan["depth"] + plan["guide"]
    points = [(x, y) for x, y, z in _stl_points(HARDWARE / "dice" / "jig.stl") if abs(z - top) < 1e-3]
    for hx, hy in plan["holes"]:
        radius = max(r for r in (math.hypot(x - hx, y - hy) for x, y in points) if r < plan["drill"])
        assert radius * 2 >= plan["drill"] + 0.15, (hx, hy)  # a printed hole comes out ~0.1 mm small


def test_the_bom_has_a_screw_for_each_end_of_each_standoff_and_no_countersink():
    import csv

    rows = list(csv.DictReader((HARDWARE / "bom.csv").open()))
    (screws,) = [r for r in rows if r["ref"].startswith("SC")]
    (standoffs,) = [r for r in rows if r["ref"].startswith("ST")]
    assert int(standoffs["qty"]) == len(LAY.pcb_holes())
    assert int(screws["qty"]) == 2 * len(LAY.pcb_holes())
    assert "countersunk" not in (screws["part"] + screws["notes"]).lower()


def test_the_enclosure_drawing_cuts_the_base_and_walls_and_only_engraves_the_pcbs_place():
    import ezdxf

    mechanics = load("mechanics")
    msp = ezdxf.readfile(HARDWARE / "mechanics" / "enclosure.dxf").modelspace()
    closed = [e for e in msp if e.dxftype() == "LWPOLYLINE" and e.closed]
    assert all(e.dxf.layer == "OUTLINE" for e in closed)  # a closed shape is a cut: the PCB's place is not one
    (guide,) = [e for e in msp if e.dxf.layer == "ENGRAVE"]
    assert not guide.closed
    x0, y0, x1, y1 = mechanics.enclosure_box(LAY)
    for e in msp:
        if e.dxf.layer == "USB":  # the plug goes through the south wall, never the base
            assert all(y < y0 for _, y, *_ in e.get_points())
    walls = mechanics.walls(LAY)
    def size(e):
        xs, ys = [p[0] for p in e.get_points()], [p[1] for p in e.get_points()]
        return round(max(xs) - min(xs), 3), round(max(ys) - min(ys), 3)

    want = [(round(w, 3), round(h, 3)) for w, h in walls.values()] + [(round(x1 - x0, 3), round(y1 - y0, 3))]
    assert sorted(size(e) for e in closed) == sorted(want)  # the base and four walls, nothing else closed
    assert walls["south"][1] == pytest.approx(LAY.mech["standoff_mm"] + LAY.mech["pcb_mm"] + LAY.stack()["wells_top"])
