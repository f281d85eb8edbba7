"""The suite can't hang: every test has a limit (tests/hang_guard.py), counted in a core's time."""

import subprocess
import sys
from pathlib import Path

import hang_guard
from waiting import CORES, completed

TESTS = Path(__file__).resolve().parent


def test_this_run_has_a_limit_per_test(request):
    assert request.config.pluginmanager.hasplugin("hang_guard")
    assert 0 < hang_guard.HANG_CORE_S <= 600


def run_pytest(tmp_path, body, limit):
    (tmp_path / "test_it.py").write_text(body)
    env = {"DOCE_HANG_CORE_S": str(limit), "PYTHONPATH": str(TESTS)}
    return completed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "hang_guard",
                      "--rootdir", str(tmp_path), str(tmp_path)], timeout=300,
                     env=dict(__import__("os").environ, **env))


def test_a_test_that_would_wait_forever_is_stopped_and_fails(tmp_path):
    run = run_pytest(tmp_path, "import threading\n\n\ndef test_forever():\n    threading.Event().wait()\n\n\n"
                               "def test_after():\n    pass\n", 2)
    assert run.returncode == 1 and "hung: still running after 2 s of a core's time" in run.stdout, run.stdout
    assert "1 failed, 1 passed" in run.stdout  # the run went on
    assert "every thread's stack" in run.stdout + run.stderr  # where pytest shows what the test printed


def test_the_limit_is_a_cores_time_not_the_wall_clocks(tmp_path):
    """On a machine whose cores are all taken by others, a second of wall time is a fraction of a
    second of a core's: the same sleep that outlasts the limit on its own fits it under load."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * CORES)]
    try:
        body = "import time\n\n\ndef test_sleeps():\n    time.sleep(6)\n"
        run = run_pytest(tmp_path, body, 4)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert run.returncode == 0, run.stdout


def test_a_wait_counts_a_cores_time_so_a_busy_machine_stretches_it(monkeypatch):
    """A wall-clock deadline failed CI at load (tests/fleet/test_fleet_record.py, a board's acks
    late under four workers on two cores): wait_until counts the share of a core the work gets."""
    import time

    import waiting

    from doce_host import core_time
    looks = []

    def timed(tasks):
        monkeypatch.setattr(core_time, "runnable", lambda: tasks)  # CoreClock reads it there
        looks.clear()
        began = time.monotonic()
        assert waiting.wait_until(lambda: looks.append(1) and False, 0.2) is None
        return time.monotonic() - began

    quiet = timed(1)
    busy = timed(CORES * 4)  # each task a quarter of a core: the same work takes four times the wall time
    assert 0.2 <= quiet < 0.6 and busy >= 0.8, (quiet, busy)


def test_a_subprocess_deadline_counts_a_cores_time(monkeypatch):
    """subprocess.run(timeout=...) and Popen.wait(timeout=...) count the wall clock: a 60 s guess
    for a doce command ran out at load 20. completed() and ended() count a core's time: a second's
    sleep outlasts half a second of it on a quiet machine, and fits it when twenty tasks share each core."""
    import subprocess

    import pytest

    import waiting

    from doce_host import core_time

    def at(tasks):
        monkeypatch.setattr(core_time, "runnable", lambda: tasks)  # CoreClock reads it there

    at(1)
    with pytest.raises(subprocess.TimeoutExpired):
        waiting.completed(["sleep", "1"], timeout=0.5)
    sleeper = subprocess.Popen(["sleep", "1"])
    with pytest.raises(subprocess.TimeoutExpired):
        waiting.ended(sleeper, 0.5)
    sleeper.kill()
    sleeper.wait()
    deadline = waiting.Deadline(0.5)
    assert not deadline.passed() and deadline.left() > 0

    at(CORES * 20)
    assert waiting.completed(["sh", "-c", "sleep 1; echo slept"], timeout=0.5).stdout == "slept\n"
    assert waiting.ended(subprocess.Popen(["sleep", "1"]), 0.5) == 0
    deadline = waiting.Deadline(0.5)
    waiting.time.sleep(1)
    assert not deadline.passed()
    at(1)
    waiting.time.sleep(0.6)
    assert deadline.passed() and deadline.left() == 0
