"""A board whose boot runs out of heap loading the network or a friend's match (doce/offline.py) says so
in one `error` event naming the part, plays its game on offline without it, and starts it again at rest
(RETRY_MS later). The simulator makes the module's import run out of heap (SimBoard.no_room; the
port's own MemoryError text). Before, the boot died with a traceback and the board sat at the REPL."""

from casebook import piece_of
from fleet_helpers import join, link, until_scanned
from remote_helpers import Pair, events_of
from test_match import MATCH

from doce.offline import PAUSED, RETRY_MS
from doce_host.fleet.room import Room


def errors(sim):
    return [e["message"] for e in events_of(sim, "error")]


def plays_on(pair, on_a, on_b):
    """The resumed match: a move on each board, and the boards agree, neither saying mismatch."""
    pair.play(pair.a, *on_a)
    pair.play(pair.b, *on_b)
    assert pair.boards_agree()
    assert not events_of(pair.a, "remote_mismatch") and not events_of(pair.b, "remote_mismatch")


def test_a_board_whose_network_does_not_fit_at_boot_plays_offline_and_starts_it_later(sim, mosquitto):
    join(sim, mosquitto)
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["broker"], sim)
    sim.no_room({"doce.net": 1})
    sim.power_on()
    said = errors(sim)
    assert len(said) == 1 and said[0].startswith("out of memory starting the network (Wi-Fi and MQTT) "
                                                 "(MemoryError: memory allocation failed"), said
    assert "plays on offline" in said[0]
    assert "status" not in link(sim, cmd="net")  # no network on this boot yet
    sim.place("c3", "white 4")  # the game goes on: read, refereed, lit, journaled
    assert [e["cell"] for e in events_of(sim, "placed")] == ["c3"]
    assert sim.state()["board"] == {"c3": "white 4"}
    sim.wait(RETRY_MS / 1000 + 1)  # at rest: the network tried again, and it fits now
    assert until_scanned(lambda: link(sim, cmd="net").get("status", {}).get("broker"), sim)
    assert errors(sim) == []  # said once
    sim.no_room({})
    sim.power_on()  # and the play survived in the journal
    assert sim.state()["board"] == {"c3": "white 4"}


def test_a_paired_board_whose_match_does_not_fit_at_boot_holds_the_friends_pieces_and_resumes_it(tmp_path, mosquitto):
    pair = Pair(tmp_path, mosquitto)
    first, second, third, fourth = [(m["cell"], piece_of(m)) for m in MATCH[0][:4]]
    try:
        pair.pair()
        pair.play(pair.a, *first)
        pair.play(pair.b, *second)  # white to move: b1's, the friend's on b2
        with Room(mosquitto.url) as room:
            pair.b.no_room({"doce.remote": 1})
            pair.b.power_on()
            said = errors(pair.b)
            assert len(said) == 1 and said[0].startswith("out of memory starting the match with the friend's board "
                                                         "(MemoryError: "), said
            assert pair.until(lambda: any(e["event"] == "error" and e["message"] == said[0]
                                          for _, e in getattr(room.boards.get("b2"), "events", ())))  # on MQTT too
        assert pair.b.state()["remote"] is None
        pair.b.place(*third)  # the friend's move, put down on b2 first: held, or it would stop the match later
        assert [e["reason"] for e in events_of(pair.b, "illegal")] == ["not_the_move"]
        pair.b.lift(third[0])
        # a new match or the pairing's end would never reach the friend's board meanwhile: they wait
        for request in ({"cmd": "new_match", "first": "white"}, {"cmd": "remote", "peer": None}):
            reply = link(pair.b, **request)
            assert not reply["ok"] and reply["error"] == "remote" and reply["message"] == PAUSED, reply
        pair.b.wait(RETRY_MS / 1000 + 1)  # at rest: remote.py fits now, and the match goes on
        assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)
                          and pair.remote(pair.b)["connected"])
        assert pair.plays(pair.b) == pair.plays(pair.a) == 2
        plays_on(pair, third, fourth)
    finally:
        pair.close()


def test_who_plays_stays_as_it_is_while_a_paired_match_waits_for_room(tmp_path, mosquitto):
    """The button's who-plays choice on a paired board whose match did not fit: the board's own
    opponent took the friend's colour, and its first move stopped both boards as a mismatch once the
    match ran (a hostile review, issue 41). The press says why nothing changes."""
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        pair.b.no_room({"doce.remote": 1})
        pair.b.power_on()
        assert len(errors(pair.b)) == 1
        for _ in range(2):  # the first shows who plays, the next would change it
            pair.b.press()
            pair.b.wait(1)
        assert [e["message"] for e in events_of(pair.b, "warning")] == [PAUSED, PAUSED]
        assert link(pair.b, cmd="hello")["versus"] is None and not events_of(pair.b, "versus")
        pair.b.wait(RETRY_MS / 1000 + 1)
        assert pair.until(lambda: pair.remote(pair.b) and pair.remote(pair.b)["connected"])
        first, second = [(m["cell"], piece_of(m)) for m in MATCH[0][:2]]
        plays_on(pair, first, second)
    finally:
        pair.close()
