"""doce dice check: a line per face, a summary once a die's seven pieces are seen, and
an exit code a script can trust. On the serial simulator, and on a fake board that
reports a wrong face (the simulator's dice are always built right)."""

import json
import subprocess
import sys

from devices import FakeDevice
from waiting import booted, completed, stretched

from doce_host.dice_check import describe_face as describe
from doce_host.link import PROTOCOL, BoardLink
from doce_host.sim.serial_sim import SerialSim

WHITE = ["white %d" % f for f in range(1, 7)] + ["white blocker"]


def dice_check(port, *more):
    return subprocess.Popen([sys.executable, "-m", "doce_host.cli", "dice", "check", "--port", port, "--wait", "60",
                             *more], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_die_checked_right_on_the_simulator(tmp_path):
    with SerialSim(tmp_path) as sim:
        booted(sim)
        run = dice_check(sim.path)
        try:
            assert run.stdout.readline().startswith("Dice check on c3")
            for turn, name in enumerate(WHITE):
                if turn:
                    sim.lift("c3")
                sim.place("c3", name, turn=turn)
                mirrored = {"white 1": "white 6", "white 6": "white 1"}.get(name)
                assert run.stdout.readline() == (
                    "%s: right if its %s is up (if its %s is, the die is glued mirror-wise)\n"
                    % (name, name.split()[1], mirrored.split()[1]) if mirrored else "%s: right\n" % name)
            out, err = run.communicate(timeout=stretched(30))
        finally:
            run.kill()
        assert "Traceback" not in err and run.returncode == 0
        assert out == ("white: all 6 faces and the blocker read right\n"
                       "Check that white 1 was named with its 1 up and white 6 with its 6 up: a die glued "
                       "mirror-wise reads those two swapped\n"
                       "Check that every face of the white die and of the white blocker is turned as "
                       "hardware/dice/faces.svg says (its N to the face named under it): a face read alone cannot "
                       "show it, and turned otherwise a die may read unsettled in its well\n"
                       "Take the die off c3: the game resumes then.\n")
        with BoardLink(sim.path) as link:
            sim.lift("c3")
            link.wait_for("dice_check", timeout=stretched(10), on=False)
            state = link.state()
        assert state["mode"] == "playing" and state["board"] == {}  # back to the game, the die not played


def wrong_face():
    """A dice_face event for a white 3 whose E magnet is reversed, as the board sends it."""
    return {"face": "white 3", "ok": False, "wrong": [["E", "reversed"]], "read": "+0++-",
            "or": [{"face": "black 4", "wrong": [["C", "reversed"]]}]}


class FakeBoard:
    """Answers hello and dice_check; reports seven faces, one of them wrong."""

    def __init__(self, faces):
        self.faces = faces
        self.requests = []
        self.device = FakeDevice(self.answer)
        self.path = self.device.path

    def answer(self, line):
        request = json.loads(line)
        self.requests.append(request)
        reply = {"re": request["cmd"], "id": request["id"], "ok": True}
        out = []
        if request["cmd"] == "hello":
            reply.update(protocol=PROTOCOL, firmware="0.1.0", board="fake", rules="standard", rules_checksum="00000000")
        elif request["cmd"] == "dice_check":
            reply.update(on=request["on"], leaving=False, cell="c3", pieces=WHITE + ["black 1"])
            if request["on"]:
                out = [dict(face, event="dice_face", cell="c3", seq=n + 1) for n, face in enumerate(self.faces)]
        return b"".join(json.dumps(m).encode() + b"\n" for m in [reply] + out)


def test_a_wrong_face_is_named_and_the_exit_code_says_so():
    wrong = wrong_face()
    faces = [{"face": name, "ok": True, "wrong": [], "read": "+0000"} for name in WHITE if name != "white 3"]
    faces.insert(2, wrong)
    board = FakeBoard(faces)
    try:
        run = dice_check(board.path)
        out, err = run.communicate(timeout=stretched(60))
    finally:
        board.device.close()
    lines = out.splitlines()
    assert lines[3] == describe(wrong) == ("looks like white 3, but the E magnet is reversed; "
                                           "or black 4, but the centre magnet is reversed (reads +0++-)")
    assert lines[-1] == "white: 7 of 7 seen; 1 wrong: white 3 (the E magnet is reversed)"
    assert "Traceback" not in err and run.returncode == 1
    assert [r["on"] for r in board.requests if r["cmd"] == "dice_check"] == [True, False]  # back to the game


def test_json_output_and_an_incomplete_check():
    board = FakeBoard([{"face": "white 1", "ok": True, "wrong": [], "read": "+0000"}])
    try:
        run = completed([sys.executable, "-m", "doce_host.cli", "dice", "check", "--port", board.path,
                         "--wait", "1", "--json"], timeout=60)
    finally:
        board.device.close()
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert lines[0]["event"] == "dice_face" and lines[-1] == {"complete": False, "colour": None, "wrong": []}
    assert lines[0]["mirror_of"] == "white 6"  # a script can ask which face is up, as the line does
    assert run.returncode == 1


def test_the_mirror_pairs_are_those_of_the_board_file():
    """White 6 is white 1 read from inside the die, black 1 black 3: the board cannot tell a
    die glued mirror-wise, so the check says what to look at."""
    from doce_host.dice_check import mirror_pairs
    from doce_host.paths import BOARD_FILE
    assert sorted(map(sorted, mirror_pairs(json.loads(BOARD_FILE.read_text())["dice"]))) == \
        [["black 1", "black 3"], ["white 1", "white 6"]]
    assert mirror_pairs({"+++-0": "white 1", "++000": "white blocker"}) == []
