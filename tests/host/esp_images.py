"""Small stand-ins for micropython.org's ESP32 firmware .bin files, for tests.

Each is laid out as micropython ports/esp32/makeimg.py lays out the real ones: the
bootloader where the file starts (0x1000 on the ESP32, 0x0 on the S3), the partition table
at flash 0x8000, the app at its partition. The bootloader and app are real ESP images made
by esptool, only tiny; the app holds the esp_app_desc magic and MicroPython's version
string; the partition table is ESP-IDF's binary format, packed here from its description
(ESP-IDF api-guides/partition-tables.rst), not by the code under test.
"""

import hashlib
import struct

from esptool.bin_image import (ELFSection, ESP32C3FirmwareImage, ESP32FirmwareImage, ESP32S2FirmwareImage,
                               ESP32S3FirmwareImage)

APP, DATA = 0x00, 0x01
NVS, PHY, FAT, FACTORY, OTA = 0x02, 0x01, 0x81, 0x00, 0x00

# micropython ports/esp32/partitions-4MiBplus.csv at tag v1.28.0: the table of
# ESP32_GENERIC and ESP32_GENERIC_S3 (boards/sdkconfig.base, CONFIG_PARTITION_TABLE_CUSTOM_FILENAME).
# No vfs row: from v1.26 main.c makes it from the end of "factory" to the end of flash.
V1_28_TABLE = [("nvs", DATA, NVS, 0x9000, 0x6000), ("phy_init", DATA, PHY, 0xF000, 0x1000),
               ("factory", APP, FACTORY, 0x10000, 0x1F0000)]
# micropython ports/esp32/partitions-8MiBplus-ota.csv at tag v1.28.0 (ends at 0x4F0000).
V1_28_OTA_8MIB_TABLE = [("nvs", DATA, NVS, 0x9000, 0x4000), ("otadata", DATA, 0x00, 0xD000, 0x2000),
                        ("phy_init", DATA, PHY, 0xF000, 0x1000), ("ota_0", APP, 0x10, 0x10000, 0x270000),
                        ("ota_1", APP, 0x11, 0x280000, 0x270000)]
# micropython ports/esp32/partitions-8MiB.csv at tag v1.24.1 (ESP32_GENERIC_S3 then): a
# fixed vfs row of 6 MiB.
V1_24_S3_TABLE = [("nvs", DATA, NVS, 0x9000, 0x6000), ("phy_init", DATA, PHY, 0xF000, 0x1000),
                  ("factory", APP, FACTORY, 0x10000, 0x1F0000), ("vfs", DATA, FAT, 0x200000, 0x600000)]

# chip: (esptool image class, where the file starts in flash, a RAM and a DROM address)
CHIPS = {"esp32": (ESP32FirmwareImage, 0x1000, 0x3FFF0000, 0x3F400020),
         "esp32s2": (ESP32S2FirmwareImage, 0x1000, 0x3FFE0000, 0x3F000020),
         "esp32s3": (ESP32S3FirmwareImage, 0x0, 0x3FCE0000, 0x3C000020),
         "esp32c3": (ESP32C3FirmwareImage, 0x0, 0x3FCD0000, 0x3C000020)}


def partition_table(rows, md5=True):
    """ESP-IDF's binary partition table: 32-byte entries, an MD5 entry, 0xFF to 0xC00."""
    table = b"".join(struct.pack("<HBBII16sI", 0x50AA, kind, subtype, offset, size, name.encode(), 0)
                     for name, kind, subtype, offset, size in rows)
    if md5:
        table += b"\xeb\xeb" + b"\xff" * 14 + hashlib.md5(table).digest()
    return table + b"\xff" * (0xC00 - len(table))


def esp_image(chip, address, data):
    cls = CHIPS[chip][0]
    image = cls()
    image.segments = [ELFSection(b".data", address, data, 0)]
    image.entrypoint = address
    return image.save(None)


# What the REPL's banner says after the version at tag v1.28.0: "; " MICROPY_HW_BOARD_NAME " with "
# MICROPY_HW_MCU_NAME (shared/runtime/pyexec.c), for ESP32_GENERIC's SPIRAM variant
# (mpconfigvariant_SPIRAM.cmake) and the generic boards of the other chips (their mpconfigboard.h).
MACHINES = {"esp32": "Generic ESP32 module with SPIRAM with ESP32", "esp32s2": "Generic ESP32S2 module with ESP32S2",
            "esp32s3": "Generic ESP32S3 module with ESP32S3", "esp32c3": "ESP32C3 module with ESP32C3"}
PLAIN_ESP32 = "Generic ESP32 module with ESP32"  # ESP32_GENERIC without a variant (its mpconfigboard.h)


def app(chip, version="v1.28.0", date="2026-04-06", size=2048, machine=None):
    """A MicroPython app image: esp_app_desc first, then the version string as sys.version has it
    and the banner's board and MCU (machine: MACHINES[chip] unless given; "" for none)."""
    text = struct.pack("<I", 0xABCD5432) + bytes(252)
    if version:
        text += b"3.4.0; MicroPython %s on %s\0" % (version.encode(), date.encode())
    machine = MACHINES[chip] if machine is None else machine
    if machine:
        text += b"; %s\0" % machine.encode()
    return esp_image(chip, CHIPS[chip][3], text + bytes(size))


def firmware(chip="esp32", version="v1.28.0", date="2026-04-06", table=V1_28_TABLE, md5=True, app_image=None,
             machine=None):
    """A whole-flash MicroPython .bin, as micropython.org ships it."""
    _, base, ram, _ = CHIPS[chip]
    data = esp_image(chip, ram, bytes(range(256)) * 4)  # the bootloader
    data += b"\xff" * (0x8000 - base - len(data))
    if table is not None:
        data += partition_table(table, md5)
    app_at = next((row[3] for row in table or () if row[1] == APP), 0x10000)
    data += b"\xff" * (app_at - base - len(data))
    return data + (app_image if app_image is not None else app(chip, version, date, machine=machine))
