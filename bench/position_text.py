# A DOCE position as one line of text, for the opponent's benches and tests: written by
# bench/ladder.py and bench/worst_move.py, read by them and by the scripts that think on
# MicroPython (bench/opponent_think.py, bench/opponent_serve.py, tests/opponent/mp_steps.py), so
# it runs unchanged on CPython and MicroPython. tests/opponent/chosen_moves.txt keeps its
# positions so.
#   "board dice blockers last to_move [more...]": hex bytes of the Game's fields, then to_move;
#   what follows (a seed, a level) is the caller's.


def write(game):
    """The position of `game`, the player to move included."""
    return "%s %s %s %s %d" % (bytes(game.board).hex(), bytes(game.dice_left).hex(),
                               bytes(game.blockers_left).hex(), bytes(game.last_placed).hex(), game.to_move)


def read(game, text):
    """Sets `game` to the position `text` opens with, its blocker not played this turn; returns
    the words after it. A text of another board's size or a field out of place is refused."""
    words = text.split()
    if len(words) < 5:
        raise ValueError("a position: board dice blockers last to_move")
    board, dice, blockers, last = (bytes.fromhex(w) for w in words[:4])
    to_move = int(words[4])
    if (len(board) != len(game.board) or len(dice) != 2 or len(blockers) != 2 or len(last) != 2
            or to_move not in (0, 1)):
        raise ValueError("a position of another board: " + words[0])
    game.board[:] = board
    game.dice_left[:] = dice
    game.blockers_left[:] = blockers
    game.last_placed[:] = last
    game.to_move = to_move
    game.blocker_this_turn = False
    return words[5:]
