"""doce check board and doce bench against a board that answers oddly: what it says never reaches
the terminal raw, and a reply of a shape this doce does not expect is one line, never a traceback.
The board here is a stand-in that answers each request from a table: only the host is under test."""

import io
import json

import pytest

from doce_host import bench_command, check_command
from doce_host import circuit as circuit_module
from doce_host.commandline import UsageError
from doce_host.paths import BOARD_FILE

SPEC = json.loads(BOARD_FILE.read_text())
CIRCUIT = circuit_module.load()
CHANNELS = SPEC["sensing"]["groups"] * SPEC["sensing"]["channels_per_group"]
ESCAPES = "\x1b[2J\x1b[31mEVIL\x1b[0m \x1b]0;TITLE\x07 \u202e"


def sensors_reply(channels=CHANNELS):
    means = [30000] * channels
    return {"ok": True, "means": means, "ranges": [100] * channels, "after_low": list(means),
            "after_high": list(means), "low": [0, 30000], "high": [1, 30000], "off": [30000, 30000], "reads": 32}


class TableLink:
    """Answers each board_check step from `steps` (a dict, or a function of the request)."""

    def __init__(self, **steps):
        self.steps = dict({"start": {"groups": SPEC["sensing"]["groups"],
                                     "per_group": SPEC["sensing"]["channels_per_group"],
                                     "leds": SPEC["leds"]["count"], "reads": 32},
                           "sensors": sensors_reply(), "read": {"means": [30000] * CHANNELS},
                           "button": {"down": False, "pressed": True, "released": True},
                           "storage": {"storage_error": None}, "network": {"set_up": False}, "end": {}}, **steps)
        self.ended = False

    def state(self):
        return {"board": {}, "seen": {}}

    def request(self, cmd, timeout=None, **args):
        assert cmd == "board_check"
        if args["step"] == "end":
            self.ended = True
        return dict({"ok": True}, **self.steps[args["step"]])

    def ask(self, cmd, timeout=None, **args):
        return self.request(cmd, timeout, **args)


def run(link, die=False):
    return check_command.run(link, SPEC, CIRCUIT, check_command.Maker(), die=die, leds=False, button=False)


def test_the_boards_words_in_a_fault_are_escaped_not_sent_to_the_terminal():
    link = TableLink(storage={"storage_error": ESCAPES},
                     network={"set_up": True, "wifi": False, "broker": False, "fault": ESCAPES})
    result = run(link)
    said = [f for f in result["faults"] if f.kind in ("storage", "wifi")]
    assert len(said) == 2
    for fault in said:
        assert "\x1b" not in fault.line() and "\x07" not in fault.line() and "\u202e" not in fault.line()
        assert "\\x1b[2J" in fault.line()


@pytest.mark.parametrize("step, reply, says", [
    ("sensors", {"means": [30000] * CHANNELS}, "no ranges"),  # fields missing
    ("sensors", sensors_reply(3), "%d readings expected, got 3" % CHANNELS),  # another board file's groups
    ("sensors", dict(sensors_reply(), off=[30000]), "off"),
    ("sensors", dict(sensors_reply(), low=[CHANNELS + 5, 30000]), "low"),
    ("read", {"means": [30000] * 7}, "%d readings expected, got 7" % CHANNELS),
    ("read", {}, "no means"),
    ("start", {"groups": 2, "per_group": 16}, "2 groups of 16"),
    ("button", {"down": False}, "no pressed"),
])
def test_a_reply_of_the_wrong_shape_is_one_line(step, reply, says):
    link = TableLink(**{step: reply})
    with pytest.raises(UsageError) as refused:
        check_command.run(link, SPEC, CIRCUIT, check_command.Maker(), die=True, leds=False, button=True)
    message = str(refused.value)
    assert "does not understand" in message and says in message and "\n" not in message
    assert link.ended  # the board is handed back to its game


FIGURES = {"die_to_light": {k: {"from_seen": {"n": 1, "most": 1000, "least": 900},
                                "from_settle": {"n": 1, "most": 800, "least": 700}} for k in ("play", "win")},
           "scan_period": {"rest": {"n": 100, "mean": 10000}, "landing": {"n": 10, "mean": 12000}},
           "heap": {"free_after_boot": 60000, "free": 50000, "live": 40000},
           "collection": {"n": 3, "most": 4000, "live": 40000},
           "network": {"wifi": False, "broker": False, "tls": False}, "cpu_hz": 240000000}


def test_the_bench_prints_the_boards_words_escaped():
    out = io.StringIO()
    bench_command.report({"board": "\x1b]0;PWNED\x07\x1b[2J", "firmware": ESCAPES}, "/dev/x", FIGURES, {},
                         work={"us": 1000, "hz": 240000000, "machine": ESCAPES, "loops": 10}, out=out)
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text and "PWNED" in text


@pytest.mark.parametrize("figures, says", [
    ({k: v for k, v in FIGURES.items() if k != "heap"}, "heap"),
    (dict(FIGURES, die_to_light={"play": {}}), "die_to_light"),
    (dict(FIGURES, scan_period={"rest": {"n": 1, "mean": "x"}, "landing": {"n": 1, "mean": 1}}), "scan_period"),
])
def test_bench_figures_of_the_wrong_shape_are_one_line(figures, says):
    with pytest.raises(UsageError) as refused:
        bench_command.report({"board": "b", "firmware": "f"}, "/dev/x", figures, {}, out=io.StringIO())
    assert "does not understand" in str(refused.value) and says in str(refused.value)


@pytest.mark.parametrize("line", ["Traceback (most recent call last):", '{"us": 0, "hz": 1, "machine": "x"}',
                                  '{"us": "5", "hz": 1, "machine": "x"}', '[1, 2]', '{"us": 5, "hz": 1}'])
def test_a_workload_line_of_the_wrong_shape_is_one_line(line):
    with pytest.raises(UsageError) as refused:
        bench_command.timed("/dev/x", line, 10)
    assert "does not understand" in str(refused.value)
    assert bench_command.timed("/dev/x", '{"us": 5, "hz": 1, "machine": "esp32"}', 10)["loops"] == 10


def doce(*words):
    import subprocess
    import sys

    from waiting import completed
    return completed([sys.executable, "-m", "doce_host.cli", *words], timeout=60, stdin=subprocess.DEVNULL)


@pytest.fixture
def fifo(tmp_path):
    import os
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("words, says", [
    (["check", "board", "--svg", "{dir}"], "not a regular file"),
    (["check", "board", "--svg", "{fifo}"], "not a regular file"),
    (["check", "board", "--png", "{dir}/no/x.png"], "no folder"),
    (["check", "board", "--svg", "/dev/full"], "not a regular file"),
    (["bench", "--save", "{dir}"], "not a regular file"),
    (["bench", "--pystone", "{fifo}"], "not a regular file"),
    (["bench", "--pystone", "/bin/ls"], "too big"),
    (["bench", "--pystone", "{dir}/none.py"], "no such file"),
])
def test_the_files_named_are_refused_before_the_board_is_asked_anything(tmp_path, fifo, words, says):
    """A port that is not there: had the board been reached first, the error would name it."""
    ran = doce(*[w.format(dir=tmp_path, fifo=fifo) for w in words], "--port", str(tmp_path / "no-port"))
    assert ran.returncode == 2 and says in ran.stderr and "no-port" not in ran.stderr, ran.stderr


def test_the_faults_are_printed_even_when_the_picture_cannot_be_written(tmp_path, monkeypatch, capsys):
    from argparse import Namespace

    from doce_host import board_picture

    class Opened:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    from doce_host.board_check import Fault
    fault = Fault("dead", "H7", "reads 0 V", "check its joints", where="b2, centre")
    monkeypatch.setattr(check_command, "open_link", lambda args: (Opened(), {}))
    monkeypatch.setattr(check_command, "run", lambda *a, **k: {"faults": [fault], "notes": [], "storage": {},
                                                               "network": {}})

    def full(svg, path):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(board_picture, "write_png", full)
    args = Namespace(json=False, svg=None, png=str(tmp_path / "x.png"), no_die=True, no_leds=True, no_button=True,
                     timeout=1.0)
    with pytest.raises(UsageError) as refused:
        check_command.cmd_check_board(args)
    assert "No space left" in str(refused.value)
    assert fault.line() in capsys.readouterr().out


@pytest.mark.parametrize("platform, says", [("linux", "the simulator"), ("esp32", "Chip figures measured on")])
def test_the_bench_says_whether_its_figures_are_the_chips(platform, says):
    out = io.StringIO()
    bench_command.report({"board": "b", "firmware": "f"}, "/dev/x", dict(FIGURES, platform=platform), {}, out=out)
    assert says in out.getvalue()
    assert ("simulator" in out.getvalue()) == (platform == "linux")


def test_dice_on_the_board_with_no_one_at_the_terminal_is_said_plainly():
    """--no-die --no-leds --no-button < /dev/null with dice on the board: the flags are given already,
    so the line says what to do (take the dice off), not to give them."""
    def no_one():
        raise EOFError
    maker = check_command.TerminalMaker(out=io.StringIO(), ask=no_one)
    with pytest.raises(UsageError) as refused:
        maker.clear_board(["a1", "c3"])
    said = str(refused.value)
    assert "a1, c3" in said and "take" in said and "--no-" not in said
