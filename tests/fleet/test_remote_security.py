"""Moves come only from the paired board: the room's ACL (doce fleet secure) lets a board write to
another only under its own name and read only what is written to it, and the board reads its
friend's topic alone and checks what comes there. A third board tries with its own credentials."""

import json
import threading

import paho.mqtt.client as mqtt
import pytest
from fleet_helpers import mosquitto_or_skip
from remote_helpers import Pair, publish
from waiting import stretched, until

from doce.game import BLACK, WHITE, Game
from doce.remote import digest
from doce_host.cli import main
from doce_host.fleet.broker import Mosquitto
from doce_host.fleet.remote import pair_on_broker
from doce_host.fleet.room import Room
from doce_host.fleet.security import config_lines
from doce_host.rules import load_tables

WAIT_S = 60  # a broker round trip while the boards scan: a core's time (until), stretched for paho's wall clock


@pytest.fixture
def secured(tmp_path):
    mosquitto_or_skip()
    assert main(["fleet", "secure", str(tmp_path / "room"), "--boards", "b1,b2,b3"]) == 0
    credentials = json.loads((tmp_path / "room" / "credentials.json").read_text())
    with Mosquitto(folder=tmp_path / "broker", extra=config_lines(tmp_path / "room")) as broker:
        yield broker, credentials


def client(broker, user, password):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user)
    c.username_pw_set(user, password)
    answer = {}
    ready = threading.Event()

    def on_connect(cl, u, flags, reason, props=None):
        answer["reason"] = reason
        ready.set()
    c.on_connect = on_connect
    c.on_subscribe = lambda *args: answer.setdefault("subscribed", threading.Event()).set()
    heard = []
    c.on_message = lambda cl, u, m: heard.append(m.topic)
    c.connect(broker.host, broker.port)
    c.loop_start()
    until(ready.is_set, WAIT_S, what="the MQTT client's connection")
    return c, answer["reason"], heard


def forged_move(match):
    """What b2's board would send after white 4 on c3 and black 2 on a1, digests and all."""
    game = Game(load_tables("standard"), WHITE)
    game.place(WHITE, 12, 4)
    after_c3 = digest(game)
    game.place(BLACK, 0, 2)
    return {"match": match, "n": 2, "digest": "%08x" % digest(game),
            "plays": [["a1", 2, "%08x" % digest(game)]]}, after_c3


def test_a_third_board_cannot_move_for_the_friend_nor_read_the_match(tmp_path, secured):
    broker, credentials = secured
    pair = Pair(tmp_path, broker, credentials=credentials)
    try:
        with Room(broker.url, user="organiser", password=credentials["organiser"]) as room:
            # the organiser pairs them (pair_on_broker's wall seconds, stretched by the load)
            match = pair_on_broker(room, "b1", "b2", timeout=stretched(WAIT_S), pump=pair.pump)
        assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
        third, reason, heard = client(broker, "b3", credentials["b3"])
        assert not reason.is_failure
        third.subscribe([("doce/b1/remote/+", 1), ("doce/b2/remote/+", 1), ("doce/+/remote/#", 1)])
        pair.play(pair.a, "c3", "white 4")  # the ACL lets the pair play
        forged, _ = forged_move(match)
        wait_s = stretched(WAIT_S)
        third.publish("doce/b1/remote/b2", json.dumps(forged), qos=1).wait_for_publish(wait_s)  # as b2: dropped
        third.publish("doce/b1/remote/b3", json.dumps(forged), qos=1).wait_for_publish(wait_s)  # its own name
        pair.pump(300)
        assert pair.remote(pair.a)["move"] is None and pair.a.state()["board"] == {"c3": "white 4"}
        pair.play(pair.b, "a1", "black 2")
        assert heard == []  # it read none of the match
        third.loop_stop()
        as_b2, reason, _ = client(broker, "b2", credentials["b3"])  # another board's name, its own password
        as_b2.loop_stop()
        assert reason.is_failure
        assert pair.boards_agree() and pair.remote(pair.a)["plays"] == 2
    finally:
        pair.close()


def test_the_board_reads_only_its_friends_topic_and_checks_what_comes(tmp_path, mosquitto):
    """On a broker with no ACL at all, the board still takes no move but its friend's, and
    nothing that is not the protocol's."""
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        pair.play(pair.a, "c3", "white 4")
        match = pair.remote(pair.a)["match"]
        forged, after_c3 = forged_move(match)
        publish(mosquitto, "doce/b1/remote/b3", forged)  # a stranger's topic: not read
        publish(mosquitto, "doce/b1/remote/b2", dict(forged, match="00000000"))  # another match
        for bad in (b"", b"{", b"[]", b'{"match": "%s"}' % match.encode(), b"x" * 5000,
                    json.dumps(dict(forged, plays=[["a1", 9, forged["plays"][0][2]]])),  # no such face
                    json.dumps(dict(forged, plays=[["z9", 2, forged["plays"][0][2]]])),
                    json.dumps(dict(forged, plays=[["a1", True, forged["plays"][0][2]]])),
                    json.dumps(dict(forged, plays=[{"cell": "a1", "value": 2}])),
                    json.dumps(dict(forged, n=0)),  # more plays than the match has had
                    b'{"match": "%s", "match": "%s", "n": 2}' % (match.encode(), match.encode())):
            publish(mosquitto, "doce/b1/remote/b2", bad)
        pair.pump(300)
        assert pair.remote(pair.a)["move"] is None and pair.remote(pair.a)["mismatch"] is None
        assert pair.a.state()["board"] == {"c3": "white 4"}
        publish(mosquitto, "doce/b1/remote/b2", forged)  # on the friend's topic, well formed: taken
        assert pair.until(lambda: pair.remote(pair.a)["move"] == {"cell": "a1", "value": 2})
    finally:
        pair.close()


def test_a_message_retained_from_another_match_is_never_acted_on(tmp_path, mosquitto):
    """Remote messages are retained on purpose (each says how far its board is, so the newest is
    all a reconnecting board needs, docs/remote.md "Faults"). One left on the broker by an earlier
    match comes to the board as it subscribes, and must move nothing: b1 subscribes before b2 has
    written there (pair() pairs b1 first)."""
    pair = Pair(tmp_path, mosquitto)
    try:
        forged, _ = forged_move("0badcafe")  # an earlier match's: b2's c3 and a1, digests and all
        publish(mosquitto, "doce/b1/remote/b2", forged, retain=True)
        pair.pair()
        pair.pump(300)
        for sim in (pair.a, pair.b):
            assert pair.remote(sim)["move"] is None and pair.remote(sim)["mismatch"] is None
            assert pair.remote(sim)["plays"] == 0 and sim.state()["board"] == {}
        pair.play(pair.a, "c3", "white 4")  # the match itself goes on
        pair.play(pair.b, "a1", "black 2")
        assert pair.until(pair.boards_agree) and pair.remote(pair.a)["mismatch"] is None
    finally:
        pair.close()


def test_a_move_the_rules_refuse_stops_both_boards_naming_it(tmp_path, mosquitto):
    """Digests are checked only for plays a board has had: the friend's next play is checked by the
    board's own referee. Black 5 on c3, where white's 4 sits, is never lit to be put down: both
    boards stop on play 2 (the board that refused it tells the other, as for any mismatch)."""
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        pair.play(pair.a, "c3", "white 4")
        match = pair.remote(pair.a)["match"]
        _, after_c3 = forged_move(match)
        pair.a.take_events()
        publish(mosquitto, "doce/b1/remote/b2", {"match": match, "n": 2, "digest": "%08x" % after_c3,
                                                 "plays": [["c3", 5, "%08x" % after_c3]]})
        assert pair.until(lambda: pair.remote(pair.a)["mismatch"] == 2)
        assert pair.remote(pair.a)["move"] is None
        stops = [e for e in pair.a.take_events() if e["event"] == "remote_mismatch"]
        pair.pump(50)
        stops += [e for e in pair.a.take_events() if e["event"] == "remote_mismatch"]
        assert [e["move"] for e in stops] == [2]
        assert pair.until(lambda: pair.remote(pair.b)["mismatch"] == 2)
        assert pair.a.state()["board"] == {"c3": "white 4"}
    finally:
        pair.close()


def warnings_until(pair, sim, count):
    """The warnings `sim` sends while both boards scan, once there are `count` (or the wait is over)."""
    heard = []

    def enough():
        heard.extend(e["message"] for e in sim.take_events() if e["event"] == "warning")
        return len(heard) >= count
    pair.until(enough)
    return heard


def test_a_refused_message_from_the_friend_is_said_once_for_each_reason(tmp_path, mosquitto):
    """A player waiting on the friend's move learns why the friend's message was refused: one warning
    for each reason, till a good message comes. A mismatch naming a play neither board has had is
    refused, not obeyed."""
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        pair.play(pair.a, "c3", "white 4")
        match = pair.remote(pair.a)["match"]
        good, _ = forged_move(match)
        pair.pump(50)
        pair.a.take_events()
        topic = "doce/b1/remote/b2"
        bad = {"upper-case digest": dict(good, digest=good["digest"].upper()),
               "n -1": dict(good, n=-1), "n true": dict(good, n=True), "n 2.0": dict(good, n=2.0),
               "unknown key": dict(good, pad="x"), "array": [], "non-UTF-8": b'{"match": "\xff\xfe"}',
               "deep": b'{"match": "%s", "n": ' % match.encode() + b"[" * 300 + b"]" * 300 + b"}",
               "NaN": b'{"match": "%s", "n": NaN, "digest": "00000000", "plays": []}' % match.encode(),
               "too long": json.dumps(dict(good, pad="x" * 700)),
               "too big to read": json.dumps(dict(good, pad="x" * 2000)),  # over doce/mqtt.py's MAX_IN
               "more plays than n": dict(good, n=0)}
        for what, payload in bad.items():
            publish(mosquitto, topic, payload)
            heard = warnings_until(pair, pair.a, 1)
            assert len(heard) == 1 and "friend's board (b2)" in heard[0] and "refused" in heard[0], (what, heard)
            publish(mosquitto, topic, good)  # a good message: a reason said before is said again
        publish(mosquitto, topic, dict(good, n=-1))
        assert len(warnings_until(pair, pair.a, 1)) == 1
        publish(mosquitto, topic, b"")  # its retained message cleared: no warning
        publish(mosquitto, topic, dict(good, n=-1))  # a reason already said: not again
        publish(mosquitto, topic, dict(good, mismatch=999))  # no play 999 yet: refused, not obeyed
        heard = warnings_until(pair, pair.a, 2)
        assert len(heard) == 1 and "mismatch" in heard[0], heard
        assert pair.remote(pair.a)["mismatch"] is None and pair.remote(pair.b)["mismatch"] is None
        publish(mosquitto, topic, good)  # a good message: the next refusal is said again
        assert pair.until(lambda: pair.remote(pair.a)["move"] == {"cell": "a1", "value": 2})
        publish(mosquitto, topic, dict(good, n=-1))
        assert len(warnings_until(pair, pair.a, 1)) == 1
    finally:
        pair.close()
