"""Per-sensor baselines and thresholds, measured on an empty board.

Stored on the board as calibration.json; without one, the board file's nominal
values apply. `measure` re-runs calibration (the board must be empty).
"""

import json
import os
from array import array

from .board import SENSORS_PER_SQUARE

PATH = "calibration.json"


class CalibrationError(Exception):
    pass


class Calibration:
    def __init__(self, board):
        self.board = board
        self.baseline = array("H", [board.baseline] * board.channels)
        self.absent_below = array("H", [board.absent_below] * board.channels)
        self.present_above = array("H", [board.present_above] * board.channels)
        self.measured = False

    def load(self, path=PATH):
        """Use stored values if there are any. A damaged file is reported and ignored."""
        try:
            with open(path) as f:
                stored = json.load(f)
            for name in ("baseline", "absent_below", "present_above"):
                values = stored[name]
                table = getattr(self, name)
                if len(values) != len(table):
                    raise ValueError(name)
                for i in range(len(table)):
                    table[i] = values[i]
            self.measured = True
            return None
        except OSError:
            return None  # never calibrated: nominal values
        except (ValueError, KeyError, TypeError):
            self.__init__(self.board)
            return "calibration file damaged; using nominal values until recalibrated"

    def save(self, path=PATH):
        """Write-then-rename, so a power cut leaves the old file or the new one."""
        with open(path + ".new", "w") as f:
            json.dump({"baseline": list(self.baseline), "absent_below": list(self.absent_below),
                       "present_above": list(self.present_above)}, f)
        os.rename(path + ".new", path)


def measure(sensors, board, scans=32):
    """A new Calibration from `scans` reads of an empty board; CalibrationError if it isn't."""
    n = board.channels
    total = [0] * n
    low = [65535] * n
    high = [0] * n
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
