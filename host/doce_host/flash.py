"""Install a board: MicroPython and the app in one esptool call, or just the app.

A full install erases the chip and writes, in one `esptool write-flash`, the MicroPython
firmware at its offset and a LittleFS image of the app at the `vfs` partition, where
MicroPython mounts its file system. `--app-only` copies the app's files with mpremote
instead, so the board keeps its journal and calibration.
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import image
from .link import BoardLink, LinkError
from .paths import tool

# Where MicroPython's image goes, by chip (the bootloader's place: 0x1000 on the
# original ESP32, 0x0 on the newer chips).
FIRMWARE_OFFSET = {"esp32": 0x1000, "esp32s2": 0x1000, "esp32s3": 0x0, "esp32c3": 0x0, "esp32c6": 0x0}
VFS_OFFSET = 0x200000  # MicroPython's 4 MiB partition table: vfs at 2 MiB, 2 MiB long
BAUD = 460800
KEEP = ("journal", "calibration.bin")  # the board's own files, kept by --app-only


def esptool_args(port, firmware, vfs_image, chip="esp32", baud=BAUD):
    """The one esptool call of a full install."""
    if chip not in FIRMWARE_OFFSET:
        raise ValueError("unknown chip %r (known: %s)" % (chip, ", ".join(sorted(FIRMWARE_OFFSET))))
    return ["--chip", chip, "--port", port, "--baud", str(baud), "write-flash", "--erase-all",
            "0x%x" % FIRMWARE_OFFSET[chip], str(firmware), "0x%x" % VFS_OFFSET, str(vfs_image)]


def mpremote_args(port, files_dir, files):
    """One mpremote call that copies the app's files (and nothing of the board's own), then
    resets the board. Folders go over whole with `cp -r`, which makes or reuses them."""
    args = ["connect", port]
    for top in sorted({name.split("/")[0] for name in files}):
        path = Path(files_dir) / top
        if path.is_dir():
            args += ["fs", "cp", "-r", str(path), ":", "+"]
        else:
            args += ["fs", "cp", str(path), ":" + top, "+"]
    return args + ["reset"]


def install(port, firmware=None, chip="esp32", app_only=False, rules="standard", dry_run=False, out=None):
    """Install and verify. Returns the board's hello (None for a dry run)."""
    out = out or sys.stdout
    files = image.app_files(rules)
    with tempfile.TemporaryDirectory() as tmp:
        if app_only:
            for name, data in files.items():
                path = Path(tmp) / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            command = [tool("mpremote")] + mpremote_args(port, tmp, files)
        else:
            if firmware is None or not Path(firmware).is_file():
                raise LinkError("--firmware: no such file %s (a MicroPython .bin for %s from "
                                "micropython.org/download)" % (firmware, chip))
            vfs = Path(tmp) / "vfs.img"
            vfs.write_bytes(image.build(files))
            command = [tool("esptool")] + esptool_args(port, firmware, vfs, chip)
        print("$ " + " ".join(command), file=out, flush=True)
        if dry_run:
            return None
        result = subprocess.run(command)  # esptool and mpremote show their own progress
        if result.returncode:
            raise LinkError("%s: %s failed (exit %d); see its message above"
                            % (port, Path(command[0]).name, result.returncode))
    return verify(port, out)


def verify(port, out, seconds=20):
    """Wait for the board to boot and answer hello."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with BoardLink(port, timeout=3) as link:
                hello = link.hello()
            print("%s: %s, firmware %s, rules %s: installed" % (port, hello["board"], hello["firmware"],
                                                               hello["rules"]), file=out)
            return hello
        except LinkError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)
