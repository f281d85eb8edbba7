"""No import circles: the firmware stacks one way (sensors -> scanner -> controller -> lights,
link and net beside), and so do the host tools and the bench. A circle is two files that each
need the other, directly or through others, at load time or inside a function."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"doce": ROOT / "firmware" / "doce", "doce_host": ROOT / "host" / "doce_host"}


def modules():
    """Every project module's dotted name and file: the two packages, and bench/'s scripts."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package,) + parts)] = path
    for path in (ROOT / "bench").glob("*.py"):
        found["bench." + path.stem] = path
    return found


def imported(name, path, known):
    """The project modules that module `name` imports, anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            elif name.startswith("bench.") and base in {m.split(".", 1)[1] for m in known if m.startswith("bench.")}:
                base = "bench." + base  # the bench's scripts import each other by bare name
            targets = [base] + [base + "." + a.name for a in node.names]
        else:
            continue
        for target in targets:
            if name.startswith("bench.") and target in {m.split(".", 1)[1] for m in known if m.startswith("bench.")}:
                target = "bench." + target
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                out.add(target)  # a package's __init__ that its own modules import is not a circle
    return out


def circles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_one_that_imports_it_back():
    known = modules()
    graph = {name: imported(name, path, known) for name, path in known.items()}
    assert circles(graph) == []
