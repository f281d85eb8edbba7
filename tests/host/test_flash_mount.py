"""The installed file system, mounted by MicroPython's own LittleFS (the unix port's
vfs.VfsLfs2, the same lib/littlefs as the ESP32 port), through a block device that
behaves like the ESP32's esp32.Partition: 4096-byte blocks, block count = partition size
/ 4096 (ports/esp32/esp32_partition.c). This is how the board mounts `vfs` at boot
(ports/esp32/modules/_boot.py); when the mount fails it runs inisetup and loops on
"filesystem appears to be corrupted"."""

import hashlib
import json

import pytest
from waiting import completed

import esp_images
from doce_host import flash, image
from doce_host.paths import tool

MIB = 1 << 20
VFS = 0x200000  # v1.28.0 partitions-4MiBplus.csv: factory ends here, vfs runs to the end of flash

MOUNT = r"""
import json, sys, vfs, hashlib

class Partition:
    # esp32.Partition's block protocol, over a file holding the partition
    def __init__(self, path, size):
        self.f = open(path, "rb")
        self.size = size

    def readblocks(self, block, buf, offset=0):
        self.f.seek(block * 4096 + offset)
        self.f.readinto(buf)

    def writeblocks(self, block, buf, offset=0):
        raise OSError(30)  # mounting must not write

    def ioctl(self, op, arg):
        if op == 4:
            return self.size // 4096
        if op == 5:
            return 4096
        return 0

try:
    fs = vfs.VfsLfs2(Partition(sys.argv[1], int(sys.argv[2])))
except OSError as e:
    print(json.dumps({"error": e.errno}))
    sys.exit(0)

found = {}
def walk(folder):
    for entry in fs.ilistdir(folder):
        path = folder + entry[0] if folder == "/" else folder + "/" + entry[0]
        if entry[1] == 0x4000:
            walk(path)
        else:
            with fs.open(path, "rb") as f:
                found[path[1:]] = "".join("%02x" % b for b in hashlib.sha256(f.read()).digest())
walk("/")
print(json.dumps({"files": found}))
"""


def mount(tmp_path, partition, size):
    script = tmp_path / "mount.py"
    script.write_text(MOUNT)
    path = tmp_path / "vfs.bin"
    path.write_bytes(partition)
    run = completed([tool("micropython"), str(script), str(path), str(size)], timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def installed_partition(command, size):
    """The vfs partition after the esptool command, on an erased chip."""
    partition = bytearray(b"\xff") * size
    pairs = command[command.index("write-flash") + 4:]
    for address, path in zip(pairs[::2], pairs[1::2]):
        data = open(path, "rb").read()
        partition[int(address, 16) - VFS:int(address, 16) - VFS + len(data)] = data
    return bytes(partition)


@pytest.mark.parametrize("chip, flash_mib", [("esp32", 4), ("esp32", 16), ("esp32s3", 8)])
def test_micropython_mounts_what_doce_flash_writes(tmp_path, chip, flash_mib):
    firmware = tmp_path / "mp.bin"
    firmware.write_bytes(esp_images.firmware(chip))
    files = image.app_files("standard")
    work = tmp_path / "work"
    work.mkdir()
    [command] = flash.plan("p", firmware, files, work, size=flash_mib * MIB, dry_run=True,
                           out=open("/dev/null", "w"))
    size = flash_mib * MIB - VFS
    mounted = mount(tmp_path, installed_partition(command, size), size)
    assert mounted == {"files": {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}}


def test_a_2mib_image_in_an_8mib_modules_vfs_does_not_mount(tmp_path):
    """What the fixed 2 MiB image did on an 8 MiB module: the board would loop in inisetup."""
    small = image.build(image.app_files("standard"), block_count=512)
    size = 8 * MIB - VFS
    mounted = mount(tmp_path, small + b"\xff" * (size - len(small)), size)
    assert "error" in mounted
