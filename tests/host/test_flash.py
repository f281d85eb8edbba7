"""doce flash: tested up to the esptool call (no ESP32 here), and --app-only for real,
with mpremote against the serial simulator.

The firmware files are small stand-ins built like micropython.org's (esp_images.py), with
the partition tables of the pinned release, micropython tag v1.28.0: ESP32_GENERIC and
ESP32_GENERIC_S3 use ports/esp32/partitions-4MiBplus.csv (nvs, phy_init, factory up to
0x200000), and ports/esp32/main.c boardctrl_startup makes "vfs" from there to the end of
the module's flash.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import esp_images
from waiting import booted, completed, stretched
from doce_host import flash, image, micropython
from doce_host.espimage import FirmwareError
from doce_host.paths import FIRMWARE_DIR
from doce_host.sim.serial_sim import SerialSim

MIB = 1 << 20
FACTORY_END = 0x10000 + 0x1F0000  # partitions-4MiBplus.csv: factory at 0x10000, 0x1F0000 long


def write(tmp_path, data, name=micropython.firmware_file()):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_the_full_install_is_one_esptool_call_with_the_right_offsets():
    args = flash.esptool_args("/dev/ttyUSB0", "mp.bin", files=[(0x200000, "a.img"), (0x3a9000, "b.img")])
    assert args == ["--chip", "esp32", "--port", "/dev/ttyUSB0", "--baud", "460800", "write-flash",
                    "--erase-all", "0x1000", "mp.bin", "0x200000", "a.img", "0x3a9000", "b.img"]
    assert flash.esptool_args("p", "mp.bin", chip="esp32s3")[8:] == ["0x0", "mp.bin"]
    with pytest.raises(ValueError, match="unknown chip"):
        flash.esptool_args("p", "mp.bin", chip="esp8266")


def test_esptool_accepts_the_arguments():
    """esptool's own parser reads our call (it stops at opening the missing port)."""
    args = flash.esptool_args("/dev/nonexistent", __file__, files=[(0x200000, __file__)])
    run = completed([sys.executable, "-m", "esptool", *args], timeout=60)
    assert run.returncode != 0 and "nonexistent" in (run.stdout + run.stderr)
    assert "unrecognized" not in run.stderr and "invalid choice" not in run.stderr


def test_the_simulators_image_holds_the_app_and_fills_a_4mib_modules_vfs():
    files = image.app_files("standard")
    built = image.build(files)
    assert len(built) == 4 * MIB - FACTORY_END  # the simulator's flash: a 4 MiB module's vfs
    assert image.read(built) == files
    names = set(files)
    assert {"main.py", "board.json", "rules.doct"} <= names
    sources = {p.stem for p in (FIRMWARE_DIR / "doce").glob("*.py")}
    assert {n[7:-4] for n in names if n.startswith("a/doce/")} == sources  # every module, as .mpy, in slot a


def written(command, vfs_offset, blocks):
    """The vfs partition as the esptool command leaves it on an erased chip."""
    flash = bytearray(b"\xff") * (blocks * image.BLOCK_SIZE)
    pairs = command[command.index("write-flash") + 4:]
    for address, path in zip(pairs[::2], pairs[1::2]):
        data = Path(path).read_bytes()
        at = int(address, 16) - vfs_offset
        assert 0 <= at and at + len(data) <= len(flash)
        flash[at:at + len(data)] = data
    return bytes(flash)


def test_the_used_blocks_are_the_whole_image_on_an_erased_chip():
    files = image.app_files("standard")
    built = image.build(files, block_count=1024)
    parts = image.pieces(built)
    assert all(at % image.BLOCK_SIZE == 0 and len(data) % image.BLOCK_SIZE == 0 for at, data in parts)
    assert sum(len(data) for _, data in parts) < len(built) // 4
    erased = bytearray(b"\xff") * len(built)
    for at, data in parts:
        erased[at:at + len(data)] = data
    assert bytes(erased) == built


@pytest.mark.parametrize("chip, flash_mib", [("esp32", 4), ("esp32", 8), ("esp32", 16),
                                             ("esp32s3", 8), ("esp32s3", 16)])
def test_the_app_goes_to_the_whole_vfs_partition_of_the_module(tmp_path, chip, flash_mib):
    """The image is as big as the vfs partition MicroPython makes on this module, so it mounts."""
    firmware = write(tmp_path, esp_images.firmware(chip))
    files = image.app_files("standard")
    work = tmp_path / "work"
    work.mkdir()
    out = open(tmp_path / "out.txt", "w")
    [command] = flash.plan("/dev/ttyUSB0", firmware, files, work, size=flash_mib * MIB, dry_run=True, out=out)
    start = esp_images.CHIPS[chip][1]
    assert command[1:10] == ["--chip", chip, "--port", "/dev/ttyUSB0", "--baud", "460800", "write-flash",
                             "--erase-all", "0x%x" % start]
    assert command[10] == str(firmware)
    blocks = (flash_mib * MIB - FACTORY_END) // image.BLOCK_SIZE
    vfs = written(command, FACTORY_END, blocks)
    assert image.read(vfs, block_count=blocks) == files
    # LittleFS keeps its block count: the image mounts only at exactly this size
    with pytest.raises(Exception):
        image.read(vfs + b"\xff" * image.BLOCK_SIZE, block_count=blocks + 1)


def test_a_fixed_vfs_partition_in_the_table_is_used_as_it_is(tmp_path):
    """An image whose table has a vfs row (v1.24.1's ESP32-S3 table, partitions-8MiB.csv) keeps its place."""
    from doce_host import espimage
    fw = espimage.read_firmware(esp_images.firmware("esp32s3", table=esp_images.V1_24_S3_TABLE))
    assert espimage.vfs_place(fw, 8 * MIB) == (0x200000, 0x600000)
    assert espimage.vfs_place(fw, 16 * MIB) == (0x200000, 0x600000)
    with pytest.raises(FirmwareError, match="needs 8 MiB of flash, the board has 4 MiB"):
        espimage.vfs_place(fw, 4 * MIB)


def test_an_8mib_firmware_on_a_4mib_module_is_refused(tmp_path):
    firmware = write(tmp_path, esp_images.firmware(table=esp_images.V1_28_OTA_8MIB_TABLE))
    with pytest.raises(FirmwareError, match="needs 4.94 MiB of flash, the board has 4 MiB"):
        flash.plan("p", firmware, image.app_files("standard"), tmp_path, size=4 * MIB, dry_run=True,
                   out=open("/dev/null", "w"))


def test_a_dry_run_prints_the_firmware_and_the_command(tmp_path, capsys):
    firmware = write(tmp_path, esp_images.firmware())
    assert flash.install("/dev/ttyUSB0", firmware, dry_run=True) is None
    out = capsys.readouterr().out
    assert "MicroPython v1.28.0 (2026-04-06) for the ESP32" in out
    assert "assuming 4 MiB" in out
    assert "write-flash --erase-all 0x1000 %s 0x200000 " % firmware in out


@pytest.mark.parametrize("layout, why", [(None, "no partition table"),
                                         ([("nvs", 1, 2, 0x9000, 0x6000), ("factory", 0, 0, 0x10000, 0x1F0000),
                                           ("ffat", 1, 0x81, 0x200000, 0x200000)], "FAT")])
def test_an_unknown_layout_falls_back_to_copying_with_mpremote(tmp_path, capsys, layout, why):
    firmware = write(tmp_path, esp_images.firmware(table=layout))
    flash.install("/dev/ttyUSB0", firmware, dry_run=True, size=8 * MIB)
    out = capsys.readouterr().out
    assert why in out and "copying the app with mpremote" in out
    commands = [line for line in out.splitlines() if line.startswith("$ ")]
    assert commands[0].endswith("write-flash --erase-all 0x1000 %s" % firmware)  # MicroPython alone
    assert "mpremote connect /dev/ttyUSB0 fs cp" in commands[1] and commands[1].endswith(" reset")


BASE = esp_images.V1_28_TABLE


@pytest.mark.parametrize("vfs, says", [
    ((0x200000, 0), "is not whole 4 KiB blocks"),  # LittleFSError tracebacks before
    ((0x200000, 0x1800), "is not whole 4 KiB blocks"),
    ((0x200800, 0x1000 * 64), "is not whole 4 KiB blocks"),
    ((0x200000, 0x1000 * 2), "too small for the app's files"),
])
def test_a_vfs_partition_no_file_system_fits_is_one_line(tmp_path, vfs, says):
    layout = BASE + [("vfs", 1, 0x82, *vfs)]
    run = run_cli("--firmware", write(tmp_path, esp_images.firmware(table=layout)), "--dry-run")
    assert run.returncode == 2 and says in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_of_two_vfs_partitions_the_app_goes_to_the_first_as_micropython_mounts_it(tmp_path, capsys):
    layout = BASE + [("vfs", 1, 0x82, 0x200000, 0x100000), ("vfs", 1, 0x82, 0x300000, 0x100000)]
    flash.install("/dev/ttyUSB0", write(tmp_path, esp_images.firmware(table=layout)), dry_run=True)
    assert "LittleFS for the vfs partition at 0x200000" in capsys.readouterr().out  # 0x300000 before


def test_a_real_install_asks_the_board_and_runs_the_commands(tmp_path, monkeypatch):
    """Without a board: the probe and the programs are stand-ins that record what they are given."""
    firmware = write(tmp_path, esp_images.firmware())
    ran = []

    def run(command, timeout):
        assert timeout == flash.TOOL_SECONDS  # esptool's; mpremote's is the app's own (test_flash_no_repl.py)
        ran.append(command)
        blocks = (16 * MIB - FACTORY_END) // image.BLOCK_SIZE
        ran.append(image.read(written(command, FACTORY_END, blocks), block_count=blocks))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(flash, "probe", lambda port: probed("esp32", 16 * MIB))
    monkeypatch.setattr(flash, "run", run)
    monkeypatch.setattr(flash, "verify", lambda port, out: {"board": "doce"})
    out = open(tmp_path / "out.txt", "w+")
    assert flash.install("/dev/ttyUSB0", firmware, out=out) == {"board": "doce"}
    [command, files] = ran
    assert command[11] == "0x200000"  # the superblocks, first of the vfs partition
    assert files == image.app_files()
    out.seek(0)
    said = out.read()
    assert "/dev/ttyUSB0: ESP32 with 16 MiB of flash" in said
    assert "ESP32-D0WD-V3 (revision v3.1): Wi-Fi, BT, Dual Core + LP Core, 240MHz" in said  # esptool's words
    assert "a WROVER's is a chip of its own beside the ESP32, which esptool cannot see" in said


def probed(chip, size, description="ESP32-D0WD-V3 (revision v3.1)",
           features=("Wi-Fi", "BT", "Dual Core + LP Core", "240MHz", "Coding Scheme None")):
    """What esptool reads of an ESP32-WROVER-E's chip (targets/esp32.py: pkg_version 1, revision 3)."""
    return flash.Probed(chip, size, description, list(features))


@pytest.mark.parametrize("description, features, says", [
    ("ESP32-D0WD-V3 (revision v3.1)", ["Wi-Fi", "BT", "Dual Core + LP Core", "160MHz"], "is rated for 160 MHz at most"),
    ("ESP32-S0WD (revision v1.0)", ["Wi-Fi", "BT", "Single Core + LP Core", "240MHz"], "has one core"),
])
def test_an_esp32_the_firmware_cannot_run_as_it_promises_is_refused_before_anything_is_written(
        tmp_path, monkeypatch, description, features, says):
    monkeypatch.setattr(flash, "probe", lambda port: probed("esp32", 8 * MIB, description, features))
    monkeypatch.setattr(flash, "run", lambda command, timeout=None: pytest.fail("ran %s" % command))
    with pytest.raises(FirmwareError, match="the board's %s %s" % (re.escape(description), says)):
        flash.install("/dev/ttyUSB0", write(tmp_path, esp_images.firmware()), out=open("/dev/null", "w"))


@pytest.mark.parametrize("description", ["ESP32-D0WD (revision v1.0)", "ESP32-D0WD (revision v1.1)",
                                         "ESP32-D0WDQ6 (revision v0.0)", "ESP32-D0WD (revision v2.0)"])
def test_a_chip_older_than_revision_3_is_refused_for_the_spiram_image(tmp_path, monkeypatch, description):
    """The firmware's viper loops store into arrays on the GC heap, in PSRAM on the SPIRAM image, and
    the xtensawin emitter adds none of the PSRAM cache workaround chips before revision 3 need."""
    monkeypatch.setattr(flash, "probe", lambda port: probed("esp32", 8 * MIB, description))
    monkeypatch.setattr(flash, "run", lambda command, timeout=None: pytest.fail("ran %s" % command))
    with pytest.raises(FirmwareError, match=r"the board's %s is older than revision 3" % re.escape(description)):
        flash.install("/dev/ttyUSB0", write(tmp_path, esp_images.firmware()), out=open("/dev/null", "w"))


def test_a_revision_3_chip_is_taken(tmp_path, monkeypatch):
    monkeypatch.setattr(flash, "probe", lambda port: probed("esp32", 8 * MIB, "ESP32-D0WD-V3 (revision v3.0)"))
    work = tmp_path / "work"
    work.mkdir()
    assert flash.plan("p", write(tmp_path, esp_images.firmware()), image.app_files(), work, out=open("/dev/null", "w"))


def test_psram_in_the_chips_package_is_said_so(tmp_path, monkeypatch):
    monkeypatch.setattr(flash, "probe", lambda port: probed(
        "esp32", 8 * MIB, "ESP32-PICO-V3-02 (revision v3.0)", ["Wi-Fi", "BT", "Dual Core + LP Core", "240MHz",
                                                               "Embedded Flash", "Embedded PSRAM"]))
    work = tmp_path / "work"
    work.mkdir()
    out = open(tmp_path / "out.txt", "w+")
    flash.plan("p", write(tmp_path, esp_images.firmware()), image.app_files(), work, out=out)
    out.seek(0)
    assert "Embedded PSRAM; PSRAM in the chip's package" in out.read()


def test_a_board_of_another_chip_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(flash, "probe", lambda port: probed("esp32s3", 8 * MIB))
    monkeypatch.setattr(flash, "run", lambda command, timeout=None: pytest.fail("ran %s" % command))
    firmware = write(tmp_path, esp_images.firmware("esp32"))
    with pytest.raises(FirmwareError, match="the board is an ESP32-S3, .* get ESP32_GENERIC_S3-20260406-v1.28.0.bin"):
        flash.install("/dev/ttyUSB0", firmware, out=open("/dev/null", "w"))


def run_cli(*args):
    return completed([sys.executable, "-m", "doce_host.cli", "flash", "--port", "/dev/x", *map(str, args)], timeout=120)


def test_no_firmware_file_is_a_clear_error(tmp_path):
    run = run_cli("--firmware", tmp_path / "missing.bin")
    assert run.returncode == 2 and "no such file" in run.stderr and "Traceback" not in run.stderr
    assert micropython.firmware_file("esp32") in run.stderr
    run = run_cli("--firmware", tmp_path)  # said "no such file" before
    assert run.returncode == 2 and "not a regular file (a directory), so not a MicroPython image" in run.stderr


@pytest.mark.parametrize("image_file, error", [
    (None, "no such file"),
    (lambda: b"<html>404 Not Found</html>\n" * 100, "is not an ESP32 firmware image"),
    (lambda: esp_images.firmware("esp32s3"), "is MicroPython for the ESP32-S3, not the ESP32"),
    (lambda: esp_images.firmware(machine=esp_images.PLAIN_ESP32), "not for a 'Generic ESP32 module with SPIRAM'"),
])
def test_the_firmware_file_is_checked_before_the_app_is_compiled(tmp_path, monkeypatch, image_file, error):
    """Issue 41, 8: `doce flash --firmware nonexist.bin --dry-run` compiled the whole app (10-15 s)
    before its one-line error."""
    monkeypatch.setattr(image, "app_files", lambda *a, **k: pytest.fail("the app was compiled first"))
    path = tmp_path / "nonexist.bin" if image_file is None else write(tmp_path, image_file(), "mp.bin")
    with pytest.raises((flash.LinkError, FirmwareError), match=error):
        flash.install("/dev/x", path, chip="esp32", dry_run=True)


def cut(data, at):
    return data[:at]


BAD_IMAGES = {
    "not an image": (lambda: b"<html>404 Not Found</html>\n" * 100, "is not an ESP32 firmware image"),
    "cut before its table": (lambda: esp_images.firmware()[:0x5000], "cut short"),
    "cut in its app": (lambda: esp_images.firmware()[:0x10000 - 0x1000 + 300], "cut short or damaged: its app"),
    "damaged table": (lambda: esp_images.firmware().replace(b"phy_init", b"phy_xnit"), "MD5 does not match"),
    "the app alone": (lambda: esp_images.app("esp32"), "app alone; doce flash needs the whole image"),
    "not MicroPython": (lambda: esp_images.firmware(version=None), "is not MicroPython"),
    "an older release": (lambda: esp_images.firmware(version="v1.24.1", date="2024-11-29"),
                         "is MicroPython v1.24.1, but the app is built and tested for v1.28"),
    "a newer release": (lambda: esp_images.firmware(version="v1.29.0"), "v1.29.0, but the app"),
    "another .mpy": (lambda: esp_images.firmware(version="v1.18", date="2022-01-17"),
                     "cannot load the app's .mpy files (version 6.0/6.3; it loads 5.0)"),  # native code: minor too
    # ESP32_GENERIC's plain image: internal RAM alone holds the Python heap, Wi-Fi and TLS (docs/building.md)
    "the plain image": (lambda: esp_images.firmware(machine=esp_images.PLAIN_ESP32),
                        "is MicroPython v1.28.0 built for a 'Generic ESP32 module', not for a 'Generic ESP32 "
                        "module with SPIRAM' as a DOCE board runs it (the Python heap in the WROVER's PSRAM, internal "
                        "RAM left to Wi-Fi and TLS): get ESP32_GENERIC-SPIRAM-20260406-v1.28.0.bin from "
                        "https://micropython.org/download/ESP32_GENERIC/"),
    "no board named": (lambda: esp_images.firmware(machine=""), "not saying which board it is built for"),
}


@pytest.mark.parametrize("case", sorted(BAD_IMAGES))
def test_a_bad_image_is_one_clear_line(tmp_path, case):
    make, message = BAD_IMAGES[case]
    run = run_cli("--firmware", write(tmp_path, make(), "mp.bin"), "--dry-run")
    assert run.returncode == 2, run.stdout + run.stderr
    assert message in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert "$ " not in run.stdout  # nothing would have been written


def test_a_wrong_version_says_which_file_to_get(tmp_path):
    run = run_cli("--firmware", write(tmp_path, esp_images.firmware("esp32s3", version="v1.24.1")), "--dry-run")
    assert "get %s from %s" % (micropython.firmware_file("esp32s3"), micropython.download_page("esp32s3")) \
        in run.stderr


def test_an_image_for_another_chip_than_asked_is_refused(tmp_path):
    run = run_cli("--firmware", write(tmp_path, esp_images.firmware("esp32s3")), "--chip", "esp32", "--dry-run")
    assert run.returncode == 2
    assert "is MicroPython for the ESP32-S3, not the ESP32: get %s" % micropython.firmware_file("esp32") in run.stderr


def test_a_patch_release_of_the_pinned_version_is_taken(tmp_path):
    run = run_cli("--firmware", write(tmp_path, esp_images.firmware(version="v1.28.1")), "--dry-run",
                  "--flash-size", "8MB")
    assert run.returncode == 0, run.stderr
    assert "vfs partition at 0x200000, 6 MiB" in run.stdout


@pytest.mark.parametrize("size", ["lots", "\uff10\uff18", "", "3MB"])  # full-width 08 and "" passed before
def test_a_bad_flash_size_is_a_clear_error(tmp_path, size):
    run = run_cli("--firmware", write(tmp_path, esp_images.firmware()), "--dry-run", "--flash-size", size)
    assert run.returncode == 2 and "flash size %r" % size in run.stderr


def test_app_only_updates_a_running_board_and_keeps_its_game(tmp_path):
    from doce_host.link import BoardLink
    with SerialSim(tmp_path) as sim:
        booted(sim)  # and the board is clear
        with BoardLink(sim.path) as link:
            sim.place("c3", "white 4")
            link.wait_for("placed", timeout=stretched(10))
        hello = flash.install(sim.path, app_only=True, out=open("/dev/null", "w"))
        assert hello["rules"] == "standard"
        with BoardLink(sim.path) as link:
            assert link.state()["board"] == {"c3": "white 4"}  # the journal was kept
    assert Path(tmp_path / "flash.img").exists()


def test_app_only_after_updates_over_the_air_leaves_nothing_that_points_the_board_elsewhere(tmp_path):
    """A board that took updates over the air (doce/update.py): slot a once held version 2, slot b holds version 3
    stored and waiting for a match's end, and slot.json.bak names b. --app-only writes slot a and slot.json
    afresh; what the updates left must not outlive it: the waiting update would be switched to at the first scan
    free of a match, and the backup booted if slot.json is lost, both slot b's old version instead of the app
    just installed; a's version file would have it report version 2."""
    import json

    from test_slots import in_slot_b
    files = image.app_files(chip="host")
    slot = image.slot_files(files)
    files.update(in_slot_b(dict(slot, version=b"3")))
    files.update({"a/version": b"2", "a/header": bytes(68), "a/manifest": b"{}",
                  "update.json": json.dumps({"ready": True, "size": 1, "sha256": "0" * 64, "slot": "b",
                                             "version": 3}).encode(),
                  image.POINTER + ".bak": json.dumps({"slot": "b", "good": "b", "previous": "a"}).encode()})
    (tmp_path / "flash.img").write_bytes(image.build(files))
    with SerialSim(tmp_path) as sim:
        booted(sim)
        assert flash.install(sim.path, app_only=True, out=open("/dev/null", "w"))["version"] == 0
    on_flash = image.read((tmp_path / "flash.img").read_bytes())
    assert not set(flash.STALE) & set(on_flash)
    assert json.loads(on_flash[image.POINTER]) == image.FIRST_POINTER
    assert on_flash["b/doce/app.mpy"] == slot["doce/app.mpy"]  # (slot b's files: named by nothing, emptied by
    #                                                              the next update)


def test_no_board_on_the_port_is_one_clear_line(tmp_path):
    """A full install asks the board first (esptool as a library); a missing port is one line."""
    run = run_cli("--firmware", write(tmp_path, esp_images.firmware()))
    assert run.returncode == 2, run.stdout + run.stderr
    assert "/dev/x: esptool could not talk to the board's bootloader" in run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert "$ " not in run.stdout


@pytest.mark.parametrize("given, detected, used", [(None, 8, 8), (4, 16, 16), (8, None, 8)])
def test_the_flash_chips_own_size_wins(tmp_path, monkeypatch, given, detected, used):
    """MicroPython sizes vfs from the flash chip's ID, so that is what the image is built for;
    --flash-size only stands in where the chip does not say."""
    monkeypatch.setattr(flash, "probe", lambda port: probed("esp32", detected and detected * MIB))
    firmware = write(tmp_path, esp_images.firmware())
    work = tmp_path / "work"
    work.mkdir()
    out = open(tmp_path / "out.txt", "w+")
    [command] = flash.plan("p", firmware, image.app_files(), work, size=given and given * MIB, out=out)
    out.seek(0)
    assert "for the vfs partition at 0x200000, %d MiB" % (used - 2) in out.read()
