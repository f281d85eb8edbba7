"""Two clubs, two brokers (issue 41, 4): each club runs its own Mosquitto, secured by `doce fleet
secure`; club A's bridges to club B's (`--bridge`, `--club`), and a board of each plays a remote match
across the bridge. The bridge restarted mid-match (club A's Mosquitto stopped and started again, its
board and the bridge reconnecting), a move played meanwhile on the far side, loses nothing. Real
Mosquitto processes, simulated boards."""

import json
import threading

import paho.mqtt.client as mqtt
import pytest
from fleet_helpers import join, link, mosquitto_or_skip
from remote_helpers import Pair
from waiting import stretched, until

from doce_host.cli import main
from doce_host.fleet.broker import Mosquitto, free_port

WAIT_S = 60
MOVES = [("c3", "white 4"), ("a1", "black 2"), ("e5", "white 1"), ("b4", "black 6"), ("d1", "white 3"),
         ("e2", "black 5")]


def secure(folder, *args, stdin=None, monkeypatch=None):
    if stdin is not None:
        import io
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin + "\n"))
    assert main(["fleet", "secure", str(folder), *args]) == 0
    return json.loads((folder / "credentials.json").read_text())


def broker_of(folder, port):
    """The Mosquitto doce fleet secure configured in `folder` (its listener on `port`)."""
    return Mosquitto(port=port, folder=folder / "run", listeners=False,
                     extra=(folder / "mosquitto.conf").read_text().splitlines())


class Clubs(Pair):
    """b1 at club A, on A's broker; b2 at club B, on B's: each with its own room's credentials."""

    def __init__(self, folder, brokers, credentials):
        self.brokers = brokers
        super().__init__(folder, brokers["b1"], credentials=credentials)

    def join(self, sim, ident):
        join(sim, self.brokers[ident], board_id=ident)
        assert link(sim, cmd="mqtt", user=ident, mqtt_password=self.credentials[ident])["ok"]


@pytest.fixture
def clubs(tmp_path, monkeypatch):
    mosquitto_or_skip()
    port_a, port_b = free_port(), free_port()
    room_b = secure(tmp_path / "B", "--boards", "b2", "--club", "clubA=b1", "--mqtt-port", str(port_b))
    room_a = secure(tmp_path / "A", "--boards", "b1", "--club", "clubB=b2", "--mqtt-port", str(port_a),
                    "--bridge", "mqtt://127.0.0.1:%d" % port_b, "--bridge-user", "clubA", "--password-stdin",
                    stdin=room_b["clubA"], monkeypatch=monkeypatch)
    with broker_of(tmp_path / "B", port_b) as b, broker_of(tmp_path / "A", port_a) as a:
        yield {"A": a, "B": b, "credentials": {"b1": room_a["b1"], "b2": room_b["b2"], "clubA": room_b["clubA"],
                                               "organiserB": room_b["organiser"]}, "tmp": tmp_path}


def test_fleet_secure_writes_the_bridge_and_the_clubs_access(clubs):
    conf = (clubs["tmp"] / "A" / "mosquitto.conf").read_text()
    assert "connection doce-clubA" in conf and "remote_username clubA" in conf
    assert "topic doce/b2/remote/b1 both 1" in conf and "topic doce/b1/remote/b2 both 1" in conf
    assert "topic doce/b2/status in 1" in conf and "topic doce/b1/status out 1" in conf
    assert oct((clubs["tmp"] / "A" / "mosquitto.conf").stat().st_mode & 0o777) == "0o600"  # its password
    access = json.loads((clubs["tmp"] / "B" / "dynamic-security.json").read_text())
    assert {c["username"] for c in access["clients"]} == {"organiser", "b2", "clubA"}


def test_a_clubs_bridge_credentials_carry_its_boards_matches_and_nothing_else(clubs):
    """Club A's user on B's broker may write its boards' remote messages to B's boards and its boards'
    status; a command to a board of B's, or a message to a made-up board, is dropped."""
    b = clubs["B"]
    seen, ready = [], threading.Event()
    organiser = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    organiser.username_pw_set("organiser", clubs["credentials"]["organiserB"])
    organiser.on_message = lambda c, u, m: seen.append(m.topic)
    organiser.on_subscribe = lambda *args: ready.set()
    organiser.connect(b.host, b.port)
    organiser.loop_start()
    organiser.subscribe("doce/#", 1)
    until(ready.is_set, WAIT_S, what="the MQTT client's connection")
    club = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="clubA")
    club.username_pw_set("clubA", clubs["credentials"]["clubA"])
    club.connect(b.host, b.port)
    club.loop_start()
    try:
        for topic in ("doce/b2/cmd", "doce/nosuch/remote/b1", "doce/b2/remote/nosuch", "doce/b2/status",
                      "doce/b2/remote/b1", "doce/b1/status"):
            club.publish(topic, b"{}", qos=1).wait_for_publish(stretched(WAIT_S))
        organiser.publish("doce/end", b".", qos=1)
        deadline = threading.Event()
        for _ in range(WAIT_S * 10):
            if "doce/end" in seen:
                break
            deadline.wait(0.1)
    finally:
        for c in (club, organiser):
            c.loop_stop()
            c.disconnect()
    assert [t for t in seen if t != "doce/end"] == ["doce/b2/remote/b1", "doce/b1/status"]


@pytest.mark.parametrize("restarted", ["A", "B"], ids=["the bridging broker", "the far broker"])
def test_a_remote_match_across_two_clubs_brokers_survives_a_bridge_restart(clubs, restarted):
    """A: club A's Mosquitto, which runs the bridge, stopped and started again (b1 on it); B: club B's
    (b2 on it). Either way the bridge is down meanwhile, and b1's move waits for it."""
    pair = Clubs(clubs["tmp"] / "boards", {"b1": clubs["A"], "b2": clubs["B"]}, clubs["credentials"])
    try:
        pair.pair()  # each board's status reaches the other through the bridge: both connected
        for cell, piece in MOVES[:2]:
            pair.play(pair.a if piece.startswith("white") else pair.b, cell, piece)
        clubs[restarted].stop()  # the bridge goes down with it, and its board is off the broker
        cell, piece = MOVES[2]
        pair.a.place(cell, piece)  # played meanwhile: it waits
        pair.pump(300)
        assert pair.remote(pair.b)["move"] is None
        clubs[restarted].start()  # its board and the bridge connect again, each on its own
        assert pair.shown(pair.b) == {"cell": cell, "value": int(piece.split()[1])}
        pair.b.place(cell, piece)
        for cell, piece in MOVES[3:]:
            pair.play(pair.a if piece.startswith("white") else pair.b, cell, piece)
        assert pair.until(pair.boards_agree)
        for sim in (pair.a, pair.b):
            assert sim.state()["board"] == dict(MOVES)  # every move once, on both
            assert pair.remote(sim)["plays"] == len(MOVES) and pair.remote(sim)["mismatch"] is None
    finally:
        pair.close()
