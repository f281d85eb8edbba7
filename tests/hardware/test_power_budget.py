"""The board's USB budget, from bom.csv's figures (max_mA, max_mA_wifi: hardware/power.py, each
with its datasheet) and the LEDs' light at the board file's caps: at least 10 % of a USB 2.0
port's 500 mA left over with the radio off, everything counted; within the 500 mA with it
transmitting flat out."""

import csv
import json

import pytest
from test_pcb import HARDWARE, load

from doce.board import Board
from doce.lights import Lights

power = load("power")
SPEC = json.loads((HARDWARE / "board.json").read_text())
ACTIVE = ("U", "H", "Q", "LED")  # the parts that draw: ICs, the devkit, sensors, switches, LEDs


def rows():
    return list(csv.DictReader((HARDWARE / "bom.csv").open()))


def brightest(spec, cap):
    """The strip's brightest colour (sum of its three channels) at `cap`, as the firmware draws it."""
    spec = json.loads(json.dumps(spec))
    spec["power"]["brightness_cap"] = cap
    lights = Lights({}, lambda: None, Board(spec), brightness=1.0)
    return max(sum(c) for colours in lights.palette for c in colours)


def budget(spec, rows_, wifi=False):
    """(the parts' mA, the lit LEDs' mA) for the board file `spec`."""
    p = spec["power"]
    parts = sum(float(r["max_mA_wifi" if wifi else "max_mA"] or 0) for r in rows_)
    cap = p["brightness_cap_wifi" if wifi else "brightness_cap"]
    return parts, power.led_ma(spec["leds"]["count"], brightest(spec, cap), p["led_ma_per_channel"])


def test_every_part_that_draws_is_counted():
    for r in rows():
        active = r["ref"].startswith(ACTIVE) and r["mpn"] and "socket" not in r["part"]
        assert bool(r["max_mA"]) == bool(active), r["ref"]
        if active:
            assert r["mpn"] in power.DRAW and float(r["max_mA_wifi"]) >= 0, r["ref"]
    for items in power.DRAW.values():
        for what, off, on, at_once, source in items:
            assert source and off >= 0 and on >= 0, what
    # the devkit: the chip (or the module transmitting), its PSRAM, bridge, regulator and LED
    (u1,) = [r for r in rows() if r["ref"] == "U1"]
    assert float(u1["max_mA"]) == 68 + 20 + 10 + 10 + 5 and float(u1["max_mA_wifi"]) == 240 + 10 + 10 + 5
    (sensors,) = [r for r in rows() if r["ref"].startswith("H")]
    assert float(sensors["max_mA"]) == 16 * 10  # one group on at a time


def test_usb_has_ten_percent_to_spare_with_the_radio_off():
    parts, lit = budget(SPEC, rows())
    assert parts + lit <= power.USB_MA * (1 - power.SPARE), (parts, lit)
    assert lit <= SPEC["power"]["led_budget_ma"] and parts + SPEC["power"]["led_budget_ma"] <= 450


def test_every_supply_the_board_claims_has_ten_percent_to_spare():
    """Each supply power.SUPPLIES names, in the mode it is claimed for, at that mode's cap, keeps
    SPARE free. Revision B's budget claimed a computer's 500 mA port with the radio transmitting
    flat out: 498 mA, 0.4 % spare."""
    for what, supply_ma, wifi in power.SUPPLIES:
        parts, lit = budget(SPEC, rows(), wifi=wifi)
        assert parts + lit <= supply_ma * (1 - power.SPARE), (what, parts, lit)
    assert {wifi for _, _, wifi in power.SUPPLIES} == {False, True}  # both modes are claimed somewhere
    assert min(ma for _, ma, wifi in power.SUPPLIES if wifi) > power.USB_MA  # remote play: not a computer's port
    # the firmware starts the radio only on a class whose current is the one claimed for it, or more
    # (firmware/doce/supply.py; tests/board/test_supply.py)
    assert [ma for _, ma in power.CC_CLASSES if ma >= power.TYPEC_MA] == [1500, 3000]


def test_no_brightness_cap_leaves_ten_percent_of_a_usb_port_with_the_radio_transmitting():
    """Why remote play asks a charger: with the module's 240 mA (50 % duty, +19.5 dBm) and every
    other part at its most, the parts alone pass 450 mA, dark. The Wi-Fi cap still keeps a board
    run on a computer's port within its 500 mA, where nothing is claimed."""
    parts, lit = budget(SPEC, rows(), wifi=True)
    assert parts > power.USB_MA * (1 - power.SPARE)
    assert parts + lit <= power.USB_MA
    assert lit <= SPEC["power"]["led_budget_wifi_ma"] and parts + SPEC["power"]["led_budget_wifi_ma"] <= 500


def _guide():
    return " ".join((HARDWARE / "README.md").read_text().split())


def test_the_guides_budget_claims_only_what_keeps_the_spare():
    """hardware/README.md's budget table: the total of each mode, on the supply it names, with its
    spare; each as this module computes it, and none under 10 %."""
    import re

    found = re.findall(r"\*\*(\d+) mA of (\d+): (\d+) % spare\*\*", _guide())
    assert len(found) == len(power.SUPPLIES), found
    for (total, supply, spare), (_, supply_ma, wifi) in zip(found, power.SUPPLIES):
        parts, lit = budget(SPEC, rows(), wifi=wifi)
        assert (int(total), int(supply)) == (round(parts + lit), supply_ma)
        assert int(spare) == int(100 * (1 - (parts + lit) / supply_ma)) >= 100 * power.SPARE


def test_the_cable_the_guide_names_keeps_the_devkits_regulator_in_regulation():
    """Review of issue 39, finding 9: the AMS1117-3.3 needs 4.6 V at its input (its 1.3 V dropout).
    On the guide's cable (1 m, 24 AWG) from the least a port gives, at the board's most with Wi-Fi
    off, the devkit's socket keeps it; on a common 1 m 28 AWG cable it does not. (The devkit's own
    diode D3 lies between the socket and the regulator: the next test.)"""
    import re

    assert power.MIN_VBUS_V == pytest.approx(4.6)
    metres, awg = power.CABLE
    most = sum(budget(SPEC, rows()))
    assert power.devkit_v(power.PORT_MIN_V, most, metres, awg) >= power.MIN_VBUS_V
    assert power.devkit_v(power.PORT_MIN_V, most, 1.0, 28) < power.MIN_VBUS_V
    text = " ".join(_guide().split())
    v, socket, length, gauge = re.search(
        r"at least ([\d.]+) V at the devkit's 5V pin\*\*, which is the regulator's input .*?about ([\d.]+) V at "
        r"the board's most.*?a cable of ([\d.]+) m or less with (\d+) AWG power conductors", text).groups()
    # r39g: the guide asked for 4.6 V at the micro-USB socket, where D3 still lies before the regulator
    assert (float(v), float(length), int(gauge)) == (round(power.MIN_VBUS_V, 2), metres, awg)
    assert float(socket) == round(power.MIN_VBUS_V + power.d3_vf(most), 2)


def test_the_guide_says_the_devkits_own_diode_leaves_its_regulator_short_on_a_computers_port():
    """The devkit's micro-USB reaches its AMS1117 through its Schottky D3 (BAT760): counted, the
    regulator's input falls under 4.6 V at a 4.75 V port at the board's most, and no brightness
    cap recovers it (D3 alone, at 10 mA, drops more than a port's least leaves over 4.6 V). The
    USB-C input, past D3, keeps it. The guide says so with these figures."""
    import re

    assert [power.d3_vf(ma) for ma, _ in power.D3_VF_MAX] == [v for _, v in power.D3_VF_MAX]
    assert power.d3_vf(100) < power.d3_vf(438) < power.d3_vf(1000)
    most = sum(budget(SPEC, rows()))
    metres, awg = power.CABLE
    v = power.regulator_v(power.PORT_MIN_V, most, metres, awg)
    assert v < power.MIN_VBUS_V
    dark, _ = budget(SPEC, rows())  # every light off: the parts alone draw more than 10 mA
    assert dark > power.D3_VF_MAX[0][0] and power.d3_vf(dark) > power.PORT_MIN_V - power.MIN_VBUS_V
    assert power.typec_v(most, *power.TYPEC_CABLE) >= power.MIN_VBUS_V  # J1: past D3
    need = power.MIN_VBUS_V + power.d3_vf(most) + power.cable_drop_v(most, metres, awg)
    found = re.search(r"that is ([\d.]+) V at (\d+) mA\. So from a ([\d.]+) V port .*?the AMS1117's input is "
                      r"\*\*([\d.]+) V at the board's most .*?, ([\d.]+) V under the ([\d.]+) V its dropout needs\*\*; "
                      r"the port would have to give ([\d.]+) V", _guide())
    assert found, "the guide's paragraph on D3"
    assert [float(x) for x in found.groups()] == pytest.approx(
        [round(power.d3_vf(most), 2), round(most), power.PORT_MIN_V, round(v, 2),
         round(power.MIN_VBUS_V - v, 2), power.MIN_VBUS_V, round(need, 2)])


def test_the_usb_c_input_keeps_the_devkits_regulator_in_regulation():
    """Remote play runs on the USB-C input (J1): from a source at vSafe5V's least (4.75 V), through
    the guide's USB-C cable, the board's copper and the ideal diode U14, the devkit's 5V pin keeps the
    AMS1117's 4.6 V at the board's most with Wi-Fi transmitting. The drop the diode adds (55 mV at
    498 mA, its most) is why that cable is 20 AWG and half a metre: the devkit's 24 AWG one would leave
    the regulator short, and so would a 1 m 20 AWG one."""
    import re

    (wifi_ma,) = [ma for _, ma, wifi in power.SUPPLIES if wifi]
    assert wifi_ma == power.TYPEC_MA
    most = sum(budget(SPEC, rows(), wifi=True))
    metres, awg = power.TYPEC_CABLE
    assert power.typec_v(most, metres, awg) >= power.MIN_VBUS_V
    assert power.typec_v(most, 1.0, 24) < power.MIN_VBUS_V
    assert power.typec_v(most, 1.0, awg) < power.MIN_VBUS_V  # the diode at its most: a metre is too long
    length, gauge = re.search(r"a USB-C cable of ([\d.]+) m or less with (\d+) AWG power conductors",
                              _guide()).groups()
    assert (float(length), int(gauge)) == (metres, awg)


def test_the_usb_c_inputs_board_copper_is_the_routed_boards():
    """power.BOARD_OHM, the USB-C input's copper from J1 through U14 to the devkit's pin 19, is the
    routed board's, solved as a resistor network (hardware/supply.py, its worst copper): J1's two
    VBUS pads are one contact in the plug, so the nearer one counts; rounded up to the milliohm."""
    supply = load("supply")
    copper = supply.read_copper()
    into = min(supply.drops(copper["VBUS_C"], ("J1", pad), {("U14", "1"): 1.0})[("U14", "1")] for pad in ("A9", "B9"))
    out = supply.drops(copper["VBUS"], ("U14", "6"), {("U1", "19"): 1.0})[("U1", "19")]
    assert into + out <= power.BOARD_OHM < into + out + 0.001


def test_revision_a_s_caps_would_not_leave_the_spare():
    spec = json.loads(json.dumps(SPEC))
    spec["power"]["brightness_cap"] = 0.16  # revision A: 494 of 500 mA, PSRAM, regulator and LED uncounted
    parts, lit = budget(spec, rows())
    assert lit == pytest.approx(207, abs=1)  # the palette rounded: 31 x 534 x 0.16 x 20 / 255 unrounded is 208
    assert parts + lit > power.USB_MA * (1 - power.SPARE)


def test_the_led_fuse_trips_clear_of_the_capped_strip_and_well_under_a_latched_one():
    """Review of issue 39: R_ILIM 133 kOhm trips at 173.7 mA at least (TI SLVS841, Table 1), under
    the 174.5 mA the strip may carry at its lit budget (142 mA), dark (31 x 1 mA) and with its
    level shifter (1.5 mA): a palette that passes the budget could latch the fuse off. R21 is the
    lowest limit in the table whose least trip clears that by FUSE_MARGIN; its most still cuts a
    strip latched at full white."""
    r_ilim, low, high = power.fuse(SPEC)
    most = SPEC["power"]["led_budget_ma"] + SPEC["leds"]["count"] * 1 + 1.5
    assert power.strip_most_ma(SPEC) == pytest.approx(most)
    assert low >= most * 1.2 and high < power.latched_ma(SPEC) / 3  # still cut below a third of a latch
    lower = [row for row in power.FUSE_TABLE if row[0] > r_ilim]
    assert lower and all(row[1] < most * 1.2 for row in lower)  # no lower limit would do
    assert (133, 173.7, 233.9) in power.FUSE_TABLE and 173.7 < most  # revision B's first R21
    (r21,) = [r for r in rows() if r["ref"] == "R21"]
    assert "%g kOhm" % r_ilim in r21["part"]


def test_the_guide_quotes_the_fuse_as_power_py_chooses_it():
    import re

    text = " ".join((HARDWARE / "README.md").read_text().split())
    r, low, high = re.search(r"Its limit is set by R21 \(([\d.]+) kOhm to ground\): (\d+)-(\d+) mA", text).groups()
    r_ilim, trip_min, trip_max = power.fuse(SPEC)
    assert (float(r), int(low), int(high)) == (r_ilim, round(trip_min), round(trip_max))
    most = float(re.search(r"The most the strip's supply carries in play is ([\d.]+) mA", text).group(1))
    assert most == power.strip_most_ma(SPEC)
    margin = int(re.search(r"The least trip clears that by (\d+) %", text).group(1))
    assert margin == int(100 * (trip_min / most - 1))
