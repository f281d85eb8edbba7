"""`make bench`: print the benchmark figures. Nothing here asserts on time."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from conftest import micropython_path  # noqa: E402
from doce_host import rules  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(ROOT / "firmware"))


def run(cmd, mpy_dir=None):
    env = dict(ENV, MICROPYPATH=str(mpy_dir)) if mpy_dir else ENV
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def precompile(out):
    """Bytecode as a board would run it (.mpy), so the heap holds no compiler state."""
    cross = Path(micropython_path()).with_name("mpy-cross")
    (out / "doce").mkdir(parents=True)
    sources = [(p, out / "doce" / (p.stem + ".mpy")) for p in (ROOT / "firmware" / "doce").glob("*.py")]
    sources.append((ROOT / "bench" / "matches.py", out / "matches.mpy"))
    for src, dst in sources:
        subprocess.run([str(cross), "-o", str(dst), str(src)], check=True)
    return out


def placements_per_second(interpreter, tables, matches, mpy_dir=None):
    script = ["-m", "matches"] if mpy_dir else [str(ROOT / "bench" / "matches.py")]
    out = run([*interpreter, *script, tables, str(matches)], mpy_dir)
    if out.returncode:
        raise SystemExit(out.stderr)
    figures = json.loads(out.stdout)
    return figures["placements"] / figures["seconds"], figures


def smallest_heap(mpy_dir, tables, *args):
    """The smallest -X heapsize (bytes) in which matches.py completes: its true high-water mark."""
    def fits(size):
        return run([micropython_path(), "-X", "heapsize=%d" % size, "-m", "matches", tables, *args],
                   mpy_dir).returncode == 0
    low, high = 1024, 256 * 1024
    while high - low > 64:
        mid = (low + high) // 2
        low, high = (low, mid) if fits(mid) else (mid, high)
    return high


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tables = os.path.join(tmp, "standard.doct")
        Path(tables).write_bytes(rules.load_tables("standard").blob)
        print("Rules engine (standard rules, random full matches)")
        rate, f = placements_per_second([sys.executable], tables, 300)
        print("  CPython %s: %8.0f placements/s  (%d matches, %d placements)"
              % (sys.version.split()[0], rate, f["matches"], f["placements"]))
        mpy = precompile(Path(tmp) / "mpy")
        rate, f = placements_per_second([micropython_path()], tables, 300, mpy)
        print("  MicroPython unix (.mpy): %8.0f placements/s  (goal >= 10000)" % rate)
        total = smallest_heap(mpy, tables, "1")
        out = run([micropython_path(), "-m", "matches", tables, "1", "heap"], mpy)
        heap = json.loads(out.stdout)
        print("  MicroPython heap, one full match with its tables (goal < 16 KB):")
        print("    live data high-water (gc.collect after every play): %5d bytes = tables %d + match %d"
              % (heap["tables"] + heap["match_peak"], heap["tables"], heap["match_peak"]))
        print("    engine bytecode (.mpy; stays in flash when frozen):  %5d bytes" % heap["code"])
        print("    smallest -X heapsize that completes it all:          %5d bytes" % total)

if __name__ == "__main__":
    main()
