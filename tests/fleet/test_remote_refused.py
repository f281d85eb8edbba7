"""A friend's board that refuses the pairing tells the inviting board why (doce/pairing.py), and
the inviting board says it in one line (doce/remote.py): it leaves the match it waited for, or,
for a match in play on the friend's board, waits on for a forced join. Only a friend that has not
said it plays the match can refuse it. What comes on the friend's topic is checked:
only this match's refusal, from the friend's own topic, in the protocol's shape, counts. Two
simulated boards on a real Mosquitto."""

import os
import threading

import pytest
from fleet_helpers import link, until_scanned
from remote_helpers import Pair, edges, events_of, publish
from hands import looks
from test_remote import other_rules, push_rules
from waiting import HARD_CAP_S

from doce_host.view import describe


@pytest.fixture
def pair(tmp_path, mosquitto):
    p = Pair(tmp_path, mosquitto)
    yield p
    p.close()


def invite(pair, match):
    """b1 invites b2 (as `doce remote invite` does): b1 plays white and waits for b2."""
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    assert link(pair.a, cmd="remote", peer="b2", colour="white", match=match, rules_checksum=checksum)["ok"]
    # Both on the broker: a board off it could tell no one of its refusal (docs/remote.md)
    assert pair.until(lambda: all(link(sim, cmd="net")["status"]["broker"] for sim in (pair.a, pair.b)))
    pair.a.take_events()
    return checksum


def refusals(pair):
    """The inviting board's remote_refused events, once one has come (the boards scanning meanwhile)."""
    heard = []
    pair.until(lambda: heard.extend(events_of(pair.a, "remote_refused")) or heard)
    return heard


def test_a_friend_with_other_rules_refuses_and_the_inviting_board_says_why_in_one_line(pair):
    checksum = invite(pair, "0a1b2c3d")
    push_rules(pair.b, other_rules(rounds=2))
    house = link(pair.b, cmd="hello")["rules_checksum"]
    reply = link(pair.b, cmd="remote", peer="b1", colour="black", match="0a1b2c3d", rules_checksum=checksum)
    assert reply["error"] == "rules_mismatch"
    heard = refusals(pair)
    assert len(heard) == 1, heard
    event = heard[0]
    assert event["peer"] == "b2" and event["reason"] == "rules_mismatch"
    assert event["rules"] == "house" and event["rules_checksum"] == house
    line = describe(event)
    assert "\n" not in line and "b2" in line and "other rules" in line and "house" in line, line
    # Nothing starts: the inviting board is no longer paired, an ordinary board for two players,
    # its friend's edge no longer pulsing for a board that will never come.
    assert pair.remote(pair.a) is None
    pair.pump(300)
    seen = set()
    for _ in range(30):
        pair.a.wait(0.02)
        seen |= {looks(c) for c in edges(pair.a)["black"]}
    assert "purple" not in seen, seen
    assert pair.remote(pair.b) is None and not events_of(pair.a, "remote_refused")  # said once


def test_a_join_with_a_mistyped_checksum_is_refused_and_the_inviting_board_says_the_code_was_wrong(pair):
    """The same rules on both, a code's checksum mistyped (or forged): the joining board refuses with
    rules_mismatch naming its own rules, which are the inviter's. The inviter leaves, saying why."""
    checksum = invite(pair, "0a1b2c3e")
    wrong = "%08x" % (int(checksum, 16) ^ 0x0BADC0DE)
    reply = link(pair.b, cmd="remote", peer="b1", colour="black", match="0a1b2c3e", rules_checksum=wrong)
    assert reply["error"] == "rules_mismatch"
    heard = refusals(pair)
    assert [e["reason"] for e in heard] == ["wrong_code"] and "rules" not in heard[0], heard
    line = describe(heard[0])
    assert "\n" not in line and "b2" in line and "other rules" not in line and "mistyped" in line, line
    assert pair.remote(pair.a) is None  # it left the match it waited for
    pair.pump(300)
    assert not events_of(pair.a, "remote_refused")  # said once
    assert "mistyped" in reply["message"], reply  # not "the friend's board plays other rules": it may not


def test_a_friend_with_a_match_in_play_refuses_and_the_inviting_board_says_so(pair):
    """Any refusal, not only other rules: b2 is in the middle of a match of its own."""
    pair.b.place("c3", "white 4")
    assert pair.until(lambda: pair.b.state()["board"])
    checksum = invite(pair, "1a2b3c4d")
    reply = link(pair.b, cmd="remote", peer="b1", colour="black", match="1a2b3c4d", rules_checksum=checksum)
    assert reply["error"] == "mid_round"
    heard = refusals(pair)
    assert [(e["peer"], e["reason"]) for e in heard] == [("b2", "mid_round")]
    assert "match is in play" in describe(heard[0]) and "--force" in describe(heard[0])
    # b2's game goes on, and b1 still waits for it: its player may finish that match, or force the code
    assert pair.remote(pair.a)["match"] == "1a2b3c4d" and pair.b.state()["board"] == {"c3": "white 4"}


def test_a_refusal_of_another_match_or_on_another_topic_changes_nothing(pair, mosquitto):
    invite(pair, "2a3b4c5d")
    publish(mosquitto, "doce/b1/remote/b2", {"match": "99999999", "refused": "rules_mismatch"}, retain=True)
    publish(mosquitto, "doce/b1/remote/b3", {"match": "2a3b4c5d", "refused": "rules_mismatch"}, retain=True)
    publish(mosquitto, "doce/b2/remote/b1", {"match": "2a3b4c5d", "refused": "rules_mismatch"}, retain=True)
    pair.pump(2000)
    assert pair.remote(pair.a)["peer"] == "b2" and not events_of(pair.a, "remote_refused")


@pytest.mark.parametrize("message, why", [
    ({"match": "3a4b5c6d", "refused": "\x1b[2Jgone"}, "refusal"),
    ({"match": "3a4b5c6d", "refused": "x" * 40}, "refusal"),
    ({"match": "3a4b5c6d", "refused": "rules_mismatch", "rules": "\x1b]0;pwned\x07"}, "refusal"),
    ({"match": "3a4b5c6d", "refused": "rules_mismatch", "rules_checksum": "nothex!!"}, "refusal"),
    ({"match": "3a4b5c6d", "refused": "rules_mismatch", "say": "hello"}, "refusal"),
    ({"match": "3a4b5c6d", "refused": 7}, "refusal"),
])
def test_a_refusal_not_in_the_protocols_shape_is_refused_itself_and_the_board_keeps_waiting(pair, mosquitto,
                                                                                            message, why):
    invite(pair, "3a4b5c6d")
    publish(mosquitto, "doce/b1/remote/b2", message, retain=True)  # there whenever b1 subscribes
    warnings = []
    pair.until(lambda: warnings.extend(events_of(pair.a, "warning")) or warnings)
    assert len(warnings) == 1 and why in warnings[0]["message"], warnings
    assert "\x1b" not in warnings[0]["message"] and "pwned" not in warnings[0]["message"]
    assert pair.remote(pair.a)["peer"] == "b2"  # still paired: no refusal came that counts
    # A good one after it still counts.
    publish(mosquitto, "doce/b1/remote/b2", {"match": "3a4b5c6d", "refused": "some_new_reason"}, retain=True)
    heard = refusals(pair)
    assert [e["reason"] for e in heard] == ["some_new_reason"]
    line = describe(heard[0])
    assert "some_new_reason" in line and "\n" not in line
    assert pair.remote(pair.a) is None


# -- a refusal is for a match the friend has not joined, and it reaches the inviter ------------------


def join(pair, match, colour="black", force=False):
    """b2 joins b1's `match` (as `doce remote join CODE` asks it), the same rules on both."""
    checksum = link(pair.b, cmd="hello")["rules_checksum"]
    r = {"cmd": "remote", "peer": "b1", "colour": colour, "first": "white", "match": match,
         "rules_checksum": checksum}
    if force:
        r["force"] = True
    return link(pair.b, **r)


def reinvite(pair):
    """b1 and b2 play a match, a round begun on both; then b1 invites b2 to a new one, forced: the
    first ends on b1 (b2 is told), and b1 waits for b2 in the new one. Its number."""
    pair.pair()
    pair.play(pair.a, "c3", "white 4")
    match = os.urandom(4).hex()
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    assert link(pair.a, cmd="remote", peer="b2", colour="white", match=match, rules_checksum=checksum,
                force=True)["ok"]
    assert pair.until(lambda: pair.remote(pair.b)["connected"] is False)  # b2 heard b1 left the first
    pair.a.take_events()
    return match


def test_a_refused_request_for_the_match_in_play_tells_the_friend_nothing(pair):
    """On b2, mid-match with b1, a request for the same match with the wrong colour is refused
    (mid_round): b2 plays on, so it must not tell b1 it refused that match."""
    pair.pair()
    match = pair.remote(pair.a)["match"]
    pair.play(pair.a, "c3", "white 4")
    pair.play(pair.b, "a1", "black 2")
    assert join(pair, match, colour="white")["error"] == "mid_round"
    # b2's next news comes after anything it sent before on that topic (MQTT keeps one client's order)
    pair.play(pair.a, "e5", "white 3")
    said = pair.a.take_events()
    assert not [e for e in said if e["event"] in ("remote_refused", "warning")], said
    assert pair.remote(pair.a)["plays"] == 3 and pair.remote(pair.b)["plays"] == 3


def test_a_refusal_of_a_match_the_friend_said_it_plays_is_one_warning_and_play_goes_on(pair):
    """A refusal of the match in play, after b2 has said it plays it (what an open room lets anyone
    publish): one warning on b1, no remote_refused, and the match goes on."""
    pair.pair()
    match = pair.remote(pair.a)["match"]
    pair.play(pair.a, "c3", "white 4")
    pair.play(pair.b, "a1", "black 2")
    pair.a.take_events()
    for _ in range(3):
        publish(pair.broker, "doce/b1/remote/b2", {"match": match, "refused": "mid_round"})
    warnings = []
    assert pair.until(lambda: warnings.extend(events_of(pair.a, "warning")) or warnings)
    pair.play(pair.a, "e5", "white 3")  # its move goes, and b2 puts it down: play went on
    said = warnings + pair.a.take_events()
    assert [e["event"] for e in said if e["event"] in ("warning", "remote_refused")] == ["warning"], said
    assert "said it plays" in warnings[0]["message"]
    assert pair.remote(pair.a)["plays"] == 3 and pair.remote(pair.a)["connected"]


@pytest.mark.parametrize("absence", ["wifi", "power"])
def test_a_refusal_while_the_inviter_is_away_reaches_it_when_it_is_back(pair, absence):
    """b1 invited b2 again (a new match), then left the broker (its Wi-Fi, or its power); b2, mid-round
    in their first match, refuses the new code. The refusal waits at the broker, retained, for b1."""
    match = reinvite(pair)
    if absence == "wifi":
        pair.a.command(do="wifi", up=False)
        assert pair.until(lambda: not link(pair.a, cmd="net")["status"]["broker"])
    else:
        pair.a.cut_power()
    assert join(pair, match)["error"] == "mid_round"
    if absence == "wifi":
        pair.a.command(do="wifi", up=True)
    else:
        pair.a.power_on()
        assert pair.remote(pair.a)["match"] == match  # resumed from flash, waiting
    heard = refusals(pair)
    assert [(e["peer"], e["reason"]) for e in heard] == [("b2", "mid_round")], heard


def test_the_friend_forcing_the_code_after_its_mid_round_refusal_pairs_the_two(pair):
    """b2's refusal says: a match is in play, finish it or force the pairing. Its player forces the
    same code, and the two boards play: b1 waited for it."""
    pair.b.place("c3", "white 4")
    assert pair.until(lambda: pair.b.state()["board"])
    match = "4a5b6c7d"
    invite(pair, match)
    reply = join(pair, match)
    assert reply["error"] == "mid_round" and "force" in reply["message"]
    assert [e["reason"] for e in refusals(pair)] == ["mid_round"]
    assert join(pair, match, force=True)["ok"]
    assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
    pair.b.take_events()
    pair.b.lift("c3")  # b2's own match is over: its board cleared for this one
    pair.play(pair.a, "c3", "white 4")
    assert pair.boards_agree()


@pytest.mark.parametrize("between", [0, 300], ids=["together", "a_chunk_apart"])
def test_a_join_after_a_refusal_that_came_with_it_wins(pair, between):
    """A refusal (other rules), then the friend's join of the same match (its rules put right), both
    come while b1 is not scanning: the newest says it all, and the two play. Also when other news
    between them puts the join beyond the board's read of a scan (doce/mqtt.py CHUNK)."""
    match = "5a6b7c8d"
    invite(pair, match)
    listener = Listener(pair.broker, "doce/b1/remote/b2")
    try:
        publish(pair.broker, "doce/b1/remote/b2",
                {"match": match, "refused": "rules_mismatch", "rules": "house", "rules_checksum": "0c2b1a9e"})
        if between:  # the friend's status, as the broker may pass it on between the two
            publish(pair.broker, "doce/b2/status", {"online": True, "note": "x" * between})
        assert join(pair, match)["ok"]
        # b2 alone scans until its join is at the broker: only then does b1 read, both at once
        assert until_scanned(lambda: [m for m in listener.messages if match in m and "refused" not in m
                                      and '"beat"' not in m], pair.b)  # (its beat goes too: doce/remote.py)
    finally:
        listener.close()
    assert pair.until(lambda: pair.remote(pair.a)["connected"])
    assert not events_of(pair.a, "remote_refused")
    assert pair.until(lambda: pair.remote(pair.b)["connected"])  # once b1's beat, answering b2's, has come


@pytest.mark.parametrize("refusal", [
    {"refused": "rules_mismatch"},  # no rules named
    {"refused": "rules_mismatch", "rules": "house"},  # a name, no checksum
    {"refused": "rules_mismatch", "rules_checksum": "0c2b1a9e"},  # a checksum, no name
    {"refused": "mid_round", "rules": "house", "rules_checksum": "0c2b1a9e"},  # rules it was not refused for
])
def test_a_refusal_that_contradicts_itself_is_warned_not_said(pair, refusal):
    match = os.urandom(4).hex()
    invite(pair, match)
    publish(pair.broker, "doce/b1/remote/b2", dict(refusal, match=match))
    said = []
    assert pair.until(lambda: [e for e in said + pair.a.take_events() if said.append(e) is None
                               and e["event"] in ("remote_refused", "warning")])
    assert [e["event"] for e in said if e["event"] in ("remote_refused", "warning")] == ["warning"], said
    assert pair.remote(pair.a)["match"] == match


def test_a_burst_of_the_same_refusal_is_said_once(pair):
    match = os.urandom(4).hex()
    invite(pair, match)
    for i in range(20):
        publish(pair.broker, "doce/b1/remote/b2", {"match": match, "refused": "mid_round"}, retain=bool(i % 2))
    heard = []
    assert pair.until(lambda: heard.extend(events_of(pair.a, "remote_refused")) or heard)
    pair.pump(20)  # the rest of the burst read: 20 messages of under 100 bytes, 256 bytes a scan
    publish(pair.broker, "doce/b1/remote/b2", {"match": match, "refused": "what"})  # after them all
    assert pair.until(lambda: heard.extend(events_of(pair.a, "remote_refused")) or "what" in str(heard))
    assert [e["reason"] for e in heard] == ["mid_round", "what"], heard


class Listener:
    """Every message on one topic, from a client of the test's own."""

    def __init__(self, broker, topic):
        import paho.mqtt.client as mqtt
        self.messages = []
        subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = lambda c, u, m: self.messages.append(m.payload.decode())
        self.client.on_subscribe = lambda *args: subscribed.set()
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        self.client.subscribe(topic, qos=1)
        assert subscribed.wait(HARD_CAP_S)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def test_a_board_whose_own_invitation_fails_tells_no_one(pair):
    """b1, mid-round, is asked to invite b2 (`doce remote invite`): refused here, and b2 waits for
    nothing, so nothing is published for it. Forced, the next invitation goes out, after it."""
    pair.a.place("c3", "white 4")
    assert pair.until(lambda: pair.a.state()["board"] and link(pair.a, cmd="net")["status"]["broker"])
    listener = Listener(pair.broker, "doce/b2/remote/b1")
    try:
        checksum = link(pair.a, cmd="hello")["rules_checksum"]
        asked = {"cmd": "remote", "peer": "b2", "colour": "white", "rules_checksum": checksum, "invite": True}
        assert link(pair.a, match="6a7b8c9d", **asked)["error"] == "mid_round"
        assert link(pair.a, match="7a8b9c0d", force=True, **asked)["ok"]
        assert pair.until(lambda: any("7a8b9c0d" in m for m in listener.messages))
        assert not [m for m in listener.messages if "refused" in m], listener.messages
    finally:
        listener.close()


def test_the_refusal_words_are_one_line_of_what_came():
    for event in ({"event": "remote_refused", "peer": "b" * 64, "reason": "x" * 32},
                  {"event": "remote_refused", "peer": "ben", "reason": "rules_mismatch", "rules": "house"},
                  {"event": "remote_refused", "peer": "ben", "reason": "mid_round"}):
        line = describe(event)
        assert "\n" not in line and "None" not in line and event["peer"] in line, line
    line = describe({"event": "remote_refused", "peer": "ben", "reason": "rules_mismatch", "rules": "house",
                     "rules_checksum": "0c2b1a9e"})
    assert "other rules (house, 0c2b1a9e)" in line and "invite it again" in line
    assert "waits" in describe({"event": "remote_refused", "peer": "ben", "reason": "mid_round"})


def test_each_reason_in_one_burst_of_refused_messages_is_said(pair):
    """Five malformed messages read in the same few scans: each reason is said once, none lost to a
    newer one of the same scan."""
    match = os.urandom(4).hex()
    invite(pair, match)
    good = {"match": match, "n": 1, "digest": "00000000", "plays": []}
    burst = {"it is not one JSON object": b"nope",
             "its match is not 8": {"match": "x"},
             "a key the protocol does not know": dict(good, say="hi"),
             "its n is not a whole number": dict(good, n=-1),
             "a play names no square": dict(good, plays=[["z9", 1, "00000000"]])}
    for message in burst.values():  # queued while b1 is not scanning: read 256 bytes a scan
        publish(pair.broker, "doce/b1/remote/b2", message)
    said = []
    pair.until(lambda: said.extend(e["message"] for e in events_of(pair.a, "warning"))
               or all(any(why in s for s in said) for why in burst))
    pair.pump(20)  # and no more after them
    said.extend(e["message"] for e in events_of(pair.a, "warning"))
    for why in burst:
        assert len([s for s in said if why in s]) == 1, (why, said)
    assert len(said) == len(burst), said
