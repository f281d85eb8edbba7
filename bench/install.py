"""A player's install, measured: a fresh venv made as `make sim` makes it (the package and its
dependencies, no extra), its size on disk and the time it took, and the same with the
developer's tools (`make test`'s). Packages come from wherever pip is set to take them (here, a
local index: a download from PyPI adds its own time)."""

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def disk_mb(folder):
    return sum(p.lstat().st_blocks * 512 for p in Path(folder).rglob("*")) / 1e6


def install(venv, target):
    start = time.monotonic()
    out = subprocess.run(["make", "-C", str(ROOT), "VENV=%s" % venv, target],
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stdout + out.stderr)
    return time.monotonic() - start


def install_figures():
    print("A player's install (make sim's: python -m venv, pip install -e ., no extra)")
    with tempfile.TemporaryDirectory(prefix="doce-install-") as tmp:
        venv = Path(tmp) / "venv"
        took = install(venv, str(venv / "bin" / ".player"))
        print("  %.0f MB on disk, %.0f s (goal < 150 MB)" % (disk_mb(venv), took))
        took = install(venv, str(venv / "bin" / ".installed"))
        print("  with the developer's tools (make test's dev extra: the design tools, pytest, Playwright...):"
              " %.0f MB, %.0f s more" % (disk_mb(venv), took))
        shutil.rmtree(venv)


if __name__ == "__main__":
    install_figures()
