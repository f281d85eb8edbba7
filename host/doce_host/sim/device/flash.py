"""The board's flash chip, simulated in a file, with power cuts.

LittleFS (os.VfsLfs2, as on the ESP32) talks to it in 4 KB blocks. `cut_after(n)`
makes the n-th program or erase from now the last: it stops partway (a torn write),
and the power is gone at that instant: `on_cut` (the harness's) reports it and never
returns, for nothing runs on a board after its power goes (run.py, serve.py).

Each program and erase holds the firmware as long as the chip takes (charged as machine.charge charges
the ADC's: slept in real time, counted in lockstep, where run.py also moves the board's clock on by it).
The board's module, an ESP32-WROVER-E on an ESP32-DevKitC-VE (hardware/bom.csv U1), has 8 MB of SPI NOR
flash (Digi-Key's ESP32-DEVKITC-VE listing, 12091812: 8 MB SPI flash, 8 MB PSRAM; adafruit/circuitpython
PR 8806). Espressif's module datasheet does not name the flash's maker, so the times are those of a
64 Mbit part of that class, 4 KB sectors and 256-byte pages: Winbond W25Q64JV (datasheet rev. I, 9.6 AC
Electrical Characteristics), sector erase tSE 45 ms typical, 400 ms at most; page program tPP 0.4 ms
typical, 3 ms at most (the W25Q32JV's figures too: tests/board/test_link.py, doce/esp32.py WATCHDOG_MS).
ESP-IDF programs at most 64 bytes a command (SPI_FLASH_HAL_MAX_WRITE_BYTES, components/hal
spi_flash_hal.h), never across a 256-byte page: each such piece is charged a whole page's tPP, an upper
bound. Reads are not charged. The typical times are charged; `erases` and `programs` count the
operations, so a figure can also be given at the maximum (make bench).
"""

import os
import sys

ERASE_US = (45000, 400000)  # tSE, 4 KB sector: (typical, most), W25Q64JV
PROGRAM_US = (400, 3000)  # tPP, a page program command: (typical, most), W25Q64JV
PROGRAM_BYTES = 64  # the most one command programs (ESP-IDF SPI_FLASH_HAL_MAX_WRITE_BYTES)
PAGE_BYTES = 256


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
        self.erases = 0  # sector erases since boot
        self.programs = 0  # page program commands since boot (up to 64 bytes each)
        self.busy_us = 0  # the time they held the firmware, at the typical figures
        self.charge = None  # machine.charge, once the harness has the simulated machine

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

    def _held(self, erases, programs):
        self.erases += erases
        self.programs += programs
        us = erases * ERASE_US[0] + programs * PROGRAM_US[0]
        self.busy_us += us
        if self.charge:
            self.charge(us)

    def writeblocks(self, block, buf, offset=None):
        offset = offset or 0
        if self._tick(block, offset, buf) is False:
            return
        self._held(0, commands(block * self.block_size + offset, len(buf)))
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
            self._held(1, 0)
            self.file.seek(arg * self.block_size)
            self.file.write(self.erased)
            self.file.flush()
            return 0
        return 0


def commands(at, n):
    """The page program commands ESP-IDF sends to write n bytes at flash address `at`: pieces of at most
    PROGRAM_BYTES, none across a page."""
    count = 0
    end = at + n
    while at < end:
        at = min(end, at + PROGRAM_BYTES, (at // PAGE_BYTES + 1) * PAGE_BYTES)
        count += 1
    return count


def mount(path, where="/flash"):
    """Mount the image as the board's file system and work from it, as a board does:
    its files are the current folder and importable. Returns the chip."""
    chip = FlashChip(path)
    os.mount(os.VfsLfs2(chip), where)
    os.chdir(where)
    sys.path.insert(1, where)
    return chip
