"""No traceback on Ctrl-C (issue 42): each long-running `doce` command of one board, stopped with
SIGINT to its process group while it is busy (dice moving, a page clicking, moves typed)."""

import asyncio
import json
import re
import subprocess
import threading
import time

from ctrl_c import Busy, Doce, ended_cleanly
from waiting import booted, stretched, until

from doce_host.link import BoardLink
from doce_host.sim.serial_sim import SerialSim

CELLS = ("a1", "b2", "c3", "d4", "e5")


def hands_busy(sim):
    """A hand putting dice down and lifting them, on and on."""
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


def test_doce_sim_and_its_page_while_the_page_clicks(tmp_path):
    doce = Doce("sim", "--http", "0", "--folder", str(tmp_path))
    url = re.search(r"(http://\S+/)", doce.until(lambda line: "Open http" in line)).group(1)
    clicks = {"n": 0}

    def click_on():  # a page's socket, placing and lifting as fast as the board answers
        import aiohttp

        async def go():
            async with aiohttp.ClientSession() as http, http.ws_connect(url + "ws") as ws:
                while not stop.is_set():
                    cell = CELLS[clicks["n"] % len(CELLS)]
                    do = {"do": "place", "cell": cell, "piece": "white 4"} if clicks["n"] % 2 == 0 else \
                        {"do": "lift", "cell": cell}
                    await ws.send_str(json.dumps(dict(do, id=clicks["n"])))
                    clicks["n"] += 1
                    await asyncio.sleep(0.05)
        try:
            asyncio.run(go())
        except Exception:  # the server going away under it, at the end
            pass
    stop = threading.Event()
    clicking = threading.Thread(target=click_on, daemon=True)
    clicking.start()
    try:
        until(lambda: clicks["n"] > 20, timeout=60, what="the page clicking")
        ended_cleanly(doce)
    finally:
        stop.set()
        clicking.join(30)


def test_doce_sim_serial_only_while_a_tool_talks_to_it():
    doce = Doce("sim", "--serial-only")
    path = doce.until(lambda line: line.startswith("/dev/")).strip()
    link = BoardLink(path, timeout=stretched(10))
    link.hello()
    with Busy(link.state) as busy:
        until(lambda: busy.done > 5, timeout=60, what="states asked")
        ended_cleanly(doce)
    link.close()


def test_doce_sim_terminal_while_moves_are_typed():
    doce = Doce("sim", "--terminal", stdin=subprocess.PIPE)
    doce.until(lambda line: "to move" in line or "round" in line.lower())

    def step():
        doce.process.stdin.write("c3 w4\nlift c3\n")
        doce.process.stdin.flush()
        time.sleep(0.1)
    with Busy(step) as busy:
        until(lambda: busy.done > 5, timeout=60, what="moves typed")
        ended_cleanly(doce)


def test_doce_web_monitor_and_dice_check_while_dice_move(tmp_path):
    for command in (["web", "--http", "0"], ["monitor"], ["dice", "check"]):
        with SerialSim(tmp_path / command[0]) as sim:
            booted(sim)
            doce = Doce(*command[:1], *command[1:], "--port", sim.path)
            doce.until(lambda line: line.strip() != "")  # it has begun (its first words)
            with hands_busy(sim) as busy:
                until(lambda: busy.done > 10, timeout=60, what="dice moved")
                ended_cleanly(doce)


def test_doce_play_while_it_waits_for_a_move_and_while_the_board_thinks():
    doce = Doce("play", "--vs", "3", stdin=subprocess.PIPE)
    doce.until(lambda line: "the board plays" in line)
    ended_cleanly(doce)
    doce = Doce("play", "--vs", "3", stdin=subprocess.PIPE)
    doce.until(lambda line: "the board plays" in line)
    doce.process.stdin.write("c3 4\n" * 3)  # and it answers each
    doce.process.stdin.flush()
    ended_cleanly(doce)


def test_doce_sim_remote_while_its_boards_talk(tmp_path):
    doce = Doce("sim", "--remote", "--http", "0", "--folder", str(tmp_path))
    doce.until(lambda line: line.startswith("Open each page"), timeout=180)
    ended_cleanly(doce)


def test_doce_sim_remote_ends_cleanly_on_sigterm(tmp_path):
    """Review of issue 41, finding 6: SIGTERM (`kill`, a service manager) printed "Task was destroyed but
    it is pending!" and two "RuntimeError: coroutine ignored GeneratorExit"; Ctrl-C was clean."""
    import signal
    doce = Doce("sim", "--remote", "--http", "0", "--folder", str(tmp_path))
    doce.until(lambda line: line.startswith("Open each page"), timeout=180)
    ended_cleanly(doce, signal.SIGTERM)
