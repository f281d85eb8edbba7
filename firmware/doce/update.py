"""An update of the app, received into the slot that is not running (firmware/slots.py), checked, and
switched to on trial (docs/protocol.md, "App update"). Loaded only when an update starts.

The package (doce_host/update.py builds it) is
  4 bytes   n, the manifest's length (little-endian)
  n bytes   the manifest: JSON {"version": V, "board": ID, "files": [[path, size, sha256 hex], ...]}
  32 bytes  HMAC-SHA256 of the manifest under this board's update key (`update_key`, over USB only)
  then each file's bytes, in the manifest's order.
The manifest's bytes go straight to the slot (`manifest`) as they come, never held whole in the heap
(a board on the broker has no 4 KB block to spare), and are checked from there as soon as they are all
in, before any file is written: the tag, the board, the version (newer than the running slot's and than
any version this board gave up), every path (only what the image builder makes). Once checked, the
length and the tag go to the slot too (`header`), so a transfer dropped or cut resumes at the next
`update_begin` for the same package: each file is written as its bytes come, kept open from its first chunk
to its last (LittleFS makes a file's new size durable at close, atomically), and what is stored says how far
it got: a cut loses at most the file that was open. Appended chunk by chunk instead, open and closed each
time, every 96-byte chunk cost a 4 KB sector erase (LittleFS copies a file's partly filled last block to a
new one at each append: lfs_ctz_extend), some 45 ms each on the board's flash (host/doce_host/sim/device/
flash.py), one chunk a scan. Nothing is switched before
`update_commit` has read back every file against its SHA-256 and the whole package against the
SHA-256 `update_begin` named: STEP bytes a scan (step), its reply in the scan that ends it, so no scan holds
the board for the whole package's hashing (some 0.7 s at the bench's pessimistic end, make bench).

Before a slot on trial is kept, its own update code reads back the package it came in (check, doce/trial.py):
begun as an update_begin of that very package and committed, the slot being the running one and nothing written
or emptied. A version that would refuse it, or cannot run it, cannot be updated again and is given up
(r43e F6: one bad release would else strand every board on it until a USB flash).

`update_begin` names the package's version too, checked before anything stored is touched: a begin not
newer than the running version, the one given up, an update stored and waiting or a transfer in progress (its
version in update.json) is refused, so a replay of an older package's begin cannot drop a newer one, stored or
on its way. Over the network (a command from the broker), `update_begin`
and `update_abort` carry `sig`, the HMAC of "update_begin BOARD VERSION SIZE SHA256" (BOARD this board's own
id) or "update_abort SHA256" under the board's key, its first 16 bytes: broker credentials alone cannot
start, restart or drop an update. `update_chunk` and `update_commit` carry no `sig` (a chunk's 128 characters
and a sig would not fit a command's 200 bytes, and an HMAC a chunk would cost the board two more SHA-256 passes):
anyone's chunk at the right offset costs at most the file it completes (refused against the manifest's
SHA-256, removed, and sent again from its start: `corrupted`), and a commit before the last byte is refused and
changes nothing (`incomplete`). Over USB, whoever holds the cable holds the board.
This module leaves memory once a transfer is over (refused, aborted or committed: `command`), and as a match
begins (doce/link.py pause_update): the match has the heap, and update_begin after it goes on from what is stored.
"""

import binascii
import hashlib
import json
import os
import struct

from .arguments import LATER, BadArgument, CommandError, base64_chunk
from .ticks import ticks_diff

# {"board": id, "key": 64 hex digits, "floor": version}: this board's own update key, and the highest version it
# took (committed) or was told of with the key (doce config update-key: the room's record of the versions it
# signed). A version at or below the floor is a replay. Kept here, not in slot.json: doce flash --app-only
# writes that afresh (version 0 running, nothing given up) and keeps this file; a full flash needs the key given
# again, and the floor comes with it.
KEY = "update.key"
STATE = "update.json"  # the transfer: {"size", "sha256", "slot", "version"}, "ready" once checked (waiting for a match)
# In the slot, once the manifest is checked: the package's 4 length bytes, its 32-byte tag, and the SHA-256
# update_begin named (32 bytes; not in a slot an updater from before the trial's check stored: check)
HEADER = "header"
MANIFEST = "manifest"  # in the slot: the manifest's bytes, as received
VERSION = "version"  # in the slot: its manifest's version (slots.py reads it too)
MAX_VERSION = 999999999999  # 12 digits, the time in seconds until the year 33658 (docs/protocol.schema.json "version")
MAX_PACKAGE = 1 << 21  # the app is some 200 KB; a slot's files must fit the flash twice over
MAX_MANIFEST = 8192
MAX_FILES = 96
TAG = 32
SIG = 16  # bytes of HMAC-SHA256 a command's `sig` carries (_signed)
FOLDERS = ("doce", "umqtt")  # a slot holds these (doce_host/image.py app_files), nothing else
PIECE = 256  # bytes read at a time to hash a stored file
# Bytes update_commit reads back (each through two SHA-256s) a scan, and at most one file ended: one LittleFS
# block. The longest such scan is in make bench (bench/update_transfer.py), against a transfer's longest.
STEP = 4096
# [ and { in a manifest: its object, its list of files and one list a file. More is a nesting json.load
# would need a stack for (a manifest 3,000 deep ran the heap out): refused before it is parsed.
BRACKETS = MAX_FILES + 2
# Flash blocks an update leaves free beyond its own files: the journal, calibration and net.json must
# still be written while it waits (a LittleFS file takes whole blocks; doce/journal.py writes anew).
RESERVE_BLOCKS = 8
ENOSPC = 28  # errno: no space left on the device
# A transfer with no update command taken for this long is let go (stale), once the board is clear: its host has
# gone. Far above the gaps a host leaves: doce fleet update waits 10 s for a reply (--timeout) and asks a busy board
# again every 5 s. A board never clear keeps it no longer than its next match's first piece (pause).
STALE_MS = 120000


def hmac_sha256(key, data):
    """RFC 2104 with SHA-256 (the ESP32's hashlib has no hmac); `data` bytes, or a path read in pieces."""
    key = key + bytes(64 - len(key))  # a key of 32 bytes
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
    if isinstance(data, str):
        read_into(data, inner)
    else:
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


def unhex(text):
    return bytes(int(text[i:i + 2], 16) for i in range(0, len(text), 2))


def is_int(n):
    return isinstance(n, int) and not isinstance(n, bool)


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


def free_flash():
    """(bytes free, block size) of the board's file system."""
    s = os.statvfs(os.getcwd())
    return s[0] * s[3], s[0]


def too_big(size, free, block):
    """Why a package of `size` bytes does not fit `free` bytes of flash, RESERVE_BLOCKS kept; None if it does."""
    if size + RESERVE_BLOCKS * block > free:
        return "the package is %d bytes and the flash has %d free, %d of them kept for the game" % (
            size, free, RESERVE_BLOCKS * block)
    return None


def held(slot, block):
    """Bytes of flash the slot's files free once removed, at least: each file's whole blocks (a file's last,
    partly filled block, or a small file kept inline in its folder's metadata, LittleFS v2, may free nothing)."""
    n = 0
    for folder in FOLDERS:
        if exists(slot + "/" + folder):
            for name in os.listdir(slot + "/" + folder):
                n += size_of(slot + "/" + folder + "/" + name) // block
    for name in (MANIFEST, HEADER, VERSION):
        n += size_of(slot + "/" + name) // block
    return n * block


def load_key():
    try:
        with open(KEY) as f:
            k = json.load(f)
        return k["board"], unhex(k["key"])
    except (OSError, ValueError, KeyError, TypeError):
        return None, None


def floor():
    """The highest version this board took or was told of with its key (KEY), 0 if none."""
    try:
        with open(KEY) as f:
            n = json.load(f).get("floor", 0)
        return n if is_int(n) and n > 0 else 0
    except (OSError, ValueError, AttributeError):
        return 0


def raise_floor(version):
    """Once a version is stored whole and checked: it, and any below, is a replay from now, reflash or not."""
    try:
        with open(KEY) as f:
            k = json.load(f)
    except (OSError, ValueError):
        return
    if isinstance(k, dict) and version > floor():
        k["floor"] = version
        write_whole(KEY, json.dumps(k))


def write_whole(path, data):
    with open(path + ".new", "w" if isinstance(data, str) else "wb") as f:
        f.write(data)
    os.rename(path + ".new", path)


def pointer():
    """firmware/slots.py, loaded at boot by main.py and kept: loaded again from its source here, its compiling
    would need some 30 KB more than a board on the broker has free (an update_begin ran out of heap)."""
    import slots
    return slots


class Update:
    def __init__(self, link, own=False):
        self.link = link
        self.own = own  # the running slot's own package, read back by its own code (check): nothing written
        self.unnamed = False  # own, and its header holds no package SHA-256 (stored by an older updater)
        self.size = 0
        self.sha = None
        self.slot = None
        self.n = 0  # the manifest's length, once its 4 bytes are in
        self.ends = bytearray(4 + TAG)  # the package's length bytes and its tag, as they come
        self.paths = None  # the manifest's files, once checked: paths, sizes, SHA-256s (32 bytes each, one run)
        self.sizes = None
        self.shas = None
        self.version = None  # the manifest's, once checked
        self.announced = None  # the version update_begin named: the manifest's must be it
        self.received = 0
        self.at = 0  # the file being written
        self.written = 0  # its bytes stored
        self.out = None  # the slot's file open for writing, from its first chunk to its last (_append)
        # update_commit's read-back, a part a scan (step): (request id, where its reply goes) till it is over
        self.asker = None
        self.asked = None  # the command asker waits on
        self.heard = None  # the tick of the first scan after the last update command (stale)
        # The slot's files still to go as it is emptied (_clear), a file a scan (_empty); None when none are
        self.left = None
        self.reading = None  # the file being read back
        self.back = 0  # its index in paths (-1: the manifest)
        self.whole = None  # the package's SHA-256 so far
        self.one = None  # the file's
        self.piece = None  # (PIECE bytes, from the commit's start to its end)

    # -- the commands ------------------------------------------------------------------------------

    def begin(self, request):
        size, sha = request.get("size"), request.get("sha256")
        version = request.get("version")
        if not is_int(size) or not 0 < size <= MAX_PACKAGE:
            raise BadArgument("size is the package's length in bytes, 1 to %d" % MAX_PACKAGE)
        if not is_hex(sha, 64):
            raise BadArgument("sha256 is the package's SHA-256, 64 lowercase hex digits")
        if not is_int(version) or not 0 <= version <= MAX_VERSION:
            raise BadArgument("version is the package's version, a whole number from 0 to %d" % MAX_VERSION)
        self._signed(request, "update_begin %s %d %d %s" % (load_key()[0], version, size, sha))  # for this board
        slots = pointer()
        p = slots.read()
        if self.own:  # the running slot's package, as stored: resumed whole or refused, never emptied
            self.size, self.sha, self.slot, self.announced = size, sha, p["slot"], version
            if not self._resume():
                self._refuse("the slot holds no checked manifest (no header)", keep=True)
            return {"received": self.received, "slot": self.slot}
        if p["slot"] != p["good"]:
            raise CommandError("trial", "this board is trying a new version: it takes an update once that is done")
        slot = "b" if p["slot"] == "a" else "a"
        state = self._state()
        if not isinstance(state, dict):
            state = {}
        named = {k: v for k, v in state.items() if k not in ("ready", "version")}
        same_package = (state.get("ready", True) is True and state.get("version", version) == version
                        and named == {"size": size, "sha256": sha, "slot": slot})  # (a record from before: no version)
        if not same_package:  # a replayed begin (signed, recorded) must not drop what is stored: refused first
            self._newer(version, slots, state, slot, sha)
            # and one that cannot fit, before the slot to go back to is emptied: its files count as free
            free, block = free_flash()
            why = too_big(size, free + held(slot, block), block)
            if why:
                self._warn(why, "refused")
        if same_package and self.asked == "update_commit" and self.asker is not None and sha == self.sha:
            return {"received": self.received, "slot": slot}  # reading back: it goes on, its commit answered
        self._dropped("update_begin")
        self.size, self.sha, self.slot, self.announced = size, sha, slot, version
        if not (same_package and self._resume()):
            self._clear()
            if self.left:  # what the slot held goes first, a file a scan (scan): the reply once it is empty
                return self._later("update_begin", request)
            return self._begun()
        return {"received": self.received, "slot": slot}

    def _begun(self):
        """A new transfer's begin, the slot empty: the flash checked for room, and its record written."""
        free, block = free_flash()
        why = too_big(self.size, free, block)
        if why:
            self._refuse(why)
        try:
            write_whole(STATE, json.dumps({"size": self.size, "sha256": self.sha, "slot": self.slot,
                                           "version": self.announced}))
        except Exception:  # not written (EIO, ENOSPC): no transfer without its record; a begin writes it again
            self.sha = None
            raise
        return {"received": self.received, "slot": self.slot}

    def _later(self, cmd, request):
        """`cmd`'s reply once scan has done its work, a part a scan, to whoever asked last."""
        self.asked, self.asker = cmd, (request.get("id"), self.link.to)
        return LATER

    def chunk(self, request):
        if self.sha is None or self.left is not None:
            raise CommandError("no_transfer", "send update_begin first, and wait for its reply")
        offset = request.get("offset")
        if offset != self.received or not is_int(offset):
            raise BadArgument("offset must be %d, the bytes received so far" % self.received)
        data = base64_chunk(request.get("data"))
        if self.received + len(data) > self.size:
            raise BadArgument("more bytes than update_begin announced")
        view = memoryview(data)
        try:
            if self.paths is None:
                view = self._take_head(view)
            if len(view):
                self._store(view)
        except OSError as e:
            if e.args[0] != ENOSPC:
                raise
            self._refuse("the flash is full (%d of %d bytes stored)" % (self.received, self.size))
        return {"received": self.received}

    def commit(self, request):
        if self.sha is None or self.left is not None:
            raise CommandError("no_transfer", "send update_begin first, and wait for its reply")
        if self.received < self.size:  # refused, and nothing changed: unsigned, it may be anyone's on the broker
            self._warn("truncated: %d of %d bytes arrived; the transfer goes on from there"
                       % (self.received, self.size), "incomplete")
        if self.asker is not None:  # asked again as it reads back (a host that gave up waiting): one reply, its
            return self._later("update_commit", request)  # to the last to ask; the read-back goes on
        self._close()
        with open(self._in_slot(HEADER), "rb") as f:
            f.readinto(self.ends)
        self.whole = hashlib.sha256()  # every byte read back from the slot, once more, as it will boot
        self.whole.update(memoryview(self.ends)[:4])
        self.piece = bytearray(PIECE)
        self.back, self.one = -1, None
        self.reading = open(self._in_slot(MANIFEST), "rb")
        return self._later("update_commit", request)  # a part a scan (step): link.poll calls scan

    def step(self):
        """A scan's part of the commit's read-back: at most STEP bytes, and at most one file ended (its SHA-256
        compared). None while there is more; at its end the commit's result; a refusal raised (Refused)."""
        budget = STEP
        piece = self.piece
        while budget > 0:
            n = self.reading.readinto(piece)
            if not n:
                return self._ended()
            part = piece if n == PIECE else memoryview(piece)[:n]  # (a view only for a file's last piece)
            self.whole.update(part)
            if self.one is not None:
                self.one.update(part)
            budget -= n
        return None

    def scan(self):
        """link.poll, between matches and with the board clear, while a command's work goes on a part a scan: an
        update_begin's or update_abort's emptying of the slot (a file a scan, _empty), an update_commit's read-back
        (step). Its reply once it is over, to whoever asked last (over USB or from the broker)."""
        link = self.link
        cmd = self.asked
        ident, link.to = self.asker
        try:
            if self.left is not None:
                result = self._empty()
                if result is not None and cmd == "update_begin":
                    result = self._begun()
            else:
                result = self.step()
            if result is not None:
                self.asker = None
                link.answer(cmd, ident, result)
        except CommandError as e:
            link.reply(cmd, ident, error=e.args[0], message=e.args[1])
        except Exception as e:  # noqa: BLE001  (flash that will not read: one reply all the same; the transfer stays)
            if self.left is not None:  # but not one whose slot is half emptied (EIO, ENOSPC): a begin empties it again
                self.sha = None
            self._close()
            self.left = None
            link.reply(cmd, ident, error="failed", message="%s: %s" % (type(e).__name__, e))
        finally:
            link.to = None
            if self.over():  # this module may go
                link.update = None
                let_go()

    def pause(self):
        """A match began (doce/link.py pause_update): this Update goes, and the heap it and this module hold with
        it (some 22 KB) is the match's. Its file open is closed, its bytes stored: an update_begin after the match
        goes on from them (_resume). (command, id, where its reply goes) of a reply owed, or None."""
        owed = None if self.asker is None else (self.asked,) + self.asker
        self._close()
        self.left = None
        return owed

    def stale(self, now_ms):
        """link.poll, while no command's work goes on: True once STALE_MS have passed with no update command taken
        (the host gone; a refused one does not count, command), so this Update is let go (doce/link.py
        pause_update, once the board is clear: closing its file is a flash write): the heap it holds, and a transfer
        whose manifest never came whole no longer refuses the versions below its own (_newer)."""
        if self.heard is None:
            self.heard = now_ms
        return ticks_diff(now_ms, self.heard) >= STALE_MS

    def over(self):
        """No transfer, and no command's work left for scan."""
        return self.sha is None and self.asker is None

    def _empty(self):
        """A scan's part of emptying the slot (_clear): one of its files removed, a sector erase at most (a LittleFS
        metadata block compacted), never the lot in one scan (45 of them held a scan 577 ms at the flash's
        maximum times, make bench). {} once it is empty."""
        if self.left:
            path = self.left.pop()
            if exists(path):
                os.remove(path)
            return None
        self.left = None
        return {}

    def _ended(self):
        """The file being read back is at its end: its SHA-256 compared and the next opened; after the last, the
        package's SHA-256, and the update is stored, checked (own: its result only, nothing written)."""
        self.reading.close()
        self.reading = None
        i = self.back
        if i < 0:
            self.whole.update(memoryview(self.ends)[4:])
        elif not self._matches(i, self.one):
            self._refuse("corrupted: %s does not match its SHA-256" % self.paths[i])
        i += 1
        if i < len(self.paths):
            path = self._in_slot(self.paths[i])
            if not self.sizes[i]:
                open(path, "ab").close()  # an empty file: no byte made it
            self.back, self.one = i, hashlib.sha256()
            self.reading = open(path, "rb")
            return None
        whole, self.whole, self.one, self.piece, self.asker = self.whole, None, None, None, None
        if not self.unnamed and whole.digest() != unhex(self.sha):
            self._refuse("corrupted: the package does not match the SHA-256 update_begin named")
        if self.own:
            self.sha = None
            return {"version": self.version}
        write_whole(STATE, json.dumps({"ready": True, "size": self.size, "sha256": self.sha, "slot": self.slot,
                                       "version": self.version}))
        raise_floor(self.version)
        self.link.app.update_ready = self.slot
        self.sha = None  # over: this module may go (a begin of the same package finds it stored, ready)
        return {"version": self.version, "deferred": self.link.app.in_play()}

    def abort(self, request):
        state = self._state()
        self._signed(request, "update_abort %s" % (state.get("sha256") if isinstance(state, dict) else ""))
        p = pointer().read()
        if p["slot"] != p["good"]:  # the slot not running is the good one, never emptied: an update committed and
            # switched to (restarting into it), or on trial: nothing to abort
            raise CommandError("trial", "this board is trying a new version (or restarting into it): nothing to abort")
        self._dropped("update_abort")
        self.slot = "b" if p["slot"] == "a" else "a"
        self._clear()
        self.sha = None
        if self.left:  # its files, a scan each (scan): the reply once the slot is empty
            return self._later("update_abort", request)

    def _dropped(self, cmd):
        """`cmd` (a begin of another package, an abort) ends the work a command goes on with (a commit's read-back,
        an emptying): its asker answered now, not left to time out. `aborted`, but an abort's emptying, which the
        begin's own goes on with (ok); the same command asked again is answered once, its last asker (scan)."""
        if self.asker is None or self.asked == cmd:
            return
        (ident, to), was = self.asker, self.asked
        self.asker = None
        link = self.link
        here, link.to = link.to, to
        try:
            if was == "update_abort":
                link.answer(was, ident, None)
            else:
                link.reply(was, ident, error="aborted", message="%s came before its reply: %s" % (
                    cmd, "the update is dropped" if cmd == "update_abort" else "another package replaces it"))
        finally:
            link.to = here

    def _newer(self, version, slots, state, slot, sha):
        """A begin of a version newer than the running one, the one given up and the one update.json (`state`)
        records in `slot`, stored and waiting or on its way (its begin's version, or the slot's once its
        manifest was checked), or another begin's whose slot is still emptying; else refused, and what is
        stored kept."""
        stored = 0
        if self.asked == "update_begin" and self.left is not None and sha != self.sha:
            stored = self.announced  # (update.json goes as the emptying starts: a replay of an older begin meanwhile)
        if state.get("slot") == slot:
            # The slot's version once its manifest was checked; before that, the record's only while this very
            # transfer is live (this Update holds it: a host gone, STALE_MS without an update command, lets it go)
            stored = max(stored, slots.version_of(slot))
            v = state.get("version")
            if is_int(v) and (state.get("ready") or (self.sha is not None and self.sha == state.get("sha256"))):
                stored = max(stored, v)
        for was, what in ((slots.version_of(slots.read()["slot"]), "the running version %d (a replay)"),
                          (slots.given_up(), "version %d, which this board rolled back from"),
                          (stored, "version %d, " + ("stored and waiting" if state.get("ready") else "being received")
                           + " (a replay)"),
                          (floor(), "version %d, the highest this board has taken (a replay)")):
            if version <= was:  # (a transfer this Update holds goes on: a replay does not end it)
                self._warn(("version %d is not newer than " + what) % (version, was), "refused")

    # -- receiving ----------------------------------------------------------------------------------

    def _take_head(self, view):
        """The package's first bytes: its length and tag kept (36 bytes), the manifest appended to the slot
        as it comes; checked once all are in. The rest of the chunk (file bytes) back."""
        while len(view) and self.paths is None:
            at = self.received
            if at < 4:
                k = min(4 - at, len(view))
                self.ends[at:at + k] = view[:k]
                if at + k == 4:
                    self.n = struct.unpack_from("<I", self.ends, 0)[0]
                    if not 0 < self.n <= MAX_MANIFEST:
                        self._refuse("not a package: a manifest of %d bytes" % self.n)
                    if exists(self._in_slot(MANIFEST)):
                        os.remove(self._in_slot(MANIFEST))
            elif at < 4 + self.n:
                k = min(4 + self.n - at, len(view))
                self._append(MANIFEST, view[:k], at + k == 4 + self.n)
            else:
                k = min(4 + self.n + TAG - at, len(view))
                self.ends[at - self.n:at - self.n + k] = view[:k]
            self.received += k
            view = view[k:]
            if self.received == 4 + self.n + TAG:
                self._checked()
                free, block = free_flash()
                need = sum((s + block - 1) // block for s in self.sizes) * block + RESERVE_BLOCKS * block
                if need > free:
                    self._refuse("its files take %d bytes of flash and %d are free, %d of them kept for the game"
                                 % (need - RESERVE_BLOCKS * block, free, RESERVE_BLOCKS * block))
                write_whole(self._in_slot(VERSION), str(self.version))
                # last: a slot with a header has its version (and its package's SHA-256, for check)
                write_whole(self._in_slot(HEADER), bytes(self.ends) + unhex(self.sha))
                self._advance()
        return view

    def _checked(self, resumed=False):
        """The manifest (in the slot) checked against the tag in self.ends: its files kept, or Refused naming why.
        `resumed`: the package update.json records, already taken in (its version may be the floor by now)."""
        board, key = load_key()
        if key is None:
            self._refuse("unsigned: this board has no update key (doce config update-key, over USB)")
        path = self._in_slot(MANIFEST)
        if size_of(path) != self.n or not same(hmac_sha256(key, path), memoryview(self.ends)[4:]):
            self._refuse("unsigned or signed with another key")
        m = None
        if brackets(path) <= BRACKETS:
            try:
                with open(path) as f:
                    m = json.load(f)
            except ValueError:
                pass
        if not isinstance(m, dict) or set(m) != {"version", "board", "files"}:
            self._refuse("the manifest is not one this firmware reads")
        if m["board"] != board:
            self._refuse("a package for another board (%s)" % str(m["board"])[:64])
        version = m["version"]
        if version != self.announced:
            self._refuse("the manifest's version %s is not the one update_begin named, %d"
                         % (str(version)[:16], self.announced))
        slots = pointer()
        running = slots.version_of(slots.read()["slot"])
        if not self.own and (not is_int(version) or version <= running):  # (own: the running version, named)
            self._refuse("version %s is not newer than the running version %d (a replay)"
                         % (str(version)[:16], running))
        if version <= floor() and not resumed:
            self._refuse("version %d is not newer than version %d, the highest this board has taken (a replay)"
                         % (version, floor()))
        given_up = slots.given_up()
        if version <= given_up:
            self._refuse("version %d is not newer than version %d, which this board rolled back from"
                         % (version, given_up))
        files = m["files"]
        del m
        total = 4 + self.n + TAG
        seen = set()
        if not isinstance(files, list) or not 0 < len(files) <= MAX_FILES:
            self._refuse("the manifest lists no files, or too many")
        for entry in files:
            if (not isinstance(entry, list) or len(entry) != 3 or not is_path(entry[0]) or entry[0] in seen
                    or not is_int(entry[1]) or entry[1] < 0 or not is_hex(entry[2], 64)):
                self._refuse("the manifest names a file the app does not have: %s" % str(entry)[:80])
            seen.add(entry[0])
            total += entry[1]
        if total != self.size:
            self._refuse("the manifest's files come to %d bytes, the package is %d" % (total, self.size))
        # Kept small: names, sizes, and the hashes as one run of bytes (the parsed lists go)
        self.paths = [e[0] for e in files]
        self.sizes = [e[1] for e in files]
        shas = bytearray(32 * len(files))
        for i in range(len(files)):
            shas[32 * i:32 * i + 32] = unhex(files[i][2])
        self.shas = shas
        self.version = version

    def _store(self, view):
        while len(view):
            k = min(self.sizes[self.at] - self.written, len(view))
            self._append(self.paths[self.at], view[:k], self.written + k == self.sizes[self.at])
            self.written += k
            self.received += k
            view = view[k:]
            self._advance()

    def _append(self, name, data, last):
        """`data` onto the slot's file `name`, kept open until its `last` bytes are in: LittleFS then erases
        one sector a 4 KB block filled, and copies nothing. What a cut or a drop leaves is the size it had
        at its last close (none: it was never closed), which _resume goes on from."""
        if self.out is None:
            self.out = open(self._made(name), "ab")
        self.out.write(data)
        if last:
            self._close()

    def _close(self):
        """The file open for writing closed: its bytes so far stored for good. Before anything else reads,
        stats or removes a file of the slot (an open file removed, then closed, would write its size over
        whatever LittleFS has put in its place)."""
        if self.out is not None:
            f, self.out = self.out, None
            f.close()
        if self.reading is not None:  # a commit's read-back: over (whoever ends it answers its asker)
            f, self.reading = self.reading, None
            f.close()
        self.asker = None

    def _advance(self):
        """Past each file whose bytes are all stored, each read back whole: a bad chunk is refused at once."""
        while self.at < len(self.paths) and self.written == self.sizes[self.at]:
            path = self._in_slot(self.paths[self.at])
            if not self.sizes[self.at]:
                open(self._made(self.paths[self.at]), "ab").close()  # an empty file: no byte will make it
            if not self._matches(self.at, read_into(path, hashlib.sha256())):
                # Only this file is lost: a chunk is unsigned, and anyone on the broker can send one
                os.remove(path)
                self.received -= self.sizes[self.at]
                self.written = 0
                self._warn("corrupted: %s does not match its SHA-256; it goes again from byte %d"
                           % (self.paths[self.at], self.received), "corrupted")
            self.at += 1
            self.written = 0

    def _matches(self, i, one):
        return one.digest() == bytes(memoryview(self.shas)[32 * i:32 * i + 32])

    def _resume(self):
        """How far a transfer of this very package got before a drop or a cut: its stored files. False if
        the manifest never arrived whole (from the start, then)."""
        self._close()
        self.paths = self.sizes = self.shas = None
        self.received = self.at = self.written = 0
        try:
            with open(self._in_slot(HEADER), "rb") as f:
                if f.readinto(self.ends) != len(self.ends):
                    raise OSError(0)
        except OSError:
            return False
        self.n = struct.unpack_from("<I", self.ends, 0)[0]
        try:
            self._checked(True)
        except CommandError:
            self._clear()
            raise
        self.received = 4 + self.n + TAG
        partial = False
        for i in range(len(self.paths)):
            path, size = self._in_slot(self.paths[i]), self.sizes[i]
            stored = size_of(path)
            if self.own and stored != size:
                self._refuse("%s is %d bytes, not the %d its manifest names" % (self.paths[i], stored, size), keep=True)
            if partial or stored > size:  # past the point the transfer reached: from that point again
                if exists(path):
                    os.remove(path)
                continue
            self.received += stored
            if stored < size:
                partial = True
                self.at, self.written = i, stored
        if not partial:
            self.at, self.written = len(self.paths), 0
        return True

    def _clear(self):
        """The inactive slot emptied, for a new transfer (an update stored there before is no more). The record
        goes first: a power cut midway leaves a slot half emptied that nothing will switch to or resume (a begin
        empties it again). Here only the records; the slot's files, its version first (a pointer rebuilt from
        the slots' versions, firmware/slots.py rebuilt, never picks it), then its header, then the rest, are
        left for scan: a file a scan (_empty). A transfer refused leaves them to the next begin."""
        self._close()
        self.left = None
        if self.own:  # the running slot, checked: never emptied, and another's transfer not touched
            return
        if self.link.app is not None:
            self.link.app.update_ready = None
        self.paths = self.sizes = self.shas = None
        self.received = self.at = self.written = self.n = 0
        slot = self.slot
        if slot is None:
            if exists(STATE):
                os.remove(STATE)
            return
        running = pointer().state
        if running is not None and slot == running["slot"]:  # (never: the slot not running is the one written)
            raise CommandError("failed", "the running slot is never emptied")
        try:
            pointer().emptying(slot)  # no longer a slot to go back to (slots.py `previous`), before a file goes
            if exists(slot + "/" + VERSION):  # r43h: before update.json, so a rebuilt pointer never boots it
                os.remove(slot + "/" + VERSION)
            if exists(STATE):
                os.remove(STATE)
            make(slot)
        except Exception:  # flash that will not write (EIO, ENOSPC): no transfer into a slot not emptied (scan)
            self.sha = None
            raise
        left = []  # popped from its end: the last here goes first
        for folder in FOLDERS:  # (made as its first file comes, _made: each a sector erase, one a scan)
            if exists(slot + "/" + folder):
                for name in os.listdir(slot + "/" + folder):
                    left.append(slot + "/" + folder + "/" + name)
        for name in (MANIFEST, HEADER, VERSION):
            if exists(slot + "/" + name):
                left.append(slot + "/" + name)
        self.left = left or None

    def _in_slot(self, path):
        return self.slot + "/" + path

    def _made(self, path):
        """The slot's `path`, its folder made first if it is not there yet. A folder made is a sector erase
        (LittleFS gives it a metadata block of its own), so each is made by the chunk that brings its first
        file, not all in update_begin's scan with the slot's: one erase a scan (make bench)."""
        path = self._in_slot(path)
        make(path.rpartition("/")[0])
        return path

    def _state(self):
        try:
            with open(STATE) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def _signed(self, request, text):
        """A command from the broker (link.to set, doce/net.py) carries `sig`, text's HMAC under this board's key,
        cut to its first SIG bytes (RFC 2104 section 5: half the hash's length), so a signed update_begin fits
        the 200 bytes of a command (doce/link.py MAX_LINE)."""
        if self.link.to is None:
            return
        board, key = load_key()
        sig = request.get("sig")
        if key is None or not is_hex(sig, 2 * SIG) or not same(hmac_sha256(key, text.encode())[:SIG], unhex(sig)):
            reason = "%s over the network without this board's signature" % request["cmd"]
            self.link.app.emit({"event": "warning", "message": "update refused: " + reason})
            raise CommandError("refused", reason)

    def _warn(self, reason, error):
        """One warning naming the reason, and the command refused with `error`; the transfer goes on."""
        if not self.own:  # (own: the trial says why it gives the slot up)
            self.link.app.emit({"event": "warning", "message": "update refused: " + reason})
        raise CommandError(error, reason)

    def _refuse(self, reason, keep=False):
        """One warning naming the reason; the transfer is over and the slot emptied (unless `keep`: a begin
        refused before it touched what is stored)."""
        if keep:
            self._close()  # this Update goes (command): its file is closed now, its bytes stored, not left open
        else:
            self._clear()
        self.sha = None
        if not self.own:
            self.link.app.emit({"event": "warning", "message": "update refused: " + reason})
        raise CommandError("refused", reason)


class Own:
    """The link a slot's check of its own package goes through (check): no reply, no signature asked."""
    to = None

    def __init__(self, app):
        self.app = app


def check(app):
    """The running slot's own package read back by its own update code (doce/trial.py, before a slot on trial is
    kept): begun as a signed update_begin of that package would be, and committed; nothing is written or emptied.
    An Update to step() a scan at a time until it gives the commit's result; CommandError where this code refuses
    the package it came in (or would not run it: any other exception)."""
    slot = pointer().state["slot"]
    with open(slot + "/" + HEADER, "rb") as f:
        head = f.read()
    if len(head) < 4 + TAG:
        raise CommandError("refused", "the slot's header is not whole")
    size = 4 + struct.unpack_from("<I", head, 0)[0] + TAG
    for folder in FOLDERS:  # a slot holds its package's files only (emptied before a transfer, _clear)
        if not exists(slot + "/" + folder):  # made by its first file's chunk (_made): a package may have none
            continue
        for name in os.listdir(slot + "/" + folder):
            size += size_of(slot + "/" + folder + "/" + name)
    u = Update(Own(app), own=True)
    u.unnamed = len(head) < 4 + TAG + 32
    sha = "0" * 64 if u.unnamed else binascii.hexlify(head[4 + TAG:4 + TAG + 32]).decode()
    u.begin({"cmd": "update_begin", "size": min(size, MAX_PACKAGE), "sha256": sha,
             "version": pointer().version_of(slot)})
    u.commit({"cmd": "update_commit"})
    return u


def make(folder):
    if not exists(folder):
        os.mkdir(folder)


def read_into(path, *hashes):
    """The stored file's bytes into each of `hashes`, a piece at a time; the last hash back."""
    piece = bytearray(PIECE)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(piece)
            if not n:
                break
            for h in hashes:
                h.update(memoryview(piece)[:n])
    return hashes[-1]


def brackets(path):
    """How many [ and { the file has (json.load's depth is at most that)."""
    n = 0
    piece = bytearray(PIECE)
    with open(path, "rb") as f:
        while True:
            k = f.readinto(piece)
            if not k:
                return n
            b = bytes(memoryview(piece)[:k])
            n += b.count(b"[") + b.count(b"{")


def set_key(request):
    """{"board": ID, "key": 64 hex digits, "floor": version (optional)}: the key a package for board ID is signed
    with, never sent back; the floor kept is the higher of the one given and the one this board has."""
    board, key, low = request.get("board"), request.get("key"), request.get("floor", 0)
    from .netconfig import is_topic_level
    if not isinstance(board, str) or not is_topic_level(board):
        raise BadArgument("board is the board's id: 1 to 64 letters, digits, _ or -")
    if not is_hex(key, 64):
        raise BadArgument("key is 32 bytes as 64 lowercase hex digits")
    if not is_int(low) or low < 0:
        raise BadArgument("floor is a version, a whole number from 0")
    write_whole(KEY, json.dumps({"board": board, "key": key, "floor": max(low, floor())}))
    return {"board": board}


def command(link, request):
    """update_begin, update_chunk, update_commit, update_abort (doce/link.py). Once the transfer is over
    (refused, aborted, committed) this module is let go: an update costs no memory between."""
    if link.update is None:
        link.update = Update(link)
    u = link.update
    try:
        result = {"update_begin": u.begin, "update_chunk": u.chunk, "update_commit": u.commit,
                  "update_abort": u.abort}[request["cmd"]](request)
        u.heard = None  # taken: its host is there (a refused one, a replay or anyone's chunk, does not say so)
        return result
    finally:
        if u.over():
            link.update = None
            let_go()


def let_go():
    from .loaded import forget
    forget("doce.update")
