"""A player's install and a developer's (issue 26, items 15 and 16): `make sim` installs the
package and what playing needs, `make test` adds the developer's tools, and the `doce` command
works as the README has it typed."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import stop

ROOT = Path(__file__).resolve().parent.parent
# The developer's tools (the dev, linux, png and hardware extras in pyproject.toml), as they are imported.
DEV_ONLY = ("pytest", "_pytest", "xdist", "pytest_timeout", "hypothesis", "playwright", "skidl", "ruff",
            "adafruit_blinka", "board", "digitalio", "neopixel", "adafruit_mcp3xxx", "cairosvg", "ezdxf", "build123d",
            "gerbonara")
# Python that refuses the developer's tools, then runs doce with the given arguments.
PLAYER = """
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in %r:
            raise ImportError("%%s is a developer's tool, not installed for playing" %% name)
sys.meta_path.insert(0, Refuse())
from doce_host.cli import main
sys.exit(main())  # as the doce command calls it: its argv, its signals
""" % (DEV_ONLY,)


def installs(tmp_path, target):
    """The pip install lines `make TARGET` would run on a fresh clone (make -n)."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    run = subprocess.run(["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return [line for line in run.stdout.splitlines() if "pip install" in line and "--upgrade pip" not in line]


def test_make_sim_installs_what_playing_needs_and_make_test_adds_the_developers_tools(tmp_path):
    if not shutil.which("make"):
        pytest.skip("no make")
    assert installs(tmp_path, "sim") == [".venv/bin/python -m pip install --quiet -e ."]
    assert installs(tmp_path, "test") == [".venv/bin/python -m pip install --quiet -e .",
                                          ".venv/bin/python -m pip install --quiet -e '.[dev]'"]


def test_playing_needs_none_of_the_developers_tools(tmp_path):
    game = subprocess.run([sys.executable, "-c", PLAYER, "play", "--vs", "1"], input="c3 4\nquit\n",
                          capture_output=True, text=True, timeout=120)
    assert game.returncode == 0 and "The board (black) plays" in game.stdout, game.stderr
    sim = subprocess.Popen([sys.executable, "-u", "-c", PLAYER, "sim", "--http", "0", "--folder", str(tmp_path)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        said = []
        for line in sim.stdout:
            said.append(line)
            if "Open http" in line:
                break
        assert "Open http" in said[-1], "".join(said)
    finally:
        stop(sim)


def test_doce_is_typed_as_the_readme_writes_it():
    readme = (ROOT / "README.md").read_text()
    assert ". .venv/bin/activate" in readme  # how to have it
    activate = Path(sys.executable).parent / "activate"  # this venv's, wherever make put it
    if not activate.exists():
        pytest.skip("not run from a venv")
    run = subprocess.run(["bash", "-c", '. "%s" && cd / && doce play' % activate], input="quit\n",
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "DOCE, standard rules." in run.stdout, run.stderr
