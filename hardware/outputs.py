"""Which generated files a maker downloads, what each is made from, and a record of both.

    python hardware/outputs.py GROUP      # after building GROUP: record its inputs and files

hardware/generated.json holds, per group, the hash of everything the group is built from
(the board.json sections and fields it reads and its scripts) and the hash of every file it wrote. The
tests compare both with the repository as it is: a file edited by hand, or an input changed
without `make hardware`, fails. Solids and Gerbers are checked this way because rebuilding
them needs CAD and KiCad; the DXF drawings are also rebuilt and compared entity by entity,
and the fab files too where KiCad is installed (tests/hardware/test_fab.py).
"""

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORD = HERE / "generated.json"

# The mechanics fields each script reads (a key of `mechanics` named in its source; "jig" and "laser" whole),
# so a field only the host reads (magnet_check: doce dice magnets, cup.py) is no group's input.
# tests/hardware/test_mechanics.py holds these to the scripts' sources.
LAYOUT_READS = ["border_mm", "hole_inset_mm", "mask_mm", "pad_copper_mm", "pcb_mm", "sensor_height_mm", "solder_mm",
                "spacer_mm", "spacer_tol_mm", "standoff_mm", "strip_mm"]
MECHANICS_READS = ["hole_mm", "jig", "laser", "pcb_mm", "standoff_mm", "wall_mm"]


def mechanics_fields(*reads):
    return ["mechanics." + key for key in sorted(set().union(*reads))]


GROUPS = {
    "mechanics": {
        "board": ["grid", "squares", "leds", "physics"] + mechanics_fields(LAYOUT_READS, MECHANICS_READS),
        "sources": ["layout.py", "mechanics.py"],
        "files": ["mechanics/*.dxf", "mechanics/*.step", "mechanics/*.stl", "dice/jig.stl", "dice/die.stl"],
    },
    "pcb": {
        "board": ["grid", "squares", "leds", "physics.square_mm", "physics.ring_mm"] + mechanics_fields(LAYOUT_READS),
        "sources": ["layout.py", "pcb.py", "router.py", "doce.net"],
        "files": ["pcb/doce.kicad_pcb", "pcb/doce.kicad_pro", "pcb/drc.txt", "doce.pretty/*"],
    },
    "fab": {  # and the floor plate's Gerbers (fab/plate/), from layout.py
        "board": ["grid", "squares", "leds", "physics.square_mm"] + mechanics_fields(LAYOUT_READS),
        "sources": ["pcb/doce.kicad_pcb", "doce.net", "fab.py", "layout.py"],
        "files": ["fab/*", "fab/plate/*"],
    },
}


def _pick(spec, key):
    for part in key.split("."):
        spec = spec[part]
    return spec


def input_hash(group, spec=None):
    """The hash of the group's inputs: the board.json fields it reads (of `spec`, or the file's) and its sources."""
    g = GROUPS[group]
    if spec is None:
        spec = json.loads((HERE / "board.json").read_text())
    h = hashlib.sha256(json.dumps({k: _pick(spec, k) for k in g["board"]}, sort_keys=True).encode())
    for name in g["sources"]:
        h.update(name.encode() + b"\0" + (HERE / name).read_bytes())
    return h.hexdigest()


def files(group):
    return sorted({p for pattern in GROUPS[group]["files"] for p in HERE.glob(pattern) if p.is_file()})


def file_hashes(group):
    return {str(p.relative_to(HERE)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files(group)}


def recorded():
    return json.loads(RECORD.read_text()) if RECORD.exists() else {}


def record(group):
    data = recorded()
    data[group] = {"inputs": input_hash(group), "files": file_hashes(group)}
    RECORD.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        record(name)
        print("recorded", name, "in", RECORD.name)
