"""Two clubs, two brokers (issue 41, 4): each club runs its own Mosquitto, secured by `doce fleet
secure`; club A's bridges to club B's (`--bridge`, `--club`), and a board of each plays a remote match
across the bridge. The bridge restarted mid-match (club A's Mosquitto stopped and started again, its
board and the bridge reconnecting), a move played meanwhile on the far side, loses nothing. Real
Mosquitto processes, simulated boards."""

import json
import os
import threading

import paho.mqtt.client as mqtt
import pytest
from fleet_helpers import Line, join, link, mosquitto_or_skip
from remote_helpers import Pair, retained
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
    """Club A (b1, and b3 that never runs) bridges to club B (b2, and b4 that never runs) through `line`."""
    mosquitto_or_skip()
    port_a, port_b = free_port(), free_port()
    line = Line(port_b)
    room_b = secure(tmp_path / "B", "--boards", "b2,b4", "--club", "clubA=b1,b3", "--mqtt-port", str(port_b))
    room_a = secure(tmp_path / "A", "--boards", "b1,b3", "--club", "clubB=b2,b4", "--mqtt-port", str(port_a),
                    "--bridge", "mqtt://127.0.0.1:%d" % line.port, "--bridge-user", "clubA", "--password-stdin",
                    stdin=room_b["clubA"], monkeypatch=monkeypatch)
    try:
        with broker_of(tmp_path / "B", port_b) as b, broker_of(tmp_path / "A", port_a) as a:
            yield {"A": a, "B": b, "line": line, "tmp": tmp_path,
                   "credentials": {"b1": room_a["b1"], "b2": room_b["b2"], "clubA": room_b["clubA"],
                                   "organiserA": room_a["organiser"], "organiserB": room_b["organiser"]}}
    finally:
        line.close()


def test_fleet_secure_writes_the_bridge_and_the_clubs_access(clubs):
    conf = (clubs["tmp"] / "A" / "mosquitto.conf").read_text()
    assert "connection doce-clubA" in conf and "remote_username clubA" in conf
    assert "topic doce/b2/remote/b1 both 1" in conf and "topic doce/b1/remote/b2 both 1" in conf
    assert "topic doce/b2/status in 1" in conf and "topic doce/b1/status out 1" in conf
    assert oct((clubs["tmp"] / "A" / "mosquitto.conf").stat().st_mode & 0o777) == "0o600"  # its password
    access = json.loads((clubs["tmp"] / "B" / "dynamic-security.json").read_text())
    assert {c["username"] for c in access["clients"]} == {"organiser", "b2", "b4", "clubA"}


def test_a_clubs_bridge_credentials_carry_its_boards_matches_and_nothing_else(clubs):
    """Club A's user on B's broker may write its boards' remote messages to B's boards and its boards'
    status; a command to a board of B's, or a message to a made-up board, is dropped. Club A's broker is
    stopped first: its bridge logs in to B as clubA with that client id, and whichever of the two comes
    second closes the other's connection (Mosquitto: "Client clubA already connected, closing old
    connection"), so a bridge that came up late dropped this client mid-test."""
    clubs["A"].stop()
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
    until(club.is_connected, WAIT_S, what="club A's login on B's broker")
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


def pass_board_time(pair, seconds):
    """`seconds` of each board's time go by, a second at a time, each board scanning after each (its
    MQTT session answers the broker meanwhile: a jump past its keepalive would drop it)."""
    for _ in range(seconds):
        for sim in (pair.a, pair.b):
            sim.run(20, skip_ms=1000)


def pumped_until(pair, condition, what):
    """condition() once true, the boards scanning and the brokers' bridge (real time) working meanwhile."""
    def check():
        pair.pump(50)
        return condition()
    return until(check, WAIT_S, every=0.01, what=what)


def test_a_line_down_between_the_clubs_shows_each_friend_not_connected(clubs):
    """The line between the two clubs' brokers cut, both brokers up: nothing of the friend's board comes,
    so each board shows it not connected within LOST_MS of its time (doce/remote.py: the friend's beat),
    though the status the bridge brought last still says online; the line mended, both are connected again
    and a move played meanwhile arrives."""
    pair = Clubs(clubs["tmp"] / "boards", {"b1": clubs["A"], "b2": clubs["B"]}, clubs["credentials"])
    try:
        pair.pair()
        pair.play(pair.a, *MOVES[0])
        clubs["line"].cut()
        pair.b.place(*MOVES[1])  # played meanwhile: it waits on club B's broker
        pass_board_time(pair, 40)
        for sim in (pair.a, pair.b):
            assert pair.remote(sim)["connected"] is False
        clubs["line"].mend()
        pumped_until(pair, lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"],
                     "both boards connected again once the line is mended")
        assert pair.shown(pair.a) == {"cell": "a1", "value": 2}
        pair.a.place(*MOVES[1])
        pair.play(pair.a, *MOVES[2])
        assert pair.until(pair.boards_agree)
    finally:
        pair.close()


def kept(broker, password, topics):
    """Which of `topics` `broker` keeps a message on, retained."""
    return set(retained(broker, password)) & set(topics)


def test_what_two_boards_left_for_each_other_goes_even_when_both_moved_on_while_the_line_was_down(clubs):
    """b1 and b2 each keep a message for the other on both clubs' brokers. The line cut, each board
    begins a match with another friend (b1 with b3, b2 with b4): its end goes to the old friend on its own
    club's broker only. The line mended, the bridge brings each club the other's copies again; neither
    board reads the old friend's topic for its match, yet neither leaves them there for good (each clears
    what is in its own inbox from a board it does not play), and neither acts on them."""
    pair = Clubs(clubs["tmp"] / "boards", {"b1": clubs["A"], "b2": clubs["B"]}, clubs["credentials"])
    topics = ["doce/b1/remote/b2", "doce/b2/remote/b1"]
    try:
        pair.pair()
        pair.play(pair.a, *MOVES[0])
        assert kept(clubs["A"], clubs["credentials"]["organiserA"], topics) == set(topics)
        clubs["line"].cut()
        checksum = link(pair.a, cmd="hello")["rules_checksum"]
        for sim, friend in ((pair.a, "b3"), (pair.b, "b4")):
            reply = link(sim, cmd="remote", peer=friend, colour="white", first="white", match=os.urandom(4).hex(),
                         rules_checksum=checksum, force=True)
            assert reply["ok"], reply
        pair.pump(200)
        for sim in (pair.a, pair.b):
            sim.take_events()
        clubs["line"].mend()
        for broker, organiser in (("A", "organiserA"), ("B", "organiserB")):
            pumped_until(pair, lambda: not kept(clubs[broker], clubs["credentials"][organiser], topics),
                         "club %s's broker rid of the old match's messages" % broker)
        for sim, friend in ((pair.a, "b3"), (pair.b, "b4")):
            assert pair.remote(sim)["peer"] == friend and pair.remote(sim)["move"] is None
            assert not [e for e in sim.take_events() if e["event"] in ("warning", "remote_refused", "remote_mismatch")]
    finally:
        pair.close()
