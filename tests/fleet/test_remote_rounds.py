"""A remote match across its rounds (doce/remote.py): a board restarted between two rounds, after
the next round has begun on it and before its first play, takes up the match where it was. Two
simulated boards on a real Mosquitto."""

import pytest
from casebook import piece_of
from remote_helpers import Pair, events_of
from test_match import MATCH


@pytest.fixture
def pair(tmp_path, mosquitto):
    p = Pair(tmp_path, mosquitto)
    yield p
    p.close()


def play_round(pair, moves):
    """Each move put down on its player's board, then on the friend's from its light."""
    for m in moves:
        pair.play(pair.a if m["player"] == "white" else pair.b, m["cell"], piece_of(m))


def clear_both(pair):
    """Both players lift every piece: the next round begins on each board."""
    for sim in (pair.a, pair.b):
        for cell in list(sim.pieces):
            sim.lift(cell)
    assert pair.until(lambda: pair.a.state()["mode"] == "playing" and pair.b.state()["mode"] == "playing")


@pytest.mark.parametrize("how", ["power cut", "reboot"])
@pytest.mark.parametrize("side", ["b1", "b2"])
def test_a_board_restarted_after_the_next_round_began_plays_on(pair, side, how):
    """Issue 41, 1: the board's digest of its last play, replayed at boot, was taken from the game as
    it is now (the next round begun), so both boards stopped with a false remote_mismatch."""
    pair.pair()
    play_round(pair, MATCH[0])
    clear_both(pair)
    sim = pair.boards[side]
    if how == "power cut":
        sim.cut_power()
    sim.power_on()  # (after a cut, or as a reset: the process stopped and started again)
    assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
    play_round(pair, MATCH[1][:2])
    assert pair.until(pair.boards_agree)
    for board in (pair.a, pair.b):
        assert pair.remote(board)["mismatch"] is None
        assert not events_of(board, "remote_mismatch")
        assert board.state()["round"] == 2 and len(board.state()["board"]) == 2
