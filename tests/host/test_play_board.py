"""doce play-board: a match against the board's opponent, started over the link, and its hint."""

import sys

import pytest

from waiting import completed, until

from doce_host.link import BoardLink
from doce_host.sim.serial_sim import SerialSim


def doce(*args, timeout=120):
    run = completed([sys.executable, "-m", "doce_host.cli", *args], timeout=timeout)
    assert "Traceback" not in run.stderr, run.stderr
    return run


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    with SerialSim(tmp_path_factory.mktemp("sim")) as sim:
        yield sim


def test_play_board_starts_a_match_against_the_board_and_it_plays_its_hint(sim):
    run = doce("play-board", "--port", sim.path, "--level", "3", "--colour", "black", "--first", "white")
    assert run.returncode == 0, run.stderr
    assert "The board plays black at level 3" in run.stdout
    status = doce("status", "--port", sim.path)
    assert status.returncode == 0 and "Who plays: the board plays black at level 3" in status.stdout
    with BoardLink(sim.path) as link:
        until(lambda: link.state()["mode"] == "playing", what="the match against the board to start")
        sim.place("c3", "white 4")
        until(lambda: link.state()["to_move"] == "black", what="white's die to be played")
    hint = doce("play-board", "--port", sim.path, "--hint")
    assert hint.returncode == 0, hint.stderr
    assert hint.stdout.startswith("Hint: ")
    cell, value = hint.stdout.split()[1:3]
    with BoardLink(sim.path) as link:
        def accepted():
            """At level 3 the hint is the board's own move: once it has thought it over (in real
            time, between scans), putting it down plays it; before, it is lifted and tried again."""
            sim.place(cell, "black " + value)
            if until(lambda: link.state()["mode"] != "playing" or link.state()["to_move"] == "white",
                     what="the board to judge the die") and link.state()["to_move"] == "white":
                return True
            sim.lift(cell)
            return False
        until(accepted, timeout=30, every=0.5, what="the board's move to be accepted")


def test_a_wrong_port_is_one_line(sim):
    run = doce("play-board", "--port", "/dev/no-such-board")
    assert run.returncode == 2 and run.stderr.startswith("doce: ") and len(run.stderr.splitlines()) == 1
