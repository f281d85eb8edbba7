"""Per-sensor baselines and thresholds, measured on an empty board.

Stored on the board as calibration.bin: MAGIC, then the three tables as 16-bit
values, then a CRC-32. Without a file, the board file's nominal values apply.
`measure` re-runs calibration (the board must be empty).
"""

import binascii
import os
import struct
from array import array

from .board import SENSORS_PER_SQUARE

PATH = "calibration.bin"
MAGIC = b"DOCC"
TABLES = ("baseline", "absent_below", "present_above")


class CalibrationError(Exception):
    pass


def filled(typecode, n, value):
    """array(typecode) of n copies of value, built without a temporary list of n."""
    a = array(typecode)
    for _ in range(n):
        a.append(value)
    return a


class Calibration:
    def __init__(self, board):
        self.board = board
        self.baseline = filled("H", board.channels, board.baseline)
        self.absent_below = filled("H", board.channels, board.absent_below)
        self.present_above = filled("H", board.channels, board.present_above)
        self.measured = False

    def load(self, path=PATH):
        """Use stored values if there are any. A damaged file is reported and ignored."""
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None  # never calibrated: nominal values
        size = 2 * len(self.baseline)
        if (len(data) != len(MAGIC) + len(TABLES) * size + 4 or data[:4] != MAGIC
                or struct.unpack("<I", data[-4:])[0] != binascii.crc32(data[:-4])):
            return "calibration file damaged; using nominal values until recalibrated"
        for i, name in enumerate(TABLES):
            start = len(MAGIC) + i * size
            getattr(self, name)[:] = array("H", data[start:start + size])
        self.measured = True
        return None

    def save(self, path=PATH):
        """Write-then-rename, so a power cut leaves the old file or the new one."""
        body = MAGIC + b"".join(bytes(getattr(self, name)) for name in TABLES)
        with open(path + ".new", "wb") as f:
            f.write(body)
            f.write(struct.pack("<I", binascii.crc32(body)))
        os.rename(path + ".new", path)


def measure(sensors, board, scans=32):
    """A new Calibration from `scans` reads of an empty board; CalibrationError if it isn't."""
    n = board.channels
    total = filled("L", n, 0)
    low = filled("H", n, 65535)
    high = filled("H", n, 0)
    for _ in range(scans):
        raw = sensors.read()
        for ch in range(n):
            v = raw[ch]
            total[ch] += v
            low[ch] = min(low[ch], v)
            high[ch] = max(high[ch], v)
    cal = Calibration(board)
    for sq in range(board.squares):
        for i in range(SENSORS_PER_SQUARE):
            ch = board.square_channels[sq * SENSORS_PER_SQUARE + i]
            mean = total[ch] // scans
            if abs(mean - board.baseline) >= board.absent_below:
                raise CalibrationError("square %s is not empty, or its %s sensor is faulty"
                                       % (name_of(board, sq), "CNESW"[i]))
            noise = high[ch] - low[ch]
            absent = max(board.absent_below, 3 * noise)
            if absent >= board.present_above:
                raise CalibrationError("square %s is too noisy to read (%s sensor: %d counts)"
                                       % (name_of(board, sq), "CNESW"[i], noise))
            cal.baseline[ch] = mean
            cal.absent_below[ch] = absent
    cal.measured = True
    return cal


def name_of(board, sq):
    return "abcdefghijklmnop"[sq % board.grid] + str(sq // board.grid + 1)
