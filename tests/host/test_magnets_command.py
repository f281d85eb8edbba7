"""doce dice magnets (issue 40): each magnet alone in the cup on the check square, a line each,
judged against its batch; a weak one is named. On the serial simulator (its cup holds a lone
magnet: sim.fields.Scene.cups), and on a fake board whose readings are malformed."""

import json
import subprocess
import sys
import time

import pytest
from devices import FakeDevice
from waiting import booted, stretched

from doce_host.link import PROTOCOL
from doce_host.magnets import Batch
from doce_host.paths import BOARD_FILE
from doce_host.sim.serial_sim import SerialSim

CHECK = json.loads(BOARD_FILE.read_text())["sensing"]["magnet_check"]
CHANNELS = 128


def magnets(port, *more):
    return subprocess.Popen([sys.executable, "-m", "doce_host.cli", "dice", "magnets", "--port", port, "--wait", "300",
                             *more], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_batch_with_one_magnet_at_40_percent_names_that_one_on_the_simulator(tmp_path):
    strengths = [1.0, 0.98, 1.02, 0.40, 0.99, 1.01]  # the simulator's magnets are of one size: a batch's spread is Br's
    with SerialSim(tmp_path) as sim:
        booted(sim)
        run = magnets(sim.path, "--count", str(len(strengths)))
        try:
            assert run.stdout.readline().startswith("Magnet check on c3")
            lines = []
            for n, strength in enumerate(strengths):
                sim.cup("c3", strength, "N")
                lines.append(run.stdout.readline())
                if n + 1 == CHECK["judge_from"]:  # the batch is judged: a line for each magnet so far
                    lines += [run.stdout.readline() for _ in range(n)]
                sim.cup("c3", 0)
                time.sleep(stretched(1.5))  # the command sees the cup empty before the next magnet
            out, err = run.communicate(timeout=stretched(60))
        finally:
            run.kill()
    assert "Traceback" not in err and run.returncode == 1, err[-2000:]
    assert [line for line in lines if "refuse" in line] == [lines[-3]]  # the 40 % magnet, once, when judged
    assert lines[-3].startswith("magnet 4:") and "N face down: refuse: weak, 4" in lines[-3]
    assert "magnet 6:" in lines[-1] and ": keep (" in lines[-1]
    assert out.splitlines()[-1].startswith("N face down: 6 magnets, median") and out.endswith(": refuse magnet 4\n")


def test_magnets_are_judged_against_their_own_face_and_a_weak_batch_is_named():
    batch = Batch(dict(CHECK, level_range=[5000, 15000]))
    said = [batch.add(level) for level in [9000, -8000, 9100, 8900, 9050]]
    assert said[1] == ["magnet 2: 8000 counts, N face down (judged once 5 are in this face down)"]
    assert len(said[-1]) == 1 and said[-1][0].endswith("(judged once 5 are in this face down)")
    said = batch.add(5400)  # the fifth N face up: the four before are judged with it
    assert [line.split(":")[0] for line in said] == ["magnet %d" % n for n in (1, 3, 4, 5, 6)]
    assert said[-1] == "magnet 6: 5400 counts, N face up: refuse: weak, 60 % of the batch"
    lines, right = batch.summary()
    assert not right and lines == ["N face up: 5 magnets, median 9000 counts: refuse magnet 6",
                                   "N face down: 1 magnets, median 8000 counts: too few to judge (5 needed)"]
    weak = Batch(dict(CHECK, level_range=[5000, 15000]))
    for level in [3000, 3100, 2900, 3050, 2950]:
        weak.add(level)
    lines, right = weak.summary()
    assert not right and "under any right magnet's on this board (5000 to 15000 counts): the whole batch is weak" \
        in lines[0]


class FakeBoard:
    """Answers hello and board_check; its read steps' means are `reads`, one a request."""

    def __init__(self, reads):
        self.reads = list(reads)
        self.device = FakeDevice(self.answer)
        self.path = self.device.path

    def answer(self, line):
        request = json.loads(line)
        reply = {"re": request["cmd"], "id": request["id"], "ok": True}
        if request["cmd"] == "hello":
            reply.update(protocol=PROTOCOL, firmware="0.1.0", board="fake", rules="standard", rules_checksum="00000000")
        elif request.get("step") == "start":
            reply.update(leds=31, groups=8, per_group=16, reads=32)
        elif request.get("step") == "read":
            reply.update(means=self.reads.pop(0) if self.reads else [32768] * CHANNELS)
        return json.dumps(reply).encode() + b"\n"


@pytest.mark.parametrize("means, says", [
    ([32768] * 127, "means: 128 readings expected, got 127"),
    ([32768] * 127 + ["\x1b[2J"], "its reply to board_check"),
    ([32768] * 127 + [70000], "its reply to board_check"),
    ([32768] * 127 + [1.5], "its reply to board_check"),
    ([100] * 128, "the board's empty sensors read 100 counts"),
])
def test_malformed_readings_from_the_board_end_the_check_in_one_line(means, says):
    board = FakeBoard([means])
    try:
        run = magnets(board.path, "--wait", "5")
        out, err = run.communicate(timeout=stretched(60))
    finally:
        board.device.close()
    assert run.returncode != 0 and "Traceback" not in err and says in err, err
    assert "\x1b" not in err + out
