"""A paired board restarted late in a match comes back with its free heap in one piece, as early in
it (issue 41's power-cut campaign). At boot the game is replayed from the journal among the garbage
of reading it, and made again once that garbage is collected (doce/app.py, Game.copy): the objects
the replay made (its round ends above all) lay above its garbage, and from round 4 on each restart
left the largest free block at 21.9 KB where round 1's left 36 KB (the campaign's match, unix port,
the simulator's ESP32-sized heap), the 14 KB qstr pool that remote.py's loading needs placed above
them."""

from remote_helpers import Pair, clear_both, play_round
from test_match import MATCH

# How far a late restart's largest free block may fall below an early one's, beyond the match's own
# record (the free heap after a collection, lower by what the match holds: its round ends, scores)
SLACK = 2048


def test_a_restart_late_in_a_remote_match_leaves_the_heap_in_one_piece_as_an_early_one(tmp_path, mosquitto):
    pair = Pair(tmp_path, mosquitto)
    boots = []
    try:
        pair.pair()
        for number, moves in enumerate(MATCH, 1):
            play_round(pair, moves)
            pair.b.power_on(settle=False)  # the round's last play just made: the longest journal of the round
            boots.append(pair.b.command(do="heap", largest=True))
            assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
            if number < len(MATCH):
                clear_both(pair)
    finally:
        pair.close()
    first, last = boots[0], boots[-1]
    record = max(0, first["free"] - last["free"])
    assert last["largest"] >= first["largest"] - record - SLACK, [(b["largest"], b["free"]) for b in boots]
