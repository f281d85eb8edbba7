"""Whatever is published under the organiser's prefix is untrusted: a message that is not a
board's, or a topic that names no board, is passed over, and the room keeps listening."""

import json

import paho.mqtt.client as mqtt
import pytest

from waiting import stretched, wait_until
from doce_host.fleet.record import Recorder
from doce_host.fleet.room import Room

WAIT_S = 20

HOSTILE = [
    ("doce/evil/events", b"[" * 100000),  # deeper than any parser's stack
    ("doce/%s/events" % ("x" * 300), json.dumps({"event": "new_match", "seq": 1, "first": "white"}).encode()),
    ("doce/a.b/status", b'{"online": true}'),  # a dot: no board id has one
    ("doce/e/state", b'{"state": [1, 2]}'),
    ("doce/f/state", b'{"state": {"totals": [1, 2]}}'),
    ("doce/g/status", b'{"online": "yes", "name": {"x": 1}}'),
    ("doce/h/events", b'{"event": "placed", "seq": "one"}'),
]


def publish(broker, messages, retain=False):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.connect(broker.host, broker.port)
    c.loop_start()
    try:
        for topic, payload in messages:
            c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(stretched(WAIT_S))
    finally:
        c.loop_stop()
        c.disconnect()


@pytest.mark.board_may_lie
def test_hostile_messages_are_passed_over_and_the_room_keeps_listening(embedded, tmp_path):
    seen = []
    recorder = Recorder(tmp_path / "games", say=seen.append)
    publish(embedded, HOSTILE[3:5], retain=True)  # retained: every later organiser gets them
    with Room(embedded.url) as room:
        room.on_event = recorder.event
        publish(embedded, HOSTILE)
        publish(embedded, [("doce/good/events", json.dumps({"event": "new_match", "seq": 1, "first": "white"})
                            .encode())])
        assert wait_until(lambda: "good" in room.boards and room.boards["good"].events, WAIT_S)
        rows = room.rows()  # what doce fleet status prints
        assert [r["id"] for r in rows] == ["good"], rows
        assert room.passed_over >= len(HOSTILE)
    assert [p.name for p in (tmp_path / "games").iterdir()] == ["good-1.json"]


def test_a_second_record_run_into_the_same_folder_keeps_the_first_runs_games(tmp_path):
    folder = tmp_path / "games"
    for run in range(2):
        recorder = Recorder(folder, say=lambda line: None)
        recorder.event("tab", {"event": "new_match", "seq": 1, "first": "white"}, None)
    assert sorted(p.name for p in folder.iterdir()) == ["tab-1.json", "tab-2.json"]


def test_a_room_is_ready_for_every_shape_before_the_first_message():
    """jsonschema builds a validator and follows its references at the first message of a shape:
    about 80 ms, which held up the first die the tournament page showed after it started. A Room
    builds them all when it is made."""
    from doce_host import protocol
    from doce_host.fleet.room import SHAPES
    protocol.validator.cache_clear()
    Room("mqtt://127.0.0.1:1")  # made, not connected
    assert protocol.validator.cache_info().currsize == len(set(SHAPES.values()))


def held_bytes(room, tournament):
    """What a Room and its tournament page keep, as the JSON it came as (a measure that fails
    the test, not a figure: the process's own size depends on the allocator)."""
    size = sum(len(json.dumps(r)) for _, r in room.replies)
    for b in room.boards.values():
        size += sum(len(json.dumps(e)) for _, e in b.events) + len(json.dumps(b.state)) + 64 * len(b.recorded)
        size += sum(len(line["text"]) for line in b.log.shown()) + sum(len(json.dumps(e)) for e in b.log.unworded)
    return size + sum(len(json.dumps([m.rounds, m.over, m.players])) for m in tournament.matches)


@pytest.mark.board_may_lie
def test_what_the_room_keeps_of_a_board_is_bounded_whatever_it_sends():
    """Board a's reply topic alone took fleet web from 84 MB to 357 MB (2 x 10,000 replies of
    15 KB, issue 25). A board's replies, events, the keys that tell its repeats and the matches the
    standings count are each kept to a bound, and so is the number of boards."""
    import types

    from doce_host.fleet.standings import Tournament
    room = Room("mqtt://127.0.0.1:1")  # made, not connected: its messages are handed to it here
    tournament = Tournament(room, {1: [("a", "Ana", "Ben")]})
    big = "x" * 15000

    def hand(topic, message):
        room._on_message(None, None, types.SimpleNamespace(topic=topic, payload=json.dumps(message).encode(),
                                                           retain=False))
    hand("doce/a/status", {"online": True, "id": "a", "name": "a", "boot": "00000001", "seq": 0})
    sizes = []
    for n in range(1, 3001):
        hand("doce/a/reply", {"re": None, "ok": False, "error": "bad_json", "message": big})
        hand("doce/a/events", {"event": "warning", "message": big, "seq": 4 * n})
        hand("doce/a/events", {"event": "new_match", "first": "white", "seq": 4 * n + 1, "tag": "%08x" % n,
                               "record": 1})
        hand("doce/a/events", {"event": "round_end", "round": n % 1000 + 1, "result": "white", "reason": "line",
                               "lines": [], "points": {"white": n, "black": 0}, "seq": 4 * n + 2,
                               "tag": "%08x" % n, "record": 2})
        hand("doce/a/events", {"event": "match_end", "match": {"white": n, "black": 0, "winner": "white"},
                               "seq": 4 * n + 3, "tag": "%08x" % n, "record": 2})
        if n % 1000 == 0:
            sizes.append(held_bytes(room, tournament))
    assert room.passed_over == 0  # every one a board's message, kept as far as the bounds go
    # it stopped growing (but for the digits of the numbers in it); the bound is a few MB
    assert sizes[-1] < 1.01 * sizes[-2] < 20 * 1024 * 1024, sizes
    for n in range(5000):  # and boards without end: each a status, with a name as long as a message
        hand("doce/b%d/status" % n, {"online": True, "id": "b", "name": big, "boot": "1", "seq": 0})
    assert len(room.boards) < 5000
