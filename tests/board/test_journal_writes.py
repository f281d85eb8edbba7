"""A journal write that fails is retried in order, so no later record lands past a gap."""

import os

from doce.controller import Controller
from doce.game import BLACK, WHITE, Game, die
from doce.journal import Journal
from doce_host.rules import load_tables

TABLES = load_tables("standard")


class FlakyJournal(Journal):
    """Fails the n-th die write once, as a full or busy flash might."""

    def __init__(self, fail_at):
        super().__init__()
        self.dice = 0
        self.fail_at = fail_at

    def die(self, player, square, face):
        self.dice += 1
        if self.dice == self.fail_at:
            raise OSError(28, "no space")
        super().die(player, square, face)


def test_a_failed_write_is_retried_before_later_ones(tmp_path):
    os.chdir(tmp_path)
    journal = FlakyJournal(fail_at=3)
    journal.new_match(WHITE, TABLES.checksum)
    journal.round_started(1)
    c = Controller(Game(TABLES, WHITE), journal, lambda event: None)
    board = bytearray(25)
    notes = []
    for player, square, face in ((WHITE, 12, 4), (BLACK, 0, 2), (WHITE, 24, 1), (BLACK, 4, 3)):
        board[square] = die(player, face)
        c.reconcile(board)
        notes.append(c.commit())
    assert notes[2] and "will retry" in notes[2] and notes[3] is None  # the retry went through
    game, waiting, note = Journal().replay(TABLES)
    assert note is None and bytes(game.board) == bytes(c.game.board)
