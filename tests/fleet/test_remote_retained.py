"""A broker one board cannot fill (issue 41, 3): the room's ACL (doce fleet secure) lets a board write
remote messages only to the room's real boards, so one board's credentials keep at most one retained
message for each other board; and a match leaves nothing retained on the broker once it is over, nor
a refusal once its board has read it. Mosquitto's memory stays flat under a flood of retained
messages from a board's credentials. Real Mosquitto processes, simulated boards."""

import json
import threading

import paho.mqtt.client as mqtt
import pytest
from fleet_helpers import link, mosquitto_or_skip
from remote_helpers import Pair, clear_both, play_round, retained
from test_match import MATCH
from waiting import stretched, until

from doce_host.cli import main
from doce_host.fleet.broker import Mosquitto
from doce_host.fleet.security import config_lines
from doce_host.fleet.topics import MAX_MESSAGE

WAIT_S = 60  # a broker round trip while the boards scan: a core's time (until), stretched for paho's wall clock
BOARDS = ("b1", "b2", "b3")


@pytest.fixture
def secured(tmp_path):
    mosquitto_or_skip()
    assert main(["fleet", "secure", str(tmp_path / "room"), "--boards", ",".join(BOARDS)]) == 0
    credentials = json.loads((tmp_path / "room" / "credentials.json").read_text())
    with Mosquitto(folder=tmp_path / "broker", extra=config_lines(tmp_path / "room")) as broker:
        yield broker, credentials


def connected(broker, user, password):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user if user != "organiser" else "")
    c.username_pw_set(user, password)
    ready = threading.Event()
    c.on_connect = lambda *args: ready.set()
    c.connect(broker.host, broker.port)
    c.loop_start()
    until(ready.is_set, WAIT_S, what="the MQTT client's connection")
    return c


def test_a_board_writes_remote_messages_only_to_the_rooms_real_boards(secured):
    """Issue 41, 3: `<prefix>/+/remote/<own id>` let one board's credentials keep a retained message
    for any board id it made up: 4,000 of them, up to 16 KB each, took 46 MB of the broker."""
    broker, credentials = secured
    b1 = connected(broker, "b1", credentials["b1"])
    wait_s = stretched(WAIT_S)
    try:
        for n in range(100):
            b1.publish("doce/x%d/remote/b1" % n, b"x" * 1000, qos=1, retain=True).wait_for_publish(wait_s)
        b1.publish("doce/b1/remote/x1", b"x", qos=1, retain=True).wait_for_publish(wait_s)  # its own, from none
        b1.publish("doce/b3/remote/b2", b"x", qos=1, retain=True).wait_for_publish(wait_s)  # in another's name
        for friend in ("b2", "b3"):  # a real board's: kept, one each
            b1.publish("doce/%s/remote/b1" % friend, b"y", qos=1, retain=True).wait_for_publish(wait_s)
    finally:
        b1.loop_stop()
        b1.disconnect()
    assert retained(broker, credentials["organiser"]) == {"doce/b2/remote/b1": b"y", "doce/b3/remote/b1": b"y"}
    b2 = connected(broker, "b2", credentials["b2"])  # a board may clear what a friend left for it
    try:
        b2.publish("doce/b2/remote/b1", b"", qos=1, retain=True).wait_for_publish(stretched(WAIT_S))
    finally:
        b2.loop_stop()
        b2.disconnect()
    assert retained(broker, credentials["organiser"]) == {"doce/b3/remote/b1": b"y"}


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


FLOOD = 2000  # retained messages of MAX_MESSAGE bytes: 32 MB, as a board's credentials would send them


def flood(broker, user, password, topics):
    c = connected(broker, user, password)
    try:
        payload = b"x" * (MAX_MESSAGE - 100)
        for n in range(FLOOD):
            info = c.publish(topics(n), payload, qos=1, retain=True)
        info.wait_for_publish(stretched(WAIT_S))
    finally:
        c.loop_stop()
        c.disconnect()


def test_mosquittos_memory_stays_flat_under_a_flood_of_retained_messages(secured):
    """A board's credentials send FLOOD retained messages of 16 KB to made-up boards (the issue's
    flood) and to its real friends: Mosquitto keeps at most one a friend, and its resident memory
    grows by less than what two friends' messages and its own buffers take (a few MB), against the
    32 MB the flood would have put in it."""
    broker, credentials = secured
    before = rss_kb(broker.process.pid)
    flood(broker, "b1", credentials["b1"], lambda n: "doce/x%d/remote/b1" % n)
    flood(broker, "b1", credentials["b1"], lambda n: "doce/b%d/remote/b1" % (2 + n % 2))
    grown = rss_kb(broker.process.pid) - before
    print("Mosquitto's resident memory: %d KB before, grown by %d KB after %d + %d retained messages of %d bytes"
          % (before, grown, FLOOD, FLOOD, MAX_MESSAGE - 100))
    assert set(retained(broker, credentials["organiser"])) == {"doce/b2/remote/b1", "doce/b3/remote/b1"}
    assert grown < 4 * 1024, grown


def test_a_match_played_to_its_end_leaves_nothing_retained_on_the_broker(tmp_path, secured):
    """Each board clears what its friend left for it once it has read all of it: at the match's end,
    when both boards hold the whole match, the broker keeps no remote message of it, and none comes
    back when the boards restart. The pairing stays, the finished match's record, till a new match."""
    broker, credentials = secured
    pair = Pair(tmp_path, broker, credentials=credentials)
    try:
        pair.pair()
        for number, moves in enumerate(MATCH, 1):
            play_round(pair, moves)
            if number < len(MATCH):
                clear_both(pair)
        for sim in (pair.a, pair.b):
            state = sim.state()
            assert state["mode"] == "match_over" and len(state["scores"]) == 4
        assert pair.a.state()["scores"] == pair.b.state()["scores"]
        assert pair.until(lambda: retained(broker, credentials["organiser"]) == {})
        for sim in (pair.a, pair.b):  # and through a restart: nothing more is sent, nothing waits
            sim.power_on()
        pair.pump(2000)
        assert retained(broker, credentials["organiser"]) == {}
        for sim in (pair.a, pair.b):
            assert pair.remote(sim)["plays"] == sum(map(len, MATCH)) and pair.remote(sim)["mismatch"] is None
            assert sim.state()["mode"] == "match_over"
            assert not [e for e in sim.take_events() if e["event"] == "warning"]
    finally:
        pair.close()


def test_a_refusal_leaves_nothing_retained_once_read_and_none_for_a_board_not_in_the_room(tmp_path, secured):
    """`remote join nosuch.…` left a retained refusal on nosuch's topic that nothing cleared; a refusal
    to a real board is cleared by it once read."""
    broker, credentials = secured
    pair = Pair(tmp_path, broker, credentials=credentials)
    try:
        checksum = link(pair.a, cmd="hello")["rules_checksum"]
        r = link(pair.b, cmd="remote", peer="nosuch", colour="red", match="12345678", rules_checksum=checksum)
        assert r["error"] == "bad_argument"
        r = link(pair.a, cmd="remote", peer="b2", colour="white", match="9abcdef0", rules_checksum=checksum,
                 invite=True)
        assert r["ok"]
        r = link(pair.b, cmd="remote", peer="b1", colour="red", match="9abcdef0", rules_checksum=checksum)
        assert r["error"] == "bad_argument"
        assert pair.until(lambda: link(pair.a, cmd="remote")["remote"] is None)  # b1 read it, and left
        pair.pump(200)
        assert retained(broker, credentials["organiser"]) == {}
    finally:
        pair.close()
