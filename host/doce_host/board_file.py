"""hardware/board.json read as every `doce` command that uses it reads it: someone may have written it
by hand. A regular file of at most MAX_BYTES, JSON of any depth refused in one line, the firmware's own
check (doce/board.py: what a board needs to boot), and what only the host reads besides: the
magnetic model's and the mechanics' dimensions, numbers where numbers go.
"""

import json
import math

from .files import read_text

MAX_BYTES = 256 * 1024  # the board file is about 8 KB
TEXT_KEYS = ("about", "part")  # the only words among the dimensions: what a section is, a part's name
DIMENSIONS = ("physics", "mechanics")


def load(path):
    """The board file at `path`, checked: its spec, or ValueError in one line (FileError is one)."""
    from doce.board import Board
    text = read_text(path, MAX_BYTES, "a board file")
    try:
        spec = json.loads(text)
    except RecursionError:
        raise ValueError("board file: nested deeper than any board file is") from None
    Board(spec)
    for section in DIMENSIONS:
        if section in spec:
            dimensions(spec[section], section)
    return spec


def number(value):
    return type(value) in (int, float) and math.isfinite(value)


def dimensions(value, field):
    """Every value under `field` a finite number, a list of them ([nominal, tolerance], [low, high]),
    or an object of such; words only as TEXT_KEYS."""
    if type(value) is dict:
        for key, item in value.items():
            if key in TEXT_KEYS:
                if type(item) is not str:
                    raise ValueError("board file: %s.%s: words, a description" % (field, key))
            else:
                dimensions(item, "%s.%s" % (field, key))
    elif type(value) is list:
        if not value or not all(number(v) for v in value):
            raise ValueError("board file: %s: a list of numbers" % field)
    elif not number(value):
        raise ValueError("board file: %s: a number, not %s" % (field, json.dumps(value)[:40]))
