"""What a request's arguments share on the board: the errors for a bad one and for one the
board cannot carry out now, and the base64 a chunk of a file carries (the rules tables, the
broker's CA)."""

import binascii

from .game import PLAYER_NAMES


class BadArgument(ValueError):
    pass


class CommandError(Exception):
    """(code, message): a well-formed request the board cannot carry out now."""


# A command's result when its reply goes in a later scan (a hint; an update_commit's read-back: doce/link.py)
LATER = "later"


def player_argument(request, key, default, name=None):
    value = request.get(key)
    if value is None:
        return default
    if value not in ("white", "black"):
        raise BadArgument('%s is "white" or "black"' % (name or key))
    return PLAYER_NAMES.index(value)


def base64_chunk(data):
    """The bytes a chunk's `data` carries; BadArgument unless it is base64 of at least one byte."""
    try:
        chunk = binascii.a2b_base64(data)
    except (TypeError, ValueError):
        chunk = b""
    # MicroPython's decoder skips what is not base64: only data that encodes back the same is
    if not chunk or binascii.b2a_base64(chunk)[:-1] != data.encode():
        raise BadArgument("data is base64 of at least one byte")
    return chunk
