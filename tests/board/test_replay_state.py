"""A recorded game's replay reports each step as the board itself would (one state builder:
state.board_snapshot over the board's own controller and lights)."""

import pytest

from doce_host.recorded import steps

OPENING = [{"player": "white", "cell": "c3", "value": 4}, {"player": "black", "cell": "a1", "value": 2},
           {"player": "white", "cell": "e5", "value": 1}, {"player": "black", "cell": "b5", "blocker": True}]
COMPARED = ("mode", "round", "to_move", "first", "blocker_this_turn", "board", "zones", "last", "dice_left",
            "blockers_left", "scores", "totals", "problems", "seen", "rules", "rules_checksum")


def piece(move):
    return "%s %s" % (move["player"], "blocker" if move.get("blocker") else move["value"])


@pytest.mark.parametrize("refused", [
    {"player": "black", "cell": "b1", "value": 3},  # in black's no-play zone (around a1)
    {"player": "white", "cell": "d1", "value": 6},  # black owes a die after its blocker
    {"player": "black", "cell": "d1", "blocker": True},  # black's blocker is spent
])
def test_the_replay_reports_what_the_board_reports(sim, refused):
    for move in OPENING:
        sim.place(move["cell"], piece(move))
    played = steps({"moves": OPENING})[-1][0]
    board = sim.state()
    assert {k: played[k] for k in COMPARED} == {k: board[k] for k in COMPARED}

    sim.place(refused["cell"], piece(refused))  # the board sees a die it cannot accept
    shown, note = steps({"moves": OPENING + [refused]})[-1]
    board = sim.state()
    assert board["mode"] == "correcting" and "refused" in note
    assert {k: shown[k] for k in COMPARED} == {k: board[k] for k in COMPARED}
