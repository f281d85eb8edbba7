"""doce_host.follow: the state a page works out from a board's events equals the state the
board itself then reports, over whole matches played through the simulated sensors."""

from casebook import expand, piece_of
from doce_host.follow import after, lights, zones
from doce_host.paths import load_board
from doce_host.rules import load_tables

from hands import events

# Round 1 won by white's line, round 2 by black's (a blocker on the way), round 3 a line each,
# round 4 with a refused die and a die lifted and put back: the match ends.
SWAP = {"W": "B", "B": "W"}
ALL_OWN = ("W a1 2", "B a5 1", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")
BLOCKER_USED = ("W a1 2", "B a5 1", "W e1 b", "W c1 4", "B c5 1", "W e3 1", "B e5 1", "W b1 3", "B a3 1", "W d1 3")
FOR_BOTH = ("W b1 3", "B a2 3", "W d1 3", "B a4 3", "W e4 1", "B e5 1", "W c1 3", "B a3 3", "W e2 1", "B a1 3")
ONLY_THE_BOARD_KNOWS = ("illegal", "new_match", "boot", "round_restarted")
# Not the game: the lights, as the board drew them (the state after each event brings them).
LIGHTS = ("leds", "animated", "brightness")


def swapped(*short):
    return tuple(SWAP[m[0]] + m[1:] for m in short)


def game_of(state):
    return {k: v for k, v in state.items() if k not in LIGHTS}


TABLES = load_tables("standard")
ZONE_OF = zones(TABLES)


class Follower:
    """A host that has one state from the board and follows its events from there."""

    def __init__(self, sim):
        self.sim = sim
        events(sim)  # its boot: the state tells it all
        self.state = sim.state()
        self.worked_out = {}  # event kind -> how many were followed without asking the board
        self.asked = []  # events after which the board had to be asked
        self.lit = {}  # event kind -> how many left lights worked out on the host equal to the board's
        self.animated = 0  # states whose lights blink or pulse, so they differ from the board's by the frame

    def hand(self, do, *args):
        getattr(self.sim, do)(*args)
        for event in events(self.sim):
            new = after(self.state, event, ZONE_OF)
            if new is None:
                assert event["event"] in ONLY_THE_BOARD_KNOWS, event  # none that a page meets every move
                self.asked.append((event["event"], event.get("reason")))
                self.state = self.sim.state()
                continue
            self.worked_out[event["event"]] = self.worked_out.get(event["event"], 0) + 1
            self.state = new
        board = self.sim.state()
        assert game_of(self.state) == game_of(board), (do, args)
        worked_out = lights(self.state, TABLES, load_board())
        if worked_out and not board["animated"]:
            assert worked_out == (board["leds"], False), (do, args)
            self.lit[event["event"]] = self.lit.get(event["event"], 0) + 1
        elif worked_out:
            self.animated += 1
        self.state = dict(self.state, **{k: board[k] for k in LIGHTS})  # the board's, from here on

    def play(self, *short):
        for move in map(expand, short):
            self.hand("place", move["cell"], piece_of(move))

    def clear(self):
        for cell in list(self.sim.pieces):
            self.hand("lift", cell)


def test_a_whole_match_followed_from_its_events_is_the_boards_own_state(sim):
    host = Follower(sim)
    host.play(*ALL_OWN)
    host.clear()
    host.play(*swapped(*BLOCKER_USED))
    host.clear()
    host.play(*FOR_BOTH)
    host.clear()
    host.play("B a1 2", "W a5 1")
    host.play("B b2 1")  # in black's no-play zone: refused, and only the board knows which die it sees
    host.hand("lift", "b2")  # corrected
    host.play("B c1 4", "W c5 1")
    host.hand("lift", "c1")  # a die of the game lifted...
    host.play("B c1 4")  # ...and put back
    host.play("B e3 1", "W e5 1", "B b1 3", "W a3 1", "B d1 3")
    assert host.asked == [("illegal", "no_play_zone"), ("illegal", "lifted")]
    assert sim.state()["mode"] == "match_over" and host.state["winner"] == sim.state()["winner"]
    assert host.worked_out["placed"] == 9 + 10 + 10 + 9 and host.worked_out["corrected"] == 2
    assert host.worked_out["clearing"] == 8 + 9 + 9 and host.worked_out["round_start"] == 3  # one a lift
    assert {"round_end", "match_end", "round_start", "corrected"} <= set(host.worked_out)
    # and after every die, a round's start and a correction, the lights the board shows, worked out
    assert host.lit["placed"] == 9 + 10 + 10 + 9 - 4 and host.lit["round_start"] == 3  # (a die ending a round: pulses)
    assert host.lit["corrected"] == 2 and host.animated >= 4  # the rounds' ends and the match's pulse


def test_an_event_that_does_not_say_enough_is_left_to_the_board():
    state = {"mode": "clearing", "board": {"a1": "white 2"}, "seen": {}}
    assert after(state, {"event": "clearing", "left": 1}, ZONE_OF) is None  # a board older than cells
    assert after(state, {"event": "clearing", "left": 1, "cells": ["b2"]}, ZONE_OF) is None  # a piece it never showed
    assert after(state, {"event": "clearing", "left": 1, "cells": ["a1"]}, ZONE_OF)["seen"] == {}
    assert after(state, {"event": "clearing", "left": 0, "cells": []}, ZONE_OF)["seen"] == {"a1": None}
    assert after(state, {"event": "illegal", "reason": "not_your_turn", "cells": ["c3"]}, ZONE_OF) is None
    assert after({"mode": "playing"}, {"event": "placed", "player": "white", "cell": "c3"}, ZONE_OF) is None  # no board
    assert after(None, {"event": "corrected"}, ZONE_OF) is None
    assert state == {"mode": "clearing", "board": {"a1": "white 2"}, "seen": {}}  # untouched
