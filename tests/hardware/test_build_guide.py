"""The build guide (hardware/README.md, "Build one" and "Building the dice") against what it builds
and against its own checks: the order of the steps, the jig's figure to measure, the laser's taper."""

import json
import re

import pytest
from test_pcb import HARDWARE

SPEC = json.loads((HARDWARE / "board.json").read_text())
TEXT = " ".join((HARDWARE / "README.md").read_text().split())


def _steps():
    """{n: text} of "The steps" of "Build one"."""
    part = TEXT[TEXT.index("### The steps"):TEXT.index("### Cutting to size")]
    return {int(n): body for n, body in re.findall(r"(?:^| )(\d)\. \*\*(.*?)(?= \d\. \*\*|$)", part)}


def test_the_steps_do_the_checks_where_each_can_be_done():
    """Review of issue 39, finding 11: step 1 plugged the devkit in, while check 1 ("Checks after
    assembly") wants it out and came after step 4 had stacked the plate on the PCB. Checks 1 and 2
    need the bare PCB (probes at its pads, the devkit going in at check 2); check 3 needs the
    firmware (step 5) and a die on b2, so the well sheet; check 4 the dice (step 3)."""
    steps = _steps()
    assert sorted(steps) == [1, 2, 3, 4, 5]
    one = steps[1]
    assert "checks 1 and 2 of [Checks after assembly]" in one
    assert one.index("checks 1 and 2") < one.index("plug the ESP32-DevKitC in")
    assert "before anything is stacked" in one
    assert "checks 3 and 4 of [Checks after assembly]" in steps[5]
    assert steps[5].index("doce flash") < steps[5].index("checks 3 and 4")
    checks = TEXT[TEXT.index("## Checks after assembly"):TEXT.index("## Ordering the PCB")]
    assert "**1. Before the devkit goes in" in checks and "Plug the devkit in" in checks  # check 2
    assert checks.index("**3. `doce check board") > checks.index("**2. First power")


def test_the_jigs_centre_hole_is_measured_as_reamed():
    """Review of issue 39, finding 12: after the 3.3 mm drill reams a guide hole, its near edge is
    10 - 1.65 = 8.35 mm from each corner wall, not 10 - 1.7."""
    drill = SPEC["mechanics"]["jig"]["drill_mm"]
    reamed, edge = re.search(r"centre hole's near edge: 10 - ([\d.]+) = ([\d.]+) mm for a hole reamed to the "
                             r"drill's ([\d.]+) mm", TEXT).groups()[:2]
    assert float(reamed) == pytest.approx(drill / 2) and float(edge) == pytest.approx(10 - drill / 2)


def test_the_guide_says_the_taper_is_checked_not_compensated_and_which_face_goes_down():
    """Review of issue 39, finding 10: the laser drawings move each cut by half the kerf, at
    mid-thickness; a 2-D drawing cannot compensate the taper. The guide says so, gives the faces'
    spread from board.json's taper, and glues the well sheet's narrow (exit) face on the floor."""
    laser = SPEC["mechanics"]["laser"]
    well, tol = SPEC["physics"]["well_mm"]
    assert "**The taper is checked, not compensated**" in TEXT
    taper, size, half = re.search(r"\(`taper_wells_mm`, our ([\d.]+) mm: ([\d.]+) \+-([\d.]+) mm\)", TEXT).groups()
    assert float(taper) == laser["taper_wells_mm"] and float(size) == well
    assert float(half) == pytest.approx(laser["taper_wells_mm"] / 2) and float(half) <= tol
    assert "**glue that face down on the floor**" in TEXT
    assert "a laser-cut sheet with the face that lay on the cutting bed down" in _steps()[2]
