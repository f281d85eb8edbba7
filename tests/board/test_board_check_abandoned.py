"""A board check whose computer went away (killed, unplugged, its terminal closed) mid-check: the
board goes back to the game by itself, saying so, after doce/bringup.py's QUIET_MS without a word."""

from hands import ask, events

from doce.bringup import QUIET_MS


def test_a_check_that_hears_nothing_gives_the_board_back_to_the_game(sim):
    assert ask(sim, "board_check", step="start")["ok"]
    sim.run(2)
    sim.place("c3", "white 4")  # the check's: the game waits
    assert events(sim, "placed") == []
    sim.run(2, skip_ms=QUIET_MS - 1000)  # quiet, not yet too long: still the check's
    assert ask(sim, "board_check", step="button")["ok"]  # a word from the computer starts the wait again
    sim.run(2, skip_ms=QUIET_MS - 1000)
    assert events(sim, "warning") == []
    sim.run(2, skip_ms=2000)
    said = [(e["event"], e.get("message") or e.get("cell")) for e in events(sim)]
    # the reason first, then the game as it was against the board as it is: the die put down meanwhile is a play
    assert said == [("warning", "the board check ended: no word from the computer in 5 minutes"), ("placed", "c3")]
    assert sim.state()["board"] == {"c3": "white 4"}
    reply = ask(sim, "board_check", step="read")
    assert not reply["ok"] and reply["error"] == "no_check" and "5 minutes" in reply["message"]
