"""The journal's file format, on CPython: torn records, damage, other rules, and waiting
for a clear board across a reboot."""

import os

from doce.game import BLACK, WHITE
from doce.journal import DIE, Journal, record
from doce_host.rules import load_tables

TABLES = load_tables("standard")


def journal_with(tmp_path, *plays):
    os.chdir(tmp_path)
    j = Journal()
    j.new_match(WHITE, TABLES.checksum)
    j.round_started(1)
    for player, square, face in plays:
        j.die(player, square, face)
    return j


def test_replay_rebuilds_the_game(tmp_path):
    j = journal_with(tmp_path, (WHITE, 12, 4), (BLACK, 0, 2))
    game, waiting, note = j.replay(TABLES)
    assert note is None and not waiting
    assert game.board[12] == 0x14 and game.board[0] == 0x22 and game.to_move == WHITE


def test_a_new_match_waits_for_a_clear_board_until_its_round_begins(tmp_path):
    os.chdir(tmp_path)
    j = Journal()
    j.new_match(BLACK, TABLES.checksum)
    game, waiting, _ = j.replay(TABLES)
    assert waiting and game.to_move == BLACK
    with open("journal", "ab") as f:
        f.write(record(DIE, bytes((BLACK, 12, 4))))  # a play before the round began: refused
    game, waiting, note = j.replay(TABLES)
    assert waiting and game.board[12] == 0 and "dropped" in note
    j.round_started(1)
    assert j.replay(TABLES)[1] is False


def test_an_abandoned_round_waits_for_a_clear_board_again(tmp_path):
    j = journal_with(tmp_path, (WHITE, 12, 4))
    j.round_abandoned(1)
    game, waiting, _ = j.replay(TABLES)
    assert waiting and game.board[12] == 0 and game.dice_left[WHITE] == 11
    j.round_started(1)
    j.die(WHITE, 0, 3)
    game, waiting, _ = j.replay(TABLES)
    assert not waiting and game.board[0] == 0x13


def test_a_torn_last_record_is_dropped_and_cut_off(tmp_path):
    j = journal_with(tmp_path, (WHITE, 12, 4), (BLACK, 0, 2))
    data = open("journal", "rb").read()
    open("journal", "wb").write(data[:-3])  # the power went mid-write
    game, _, note = j.replay(TABLES)
    assert game.board[12] == 0x14 and game.board[0] == 0 and "dropped 5 damaged byte(s) after 3" in note
    assert open("journal", "rb").read() == data[:-8]
    j.die(BLACK, 0, 2)  # appends after the last good record
    assert j.replay(TABLES)[0].board[0] == 0x22


def test_a_flipped_bit_ends_the_replay_there(tmp_path):
    j = journal_with(tmp_path, (WHITE, 12, 4), (BLACK, 0, 2), (WHITE, 24, 1))
    data = bytearray(open("journal", "rb").read())
    data[-10] ^= 0x40  # inside the second play
    open("journal", "wb").write(data)
    game, _, note = j.replay(TABLES)
    assert game.board[12] == 0x14 and game.board[0] == 0 and game.board[24] == 0 and note


def test_a_refused_record_ends_the_replay(tmp_path):
    j = journal_with(tmp_path, (WHITE, 12, 4))
    with open("journal", "ab") as f:
        f.write(record(DIE, bytes((WHITE, 13, 4))))  # white again: not their turn
    game, _, note = j.replay(TABLES)
    assert game.board[13] == 0 and "after 3" in note


def test_no_journal_or_another_rules_journal_starts_afresh(tmp_path):
    os.chdir(tmp_path)
    assert Journal().replay(TABLES) == (None, True, None)
    Journal().new_match(WHITE, TABLES.checksum ^ 1)
    game, _, note = Journal().replay(TABLES)
    assert game is None and "other rules" in note
    open("journal", "wb").write(b"\x00garbage")
    assert Journal().replay(TABLES)[2] == "journal unreadable; starting a new match"
