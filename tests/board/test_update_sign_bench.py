"""make bench's figures for the board's update checks (bench/update_sign.py, run by bench/update_transfer.py under
callgrind) time the firmware's own functions: each check, run here once on the unix port, gives the digest the
host computes for the same bytes, so the bench cannot drift to timing something the board does not do."""

import hashlib
import hmac
import json
from pathlib import Path

import pytest


SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "update_sign.py"
KEY = bytes(range(32))  # update_sign.py's
TEXT = "update_begin bench 1765000000 152479 " + "ab" * 32
FILES = {"doce/a.mpy": bytes(range(256)) * 9 + b"tail", "doce/empty.py": b"", "umqtt/simple.mpy": b"x" * 700}
MANIFEST = b'{"version":1,"board":"bench","files":[]}' * 20


def checked(micropython, folder, *args):
    out = micropython(SCRIPT, *args, "1", heap="256K", timeout=120, cwd=folder)
    assert out.returncode == 0, out.stderr
    said = json.loads(out.stdout)
    assert said["allocated"] >= 0
    return said["digest"]


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "manifest").write_bytes(MANIFEST)
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    (tmp_path / "files").write_text("\n".join(FILES) + "\n")
    return tmp_path


def test_each_check_the_bench_times_is_the_board_s_and_hashes_what_the_host_does(micropython, folder):
    assert checked(micropython, folder, "begin") == hmac.new(KEY, TEXT.encode(), hashlib.sha256).hexdigest()
    assert checked(micropython, folder, "manifest") == hmac.new(KEY, MANIFEST, hashlib.sha256).hexdigest()
    assert checked(micropython, folder, "file", "doce/a.mpy") == hashlib.sha256(FILES["doce/a.mpy"]).hexdigest()
    package = (len(MANIFEST).to_bytes(4, "little") + MANIFEST + hmac.new(KEY, MANIFEST, hashlib.sha256).digest()
               + b"".join(FILES.values()))
    assert checked(micropython, folder, "commit") == hashlib.sha256(package).hexdigest()
    assert checked(micropython, folder, "sha", "1000") == hashlib.sha256(bytes(1000)).hexdigest()
