"""A small CPU workload of our own, for `doce bench --port P`: records made and copied, calls,
integer and string work, a list and a grid indexed, globals, in the manner of Weicker's Dhrystone
and of pystone, its Python port. It is not pystone: MicroPython's tests/perf_bench/misc_pystone.py
is MicroPython's own and is not copied into this project (`doce bench --pystone FILE` runs a copy of
it from wherever you have one, beside this). What matters is that the very same bytecode runs on the
board, over its REPL, and on the unix port under callgrind (make bench): the ESP32's cycles per
unix-port instruction, the figure bench/chip.py estimates, then follow from the two directly.

Runs unchanged on MicroPython (board and unix port); `run(loops)` returns the microseconds taken.
"""

import time


class Record:
    def __init__(self, link=None, kind=0, value=0, text=""):
        self.link = link
        self.kind = kind
        self.value = value
        self.text = text

    def copy(self):
        return Record(self.link, self.kind, self.value, self.text)


COUNT = [0]
ROW = [0] * 51
GRID = [[0] * 51 for _ in range(51)]
TEXT = "DOCE BENCH, THE FIRST STRING"


def next_kind(kind):
    return 4 if kind == 2 else (kind + 1) % 5


def mix(a, b):
    return a + 2 * b - 3


def alike(x, y):
    return len(x) > 3 and x == y


def one_pass(head, n):
    rec = head.copy()
    rec.link = head
    rec.kind = next_kind(head.kind)
    i = n % 50 + 1
    ROW[i] = mix(i, rec.value)
    GRID[i][i - 1] = ROW[i] + 1
    if alike(rec.text, TEXT):
        rec.value = mix(rec.value, 1) % 1000
    c = "A"
    while c <= "C":
        if c == "B":
            COUNT[0] += 1
        c = chr(ord(c) + 1)
    head.value = rec.value
    head.kind = rec.kind
    return rec


def run(loops):
    head = Record(None, 0, 7, TEXT)
    start = time.ticks_us()
    for n in range(loops):
        one_pass(head, n)
    return time.ticks_diff(time.ticks_us(), start)
