"""No traceback on Ctrl-C (issue 42): each long-running `doce` command of a room, stopped with SIGINT
to its process group while a board is being played (its events coming through the broker)."""

import time

from ctrl_c import Busy, Doce, ended_cleanly
from waiting import until

from doce_host.fleet.broker import free_port
from doce_host.fleet.simroom import SimRoom

CELLS = ("a1", "b2", "c3", "d4", "e5")


def played(sim):
    """A hand putting dice down and lifting them on a simulated board, on and on."""
    state = {"n": 0}

    def step():
        cell = CELLS[state["n"] % len(CELLS)]
        if cell in sim.pieces:
            sim.lift(cell)
        else:
            sim.place(cell, "white 4" if state["n"] % 2 else "black 2")
        state["n"] += 1
        time.sleep(0.05)
    return Busy(step)


def test_the_rooms_commands_while_a_board_is_played(embedded, tmp_path):
    """fleet web (the issue's: 'RuntimeError: Event loop is closed', 2 times in 3), fleet status,
    fleet record; three times each, as the race needed."""
    with SimRoom(1, embedded.url, folder=tmp_path / "boards") as room, played(room.boards[0]) as busy:
        for n in range(3):
            for command, ready in ((["fleet", "web", "--http", "0"], "http://"),
                                   (["fleet", "status", "--wait", "600"], None),  # says nothing till then
                                   (["fleet", "record", str(tmp_path / ("games%d" % n))], "recording")):
                doce = Doce(*command, "--broker", embedded.url)
                if ready:
                    doce.until(lambda line: ready in line)
                before = busy.done
                until(lambda: busy.done > before + (5 if ready else 40), timeout=60, what="dice moved")
                ended_cleanly(doce)


def test_doce_sim_boards_and_the_embedded_broker_while_they_talk(tmp_path):
    doce = Doce("sim", "--boards", "2", "--http", "0", "--folder", str(tmp_path))
    doce.until(lambda line: line.startswith("doce fleet web"), timeout=180)
    ended_cleanly(doce)
    doce = Doce("fleet", "broker", "--embedded-port", str(free_port()))
    doce.until(lambda line: line.strip() != "")
    ended_cleanly(doce)
