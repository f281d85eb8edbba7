"""doce bench --port P, end to end on the serial simulator: the firmware times its own figures
(doce/meter.py) while a round is played on it to its win, then runs the CPU workload over its REPL
and boots its app again. On the simulator the times are the host's, not an ESP32's: what is checked
here is that every figure is measured, and measured where it should be."""

import json
import re
import subprocess
import sys
import threading

from waiting import booted, completed, ended, stretched

from doce_host import bench_command
from doce_host.link import BoardLink
from doce_host.sim.serial_sim import SerialSim

TIMEOUT = 120  # of one core's time: stretched by the load for the link's wall clock


class SimPlayer(bench_command.Player):
    def __init__(self, sim):
        self.sim = sim

    def put(self, cell, piece):
        self.sim.place(cell, piece)

    def clear(self, cells):
        for cell in cells:
            self.sim.lift(cell)


def test_the_figures_are_timed_on_the_board_for_a_play_and_a_win(tmp_path):
    with SerialSim(tmp_path, seed=2) as sim:
        booted(sim)
        with BoardLink(sim.path, timeout=stretched(TIMEOUT)) as link:
            figures = bench_command.measure(link, SimPlayer(sim), rest_s=1.0)
            assert link.state()["mode"] == "playing"  # the game went on: the round ended, the board cleared
        plays = len(bench_command.ROUND.split()) // 2 - 1
        d = figures["die_to_light"]
        assert 1 <= d["play"]["from_settle"]["n"] <= plays and d["win"]["from_settle"]["n"] == 1
        assert d["win"]["from_seen"]["n"] == 1
        for kind in ("play", "win"):  # from the scan that settled it is never longer than from first sight
            settle, seen = d[kind]["from_settle"], d[kind]["from_seen"]
            assert 0 < settle["least"] <= seen["most"]
        assert figures["scan_period"]["rest"]["n"] > 100 and figures["scan_period"]["landing"]["n"] >= plays
        assert figures["collection"]["n"] >= 2 and figures["collection"]["live"] > 0
        assert figures["heap"]["free_after_boot"] > 0 and figures["cpu_hz"] == 240000000  # doce/esp32.py CPU_HZ
        assert figures["network"] == {"wifi": False, "broker": False, "tls": False}
        assert figures["platform"] == "linux"  # the unix port's sys.platform: the figures say what ran them

        work = bench_command.chip_workload(sim.path, figures["cpu_hz"], loops=200)
        assert work["loops"] == 200 and work["us"] > 0 and work["hz"] == 240000000
        assert work["machine"].startswith("linux")  # the simulator's MicroPython says what it is
        # --pystone FILE: a file with pystone's Setup and Proc0 (a stand-in here: MicroPython's own
        # misc_pystone.py is not part of this project), run the same way on the same image
        stand_in = tmp_path / "misc_pystone.py"
        stand_in.write_text("def Setup():\n    global N\n    N = 0\n\n\ndef Proc0(loops):\n    global N\n"
                            "    for i in range(loops):\n        N += i\n")
        stone = bench_command.pystone(sim.path, stand_in, figures["cpu_hz"], loops=1000)
        assert stone["loops"] == 1000 and stone["us"] > 0 and stone["hz"] == 240000000
        with BoardLink(sim.path, timeout=stretched(TIMEOUT)) as link:  # reset after the REPL: the app is back
            assert link.hello()["board"] and link.state()["mode"] == "playing"


def test_the_command_guides_the_player_and_prints_each_figure_beside_its_estimate(tmp_path):
    with SerialSim(tmp_path, seed=5) as sim:
        booted(sim)
        saved = tmp_path / "measured.json"
        run = subprocess.Popen([sys.executable, "-m", "doce_host.cli", "bench", "--port", sim.path, "--timeout", "60",
                                "--save", str(saved)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        said = []

        def play():  # the player at the board, as the command asks
            for line in run.stdout:
                said.append(line)
                put = re.match(r"Put (\w+ \w+) on (\w\d)\.", line)
                if put:
                    sim.place(put.group(2), put.group(1))
                elif line.startswith("Take the dice off"):
                    for cell in list(sim.pieces):
                        sim.lift(cell)
                    run.stdin.write("\n")
                    run.stdin.flush()
        player = threading.Thread(target=play, daemon=True)
        player.start()
        try:
            ended(run, 600)
        finally:
            run.kill()
        player.join(timeout=10)
        err = run.stderr.read()
        assert run.returncode == 0, err
        text = "".join(said)
        assert text.count("Put ") == len(bench_command.ROUND.split()) // 2
        for figure in ("die-to-light, a play, from the scan that first read it", "the winning die",
                       "scan period at rest", "scan period while a die lands", "free heap after boot",
                       "longest collection", "chip_workload.py, one loop"):
            assert figure in text, figure
        assert "measured on the simulator" in text and "Chip figures" not in text
        kept = json.loads(saved.read_text())
        assert kept["platform"] == "linux" and kept["measured_on"].startswith("the simulator")
        assert kept["figures"]["die_to_light"]["win"]["from_seen"]["n"] == 1 and kept["workload"]["us"] > 0


class StateOnly:
    """A board that only says where it stands: in a match with a friend's board."""

    def __init__(self, state):
        self._state = state

    def state(self):
        return self._state


class Refuses(bench_command.Player):
    def put(self, cell, piece):
        raise AssertionError("the bench asked for a die on %s in a remote match" % cell)


def test_the_bench_refuses_a_board_in_a_match_with_a_friends_board_in_one_line():
    import pytest

    from doce_host.commandline import UsageError
    state = {"mode": "playing", "board": {}, "seen": {}, "scores": {}, "round": 1, "to_move": "white",
             "versus": None, "remote": {"peer": "b2\x1b[2J", "colour": "black", "match": "7f3a01c2",
                                        "connected": True, "move": None, "plays": 0, "mismatch": None}}
    with pytest.raises(UsageError) as refused:
        bench_command.play_round(StateOnly(state), Refuses())
    said = str(refused.value)
    assert "friend's board b2\\x1b[2J" in said and "\x1b" not in said and "\n" not in said


FAKE_MPREMOTE = r'''
import os, signal, sys, time
marks = sys.argv[0] + ".log"
if "exec" in sys.argv:
    print('{"us": 5, "hz": 240000000, "machine": "esp32"}')
else:  # reset: Ctrl-C at the terminal now, to the terminal's process group
    os.killpg(os.getpgid(os.getppid()), signal.SIGINT)
    time.sleep(0.5)
    open(marks, "a").write("reset done\n")
'''

RUN_ON_REPL = r'''
import sys
from doce_host import bench_command
fake, marks = sys.argv[1], sys.argv[1] + ".log"
bench_command.tool = lambda name: fake
bench_command.back_up = lambda port: open(marks, "a").write("back up\n")
try:
    bench_command.run_on_repl("/dev/null", "print(1)")
except KeyboardInterrupt:
    sys.exit(130)
'''


def test_ctrl_c_while_the_board_is_reset_after_the_repl_lets_the_reset_finish(tmp_path):
    """An interrupt that lands in run_on_repl's reset would leave the app stopped: the reset and the
    wait for the app go on, and the interrupt is taken after them. run_on_repl runs in a session of
    its own (a terminal's), with a stand-in mpremote whose reset sends Ctrl-C to that terminal."""
    fake = tmp_path / "mpremote"
    fake.write_text("#!%s\n%s" % (sys.executable, FAKE_MPREMOTE))
    fake.chmod(0o755)
    ran = completed([sys.executable, "-c", RUN_ON_REPL, str(fake)], start_new_session=True, timeout=120)
    marks = (tmp_path / "mpremote.log").read_text() if (tmp_path / "mpremote.log").exists() else ""
    assert marks == "reset done\nback up\n", (ran.returncode, ran.stderr)
    assert ran.returncode == 130 and "Traceback" not in ran.stderr
