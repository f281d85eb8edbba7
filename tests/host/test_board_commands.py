"""doce status / monitor / rules push, pull, diff against the serial simulator, and the
host's clear errors for every way a port can be wrong."""

import json
import subprocess
import sys

import pytest
from devices import FakeDevice
from waiting import Lines, booted, completed, ended, has_open, stretched, until

from doce_host.link import PROTOCOL, BoardLink, LinkError
from doce_host.sim.serial_sim import SerialSim


def doce(*args, timeout=60):
    run = completed([sys.executable, "-m", "doce_host.cli", *args], timeout=timeout)
    assert "Traceback" not in run.stderr, run.stderr
    return run


@pytest.fixture(scope="module")
def serial_sim(tmp_path_factory):
    with SerialSim(tmp_path_factory.mktemp("serial_sim")) as serial_sim:
        booted(serial_sim)
        with BoardLink(serial_sim.path) as link:
            serial_sim.place("c3", "white 4")
            link.wait_for("placed", timeout=stretched(10))
        yield serial_sim


def test_status(serial_sim):
    run = doce("status", "--port", serial_sim.path)
    assert run.returncode == 0 and "rules standard" in run.stdout and "W4*" in run.stdout
    assert "Who plays: two players" in run.stdout
    data = json.loads(doce("status", "--port", serial_sim.path, "--json").stdout)
    assert data["hello"]["protocol"] == PROTOCOL and data["state"]["board"] == {"c3": "white 4"}


def test_rules_pull_diff_and_a_refused_push(serial_sim, tmp_path):
    out = tmp_path / "board.doct"
    assert doce("rules", "pull", "--port", serial_sim.path, "-o", str(out)).returncode == 0
    assert out.stat().st_size == 747
    assert "exactly these rules" in doce("rules", "diff", "standard", "--port", serial_sim.path).stdout
    diff = json.loads(doce("rules", "diff", "six-by-six", "--port", serial_sim.path, "--json").stdout)
    assert diff["differences"]["grid"] == {"board": 5, "file": 6}
    run = doce("rules", "push", "four-by-four", "--port", serial_sim.path)
    assert run.returncode == 2 and "the board kept its rules: rules for a 4x4 grid" in run.stderr
    run = doce("rules", "push", "standard", "--port", serial_sim.path)  # a match is in play
    assert run.returncode == 2 and "a match is in play" in run.stderr


def test_monitor_shows_events_as_they_happen(serial_sim):
    monitor = subprocess.Popen([sys.executable, "-m", "doce_host.cli", "monitor", "--port", serial_sim.path, "--json"],
                               stdout=subprocess.PIPE, text=True)
    try:
        until(lambda: has_open(monitor.pid, serial_sim.path), what="the monitor opening the port")
        serial_sim.place("a1", "black 2")
        lines, seen = Lines(monitor.stdout), []
        while not seen or seen[-1].get("cell") != "a1":  # earlier events may still be in the line
            seen.append(json.loads(lines.next(timeout=10)))
            assert len(seen) < 20, seen
        assert seen[-1]["event"] == "placed"
    finally:
        monitor.terminate()
        ended(monitor, 10)


def test_no_such_port_and_a_busy_port(serial_sim):
    run = doce("status", "--port", "/dev/no-such-board")
    assert run.returncode == 2 and "no such port" in run.stderr
    import serial
    with serial.Serial(serial_sim.path, exclusive=True):
        run = doce("status", "--port", serial_sim.path)
    assert run.returncode == 2 and "port busy" in run.stderr


def test_not_a_doce_board():
    repl = FakeDevice(lambda line: b">>> " + line + b"\r\nSyntaxError: invalid syntax\r\n>>> ")
    with pytest.raises(LinkError, match="not a DOCE board"):
        BoardLink(repl.path, timeout=2).hello()


@pytest.mark.board_may_lie  # a board of another protocol version
def test_a_protocol_mismatch_names_what_to_update():
    def newer(line):
        request = json.loads(line)
        return json.dumps({"re": "hello", "id": request["id"], "ok": True, "protocol": PROTOCOL + 1}).encode() + b"\n"
    with pytest.raises(LinkError, match="speaks protocol %d, this doce speaks %d: update the host tools"
                       % (PROTOCOL + 1, PROTOCOL)):
        BoardLink(FakeDevice(newer).path).hello()


def test_a_timeout_names_the_request():
    silent = FakeDevice(lambda line: None)
    with pytest.raises(LinkError, match="timeout: no answer to 'state' within 1 s"):
        BoardLink(silent.path, timeout=1).request("state")


def test_monitor_says_the_friends_board_is_connected_once_not_after_each_of_its_moves(monkeypatch, capsys):
    """Review of issue 41, finding 6: `doce monitor` printed "your friend's board (black) is connected"
    after every move of the friend's put down (a `remote` event each time the move to put down
    changes); the page's log said it once. Both say it when the connection changes."""
    from doce_host import board_commands, view

    class Stop(Exception):
        pass
    connected = {"event": "remote", "colour": "black", "peer": "ben", "connected": True, "move": None}
    events = [dict(connected, seq=1), dict(connected, seq=2, move={"cell": "c3", "value": 4}),
              dict(connected, seq=3), dict(connected, seq=4, move={"cell": "a1", "value": 2}),
              dict(connected, seq=5), dict(connected, seq=6, connected=False), dict(connected, seq=7)]

    class Link:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

        def state(self):
            return {}

        def next_event(self, timeout):
            if not events:
                raise Stop
            return events.pop(0)
    monkeypatch.setattr(board_commands, "open_link", lambda args: (Link(), {"board": "ana"}))
    monkeypatch.setattr(view, "draw", lambda state: "BOARD")
    monkeypatch.setattr(view, "summary", lambda state: "SUMMARY")
    args = type("Args", (), {"json": False, "port": "P"})()
    with pytest.raises(Stop):
        board_commands.cmd_monitor(args)
    said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("your friend")]
    assert said == ["your friend's board (black) is connected",
                    "your friend plays black 4 on c3: put it down for them",
                    "your friend plays black 2 on a1: put it down for them",
                    "your friend's board (black) is not connected",
                    "your friend's board (black) is connected"]
