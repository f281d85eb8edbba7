"""doce check board on a board paired for a remote match (review of issue 38, finding 1): the check's
module (doce/bringup.py, loaded only when asked for) loads beside remote.py's and the match's, and
every step answers, on the simulator's ESP32-sized heap. A MemoryError here was once the answer to
the first step on a paired board, until it was power-cycled."""

from fleet_helpers import link
from remote_helpers import Pair, play_round
from test_match import MATCH

STEPS = ("start", "sensors", "read", "button", "storage", "network", "end")


def test_the_board_check_runs_on_a_board_paired_for_a_remote_match(tmp_path, mosquitto):
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        play_round(pair, MATCH[0][:2])  # a play from each board: the journal holds the broker's acknowledgements
        for sim in (pair.a, pair.b):
            for step in STEPS:
                reply = link(sim, cmd="board_check", step=step)
                assert reply["ok"], (step, reply)
            assert link(sim, cmd="board_check", step="network")["error"] == "no_check"  # back to the game
            assert sim.state()["remote"]["connected"] and sim.state()["remote"]["plays"] == 2
    finally:
        pair.close()
