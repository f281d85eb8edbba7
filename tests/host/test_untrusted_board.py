"""Issue 14, items 11, 13 and 16: what a board sends is untrusted. A device answering with
missing or odd fields gets one clear line from status, monitor, web and snapshot (not a
KeyError); a board's names never choose where a file goes, nor reach the terminal as
escape codes; a --timeout that is no time is refused on its own."""

import binascii
import json
import os
import sys

import pytest
from devices import FakeDevice
from waiting import completed

from doce.game import WHITE, Game
from doce_host import cli, dice_check, rules
from doce_host.link import PROTOCOL
from doce_host.recorded import board_state

STANDARD = rules.load_tables("standard")


def good_state():
    return board_state(Game(STANDARD, WHITE))


def good_hello(**changes):
    hello = {"protocol": PROTOCOL, "firmware": "1.0", "board": "doce", "rules": "standard",
             "rules_checksum": "%08x" % STANDARD.checksum}
    hello.update(changes)
    return hello


class FakeBoard(FakeDevice):
    """A device that answers hello, state and rules_get with what it is given, and sends
    `events` once asked for its state."""

    def __init__(self, hello=None, state=None, tables=None, events=()):
        self.replies = {"hello": good_hello() if hello is None else hello,
                        "state": {"state": good_state() if state is None else state, "seq": 0},
                        "rules_get": {"tables": binascii.b2a_base64(tables or STANDARD.blob).decode().strip()}}
        self.events = list(events)
        super().__init__(self.reply)

    def reply(self, line):
        try:
            request = json.loads(line)
        except ValueError:
            return None
        cmd = request.get("cmd")
        out = dict(self.replies.get(cmd, {}), re=cmd, id=request.get("id"), ok=True)
        sent = (json.dumps(out) + "\n").encode()
        if cmd == "state":
            sent += b"".join((json.dumps(e) + "\n").encode() for e in self.events)
            self.events = []
        return sent


@pytest.fixture
def board(request):
    made = []

    def make(**kw):
        made.append(FakeBoard(**kw))
        return made[-1]
    yield make
    for device in made:
        device.close()


def refused(capsys, *argv):
    """doce in this process: exit 2 and one line on stderr (a KeyError fails the test).
    Commands that run until stopped (monitor, web) run as a process with a deadline."""
    if argv[0] in ("monitor", "web"):
        run = completed([sys.executable, "-m", "doce_host.cli", *argv], timeout=60)
        code, err = run.returncode, run.stderr
    else:
        code, err = cli.main(list(argv)), capsys.readouterr().err
    assert code == 2 and err.startswith("doce: ") and err.count("\n") == 1, err
    return err


def without(thing, key):
    return {k: v for k, v in thing.items() if k != key}


ODD_STATES = {
    "no mode": without(good_state(), "mode"),
    "no last": without(good_state(), "last"),
    "odd mode": dict(good_state(), mode="dancing"),
    "board a list": dict(good_state(), board=["c3"]),
    "totals text": dict(good_state(), totals={"white": "9", "black": 0}),
    "a piece off the grid": dict(good_state(), board={"z99": "white 4"}),
}


@pytest.mark.board_may_lie
@pytest.mark.parametrize("hello", [without(good_hello(), "board"), without(good_hello(), "rules"),
                                   good_hello(firmware=7), good_hello(rules_checksum=None)])
@pytest.mark.parametrize("command", ["status", "monitor", "web"])
def test_a_hello_with_missing_or_odd_fields_is_one_line(board, capsys, hello, command):
    device = board(hello=hello)
    argv = [command, "--port", device.path, "--timeout", "2"] + (["--http", "0"] if command == "web" else [])
    assert "does not fit the protocol" in refused(capsys, *argv)


@pytest.mark.board_may_lie
@pytest.mark.parametrize("state", ODD_STATES.values(), ids=ODD_STATES.keys())
@pytest.mark.parametrize("command", [["status"], ["monitor"], ["snapshot", "--svg", "out.svg"]])
def test_a_state_with_missing_or_odd_fields_is_one_line(board, capsys, tmp_path, monkeypatch, state, command):
    monkeypatch.chdir(tmp_path)
    device = board(state=state)
    assert "does not fit the protocol" in refused(capsys, *command, "--port", device.path, "--timeout", "2")
    assert not (tmp_path / "out.svg").exists()


@pytest.mark.board_may_lie
@pytest.mark.parametrize("event", [{"event": "placed", "seq": 5, "player": "white"},
                                   {"event": "round_end", "seq": 5}, {"seq": 5, "event": 7},
                                   {"event": "warning", "seq": "five", "message": "x"}])
def test_monitor_says_an_odd_event_in_one_line(board, capsys, event):
    device = board(events=[event])
    assert "an event that does not fit the protocol" in refused(capsys, "monitor", "--port", device.path,
                                                                "--timeout", "2")


def tables_named(name):
    r = rules.load("standard")
    r["name"] = name
    return rules.compile_tables(r)


@pytest.mark.parametrize("name", ["../escaped", "/tmp/escaped-abs", "sub/dir", "..", "a\x1b[2Jb", "tab\there"])
def test_rules_pull_of_tables_with_a_bad_name_writes_nothing(board, capsys, tmp_path, monkeypatch, name):
    """A name no rules file may have (doce/tables.py LIMITS) marks tables no firmware of ours
    made: refused in one line, and no file is written, here or where the name points."""
    folder = tmp_path / "here"
    folder.mkdir()
    monkeypatch.chdir(folder)
    device = board(tables=tables_named(name))
    message = refused(capsys, "rules", "pull", "--port", device.path, "--timeout", "2")
    assert "name" in message and "\x1b" not in message and "\t" not in message
    assert os.listdir(folder) == [] and os.listdir(tmp_path) == ["here"]
    assert not os.path.exists("/tmp/escaped-abs.doct")


def test_a_boards_strings_reach_the_terminal_escaped(board, capsys):
    device = board(hello=good_hello(board="doce\x1b]0;owned\x07", rules="red\x1b[31m\u202e"))
    assert cli.main(["status", "--port", device.path, "--timeout", "2"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "doce\\x1b]0;owned\\x07" in out and "red\\x1b[31m\\u202e" in out


@pytest.mark.parametrize("value", ["nan", "0", "-5", "inf", "soon"])
@pytest.mark.parametrize("command", [["status", "--port", "/dev/null"], ["snapshot", "--port", "/dev/null",
                                                                         "--svg", "x.svg"]])
def test_a_timeout_that_is_no_time_has_its_own_message(value, command):
    run = completed([sys.executable, "-m", "doce_host.cli", *command, "--timeout", value], timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "--timeout: %r: give a number of seconds above 0" % value in run.stderr


class LyingBoard(FakeBoard):
    """A FakeBoard that answers `cmd` with `before` (bytes), then `reply` (a dict) carrying
    the request's id."""

    def __init__(self, cmd, before=b"", reply=None, **kw):
        self.lie = (cmd, before, reply)
        super().__init__(**kw)

    def reply(self, line):
        try:
            request = json.loads(line)
        except ValueError:
            return None
        cmd, before, reply = self.lie
        if request.get("cmd") != cmd:
            return super().reply(line)
        return before + (json.dumps(dict(reply, re=cmd, id=request.get("id"))).encode() + b"\n" if reply else b"")


def lying(request, cmd, before=b"", reply=None):
    device = LyingBoard(cmd, before, reply)
    request.addfinalizer(device.close)
    return device


@pytest.mark.board_may_lie
def test_a_line_nested_past_any_parser_is_skipped_and_the_hello_after_it_read(request, capsys):
    device = lying(request, "hello", b"[" * 100000 + b"\n", dict(good_hello(), ok=True))
    assert cli.main(["status", "--port", device.path, "--timeout", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hello"]["rules"] == "standard"


@pytest.mark.board_may_lie
def test_a_hello_whose_protocol_is_no_number_is_not_a_doce_board(request, capsys):
    device = lying(request, "hello", reply=dict(good_hello(protocol="x"), ok=True))
    assert "not a DOCE board" in refused(capsys, "status", "--port", device.path, "--timeout", "2")


@pytest.mark.board_may_lie
def test_a_boards_refusal_reaches_the_terminal_with_its_escape_codes_escaped(request, capsys):
    device = lying(request, "state", reply={"ok": False, "error": "failed", "message": "\x1b]0;PWNED\x07\x1b[2J"})
    message = refused(capsys, "status", "--port", device.path, "--timeout", "2")
    assert "PWNED" in message and "\x1b" not in message and "\x07" not in message


def test_a_line_longer_than_any_boards_is_dropped_not_kept(request):
    from doce_host.link import MAX_PENDING, BoardLink
    device = lying(request, "hello", b"x" * (3 * MAX_PENDING) + b"\n", dict(good_hello(), ok=True))
    with BoardLink(device.path, timeout=3) as link:
        assert link.hello()["rules"] == "standard"
        assert len(link.pending) <= MAX_PENDING


def test_a_dice_face_that_names_no_face_is_reported_not_a_crash():
    tally = dice_check.DiceTally({"white": ["white 1"], "black": ["black 1"]})
    face = {"event": "dice_face", "face": None, "ok": False, "read": "+0-0+", "wrong": []}
    assert tally.add(face) is None and not tally.complete(None)
    assert "no piece" in dice_check.describe_face(face)
