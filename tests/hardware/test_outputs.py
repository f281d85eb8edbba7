"""hardware/outputs.py's groups name what each is built from: every script beside board.json that the group's
script (hardware/GROUP.py) loads, directly or through another, so an edit to any of them makes the group's
recorded files out of date (tests/hardware/test_mechanics.py compares the record with the repository)."""

import subprocess
import sys
from pathlib import Path

import pytest
from test_mechanics import HARDWARE, outputs

# Imports the script as Python runs it (its main() left out) and prints the file of every module then loaded.
LOADED = "import sys; sys.path.insert(0, sys.argv[1]); import %s; print('\\n'.join(" \
         "m.__file__ for m in list(sys.modules.values()) if getattr(m, '__file__', None)))"


def loaded_by(script):
    """The hardware scripts Python loads with `script`: its own imports and theirs, as the interpreter finds them
    (not as outputs.py reads them), in a fresh interpreter so nothing a test imported before counts."""
    out = subprocess.run([sys.executable, "-c", LOADED % Path(script).stem, str(HARDWARE)],
                         capture_output=True, text=True, timeout=120, cwd=HARDWARE)
    assert out.returncode == 0, out.stderr
    return {Path(f).name for f in out.stdout.split() if Path(f).resolve().parent == HARDWARE and f.endswith(".py")}


@pytest.mark.parametrize("group", sorted(outputs.GROUPS))
def test_a_group_s_sources_hold_every_script_its_own_loads(group):
    """fab.py loads pcb.py (and its router.py) and schematic.py (and its power.py): an edit to schematic.KINDS
    or pcb.py changes the fab files, so each must change the fab group's input hash."""
    script = group + ".py"  # a group is named after the script that writes its files
    loaded = loaded_by(script)
    assert script in loaded
    missing = loaded - set(outputs.GROUPS[group]["sources"])
    assert not missing, "%s loads %s, not in the %s group's sources" % (script, sorted(missing), group)
