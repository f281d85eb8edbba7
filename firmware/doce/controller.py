"""The controller: the settled board in, the game's decisions out.

The game (the rules engine) says what should be on the board; the scanner says
what is. After every settled change the controller compares the two:
  - they match: nothing to do (a correction, if there was one, is cleared);
  - one new piece, nothing else amiss: a play. The engine accepts it, or refuses
    it with its reason (no_play_zone, not_your_turn, no_blocker);
  - anything else marks each differing square with a problem, and the game waits
    in correction mode until the board matches it again.
A refused or unexplained piece is never counted, so nothing is lost and nothing
is counted twice. After a round ends the board must be cleared before the next
round starts; after the match, the result stays until a new match is started.
A board never calibrated waits for an empty board (CLEARING) whatever its game, and
starts nothing until the App has calibrated it there (`calibrated`): no piece is read
on one baseline for every sensor.
"""

import gc

from .board import UNSETTLED
from .game import EMPTY, NOWHERE, PLAYER_NAMES, Game, face, is_blocker, owner
from .referee import match_event, round_event
from .squares import square_name

PLAYING = "playing"
CORRECTING = "correcting"
CLEARING = "clearing"  # waiting for an empty board to start a round
MATCH_OVER = "match_over"

# Problems on a square, besides the engine's refusals.
LIFTED = "lifted"  # a piece of the game is missing
TURNED = "turned"  # a piece of the game shows another face, or was swapped
MOVED = "moved"  # a piece of the game was lifted and put down elsewhere
TWO_AT_ONCE = "two_at_once"  # more than one new piece
NOT_NOW = "not_now"  # a new piece put down while the board needs fixing
UNREADABLE = "unreadable"  # a piece left tilted or half on the square
NOT_THE_MOVE = "not_the_move"  # a piece of the side whose move the lights show, but not that move


def move_refusal(move, square, piece):
    """NOT_THE_MOVE unless `piece` on `square` is the move the lights show for the other side
    (the board's own, doce/versus.py, or a friend's, doce/remote.py): `move` is (its blocker's
    square or NOWHERE, square, face), None while none is known. Its blocker goes first."""
    if move is None:
        return NOT_THE_MOVE
    if is_blocker(piece):
        return None if move[0] == square else NOT_THE_MOVE
    return None if move[0] == NOWHERE and move[1] == square and move[2] == face(piece) else NOT_THE_MOVE


class Controller:
    def __init__(self, game, journal, emit, waiting=False):
        self.game = game
        self.journal = journal
        self.emit = emit  # emit(event): a dict, or a function making one when it is sent
        self.problems = [None] * game.tables.squares
        self.physical = bytearray(game.tables.squares)  # the settled board last seen
        self.looked = False  # whether the board has been read since boot: till then, physical is a guess
        self.again = False  # a turn's blocker played, its die still to take from the board (_turn)
        self.unwritten = []  # journal calls owed; written after the lights show the play
        self.versus = None  # doce.versus.Versus in a match against the board: it says which move is its
        self.hint = None  # doce.versus.Hint asked with the button: shown in light, never enforced
        self.uncalibrated = False  # waiting for an empty board to calibrate on: nothing starts
        self.resume = None  # the mode to go back to once calibrated
        self._resume_mode(waiting)
        self.changed = True  # the lights need drawing again

    def _resume_mode(self, waiting=False):
        g = self.game
        self.mode = MATCH_OVER if g.match_over else CLEARING if g.round_over or waiting else PLAYING

    # -- commands -----------------------------------------------------------

    def await_calibration(self):
        """The sensors have no baselines of their own yet: ask for an empty board, and start
        nothing and read no piece until `calibrated` (a match over keeps its result)."""
        self.uncalibrated = True
        self.resume = self.mode
        if self.mode != MATCH_OVER:
            self.mode = CLEARING
            self.changed = True

    def calibrated(self):
        """Calibrated on the empty board: the game goes on as it was (a round in play sees
        its pieces lifted, to be put back; a round waiting for a clear board starts)."""
        if not self.uncalibrated:
            return
        self.uncalibrated = False
        if self.mode == CLEARING:
            self.mode = self.resume
        self.changed = True
        self.reconcile(self.physical)

    def new_match(self, first, tables=None):
        """Start a new match (with new rule tables, if given) once the board is clear."""
        tables = tables or self.game.tables
        self._clear_problems()
        self.game = Game(tables, first)
        self.hint = None
        self.resume = CLEARING
        v = self.versus  # who plays goes in the match's first write, with it (journal.py)
        self.unwritten.append((self.journal.new_match, (first, tables.checksum, v and (v.colour, v.level))))
        self.mode = CLEARING
        self.emit({"event": "new_match", "first": PLAYER_NAMES[first]})
        self.changed = True
        self.reconcile(self.physical)  # the board may be clear already

    def restart_round(self):
        """Abandon the round in play (by the players' agreement); it starts again once the
        board is clear. False if no round is in play."""
        g = self.game
        if self.mode not in (PLAYING, CORRECTING) or g.round_over:
            return False
        self._clear_problems()
        g.restart_round()
        self.unwritten.append((self.journal.round_abandoned, (g.round,)))
        self.mode = CLEARING
        self.emit({"event": "round_restarted", "round": g.round})
        self.changed = True
        self.reconcile(self.physical)
        return True

    def commit(self):
        """Write the journal records owed, in order. Returns an error note, or None.

        A record that fails stays first in line and is tried again at the next commit:
        later records must not be written past a gap, or replay would stop at it.
        """
        while self.unwritten:
            write, args = self.unwritten[0]
            try:
                write(*args)
            except (OSError, MemoryError) as e:  # flash trouble, or no room for a file buffer
                gc.collect()  # what garbage there is may leave room by the retry
                return "journal write failed (%s); will retry, the game goes on" % e
            self.unwritten.pop(0)
        return None

    # -- the board changed ----------------------------------------------------

    def reconcile(self, board):
        """Compare the settled `board` with the game and act on the difference."""
        self.physical[:] = board
        self.looked = True
        if self.mode == MATCH_OVER:
            return
        if self.mode == CLEARING:
            self.changed = True  # squares go dark as they are cleared
            cells = [square_name(self.game.tables.grid, sq) for sq in range(len(board)) if board[sq] != EMPTY]
            if cells:  # which squares still hold a piece: a host follows the clearing without asking
                self.emit({"event": "clearing", "left": len(cells), "cells": cells})
            elif not self.uncalibrated:  # else the App calibrates on this empty board first
                self._start_round()
            return
        g = self.game
        new = []
        problems = [None] * len(board)
        for sq in range(len(board)):
            want, got = g.board[sq], board[sq]
            if got == want:
                continue
            if got == UNSETTLED:
                problems[sq] = UNREADABLE
            elif want == EMPTY:
                new.append(sq)
            elif got == EMPTY:
                problems[sq] = LIFTED
            else:
                problems[sq] = TURNED
        if len(new) == 1 and not any(problems):
            why = self._play(new[0], board[new[0]])
            if why is None:
                return
            problems[new[0]] = why
        elif len(new) == 2 and not any(problems) and self._turn(new, board):
            return
        elif new:
            lifted = [sq for sq in range(len(board)) if problems[sq] == LIFTED]
            if (len(new) == 1 and len(lifted) == 1
                    and owner(board[new[0]]) == owner(g.board[lifted[0]])):
                problems[new[0]] = problems[lifted[0]] = MOVED
            else:
                for sq in new:
                    problems[sq] = TWO_AT_ONCE if len(new) > 1 else NOT_NOW
        self._set_problems(problems)

    def _turn(self, new, board):
        """Two new pieces that are one player's turn, a blocker and a die (put down together, or while
        the board was off: a move it had not written is taken again from the squares): the rules say the
        blocker goes first, so the pair is not ambiguous, as two dice are. True if they are such a pair:
        the blocker played now, and the die at the next scan (`again`: the App reconciles once more), after
        the blocker's events have gone (a friend's board checks each play's position: doce/remote.py); a
        refused blocker marked with why and its die not_now (a friend's move not heard of yet is taken once
        it is, doce/remote.py). False: two_at_once."""
        blocker, die = new if is_blocker(board[new[0]]) else (new[1], new[0])
        if not is_blocker(board[blocker]) or is_blocker(board[die]) or board[blocker] & 1 != owner(board[die]):
            return False
        why = self._play(blocker, board[blocker])
        if why is None:
            self.again = True
            return True
        problems = [None] * len(board)
        problems[blocker], problems[die] = why, NOT_NOW
        self._set_problems(problems)
        return True

    def _play(self, sq, piece):
        g = self.game
        blocker = is_blocker(piece)
        player = piece & 1 if blocker else owner(piece)
        if self.versus:  # the engine's reason first, then the opponent's (it says whose move is whose)
            why = g.refusal(player, sq, face(piece), blocker) or self.versus.refusal(player, sq, piece)
            if why:
                return why
        ended = len(g.rounds)
        # place and place_blocker check the play themselves: refused, nothing has changed
        why = g.place_blocker(player, sq) if blocker else g.place(player, sq, face(piece))
        if why:
            return why
        event = {"event": "placed", "player": PLAYER_NAMES[player], "cell": square_name(g.tables.grid, sq)}
        if blocker:
            self.unwritten.append((self.journal.blocker, (player, sq)))
            event["blocker"] = True
        else:
            self.unwritten.append((self.journal.die, (player, sq, face(piece))))
            event["value"] = face(piece)
        self._clear_problems()
        self.emit(event)
        if len(g.rounds) > ended:  # the results are worked out once the lights show the play
            self.emit(self._round_end)
            if g.match_over:
                self.emit(self._match_end)
        self._resume_mode()
        self.changed = True
        return None

    def _round_end(self):
        e = round_event(self.game, self.game.rounds[-1])
        e["event"] = "round_end"
        return e

    def _match_end(self):
        e = match_event(self.game)
        e["event"] = "match_end"
        return e

    def _start_round(self):
        """The board is clear: the next round, the first of a match, or a restarted one begins."""
        g = self.game
        if g.round_over:
            g.start_round()
        self.unwritten.append((self.journal.round_started, (g.round,)))
        self.mode = PLAYING
        self.emit({"event": "round_start", "round": g.round, "first": PLAYER_NAMES[g.to_move]})
        self.changed = True

    def _set_problems(self, problems):
        if problems == self.problems:
            return
        was_correcting = self.mode == CORRECTING
        self.problems = problems
        self.changed = True
        if not any(problems):
            self.mode = PLAYING
            if was_correcting:
                self.emit({"event": "corrected"})
            return
        self.mode = CORRECTING
        by_reason = {}
        for sq in range(len(problems)):
            if problems[sq]:
                by_reason.setdefault(problems[sq], []).append(square_name(self.game.tables.grid, sq))
        for reason in sorted(by_reason):
            self.emit({"event": "illegal", "reason": reason, "cells": by_reason[reason]})

    def _clear_problems(self):
        self._set_problems([None] * len(self.problems))
