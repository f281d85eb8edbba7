"""The journal's file format, on CPython: torn records, damage and other rules."""

import os

from doce.game import BLACK, WHITE
from doce.journal import Journal, record, DIE
from doce_host.rules import load_tables

TABLES = load_tables("standard")


def journal_with(tmp_path, *plays):
    os.chdir(tmp_path)
    j = Journal()
    j.new_match(WHITE, TABLES.checksum)
    for player, square, face in plays:
        j.die(player, square, face)
    return j


def test_replay_rebuilds_the_game(tmp_path):
    j = journal_with(tmp_path, (WHITE, 12, 4), (BLACK, 0, 2))
    game, note = j.replay(TABLES)
    assert note is None and game.board[12] == 0x14 and game.board[0] == 0x22 and game.to_move == WHITE


def test_a_torn_last_record_is_dropped_and_cut_off(tmp_path):
    j = journal_with(tmp_path, (WHITE, 12, 4), (BLACK, 0, 2))
    data = open("journal", "rb").read()
    open("journal", "wb").write(data[:-3])  # the power went mid-write
    game, note = j.replay(TABLES)
    assert game.board[12] == 0x14 and game.board[0] == 0 and "dropped 5 damaged byte(s) after 2" in note
    assert open("journal", "rb").read() == data[:-8]
    j.die(BLACK, 0, 2)  # appends after the last good record
    assert j.replay(TABLES)[0].board[0] == 0x22


def test_a_flipped_bit_ends_the_replay_there(tmp_path):
    j = journal_with(tmp_path, (WHITE, 12, 4), (BLACK, 0, 2), (WHITE, 24, 1))
    data = bytearray(open("journal", "rb").read())
    data[-10] ^= 0x40  # inside the second play
    open("journal", "wb").write(data)
    game, note = j.replay(TABLES)
    assert game.board[12] == 0x14 and game.board[0] == 0 and game.board[24] == 0 and note


def test_a_refused_record_ends_the_replay(tmp_path):
    j = journal_with(tmp_path, (WHITE, 12, 4))
    with open("journal", "ab") as f:
        f.write(record(DIE, bytes((WHITE, 13, 4))))  # white again: not their turn
    game, note = j.replay(TABLES)
    assert game.board[13] == 0 and "after 2" in note


def test_no_journal_or_another_rules_journal_starts_afresh(tmp_path):
    os.chdir(tmp_path)
    assert Journal().replay(TABLES) == (None, None)
    Journal().new_match(WHITE, TABLES.checksum ^ 1)
    game, note = Journal().replay(TABLES)
    assert game is None and "other rules" in note
    open("journal", "wb").write(b"\x00garbage")
    assert Journal().replay(TABLES)[1] == "journal unreadable; starting a new match"
