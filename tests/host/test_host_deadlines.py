"""Issue 42: the host's waits for a board (a serial link, a room's broker) are seconds of a core's
time (doce_host.core_time), not wall seconds, so a simulated board on a busy computer is not
called silent while it waits for a core; on an idle computer they are the wall clock, as a real
board's timeouts read."""

import json
import threading
import time

import pytest
from devices import FakeDevice

from doce_host import core_time, rules
from doce_host.fleet.room import Room
from doce_host.link import PROTOCOL, BoardLink, LinkError

DELAY_S = 0.6  # wall seconds the slow board takes to answer
TIMEOUT_S = 0.2
STANDARD = rules.load_tables("standard")
EVENT = {"event": "warning", "seq": 1, "message": "sent after the reply"}


class SlowBoard(FakeDevice):
    """Answers hello after DELAY_S of wall time, and then sends a warning."""

    def __init__(self):
        super().__init__(self.reply)

    def reply(self, line):
        request = json.loads(line)
        time.sleep(DELAY_S)
        hello = {"re": request["cmd"], "id": request["id"], "ok": True, "protocol": PROTOCOL,
                 "firmware": "1.0", "board": "doce", "rules": "standard", "rules_checksum": "%08x" % STANDARD.checksum}
        return (json.dumps(hello) + "\n" + json.dumps(EVENT) + "\n").encode()


@pytest.fixture
def slow():
    board = SlowBoard()
    yield board
    board.close()


def busy(monkeypatch, share):
    """The computer as busy as gives one task `share` of a core."""
    monkeypatch.setattr(core_time, "runnable", lambda: max(1, round(core_time.CORES / share)))


def test_a_board_waiting_for_a_core_on_a_busy_computer_still_answers_in_time(monkeypatch, slow):
    busy(monkeypatch, 0.1)  # 0.6 s of wall time is 0.06 s of a core's
    with BoardLink(slow.path, timeout=TIMEOUT_S) as link:
        assert link.request("hello")["ok"] is True
        assert link.next_event(TIMEOUT_S) == EVENT


def test_on_an_idle_computer_the_same_wait_is_the_wall_clock_and_times_out(monkeypatch, slow):
    busy(monkeypatch, 1.0)
    with BoardLink(slow.path, timeout=TIMEOUT_S) as link:
        began = time.monotonic()
        with pytest.raises(LinkError, match="timeout: no answer to 'hello'"):
            link.request("hello")
        assert time.monotonic() - began < DELAY_S


def test_wait_for_counts_the_same_clock(monkeypatch, slow):
    busy(monkeypatch, 0.1)
    with BoardLink(slow.path, timeout=TIMEOUT_S) as link:
        link.send_line(b'{"cmd":"hello","id":1}')
        event, seen = link.wait_for("warning")
        assert event == EVENT and seen == [event]


def test_a_room_waits_for_a_board_s_reply_in_a_core_s_time(monkeypatch):
    """Room.command, as `doce fleet` waits for a board on this computer's broker."""
    room = Room("mqtt://127.0.0.1:1")  # never connected: the reply comes as if from the broker

    def publish(topic, payload, qos=0):
        request_id = json.loads(payload)["id"]
        threading.Timer(DELAY_S, answer, (request_id,)).start()

    def answer(request_id):
        with room.lock:
            if request_id in room.asked:  # else the room stopped waiting for it
                room.asked[request_id][1] = {"ok": True}
    monkeypatch.setattr(room.client, "publish", publish)
    busy(monkeypatch, 0.1)
    assert room.command("020000000001", "state", timeout=TIMEOUT_S) == {"ok": True}
    busy(monkeypatch, 1.0)
    assert room.command("020000000001", "state", timeout=TIMEOUT_S) is None


def test_a_system_without_a_load_figure_waits_the_wall_clock(monkeypatch):
    monkeypatch.delattr(core_time.os, "getloadavg")  # as on Windows
    assert core_time.stretched(5) == 5
