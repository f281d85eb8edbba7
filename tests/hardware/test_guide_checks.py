"""hardware/README.md's checks after assembly follow the circuit in hardware/doce.net and the power
budget's figures (hardware/power.py), so a maker's meter reads what the guide says it will."""

import json
import re

import pytest
from test_pcb import HARDWARE, load

from doce_host import circuit as circuit_module

power = load("power")
SPEC = json.loads((HARDWARE / "board.json").read_text())
CIRCUIT = circuit_module.load()
GUIDE = (HARDWARE / "README.md").read_text()


def section(start, end):
    return GUIDE[GUIDE.index(start):GUIDE.index(end, GUIDE.index(start))]


def net_at(ref, pin):
    return next(net for net, nodes in CIRCUIT.nets.items() if (ref, pin) in nodes)


def refs(text):
    """The designators a table cell names, ranges ('U2-U10', 'LED1-LED31') spelt out."""
    out = []
    for prefix, a, b in re.findall(r"\b([A-Z]+)(\d+)(?:-[A-Z]+(\d+))?\b", text):
        out += ["%s%d" % (prefix, n) for n in range(int(a), int(b or a) + 1)]
    return [r for r in out if r in CIRCUIT.parts]


def test_the_5v_continuity_probe_reaches_only_what_is_on_usbs_5v_with_nothing_switched_on():
    """Review of issue 39: the guide probed 5 V pin 19 to U12's VIN, behind the current limit U13,
    which is off with nothing powered: the meter reads open on a sound board."""
    table = section("**1. Before the devkit goes in", "**2. First power")
    (row,) = re.findall(r"\| 5 V pin 19 to ([^|]*) \| under 1 Ohm", table)
    devkit = CIRCUIT.devkit()
    usb = net_at(devkit, next(n for n, name in CIRCUIT.pin_names[CIRCUIT.kind(devkit)].items() if name == "5V"))
    probed = re.findall(r"(\b[A-Z]+\d+)'s pin (\d+)", row)
    assert probed
    for ref, pin in probed:
        assert net_at(ref, pin) == usb, (ref, pin)


def _ma(cell):
    """(low, high) mA of a cell: '27-44 mA', '9.5 mA', 'about 5 mA', 'under 1 mA'."""
    m = re.search(r"(under )?([\d.]+)(?:-([\d.]+))? mA", cell)
    low, high = float(m.group(2)), float(m.group(3) or m.group(2))
    return (0.0, high) if m.group(1) else (low, high)


def first_power():
    table = section("**2. First power", "What a reading outside that says")
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith("| part") and "---" not in line]
    expected = next(r for r in rows if r[0] == "**expected**")
    return [r for r in rows if r is not expected], expected


def test_the_first_power_current_counts_no_part_that_is_off_at_boot():
    """Review of issue 39: with LED_POWER held low by its pull-down, the strip and its level shifter
    have no supply at first power, yet the guide counted the dark strip's 31 mA, so a sound board
    read low against the guide and near its 'devkit not running' line."""
    supply = CIRCUIT.led_supply()
    assert any(r == supply["pull_down"] and net_at(r, p) == "GND" for r, p in
               [(r, p) for n, nodes in CIRCUIT.nets.items() for r, p in nodes if r == supply["pull_down"]])
    unpowered = {r for r, _ in CIRCUIT.nets[supply["strip"]]} - {supply["switch"]}
    rows, expected = first_power()
    for part, current, _ in rows:
        low, high = _ma(current)
        if high > 1:  # a row that counts more than leakage names no part without a supply
            assert not set(refs(part)) & unpowered, part
    lows, highs = zip(*(_ma(r[1]) for r in rows))
    told = re.search(r"\*\*([\d.]+)-([\d.]+) mA", expected[1]).groups()
    assert tuple(map(float, told)) == pytest.approx((sum(lows), sum(highs)))
    floor = float(re.search(r"\*\*under (\d+) mA\*\*: the ESP32 is not running", GUIDE).group(1))
    assert floor < sum(lows)


def test_the_strip_powered_at_boot_is_told_by_the_budgets_dark_strip_and_shifter():
    dark = dict((mpn, items) for mpn, items in power.DRAW.items())
    led = dark["WS2812B-2020"][0][1] * SPEC["leds"]["count"] + dark["SN74AHCT1G125DBVR"][0][1]
    told = float(re.search(r"\*\*(\d+) mA more than expected\*\*: the strip is powered at boot", GUIDE).group(1))
    assert told == pytest.approx(led, abs=1)
