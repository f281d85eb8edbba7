"""Which generated files a maker downloads, what each is made from, and a record of both.

    python hardware/outputs.py GROUP      # after building GROUP: record its inputs and files

hardware/generated.json holds, per group, the hash of everything the group is built from
(the board.json sections it reads and its scripts) and the hash of every file it wrote. The
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

GROUPS = {
    "mechanics": {
        "board": ["grid", "squares", "leds", "physics", "mechanics"],
        "sources": ["layout.py", "mechanics.py"],
        "files": ["mechanics/*.dxf", "mechanics/*.step", "mechanics/*.stl", "dice/jig.stl", "dice/die.stl"],
    },
    "pcb": {
        "board": ["grid", "squares", "leds", "mechanics", "physics.square_mm", "physics.ring_mm"],
        "sources": ["layout.py", "pcb.py", "router.py", "doce.net"],
        "files": ["pcb/doce.kicad_pcb", "pcb/doce.kicad_pro", "pcb/drc.txt", "doce.pretty/*"],
    },
    "fab": {  # and the floor plate's Gerbers (fab/plate/), from layout.py
        "board": ["grid", "squares", "leds", "mechanics", "physics.square_mm"],
        "sources": ["pcb/doce.kicad_pcb", "doce.net", "fab.py", "layout.py"],
        "files": ["fab/*", "fab/plate/*"],
    },
}


def _pick(spec, key):
    for part in key.split("."):
        spec = spec[part]
    return spec


def input_hash(group):
    g = GROUPS[group]
    spec = json.loads((HERE / "board.json").read_text())
    spec["mechanics"].pop("magnet_check", None)  # the magnet check's cup (cup.py) is none of these groups' input
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
