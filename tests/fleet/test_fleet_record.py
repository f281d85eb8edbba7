"""doce fleet record: a board's game as a recorded-game file, refereed as the round ends."""

import json

from fleet_helpers import join

from doce_host.cli import main
from doce_host.fleet.record import Recorder
from doce_host.fleet.room import Room, wait_until

WAIT_S = 20
# A round white wins on a line a1-d1 (tests/board/test_match.py ALL_OWN): 35 points to 0.
ROUND = [("white", "a1", 2), ("black", "a5", 1), ("white", "c1", 4), ("black", "c5", 1), ("white", "e3", 1),
         ("black", "e5", 1), ("white", "b1", 3), ("black", "a3", 1), ("white", "d1", 3)]


def test_a_boards_round_is_recorded_and_refereed_as_it_ends(sim, mosquitto, tmp_path):
    said = []
    recorder = Recorder(tmp_path / "games", say=said.append)
    with Room(mosquitto.url) as room:
        room.on_event = recorder.event
        join(sim, mosquitto)
        assert wait_until(lambda: room.boards.get("b1") and room.boards["b1"].online and room.boards["b1"].state,
                          WAIT_S, lambda: sim.run(2))
        for player, cell, value in ROUND:
            sim.place(cell, "%s %d" % (player, value))
        assert wait_until(lambda: said, WAIT_S, lambda: sim.run(2))
    assert said == ['b1 round 1: board {"white": 35, "black": 0}, referee {"white": 35, "black": 0}']
    recorded = json.loads((tmp_path / "games" / "b1-1.json").read_text())
    assert recorded["rules"] == "standard" and recorded["first"] == "white"
    assert [(m["player"], m["cell"], m["value"]) for m in recorded["moves"]] == ROUND
    assert recorder.disagreements == 0


def test_the_referee_disagreeing_with_a_board_is_said(tmp_path):
    said = []
    recorder = Recorder(tmp_path, say=said.append)
    state = {"state": {"round": 1, "board": {}, "rules": "standard", "first": "white"}}
    for seq, (player, cell, value) in enumerate(ROUND, 1):
        recorder.event("x", {"event": "placed", "player": player, "cell": cell, "value": value, "seq": seq}, state)
    recorder.event("x", {"event": "round_end", "round": 1, "points": {"white": 0, "black": 12}}, state)
    assert recorder.disagreements == 1 and "DISAGREE" in said[0]


def test_fleet_record_stops_after_its_wait(embedded, tmp_path, capsys):
    assert main(["fleet", "record", str(tmp_path / "games"), "--broker", embedded.url, "--wait", "0.2"]) == 0
    assert "recording every board's games" in capsys.readouterr().out


def test_who_the_board_played_is_recorded_from_its_versus_event_or_its_state(tmp_path):
    recorder = Recorder(tmp_path, say=lambda line: None)
    fresh = {"state": {"round": 1, "board": {}, "rules": "standard", "first": "white",
                       "versus": {"colour": "black", "level": 2, "move": None}}}
    placed = {"event": "placed", "player": "white", "cell": "a1", "value": 2, "seq": 3}
    # a match started over the link: its state says who plays by the first move
    recorder.event("x", {"event": "new_match", "first": "white", "seq": 1}, None)
    recorder.event("x", placed, fresh)
    assert json.loads((tmp_path / "x-1.json").read_text())["versus"] == {"colour": "black", "level": 2}
    # chosen with the button before the first move: the event is the newer word
    recorder.event("x", {"event": "new_match", "first": "white", "seq": 4}, fresh)
    recorder.event("x", {"event": "versus", "versus": {"colour": "white", "level": 0}, "seq": 5}, fresh)
    recorder.event("x", placed, fresh)
    recorder.event("x", {"event": "versus", "versus": None, "seq": 7}, fresh)  # too late to change the match
    assert json.loads((tmp_path / "x-2.json").read_text())["versus"] == {"colour": "white", "level": 0}
    # two players, and a board that says nonsense about it: a match for two
    for n, versus in ((3, None), (4, {"colour": "grey", "level": 9}), (5, "black")):
        recorder.event("x", {"event": "new_match", "first": "white", "seq": 10 * n}, None)
        recorder.event("x", placed, {"state": dict(fresh["state"], versus=versus)})
        assert "versus" not in json.loads((tmp_path / ("x-%d.json" % n)).read_text())


def test_a_match_against_the_board_is_recorded_as_one(tmp_path):
    # The board's state names its opponent (`versus`); the file says so, and doce referee takes it.
    recorder = Recorder(tmp_path, say=lambda line: None)
    versus = {"colour": "black", "level": 2, "move": None}
    state = {"state": {"round": 1, "board": {}, "rules": "standard", "first": "white", "versus": versus}}
    recorder.event("x", {"event": "new_match", "first": "white", "seq": 1}, state)
    for seq, (player, cell, value) in enumerate(ROUND, 2):
        recorder.event("x", {"event": "placed", "player": player, "cell": cell, "value": value, "seq": seq}, state)
    recorded = json.loads((tmp_path / "x-1.json").read_text())
    assert recorded["versus"] == {"colour": "black", "level": 2}
    recorder.event("x", {"event": "round_end", "round": 1, "points": {"white": 35, "black": 0}}, state)
    assert recorder.disagreements == 0
    # A match for two has no "versus".
    state["state"]["versus"] = None
    recorder.event("x", {"event": "new_match", "first": "black", "seq": 20}, state)
    recorder.event("x", {"event": "placed", "player": "black", "cell": "a1", "value": 1, "seq": 21}, state)
    assert "versus" not in json.loads((tmp_path / "x-2.json").read_text())
