"""The board on MQTT (doce/net.py), as the simulator runs it: the real firmware in the unix
port, its Wi-Fi simulated, its MQTT over real sockets to a real broker."""

import json
import random

from fleet_helpers import join, link, rest, room_command, until_scanned
from waiting import stretched, until, until_worked, wait_until

from doce.wifi import JOIN_MS
from doce_host import image
from doce_host.fleet.room import Room
from doce_host.paths import BOARD_FILE
from doce_host.sim import SimBoard

WAIT_S = 20
WAITING = 4  # commands a board keeps waiting; more are a flood, dropped (doce/net.py, Net.incoming)
# Scans a wait for replies runs between two reads of the board's CPU: a command of up to 300 bytes is read
# in 2 (256 bytes a scan, doce/mqtt.py CHUNK), then answered (2026-12: 20,344 scans for the 10,009 commands)
SCANS_A_CALL = 4


def test_board_publishes_status_state_and_events_and_answers_commands(sim, broker):
    with Room(broker.url) as room:
        join(sim, broker, name="Table 1")
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        sim.place("c3", "white 4")
        b = room.boards["b1"]
        assert until_scanned(lambda: any(e["event"] == "placed" for _, e in b.events), sim)
        placed = next(e for _, e in b.events if e["event"] == "placed")
        assert placed["cell"] == "c3" and placed["value"] == 4 and placed["player"] == "white"
        assert b.name == "Table 1"
        assert until_scanned(lambda: b.state and b.state["state"]["board"].get("c3") == "white 4", sim)
        hello = room_command(room, sim, "b1", "hello")
        assert hello["ok"] and hello["rules"] == "standard"
        refused = room_command(room, sim, "b1", "brightness", value=7)
        assert refused["error"] == "bad_argument"  # the same handler as on USB, the same errors


def test_a_password_is_never_sent_back(sim, mosquitto):
    replies = [link(sim, cmd="wifi", ssid="club", password="s3cret-wifi"),
               link(sim, cmd="mqtt", broker="127.0.0.1", port=mosquitto.port, user="b1", mqtt_password="s3cret-mqtt"),
               link(sim, cmd="net")]
    for reply in replies:
        assert reply["ok"]
        text = json.dumps(reply)
        assert "s3cret" not in text
        assert reply["config"]["password_set"] and reply["config"]["ssid"] == "club"
    assert replies[-1]["config"]["mqtt_password_set"]


def test_bad_settings_are_refused_and_change_nothing(sim):
    mqtt = [{"cmd": "mqtt", key: value} for key, value in (
        ("prefix", "doce\n"), ("prefix", "a//b"), ("prefix", "+"), ("prefix", "a/b/c/d/e"), ("prefix", ""),
        ("board_id", "b/1"), ("board_id", "b#"), ("board_id", ""), ("board_id", "tabl\u00e9"), ("board_id", "b" * 65))]
    for request in [{"cmd": "mqtt", "port": "1883"}, {"cmd": "mqtt", "port": 70000},
                    {"cmd": "wifi", "broker": "10.0.0.1"}, {"cmd": "mqtt", "prefix": "doce/#"},
                    {"cmd": "wifi", "ssid": 12}] + mqtt:
        reply = link(sim, **request)
        assert reply["error"] == "bad_argument", (request, reply)
    assert link(sim, cmd="net")["config"] == {"password_set": False, "mqtt_password_set": False, "ca_set": False}


def test_a_stored_prefix_no_topic_can_hold_is_refused_at_boot_and_the_board_plays_on(tmp_path):
    """net.json written by no firmware of ours (a prefix with a wildcard): the board says so and
    does not connect, rather than publish on a topic it did not mean."""
    with SimBoard(tmp_path, module="wrover") as sim:
        assert link(sim, cmd="wifi", ssid="club", password="x")["ok"]
        assert link(sim, cmd="mqtt", broker="127.0.0.1", port=1883, prefix="club/doce")["ok"]
    flash = tmp_path / "flash.img"
    files = image.read(flash.read_bytes())
    config = json.loads(files["net.json"])
    assert config["prefix"] == "club/doce"
    config["prefix"] = "club/#"
    files["net.json"] = json.dumps(config).encode()
    flash.write_bytes(image.build(files))
    with SimBoard(tmp_path, module="wrover") as sim:
        warnings = [e["message"] for e in sim.take_events() if e["event"] == "warning"]
        assert any("net.json: its prefix is no MQTT topic level" in w for w in warnings), warnings
        assert "status" not in link(sim, cmd="net")  # no connection started
        sim.place("c3", "white 4")
        assert link(sim, cmd="state")["state"]["board"] == {"c3": "white 4"}


def test_the_cap_on_the_lights_drops_while_wifi_is_on(sim, mosquitto):
    sim.place("c3", "white 4")
    before = max(max(c) for c in sim.leds())
    join(sim, mosquitto)
    sim.run(3)
    after = max(max(c) for c in sim.leds())
    power = json.loads(BOARD_FILE.read_text())["power"]  # hardware/board.json: the two caps
    assert 0 < after < before
    assert abs(after / before - power["brightness_cap_wifi"] / power["brightness_cap"]) < 0.05


def test_events_wait_while_the_wifi_is_down_and_go_in_order_once_it_is_back(sim, mosquitto):
    with Room(mosquitto.url) as room:
        join(sim, mosquitto)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        b = room.boards["b1"]
        sim.command(do="wifi", up=False)
        for cell, piece in (("c3", "white 4"), ("d4", "black 2"), ("b2", "white 6")):
            sim.place(cell, piece)
        assert until_scanned(lambda: not b.online, sim)  # the broker's last will
        assert not any(e["event"] == "placed" for _, e in b.events)
        status = link(sim, cmd="net")["status"]
        assert status["wifi"] is False and status["waiting"] >= 3
        had = len(b.events) + b.repeats  # a waiting event comes new, or as a repeat of one that came before the drop
        sim.command(do="wifi", up=True)
        assert until_scanned(lambda: len(b.events) + b.repeats >= had + status["waiting"], sim)
        sim.run(200)  # anything sent twice would have come by now
        seqs = [e["seq"] for _, e in b.events]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # in order, none lost, none twice
        assert [e["cell"] for _, e in b.events if e["event"] == "placed"][:1] == ["c3"]
        assert link(sim, cmd="net")["status"]["waiting"] == 0


def test_10000_malformed_commands_change_nothing_and_the_board_still_answers(sim, mosquitto):
    import threading

    import paho.mqtt.client as mqtt
    with Room(mosquitto.url) as room:
        join(sim, mosquitto)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        sim.place("c3", "white 4")
        before = sim.state()
        replies = []  # every reply (the room keeps only the latest few no request of its own waits for)
        subscribed = threading.Event()
        listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        listener.on_message = lambda c, u, m: replies.append(json.loads(m.payload))
        listener.on_subscribe = lambda *_: subscribed.set()
        listener.connect(mosquitto.host, mosquitto.port)
        listener.subscribe("doce/b1/reply", 1)
        listener.loop_start()
        until(subscribed.is_set, WAIT_S, what="the subscription")
        rnd = random.Random(11)
        payloads = [rnd.randbytes(rnd.randrange(1, 300)) for _ in range(10000)]
        payloads += [b"", b"{", b'{"cmd":', b'{"cmd": 5}', b"[]", b'{"cmd" "x"}', b"x" * 5000,
                     b'{"cmd": "rules_commit"}', b'{"cmd": "new_round", "cmd": "new_match"}']

        def answered(count):  # the board scans (lockstep) until `count` replies are in
            def done():  # a few scans a call: the CPU read between calls (/proc) cost more than the scans
                for _ in range(SCANS_A_CALL):
                    if len(replies) >= count:
                        return True
                    sim.run(1)
                return len(replies) >= count
            # the work queued is at most WAITING commands: a CPU second of the board's is ample
            until_worked(done, lambda: sim.process.pid, cpu=1, every=0, what="%d replies" % count)

        sent = 0  # commands sent that get a reply: an empty message is none (it clears a retained one)
        for p in payloads:  # the 10,000 of issue 11, never more than the board keeps waiting
            answered(sent + 1 - WAITING)
            room.client.publish("doce/b1/cmd", p, qos=1)
            sent += bool(p)
        answered(sent)
        sim.run(20)  # a reply more than one a command would have come by now
        listener.loop_stop()
        assert len(replies) == sent and not any(r["ok"] for r in replies)  # each one refused
        assert any(r["error"] == "line_too_long" for r in replies)
        assert sim.state()["board"] == before["board"] and sim.state()["round"] == before["round"]
        hello = room_command(room, sim, "b1", "hello")
        assert hello and hello["ok"]
        assert link(sim, cmd="net")["status"]["broker"] is True


def test_two_boards_set_to_one_id_are_told_so_and_stop_fighting_every_two_seconds(sim, mosquitto, tmp_path):
    """The broker drops the older of two connections with one client id (MQTT 3.1.1, 3.1.4-2): two
    such boards took the connection from each other every 2 s, and neither said why."""
    with SimBoard(tmp_path / "twin", module="wrover") as twin:
        join(sim, mosquitto, board_id="b1")
        join(twin, mosquitto, board_id="b1")

        def both():
            sim.run(20)
            twin.run(20)

        def told():
            faults = [link(b, cmd="net")["status"]["fault"] or "" for b in (sim, twin)]
            return any("another board use the id b1" in f for f in faults)
        assert wait_until(told, 60, both)
        loser = next(b for b in (sim, twin) if "another board" in (link(b, cmd="net")["status"]["fault"] or ""))
        connects = link(loser, cmd="net")["status"]["connects"]
        rest(loser, 8000)  # within the 30 s it now waits it does not try again (it did every 2 s)
        assert link(loser, cmd="net")["status"]["connects"] == connects


def radio(sim):
    return sim.command(do="radio")


def test_a_wifi_stuck_joining_is_asked_once_and_play_goes_on(sim, mosquitto):
    """The port joins again by itself, and a second connect() while it joins raises: the board
    asked every 10 s, and failed at every scan after."""
    sim.command(do="wifi", stuck=True)
    join(sim, mosquitto)
    rest(sim, 25000)  # past two of the old 10 s re-asks
    assert radio(sim)["joins"] == 1
    status = link(sim, cmd="net")["status"]
    assert status["wifi"] is False and status["fault"] is None, status
    sim.place("c3", "white 4")
    assert any(e["event"] == "placed" for e in sim.take_events())
    with Room(mosquitto.url) as room:
        sim.command(do="wifi", stuck=False)  # the port's own join gets through
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
    assert radio(sim)["joins"] == 1


def test_a_join_that_raises_is_said_and_asked_again(sim, mosquitto):
    sim.command(do="wifi", join_raises=True)
    join(sim, mosquitto)
    sim.run(5)
    assert link(sim, cmd="net")["status"]["fault"] == "Wi-Fi: Wifi Internal State Error"
    assert radio(sim)["joins"] == 0
    with Room(mosquitto.url) as room:
        # JOIN_MS of the board's time in one step, not 2 ms a pump within a wall-clock guess (under
        # load 20 s did not cover those 5000 round trips); then only the broker's answer is awaited
        sim.wait(JOIN_MS / 1000)
        assert radio(sim)["joins"] == 1
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
    assert radio(sim)["joins"] == 1


def test_the_radio_never_dozes(sim, mosquitto):
    """Modem sleep (the port's default) wakes the radio only at the access point's beacons: a
    command would wait 100 ms or more."""
    join(sim, mosquitto)
    sim.run(5)
    assert radio(sim)["pm"] == 0  # WLAN.PM_NONE


def test_a_broker_given_by_name_is_refused_in_one_line(sim):
    """A board does no DNS: a lookup would hold the scan loop (up to 5 s for a .local name)."""
    assert link(sim, cmd="wifi", ssid="club", password="x")["ok"]
    for name in ("broker.local", "localhost", "10.0.0", "10.0.0.256", "1.2.3.4.5", " 10.0.0.1"):
        reply = link(sim, cmd="mqtt", broker=name, port=1883)
        assert reply["error"] == "bad_argument" and "IP address" in reply["message"], (name, reply)
    assert "broker" not in link(sim, cmd="net")["config"]


def test_a_stored_broker_name_is_refused_at_boot_and_the_board_plays_on(tmp_path):
    """net.json from a firmware that took names: the board says so, and never looks it up."""
    with SimBoard(tmp_path, module="wrover") as sim:
        assert link(sim, cmd="wifi", ssid="club", password="x")["ok"]
        assert link(sim, cmd="mqtt", broker="127.0.0.1", port=1883)["ok"]
    flash = tmp_path / "flash.img"
    files = image.read(flash.read_bytes())
    config = json.loads(files["net.json"])
    config["broker"] = "broker.local"
    files["net.json"] = json.dumps(config).encode()
    flash.write_bytes(image.build(files))
    with SimBoard(tmp_path, module="wrover") as sim:
        warnings = [e["message"] for e in sim.take_events() if e["event"] == "warning"]
        assert any("'broker.local' is not an IP address" in w for w in warnings), warnings
        assert "status" not in link(sim, cmd="net")
        sim.place("c3", "white 4")
        assert link(sim, cmd="state")["state"]["board"] == {"c3": "white 4"}


def test_a_retained_command_is_not_run_again_at_each_reconnect(sim, mosquitto):
    """A {"cmd": "new_match"} published once with retain abandoned the match in play each time
    the board came back to the broker (issue 25): the broker hands a retained message to every new
    subscription. The board acts on a command once, as it comes, never on one kept for it."""
    import paho.mqtt.client as mqtt
    with Room(mosquitto.url) as room:
        join(sim, mosquitto)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        b = room.boards["b1"]
        other = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)  # a script that set retain by mistake
        other.connect(mosquitto.host, mosquitto.port)
        other.loop_start()
        kept = other.publish("doce/b1/cmd", '{"cmd":"new_match","first":"white","id":"kept"}', qos=1, retain=True)
        kept.wait_for_publish(stretched(WAIT_S))
        other.loop_stop()
        assert until_scanned(lambda: any(r.get("id") == "kept" for _, r in room.replies), sim)  # once, live
        sim.place("c3", "white 4")
        assert until_scanned(lambda: any(e["event"] == "placed" for _, e in b.events), sim)
        for _ in range(2):  # the Wi-Fi goes and comes back: the board subscribes again, and is handed it again
            connects = link(sim, cmd="net")["status"]["connects"]
            sim.command(do="wifi", up=False)
            assert until_scanned(lambda: not b.online, sim)
            sim.command(do="wifi", up=True)
            assert until_scanned(lambda: link(sim, cmd="net")["status"]["connects"] > connects, sim)
            sim.run(200)  # the retained command has come by now
        assert sim.state()["board"] == {"c3": "white 4"}  # the match in play goes on
        assert [r for _, r in room.replies if r.get("id") == "kept"] == [{"re": "new_match", "id": "kept", "ok": True}]
        assert sum(e["event"] == "new_match" for _, e in b.events if not e.get("again")) == 1
        # No Mosquitto ACL can refuse the retain flag on a topic: the organiser's tools clear what they find
        with Room(mosquitto.url) as again:
            assert wait_until(lambda: again.cleared == 1, WAIT_S)
        sim.run(100)
        assert retained_on(mosquitto, "doce/b1/cmd") is None
        assert not [r for _, r in room.replies if r.get("id") != "kept"]  # the empty message clearing it: no command


def retained_on(broker, topic):
    """The message the broker keeps on `topic`, or None: asked before the board's retained status,
    which always comes (the broker answers subscriptions in order)."""
    import threading

    import paho.mqtt.client as mqtt
    got, done = {}, threading.Event()

    def on_message(c, u, m):
        if m.topic == topic:
            got["payload"] = m.payload
        else:
            done.set()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.on_message = on_message
    c.on_connect = lambda c, u, f, r, p=None: (c.subscribe(topic, 1), c.subscribe("doce/b1/status", 1))
    c.connect(broker.host, broker.port)
    c.loop_start()
    try:
        until(done.is_set, WAIT_S, what="the broker's retained messages")
    finally:
        c.loop_stop()
        c.disconnect()
    return got.get("payload")


def test_resend_makes_the_matchs_records_again_and_refuses_what_it_cannot(sim, mosquitto):
    """What doce fleet record asks a board for after it was away (docs/protocol.md, resend)."""
    assert link(sim, cmd="resend", tag="00000000", after=0)["error"] == "no_network"  # no broker set up
    with Room(mosquitto.url) as room:
        join(sim, mosquitto)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        b = room.boards["b1"]
        sim.place("c3", "white 4")
        sim.place("d4", "black 2")
        assert until_scanned(lambda: sum(e["event"] == "placed" for _, e in b.events) == 2, sim)
        tag = b.events[-1][1]["tag"]
        assert [e["record"] for _, e in b.events if e.get("tag") == tag] == [1, 2, 3, 4]
        reply = room_command(room, sim, "b1", "resend", tag=tag, after=2)
        assert reply == {"re": "resend", "id": reply["id"], "ok": True, "tag": tag, "records": 4, "resent": 2}
        assert until_scanned(lambda: b.repeats == 2, sim)  # the room had them: kept once
        first, second = room.send("b1", "resend", tag="0000beef", after=3), room.send("b1", "resend", tag=tag, after=0)
        replies = {}

        def answered():
            for request_id in (first, second):
                replies[request_id] = replies.get(request_id) or room.reply(request_id)
            return all(replies.values())
        assert until_scanned(answered, sim)
        assert replies[first]["resent"] == 4  # another match's tag: the whole match in play
        assert replies[second]["error"] == "busy"  # while those still go
        assert until_scanned(lambda: b.repeats == 6, sim)
        for bad in ({"tag": 7, "after": 0}, {"tag": tag, "after": -1}, {"tag": tag, "after": True}, {"tag": tag}):
            assert room_command(room, sim, "b1", "resend", **bad)["error"] == "bad_argument"
        assert [e["cell"] for _, e in b.events if e["event"] == "placed"] == ["c3", "d4"]


def test_a_command_with_whitespace_around_it_is_a_command_on_mqtt(sim, mosquitto):
    """mosquitto_pub -s sends a file's trailing newline: it was bad_json, while leading spaces and
    tabs were taken (issue 25). JSON's whitespace is taken at either end; only the object itself counts."""
    with Room(mosquitto.url) as room:
        join(sim, mosquitto)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        good = [b'{"cmd":"hello","id":1}\n', b'{"cmd":"hello","id":2}\r\n', b'\n\t {"cmd":"hello","id":3} \t\r\n\n',
                b' {"cmd":"hello","id":4}']
        bad = [b'{"cmd":"hello","id":5}\nx', b'{"cmd":"hel\nlo","id":6}', b'{"cmd":"hello","id":7}\x0b']
        for payload in good + bad:
            room.client.publish("doce/b1/cmd", payload, qos=1)
            assert until_scanned(lambda: len(room.replies) == 1, sim), payload
            with room.lock:
                (_, reply), = room.replies
                room.replies.clear()
            assert reply["ok"] == (payload in good), (payload, reply)
            if payload in bad:
                assert reply["error"] == "bad_json", (payload, reply)


def test_a_megabyte_on_cmd_is_passed_over_in_a_bounded_number_of_scans(sim, mosquitto):
    """A 1 MB message on cmd (skipped, as documented) left the board deaf for 15.7 s: it passed
    256 bytes a scan, 4096 scans (issue 25). It now passes what has come of it, up to 8 KB a
    scan (doce/mqtt.py SKIP_SCAN); here, on a broker with no size limit (doce fleet secure's has one).
    The bound is fixed here, not read from the firmware, which would let the old 256 pass too."""
    with Room(mosquitto.url) as room:
        join(sim, mosquitto)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        size = 1 << 20
        room.client.publish("doce/b1/cmd", b"x" * size, qos=1).wait_for_publish(stretched(WAIT_S))
        request_id = room.send("b1", "hello")
        scans = 0
        while room.reply(request_id) is None and scans < 4 * size // 256:
            sim.run(2)
            scans += 2
        # At 8 KB a scan, 128 scans once the bytes are there; more while they are on their way (on a
        # loaded machine the broker sends them slower than the board scans: 474 seen at load 16). At 256
        # bytes a scan it cannot take fewer than 4096, so half that tells the two apart under any load.
        assert scans < size // 512, scans
        assert [r["error"] for _, r in room.replies] == ["line_too_long"]  # answered once


def test_messages_too_big_to_read_are_still_acknowledged(sim, mosquitto):
    """A QoS 1 message passed over unread must still get its PUBACK: Mosquitto holds at most 20 QoS 1
    messages unacknowledged per client (mosquitto.conf(5), max_inflight_messages, default 20) and sends
    no more until one is, so 21 messages over MAX_IN from anyone allowed to write there (a friend's board
    on remote/..., the organiser on cmd) left the board deaf to every command and friend's move until it
    reconnected (a hostile review of issue 41, r41f finding 1: 4 of 4 runs, waited 150 s)."""
    with Room(mosquitto.url) as room:
        join(sim, mosquitto)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        for _ in range(25):  # past the broker's window of 20
            room.client.publish("doce/b1/cmd", b"x" * 2000, qos=1).wait_for_publish(stretched(WAIT_S))
        assert until_scanned(lambda: len(room.replies) >= 4, sim)  # the first are answered (4 wait at most)
        request_id = room.send("b1", "hello")
        reply = until_scanned(lambda: room.reply(request_id), sim)
        assert reply and reply["ok"], "the board no longer hears its commands"
        assert link(sim, cmd="net")["status"]["connects"] == 1  # heard without a new connection


def test_a_board_on_the_network_allocates_nothing_at_rest(sim, mosquitto):
    """The scan loop allocates nothing, the network's share included: connected, or with the broker
    refusing. A function whose frame is over 11 words (py/objfun.c VM_MAX_STATE_ON_STACK; a try is 3 more,
    `except ... as e` 6) gets it from the heap at every call: Net.poll, Session.step, Session.send and
    Outbox.send did, 824 B a scan connected, 296 refused (a hostile review of issue 41, finding B)."""
    join(sim, mosquitto)
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["broker"], sim)
    assert sim.command(do="idle_allocation", scans=300)["bytes"] == 0
    assert link(sim, cmd="mqtt", port=1)["ok"]  # nothing listens there: refused at every try
    assert until_scanned(lambda: "refused" in (link(sim, cmd="net")["status"]["fault"] or ""), sim)
    # a try every 2 s (doce/mqtt.py RETRY_MS) allocates its socket: of two windows of 0.3 s in a row
    # (1 ms scans), one at least has none
    assert min(sim.command(do="idle_allocation", scans=300)["bytes"] for _ in range(2)) == 0


def test_a_backlog_drained_at_a_reconnect_keeps_the_scans_publishing_within_the_pipes_room(sim, mosquitto):
    """The outbox stopped at the pipe's room (2 KB), but the retained state (some 850 B) went into the same
    pipe in the same scan, on the very reconnect that drains a backlog: 2,885 B, the buffer grown and
    moved (a hostile review of issue 41, r41d finding 3). The peak is measured at every write."""
    join(sim, mosquitto)
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["broker"], sim)
    for cell, piece in (("a1", "white 1"), ("b2", "black 1"), ("c3", "white 2"), ("d4", "black 2"),
                        ("e5", "white 3")):
        sim.place(cell, piece)  # a state of some size
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["waiting"] == 0, sim)
    sim.command(do="pipe")  # watched from here
    sim.command(do="wifi", up=False)
    while link(sim, cmd="net")["status"]["waiting"] < 56:  # the outbox nearly full (64)
        sim.place("c1", "black 5")  # put down and taken back: events
        sim.lift("c1")
    sim.command(do="wifi", up=True)
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["waiting"] == 0, sim)
    pipe = sim.command(do="pipe")
    assert pipe["room"] == 2048
    assert pipe["room"] * 3 // 4 < pipe["peak"] <= pipe["room"], pipe  # filled, and no further


def test_a_reply_longer_than_the_pipes_room_is_refused_in_a_line_not_grown_into_it(sim, mosquitto):
    """A command's reply went into the MQTT pipe whatever its size: the board check's sensors (3.4 KB of
    JSON) grew the pipe's buffer past its room and moved it (Pipe.room: the heap it then leaves is
    split). Such a reply is refused in one short reply saying why and where to ask."""
    with Room(mosquitto.url) as room:
        join(sim, mosquitto)
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        assert room_command(room, sim, "b1", "board_check", step="start")["ok"]
        sim.command(do="pipe")  # watched from here
        reply = room_command(room, sim, "b1", "board_check", step="sensors")
        pipe = sim.command(do="pipe")
        assert pipe["peak"] <= pipe["room"], pipe
        assert reply["re"] == "board_check" and not reply["ok"], reply  # (room_command found it by its id)
        assert reply["error"] == "too_long" and "USB" in reply["message"], reply
        assert len(json.dumps(link(sim, cmd="board_check", step="sensors"))) > pipe["room"]  # on USB it goes whole
        assert room_command(room, sim, "b1", "board_check", step="end")["ok"]  # and the board answers on
