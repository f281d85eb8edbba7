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


def write_match(game):
    """The match around the position: "round white black", the round and each player's points in
    the rounds before it (the strongest level plays to them in the last round)."""
    white, black = game.totals()
    return "%d %d %d" % (game.round, white, black)


def read_match(game, words):
    """Sets `game`'s round and the points of the rounds before it from write_match's words, the
    first three of `words` (none: the first round); returns the words after them."""
    from doce.game import DRAW, RoundEnd
    if not words:
        words = ["1", "0", "0"]
    if len(words) < 3:
        raise ValueError("a match: round white black")
    number, white, black = int(words[0]), int(words[1]), int(words[2])
    if not 1 <= number <= game.tables.rounds or white < 0 or black < 0:
        raise ValueError("a match out of range: " + " ".join(words[:3]))
    game.round = number
    # all the opponent reads of the rounds before: how many, and their points
    game.rounds = [RoundEnd(k + 1, DRAW, "", [], (white, black) if k == 0 else (0, 0)) for k in range(number - 1)]
    return words[3:]
