"""A match on two boards through a broker (doce/remote.py): the friend's move shown as the board
shows its own opponent's, the local move sent once settled, the edges, pairing refused for other
rules, and two boards that disagree stopping both. Two simulated boards on a real Mosquitto."""

import json
import threading

import paho.mqtt.client as mqtt
import pytest
from fleet_helpers import link
from hands import blink, light, looks
from remote_helpers import MATCH, Pair, edges, events_of
from waiting import until

from doce.journal import NEW_MATCH, record, records
from doce_host import image, rules
from doce_host.link import begin, chunks


@pytest.fixture
def pair(tmp_path, mosquitto):
    p = Pair(tmp_path, mosquitto)
    yield p
    p.close()


def test_the_friends_move_lights_as_the_boards_own_and_no_other_piece_goes_there(pair):
    pair.pair()
    a, b = pair.a, pair.b
    a.place("c3", "white 4")
    assert pair.shown(b) == {"cell": "c3", "value": 4}
    told = events_of(b, "remote")  # a host is told as the lights show it
    assert told[-1]["move"] == {"cell": "c3", "value": 4} and told[-1]["connected"]
    assert "yellow" in blink(b, "c3", 2500)  # flashing white's colour, four times then dim, as the board's own move
    b.take_events()
    b.place("c3", "white 2")  # the friend's colour, the right square, another face
    assert [e["reason"] for e in events_of(b, "illegal")] == ["not_the_move"]
    b.lift("c3")
    b.place("c3", "white 4")
    assert b.state()["board"] == {"c3": "white 4"} and b.state()["to_move"] == "black"
    assert pair.until(lambda: pair.remote(a)["plays"] == 1 and pair.remote(b)["plays"] == 1)
    pair.play(b, "a1", "black 2")  # and back the other way
    assert pair.boards_agree()
    assert a.state()["board"] == {"c3": "white 4", "a1": "black 2"}
    assert pair.remote(a)["mismatch"] is None and pair.remote(b)["mismatch"] is None


def test_a_blocker_then_a_die_show_in_turn_on_the_friends_board(pair):
    pair.pair()
    pair.play(pair.a, "c3", "white 4")
    pair.b.place("b2", "black blocker")
    assert pair.shown(pair.a) == {"blocker": "b2"}  # its blocker goes first, the die still to come
    pair.a.place("b2", "black blocker")
    pair.b.place("d4", "black 5")
    assert pair.until(lambda: pair.remote(pair.a)["move"] == {"cell": "d4", "value": 5})
    pair.a.place("d4", "black 5")
    assert pair.until(pair.boards_agree)
    assert pair.a.state()["blockers_left"] == {"white": 1, "black": 0}


def test_a_move_goes_to_the_friend_once_it_has_settled_and_once(pair, mosquitto):
    """A die still tilted is no move: nothing goes. Once it settles, one message with it."""
    pair.pair()
    sent = []
    watcher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    ready = threading.Event()
    watcher.on_subscribe = lambda *args: ready.set()
    watcher.on_message = lambda c, u, m: sent.append(json.loads(m.payload))
    watcher.connect(mosquitto.host, mosquitto.port)
    watcher.loop_start()
    watcher.subscribe("doce/b2/remote/b1", 1)
    until(ready.is_set, what="the watcher's subscription")
    pair.pump(20)
    a = pair.a
    a.place("c3", "white 4", settle=False)
    a.tilt("c3", 12)  # left leaning on an edge: unreadable
    pair.pump(200)
    assert pair.remote(pair.b)["move"] is None
    assert all(m["n"] == 0 for m in sent)
    a.drop("c3")
    assert pair.shown(pair.b) == {"cell": "c3", "value": 4}
    pair.pump(200)
    watcher.loop_stop()
    with_it = [m for m in sent if m["n"] == 1]
    assert len(with_it) == 1 and with_it[0]["plays"][0][:2] == ["c3", 4]  # sent once, when it had settled


def test_the_edges_say_whose_turn_and_whether_the_friends_board_is_there(pair):
    pair.pair()
    a, b = pair.a, pair.b
    pair.pump(20)
    assert {looks(c) for c in edges(a)["white"]} == {"yellow"}  # white (this board's player) to move
    assert {looks(c) for c in edges(a)["black"]} == {"off"}  # the friend's board: there, not its turn
    assert {looks(c) for c in edges(b)["white"]} == {"yellow"}  # on the friend's board: white's turn too
    b.cut_power()  # the broker sends its last will: offline
    assert pair.until(lambda: not pair.remote(a)["connected"])
    seen = set()
    for _ in range(30):
        a.wait(0.02)
        seen |= {looks(c) for c in edges(a)["black"]}
    assert "purple" in seen and not seen & {"yellow", "blue", "vermillion"}  # the friend's edge pulses
    assert {looks(c) for c in edges(a)["white"]} == {"yellow"}  # and this player may still play
    a.place("c3", "white 4")  # the move waits for the friend's board
    b.power_on()
    assert pair.until(lambda: pair.remote(a)["connected"])
    assert pair.shown(b) == {"cell": "c3", "value": 4}  # play resumes
    pair.pump(5)
    assert {looks(c) for c in edges(a)["black"]} == {"blue"}  # black to move, its board back


def other_rules(**changes):
    r = rules.load("standard")
    r.update(changes)
    r["name"] = "house"
    return rules.compile_tables(r)


def push_rules(sim, blob):
    for request in [begin(blob)] + list(chunks(blob)) + [{"cmd": "rules_commit"}]:
        reply = link(sim, **request)
        assert reply["ok"], reply


def test_a_board_with_other_rules_is_refused_at_pairing_in_one_line_and_nothing_starts(pair):
    push_rules(pair.b, other_rules(rounds=2))
    pair.b.take_events()
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    reply = link(pair.b, cmd="remote", peer="b1", colour="black", match=MATCH, rules_checksum=checksum)
    assert reply["error"] == "rules_mismatch"
    assert "\n" not in reply["message"] and checksum in reply["message"] and "house" in reply["message"]
    assert pair.remote(pair.b) is None and not events_of(pair.b, "new_match")


def test_pairing_asks_for_a_network_a_friends_id_and_both_rules(sim, pair):
    checksum = link(sim, cmd="hello")["rules_checksum"]
    assert link(sim, cmd="remote", peer="b2", colour="black", match=MATCH,
                rules_checksum=checksum)["error"] == "no_network"
    assert link(sim, cmd="remote") == {"re": "remote", "ok": True, "remote": None}
    good = dict(cmd="remote", peer="b1", colour="black", match=MATCH, rules_checksum=checksum)
    for bad in ({"peer": "b/1"}, {"peer": "b2"}, {"colour": "red"}, {"match": "7F3A01C2"}, {"match": "7f3a"},
                {"rules_checksum": 5}, {"first": "grey"}, {"colour": None}):
        assert link(pair.b, **dict(good, **bad))["error"] == "bad_argument", bad  # b2 is the board's own id
    assert pair.remote(pair.b) is None


def swap_rules_while_off(sim, blob):
    """The board's flash as if its rules had changed under the match (a board that referees
    differently): new rules.doct, and the journal's match record naming them."""
    flash = sim.folder / "flash.img"
    files = image.read(flash.read_bytes())
    files["rules.doct"] = blob
    found = records(files["journal"])
    first = found[0][1][0]
    import binascii
    import struct
    head = record(NEW_MATCH, struct.pack("<BI", first, binascii.crc32(blob[:-4])))
    files["journal"] = head + files["journal"][found[0][2]:]
    flash.write_bytes(image.build(files))


def test_boards_that_disagree_stop_both_and_name_the_play(pair):
    pair.pair()
    a, b = pair.a, pair.b
    pair.play(a, "c3", "white 4")
    pair.play(b, "a1", "black 2")
    b.cut_power()
    swap_rules_while_off(b, other_rules(dice_per_player=10))  # same rules name, another game
    b.power_on()
    assert pair.until(lambda: pair.remote(a)["mismatch"] is not None and pair.remote(b)["mismatch"] is not None)
    assert pair.remote(a)["mismatch"] == pair.remote(b)["mismatch"] == 2  # the first play seen to differ
    pair.pump(5)
    told = events_of(a, "remote_mismatch")
    assert [e["move"] for e in told] == [2] and told[0]["peer"] == "b2" and told[0]["digest"] != told[0]["peer_digest"]
    assert [e["move"] for e in events_of(b, "remote_mismatch")] == [2]
    for sim in (a, b):  # both edges blink vermillion, on both boards
        seen = set()
        for _ in range(30):
            sim.wait(0.02)
            seen |= {looks(c) for side in edges(sim).values() for c in side}
        assert seen == {"vermillion", "off"}, seen
    a.place("e5", "white 1")  # play has stopped: nothing is taken
    assert "e5" not in a.state()["board"] and a.state()["problems"] == {"e5": "remote_mismatch"}


def test_a_paired_board_allocates_nothing_more_while_it_waits(pair):
    """The scan loop's rule: a friend's board costs no allocation a scan (its step looks at a few
    numbers). Measured beside the same board on the broker unpaired: what its connection costs
    while idle (doce/net.py's and doce/mqtt.py's own) is not the remote match's."""
    pair.pump(100)
    unpaired = pair.a.command(do="idle_allocation", scans=300)["bytes"]
    pair.pair()
    pair.play(pair.a, "c3", "white 4")
    pair.pump(50)
    assert pair.a.command(do="idle_allocation", scans=300)["bytes"] == unpaired  # waiting for the friend
    pair.b.place("a1", "black 2")
    assert pair.shown(pair.a)
    pair.pump(50)
    assert pair.a.command(do="idle_allocation", scans=300)["bytes"] == unpaired  # showing the friend's move


def test_the_friends_move_lights_in_the_scan_it_comes(pair):
    """Its first flash is at once, not at the next step of the lights' 250 ms clock: the square is
    lit in the friend's colour in the very scan the board is told the move (make bench times it)."""
    pair.pair()
    for cell, piece in (("c3", "white 4"), ("a1", "black 2"), ("e5", "white 1"), ("b4", "black 6"), ("d1", "white 3")):
        sim = pair.a if piece.startswith("white") else pair.b
        friend = pair.b if sim is pair.a else pair.a
        friend.take_events()
        sim.place(cell, piece)
        for _ in range(5000):
            sim.run(1)
            friend.run(1)
            if any(e["event"] == "remote" and e["move"] for e in friend.take_events()):
                break
        assert looks(light(friend, cell)) == ("yellow" if piece.startswith("white") else "blue"), (cell, piece)
        friend.place(cell, piece)
        assert pair.until(pair.boards_agree)


def test_a_board_whose_friend_never_joins_shows_it_not_connected(pair):
    """Invited, the friend's board online but not (yet) joining: this board waits, and says the
    friend is not there, rather than that it is. (A friend that refuses: test_remote_refused.py.)"""
    checksum = link(pair.a, cmd="hello")["rules_checksum"]
    assert link(pair.a, cmd="remote", peer="b2", colour="white", match=MATCH, rules_checksum=checksum)["ok"]
    pair.pump(300)
    assert pair.remote(pair.a)["connected"] is False
    seen = set()
    for _ in range(30):
        pair.a.wait(0.02)
        seen |= {looks(c) for c in edges(pair.a)["black"]}
    assert "purple" in seen


def test_a_page_follows_a_remote_match_from_the_boards_events(pair):
    """The page works the state out from events (doce_host/follow.py) between the board's own
    states: the friend's move and its board's coming and going follow from `remote` events, and
    the match goes on with no state asked for."""
    from doce_host.follow import after, zones
    zone_of = zones(rules.load_tables("standard"))
    lights = ("leds", "animated", "brightness")
    pair.pair()
    pair.pump(50)
    b = pair.b
    b.take_events()
    followed = {"state": b.state()}

    def follow_then_compare():
        for event in b.take_events():
            new = after(followed["state"], event, zone_of)
            assert new is not None, event
            followed["state"] = new
        board = b.state()
        assert {k: v for k, v in followed["state"].items() if k not in lights} == \
            {k: v for k, v in board.items() if k not in lights}
        followed["state"] = dict(followed["state"], **{k: board[k] for k in lights})

    for mover, cell, piece in ((pair.a, "c3", "white 4"), (pair.b, "a1", "black 2"), (pair.a, "b2", "white blocker"),
                               (pair.a, "e5", "white 1")):
        mover.place(cell, piece)
        friend = pair.b if mover is pair.a else pair.a
        assert pair.until(lambda: friend.state()["remote"]["move"])
        follow_then_compare()
        friend.place(cell, piece)
        assert pair.until(pair.boards_agree)
        follow_then_compare()
    assert b.state()["remote"]["plays"] == 4
