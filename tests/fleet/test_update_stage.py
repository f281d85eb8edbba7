"""Where a board's app update stands, as doce fleet status and the hall show it (fleet/update_stage.py), from
the messages the room sees: fed to a Room as its broker would hand them, lies and escape codes included."""

import json
import types

import pytest

from doce.link import AT_THE_BOARD, IN_A_MATCH
from doce_host.fleet import tournament
from doce_host.fleet.room import Room
from doce_host.fleet.update_stage import MAX_REASON, STAGES, WORDS


def told(room, kind, payload, ident="t1", retain=False):
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    room._on_message(None, None, types.SimpleNamespace(topic="doce/%s/%s" % (ident, kind), payload=raw, retain=retain))


def row(room, ident="t1"):
    return {r["id"]: r for r in room.rows()}[ident]


@pytest.fixture
def room():
    r = Room("mqtt://127.0.0.1:1")  # never connected: the messages are handed to it here
    told(r, "status", {"online": True, "id": "t1", "name": "t1", "boot": "01", "seq": 1, "version": 5})
    return r


def test_a_board_s_version_and_each_stage_of_its_update_in_words(room):
    assert (row(room)["version"], row(room)["update"]) == (5, None)
    page = tournament.board_html(types.SimpleNamespace(room=room, pictures={}, state=lambda i: None,
                                                       players_of=lambda i: None), "t1")
    assert "&middot; version 5" in page  # the board's own page in the hall always says its app's version
    told(room, "cmd", {"cmd": "update_begin", "version": 7, "size": 1000, "sha256": "ab" * 32, "sig": "cd" * 16})
    told(room, "reply", {"re": "update_begin", "ok": False, "error": "busy", "message": IN_A_MATCH})
    assert row(room)["update"] == "waiting for the match to end"
    # a piece on the board and no match in play (a forgotten die, a magnet by a sensor): the board's own words
    told(room, "reply", {"re": "update_begin", "ok": False, "error": "busy", "message": AT_THE_BOARD})
    assert row(room)["update"] == "waiting for the board to be clear: " + AT_THE_BOARD
    evil = "in a match \x1b[2J" + "z" * 999
    told(room, "reply", {"re": "update_begin", "ok": False, "error": "busy", "message": evil})
    said = row(room)["update"]
    assert said.startswith("waiting for the board to be clear: in a match \\x1b[2J") and len(said) < 250, said
    told(room, "reply", {"re": "update_begin", "ok": False, "error": "busy", "message": "out of room"})
    assert row(room)["update"] == "busy, asked again: out of room"  # not a match: no word of one
    told(room, "reply", {"re": "update_begin", "ok": True, "received": 0, "slot": "b"})
    assert row(room)["update"] == "receiving 0%"
    told(room, "reply", {"re": "update_chunk", "ok": True, "received": 480})
    assert row(room)["update"] == "receiving 48%"
    told(room, "reply", {"re": "update_chunk", "ok": False, "error": "corrupted", "message": "corrupted: doce/z.py"})
    assert row(room)["update"] == "sending again: corrupted: doce/z.py"
    told(room, "reply", {"re": "update_commit", "ok": False, "error": "incomplete", "message": "truncated: 9 of 10"})
    assert row(room)["update"] == "sending again: truncated: 9 of 10"
    told(room, "reply", {"re": "update_commit", "ok": True, "version": 7, "deferred": True})
    assert row(room)["update"] == "stored, waiting for the match to end"
    told(room, "reply", {"re": "update_commit", "ok": True, "version": 7, "deferred": False})
    assert row(room)["update"] == "stored, booting it"
    told(room, "status", {"online": True, "id": "t1", "name": "t1", "boot": "02", "seq": 1, "version": 7,
                          "trial": True})
    assert (row(room)["version"], row(room)["update"]) == (7, "on trial")
    told(room, "events", {"event": "update", "stage": "done", "slot": "b", "version": 7, "seq": 2})
    told(room, "status", {"online": True, "id": "t1", "name": "t1", "boot": "02", "seq": 2, "version": 7})
    assert (row(room)["version"], row(room)["update"]) == (7, "done")
    told(room, "events", {"event": "update", "stage": "rolled_back", "slot": "b", "seq": 3,
                          "reason": "did not come up healthy in 3 boots"})
    assert row(room)["update"] == "rolled back: did not come up healthy in 3 boots"
    told(room, "events", {"event": "warning", "seq": 4, "message": "update refused: signed with another key"})
    assert row(room)["update"] == "refused: signed with another key"


def test_a_trial_whose_status_says_it_no_longer_is_shows_no_stage_until_an_event_says_how_it_ended(room):
    told(room, "status", {"online": True, "id": "t1", "name": "t1", "boot": "02", "seq": 1, "version": 7,
                          "trial": True})
    told(room, "status", {"online": True, "id": "t1", "name": "t1", "boot": "02", "seq": 2, "version": 7})
    assert row(room)["update"] is None


def test_a_last_will_written_while_on_trial_does_not_take_back_the_done(room):
    """A board's last will is its status as it connected (doce/net.py will): connected on trial, its will says
    trial, and the broker hands it on when it drops the board later (a keepalive missed), long after the trial
    ended `done`. That will, then the status of its reconnection (no trial), once took the row back to
    on trial, then to no stage at all: test_fleet_update_room's (2, None) for b1 and b7 under load."""
    told(room, "status", {"online": True, "id": "t1", "name": "t1", "boot": "02", "seq": 1, "version": 7,
                          "trial": True})
    told(room, "events", {"event": "update", "stage": "done", "slot": "b", "version": 7, "seq": 2})
    told(room, "status", {"online": True, "id": "t1", "name": "t1", "boot": "02", "seq": 2, "version": 7})
    assert row(room)["update"] == "done"
    told(room, "status", {"online": False, "id": "t1", "name": "t1", "boot": "02", "seq": 1, "version": 7,
                          "trial": True}, retain=True)  # the will
    assert (row(room)["online"], row(room)["update"]) == (False, "done")
    told(room, "status", {"online": True, "id": "t1", "name": "t1", "boot": "02", "seq": 3, "version": 7})
    assert (row(room)["online"], row(room)["version"], row(room)["update"]) == (True, 7, "done")


@pytest.mark.board_may_lie
def test_what_a_board_says_of_its_update_is_checked_before_it_is_shown(room, capsys, monkeypatch):
    """A percentage past 100 or under 0 is clamped; a reason is cut short and its escape codes written out,
    on the terminal and on the hall's tile; a version that is no count is not shown."""
    told(room, "cmd", {"cmd": "update_begin", "size": 1000})
    told(room, "reply", {"re": "update_chunk", "ok": True, "received": 10 ** 9})
    assert row(room)["update"] == "receiving 100%"
    told(room, "cmd", {"cmd": "update_begin", "size": -5})
    told(room, "reply", {"re": "update_chunk", "ok": True, "received": 96})
    assert row(room)["update"] == "receiving 96 bytes so far"  # no size to take a percentage of
    told(room, "cmd", b"\xff[[[")  # not JSON: passed over
    evil = "\x1b]0;owned\x07\x1b[2J<script>alert(1)</script>" + "y" * 5000
    told(room, "events", {"event": "update", "stage": "rolled_back", "slot": "b", "seq": 5, "reason": evil})
    shown = row(room)["update"]
    assert "\x1b" not in shown and "\x07" not in shown and len(shown) <= len("rolled back: ") + 4 * MAX_REASON
    tile = tournament.tile_html(types.SimpleNamespace(room=room, pictures={}, state=lambda i: None), dict(
        row(room), state=None, white_player=None, black_player=None))
    assert "<script>" not in tile and "&lt;script&gt;" in tile and "\x1b" not in tile
    assert "version 5: update rolled back: " in tile
    page = tournament.board_html(types.SimpleNamespace(room=room, pictures={}, state=lambda i: None,
                                                       players_of=lambda i: None), "t1")
    assert "version 5: update rolled back: " in page and "<script>" not in page and "\x1b" not in page
    passed_over = room.passed_over
    for lie in (True, -1, "7", 10 ** 4000):  # no version (4,000 digits: the column): passed over whole
        told(room, "status", {"online": True, "id": "t1", "name": "t1", "boot": "03", "seq": 1, "version": lie})
    assert row(room)["version"] == 5 and room.passed_over == passed_over + 4

    from doce_host.fleet import commands
    monkeypatch.setattr(commands, "room_for", lambda args: (room, None))
    monkeypatch.setattr(room, "close", lambda: None)
    commands.cmd_fleet_status(types.SimpleNamespace(wait=0, json=False))
    out = capsys.readouterr().out
    assert "rolled back: \\x1b]0;owned\\x07" in out and "\x1b" not in out


def test_each_stage_has_its_words_in_the_one_table():
    assert {stage for stage, *_ in STAGES} == set(WORDS)
    assert all(kind in ("reply", "events", "status") for _, kind, _, _ in STAGES)


def test_the_organiser_s_guide_explains_every_stage():
    """docs/room.md, "Where each board's update stands": a row for each stage's words, as the room shows them."""
    from pathlib import Path
    guide = (Path(__file__).resolve().parents[2] / "docs" / "room.md").read_text()
    rows = {line.split("|")[1].strip() for line in guide.splitlines() if line.startswith("| ")}
    for words in set(WORDS.values()):
        assert words.format(percent="n%", reason="REASON") in rows, words


def test_a_board_busy_in_a_match_all_the_match_wait_long_is_left_waiting_for_its_end():
    """`doce fleet update`'s outcome for a board that answered `busy` (in a match) until --match-wait ran out:
    waiting, and the line names the match, not offline."""
    import threading

    from doce_host import update
    from doce_host.core_time import Deadline
    from doce_host.fleet import update as fleet_update
    board = types.SimpleNamespace(online=True)
    room = types.SimpleNamespace(lock=threading.Lock(), boards={"t1": board})
    t = fleet_update.Transfer(room, "t1", update.package({"doce/tiny.py": b"x = 1\n"}, 3, "t1", "ab" * 32), 5)
    t.start(0, 0)
    t.take(("begin", 0), {"re": "update_begin", "ok": False, "error": "busy", "message": "in a match: waits"})
    t.pause = Deadline(3600)  # asked again only after the match: not within this test
    fleet_update.run([t], 0, match_wait=0)
    assert t.outcome == "waiting" and "match" in t.message, (t.outcome, t.message)


def test_a_board_busy_with_a_piece_on_it_all_the_match_wait_long_is_left_waiting_saying_so():
    """A board with a piece left on it (a forgotten die) answers busy as for a match, and is waited for as long:
    its line gives the board's own reason, checked (cut short, its escapes written out), not a match in play."""
    import threading

    from doce_host import update
    from doce_host.core_time import Deadline
    from doce_host.fleet import update as fleet_update
    for said, shown in ((AT_THE_BOARD, AT_THE_BOARD), ("in a match \x1b]0;t\x07" + "z" * 999, "in a match \\x1b]0;t")):
        room = types.SimpleNamespace(lock=threading.Lock(), boards={"t1": types.SimpleNamespace(online=True)})
        t = fleet_update.Transfer(room, "t1", update.package({"doce/tiny.py": b"x = 1\n"}, 3, "t1", "ab" * 32), 5)
        t.start(0, 0)
        t.take(("begin", 0), {"re": "update_begin", "ok": False, "error": "busy", "message": said})
        t.pause = Deadline(3600)
        fleet_update.run([t], 0, match_wait=0)
        assert t.outcome == "waiting" and "a match in play" not in t.message and shown in t.message, t.message
        assert "\x1b" not in t.message and len(t.message) < 250, t.message
