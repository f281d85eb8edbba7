"""The firmware's modules import one way: no circle, even through an import inside a function
(the guide: no import circles). A circle loads on MicroPython only by the luck of which module
comes first, and says two files share one job."""

import ast
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware" / "doce"


def imports(path):
    """The doce modules `path` imports, at its top or inside any function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def circle():
    graph = {p.stem: imports(p) for p in FIRMWARE.glob("*.py")}
    state = {}

    def visit(module, path):
        state[module] = "open"
        for other in sorted(graph.get(module, ())):
            if state.get(other) == "open":
                return path[path.index(other):] + [other]
            if other not in state:
                found = visit(other, path + [other])
                if found:
                    return found
        state[module] = "done"
        return None
    for module in sorted(graph):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_the_firmware_has_no_import_circle():
    assert circle() is None, " -> ".join(circle())


def test_the_check_sees_a_circle_through_an_import_inside_a_function(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("from .b import x\n")
    (tmp_path / "b.py").write_text("def f():\n    from .a import y\n")
    monkeypatch.setitem(globals(), "FIRMWARE", tmp_path)
    assert circle() == ["a", "b", "a"]
