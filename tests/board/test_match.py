"""Round ends, match ends, and a whole match played through the sensors: every board here starts
its ticks just before they wrap, as an ESP32's do every 12.4 days, so each test runs across it."""

import pytest
from casebook import expand
from doce.game import BLACK, WHITE, Game
from doce.referee import referee
from doce_host.rules import load_tables
from doce_host.sim import SimBoard
from hands import blink, events, light, looks, play

SWAP = {"W": "B", "B": "W"}
WRAP = 2 ** 30  # the ESP32's ticks_ms wraps here (host/doce_host/sim/device/simtime.py)
BEFORE_WRAP_MS = 200


@pytest.fixture
def sim(tmp_path):
    with SimBoard(tmp_path, ticks=WRAP - BEFORE_WRAP_MS) as board:
        yield board


def moves(*short):
    return [expand(m) for m in short]


def swapped(*short):
    """The same moves with the colours exchanged (for a round black opens)."""
    return moves(*[SWAP[m[0]] + m[1:] for m in short])


ALL_OWN = ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")
FOR_BOTH = ("W b1 3", "B a2 3", "W d1 3", "B a4 3", "W e4 1", "B e5 1", "W c1 3", "B a3 3", "W e2 1", "B a1 3")
BLOCKER_USED = ("W a1 2", "B a5 1", "W e1 b", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")
MATCH = [moves(*ALL_OWN), swapped(*ALL_OWN), moves(*FOR_BOTH), swapped(*BLOCKER_USED)]


def in_square_order(cells):
    return sorted(cells, key=lambda cell: (int(cell[1:]), cell[0]))  # a1, b1, ... e1, a2, ...


def clear(sim):
    for cell in list(sim.pieces):
        sim.lift(cell)


def test_a_won_round_lights_the_line_and_waits_for_a_clear_board(sim):
    play(sim, moves(*ALL_OWN))
    end = events(sim, "round_end")
    assert end == [{"event": "round_end", "round": 1, "result": "white", "reason": "line",
                    "lines": [["a1", "b1", "c1", "d1"]], "points": {"white": 35, "black": 0}}]
    assert sim.state()["mode"] == "clearing"
    # The winning line pulses in white's colour: the same hue, changing brightness.
    frames = set()
    for _ in range(12):
        sim.wait(0.025)
        frames.add(light(sim, "b1"))
    assert {looks(f) for f in frames} == {"yellow"} and len(frames) > 2
    assert looks(light(sim, "e3")) == "vermillion"  # not on the line: a die to clear away
    sim.lift("a1")
    sim.lift("b1")
    assert sim.state()["round"] == 1 and events(sim, "illegal") == []  # clearing is not an error
    order = list(sim.pieces)
    clear(sim)
    happened = events(sim)
    # Each piece taken away is told, with the squares still to clear, so a host can follow the
    # clearing without asking for the state; then round 2 starts.
    assert happened == ([{"event": "clearing", "left": len(order) - n, "cells": in_square_order(order[n:])}
                         for n in range(1, len(order))]
                        + [{"event": "round_start", "round": 2, "first": "black"}])
    sim.place("c3", "white 1")
    assert events(sim, "illegal")[0]["reason"] == "not_your_turn"  # black opens round 2


def test_a_double_line_lights_both_lines_in_their_colours(sim):
    play(sim, moves(*FOR_BOTH))
    assert events(sim, "round_end")[0]["reason"] == "double_line"
    seen = {cell: set() for cell in ("b1", "a2", "a1")}
    for _ in range(12):
        sim.wait(0.025)
        for cell in seen:
            seen[cell].add(looks(light(sim, cell)))
    assert seen["b1"] == {"yellow"} and seen["a2"] == {"blue"}


def test_a_whole_match_through_the_sensors_scores_as_the_referee_does(sim):
    assert sim.ticks() > WRAP - BEFORE_WRAP_MS  # booted, not yet wrapped
    recorded = [m for round_moves in MATCH for m in round_moves]
    expected = [e for e in referee(Game(load_tables("standard"), WHITE), recorded) if "move" not in e]
    got = []
    for number, round_moves in enumerate(MATCH, 1):
        play(sim, round_moves)
        got += [e for e in events(sim) if e["event"] in ("round_end", "match_end")]
        if number < 4:
            clear(sim)
    for e in got:
        e.pop("event")
    assert got == expected
    assert expected[-1] == {"match": {"white": 35 + 7, "black": 35 + 7 + 29, "winner": "black"}}
    assert sim.state()["mode"] == "match_over"
    assert sim.ticks() < WRAP - BEFORE_WRAP_MS  # the whole match ran across the wrap


def test_the_winner_shows_until_a_new_match(sim):
    for number, round_moves in enumerate(MATCH, 1):
        play(sim, round_moves)
        clear(sim)
    events(sim)
    sim.wait(3)  # a long while after
    assert blink(sim, "c3") == {"blue"}  # black won: every square in black's colour
    assert events(sim, "round_start") == []
    sim.command(do="new_match", first="white")
    sim.run(5)
    assert events(sim, "round_start") == [{"event": "round_start", "round": 1, "first": "white"}]
    state = sim.state()
    assert state["mode"] == "playing" and state["board"] == {} and state["scores"] == []
    sim.power_on()  # the new match is what the journal holds
    sim.settle()
    assert sim.state()["scores"] == [] and sim.state()["mode"] == "playing"


def test_black_can_open_a_match():
    game = Game(load_tables("standard"), BLACK)
    assert game.to_move == BLACK


def test_a_new_match_waits_for_a_clear_board_even_across_a_reboot(sim):
    for number, round_moves in enumerate(MATCH, 1):
        play(sim, round_moves)
        if number < 4:
            clear(sim)
    sim.command(do="new_match", first="black")  # the last round's dice are still down
    for cell in list(sim.pieces):
        if cell != "c1":  # c1 holds black 4: a legal first play, if the round had begun
            sim.lift(cell)
    assert sim.pieces["c1"] == ("black 4", 0)
    events(sim)
    sim.power_on()
    sim.run(sim.debounce + sim.quiet)
    assert events(sim, "placed") == [] and sim.state()["mode"] == "clearing"
    sim.lift("c1")
    assert events(sim, "round_start") == [{"event": "round_start", "round": 1, "first": "black"}]


def test_a_new_match_or_restarted_round_from_correction_waits_for_a_clear_board(sim):
    play(sim, moves("W c3 4", "B a1 2"))
    sim.lift("c3")  # correcting: white's die is missing
    sim.place("c3", "white 4")
    sim.place("b4", "white 1")  # refused: in the zone
    events(sim)
    assert sim.command(do="send", line='{"cmd": "new_round"}\n')["link"][0]["ok"]
    assert sim.state()["mode"] == "clearing" and events(sim, "placed") == []
    sim.lift("a1")
    sim.lift("b4")
    assert sim.state()["mode"] == "clearing"  # c3 is still on the board
    sim.lift("c3")
    assert [e["event"] for e in events(sim)][-1] == "round_start"
    play(sim, moves("W c3 4", "B a1 2"))
    sim.place("d4", "white 1")  # refused: in white's zone
    events(sim)
    sim.command(do="new_match", first="white")
    assert sim.state()["mode"] == "clearing" and events(sim, "placed") == []


def test_while_clearing_the_lights_show_what_is_left(sim):
    play(sim, moves(*ALL_OWN))
    sim.lift("e3")
    assert looks(light(sim, "e3")) == "off"  # gone, so dark
    assert looks(light(sim, "a5")) == "vermillion"  # still to go
    sim.place("c3", "black 2")  # round 2's opening die, too early: it is in the way
    assert looks(light(sim, "c3")) == "vermillion" and sim.state()["mode"] == "clearing"
