"""What a MicroPython firmware .bin for an ESP32 holds, and where on a module its files go.

micropython.org's .bin is the whole start of flash as one file: the bootloader, the
partition table at 0x8000 and the app (micropython ports/esp32/makeimg.py). The file
starts where the bootloader goes: 0x1000 on the ESP32 and S2, 0x0 on the S3, C3 and C6,
so the table is at 0x7000 or 0x8000 of the file. esptool reads the images; the partition
table is read here: ESP-IDF's own parser, gen_esp32part.py, ships only inside ESP-IDF, and
the PyPI packages that carry one (mp-image-tool-esp32 0.1, esp-idf-defs 0.1) are young
one-author tools: more to depend on than these 30 lines.
"""

import hashlib
import re
import struct
from collections import namedtuple

from esptool.bin_image import LoadFirmwareImage
from esptool.targets import CHIP_DEFS

from . import micropython

# ESP-IDF's default CONFIG_PARTITION_TABLE_OFFSET, which MicroPython's boards keep
# (ports/esp32/makeimg.py OFFSET_PARTITIONS_DEFAULT).
PARTITION_TABLE_OFFSET = 0x8000
# ESP-IDF partition table format (api-guides/partition-tables, gen_esp32part.py): at most
# 0xC00 bytes of 32-byte entries <magic 0xAA50, type, subtype, offset, size, label[16],
# flags>, then an MD5 entry (0xEBEB, 14 bytes 0xFF, MD5 of the entries before it) and
# 0xFF padding.
PARTITION_TABLE_LENGTH = 0xC00
ENTRY = struct.Struct("<2sBBII16sI")
ENTRY_MAGIC = b"\xaa\x50"
MD5_MAGIC = b"\xeb\xeb" + b"\xff" * 14
TYPE_APP, TYPE_DATA = 0x00, 0x01
DEFAULT_APP_OFFSET = 0x10000  # where the factory app sits in every MicroPython table
# An app image (not a bootloader) carries esp_app_desc_t at the start of its first
# segment: image header 24 bytes + segment header 8 bytes (ESP-IDF esp_app_format.h).
APP_DESC_MAGIC = struct.pack("<I", 0xABCD5432)
APP_DESC_AT = 0x20
# "MicroPython v1.28.0 on 2026-04-06" (py/mpconfig.h MICROPY_BANNER_NAME_AND_VERSION) is a
# string constant in every build: sys.version and the REPL banner.
BANNER = re.compile(rb"MicroPython (v\d+\.\d+(?:\.\d+)?[-+.\w]*) on (\d{4}-\d\d-\d\d)")
# The board it is built for, as the REPL's banner goes on: "; " MICROPY_BANNER_MACHINE, which is
# MICROPY_HW_BOARD_NAME " with " MICROPY_HW_MCU_NAME (shared/runtime/pyexec.c, py/mpconfig.h), one
# string constant: "; Generic ESP32 module with SPIRAM with ESP32". The ESP32 ports' MCU names all
# start with ESP32 (ESP32, ESP32S3, ESP32C3, ESP32-D2WD...).
MACHINE = re.compile(rb"; ([\x20-\x7e]{1,100}) with (ESP32[\w-]{0,20})\x00")
VFS_BLOCK = 4096  # the partition's block size (ports/esp32/esp32_partition.c NATIVE_BLOCK_SIZE_BYTES)

CHIP_BY_IMAGE_ID = {CHIP_DEFS[chip].IMAGE_CHIP_ID: chip for chip in micropython.BOARDS}

Partition = namedtuple("Partition", "name type subtype offset size")
# machine: the board name the image is built for ("Generic ESP32 module with SPIRAM"), None if it does not say
Firmware = namedtuple("Firmware", "chip version release date base partitions app_offset size machine")


class FirmwareError(ValueError):
    """The file is not a usable MicroPython image; the message is one line for the user."""


class UnknownLayout(Exception):
    """Where the image keeps its files cannot be worked out (the message says why)."""


def parse_partition_table(data):
    """The partitions of an ESP-IDF binary partition table, or None if `data` starts with none."""
    if data[:2] != ENTRY_MAGIC:
        return None
    found = []
    for at in range(0, PARTITION_TABLE_LENGTH, ENTRY.size):
        entry = data[at:at + ENTRY.size]
        if len(entry) < ENTRY.size:
            raise FirmwareError("the partition table is cut short")
        if entry[:2] == ENTRY_MAGIC:
            _, kind, subtype, offset, size, label, _ = ENTRY.unpack(entry)
            name = label.split(b"\0")[0].decode("ascii", "replace")
            found.append(Partition(name, kind, subtype, offset, size))
        elif entry[:16] == MD5_MAGIC:
            if entry[16:] != hashlib.md5(data[:at]).digest():
                raise FirmwareError("the partition table is damaged (its MD5 does not match)")
        elif entry == b"\xff" * ENTRY.size:
            break
        else:
            raise FirmwareError("the partition table is damaged (bad entry at byte %d)" % at)
    else:
        raise FirmwareError("the partition table has no end")
    previous = None
    for part in sorted(found, key=lambda p: p.offset):
        if previous and part.offset < previous.offset + previous.size:
            raise FirmwareError("the partition table is damaged (%s overlaps %s)" % (part.name, previous.name))
        previous = part
    return found


def _image(chip, data, at, what, name):
    """Check the ESP image (bootloader or app) at `at` of the file reads whole: esptool walks
    its segments and we compare its checksum and SHA-256."""
    if len(data) < at + 24:
        raise FirmwareError("%s is cut short: it ends before its %s" % (name, what))
    try:
        image = LoadFirmwareImage(chip, data[at:])
    except Exception as e:  # esptool raises FatalError, RuntimeError or struct.error
        raise FirmwareError("%s is cut short or damaged: its %s does not read (%s)"
                            % (name, what, str(e).splitlines()[0] if str(e) else type(e).__name__)) from None
    if image.checksum != image.calculate_checksum() or (
            image.append_digest and image.stored_digest != image.calc_digest):
        raise FirmwareError("%s is damaged: its %s fails its checksum" % (name, what))
    return image


def read_firmware(data, name="the firmware"):
    """A Firmware from the bytes of a .bin, or FirmwareError saying in one line what is wrong."""
    if len(data) < 24 or data[0] != 0xE9:
        raise FirmwareError("%s is not an ESP32 firmware image (it does not start with an ESP image header)" % name)
    chip_id = struct.unpack_from("<H", data, 12)[0]
    chip = CHIP_BY_IMAGE_ID.get(chip_id)
    if chip is None:
        raise FirmwareError("%s is for a chip doce does not flash (ESP image chip id %d; known: %s)"
                            % (name, chip_id, ", ".join(micropython.BOARDS)))
    if data[APP_DESC_AT:APP_DESC_AT + 4] == APP_DESC_MAGIC:
        raise FirmwareError("%s is MicroPython's app alone; doce flash needs the whole image: %s"
                            % (name, micropython.firmware_file(chip)))
    base = CHIP_DEFS[chip].BOOTLOADER_FLASH_OFFSET
    _image(chip, data, 0, "bootloader", name)
    table_at = PARTITION_TABLE_OFFSET - base
    if len(data) < table_at + ENTRY.size:
        raise FirmwareError("%s is cut short: it ends before its partition table" % name)
    try:
        partitions = parse_partition_table(data[table_at:table_at + PARTITION_TABLE_LENGTH])
    except FirmwareError as e:
        raise FirmwareError("%s: %s" % (name, e)) from None
    apps = [p for p in partitions or () if p.type == TYPE_APP]
    # makeimg.py puts the app at the first app partition
    app_offset = apps[0].offset if apps else DEFAULT_APP_OFFSET
    if partitions is not None or len(data) > app_offset - base:
        _image(chip, data, app_offset - base, "app", name)
    banner = BANNER.search(data)
    if banner is None:
        raise FirmwareError("%s is not MicroPython (no 'MicroPython vX.Y.Z on DATE' in it): get %s"
                            % (name, micropython.firmware_file(chip)))
    version = banner.group(1).decode()
    machine = MACHINE.search(data)
    return Firmware(chip, version, micropython.version(version), banner.group(2).decode(), base, partitions,
                    app_offset, len(data), machine.group(1).decode() if machine else None)


def vfs_place(firmware, flash_size):
    """(offset, size) of the LittleFS `vfs` partition the firmware mounts on a module with
    `flash_size` bytes of flash (None: unknown).

    Raises UnknownLayout where the place cannot be known (then copy the files over the
    REPL), FirmwareError where the firmware cannot work on this module at all."""
    if firmware.partitions is None:
        raise UnknownLayout("the image has no partition table at 0x%x" % PARTITION_TABLE_OFFSET)
    if flash_size is not None:
        end = max([p.offset + p.size for p in firmware.partitions] + [firmware.base + firmware.size])
        if end > flash_size:
            raise FirmwareError("the firmware needs %s of flash, the board has %s: get the image for its module"
                                % (mib(end), mib(flash_size)))
    data = {}
    for p in firmware.partitions:  # the first of a name: Partition.find lists them in table order
        if p.type == TYPE_DATA:
            data.setdefault(p.name, p)
    # ports/esp32/modules/flashbdev.py mounts the data partition "vfs", else "ffat";
    # inisetup.py makes "vfs" LittleFS and "ffat" FAT.
    if "vfs" in data:
        vfs = data["vfs"]
        if vfs.size < 2 * VFS_BLOCK or vfs.offset % VFS_BLOCK or vfs.size % VFS_BLOCK:  # LittleFS: two blocks at least
            raise FirmwareError("the image's 'vfs' partition (0x%x bytes at 0x%x) is not whole 4 KiB blocks of "
                                "flash that a file system fits in" % (vfs.size, vfs.offset))
        return vfs.offset, vfs.size
    if "ffat" in data:
        raise UnknownLayout("the image keeps its files on FAT (an 'ffat' partition)")
    if firmware.release < (1, 26):
        raise UnknownLayout("the image has no 'vfs' partition")
    # From v1.26, with neither, boardctrl_startup (ports/esp32/main.c) makes "vfs" from the
    # end of the last partition to the end of the chip's physical flash.
    if flash_size is None:
        raise UnknownLayout("the board's flash size is not known")
    start = max(p.offset + p.size for p in firmware.partitions)
    if flash_size <= start:
        raise FirmwareError("the board's %s of flash leaves no room for files after the firmware" % mib(flash_size))
    return start, flash_size - start


def mib(size):
    return ("%d MiB" if size % (1 << 20) == 0 else "%.2f MiB") % (size / (1 << 20))
