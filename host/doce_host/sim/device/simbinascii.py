"""The ESP32's binascii as the firmware sees it in the simulator: the unix port's, but crc32 counts
each result of 2^30 or more. On the chip such a value is a big int (a 32-bit port's small ints stop at
2^30 - 1: py/mpconfig.h, MICROPY_OBJ_REPR_A), an allocation and slow arithmetic, where the 64-bit unix
port shows a small one. debug_state's "big_ints" says how many since boot, so a test holds a hot path
(a scan, a play) to none (tests/board/test_small_ints.py)."""

from binascii import *  # noqa: F401,F403
from binascii import crc32 as _crc32

import machine


def crc32(data, crc=0):
    value = _crc32(data, crc)
    if value >= 1 << 30:
        machine.big_ints += 1
    return value
