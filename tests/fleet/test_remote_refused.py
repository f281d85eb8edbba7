"""A friend's board that refuses the pairing tells the inviting board why (doce/pairing.py), and
the inviting board says it in one line and leaves the match it waited for (doce/remote.py): it
no longer waits for a friend that will never come. What comes on the friend's topic is checked:
only this match's refusal, from the friend's own topic, in the protocol's shape, counts. Two
simulated boards on a real Mosquitto."""

import pytest
from fleet_helpers import link
from remote_helpers import Pair, edges, events_of, publish
from hands import looks
from test_remote import other_rules, push_rules

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


def test_a_friend_with_a_match_in_play_refuses_and_the_inviting_board_says_so(pair):
    """Any refusal, not only other rules: b2 is in the middle of a match of its own."""
    pair.b.place("c3", "white 4")
    assert pair.until(lambda: pair.b.state()["board"])
    checksum = invite(pair, "1a2b3c4d")
    reply = link(pair.b, cmd="remote", peer="b1", colour="black", match="1a2b3c4d", rules_checksum=checksum)
    assert reply["error"] == "mid_round"
    heard = refusals(pair)
    assert [(e["peer"], e["reason"]) for e in heard] == [("b2", "mid_round")]
    assert "match is in play" in describe(heard[0])
    assert pair.remote(pair.a) is None and pair.b.state()["board"] == {"c3": "white 4"}  # b2's game goes on


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
