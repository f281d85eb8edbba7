"""App updates: the package a board takes by `update_begin`/`update_chunk`/`update_commit` (docs/protocol.md,
"App update"; the board's side is firmware/doce/update.py), built from the files `doce flash` installs.

A package is signed for one board, under that board's own update key: 32 random bytes that `doce fleet
secure` makes for each board and the organiser keeps, and that `doce config update-key` gives the board
over USB only. No other board's broker credentials, and no other board's key, can sign for it.
"""

import hashlib
import hmac
import json
import re
import secrets
import struct
from pathlib import Path

from doce.update import MAX_FILES, MAX_MANIFEST, MAX_PACKAGE  # what a board takes: the firmware's own numbers

from . import image

KEY_BYTES = 32
HEX_KEY = re.compile(r"^[0-9a-f]{64}$")
SIG = 16  # bytes of the HMAC a command's `sig` carries: a signed update_begin within a command's 200 bytes
CHUNK = 96  # bytes of package per update_chunk: 128 characters of base64, as rules_chunk (docs/protocol.md)


def new_key():
    return secrets.token_hex(KEY_BYTES)


def manifest(files, version, board):
    """The manifest's bytes: {"version", "board", "files": [[path, size, sha256], ...]}, compact."""
    entries = [[path, len(data), hashlib.sha256(data).hexdigest()] for path, data in files.items()]
    return json.dumps({"version": version, "board": board, "files": entries}, separators=(",", ":")).encode()


class TooBig(ValueError):
    """A package every board would refuse (doce/update.py's limits): said before anything is signed or sent."""


def package(files, version, board, key_hex):
    """The package for `board`: its slot's files ({path in the slot: bytes}, image.slot_files), in order. TooBig
    if a board would refuse it for its size, its manifest's or its count of files."""
    m = manifest(files, version, board)
    tag = hmac.new(bytes.fromhex(key_hex), m, hashlib.sha256).digest()
    size = 4 + len(m) + len(tag) + sum(len(data) for data in files.values())
    for what, n, most in (("files", len(files), MAX_FILES), ("bytes of manifest", len(m), MAX_MANIFEST),
                          ("bytes", size, MAX_PACKAGE)):
        if n > most:
            raise TooBig("the package has %d %s and a board takes at most %d (firmware/doce/update.py)"
                         % (n, what, most))
    return struct.pack("<I", len(m)) + m + tag + b"".join(files.values())


def app_package(version, board, key_hex, chip="esp32", march=None):
    """The package of the app `doce flash` installs (image.app_files, the one image builder): the slot's files
    only. The rules are the board's own, kept through an update (doce rules push / doce fleet rules push)."""
    return package(image.slot_files(image.app_files(chip=chip, march=march)), version, board, key_hex)


AHEAD_S = 24 * 3600  # a version further ahead of the clock than this is a slip (milliseconds, a typo)


def max_version():
    """The highest version a board takes, a room shows and a package may carry (docs/protocol.schema.json)."""
    from .protocol import schema
    return schema()["$defs"]["version"]["maximum"]


def version_for(asked, force=False, now=None, recorded=0):
    """The version of a package: `asked`, or the time now in seconds, and above `recorded` (the highest the room's
    record has for the boards it is for, load_signed): a clock behind the room's last update would else have
    every board refuse it as a replay. A board takes only versions newer than the one it runs, so a version far
    ahead of the clock would lock out every later default one until `doce flash`: refused (ValueError naming why)
    unless `force`."""
    import time
    now = int(time.time() if now is None else now)
    if asked is None:
        version = max(now, recorded + 1)
        if version > max_version():
            raise ValueError("the room's record (%s) has version %d, the highest a board takes: no default version "
                             "is newer. Mend the record if no board took it, else `doce flash` the boards"
                             % (SIGNED, recorded))
        if version > now + AHEAD_S and not force:
            raise ValueError("the room's record (%s) has version %d, %d days ahead of the time now (%d): a default "
                             "version after it keeps every later one that far ahead. Give --force to send %d all "
                             "the same, or mend the record if no board took it" % (SIGNED, recorded,
                                                                                     (recorded - now) // 86400,
                                                                                     now, version))
        return version
    if not 0 <= asked <= max_version():
        raise ValueError("--version is a whole number from 0 to %d" % max_version())
    if asked > now + AHEAD_S and not force:
        raise ValueError("--version %d is %d days ahead of the time now (%d, the default): a board would then "
                         "refuse every default version after it. Give --force to send it all the same"
                         % (asked, (asked - now) // 86400, now))
    return asked


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


def requests(data, start=0):
    """The update_chunk requests that carry a package from byte `start` on: what the board's update_begin
    said it has stored, which need not fall on a chunk's edge (a board stores a file for good once all of it
    is in: doce/update.py)."""
    import base64
    for at in range(start, len(data), CHUNK):
        yield {"cmd": "update_chunk", "offset": at, "data": base64.b64encode(data[at:at + CHUNK]).decode()}


def signature(key_hex, text):
    """`sig` of an update_begin or update_abort sent over the broker: text's HMAC-SHA256 under the board's key
    (firmware/doce/update.py: broker credentials alone cannot start, restart or drop an update)."""
    return hmac.new(bytes.fromhex(key_hex), text.encode(), hashlib.sha256).hexdigest()[:2 * SIG]


def begin(data, key_hex=None, named=None):
    """The update_begin of a package: its board and version (the board refuses one not newer than what it runs,
    gave up or has stored), its size and SHA-256; signed with the board's key for the broker (over USB it needs
    none), all four under the signature, so a recorded begin cannot be replayed for another board or version.
    `named`: (board, version) as given, not read from the package's manifest."""
    board, version = named or (lambda m: (m["board"], m["version"]))(unpack(data)[1])
    request = {"cmd": "update_begin", "version": version, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if key_hex:
        request["sig"] = signature(key_hex, "update_begin %s %d %d %s" % (board, version, len(data), request["sha256"]))
    return request


def abort(key_hex=None, data=None):
    """The update_abort of the transfer of package `data` (None: none stored); signed as begin is."""
    request = {"cmd": "update_abort"}
    if key_hex:
        request["sig"] = signature(key_hex, "update_abort %s" % (hashlib.sha256(data).hexdigest() if data else ""))
    return request


# -- the organiser's keys: one per board, in the room's folder beside credentials.json -------------------

KEYS = "update-keys.json"  # {board id: 64 hex digits}: private, as the passwords are


def load_keys(folder):
    """{board id: key} of the room in `folder`, or {}; a file this did not write is refused, not written over."""
    from .files import read_limited
    from .fleet.security import SecurityError
    from .fleet.topics import BOARD_ID
    path = Path(folder) / KEYS
    if not path.exists():
        return {}
    try:
        found = json.loads(read_limited(path, 1 << 20, "the room's update keys"))
    except ValueError:
        found = None
    if not isinstance(found, dict) or not all(
            isinstance(b, str) and BOARD_ID.match(b) and isinstance(k, str) and HEX_KEY.match(k)
            for b, k in found.items()):
        raise SecurityError("%s: not a file of update keys doce fleet secure writes; not writing over it" % path)
    return found


def write_keys(folder, board_ids, remove=()):
    """A key for each board that has none; the boards removed lose theirs. Returns {board id: key}."""
    from .fleet.security import write_private
    keys = {b: k for b, k in load_keys(folder).items() if b not in remove}
    for board in board_ids:
        keys.setdefault(board, new_key())
    write_private(Path(folder) / KEYS, (json.dumps(keys, indent=1, sort_keys=True) + "\n").encode())
    return keys


SIGNED = "update-signed.json"  # {board id: the highest version a package was signed for}: not secret


def load_signed(folder):
    """{board id: the highest version signed for it} of the room in `folder`, or {}: what a board's floor must be
    after a reflash (doce config update-key sends it), so no package recorded before installs again."""
    from .files import read_limited
    from .fleet.security import SecurityError
    from .fleet.topics import BOARD_ID
    path = Path(folder) / SIGNED
    if not path.exists():
        return {}
    try:
        found = json.loads(read_limited(path, 1 << 20, "the room's signed versions"))
    except ValueError:
        found = None
    if not isinstance(found, dict) or not all(
            isinstance(b, str) and BOARD_ID.match(b) and type(v) is int and v >= 0 for b, v in found.items()):
        raise SecurityError("%s: not a file of signed versions doce update writes; not writing over it" % path)
    return found


def record_signed(folder, versions):
    """Each board's package of `versions` ({board id: version}) is about to be signed: the record kept the higher."""
    from .fleet.security import write_private
    signed = load_signed(folder)
    for board, version in versions.items():
        signed[board] = max(version, signed.get(board, 0))
    write_private(Path(folder) / SIGNED, (json.dumps(signed, indent=1, sort_keys=True) + "\n").encode())


# -- over USB -------------------------------------------------------------------------------------------------

class Refused(RuntimeError):
    pass


def send(link, data, progress=None):
    """A package to the board on `link` (a doce_host.link.BoardLink), resumed from what it has stored: the
    update_commit reply. Refused names the board's reason."""
    def ok(reply):
        if not reply.get("ok"):
            raise Refused("%s: %s" % (reply.get("error"), reply.get("message")))
        return reply
    received = ok(link.request(**begin(data)))["received"]
    for request in requests(data, received):
        received = ok(link.request(**request))["received"]
        if progress:
            progress(received, len(data))
    reply = ok(link.request("update_commit"))
    fault = not_the_version(reply.get("version"), unpack(data)[1]["version"])
    if fault:
        raise Refused(fault)
    return reply


def not_the_version(said, sent):
    """Why a board's update_commit reply does not show the package sent stored (its `version` is the one the
    board read from the manifest it checked), or None."""
    if said == sent and isinstance(said, int) and not isinstance(said, bool):
        return None
    from .view import printable
    return "the board says it stored version %s, not the package's %d" % (printable(repr(said)[:24]), sent)
