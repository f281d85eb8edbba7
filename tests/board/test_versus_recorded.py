"""A whole match against the board on the simulated board, chosen with its button, recorded as
doce fleet record records a board's games (its events and state), then refereed by `doce
referee`: the file says who the board played, and the referee agrees with the board round by
round and on the match."""

import json

from doce_host.cli import main
from doce_host.fleet.record import Recorder
from hands import ask, ask_later

MOST_SCANS = 20000  # 20 s of the board's time for one move to show: far more than it needs


def press(sim, then=0.6):
    sim.press(0.1)
    sim.wait(then)


def piece_down(sim, colour, move):
    """Put a move's pieces down as a hand would: its blocker first, then its die."""
    if "blocker" in move:
        sim.place(move["blocker"], colour + " blocker")
    sim.place(move["cell"], "%s %d" % (colour, move["value"]))


def boards_move(sim):
    """The move the board shows, once it has thought (bounded in the board's own time)."""
    for _ in range(MOST_SCANS // 100):
        move = sim.state()["versus"]["move"]
        if move:
            return move
        sim.run(100)
    raise AssertionError("the board showed no move in %d scans" % MOST_SCANS)


def test_a_match_against_the_board_chosen_with_the_button_is_recorded_and_refereed(sim, tmp_path, capsys):
    said = []
    recorder = Recorder(tmp_path / "games", say=said.append)
    board_said = []

    def record():
        state = {"state": sim.state()}
        for event in sim.take_events():
            recorder.event("sim", event, state)
            if event["event"] in ("round_end", "match_end"):
                board_said.append({k: v for k, v in event.items() if k not in ("event", "seq")})

    press(sim)  # who plays shows: two players
    press(sim, then=0.05)  # black at level 0
    press(sim, then=0.05)  # black at level 1
    assert ask(sim, "hello")["versus"] == {"colour": "black", "level": 1}
    sim.wait(4)  # the display goes
    record()
    for _ in range(200):  # a match is four rounds of at most 20 pieces each
        state = sim.state()
        if state["mode"] == "match_over":
            break
        if state["mode"] == "clearing":  # a round is over: clear the board for the next
            for cell in list(sim.pieces):
                sim.lift(cell)
        elif state["to_move"] == "black":
            piece_down(sim, "black", boards_move(sim))
        else:  # the person plays what the board would hint
            piece_down(sim, "white", ask_later(sim, "hint")[0]["hint"])
        record()
    else:
        raise AssertionError("the match did not end")
    record()
    assert recorder.disagreements == 0 and len(said) == 4, said
    path = tmp_path / "games" / "sim-1.json"
    recorded = json.loads(path.read_text())
    assert recorded["versus"] == {"colour": "black", "level": 1} and recorded["first"] == "white"
    capsys.readouterr()
    assert main(["referee", str(path)]) == 0
    refereed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert all(e["ok"] for e in refereed if "move" in e)
    assert [e for e in refereed if "move" not in e] == board_said  # every round, and the match
