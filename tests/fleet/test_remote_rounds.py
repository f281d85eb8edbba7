"""A remote match across its rounds (doce/remote.py): a board restarted between two rounds, after
the next round has begun on it and before its first play, takes up the match where it was; and a
board cut late in a match, its journal long, is back on the broker as one cut in round 1 is. Two
simulated boards on a real Mosquitto, each on the simulator's ESP32-sized heap."""

import pytest
from casebook import piece_of
from fleet_helpers import link
from remote_helpers import Pair, clear_both, events_of, play_round
from test_match import MATCH

# The least heap in one piece a board back on the broker must have: twice what a connection's first
# scan writes into the MQTT pipe at once (CONNECT, subscriptions, status, the retained state, the
# friend's message: about 2 KB on the unix port), so a buffer grown around it still finds room.
ONE_PIECE = 4096


@pytest.fixture
def pair(tmp_path, mosquitto):
    p = Pair(tmp_path, mosquitto)
    yield p
    p.close()


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


def test_a_power_cut_late_in_a_match_gets_the_board_back_on_the_broker(pair):
    """Issue 41, 2: cut at its second flash write as c1 white 3 lands in round 3, after two clean
    rounds, the board came back with its heap in pieces (68 KB free, none of it 1.4 KB in one run)
    and never on the broker again: `net` said MemoryError at every connection."""
    pair.pair()
    for moves in MATCH[:2]:
        play_round(pair, moves)
        clear_both(pair)
    third = MATCH[2]
    play_round(pair, third[:6])
    assert (third[6]["cell"], piece_of(third[6])) == ("c1", "white 3")
    pair.a.cut_power_at_flash_write(after=2)
    pair.a.place("c1", "white 3")
    assert pair.until(lambda: pair.a.power_was_cut)
    pair.pump(100)
    pair.a.power_on()
    assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"]), \
        link(pair.a, cmd="net")["status"]
    # Its heap as whole as a board's fresh from boot (about 10 KB in one piece): what a connection
    # needs at once (the pipe's buffer holding a state's text) is there, reconnect after reconnect
    assert pair.a.command(do="heap", largest=True)["largest"] >= ONE_PIECE
    assert pair.shown(pair.b) == {"cell": "c1", "value": 3}
    pair.b.place("c1", "white 3")
    play_round(pair, third[7:])
    clear_both(pair)
    play_round(pair, MATCH[3])
    assert pair.until(pair.boards_agree)
    for board in (pair.a, pair.b):
        assert pair.remote(board)["plays"] == sum(map(len, MATCH)) and pair.remote(board)["mismatch"] is None
        assert board.state()["mode"] == "match_over" and len(board.state()["scores"]) == len(MATCH)
        assert not events_of(board, "remote_mismatch")
    assert pair.a.state()["scores"] == pair.b.state()["scores"]
