"""doce flash: tested up to the esptool call (no ESP32 here), and --app-only for real,
with mpremote against the serial simulator."""

import subprocess
import sys
from pathlib import Path

import pytest

from doce_host import flash, image
from doce_host.paths import FIRMWARE
from doce_host.sim.serial_sim import SerialSim


def test_the_full_install_is_one_esptool_call_with_the_right_offsets():
    args = flash.esptool_args("/dev/ttyUSB0", "mp.bin", "vfs.img")
    assert args == ["--chip", "esp32", "--port", "/dev/ttyUSB0", "--baud", "460800", "write-flash",
                    "--erase-all", "0x1000", "mp.bin", "0x200000", "vfs.img"]
    assert flash.esptool_args("p", "mp.bin", "vfs.img", chip="esp32s3")[8:10] == ["0x0", "mp.bin"]
    with pytest.raises(ValueError, match="unknown chip"):
        flash.esptool_args("p", "mp.bin", "vfs.img", chip="esp8266")


def test_esptool_accepts_the_arguments():
    """esptool's own parser reads our call (it stops at opening the missing port)."""
    run = subprocess.run([sys.executable, "-m", "esptool", *flash.esptool_args("/dev/nonexistent", __file__,
                                                                                __file__)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "nonexistent" in (run.stdout + run.stderr)
    assert "unrecognized" not in run.stderr and "invalid choice" not in run.stderr


def test_the_image_holds_the_app_and_fills_the_vfs_partition():
    files = image.app_files("standard")
    built = image.build(files)
    assert len(built) == 0x200000  # exactly the vfs partition
    assert image.read(built) == files
    names = set(files)
    assert {"main.py", "board.json", "rules.doct"} <= names
    sources = {p.stem for p in (FIRMWARE / "doce").glob("*.py")}
    assert {n[5:-4] for n in names if n.startswith("doce/")} == sources  # every module, as .mpy


def test_a_dry_run_prints_the_command(tmp_path, capsys):
    firmware = tmp_path / "mp.bin"
    firmware.write_bytes(b"\xe9" + bytes(100))
    assert flash.install("/dev/ttyUSB0", firmware, dry_run=True) is None
    out = capsys.readouterr().out
    assert "write-flash --erase-all 0x1000 %s 0x200000 " % firmware in out


def test_no_firmware_file_is_a_clear_error(tmp_path):
    run = subprocess.run([sys.executable, "-m", "doce_host.cli", "flash", "--port", "/dev/x",
                          "--firmware", str(tmp_path / "missing.bin")], capture_output=True, text=True)
    assert run.returncode == 2 and "no such file" in run.stderr and "Traceback" not in run.stderr


def test_app_only_updates_a_running_board_and_keeps_its_game(tmp_path):
    from doce_host.link import BoardLink
    with SerialSim(tmp_path) as sim:
        with BoardLink(sim.path) as link:
            link.wait_for("round_start", timeout=10)  # the board is up and clear
            sim.place("c3", "white 4")
            link.wait_for("placed", timeout=10)
        hello = flash.install(sim.path, app_only=True, out=open("/dev/null", "w"))
        assert hello["rules"] == "standard"
        with BoardLink(sim.path) as link:
            assert link.state()["board"] == {"c3": "white 4"}  # the journal was kept
    assert Path(tmp_path / "flash.img").exists()
