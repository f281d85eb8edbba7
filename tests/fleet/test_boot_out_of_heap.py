"""A board whose boot runs out of heap loading the network or a friend's match (doce/offline.py) says so
in one `error` event naming the part, plays its game on offline without it, and starts it again at rest
(RETRY_MS later). The simulator makes the module's import run out of heap (SimBoard.no_room; the
port's own MemoryError text). Before, the boot died with a traceback and the board sat at the REPL."""

import pytest
from casebook import piece_of
from fleet_helpers import join, link, rest, until_scanned
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
    rest(sim, RETRY_MS + 1000)  # at rest: the network tried again, and it fits now
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
        # a new match, a new round or the pairing's end would never reach the friend's board meanwhile:
        # they wait (r41g F1: new_round was taken, and the next play stopped both boards as a mismatch)
        for request in ({"cmd": "new_match", "first": "white"}, {"cmd": "new_round"}, {"cmd": "remote", "peer": None}):
            reply = link(pair.b, **request)
            assert not reply["ok"] and reply["error"] == "remote" and reply["message"] == PAUSED, reply
        rest(pair.b, RETRY_MS + 1000)  # at rest: remote.py fits now, and the match goes on
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
        rest(pair.b, RETRY_MS + 1000)
        assert pair.until(lambda: pair.remote(pair.b) and pair.remote(pair.b)["connected"])
        first, second = [(m["cell"], piece_of(m)) for m in MATCH[0][:2]]
        plays_on(pair, first, second)
    finally:
        pair.close()


def paired_off_the_broker(sim):
    """A board paired with b2 whose broker refuses it (nothing listens on port 1): what it tells its
    friend waits in remote-news.json."""
    assert link(sim, cmd="wifi", ssid="club", password="s3cret-wifi")["ok"]
    assert link(sim, cmd="mqtt", broker="127.0.0.1", port=1, board_id="b1")["ok"]
    checksum = link(sim, cmd="hello")["rules_checksum"]
    assert link(sim, cmd="remote", peer="b2", colour="white", first="white", match="7f3a01c2",
                rules_checksum=checksum, force=True)["ok"]


def loaded(sim):
    return sim.command(do="modules")["loaded"]


def test_a_network_start_that_fails_part_way_is_done_again_whole_at_the_retry(sim):
    """The Net made, then remote_news.py out of heap: the retry took the network as started (app.net was
    set first) and never loaded the end kept for the friend's board (a hostile review of issue 41, 3)."""
    paired_off_the_broker(sim)
    assert link(sim, cmd="remote", peer=None)["ok"]  # the end waits in remote-news.json for the broker
    sim.no_room({"doce.remote_news": 1})
    sim.power_on()
    said = errors(sim)
    assert len(said) == 1 and said[0].startswith("out of memory starting the network"), said
    assert "doce.remote_news" not in loaded(sim)
    rest(sim, RETRY_MS + 1000)
    assert "doce.remote_news" in loaded(sim)  # the end will reach the friend's board
    said = sim.take_events()
    assert [e["message"] for e in said if e["event"] in ("error", "warning")] == [
        "the network (Wi-Fi and MQTT) runs now, after all"]


def test_a_network_that_fails_to_start_leaves_the_leds_at_the_usb_cap(sim, mosquitto):
    """Net.__init__ lowered the cap to the Wi-Fi one before it made its outbox: out of heap there, a
    board with no radio on stayed dim, and the next Net kept the Wi-Fi cap as the one to go back to."""
    def brightest():
        return max(max(led) for led in sim.leds())
    usb = brightest()
    join(sim, mosquitto)
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["broker"], sim)
    assert 0 < brightest() < usb  # the radio on: the Wi-Fi cap
    sim.no_room({"doce.outbox:Outbox.__init__": 1})
    sim.power_on()
    assert len(errors(sim)) == 1
    assert brightest() == usb  # no radio on this boot yet
    rest(sim, RETRY_MS + 1000)
    assert until_scanned(lambda: link(sim, cmd="net").get("status", {}).get("broker"), sim)
    assert 0 < brightest() < usb
    assert link(sim, cmd="wifi", ssid="", password="")["ok"]  # the network off: the USB cap back
    sim.run(4)
    assert brightest() == usb


def test_offline_py_not_fitting_says_so_in_one_line_as_the_board_does(sim, mosquitto):
    """offline.py, which catches the network's own failures, is loaded with the game: out of heap, the
    game does not start either, and the simulator says so as esp32.run does on a board (one line, then
    the REPL), not with a traceback after the game was built."""
    join(sim, mosquitto)
    sim.no_room({"doce.offline": 1})
    sim.power_on(settle=False)
    said = errors(sim)
    assert len(said) == 1 and said[0].startswith("out of memory starting the game"), said
    sim.no_room({})
    sim.power_on()
    sim.place("c3", "white 4")
    assert sim.state()["board"] == {"c3": "white 4"}


def test_pairing_on_a_board_whose_network_did_not_start_names_why(sim, mosquitto):
    join(sim, mosquitto)
    sim.no_room({"doce.net": 1})
    sim.power_on()
    assert len(errors(sim)) == 1
    checksum = link(sim, cmd="hello")["rules_checksum"]
    reply = link(sim, cmd="remote", peer="b2", colour="white", first="white", match="7f3a01c2",
                 rules_checksum=checksum)
    assert not reply["ok"] and reply["error"] == "no_network"
    assert "did not start" in reply["message"] and "doce config" not in reply["message"], reply


def test_a_match_that_runs_out_of_heap_attaching_is_away_to_the_friend_and_attached_at_the_retry(tmp_path,
                                                                                                  mosquitto):
    """remote.begin published the match before it attached it: out of heap attaching, the retry saw it
    started and never attached it. And meanwhile the friend's board showed this one connected, its
    status online (a hostile review of issue 41, 3 and 6)."""
    pair = Pair(tmp_path, mosquitto)
    first, second = [(m["cell"], piece_of(m)) for m in MATCH[0][:2]]
    try:
        pair.pair()
        pair.b.no_room({"doce.remote:Remote.attach": 1})
        pair.b.power_on()
        said = errors(pair.b)
        assert len(said) == 1 and said[0].startswith("out of memory starting the match with the friend's board"), said
        assert pair.until(lambda: link(pair.b, cmd="net")["status"]["broker"])
        pair.pump(20)
        assert not pair.remote(pair.a)["connected"]  # b2 is on the broker, its match not running
        rest(pair.b, RETRY_MS + 1000)
        assert pair.until(lambda: pair.remote(pair.b))
        goes_on = [e["message"] for e in events_of(pair.b, "warning")]
        assert goes_on == ["the match with the friend's board b1 goes on"], goes_on
        assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
        plays_on(pair, first, second)
    finally:
        pair.close()


def test_the_mqtt_command_starts_a_paired_boards_match_as_the_boot_does(tmp_path, mosquitto):
    """wifi and mqtt start the network as offline.py does at boot: on a paired board whose network did
    not fit, the match goes on with it, not only at the next retry."""
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        pair.b.no_room({"doce.net": 1})
        pair.b.power_on()
        assert len(errors(pair.b)) == 1 and pair.b.state()["remote"] is None
        pair.join(pair.b, "b2")  # its broker set again over USB
        assert pair.b.state()["remote"] is not None
        assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
    finally:
        pair.close()


def test_a_network_restarted_by_the_mqtt_command_that_runs_out_of_heap_is_tried_again(sim, mosquitto):
    """The mqtt command stopped the running network and started it with net.start itself: out of heap
    there, the board stayed off the broker till a reboot, with no retry (a hostile review of issue 41)."""
    join(sim, mosquitto)
    sim.no_room({"doce.outbox:Outbox.__init__": [2]})  # the boot's Net fits; the command's does not
    sim.power_on()
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["broker"], sim)
    assert errors(sim) == []
    reply = link(sim, cmd="mqtt", broker=mosquitto.host, port=mosquitto.port, board_id="b1")
    assert reply["ok"] and "status" not in reply  # stopped, and not started again
    assert reply["waits"].startswith("out of memory starting the network"), reply  # and why (r41d finding 4)
    said = errors(sim)
    assert len(said) == 1 and said[0].startswith("out of memory starting the network"), said
    rest(sim, RETRY_MS + 1000)
    assert until_scanned(lambda: link(sim, cmd="net").get("status", {}).get("broker"), sim)


def test_a_failure_said_out_of_heap_at_boot_leaves_the_game_playing_and_the_match_held(sim):
    """offline.wait (the Away, the Retry, the message, the event) ran in start_network's handler
    unguarded: out of heap there, build() failed after the game was made, and the board said the game
    itself did not fit and sat at the REPL, at every boot that ran short the same way (a hostile review
    of issue 41, r41d finding 1)."""
    paired_off_the_broker(sim)
    sim.no_room({"doce.remote:resume": 1, "doce.offline:wait": [1]})
    sim.power_on()
    said = errors(sim)
    assert len(said) == 1 and not said[0].startswith("out of memory starting the game"), said
    assert "the board plays on offline" in said[0], said
    assert sim.state()["remote"] is None
    sim.place("c3", "white 4")  # the game plays
    assert sim.state()["board"] == {"c3": "white 4"}
    sim.place("d4", "black 4")  # the friend's: held (Away), or it would stop the match once it runs
    assert [e["reason"] for e in events_of(sim, "illegal")] == ["not_the_move"]
    sim.lift("d4")
    rest(sim, RETRY_MS + 1000)  # the retry armed all the same
    assert until_scanned(lambda: sim.state()["remote"] is not None, sim)
    said = [e["message"] for e in sim.take_events() if e["event"] == "warning"]
    assert said == ["the match with the friend's board b2 goes on"], said


@pytest.mark.scan_fault  # made on purpose
def test_a_fault_escaping_a_scan_is_said_and_the_simulated_board_plays_on_as_a_board_does(sim):
    """esp32.run reports a scan's fault in one `error` event and plays on; the simulator's own loop had
    no such handler, so a simulated board died with a traceback where a board plays on (a hostile
    review of issue 41, r41d finding 1): the simulator scans through the firmware's own handler."""
    sim.no_room({"doce.app:App.step": [3]})
    sim.power_on()
    said = errors(sim)
    assert said == ["MemoryError: memory allocation failed, allocating 1280 bytes"], said
    sim.place("c3", "white 4")
    assert sim.state()["board"] == {"c3": "white 4"}


def test_a_match_whose_status_does_not_fit_as_it_resumes_runs_and_its_friend_sees_it_back(tmp_path, mosquitto):
    """remote.begin ended with Net.said_status: out of heap there, the match ran but start_network took it
    as failed, so the retained "away" was never replaced and the friend's board showed this one away all
    match (a hostile review of issue 41, r41d finding 2). The status is now due, and said when it fits."""
    pair = Pair(tmp_path, mosquitto)
    first, second = [(m["cell"], piece_of(m)) for m in MATCH[0][:2]]
    try:
        pair.pair()
        # the status's own JSON out of heap at its third making: the will and the CONNACK's come first
        pair.b.no_room({"doce.remote:resume": 1, "doce.net:Net._status": [3]})
        pair.b.power_on()
        assert len(errors(pair.b)) == 1
        assert pair.until(lambda: link(pair.b, cmd="net")["status"]["broker"])
        rest(pair.b, RETRY_MS + 1000)
        assert pair.until(lambda: pair.remote(pair.b))
        said = [(e["event"], e["message"]) for e in pair.b.take_events() if e["event"] in ("error", "warning")]
        assert said == [("warning", "the match with the friend's board b1 goes on")], said  # no failure said
        assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
        plays_on(pair, first, second)
    finally:
        pair.close()


def test_a_pairing_whose_status_does_not_fit_is_answered_as_the_pairing_it_is(sim, mosquitto):
    """The pairing's status out of heap (Net.said_status, after the match was begun and saved): the
    `remote` command answered failed, though the board was paired, and stayed so across a reboot; an
    organiser's `doce remote pair` would stop there (a hostile review of issue 41, r41d finding 2)."""
    join(sim, mosquitto)
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["broker"], sim)
    sim.no_room({"doce.net:Net._status": [3]})  # the will's, the CONNACK's, then the pairing's
    sim.power_on()
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["broker"], sim)
    checksum = link(sim, cmd="hello")["rules_checksum"]
    reply = link(sim, cmd="remote", peer="b2", colour="white", first="white", match="7f3a01c2",
                 rules_checksum=checksum)
    assert reply["ok"] and reply["remote"]["match"] == "7f3a01c2", reply
    assert errors(sim) == []


@pytest.mark.parametrize("squeezed", ["doce.remote:Remote.state", "doce.remote:begin"])
def test_a_pairing_out_of_heap_is_answered_as_what_it_is(sim, mosquitto, squeezed):
    """Out of heap making the pairing's reply (Remote.state) or starting its match (remote.begin): the
    `remote` command answered failed while the board was paired (at once, or from its next boot, by the
    remote.json saved before). Now an answer says what the board is: ok and paired, or failed and not
    paired, then and after a power cycle."""
    join(sim, mosquitto)
    sim.no_room({squeezed: [1]})
    sim.power_on()
    assert until_scanned(lambda: link(sim, cmd="net")["status"]["broker"], sim)
    checksum = link(sim, cmd="hello")["rules_checksum"]
    reply = link(sim, cmd="remote", peer="b2", colour="white", first="white", match="7f3a01c2",
                 rules_checksum=checksum)
    if reply["ok"]:
        assert reply["remote"]["match"] == "7f3a01c2", reply
    else:
        assert reply["error"] == "failed" and "MemoryError" in reply["message"], reply
    for _ in range(2):  # now, and after a power cycle
        shown = link(sim, cmd="remote")["remote"]
        assert (shown is not None and shown["match"] == "7f3a01c2") == reply["ok"], (reply, shown)
        sim.no_room({})
        sim.power_on()
        assert until_scanned(lambda: link(sim, cmd="net")["status"]["broker"], sim)


def test_the_mqtt_command_that_mends_a_paused_match_says_it_goes_on(tmp_path, mosquitto):
    """The match out of heap at boot, then `mqtt` with the same settings: the command's start resumed the
    match, but nothing said so, and the stale retry said nothing later either; the last word in the log
    stayed "out of memory ... tries again" (a hostile review of issue 41, r41d finding 4)."""
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        pair.b.no_room({"doce.remote:resume": 1})
        pair.b.power_on()
        assert len(errors(pair.b)) == 1 and pair.b.state()["remote"] is None
        pair.join(pair.b, "b2")  # its broker set again over USB: the match starts with it
        assert pair.b.state()["remote"] is not None
        said = [e["message"] for e in pair.b.take_events() if e["event"] in ("error", "warning")]
        assert said == ["the match with the friend's board b1 goes on"], said
        rest(pair.b, RETRY_MS + 1000)  # no retry left to run, nor say anything
        assert [e for e in pair.b.take_events() if e["event"] in ("error", "warning")] == []
        assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
    finally:
        pair.close()


def test_remote_while_the_match_is_paused_says_paired_not_running_and_why(sim):
    """`remote` answered null while the match was paused, so `doce remote show` said "not paired with a
    friend's board" while `doce remote end` was refused as paused (a hostile review of issue 41, r41d 4)."""
    from doce_host.fleet.remote import describe
    paired_off_the_broker(sim)
    sim.no_room({"doce.remote:resume": 1})
    sim.power_on()
    assert len(errors(sim)) == 1
    remote = link(sim, cmd="remote")["remote"]
    assert remote == {"peer": "b2", "colour": "black", "match": "7f3a01c2", "connected": False,
                      "paused": PAUSED}, remote
    assert describe(remote).startswith("paired with b2 (black), match 7f3a01c2, not running on this board: "
                                       "the match with the friend's board is paused")
