"""The circuit as code (hardware/schematic.py): it follows board.json, passes ERC, and the
committed netlist and BOM are exactly what it generates."""

import copy
import importlib.util
import json
import sys
from pathlib import Path

import pytest
from waiting import completed

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
REGENERATE = "out of date: run `make hardware` (python hardware/schematic.py) and commit the result"


def load_schematic():
    spec = importlib.util.spec_from_file_location("doce_schematic", HARDWARE / "schematic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


schematic = load_schematic()
SPEC = json.loads(schematic.BOARD_FILE.read_text())


@pytest.fixture(scope="module")
def board():
    return schematic.Board(SPEC)


def net_of(part, pin_name):
    (pin,) = [p for p in part.pins if p.name == pin_name]
    (net,) = pin.nets
    return net


def refs_on(net):
    return sorted("%s.%s" % (p.part.ref, p.name) for p in net.pins)


def test_erc_finds_no_errors_and_no_warnings(board):
    assert board.erc() == (0, 0)


def test_erc_catches_two_outputs_driving_one_net():
    shorted = schematic.Board(SPEC)
    shorted.nets["GROUP0_N"] += shorted.nets["GROUP1_N"]  # 74HC138 Y0 and Y1 tied together
    errors, _ = shorted.erc()
    assert errors > 0


def test_the_committed_bom_is_the_generated_one(board):
    assert schematic.BOM_FILE.read_text() == board.bom(), "hardware/bom.csv " + REGENERATE


def test_the_committed_netlist_is_the_generated_one(board):
    assert schematic.NETLIST_FILE.read_text() == board.netlist(), "hardware/doce.net " + REGENERATE


def test_every_esp32_pin_is_where_board_json_says(board):
    pins = SPEC["pins"]
    wanted = {pins["sensor_adc"]: "SENSE", pins["group_enable"]: "GROUP_ENABLE", pins["leds"]: "LED_DATA_3V3",
              pins["button"]: "BUTTON"}
    wanted.update({gpio: "MUX_S%d" % i for i, gpio in enumerate(pins["mux_select"])})
    wanted.update({gpio: "GROUP_A%d" % i for i, gpio in enumerate(pins["group_select"])})
    for gpio, name in wanted.items():
        assert net_of(board.esp, "IO%d" % gpio).name == name
    assert refs_on(board.nets["SENSE"]) == sorted(["U1.IO%d" % pins["sensor_adc"]] +
                                                  ["%s.COM" % m.ref for m in board.muxes])


def test_every_sensor_is_on_its_channel_and_its_group_supply(board):
    per_group = SPEC["sensing"]["channels_per_group"]
    channels = [ch for chs in SPEC["squares"].values() for ch in chs]
    assert sorted(board.sensors) == sorted(channels)
    for square, chs in SPEC["squares"].items():
        for ring, ch in zip("CNESW", chs):
            h = board.sensors[ch]
            g, i = divmod(ch, per_group)
            assert h.fields["Position"] == "%s %s" % (square, ring)
            assert refs_on(net_of(h, "OUT")) == sorted(["%s.OUT" % h.ref, "%s.I%d" % (board.muxes[g].ref, i)])
            assert net_of(h, "VCC").name == "+3V3_GROUP%d" % g


def test_each_sensor_is_decoupled_as_the_rail_model_assumes(board):
    """One capacitor of board.json's physics.rail.sensor_decoupling_nF at each sensor's supply
    (doce_host/physics/rail.py: what a group switching on takes from the 3.3 V rail)."""
    value = {10: "10n", 100: "100n"}[SPEC["physics"]["rail"]["sensor_decoupling_nF"]]
    for g in range(SPEC["sensing"]["groups"]):
        net = board.nets["+3V3_GROUP%d" % g]
        sensors = [p for p in net.pins if p.part.ref.startswith("H")]
        caps = [p.part for p in net.pins if p.part.ref.startswith("C")]
        assert len(caps) == len(sensors) > 0 and {c.value for c in caps} == {value}, g


def test_a_changed_board_file_changes_the_circuit():
    spec = copy.deepcopy(SPEC)
    a1 = spec["squares"]["a1"]
    a1[1], a1[2] = a1[2], a1[1]  # N and E sensors swapped
    spec["pins"]["leds"], spec["pins"]["button"] = spec["pins"]["button"], spec["pins"]["leds"]
    changed = schematic.Board(spec)
    assert changed.sensors[a1[1]].fields["Position"] == "a1 N"
    assert net_of(changed.esp, "IO%d" % spec["pins"]["leds"]).name == "LED_DATA_3V3"


def test_the_led_chain_runs_in_strip_order(board):
    leds = board.leds
    assert len(leds) == SPEC["leds"]["count"]
    for i, (a, b) in enumerate(zip(leds, leds[1:])):
        assert net_of(a, "DOUT") is net_of(b, "DIN"), "LED%d feeds LED%d" % (i + 1, i + 2)
    for square, i in SPEC["leds"]["squares"].items():
        assert leds[i].fields["Serves"] == "under " + square


def pulled_down(board, net):
    """Whether `net` has a resistor whose other end is ground."""
    for p in net.pins:
        if p.part.ref.startswith("R"):
            other = [q for q in p.part.pins if q is not p][0]
            if other.nets and other.nets[0].name == "GND":
                return True
    return False


def test_the_group_enable_and_the_led_data_are_pulled_down_at_boot(board):
    assert pulled_down(board, board.nets["GROUP_ENABLE"])
    assert pulled_down(board, board.nets["LED_DATA_3V3"])
    assert not pulled_down(board, board.nets["BUTTON"])  # the check can say no


def test_the_led_supply_goes_through_a_current_limit_and_the_soft_start_both_off_at_boot(board):
    """Issue 39: revision A's strip took USB straight through the soft start, its ON tied to 3.3 V,
    with no limit: a latched strip drew 1.86 A. Now USB -> TPS2553-1 (limit, latch-off) ->
    TPS22918 (soft start) -> the strip, both switched by the firmware's LED_POWER pin, which a
    pull-down holds low until the firmware drives it."""
    (switch,) = [p for p in board.circuit.parts if p.fields.get("MPN") == "TPS22918DBVR"]
    (limit,) = [p for p in board.circuit.parts if p.fields.get("MPN") == "TPS2553DBVR-1"]
    assert net_of(limit, "IN").name == "VBUS" and net_of(limit, "OUT").name == "VBUS_LED"
    assert net_of(switch, "VIN").name == "VBUS_LED" and net_of(switch, "VOUT").name == "+5V_LED"
    power = board.nets["LED_POWER"]
    assert net_of(switch, "ON") is power and net_of(limit, "EN") is power
    assert net_of(board.esp, "IO%d" % SPEC["pins"]["led_power"]) is power
    assert pulled_down(board, power)
    (ilim,) = [p.part for p in net_of(limit, "ILIM").pins if p.part is not limit]
    r_ilim, _, _ = schematic.power.fuse(SPEC)
    assert ilim.value == "%gk" % r_ilim  # TI SLVS841, Table 1 (tests/hardware/test_power_budget.py)
    switched_in = [p.part for n in ("VBUS", "VBUS_LED") for p in board.nets[n].pins if p.part.ref.startswith("C")]
    assert sum(float(c.value.rstrip("u")) for c in switched_in) <= 10  # USB 2.0 7.2.4.1: 10 uF at attach
    for led in board.leds:
        assert net_of(led, "VDD").name == "+5V_LED"


def test_the_leds_sit_at_a_corner_clear_of_the_sensors():
    x, y = SPEC["leds"]["offset_mm"]
    pitch, ring = SPEC["physics"]["square_mm"], SPEC["physics"]["ring_mm"]
    led_half, sensor_half = max(SPEC["leds"]["package_mm"][:2]) / 2, 1.5  # SOT-23 with its leads
    assert abs(x) < pitch / 2 and abs(y) < pitch / 2  # on its own square
    for sx, sy in [(0, 0), (0, ring), (ring, 0), (0, -ring), (-ring, 0)]:
        assert abs(x - sx) >= led_half + sensor_half or abs(y - sy) >= led_half + sensor_half


def test_building_the_circuit_leaves_no_files_behind(tmp_path):
    """SKiDL opens log files in the working directory on import; changing directory after
    (as other tests do) once made building the circuit fail on removing them."""
    first, later = tmp_path / "first", tmp_path / "later"
    first.mkdir()
    later.mkdir()
    script = ("import importlib.util, os, sys\n"
              "spec = importlib.util.spec_from_file_location('s', sys.argv[1])\n"
              "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
              "m._skidl(); os.chdir(sys.argv[2]); print(m.load().erc())\n")
    out = completed([sys.executable, "-c", script, str(HARDWARE / "schematic.py"), str(later)],
                    cwd=first, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("(0, 0)")
    assert list(first.iterdir()) == [] and list(later.iterdir()) == []


def test_each_group_switch_gate_is_driven_through_a_resistor_and_pulled_up(board):
    decoder_outputs = {n.name for n in board.nets.values() if n.name.startswith("GROUP") and n.name.endswith("_N")}
    for q in [p for p in board.circuit.parts if p.fields.get("MPN") == "AO3401A"]:
        gate = net_of(q, "G")
        assert gate.name not in decoder_outputs, q.ref  # not straight from the 74HC138
        parts = [p.part for p in gate.pins if p.part is not q]
        series = [r for r in parts if r.value == "100"]
        assert len(series) == 1, q.ref
        other = [p for p in series[0].pins if gate not in p.nets][0]
        assert other.nets[0].name in decoder_outputs
        assert any(r.value == "10k" and "+3V3" in [n.name for p in r.pins for n in p.nets] for r in parts), q.ref


def test_the_3v3_rail_has_a_bulk_capacitor(board):
    def farads(value):
        return float(value[:-1]) * {"n": 1e-9, "u": 1e-6}[value[-1]]

    caps = [p.part for p in board.nets["+3V3"].pins if p.part.ref.startswith("C")]
    assert max(farads(c.value) for c in caps) >= 9.9e-6  # 10 uF


def test_the_bom_lists_the_devkits_two_sockets():
    import csv

    rows = list(csv.DictReader((HARDWARE / "bom.csv").open()))
    (socket,) = [r for r in rows if "1x19" in r["part"]]
    assert socket["qty"] == "2" and socket["mpn"] and socket["ref"].startswith("U1")


def test_the_usb_c_inputs_cc_lines_reach_the_adc_through_series_resistors_and_its_5v_has_a_tvs(board):
    """Review of issue 39: with J1 the only source the devkit is unpowered while the charger looks at
    CC, and an unpowered ESP32 pin clamps to its 0 V rail: straight on CC it could look like Ra to a
    3 A source, which then never turns its 5 V on. Each CC line keeps its 5.1 kOhm Rd at J1 and
    reaches its ADC pin through 10 kOhm (hardware/README.md works the voltages). And the USB-C
    input's 5 V, before the ideal diode (6 V at most), has a 5 V TVS, its cathode on that 5 V."""
    (jc,) = [p for p in board.circuit.parts if p.fields.get("MPN") == "USB4135-GF-A"]
    def nets(part):
        return {n for q in part.pins for n in q.nets}

    for i, gpio in enumerate(SPEC["pins"]["supply_cc"]):
        cc = net_of(jc, "CC%d" % (i + 1))
        sense = net_of(board.esp, "IO%d" % gpio)
        assert sense is not cc
        rs = [p.part for p in cc.pins if p.part is not jc and nets(p.part) == {cc, sense}]
        assert [r.value for r in rs] == ["10k"]
        rd = [p.part for p in cc.pins if p.part is not jc and board.nets["GND"] in nets(p.part)]
        assert [r.value for r in rd] == ["5.1k"]
        assert refs_on(sense) == sorted([board.esp.ref + ".IO%d" % gpio, rs[0].ref + ".~"])
    (tvs,) = [p for p in board.circuit.parts if p.fields.get("MPN") == "SMF5.0A"]
    assert net_of(tvs, "K").name == "VBUS_C" and net_of(tvs, "A").name == "GND"


def _designators(ref):
    """'R1-R8' -> R1..R8, 'U1 (J2, J3)' -> J2, J3 (the devkit's sockets), 'C1' -> C1."""
    import re

    inside = re.search(r"\((.*)\)", ref)
    names = []
    for part in (inside.group(1) if inside else ref).split(","):
        span = re.fullmatch(r"([A-Z]+)(\d+)-([A-Z]+)(\d+)", part.strip())
        if span and span[1] == span[3]:
            names += [span[1] + str(n) for n in range(int(span[2]), int(span[4]) + 1)]
        else:
            names.append(part.strip())
    return names


def test_no_two_bom_rows_share_a_designator():
    """r39g: the TVS was D1 and the dice D1-D24, so a maker could not tell "D1" apart."""
    import csv
    from collections import Counter

    rows = list(csv.DictReader((HARDWARE / "bom.csv").open()))
    seen = Counter(name for row in rows for name in _designators(row["ref"]))
    assert seen["R1"] == 1 and seen["LED31"] == 1, "the ranges are not read"
    assert [name for name, n in seen.items() if n > 1] == []
