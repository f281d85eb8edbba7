"""Helpers for the fleet tests (a module of its own: every test folder has a conftest)."""

import contextlib
import json
import os
import socket
import threading
import time

import pytest

from waiting import Deadline, HARD_CAP_S

from doce_host import update
from doce_host.fleet.broker import Mosquitto, free_port, mosquitto_binary
from doce_host.fleet.room import Room
from doce_host.sim import SimBoard

# How long a condition on a lockstep simulated board may take, in the work it needs: its scans (a
# millisecond of its simulated time each). 30 s of it covers a reconnect (doce/mqtt.py RETRY_MS,
# 2 s) many times over; a core's time only caps it (HARD_CAP_S), so overloaded cores slow a test but
# do not fail it.
WAIT_SCANS = 30000
# A step of a board left at rest, in ms of its time: one scan after REST_MS - 1 in which nothing happens
# (SimBoard.run skip_ms). A board at rest scans every 2 ms (board.json idle_scan_period_ms) and a collection
# at rest holds a scan 5-15 ms (doce/esp32.py loop, make bench), so a scan in 10 ms is one a board can have.
# For waits whose point is the boards' time passing (doce/remote.py LOST_MS, 25 s; doce/offline.py RETRY_MS,
# 30 s): what they do then hangs on their ticks, not on how many scans there are, and what comes meanwhile
# is a beat every BEAT_MS, read 256 bytes a scan.
# A tenth of the scans (each ~0.13 ms of a core: 2026-12 probe, two paired boards, 10,000 scans each).
REST_MS = 10


def mosquitto_or_skip():
    if not mosquitto_binary():
        if os.environ.get("CI"):  # .ci/run installs it: there, its absence is a failure
            pytest.fail("mosquitto is not installed, and CI must have it (.ci/run)")
        pytest.skip("mosquitto is not installed (Debian package mosquitto; .ci/run installs it)")


@contextlib.contextmanager
def secured_broker(folder, boards):
    """Mosquitto on the very config `doce fleet secure` wrote for `boards` (a comma list): the broker,
    the credentials and the config's lines."""
    from doce_host.cli import main
    mosquitto_or_skip()
    port = free_port()
    assert main(["fleet", "secure", str(folder / "room"), "--boards", boards, "--mqtt-port", str(port)]) == 0
    credentials = json.loads((folder / "room" / "credentials.json").read_text())
    conf = (folder / "room" / "mosquitto.conf").read_text().splitlines()
    with Mosquitto(port=port, folder=folder / "broker", extra=conf, listeners=False) as broker:
        yield broker, credentials, conf


def link(sim, **request):
    """A request over the simulated USB port: its one reply."""
    replies = sim.command(do="send", line=json.dumps(request) + "\n").get("link", [])
    assert len(replies) == 1, replies
    return replies[0]


def join(sim, broker, board_id="b1", **mqtt):
    """Set the board's Wi-Fi and broker over USB, as `doce config` does."""
    assert link(sim, cmd="wifi", ssid="club", password="s3cret-wifi")["ok"]
    reply = link(sim, cmd="mqtt", broker=broker.host, port=broker.port, board_id=board_id, **mqtt)
    assert reply["ok"], reply
    return reply


def until_scanned(condition, sim, scans=WAIT_SCANS, step=2):
    """Let the board scan `step` at a time until condition() holds, for at most `scans` scans of
    its time (HARD_CAP_S of a core's time at most). condition()'s last value."""
    done, cap = 0, Deadline(HARD_CAP_S)
    while True:
        got = condition()
        if got or done >= scans or cap.passed():
            return got
        sim.run(step)
        done += step


def rest(sim, ms):
    """`sim` alone left at rest for `ms` of its time, a scan every REST_MS."""
    for _ in range(ms // REST_MS):
        sim.run(1, skip_ms=REST_MS - 1)


def room_command(room, sim, ident, cmd, scans=WAIT_SCANS, **args):
    """Command `cmd` sent to board `ident` over the broker (Room.send): its reply, waited for in the
    board's scans (until_scanned), not in Room.command's wall seconds; None if none came."""
    request_id = room.send(ident, cmd, **args)
    reply = until_scanned(lambda: room.reply(request_id), sim, scans)
    if reply is None:
        room.reply(request_id, forget=True)
    return reply


@contextlib.contextmanager
def room_of(tmp_path, broker, ids):
    """Boards `ids` on the broker, each with its update key (update-keys.json), and the organiser's Room."""
    (tmp_path / "room").mkdir()
    keys = update.write_keys(tmp_path / "room", ids)
    with contextlib.ExitStack() as stack:
        sims = {}
        for ident in ids:
            sim = stack.enter_context(SimBoard(tmp_path / ident, module="wrover"))
            assert link(sim, cmd="update_key", board=ident, key=keys[ident])["ok"]
            join(sim, broker, board_id=ident)
            sims[ident] = sim
        room = stack.enter_context(Room("mqtt://%s:%d" % (broker.host, broker.port)))
        for ident, sim in sims.items():
            assert until_scanned(lambda: ident in room.boards and room.boards[ident].online, sim, step=20)
        yield room, sims, keys


class Line:
    """A TCP line on loopback to `port`: each new connection held `delay_s` before it is joined to the far
    end (a broker on a busy computer slow to take a client); cut (every connection through it closed, new
    ones refused, as a line down is to Mosquitto's bridge) and mended."""

    def __init__(self, port, delay_s=0):
        self.target, self.delay_s = port, delay_s
        self.down = False
        self.conns = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                near, _ = self.server.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._join, args=(near,), daemon=True).start()

    def _join(self, near):
        time.sleep(self.delay_s)
        try:
            far = None if self.down else socket.create_connection(("127.0.0.1", self.target))
        except OSError:
            far = None
        if far is None:
            near.close()
            return
        self.conns.extend([near, far])
        for a, b in ((near, far), (far, near)):
            threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for end in (a, b):
            try:
                end.close()
            except OSError:
                pass

    def cut(self):
        self.down = True
        conns, self.conns = self.conns, []
        for end in conns:
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def mend(self):
        self.down = False

    def close(self):
        self.cut()
        self.server.close()
