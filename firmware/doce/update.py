"""An update of the app, received into the slot that is not running (firmware/slots.py), checked, and
switched to on trial (docs/protocol.md, "App update"). Loaded only when an update starts.

The package (doce_host/update.py builds it) is
  4 bytes   n, the manifest's length (little-endian)
  n bytes   the manifest: JSON {"version": V, "board": ID, "files": [[path, size, sha256 hex], ...]}
  32 bytes  HMAC-SHA256 of the manifest under this board's update key (`update_key`, over USB only)
  then each file's bytes, in the manifest's order.
The manifest is checked as soon as it is whole, before any file is written: the tag, the board, the
version (newer than the running slot's), every path (only what the image builder makes). Its bytes go
to the slot (`header`), so a transfer dropped or cut resumes at the next `update_begin` for the same
package: each file is appended to as its bytes come (an append on LittleFS is atomic at close), and
what is stored says how far it got. Nothing is switched before `update_commit` has read back every
file against its SHA-256 and the whole package against the SHA-256 `update_begin` named.
"""

import hashlib
import json
import os
import struct

import slots

from .arguments import BadArgument, CommandError, base64_chunk

KEY = "update.key"  # {"board": id, "key": 64 hex digits}: this board's own update key
STATE = "update.json"  # the transfer: {"size", "sha256", "slot"}, and "ready" once checked (waiting for a match)
HEADER = "header"  # in the slot: the package's first bytes (length, manifest, tag), as received
VERSION = "version"  # in the slot: its manifest's version
MAX_PACKAGE = 1 << 21  # the app is some 200 KB; a slot's files must fit the flash twice over
MAX_MANIFEST = 8192
MAX_FILES = 96
TAG = 32
FOLDERS = ("doce", "umqtt")  # a slot holds these (doce_host/image.py app_files), nothing else
PIECE = 256  # bytes read at a time to hash a stored file


def hmac_sha256(key, data):
    """RFC 2104 with SHA-256 (the ESP32's hashlib has no hmac)."""
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key + bytes(64 - len(key))
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
    inner.update(data)
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))
    outer.update(inner.digest())
    return outer.digest()


def same(a, b):
    """a == b in a time that does not say where they differ."""
    if len(a) != len(b):
        return False
    d = 0
    for x, y in zip(a, b):
        d |= x ^ y
    return d == 0


def is_name(text):
    """A module's file name as the image builder makes them: letters, digits, _ and .py or .mpy."""
    stem, dot, ext = text.rpartition(".")
    if not dot or ext not in ("py", "mpy") or not 0 < len(stem) <= 32:
        return False
    return all(c == "_" or "a" <= c <= "z" or "0" <= c <= "9" for c in stem)


def is_path(path):
    """Only FOLDER/NAME: never `..`, never absolute, never outside the slot."""
    if not isinstance(path, str) or path.count("/") != 1:
        return False
    folder, name = path.split("/")
    return folder in FOLDERS and is_name(name)


def is_hex(text, n):
    return isinstance(text, str) and len(text) == n and all(c in "0123456789abcdef" for c in text)


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def size_of(path):
    try:
        return os.stat(path)[6]
    except OSError:
        return 0


def slot_version(slot):
    try:
        with open(slot + "/" + VERSION) as f:
            return int(f.read())
    except (OSError, ValueError):
        return 0  # installed by doce flash: any signed version is newer


def load_key():
    try:
        with open(KEY) as f:
            k = json.load(f)
        return k["board"], bytes(int(k["key"][i:i + 2], 16) for i in range(0, 64, 2))
    except (OSError, ValueError, KeyError, TypeError):
        return None, None


def write_whole(path, data):
    with open(path + ".new", "wb") as f:
        f.write(data)
    os.rename(path + ".new", path)


class Refused(Exception):
    pass


class Update:
    def __init__(self, link):
        self.link = link
        self.size = 0
        self.sha = None
        self.slot = None
        self.head = None  # the package's first bytes while the manifest is not yet whole
        self.files = None  # the manifest's [[path, size, sha256], ...], once checked
        self.version = None  # the manifest's, once checked
        self.received = 0
        self.at = 0  # the file being written
        self.written = 0  # its bytes stored

    # -- the commands ------------------------------------------------------------------------------

    def begin(self, request):
        size, sha = request.get("size"), request.get("sha256")
        if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= MAX_PACKAGE:
            raise BadArgument("size is the package's length in bytes, 1 to %d" % MAX_PACKAGE)
        if not is_hex(sha, 64):
            raise BadArgument("sha256 is the package's SHA-256, 64 lowercase hex digits")
        if slots.on_trial():
            raise CommandError("trial", "this board is trying a new version: it takes an update once that is done")
        slot = "b" if slots.state["slot"] == "a" else "a"
        state = self._state()
        self.size, self.sha, self.slot = size, sha, slot
        if state == {"size": size, "sha256": sha, "slot": slot} or state == dict(ready=True, size=size, sha256=sha,
                                                                                  slot=slot):
            self._resume()
        else:
            self._clear()
            write_whole(STATE, json.dumps({"size": size, "sha256": sha, "slot": slot}))
        return {"received": self.received, "slot": slot}

    def chunk(self, request):
        if self.sha is None:
            raise CommandError("no_transfer", "send update_begin first")
        offset = request.get("offset")
        if offset != self.received or not isinstance(offset, int) or isinstance(offset, bool):
            raise BadArgument("offset must be %d, the bytes received so far" % self.received)
        data = base64_chunk(request.get("data"))
        if self.received + len(data) > self.size:
            raise BadArgument("more bytes than update_begin announced")
        view = memoryview(data)
        if self.files is None:
            view = self._take_head(view)
        if len(view):
            self._store(view)
        return {"received": self.received}

    def commit(self, request):
        if self.sha is None:
            raise CommandError("no_transfer", "send update_begin first")
        if self.received < self.size:
            self._refuse("truncated: %d of %d bytes arrived" % (self.received, self.size))
        whole = hashlib.sha256()  # every byte read back from the slot, once more, as it will boot
        with open(self._in_slot(HEADER), "rb") as f:
            whole.update(f.read())
        for path, size, sha in self.files:
            if hash_of(self._in_slot(path), whole) != sha:
                self._refuse("corrupted: %s does not match its SHA-256" % path)
        if hex_of(whole.digest()) != self.sha:
            self._refuse("corrupted: the package does not match the SHA-256 update_begin named")
        write_whole(STATE, json.dumps({"ready": True, "size": self.size, "sha256": self.sha, "slot": self.slot}))
        self.link.app.update_ready = self.slot
        return {"version": slot_version(self.slot), "deferred": in_play(self.link.app)}

    def abort(self, request):
        self._clear()
        self.sha = None

    # -- receiving ----------------------------------------------------------------------------------

    def _take_head(self, view):
        """Bytes of the header; the rest of the chunk (file bytes) back."""
        if self.head is None:
            self.head = bytearray()
        need = 4 if len(self.head) < 4 else 4 + struct.unpack("<I", self.head[:4])[0] + TAG
        k = min(need - len(self.head), len(view))
        self.head.extend(view[:k])
        self.received += k
        view = view[k:]
        if len(self.head) == 4:
            n = struct.unpack("<I", self.head)[0]
            if not 0 < n <= MAX_MANIFEST:
                self._refuse("not a package: a manifest of %d bytes" % n)
            return self._take_head(view) if len(view) else view
        if len(self.head) == need:
            self.files = self._checked(self.head)
            write_whole(self._in_slot(VERSION), str(self.version))
            write_whole(self._in_slot(HEADER), self.head)  # last: a slot with a header has its version
            self.head = None
        return view

    def _checked(self, head):
        """The manifest's files, or Refused naming why."""
        n = struct.unpack("<I", head[:4])[0]
        manifest, tag = head[4:4 + n], head[4 + n:]
        board, key = load_key()
        if key is None:
            self._refuse("unsigned: this board has no update key (doce config update-key, over USB)")
        if not same(hmac_sha256(key, manifest), tag):
            self._refuse("unsigned or signed with another key")
        try:
            m = json.loads(manifest)
        except ValueError:
            m = None
        if not isinstance(m, dict) or set(m) != {"version", "board", "files"}:
            self._refuse("the manifest is not one this firmware reads")
        if m["board"] != board:
            self._refuse("a package for another board (%s)" % str(m["board"])[:64])
        version = m["version"]
        running = slot_version(slots.state["slot"])
        if not isinstance(version, int) or isinstance(version, bool) or version <= running:
            self._refuse("version %s is not newer than the running version %d (a replay)"
                         % (str(version)[:16], running))
        files = m["files"]
        total = len(head)
        seen = set()
        if not isinstance(files, list) or not 0 < len(files) <= MAX_FILES:
            self._refuse("the manifest lists no files, or too many")
        for entry in files:
            if (not isinstance(entry, list) or len(entry) != 3 or not is_path(entry[0]) or entry[0] in seen
                    or not isinstance(entry[1], int) or isinstance(entry[1], bool) or entry[1] < 0
                    or not is_hex(entry[2], 64)):
                self._refuse("the manifest names a file the app does not have: %s" % str(entry)[:80])
            seen.add(entry[0])
            total += entry[1]
        if total != self.size:
            self._refuse("the manifest's files come to %d bytes, the package is %d" % (total, self.size))
        self.version = version
        return files

    def _store(self, view):
        while len(view):
            path, size = self.files[self.at][0], self.files[self.at][1]
            k = min(size - self.written, len(view))
            with open(self._in_slot(path), "ab") as f:  # atomic at close (LittleFS): a cut keeps what was
                f.write(view[:k])
            self.written += k
            self.received += k
            view = view[k:]
            while self.at < len(self.files) and self.written == self.files[self.at][1]:
                path, _, sha = self.files[self.at]
                if hash_of(self._in_slot(path)) != sha:  # read back whole: a bad chunk is refused at once
                    self._refuse("corrupted: %s does not match its SHA-256" % path)
                self.at += 1  # (an empty file: nothing to write)
                self.written = 0

    def _resume(self):
        """How far a transfer of this very package got before a drop or a cut: its stored files."""
        self.head = self.files = None
        self.received = self.at = self.written = 0
        try:
            with open(self._in_slot(HEADER), "rb") as f:
                head = f.read()
        except OSError:
            return self._clear()  # the header never arrived whole: from the start
        try:
            self.files = self._checked(head)
        except CommandError:
            self._clear()
            raise
        self.received = len(head)
        partial = False
        for i, (path, size, _) in enumerate(self.files):
            stored = size_of(self._in_slot(path))
            if partial or stored > size:  # past the point the transfer reached: from that point again
                if exists(self._in_slot(path)):
                    os.remove(self._in_slot(path))
                continue
            self.received += stored
            if stored < size:
                partial = True
                self.at, self.written = i, stored
        if not partial:
            self.at, self.written = len(self.files), 0

    def _clear(self):
        """The inactive slot emptied, for a new transfer (an update stored there before is no more)."""
        if self.link.app is not None:
            self.link.app.update_ready = None
        self.head = self.files = None
        self.received = self.at = self.written = 0
        slot = self.slot
        if slot is None:
            return
        make(slot)
        for folder in FOLDERS:
            make(slot + "/" + folder)
            for name in os.listdir(slot + "/" + folder):
                os.remove(slot + "/" + folder + "/" + name)
        for name in (HEADER, VERSION):
            if exists(slot + "/" + name):
                os.remove(slot + "/" + name)

    def _in_slot(self, path):
        return self.slot + "/" + path

    def _state(self):
        try:
            with open(STATE) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def _refuse(self, reason):
        """One warning naming the reason; the transfer is over and the slot emptied."""
        self._clear()
        if exists(STATE):
            os.remove(STATE)
        self.sha = None
        self.link.app.emit({"event": "warning", "message": "update refused: " + reason})
        raise CommandError("refused", reason)


def make(folder):
    if not exists(folder):
        os.mkdir(folder)


def hash_of(path, whole=None):
    """The stored file's SHA-256 as hex (and its bytes into `whole` too)."""
    one = hashlib.sha256()
    piece = bytearray(PIECE)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(piece)
            if not n:
                break
            one.update(memoryview(piece)[:n])
            if whole is not None:
                whole.update(memoryview(piece)[:n])
    return hex_of(one.digest())


def hex_of(digest):
    return "".join("%02x" % b for b in digest)


def in_play(app):
    """A match from its first piece to its end: an update waits for it (it never stops a game)."""
    g = app.controller.game
    return not g.match_over and bool(g.rounds or any(g.board))


def apply_when_free(app):
    """At a scan with an update checked and stored: once no match is in play, boot it on trial."""
    if in_play(app):
        return
    slots.switch(app.update_ready)
    os.remove(STATE)
    app.update_ready = None
    app.link.reboot_asked = True  # once what waits to go out has gone


def set_key(request):
    """{"board": ID, "key": 64 hex digits}: the key a package for board ID is signed with. Never sent back."""
    board, key = request.get("board"), request.get("key")
    from .netconfig import is_topic_level
    if not isinstance(board, str) or not is_topic_level(board):
        raise BadArgument("board is the board's id: 1 to 64 letters, digits, _ or -")
    if not is_hex(key, 64):
        raise BadArgument("key is 32 bytes as 64 lowercase hex digits")
    write_whole(KEY, json.dumps({"board": board, "key": key}))
    return {"board": board}


def command(link, request):
    """update_begin, update_chunk, update_commit, update_abort (doce/link.py)."""
    if link.update is None:
        link.update = Update(link)
    u = link.update
    return {"update_begin": u.begin, "update_chunk": u.chunk, "update_commit": u.commit,
            "update_abort": u.abort}[request["cmd"]](request)
