"""Run by test_native_scan.py on CPython (the plain loops) and on the MicroPython unix port
(the same loops as viper native code): every board in readings.json read through HallArray
(on fake pins and ADC) and the Scanner, until quiet; prints each settled board as JSON.

    scan_readings.py BOARD_FILE READINGS_FILE
"""

import json
import sys
from array import array

from doce.board import load
from doce.scanner import Scanner
from doce.sensors import HallArray

board = load(sys.argv[1])
with open(sys.argv[2]) as f:
    given = json.load(f)


class Calibration:
    baseline = array("H", given["baseline"])
    absent_below = array("H", [board.absent_below] * board.channels)
    present_above = array("H", [board.present_above] * board.channels)
    opposite = array("H", [board.absent_opposite_below])


levels = [0] * 8  # GPIO level by pin number: 0-3 select the input, 4-6 the group, 7 enables
world = array("H", [0] * board.channels)


def pin(number):
    def drive(value):
        levels[number] = 1 if value else 0
    return drive


def adc():
    if not levels[7]:
        return 0
    channel = 0
    for bit in range(7):  # select bits 0-3, then group bits 4-6
        channel |= levels[bit] << bit
    return world[channel]


hall = HallArray(adc, [pin(i) for i in range(4)], [pin(i) for i in range(4, 7)], pin(7), board)
hall.power_on_us = 0
for raw in given["boards"]:
    world[:] = array("H", raw)
    # a fresh scanner, as at boot: it reads every square whole (a running one would look again
    # only at squares whose centre changed, and placements drawn at random need not change it)
    scanner = Scanner(hall, board, Calibration)
    for _ in range(4 * board.quiet_wait_scans):  # a deadline: a board settles well within it
        scanner.scan()
        if not (scanner.wanted or scanner.pending):
            break
    print(json.dumps([list(scanner.settled), list(scanner.trits)]))  # a line a board
