# The board's checks of an app update (firmware/doce/update.py), on the MicroPython unix port, for `make bench`
# (bench/update_transfer.py runs it under callgrind). Run from a folder holding `manifest` (a package's manifest)
# and `files` (one path a line, each file there), with the firmware on MICROPYPATH:
#   update_sign.py begin N      N checks of a signed update_begin's `sig` (Update._signed: HMAC of its text)
#   update_sign.py manifest N   N checks of the manifest's tag (Update._checked: HMAC read from the file, brackets)
#   update_sign.py file PATH N  N SHA-256s of one stored file, read back (Update._advance, at its last chunk)
#   update_sign.py commit N     N read-backs of the whole package by update_commit (Update.commit, then
#                               Update.step a scan at a time: each file and the whole), each step called by
#                               max(ONE, key=...), so callgrind can count each alone (bench/update_transfer.py)
#   update_sign.py sha BYTES N  N SHA-256s of BYTES bytes in memory, one call each: hashlib's C alone
# With N = 0 only the set-up runs (callgrind's baseline). Prints the bytes the checks allocated (gc.mem_alloc
# before and after, collection off between: everything they made, kept or not; the most they can hold at once);
# for commit, the most one step allocated (collection off: all it made), and the steps of a read-back.
import gc
import hashlib
import sys

from doce.update import HEADER, Update, brackets, hmac_sha256, is_hex, read_into, same, unhex

KEY = bytes(range(32))
TEXT = "update_begin bench 1765000000 152479 " + "ab" * 32
SIG = "00" * 16  # the checks run to the end whatever the sig: same() compares every byte

mode, n = sys.argv[1], int(sys.argv[-1])
digest = b""
paths = [line.strip() for line in open("files") if line.strip()]
data = bytes(int(sys.argv[2])) if mode == "sha" else None
ONE = [0]
steps = [0, 0, 0]  # a read-back's steps, the most a step allocated, the result


class App:
    update_ready = None

    def in_play(self):
        return False


class Link:
    to = None
    app = App()


def stored():
    """An Update as update_commit finds it once every byte is in: the folder is its slot, `header` written (the
    package's length, the manifest's tag under KEY, the package's SHA-256), the manifest's files and SHA-256s."""
    u = Update(Link())
    u.slot = "."
    u.paths, u.sizes, u.shas = paths, [], bytearray()
    whole = hashlib.sha256()
    size = 0
    with open("manifest", "rb") as f:
        manifest = f.read()
    n = len(manifest).to_bytes(4, "little")
    tag = hmac_sha256(KEY, manifest)
    whole.update(n)
    whole.update(manifest)
    whole.update(tag)
    for path in paths:
        with open(path, "rb") as f:
            content = f.read()
        whole.update(content)
        u.sizes.append(len(content))
        u.shas.extend(hashlib.sha256(content).digest())
        size += len(content)
    digest = whole.digest()
    u.sha = "".join("%02x" % b for b in digest)
    with open(HEADER, "wb") as f:
        f.write(n + tag + digest)
    u.size = u.received = 4 + len(manifest) + 32 + size
    u.version = 1
    return u


def step(_):
    steps[2] = u.step()
    return 0


if mode == "commit":
    u = stored()
    sha = u.sha
gc.collect()
gc.disable()
before = gc.mem_alloc()
for _ in range(n):
    if mode == "begin":
        digest = hmac_sha256(KEY, TEXT.encode())
        is_hex(SIG, 32) and same(digest[:16], unhex(SIG))
    elif mode == "manifest":
        brackets("manifest")
        digest = hmac_sha256(KEY, "manifest")
    elif mode == "file":
        digest = read_into(sys.argv[2], hashlib.sha256()).digest()
    elif mode == "commit":
        u.sha = sha  # (a read-back that stored the package ends its transfer: sha None)
        u.commit({"cmd": "update_commit"})
        steps[0] = steps[2] = 0
        while steps[2] is None or not steps[0]:
            before = gc.mem_alloc()  # (outside max(): gc.mem_alloc walks the heap's table, some 0.3 M instructions)
            max(ONE, key=step)  # (allocates nothing itself)
            steps[0] += 1
            if gc.mem_alloc() - before > steps[1]:
                steps[1] = gc.mem_alloc() - before
        if steps[2] != {"version": 1, "deferred": False}:
            raise SystemExit("the read-back did not store the package: %s" % steps[2])
        digest = unhex(sha)  # the package's SHA-256, as the read-back found it
    elif mode == "sha":
        digest = hashlib.sha256(data).digest()
allocated = gc.mem_alloc() - before if mode != "commit" else steps[1]
print('{"allocated": %d, "digest": "%s", "steps": %d}' % (allocated, "".join("%02x" % b for b in digest) if n else "",
                                                          steps[0]))
