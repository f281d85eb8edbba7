"""CRC-32, byte for byte binascii.crc32's (IEEE 802.3: reflected, polynomial 0xEDB88320, 0xFFFFFFFF
in and out), written as struct.pack("<I") would, but worked out in two 16-bit halves.

Why: on the ESP32 an int is small only up to 2^30 - 1 (a 32-bit port's small ints have 31 bits:
py/mpconfig.h, MICROPY_OBJ_REPR_A), so binascii.crc32's result is a big int three times in four:
an allocation and slow arithmetic, where the 64-bit unix port the tests run on shows a small int.
The journal checks a record at every play: this keeps every value under 2^16. It is slower than
binascii's C for long data, so the rule tables and the calibration, checked once at boot or on a
command, keep binascii (tests/board/test_small_ints.py lists where, and why).
"""

from array import array


def _table():
    high, low = array("H", bytes(512)), array("H", bytes(512))
    for n in range(256):
        h, lo = 0, n
        for _ in range(8):
            odd = lo & 1
            lo = (lo >> 1) | ((h & 1) << 15)
            h >>= 1
            if odd:
                h ^= 0xEDB8
                lo ^= 0x8320
        high[n] = h
        low[n] = lo
    return high, low


HIGH, LOW = _table()


def crc32(data):
    """binascii.crc32(data) as its 4 little-endian bytes."""
    h = lo = 0xFFFF
    for b in data:
        i = (lo ^ b) & 0xFF
        lo = ((lo >> 8) | ((h & 0xFF) << 8)) ^ LOW[i]
        h = (h >> 8) ^ HIGH[i]
    h ^= 0xFFFF
    lo ^= 0xFFFF
    return bytes((lo & 0xFF, lo >> 8, h & 0xFF, h >> 8))
