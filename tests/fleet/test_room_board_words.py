"""A board's page in the room (doce fleet web, /board/ID) says what happened as the board's own
page does (doce_host/game_log.py, shared): a refused die as a player would say it, and clearing
the board as one line, so the round's result stays in the last lines shown. The real firmware on
the lockstep simulator, over a real broker."""

from fleet_helpers import join

from waiting import wait_until
from doce_host.fleet.room import Room
from doce_host.fleet.standings import Tournament
from doce_host.fleet.tournament import EVENTS_SHOWN, board_html
from doce_host.game_log import GameLog
from doce_host.view import describe

WAIT_S = 20
# A round white wins on a line a1-d1 (tests/board/test_match.py ALL_OWN): 35 points to 0.
ROUND = [("white", "a1", 2), ("black", "a5", 1), ("white", "c1", 4), ("black", "c5", 1), ("white", "e3", 1),
         ("black", "e5", 1), ("white", "b1", 3), ("black", "a3", 1), ("white", "d1", 3)]


def kept(board, kind):
    return [e for _, e in board.events if e["event"] == kind]


def test_the_room_page_words_a_refusal_and_a_clearing_as_the_boards_own_page(sim, embedded):
    with Room(embedded.url) as room:
        t = Tournament(room)
        join(sim, embedded)
        pump = lambda: sim.run(2)  # noqa: E731
        assert wait_until(lambda: room.boards.get("b1") and room.boards["b1"].online and room.boards["b1"].state,
                          WAIT_S, pump)
        b = room.boards["b1"]
        sim.place("b4", "black 2")  # white opens
        refused, = wait_until(lambda: kept(b, "illegal"), WAIT_S, pump)
        # the board's retained state, at most every 500 ms, shows the die (a player takes longer to lift it)
        assert wait_until(lambda: b.state["seq"] >= refused["seq"], WAIT_S, pump)
        sim.lift("b4")
        for player, cell, value in ROUND:
            sim.place(cell, "%s %d" % (player, value))
        for _, cell, _ in ROUND:  # clearing the board for round 2: eight events, one line
            sim.lift(cell)
        assert wait_until(lambda: [e for e in kept(b, "round_start") if e["round"] == 2], WAIT_S, pump)
        assert len(kept(b, "clearing")) >= 8  # 8 pieces left, 7, ... 1
        page = board_html(t, "b1")
    assert "refused: b4: that is a black die; white is to move" in page
    assert page.count("clearing the board") == 1 and "clearing the board: 1 piece left" in page
    assert "round 1: white wins" in page  # kept in the lines shown
    assert page.count("<li") < EVENTS_SHOWN


def test_a_refusal_waits_for_the_state_that_shows_the_piece_whichever_comes_first():
    refused = {"event": "illegal", "cells": ["b4"], "reason": "not_your_turn", "seq": 5}
    showing = {"mode": "playing", "to_move": "white", "seen": {"b4": "black 2"}, "board": {}}
    words = describe(refused, showing)
    assert words == "refused: b4: that is a black die; white is to move"
    before = GameLog(10)  # the event first, then its state (QoS 1 events and a QoS 0 retained state)
    before.event(refused, {"mode": "playing", "to_move": "white", "seen": {}, "board": {}}, 4)
    assert before.shown() == []
    before.state(showing, 5)
    assert [line["text"] for line in before.shown()] == [words]
    after = GameLog(10)  # the state first
    after.event(refused, showing, 5)
    assert [line["text"] for line in after.shown()] == [words]
    rebooted = GameLog(10)  # no later state will show it: said as the event says it
    rebooted.event(refused)
    rebooted.event({"event": "boot", "seq": 0})
    assert [line["text"] for line in rebooted.shown()] == ["refused: b4 (not this player's turn)", "the board started"]


def test_refusals_no_state_ever_shows_are_kept_to_a_bound():
    log = GameLog(10)
    for seq in range(1, 31):  # a board that sends refusals and never a state (untrusted: MQTT)
        log.event({"event": "illegal", "cells": ["b4"], "reason": "not_your_turn", "seq": seq})
    assert len(log.unworded) <= 10 and len(log.shown()) == 10
