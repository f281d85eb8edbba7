"""Install a board: MicroPython and the app in one esptool call, or just the app.

A full install reads the firmware .bin first (espimage.py): its chip, its MicroPython
version, which must be the release the app is built for (micropython.py), and its
partition table. It asks the board's bootloader for the chip and the flash size, works out
where MicroPython will mount its `vfs` partition on that module, builds a LittleFS image of
the app of exactly that size, and erases the chip and writes the firmware and the image in
one `esptool write-flash`. Where the place of the files cannot be known, it writes the
firmware alone and copies the app with mpremote once MicroPython has booted.
`--app-only` copies the app's files with mpremote, so the board keeps its journal and
calibration.
"""

import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections import namedtuple
from pathlib import Path

from esptool.targets import CHIP_DEFS
from littlefs import LittleFSError

from . import espimage, image, micropython
from .espimage import FirmwareError, UnknownLayout
from .files import FileError, read_limited
from .link import BoardLink, LinkError
from .paths import tool

CHIPS = tuple(micropython.BOARDS)
BAUD = 460800
KEEP = ("journal", "calibration.bin")  # the board's own files, kept by --app-only
MAX_FIRMWARE = 16 << 20  # the largest flash an ESP32 module has: no image is bigger
ASSUMED_FLASH = 4 << 20  # a dry run does not ask the board: the smallest module MicroPython fits
# mpremote has no timeout of its own. The app is about 150 KB: at 115200 baud (11.5 KB/s,
# ports/esp32/uart.h MICROPY_HW_UART_REPL_BAUD) that is under 15 s of bytes; a tool still busy
# after this long is stuck on a board that stopped answering.
TOOL_SECONDS = 300  # esptool: a 4 MiB erase and write at BAUD takes about two minutes
REPL_BYTES_PER_S = 11520  # 115200 baud, 8N1 (ports/esp32/uart.h MICROPY_HW_UART_REPL_BAUD)
# What esptool reads of the board: its chip, its flash chip's size (None if it does not say), and the
# chip's own description and features from its eFuses (esptool targets/esp32.py get_chip_description,
# get_chip_features: "ESP32-D0WD-V3 (revision v3.1)"; "Wi-Fi", "Dual Core + LP Core", "240MHz"...).
Probed = namedtuple("Probed", "chip flash_size description features")


def copy_seconds(files):
    """How long mpremote may take to copy `files`: it writes each chunk over the raw REPL as a
    bytes literal (mpremote transport_serial.py fs_writefile: f.write(repr)), up to 4 characters
    a byte, so four times the bytes' time on the line, plus 30 s to connect, list and reset. A
    port that chatters like a prompt is given up on then, not after TOOL_SECONDS."""
    return 30 + 4 * sum(len(data) for data in files.values()) // REPL_BYTES_PER_S
REPL_SECONDS = 5  # Ctrl-C to the prompt: a running app stops within a scan


def firmware_offset(chip):
    """Where MicroPython's image goes: the bootloader's place (0x1000 on the ESP32 and S2,
    0x0 on the newer chips), as esptool knows it."""
    if chip not in CHIPS:
        raise ValueError("unknown chip %r (known: %s)" % (chip, ", ".join(CHIPS)))
    return CHIP_DEFS[chip].BOOTLOADER_FLASH_OFFSET


def esptool_args(port, firmware, chip="esp32", files=(), baud=BAUD):
    """The esptool call of a full install: erase, write the firmware and the app's file
    system, `files` = [(offset, image file)]."""
    args = ["--chip", chip, "--port", port, "--baud", str(baud), "write-flash", "--erase-all",
            "0x%x" % firmware_offset(chip), str(firmware)]
    for offset, path in files:
        args += ["0x%x" % offset, str(path)]
    return args


# What updates over the air leave that would outlive --app-only's fresh slot.json and point the board at other
# files (firmware/slots.py, doce/update.py): the pointer's backup (read when slot.json is lost: it may boot slot b),
# an update stored and waiting (switched to at the first scan free of a match), and the version files and headers
# that make a slot an update's (slot a is doce flash's app again, version 0; slot b, named by nothing, is no
# newer slot for a rebuilt pointer to boot). update.key stays: its floor keeps replays out (docs/room.md).
STALE = ("slot.json.bak", "update.json", "a/version", "a/header", "a/manifest", "b/version", "b/header")
CLEAR_STALE = ("import os\nfor p in %r:\n    try:\n        os.remove(p)\n    except OSError:\n        pass\n"
               % (STALE,))


def shown(command):
    """A command on one line, as a shell takes it: a script with its lines (CLEAR_STALE) in bash's $'...'."""
    return " ".join("$'%s'" % a.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") if "\n" in a
                    else shlex.quote(a) for a in command)


def mpremote_args(port, files_dir, files):
    """One mpremote call that copies the app's files (and nothing of the board's own), removes what updates
    over the air left that would point the board elsewhere (STALE), then resets the board. Folders go over whole
    with `cp -r`, which makes or reuses them."""
    args = ["connect", port]
    for top in sorted({name.split("/")[0] for name in files}):
        path = Path(files_dir) / top
        if path.is_dir():
            args += ["fs", "cp", "-r", str(path), ":", "+"]
        else:
            args += ["fs", "cp", str(path), ":" + top, "+"]
    return args + ["exec", CLEAR_STALE, "+", "reset"]


def flash_size(text):
    """Bytes from '8MB', '8MiB', '8M' or '8' (MiB, as esptool and module names count)."""
    found = re.fullmatch(r"\s*(\d+)\s*(MB|MiB|M)?\s*", str(text), re.IGNORECASE | re.ASCII)  # not '０８'
    if not found or int(found.group(1)) not in (1, 2, 4, 8, 16, 32, 64, 128):
        raise ValueError("flash size %r: give it in MiB, e.g. 4MB, 8MB or 16MB" % text)
    return int(found.group(1)) << 20


def check_release(firmware, files, name):
    """Refuse firmware other than the pinned release, or that cannot load the app's .mpy."""
    want = micropython.version()
    abis = sorted({micropython.mpy_header(data) for path, data in files.items() if path.endswith(".mpy")})
    loads = all(micropython.mpy_loads(firmware.release, firmware.chip, abi) for abi in abis)
    if loads and firmware.release[:2] == want[:2]:
        return
    has = micropython.mpy_version(firmware.release)
    native = any(abi[2] for abi in abis)  # only native code needs the minor version to match

    def number(major, minor):
        return "%d.%d" % (major, minor) if native else "%d" % major
    why = ("which cannot load the app's .mpy files (version %s; it loads %s)"
           % ("/".join(number(*abi[:2]) for abi in abis), number(*has) if has else "none")
           if not loads else "but the app is built and tested for v%d.%d" % want[:2])
    raise FirmwareError("%s is MicroPython %s, %s: get %s from %s"
                        % (name, firmware.version, why, micropython.firmware_file(firmware.chip),
                           micropython.download_page(firmware.chip)))


def probe(port):
    """Probed: the board on `port` as its ROM bootloader tells esptool (as a library): the chip's
    magic number, its eFuses and the flash chip's JEDEC ID."""
    from esptool.cmds import attach_flash, detect_chip, detect_flash_size, reset_chip, run_stub
    from esptool.util import flash_size_bytes
    try:
        with detect_chip(port) as esp:
            chip = next((key for key in CHIPS if CHIP_DEFS[key].CHIP_NAME == esp.CHIP_NAME), esp.CHIP_NAME)
            description, features = esp.get_chip_description(), esp.get_chip_features()
            esp = run_stub(esp)
            attach_flash(esp)
            size = flash_size_bytes(detect_flash_size(esp))
            reset_chip(esp, "hard-reset")
    except Exception as e:  # esptool's FatalError, a serial error: say it in one line
        raise LinkError("%s: esptool could not talk to the board's bootloader: %s"
                        % (port, (str(e).strip().splitlines() or [type(e).__name__])[0])) from None
    return Probed(chip, size, description, list(features))


def check_image(firmware, name):
    """Refuse an image of another variant than the one a DOCE board runs (micropython.VARIANTS),
    by the board name it is built for."""
    want = micropython.board_name(firmware.chip)
    if want is None or firmware.machine == want:
        return
    has = "built for a '%s'" % firmware.machine if firmware.machine else "not saying which board it is built for"
    raise FirmwareError("%s is MicroPython %s %s, not for a '%s' as a DOCE board runs it (the Python heap in the "
                        "WROVER's PSRAM, internal RAM left to Wi-Fi and TLS): get %s from %s"
                        % (name, firmware.version, has, want, micropython.firmware_file(firmware.chip),
                           micropython.download_page(firmware.chip)))


def chip_revision(description):
    """(major, minor) from esptool's words for the chip, "ESP32-D0WD-V3 (revision v3.1)"
    (targets/esp32.py get_chip_description); None if they do not say."""
    found = re.search(r"\(revision v(\d+)\.(\d+)\)", description)
    return (int(found.group(1)), int(found.group(2))) if found else None


def check_chip(board, firmware=None):
    """Refuse an ESP32 the firmware cannot run as it promises, by what esptool reads of its eFuses."""
    if board.chip != "esp32":
        return
    if any(feature.startswith("Single Core") for feature in board.features):
        raise FirmwareError("the board's %s has one core: %s is built for two (MicroPython's UNICORE variant "
                            "is for these, and doce does not support it)"
                            % (board.description, micropython.firmware_file(board.chip)))
    if "160MHz" in board.features:
        raise FirmwareError("the board's %s is rated for 160 MHz at most (its eFuses, as esptool reads them); "
                            "the DOCE firmware runs it at 240 MHz (doce/esp32.py CPU_HZ) for its die-to-light "
                            "time: use an ESP32-WROVER-E module" % board.description)
    revision = chip_revision(board.description)
    if firmware is not None and "SPIRAM" in (firmware.machine or "") and revision and revision[0] < 3:
        # ESP32 Series SoC Errata (Espressif), "When the CPU accesses external SRAM through cache, under
        # certain conditions read and write errors occur": fixed in chip revision v3.0. ESP-IDF's fix for
        # older chips (CONFIG_SPIRAM_CACHE_WORKAROUND, on in the SPIRAM image's sdkconfig.spiram) is a
        # compiler option that covers C only: MicroPython's xtensawin emitter puts none of it into the
        # firmware's viper loops (doce/scanner.py, doce/sensors.py), whose stores go to arrays on the GC
        # heap, in PSRAM on this image (shared/notes/toolchain.md, checked against v1.28.0).
        raise FirmwareError("the board's %s is older than revision 3: its PSRAM needs a cache workaround that "
                            "the firmware's native (viper) loops do not have, and %s keeps the Python heap "
                            "there. Use an ESP32-WROVER-E module (ESP32-D0WD-V3, revision 3)"
                            % (board.description, micropython.firmware_file(board.chip)))


def psram_said(board):
    """What esptool can say of the board's PSRAM: only PSRAM inside the chip's package is in its eFuses."""
    if "Embedded PSRAM" in board.features:
        return "PSRAM in the chip's package"
    return ("no PSRAM in the chip's package; a WROVER's is a chip of its own beside the ESP32, which esptool "
            "cannot see (the SPIRAM image runs without one too, but the game does not start without it)")


def run(command, timeout=TOOL_SECONDS):
    """Run esptool or mpremote; they show their own progress. A tool that hangs is stopped."""
    try:
        return subprocess.run(command, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise LinkError("%s did not finish within %d s: the board stopped answering; press its reset "
                        "and try again" % (Path(command[0]).name, timeout)) from None


def repl_answers(port, seconds=REPL_SECONDS):
    """Whether MicroPython's REPL answers on `port`: Ctrl-C stops the app and its prompt comes
    back. Asked before mpremote, which would wait forever on a silent or chattering port."""
    import serial

    from .link import describe_open_error
    try:
        with serial.Serial(port, 115200, timeout=0.1, exclusive=True) as line:
            line.write(b"\r\x03\x03\r")
            seen = b""
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                seen = seen[-64:] + line.read(256)
                if b">>> " in seen or b"raw REPL" in seen:
                    return True
    except (serial.SerialException, OSError) as e:
        raise LinkError(describe_open_error(port, e)) from None
    return False


def plan(port, firmware_path, files, tmp, chip=None, size=None, dry_run=False, out=None):
    """The commands of a full install, after checking the firmware against the app and board."""
    out = out or sys.stdout
    name = Path(firmware_path).name
    data = read_limited(firmware_path, MAX_FIRMWARE, "a MicroPython image")
    firmware = espimage.read_firmware(data, name)
    check_for(firmware, chip, name)
    check_release(firmware, files, name)
    check_image(firmware, name)
    print("%s: MicroPython %s (%s) for the %s%s" % (name, firmware.version, firmware.date,
                                                  CHIP_DEFS[firmware.chip].CHIP_NAME,
                                                  ", a '%s'" % firmware.machine if firmware.machine else ""), file=out)
    if dry_run:
        if size is None:
            size = ASSUMED_FLASH
            print("dry run: the board is not asked its flash size; assuming %s (give --flash-size)"
                  % espimage.mib(size), file=out)
    else:
        board = probe(port)
        board_chip, detected = board.chip, board.flash_size
        if board_chip != firmware.chip:
            raise FirmwareError("the board is an %s, %s is for the %s: get %s" % (
                CHIP_DEFS[board_chip].CHIP_NAME if board_chip in CHIPS else board_chip, name,
                CHIP_DEFS[firmware.chip].CHIP_NAME,
                micropython.firmware_file(board_chip) if board_chip in CHIPS else "its MicroPython image"))
        check_chip(board, firmware)
        print("%s: %s: %s; %s" % (port, board.description, ", ".join(board.features), psram_said(board)), file=out)
        # MicroPython sizes vfs by the flash chip's own ID (esp_flash_get_physical_size,
        # ports/esp32/main.c), as esptool reads it: that wins over --flash-size
        if size is not None and detected is not None and size != detected:
            print("warning: --flash-size %s, but the board's flash chip says %s; using %s"
                  % (espimage.mib(size), espimage.mib(detected), espimage.mib(detected)), file=out)
        size = detected if detected is not None else size
        print("%s: %s with %s of flash" % (port, CHIP_DEFS[firmware.chip].CHIP_NAME,
                                           espimage.mib(size) if size else "an unknown size"), file=out)
    try:
        offset, length = espimage.vfs_place(firmware, size)
    except UnknownLayout as e:
        print("%s; writing MicroPython alone, then copying the app with mpremote once it has booted" % e, file=out)
        for path, contents in files.items():
            (Path(tmp) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / path).write_bytes(contents)
        return [[tool("esptool")] + esptool_args(port, firmware_path, firmware.chip),
                [tool("mpremote")] + mpremote_args(port, tmp, files)]
    blocks = length // image.BLOCK_SIZE
    parts = []
    # the chip is erased first, so only the blocks LittleFS used need writing
    try:
        built = image.build(files, block_count=blocks)
    except LittleFSError:  # no space: the app's files do not fit
        raise FirmwareError("the image's 'vfs' partition (%s) is too small for the app's files (%d KiB)"
                            % (espimage.mib(length), sum(map(len, files.values())) // 1024)) from None
    for at, data in image.pieces(built):
        path = Path(tmp) / ("vfs-0x%x.img" % (offset + at))
        path.write_bytes(data)
        parts.append((offset + at, path))
    print("app files: LittleFS for the vfs partition at 0x%x, %s (%d blocks of %d); %d blocks to write"
          % (offset, espimage.mib(length), blocks, image.BLOCK_SIZE,
             sum(p.stat().st_size for _, p in parts) // image.BLOCK_SIZE), file=out)
    return [[tool("esptool")] + esptool_args(port, firmware_path, firmware.chip, files=parts)]


def checked_image(path, chip=None):
    """The chip the firmware file is for (so the app's native code is built for its CPU), once the
    file is read and found to be an image a DOCE board runs, for `chip` if given; or the one-line
    error (LinkError, FirmwareError). Before the app is compiled: that takes 10-15 s. plan() checks
    the rest (its release against the app's .mpy, its layout against the board's flash)."""
    try:  # missing, a FIFO, a device, or bigger than any module's flash: one line
        data = read_limited(path, MAX_FIRMWARE, "a MicroPython image")
    except FileError as e:
        wanted = chip or "esp32"
        raise LinkError("--firmware: %s (get %s from %s)" % (
            e, micropython.firmware_file(wanted), micropython.download_page(wanted))) from None
    name = Path(path).name
    firmware = espimage.read_firmware(data, name)
    check_for(firmware, chip, name)
    check_image(firmware, name)
    return firmware.chip


def check_for(firmware, chip, name):
    if chip and chip != firmware.chip:
        raise FirmwareError("%s is MicroPython for the %s, not the %s: get %s" % (
            name, CHIP_DEFS[firmware.chip].CHIP_NAME, CHIP_DEFS[chip].CHIP_NAME, micropython.firmware_file(chip)))


def board_march(port):
    """mpy-cross's -march for the running board on `port`, from its sys.implementation._mpy; the
    ESP32's if it does not answer (the copy that follows then says what is wrong)."""
    try:
        asked = subprocess.run([tool("mpremote"), "connect", port, "resume", "exec",
                                "import sys; print(getattr(sys.implementation, '_mpy', 0))"],
                               capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return micropython.MARCH["esp32"]
    words = asked.stdout.split()
    found = words[-1] if asked.returncode == 0 and words else ""
    return (found.isdigit() and micropython.march_of_mpy(int(found))) or micropython.MARCH["esp32"]


def install(port, firmware=None, chip=None, app_only=False, rules="standard", dry_run=False, out=None,
            size=None):
    """Install and verify. Returns the board's hello (None for a dry run).

    `size`: the module's flash in bytes, if not to be asked of the board (a dry run)."""
    out = out or sys.stdout
    if chip is not None:
        firmware_offset(chip)  # an unknown chip is a ValueError here, before any work
    if app_only and not dry_run and not repl_answers(port):  # before anything else talks to the port
        raise LinkError("%s: no MicroPython prompt answers there (silent, or something else talking); "
                        "is it the board's port? A board without MicroPython needs a full install "
                        "(doce flash --firmware)" % port)
    if not app_only:  # the image is checked first: compiling the app takes 10-15 s
        chip = checked_image(firmware, chip)
    if app_only and not chip and not dry_run:  # native code for the CPU of the board that is running
        files = image.app_files(rules, march=board_march(port))
    else:
        files = image.app_files(rules, chip=chip or "esp32")
    with tempfile.TemporaryDirectory() as tmp:
        if app_only:
            for name, data in files.items():
                path = Path(tmp) / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            commands = [[tool("mpremote")] + mpremote_args(port, tmp, files)]
        else:
            commands = plan(port, firmware, files, tmp, chip=chip, size=size, dry_run=dry_run, out=out)
        for number, command in enumerate(commands):
            print("$ " + shown(command), file=out, flush=True)
            if dry_run:
                continue
            # after a firmware write, MicroPython makes its file system at first boot
            attempts = 5 if number else 1
            for attempt in range(attempts):
                if attempt:
                    time.sleep(2)
                result = run(command, copy_seconds(files) if Path(command[0]).name == "mpremote" else TOOL_SECONDS)
                if not result.returncode:
                    break
            if result.returncode:
                raise LinkError("%s: %s failed (exit %d); see its message above"
                                % (port, Path(command[0]).name, result.returncode))
    if dry_run:
        return None
    return verify(port, out)


def verify(port, out, seconds=20):
    """Wait for the board to boot and answer hello."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with BoardLink(port, timeout=3) as link:
                hello = link.hello()
            print("%s: %s, firmware %s, rules %s: installed" % (port, hello["board"], hello["firmware"],
                                                               hello["rules"]), file=out)
            return hello
        except LinkError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)
