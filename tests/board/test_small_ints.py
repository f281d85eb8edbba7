"""Small ints on the chip stop at 2^30 - 1 (a 32-bit port's small ints have 31 bits: py/mpconfig.h,
MICROPY_OBJ_REPR_A); a larger value is a big int there, an allocation and slow arithmetic, where the
64-bit unix port the tests run on shows a small int. Hot values stay under 2^30: the simulator counts
every CRC-32 the firmware makes that is not (sim/device/simbinascii.py), and this file lists every
constant and CRC-32 call in the firmware that can make one, with why it is not hot."""

import ast

import pytest

from doce_host.paths import FIRMWARE_DIR
from doce_host.sim import SimBoard

SMALL = 1 << 30
# Where the firmware may make a value of 2^30 or more, and why that is not on a hot path.
ALLOWED = {
    ("calibration.py", "crc32"): "the calibration file, checked at boot and written by a calibration",
    ("tables.py", "crc32"): "the rule tables, checked at boot and when new ones come",
    ("link.py", "crc32"): "rules_commit: once a rules transfer",
    ("link.py", 0xFFFFFFFF): "rules_commit's CRC, masked: once a rules transfer",
    ("remote.py", "crc32"): "the game's checksum in a match with a friend's board, once a move (issue 41's: "
                            "a big int three times in four on the chip)",
    ("remote.py", 0xFFFFFFFF): "the same checksum, masked",
    ("update.py", 999999999999): "MAX_VERSION, the highest version: once an update_begin (a version, the time in "
                                 "seconds, is over 2^30 already)",
}


def constant(node):
    """The value of an int constant, or of one made of int constants with + - * << **; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp):
        a, b = constant(node.left), constant(node.right)
        ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
               ast.LShift: lambda: a << b, ast.Pow: lambda: a ** b}
        if a is not None and b is not None and type(node.op) in ops:
            return ops[type(node.op)]()
    return None


def big_values():
    """{(file, what): line} for each int constant of 2^30 or more, and each crc32 call, in the firmware."""
    found = {}
    for path in sorted((FIRMWARE_DIR / "doce").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            value = constant(node)
            if value is not None and abs(value) >= SMALL and not (
                    isinstance(node, ast.Constant) and any(isinstance(p, ast.BinOp) and node in (p.left, p.right)
                                                           and constant(p) is not None for p in ast.walk(tree))):
                found.setdefault((path.name, value), node.lineno)
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "crc32" and \
                    getattr(node.func.value, "id", None) == "binascii":
                found.setdefault((path.name, "crc32"), node.lineno)
    return found


def test_every_value_of_2_30_or_more_in_the_firmware_is_listed_and_not_hot():
    found = big_values()
    unlisted = {k: line for k, line in found.items() if k not in ALLOWED}
    assert not unlisted, "values of 2^30 or more (big ints on the chip) where none was: %s" % unlisted
    assert set(ALLOWED) >= set(found)


def test_the_check_finds_what_it_looks_for():
    tree = ast.parse("x = 1 << 30\ny = binascii.crc32(b'')\nz = 1 << 29\n")
    assert constant(tree.body[0].value) == SMALL and constant(tree.body[2].value) < SMALL


@pytest.fixture
def board(tmp_path):
    with SimBoard(tmp_path) as b:
        yield b


def test_a_play_makes_no_value_the_chip_would_hold_as_a_big_int(board):
    """Each play is journaled with a CRC-32 (doce/journal.py): as binascii.crc32's int it was a big
    int on the chip three times in four; doce/crc.py works it out in 16-bit halves."""
    before = board.debug_state()["big_ints"]
    for cell, piece in (("a1", "white 2"), ("a5", "black 1"), ("c1", "white 4"), ("c5", "black 1")):
        board.place(cell, piece)
    assert len([e for e in board.events if e["event"] == "placed"]) == 4
    board.wait(0.5)  # idle scans too
    assert board.debug_state()["big_ints"] == before
