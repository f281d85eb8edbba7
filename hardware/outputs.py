"""Which generated files a maker downloads, what each is made from, and a record of both.

    python hardware/outputs.py GROUP      # after building GROUP: record its inputs and files

hardware/generated.json holds, per group, the hash of everything the group is built from
(the board.json sections and fields it reads and its scripts) and the hash of every file it wrote. The
tests compare both with the repository as it is: a file edited by hand, or an input changed
without `make hardware`, fails. Solids and Gerbers are checked this way because rebuilding
them needs CAD and KiCad; the DXF drawings are also rebuilt and compared entity by entity,
and the fab files too where KiCad is installed (tests/hardware/test_fab.py).
"""

import ast
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


def loads(script, seen=None):
    """`script` and the scripts beside it that it imports as it loads (an import statement outside any function),
    theirs too: what a run of it reads besides board.json and its data files. An import inside a function
    (schematic.py's bom() takes mechanical.py) counts for the script that calls it, not for one that takes only
    constants (fab.py); tests/hardware/test_fab.py checks that fab.py's run loads no other."""
    seen = set() if seen is None else seen
    seen.add(script)
    nodes = list(ast.parse((HERE / script).read_text()).body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # run when called, not when loaded
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module] if node.module and not node.level else []
        else:
            names = []
            nodes.extend(ast.iter_child_nodes(node))
        for name in names:
            if (HERE / (name + ".py")).is_file() and name + ".py" not in seen:
                loads(name + ".py", seen)
    return sorted(seen)


# Each group is named after the script that writes its files (hardware/GROUP.py); its sources are that script
# and all it loads (loads(), so a script it comes to import is hashed with no list to keep), then its data files.
GROUPS = {
    "mechanics": {
        "board": ["grid", "squares", "leds", "physics"] + mechanics_fields(LAYOUT_READS, MECHANICS_READS),
        "data": [],
        "files": ["mechanics/*.dxf", "mechanics/*.step", "mechanics/*.stl", "dice/jig.stl", "dice/die.stl"],
    },
    "pcb": {
        "board": ["grid", "squares", "leds", "physics.square_mm", "physics.ring_mm"] + mechanics_fields(LAYOUT_READS),
        "data": ["doce.net"],
        "files": ["pcb/doce.kicad_pcb", "pcb/doce.kicad_pro", "pcb/drc.txt", "doce.pretty/*"],
    },
    "fab": {  # and the floor plate's Gerbers (fab/plate/), from layout.py
        "board": ["grid", "squares", "leds", "physics.square_mm"] + mechanics_fields(LAYOUT_READS),
        "data": ["pcb/doce.kicad_pcb", "doce.net"],
        "files": ["fab/*", "fab/plate/*"],
    },
}
for _name, _group in GROUPS.items():
    _group["sources"] = loads(_name + ".py") + _group["data"]


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
