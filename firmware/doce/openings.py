"""The strongest level's answer to the other player's opening die: chosen once on a PC by playing
rounds on from each answer (bench/openings.py writes this file), for the standard rules only.

Every baseline opens in the centre, and level 3 lost most of the rounds it lost to greedy by its
answer there (issue 44). The table is read as untrusted: a reply that is not a die on an empty
square is not played, and other rules are searched.
"""

from .game import EMPTY, NOWHERE

# The rules tables' checksum the replies were chosen for (doce/tables.py), its high and low 16 bits
# (a CRC-32 is a big int on the chip): other rules search.
CHECKSUM = (20966, 33891)
# One byte for each opening die, at square * faces + face - 1: the reply's square * 8 + its face;
# 0 where none was chosen (level 3 searches).
REPLIES = (
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x41\x42\x43\x44\x3e\x3e\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    b"\x00\x00\x00\x00\x00\x00"
)


def reply(game, me):
    """(NO_BLOCKER, square, face): the table's answer when the board holds only the other player's
    opening die and me is to play its first die; else None."""
    t = game.tables
    if game.blocker_this_turn or game.last_placed[me] != NOWHERE or len(REPLIES) != t.squares * t.faces:
        return None
    them = NOWHERE
    for q in range(t.squares):
        c = game.board[q]
        if c != EMPTY:
            if them != NOWHERE or c >> 4 != 2 - me:
                return None  # more than one die, a blocker, or a die of mine
            them = q
    # the checksum only here, once a round at most: on the chip it is a big int
    if them == NOWHERE or t.checksum >> 16 != CHECKSUM[0] or t.checksum & 0xFFFF != CHECKSUM[1]:
        return None
    face = game.board[them] & 0x0F
    if not 1 <= face <= t.faces:
        return None
    x = REPLIES[them * t.faces + face - 1]
    sq, f = x >> 3, x & 7
    if not x or sq >= t.squares or not 1 <= f <= t.faces or game.board[sq] != EMPTY:
        return None
    return NOWHERE, sq, f
