"""The board's file system image: the app, the board file and the rule tables.

The ESP32's MicroPython keeps its files on LittleFS v2 (4 KB blocks) in the `vfs`
partition; littlefs-python builds the same image here, so one esptool write installs
everything, and the simulator boots from the very same image.
"""

import subprocess
import tempfile
from pathlib import Path

from littlefs import LittleFS

from . import rules
from .paths import BOARD_FILE, FIRMWARE, tool

BLOCK_SIZE = 4096
# 2 MiB: the vfs partition of a 4 MiB module (from 0x200000 to the end of flash); the
# simulator's flash. `doce flash` sizes the image for the module's real partition.
BLOCK_COUNT = 512
ERASED = 0xFF  # what erased NOR flash reads as


def app_files(rules_name="standard", bytecode=True):
    """{path on the board: bytes} for a fresh install.

    With `bytecode`, the doce package goes as .mpy (mpy-cross): the board then
    does not compile it at boot, which would take most of its heap.
    """
    files = {"main.py": (FIRMWARE / "main.py").read_bytes(),
             "board.json": BOARD_FILE.read_bytes(),
             "rules.doct": rules.load_tables(rules_name).blob}
    for source in sorted((FIRMWARE / "doce").glob("*.py")):
        if bytecode:
            files["doce/" + source.stem + ".mpy"] = compile_mpy(source)
        else:
            files["doce/" + source.name] = source.read_bytes()
    return files


def compile_mpy(source):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.mpy"
        subprocess.run([tool("mpy-cross"), "-o", str(out), "-s", "doce/" + source.name, str(source)],
                       check=True, capture_output=True)
        return out.read_bytes()


def build(files, block_count=BLOCK_COUNT):
    """A LittleFS image (bytes) holding `files`."""
    fs = LittleFS(block_size=BLOCK_SIZE, block_count=block_count)
    for path, data in files.items():
        folder = path.rpartition("/")[0]
        if folder:
            fs.makedirs(folder, exist_ok=True)
        with fs.open(path, "wb") as f:
            f.write(data)
    return bytes(fs.context.buffer)


def used(image):
    """The image without its trailing erased blocks: on an erased chip, writing this is
    the same as writing the whole image, and much shorter on a 16 MiB module."""
    end = len(bytes(image).rstrip(bytes([ERASED])))
    return image[:-(-end // BLOCK_SIZE) * BLOCK_SIZE]


def read(image, block_count=BLOCK_COUNT):
    """{path: bytes} of every file in an image (a short one is padded as erased flash)."""
    fs = LittleFS(block_size=BLOCK_SIZE, block_count=block_count, mount=False)
    size = BLOCK_SIZE * block_count
    if len(image) > size:
        raise ValueError("image of %d bytes is larger than %d blocks" % (len(image), block_count))
    fs.context.buffer = bytearray(image) + bytearray([ERASED]) * (size - len(image))
    fs.mount()
    found = {}
    for root, _, names in fs.walk("/"):
        for name in names:
            path = (root.rstrip("/") + "/" + name).lstrip("/")
            with fs.open(path, "rb") as f:
                found[path] = f.read()
    return found
