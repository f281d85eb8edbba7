# Runs under MicroPython: micropython mp_scan_alloc.py BOARD_JSON
# Prints the bytes a scanner allocates while every square's die is read, settles unreadable
# (its ring then watched at every scan), then settles readable (watched no more): 0 promised.
import sys
from array import array

import micropython
from doce.board import load
from doce.calibration import Calibration
from doce.scanner import Scanner

board = load(sys.argv[1])


class Sensors:
    """Every channel read exactly: a square's five from `square` (counts from the baseline)."""

    def __init__(self):
        self.raw = array("H", [board.baseline] * board.channels)

    def put(self, square):
        for sq in range(board.squares):
            for i in range(5):
                self.raw[board.square_channels[sq * 5 + i]] = board.baseline + square[i]

    def read(self, groups=0xFFFF, masks=None):
        return self.raw


FADED = (20000, 20000, 6000, 0, 0)  # a white blocker, its E of the centre's sign over gone_percent: unreadable
SEATED = (20000, 20000, 0, 0, 0)  # the white blocker


def measure():
    sensors = Sensors()
    scanner = Scanner(sensors, board, Calibration(board))
    scanner.scan()  # its first scan sets up once what the loop then reuses
    allocated = 0
    for square in (FADED, SEATED, FADED):
        sensors.put(square)  # (the fake's own loops allocate: not counted)
        for _ in range(board.quiet_wait_scans + 10):
            before = micropython.mem_total()
            scanner.scan()
            allocated += micropython.mem_total() - before
    return allocated


measure()  # the first run may intern names
print(measure())
