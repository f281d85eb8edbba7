# The board's checks of an app update (firmware/doce/update.py), on the MicroPython unix port, for `make bench`
# (bench/update_transfer.py runs it under callgrind). Run from a folder holding `manifest` (a package's manifest)
# and `files` (one path a line, each file there), with the firmware on MICROPYPATH:
#   update_sign.py begin N      N checks of a signed update_begin's `sig` (Update._signed: HMAC of its text)
#   update_sign.py manifest N   N checks of the manifest's tag (Update._checked: HMAC read from the file, brackets)
#   update_sign.py file PATH N  N SHA-256s of one stored file, read back (Update._advance, at its last chunk)
#   update_sign.py commit N     N read-backs of the whole package (Update.commit: each file and the whole)
#   update_sign.py sha BYTES N  N SHA-256s of BYTES bytes in memory, one call each: hashlib's C alone
# With N = 0 only the set-up runs (callgrind's baseline). Prints the bytes the checks allocated (gc.mem_alloc
# before and after, collection off between: everything they made, kept or not; the most they can hold at once).
import gc
import hashlib
import sys

from doce.update import brackets, hmac_sha256, is_hex, read_into, same, unhex

KEY = bytes(range(32))
TEXT = "update_begin bench 1765000000 152479 " + "ab" * 32
SIG = "00" * 16  # the checks run to the end whatever the sig: same() compares every byte

mode, n = sys.argv[1], int(sys.argv[-1])
digest = b""
paths = [line.strip() for line in open("files") if line.strip()]
data = bytes(int(sys.argv[2])) if mode == "sha" else None
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
        whole = hashlib.sha256()
        read_into("manifest", whole)
        for path in paths:
            read_into(path, whole, hashlib.sha256()).digest()
        digest = whole.digest()
    elif mode == "sha":
        digest = hashlib.sha256(data).digest()
allocated = gc.mem_alloc() - before
print('{"allocated": %d, "digest": "%s"}' % (allocated, "".join("%02x" % b for b in digest) if n else ""))
