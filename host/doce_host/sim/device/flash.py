"""The board's flash chip, simulated in a file, with power cuts.

LittleFS (os.VfsLfs2, as on the ESP32) talks to it in 4 KB blocks. `cut_after(n)`
makes the n-th program or erase from now the last: it stops partway (a torn write),
and the power is gone at that instant: `on_cut` (the harness's) reports it and never
returns, for nothing runs on a board after its power goes (run.py, serve.py).
"""

import os
import sys


class PowerCut(BaseException):
    """Raised only where no harness ends the process at the cut (on_cut): not an Exception, so no
    firmware handler (a `net` poll that plays on through faults) stops it."""


class FlashChip:
    def __init__(self, path, block_size=4096):
        self.file = open(path, "r+b")
        self.block_size = block_size
        self.erased = b"\xff" * block_size
        self.file.seek(0, 2)
        self.blocks = self.file.tell() // block_size
        self.countdown = None  # operations left before the power goes
        self.torn = True  # whether the last operation gets partly done
        self.operations = 0  # programs and erases since boot
        self.on_cut = None  # the harness's: report the cut, and hang till the simulator ends the process
        self.dead = False  # the power is gone: nothing more reaches the chip
        self.cut = None  # the PowerCut raised when it went

    def cut_after(self, n, torn=True):
        self.countdown = n
        self.torn = torn

    def _tick(self, block, offset, data):
        """Whether the operation reaches the chip (PowerCut at the one the power goes in)."""
        if self.dead:  # nothing reaches the chip once the power is gone
            raise self.cut  # again: the port's erase call (ioctl) swallows an exception, and LittleFS carries on
        self.operations += 1
        if self.countdown is None:
            return data
        self.countdown -= 1
        if self.countdown > 0:
            return data
        if self.torn and data:
            self.file.seek(block * self.block_size + offset)
            self.file.write(data[:len(data) // 2])
            self.file.flush()
        self.dead = True
        message = "power cut at flash operation %d" % self.operations
        self.cut = PowerCut(message)
        if self.on_cut:
            self.on_cut(message)
        raise self.cut

    def readblocks(self, block, buf, offset=0):
        self.file.seek(block * self.block_size + offset)
        self.file.readinto(buf)

    def writeblocks(self, block, buf, offset=None):
        offset = offset or 0
        if self._tick(block, offset, buf) is False:
            return
        self.file.seek(block * self.block_size + offset)
        self.file.write(buf)
        self.file.flush()

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.blocks
        if op == 5:  # block size
            return self.block_size
        if op == 6:  # erase a block
            if self._tick(arg, 0, self.erased) is False:
                return 0
            self.file.seek(arg * self.block_size)
            self.file.write(self.erased)
            self.file.flush()
            return 0
        return 0


def mount(path, where="/flash"):
    """Mount the image as the board's file system and work from it, as a board does:
    its files are the current folder and importable. Returns the chip."""
    chip = FlashChip(path)
    os.mount(os.VfsLfs2(chip), where)
    os.chdir(where)
    sys.path.insert(1, where)
    return chip
