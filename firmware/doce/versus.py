"""Playing against the board: its opponent thinks between scans and says which move the
players must put down for it, and hints. Imported only when a match against the board is
chosen or a hint asked (the firmware's RAM does not carry it otherwise).

Pure: the app steps it once a scan, the lights read `move`, and the controller asks
`refusal` before it accepts a piece of the board's colour.
"""

from .controller import move_refusal
from .game import BLOCKER
from .opponent import NO_BLOCKER, STRONGEST, Opponent


def position_key(game):
    """A number that changes with every piece played: the move is worked out afresh for it."""
    return (((game.round * 64 + game.dice_left[0] + game.dice_left[1]) * 8
             + game.blockers_left[0] + game.blockers_left[1]) * 2 + (1 if game.blocker_this_turn else 0))


class Versus:
    alarm = 0  # a remote match's trouble to show on the edges (doce/remote.py); never the board's own

    def __init__(self, tables, colour, level=STRONGEST):
        self.colour = colour
        self.level = level
        self.player = Opponent(tables, level)
        self.thinking = None
        self.key = -1  # the position the move is for
        self.move = None  # (blocker square or NO_BLOCKER, square, face) once chosen

    def step(self, game):
        """One slice of thinking, between two scans. True when `move` has changed. Allocates
        nothing once it has chosen (the try block is in _think: its slots would put this frame
        on the heap at every scan)."""
        if game.round_over or game.to_move != self.colour:
            return self._forget()
        key = position_key(game)
        if key != self.key:
            return self._moved_on(game, key)
        return False if self.thinking is None else self._think()

    def _think(self):
        try:
            next(self.thinking)
            return False
        except StopIteration:
            self.thinking = None
            self.move = self.player.chosen
            return True

    def _moved_on(self, game, key):
        move = self.move
        if move and move[0] != NO_BLOCKER and game.blocker_this_turn and game.board[move[0]] == BLOCKER | self.colour:
            self.key = key
            self.move = (NO_BLOCKER, move[1], move[2])  # its blocker is down: now its die
            return True
        return self._afresh(game, key)

    def _afresh(self, game, key):
        """A new position: think it out from the start."""
        changed = self.move is not None
        self.key = key
        self.move = None
        # Seeded by the position, so after a power cut it chooses the very same move.
        self.player.rng.x = key % 65535 + 1
        self.thinking = self.player.think(game)
        return changed

    def _forget(self):
        changed = self.move is not None
        self.move = None
        self.thinking = None
        self.key = -1
        return changed

    def refusal(self, player, square, piece):
        """NOT_THE_MOVE for a piece of the board's colour that is not its move (or before it
        has chosen); None for anything else, which the rules engine judges as usual."""
        return None if player != self.colour else move_refusal(self.move, square, piece)


class Hint(Versus):
    """A hint asked with the button: the move the strongest level would play for `colour`, the
    player to move, thought in slices between scans as the board's own move is, and the same
    move as `hint` below. It lasts while the position is the one it was asked for (its blocker
    down: then its die); `over` once that player has played or the round has ended."""

    def __init__(self, tables, colour):
        Versus.__init__(self, tables, colour)
        self.over = False

    def _forget(self):
        self.over = True
        return Versus._forget(self)

    def _afresh(self, game, key):
        if self.key != -1:  # the position has moved on: the hint was for another
            return self._forget()
        return Versus._afresh(self, game, key)


def hint(tables, game):
    """The strongest level's move for the player to move, worked out at once (about 1 s on an
    ESP32, so the board itself thinks a hint in slices: Hint): (blocker square or NO_BLOCKER,
    square, face), or None. The same move as Hint's, for a host and the tests."""
    return Opponent(tables, STRONGEST, position_key(game)).choose(game)
