"""App updates: the package a board takes by `update_begin`/`update_chunk`/`update_commit` (docs/protocol.md,
"App update"; the board's side is firmware/doce/update.py), built from the files `doce flash` installs.

A package is signed for one board, under that board's own update key: 32 random bytes that `doce fleet
secure` makes for each board and the organiser keeps, and that `doce config update-key` gives the board
over USB only. No other board's broker credentials, and no other board's key, can sign for it.
"""

import hashlib
import hmac
import json
import secrets
import struct

from . import image

KEY_BYTES = 32
CHUNK = 96  # bytes of package per update_chunk: 128 characters of base64, as rules_chunk (docs/protocol.md)


def new_key():
    return secrets.token_hex(KEY_BYTES)


def manifest(files, version, board):
    """The manifest's bytes: {"version", "board", "files": [[path, size, sha256], ...]}, compact."""
    entries = [[path, len(data), hashlib.sha256(data).hexdigest()] for path, data in files.items()]
    return json.dumps({"version": version, "board": board, "files": entries}, separators=(",", ":")).encode()


def package(files, version, board, key_hex):
    """The package for `board`: its slot's files ({path in the slot: bytes}, image.slot_files), in order."""
    m = manifest(files, version, board)
    tag = hmac.new(bytes.fromhex(key_hex), m, hashlib.sha256).digest()
    return struct.pack("<I", len(m)) + m + tag + b"".join(files.values())


def app_package(version, board, key_hex, rules="standard", chip="esp32", march=None):
    """The package of the app `doce flash` installs (image.app_files, the one image builder)."""
    return package(image.slot_files(image.app_files(rules, chip=chip, march=march)), version, board, key_hex)


def unpack(data):
    """({path: bytes}, manifest dict) of a package: what a board stores in its slot."""
    n = struct.unpack("<I", data[:4])[0]
    m = json.loads(data[4:4 + n])
    at = 4 + n + 32
    files = {}
    for path, size, _ in m["files"]:
        files[path] = data[at:at + size]
        at += size
    return files, m


def requests(data):
    """The requests that send a package, after update_begin: its chunks, then the commit."""
    import base64
    for at in range(0, len(data), CHUNK):
        yield {"cmd": "update_chunk", "offset": at, "data": base64.b64encode(data[at:at + CHUNK]).decode()}


def begin(data):
    return {"cmd": "update_begin", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
