"""A player's install and a developer's (issue 26, items 15 and 16; issue 42): `make sim` installs
the package and what playing needs, under 150 MB, `make test` adds the developer's tools and the
design tools, and the `doce` command works as the README has it typed. bench/install.py measures
a fresh install's size and time."""

import json
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from waiting import booted, completed, stop

from doce_host.sim.serial_sim import SerialSim

ROOT = Path(__file__).resolve().parent.parent
GOAL_MB = 150
# The design tools (the design extra: the magnetic model's magpylib, and what it brings).
DESIGN = ("numpy", "scipy", "magpylib", "matplotlib", "plotly")
# The developer's tools (the dev, linux, png and hardware extras in pyproject.toml), as they are imported.
DEV_ONLY = ("pytest", "_pytest", "xdist", "pytest_timeout", "hypothesis", "playwright", "skidl", "ruff",
            "adafruit_blinka", "board", "digitalio", "neopixel", "adafruit_mcp3xxx", "cairosvg", "ezdxf", "build123d",
            "gerbonara") + DESIGN
# A venv's own: `python -m venv` puts pip (and, before Python 3.12, setuptools) in every one.
VENV = ("pip", "setuptools")
# Python that refuses the developer's tools, then runs doce with the given arguments.
REFUSE = """
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in %r:
            raise ImportError("%%s is a developer's tool, not installed for playing" %% name)
sys.meta_path.insert(0, Refuse())
""" % (DEV_ONLY,)
PLAYER = REFUSE + """
from doce_host.cli import main
sys.exit(main())  # as the doce command calls it: its argv, its signals
"""


def installs(tmp_path, target):
    """The pip install lines `make TARGET` would run on a fresh clone (make -n)."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    run = completed(["make", "-n", target], cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    return [line for line in run.stdout.splitlines() if "pip install" in line and "--upgrade pip" not in line]


def test_make_sim_installs_what_playing_needs_and_make_test_adds_the_developers_tools(tmp_path):
    if not shutil.which("make"):
        pytest.skip("no make")
    assert installs(tmp_path, "sim") == [".venv/bin/python -m pip install --quiet -e ."]
    assert installs(tmp_path, "test") == [".venv/bin/python -m pip install --quiet -e .",
                                          ".venv/bin/python -m pip install --quiet -e '.[dev]'"]


def test_playing_needs_none_of_the_developers_tools(tmp_path):
    game = completed([sys.executable, "-c", PLAYER, "play", "--vs", "1"], input="c3 4\nquit\n", timeout=120)
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


def closure(name, extras=()):
    """The distributions `name` installs (its requirements, theirs...), with their extras."""
    seen, todo = set(), [(name, tuple(extras))]
    while todo:
        dist, wanted = todo.pop()
        key = dist.lower().replace("_", "-")
        if key in seen:
            continue
        seen.add(key)
        for text in metadata.requires(dist) or ():
            req = Requirement(text)
            envs = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((req.name, tuple(req.extras)))
    return seen


def installed_bytes(dist):
    """On disk, as du counts it (whole blocks): some 10 % more than the files' lengths."""
    return sum(f.locate().stat().st_blocks * 512 for f in metadata.distribution(dist).files or ()
               if f.locate().is_file())


def test_a_players_install_is_under_150_mb_without_the_design_tools():
    """Counted from the files this venv's packages recorded at install (their RECORD): the ones
    the package needs, and the venv's own pip and setuptools."""
    player = closure("doce-board") | set(VENV)
    assert not player & set(DESIGN), sorted(player & set(DESIGN))
    assert "magpylib" in closure("doce-board", ["design"])  # the design tools are an extra's
    size = sum(installed_bytes(d) for d in player) / 1e6
    print("a player's install: %d packages, %.0f MB" % (len(player), size))
    assert size < GOAL_MB
    everything = closure("doce-board", ["dev"]) | set(VENV)
    assert sum(installed_bytes(d) for d in everything) / 1e6 > 2 * size  # the count sees what is there


def test_the_simulated_hands_need_none_of_the_design_tools():
    """They read the fields from the table magpylib made (doce_host/sim/fields.py)."""
    script = REFUSE + """
from doce_host.sim import SimBoard
with SimBoard(seed=3) as board:
    board.place("c3", "white 4")
    board.place("a1", "black 2")
    print(board.state()["board"])
"""
    run = completed([sys.executable, "-c", script], timeout=120)
    assert run.returncode == 0 and run.stdout == "{'c3': 'white 4', 'a1': 'black 2'}\n", run.stderr


def test_the_dice_check_needs_none_of_the_developers_tools(tmp_path):
    with SerialSim(tmp_path) as sim:
        booted(sim)
        run = subprocess.Popen([sys.executable, "-c", PLAYER, "dice", "check", "--port", sim.path, "--wait", "60"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert run.stdout.readline().startswith("Dice check on c3")
            sim.place("c3", "white 3")
            assert run.stdout.readline() == "white 3: right\n"
        finally:
            run.kill()
            run.communicate()


def test_the_board_check_needs_none_of_the_developers_tools(tmp_path):
    """doce check board works out its levels from the ADC's curve in plain Python (physics/adc.py)."""
    with SerialSim(tmp_path) as sim:
        booted(sim)
        run = completed([sys.executable, "-c", PLAYER, "check", "board", "--port", sim.path, "--json", "--no-die",
                         "--no-leds", "--no-button"], timeout=300)
        assert "Traceback" not in run.stderr and run.returncode == 0, run.stderr[-2000:]
        assert json.loads(run.stdout)["faults"] == []


def test_doce_is_typed_as_the_readme_writes_it():
    readme = (ROOT / "README.md").read_text()
    assert ". .venv/bin/activate" in readme  # how to have it
    activate = Path(sys.executable).parent / "activate"  # this venv's, wherever make put it
    if not activate.exists():
        pytest.skip("not run from a venv")
    run = completed(["bash", "-c", '. "%s" && cd / && doce play' % activate], input="quit\n", timeout=60)
    assert run.returncode == 0 and "DOCE, standard rules." in run.stdout, run.stderr
