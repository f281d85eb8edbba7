"""A friend's board that leaves, or was paired with another code, is never silent (issue 41, 4 and 5):
a board that leaves the match while off the broker tells its friend once it is back (a power cut in
between included), and boards paired with a stale or crossed code each say so once, in words for the
player, instead of both waiting, "not connected", for ever. Two simulated boards on a real Mosquitto."""

import os

import pytest
from fleet_helpers import link, rest
from remote_helpers import Pair, retained

WAIT_S = 60


@pytest.fixture
def pair(tmp_path, mosquitto):
    p = Pair(tmp_path, mosquitto)
    yield p
    p.close()


def warnings_on(pair, sim, words, count=1):
    """The warnings `sim` sends that hold `words`, once there are `count` (or the wait is over), the boards at
    rest meanwhile (a warning of another match comes LOST_MS after its message: 25 s of both boards' time)."""
    heard = []

    def enough():
        heard.extend(e["message"] for e in sim.take_events() if e["event"] == "warning" and words in e["message"])
        return len(heard) >= count
    pair.until(enough, resting=True)
    return heard


@pytest.mark.parametrize("cut", [False, True], ids=["back", "cut then back"])
def test_a_board_that_leaves_while_off_the_broker_tells_its_friend_once_back(pair, mosquitto, cut):
    """Issue 41, 4: `remote end` over USB with the Wi-Fi down sent nothing, and the friend's board
    showed it connected for ever."""
    pair.pair()
    pair.play(pair.a, "c3", "white 4")
    pair.b.command(do="wifi", up=False)
    assert link(pair.b, cmd="remote", peer=None)["remote"] is None  # doce remote end, over USB
    if cut:  # and the power goes before the Wi-Fi is back: the news waits in its flash
        pair.b.cut_power()
        pair.b.power_on()
    pair.b.command(do="wifi", up=True)
    heard = warnings_on(pair, pair.a, "left this match")
    assert len(heard) == 1 and "b2" in heard[0], heard
    assert not pair.remote(pair.a)["connected"]
    pair.pump(500)
    assert not [e for e in pair.a.take_events() if e["event"] == "warning" and "left" in e["message"]]  # once
    assert link(pair.b, cmd="remote")["remote"] is None
    assert sorted(retained(mosquitto)) == []  # the news read, the friend cleared it


def test_a_stale_code_joined_after_a_second_invitation_is_said_on_both_boards(pair, mosquitto):
    """Issue 41, 5: a board invites twice and its friend joins the first code: the two sat in
    different matches, both "not connected", with no warning."""
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    for match in ("11111111", "22222222"):
        assert link(pair.a, cmd="remote", peer="b2", colour="white", match=match, rules_checksum=checksum,
                    invite=True)["ok"]
    assert link(pair.b, cmd="remote", peer="b1", colour="black", match="11111111", rules_checksum=checksum)["ok"]
    heard = {sim: warnings_on(pair, sim, "pair the two again") for sim in (pair.a, pair.b)}
    pair.pump(500)
    for sim, friend in ((pair.a, "b2"), (pair.b, "b1")):
        heard[sim] += [e["message"] for e in sim.take_events() if e["event"] == "warning"
                       and "pair the two again" in e["message"]]
        assert heard[sim] and all(friend in words for words in heard[sim]), heard[sim]
        assert len(set(heard[sim])) == len(heard[sim]), heard[sim]  # each said once
        assert not pair.remote(sim)["connected"]


def test_crossed_codes_are_said_on_both_boards(pair):
    """Each board invites the other, and each joins the other's code: both left one match for the
    other, and each is told."""
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    assert link(pair.a, cmd="remote", peer="b2", colour="white", match="33333333", rules_checksum=checksum,
                invite=True)["ok"]
    assert link(pair.b, cmd="remote", peer="b1", colour="white", match="44444444", rules_checksum=checksum,
                invite=True)["ok"]
    assert link(pair.a, cmd="remote", peer="b2", colour="black", match="44444444", rules_checksum=checksum)["ok"]
    assert link(pair.b, cmd="remote", peer="b1", colour="black", match="33333333", rules_checksum=checksum)["ok"]
    for sim, friend in ((pair.a, "b2"), (pair.b, "b1")):
        heard = warnings_on(pair, sim, "pair the two again")
        assert heard and friend in heard[0], heard
        assert not pair.remote(sim)["connected"]


def test_a_friend_flapping_between_ended_and_playing_on_is_said_left_once(pair, mosquitto):
    """Its board's `ended` and its last good message, in turn, many times (only the friend's credentials
    can, in a secured room): "left this match" is said once, not at each, and the board does not
    clear its own message to the friend again at each (nor rewrite remote.json: the same _save)."""
    import paho.mqtt.client as mqtt
    from test_remote_refused import Listener
    match = os.urandom(4).hex()
    pair.pair(match=match)
    pair.play(pair.a, "c3", "white 4")
    last = retained(mosquitto)["doce/b1/remote/b2"]
    clears = Listener(mosquitto, "doce/b2/remote/b1")
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.connect(mosquitto.host, mosquitto.port)
    c.loop_start()
    try:
        for _ in range(20):  # b2 not scanning meanwhile: the flapping is b2's topic's alone
            for payload in ('{"match": "%s", "ended": true}' % match, last):
                c.publish("doce/b1/remote/b2", payload, qos=1).wait_for_publish(WAIT_S)
    finally:
        c.loop_stop()
        c.disconnect()
    heard = []

    def enough():
        pair.a.run(2)
        heard.extend(e["message"] for e in pair.a.take_events() if e["event"] == "warning")
        return len([words for words in heard if "left this match" in words]) >= 1
    assert pair.until(enough)
    for _ in range(100):  # the whole burst read: 40 messages of under 100 bytes, 256 bytes a scan
        enough()
    clears.close()
    assert len([words for words in heard if "left this match" in words]) == 1, heard
    assert clears.messages.count("") <= 1, clears.messages


def test_a_code_joined_again_after_its_match_is_over_is_said_on_both_boards(pair, mosquitto):
    """A one-round match played to its end on both; b2's player begins a new match there and types the
    same code again: b2 began that match afresh, and b1, finished, cleared what came unread, neither
    saying a word (b2 "not connected" for ever). Now each says so."""
    from test_remote import other_rules, push_rules
    # A line of 2 making 7 wins: a one-round match of three plays
    quick = other_rules(line_length=2, target=7, no_play_radius=0, opponent_end=False, rounds=1)
    for sim in (pair.a, pair.b):
        push_rules(sim, quick)
    match = os.urandom(4).hex()
    pair.pair(match=match)
    for sim, cell, piece in ((pair.a, "a1", "white 3"), (pair.b, "e5", "black 1"), (pair.a, "a2", "white 4")):
        pair.play(sim, cell, piece)
    for sim in (pair.a, pair.b):
        assert sim.state()["mode"] == "match_over"
    assert pair.until(lambda: retained(mosquitto) == {})  # over on both: each cleared what the other left
    for sim in (pair.a, pair.b):
        for cell in ("a1", "a2", "e5"):
            sim.lift(cell)
        sim.take_events()
    assert link(pair.b, cmd="new_match", first="white")["ok"]
    checksum = link(pair.b, cmd="hello")["rules_checksum"]
    assert link(pair.b, cmd="remote", peer="b1", colour="black", first="white", match=match,
                rules_checksum=checksum)["ok"]
    heard = warnings_on(pair, pair.a, "began this match")
    assert len(heard) == 1 and "b2" in heard[0] and "pair the two again" in heard[0], heard
    heard = warnings_on(pair, pair.b, "left this match")
    assert len(heard) == 1 and "b1" in heard[0], heard
    pair.pump(300)
    assert not [e for e in pair.a.take_events() if e["event"] == "warning"]  # once
    assert not pair.remote(pair.b)["connected"]
    assert pair.until(lambda: retained(mosquitto) == {})  # the end read and cleared: nothing left


def test_a_late_message_of_a_match_the_two_played_before_is_no_crossed_code(pair, mosquitto):
    """The two paired again with one code (after crossed codes, say): a message of their old match that
    comes live now (resent, or a bridge's copy) was taken for the friend playing that match, and the
    player told to pair the two again while the new match played on. Now it is cleared, unsaid."""
    from remote_helpers import publish
    match = os.urandom(4).hex()
    pair.pair(match=match)
    pair.a.take_events()
    old = {"match": "%08x" % (int(match, 16) ^ 1), "n": 1, "digest": "00000000", "plays": []}
    publish(mosquitto, "doce/b1/remote/b2", old)  # live, on b2's own topic
    heard = warnings_on(pair, pair.a, "")
    assert heard == [], heard
    pair.play(pair.a, "c3", "white 4")  # the match plays on
    assert pair.remote(pair.a)["connected"]
    assert not [e for e in pair.a.take_events() if e["event"] == "warning"]


def test_a_late_message_of_an_old_match_before_the_friends_first_of_the_new_one_is_no_crossed_code(pair, mosquitto):
    """The same, come before the friend's board has said anything of the new match (b1 invited, b2 not
    joined yet): it was taken for a crossed code at once, and the player told to pair the two again while
    the new match, joined a moment later, played on. Now a message of another match is said only once
    LOST_MS passes and the friend's board has said nothing of this one (doce/remote.py _doubted)."""
    from remote_helpers import publish

    from doce.remote import LOST_MS
    match = os.urandom(4).hex()
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    assert link(pair.a, cmd="remote", peer="b2", colour="white", match=match, rules_checksum=checksum,
                invite=True)["ok"]
    pair.a.run(200)  # subscribed
    old = {"match": "%08x" % (int(match, 16) ^ 1), "n": 1, "digest": "00000000", "plays": []}
    publish(mosquitto, "doce/b1/remote/b2", old)  # live, on b1's own topic, before b2 joins
    pair.a.run(200)  # read
    assert link(pair.b, cmd="remote", peer="b1", colour="black", match=match, rules_checksum=checksum)["ok"]
    assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
    pair.rest(2 * LOST_MS)  # past the time a crossed code is said in, both scanning
    pair.play(pair.a, "c3", "white 4")  # the match plays on
    assert not [e["message"] for e in pair.a.take_events() if e["event"] == "warning"]


def test_a_crossed_code_is_said_once_the_friends_board_has_said_nothing_of_this_match_for_lost_ms(pair, mosquitto):
    """The wait that tells a late message from a crossed code: the crossed code is said all the same, once."""
    from remote_helpers import publish

    from doce.remote import LOST_MS
    match = os.urandom(4).hex()
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    assert link(pair.a, cmd="remote", peer="b2", colour="white", match=match, rules_checksum=checksum,
                invite=True)["ok"]
    pair.a.run(200)
    other = "%08x" % (int(match, 16) ^ 1)
    publish(mosquitto, "doce/b1/remote/b2", {"match": other, "n": 0, "digest": "00000000", "plays": []})
    pair.a.run(200)
    assert not [e for e in pair.a.take_events() if e["event"] == "warning"]  # not yet: it may be a late one
    rest(pair.a, LOST_MS + 1000)
    heard = [e["message"] for e in pair.a.take_events() if e["event"] == "warning"]
    assert len(heard) == 1 and "plays another match" in heard[0] and other in heard[0], heard
    rest(pair.a, LOST_MS + 1000)
    assert not [e for e in pair.a.take_events() if e["event"] == "warning"]  # once


def test_a_power_cut_at_any_write_of_remote_end_leaves_the_end_done_on_both_boards_or_on_neither(pair):
    """r41g F2: `remote end` keeps its news for the friend, then forgets the pairing. Cut between the
    two, the board powered on still paired with the news in its flash: it told the friend "left" and
    played on, and the friend's board asked the players to pair again for nothing. Every write of the
    end is cut in turn; after power-on either this board is out of the match and the friend told so,
    or both play on and the friend heard nothing."""
    import json

    for after in range(1, 12):
        pair.pair()
        pair.a.take_events(), pair.b.take_events()
        pair.a.cut_power_at_flash_write(after=after)
        pair.a.command(do="send", line=json.dumps({"cmd": "remote", "peer": None}) + "\n", scans=50)
        pair.pump(20)  # (the news is removed once the broker has it: a write after the reply)
        if not pair.a.power_was_cut:
            break  # every write of the end was cut once
        pair.a.power_on()
        if link(pair.a, cmd="remote")["remote"] is None:  # ended here: the friend hears it
            assert len(warnings_on(pair, pair.b, "left this match")) == 1, after
        else:  # still paired here: the friend hears nothing, and both play on
            assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
            pair.pump(200)
            assert not [e for e in pair.b.take_events() if e["event"] == "warning"], after
    assert after > 3, "the end made %d writes: the cut never landed in it" % (after - 1)
