"""`make bench`: what an app update's transfer (issue 43) costs the scan loop: the flash time the scans
wait for while the package arrives, and what it adds to a die's light. Nothing here asserts on time.

Measured on the stepped simulator (doce_host.sim SimBoard: the firmware on MicroPython v1.28.0's unix port,
its LittleFS the ESP32's, on a simulated flash chip that charges a W25Q64JV's erase and program times,
host/doce_host/sim/device/flash.py), with the package `doce fleet update` sends an ESP32 (image.app_files,
chip esp32), sent one update_chunk a request as the host does: once between matches (the transfer itself), and
once more in a match in play, where the board answers every update command busy (doce/link.py) and the
flash must not move.
"""

import importlib.util
import json
import tempfile

from doce_host import image, update
from doce_host.paths import SIM_DEVICE
from doce_host.sim import SimBoard

KEY = "11" * 32
BOARD = "bench"


def flash_times():
    """The simulated chip's (ERASE_US, PROGRAM_US): (typical, most) each, with their source there."""
    spec = importlib.util.spec_from_file_location("sim_flash", SIM_DEVICE / "flash.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ERASE_US, module.PROGRAM_US


LATER_SCANS = 10000  # scans a reply may take: an update_begin empties the slot first, a file a scan (doce/update.py)


def ask(sim, request, own=None):
    """The board's one reply to `request`, and the scans it took (from the one it was sent in). `own`, a list: the
    flash figures of the scan it arrives in (what it does before its reply or the emptying's file a scan) put in it."""
    if own is not None:
        sim.command(do="flash")  # (the longest scan counted from here)
    out = sim.command(do="send", line=json.dumps(request) + "\n")
    if own is not None:
        own.append(sim.command(do="flash"))
    scans = 1
    while not out.get("link"):
        if scans >= LATER_SCANS:
            raise SystemExit("no reply to %s in %d scans" % (request["cmd"], scans))
        out = sim.run(1)
        scans += 1
    [reply] = out["link"]
    if not reply["ok"]:
        raise SystemExit("the board refused the bench's update: %s" % reply)
    return reply, scans


def transfer():
    """(package bytes, files, chunks, flash figures of update_begin, of the chunks, and of a second update's
    update_begin, which empties a slot holding the app's files, a file a scan: its scans in its figures)."""
    slot = image.slot_files(image.app_files(chip="esp32"))
    data = update.package(slot, 1, BOARD, KEY)
    with tempfile.TemporaryDirectory() as work, SimBoard(work) as sim:
        ask(sim, {"cmd": "update_key", "board": BOARD, "key": KEY})
        start = sim.command(do="flash")
        ask(sim, update.begin(data))
        begun = sim.command(do="flash")
        chunks = 0
        for request in update.requests(data):
            ask(sim, request)
            chunks += 1
        sent = sim.command(do="flash")
        sim.command(do="send", line=json.dumps({"cmd": "update_commit"}) + "\n")  # it reboots into the slot
        sim.power_on()
        sim.wait(1)
        # The next update empties the slot not running: version 1's files, or the first ones' if it went back
        start2 = sim.command(do="flash")
        again_scans = ask(sim, update.begin(update.package(slot, 2, BOARD, KEY)))[1]
        again = sim.command(do="flash")
        again["scans"] = again_scans
    for a, b in ((begun, start), (sent, begun), (again, start2)):
        a["erases"] -= b["erases"]
        a["programs"] -= b["programs"]
        a["busy_us"] -= b["busy_us"]
    return len(data), len(slot), chunks, begun, sent, again


def stored_in_b(slot, version):
    """A board's flash (the host build's app in slot a, running and good) with `slot` stored in slot b as an update
    leaves it, the version it replaced (`previous`): its files, manifest, header, version, and the board's key."""
    import hashlib
    data = update.package(slot, version, BOARD, KEY)
    n = int.from_bytes(data[:4], "little")
    files = dict(image.app_files(chip="host"))
    files.update({"b/" + p: d for p, d in slot.items()})
    files.update({"b/manifest": data[4:4 + n], "b/version": str(version).encode(),
                  "b/header": data[:4] + data[4 + n:4 + n + 32] + hashlib.sha256(data).digest(),
                  image.POINTER: json.dumps({"slot": "a", "good": "a", "previous": "b"}).encode(),
                  "update.key": json.dumps({"board": BOARD, "key": KEY, "floor": version}).encode()})
    return image.build(files)


def own_scan(sim, request):
    """The flash figures of the scan `request` arrives in, typical and at most (ask), its reply waited for."""
    own = []
    ask(sim, request, own)
    return own[0]["longest_scan"], own[0]["longest_scan_at_most"]


def manifest_in(sim, data):
    """Chunks of `data` (begun) until its manifest is checked: the slot holds its version file and header."""
    n = int.from_bytes(data[:4], "little")
    for request in update.requests(data):
        ask(sim, request)
        if request["offset"] >= 4 + n + 32:
            return


def command_scans():
    """The scan an update_begin or update_abort that empties the slot arrives in (doce/update.py _clear): the slot
    named no more as the one to go back to (firmware/slots.py emptying: the pointer written twice where it was), its
    version file removed, then update.json (r43h F1, F3); the slot's other files follow a scan each. [(what, the
    scan at typical times, at the datasheet's maximum)]."""
    slot = image.slot_files(image.app_files(chip="esp32"))
    two, three = update.package(slot, 2, BOARD, KEY), update.package(slot, 3, BOARD, KEY)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        import pathlib
        pathlib.Path(work, "flash.img").write_bytes(stored_in_b(slot, 1))
        with SimBoard(work) as sim:
            rows.append(("update_begin emptying the slot to go back to (version 1 there: the pointer twice, its "
                         "version)",) + own_scan(sim, update.begin(two)))
            manifest_in(sim, two)
            rows.append(("update_begin of another package over a transfer whose manifest was checked (its version, "
                         "update.json)",) + own_scan(sim, update.begin(three)))
            manifest_in(sim, three)
            rows.append(("update_abort of a transfer whose manifest was checked (its version, update.json)",)
                        + own_scan(sim, update.abort()))
    return rows


def in_a_match(piece="white 4"):
    """(requests, their replies' errors, flash figures) of a transfer's commands sent in a match in play: begin,
    the chunks of the whole package, commit and abort, each answered busy. `piece` "black 4": a piece the game
    does not take (white opens), no match in play, a player at the board: busy the same (doce/app.py App.clear)."""
    slot = image.slot_files(image.app_files(chip="esp32"))
    data = update.package(slot, 1, BOARD, KEY)
    requests = [update.begin(data)] + list(update.requests(data)) + [{"cmd": "update_commit"}, update.abort()]
    errors = set()
    with tempfile.TemporaryDirectory() as work, SimBoard(work) as sim:
        ask(sim, {"cmd": "update_key", "board": BOARD, "key": KEY})
        sim.place("c3", piece)  # the match's first piece (white's)
        sim.run(100)  # its journal written
        start = sim.command(do="flash")
        for request in requests:
            [reply] = sim.command(do="send", line=json.dumps(request) + "\n")["link"]
            errors.add(reply.get("error"))
            sim.run(1)
        end = sim.command(do="flash")
    for key in ("erases", "programs", "busy_us"):
        end[key] -= start[key]
    return len(requests), errors, end


def update_figures(die_to_light_ms=None, goal_ms=40.0, traffic_ms=None):
    """die_to_light_ms: the worst die-to-light computed above (bench/run.py latency), if it was; traffic_ms: the
    same with traffic (a host's commands: update commands answered busy are some)."""
    (erase_typ, erase_most), (program_typ, program_most) = flash_times()

    def most_ms(f):
        return (f["erases"] * erase_most + f["programs"] * program_most) / 1000

    size, files, chunks, begun, sent, again = transfer()
    longest, worst = sent["longest_scan"], sent["longest_scan_at_most"]
    print("App update transfer (issue 43; stepped simulator, the ESP32's package, LittleFS of MicroPython v1.28.0)")
    print("  flash charged as a W25Q64JV's (the 8 MB flash class of the ESP32-WROVER-E; sim/device/flash.py): sector")
    print("    erase %.0f ms typical, %.0f ms at most; a page program command (<= 64 bytes) %.1f ms, %.0f ms at most"
          % (erase_typ / 1000, erase_most / 1000, program_typ / 1000, program_most / 1000))
    print("  the package: %d bytes, %d files, %d update_chunk requests of %d bytes"
          % (size, files, chunks, update.CHUNK))
    print("  update_begin (a new transfer: the slot emptied, update.json written): %d erases, %d programs,"
          % (begun["erases"], begun["programs"]))
    print("    its scan held %.0f ms typical, %.0f ms at most" % (begun["busy_us"] / 1000, most_ms(begun)))
    print("  a second update's update_begin (the slot it empties holds the app's %d files, removed a file a scan):"
          % files)
    print("    %d erases, %d programs in its %d scans, %.0f ms typical in all; the scan it held longest (searched: each"
          % (again["erases"], again["programs"], again["scans"], again["busy_us"] / 1000))
    print("    of them) %.1f ms typical (%d erase, %d programs), %.0f ms at most (%d erase, %d programs)"
          % (again["longest_scan"]["us"] / 1000, again["longest_scan"]["erases"], again["longest_scan"]["programs"],
             again["longest_scan_at_most"]["us"] / 1000, again["longest_scan_at_most"]["erases"],
             again["longest_scan_at_most"]["programs"]))
    commands = command_scans()
    print("  the scan an update_begin or update_abort that empties the slot arrives in (the slot named no more, its")
    print("    version file and update.json removed; its other files a scan each after):")
    for what, typical, most in commands:
        print("    %s:" % what)
        print("      %.1f ms typical (%d erase, %d programs), %.0f ms at most"
              % (typical["us"] / 1000, typical["erases"], typical["programs"], most["us"] / 1000))
    print("  the chunks: %d erases, %d programs, %.1f s of flash typical (%.1f ms a chunk on average)"
          % (sent["erases"], sent["programs"], sent["busy_us"] / 1e6, sent["busy_us"] / 1000 / chunks))
    print("    the scan the flash held longest (searched: every scan of the transfer): %.1f ms typical (%d erase,"
          % (longest["us"] / 1000, longest["erases"]))
    print("      %d programs); at the datasheet's maximum times, %.0f ms (%d erase, %d programs)"
          % (longest["programs"], worst["us"] / 1000, worst["erases"], worst["programs"]))
    print("    the scan period while a package arrives is at worst the scan's own period and work + that")
    n, errors, match = in_a_match()
    print("  in a match in play: %d update commands (begin, every chunk, commit, abort) answered %s; the flash"
          % (n, ", ".join(sorted(str(e) for e in errors))))
    print("    meanwhile: %d erases, %d programs, %.1f ms; the scan it held longest %.1f ms typical, %.1f ms at most"
          % (match["erases"], match["programs"], match["busy_us"] / 1000, match["longest_scan"]["us"] / 1000,
             match["longest_scan_at_most"]["us"] / 1000))
    n, errors, board = in_a_match("black 4")
    print("  a piece on the board, no match in play (a player setting up: black's, white to open): %d update"
          % n)
    print("    commands answered %s; the flash meanwhile: %d erases, %d programs"
          % (", ".join(sorted(str(e) for e in errors)), board["erases"], board["programs"]))
    if die_to_light_ms is None:
        print("  die-to-light during a transfer: the worst die-to-light above was not computed (no valgrind)")
        return
    held = match["longest_scan_at_most"]["us"] / 1000
    base = die_to_light_ms if traffic_ms is None else traffic_ms
    print("  WORST DIE-TO-LIGHT IN A MATCH WHILE AN UPDATE IS SENT: %.1f ms: %s the %.0f ms goal"
          % (base + held, "meets" if base + held <= goal_ms else "DOES NOT MEET", goal_ms))
    print("    (the worst above%s, %.1f ms, + the scan the flash held longest in the match at its maximum times, %.1f"
          % (" with traffic" if traffic_ms is not None else "", base, held))
    print("     ms: the update adds nothing; without traffic %.1f ms)" % (die_to_light_ms + held))
    # The scans an update holds on a clear board: each update_begin's and the chunks' longest, searched
    held = [(begun["busy_us"] / 1000, most_ms(begun), "a new transfer's update_begin"),
            (again["longest_scan"]["us"] / 1000, again["longest_scan_at_most"]["us"] / 1000,
             "a second update's update_begin, its longest scan"),
            (longest["us"] / 1000, worst["us"] / 1000, "the chunks' longest scan")]
    held += [(typical["us"] / 1000, most["us"] / 1000, what.split(" (")[0] + ", its own scan")
             for what, typical, most in commands]
    for what, at in (("typical flash", 0), ("flash at its datasheet maximum", 1)):
        extra = max(held, key=lambda h: h[at])
        total = die_to_light_ms + extra[at]
        print("  a match's FIRST piece, put on a clear board in the longest scan an update holds (%s), %s: %.1f ms: %s"
              % (extra[2], what, total, "meets the goal" if total <= goal_ms else "DOES NOT MEET the goal"))
    print("    (the update goes on only while the board is clear: once a piece is down, every update command is busy;")
    print("     a scan that erases cannot be cut shorter: the ESP32 cannot suspend a sector erase to run a scan,")
    print("     ESP-IDF soc/esp32 soc_caps.h has no SOC_SPI_MEM_SUPPORT_AUTO_SUSPEND: one erase a scan is the floor)")


# -- the board's checks: the signature and the SHA-256s (issue 43, item 2) ------------------------------------

SIGN_RUNS = {"begin": 20, "manifest": 5, "file": 5}  # each less its run with 0: the set-up's cost


def check_instructions(work, *args, runs):
    """(unix-port instructions of one run of bench/update_sign.py ARGS, bytes it allocated): callgrind's count
    with `runs` runs less with none, over runs (bench/run.py's way: only MicroPython's main_ is counted)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "tests"))
    from conftest import micropython_path

    def count(n):
        out = subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=main_",
                              "--callgrind-out-file=/dev/null", micropython_path(), "-X", "heapsize=256K",
                              str(root / "bench" / "update_sign.py"),
                              *args, str(n)], capture_output=True, text=True, cwd=work, timeout=900,
                             env=dict(os.environ, MICROPYPATH=str(root / "firmware")))
        if out.returncode:
            raise SystemExit(out.stdout + out.stderr)
        for line in out.stderr.splitlines():
            if "Collected" in line:
                return int(line.split(":")[-1]), json.loads(out.stdout)["allocated"]
        raise SystemExit("no instruction count from callgrind:\n" + out.stderr)
    (some, allocated), (none, _) = count(runs), count(0)
    return (some - none) / runs, allocated // runs


def board_step():
    """doce/update.py's STEP, read from its source (the firmware is not importable here)."""
    from doce_host.paths import FIRMWARE_DIR
    for line in (FIRMWARE_DIR / "doce" / "update.py").read_text().splitlines():
        if line.startswith("STEP = "):
            return int(line.split("=")[1].split("#")[0])
    raise SystemExit("no STEP in doce/update.py")


def step_instructions(work):
    """update_commit's read-back, a part a scan (Update.step): (unix-port instructions of each step, in order; the
    most heap one step allocated). One run of bench/update_sign.py commit under callgrind, counting only inside
    the max() it calls each step by and writing a profile after each: every step is counted, none sampled."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "tests"))
    from conftest import micropython_path
    with tempfile.TemporaryDirectory() as dumps:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=mp_builtin_min_max",
                              "--dump-after=mp_builtin_min_max", "--callgrind-out-file=" + str(Path(dumps, "cg")),
                              micropython_path(), "-X", "heapsize=256K", str(root / "bench" / "update_sign.py"),
                              "commit", "1"], capture_output=True, text=True, cwd=work, timeout=900,
                             env=dict(os.environ, MICROPYPATH=str(root / "firmware")))
        if out.returncode:
            raise SystemExit(out.stdout + out.stderr)
        said = json.loads(out.stdout)
        counts = {}
        for path in Path(dumps).glob("cg.*"):
            for line in path.read_text().splitlines():
                if line.startswith("totals:"):
                    counts[int(path.suffix[1:])] = int(line.split()[1])
    steps = [counts[k] for k in sorted(counts)]
    if len(steps) != said["steps"]:
        raise SystemExit("callgrind wrote %d profiles for %d steps" % (len(steps), said["steps"]))
    return steps, said["allocated"]


def sign_figures():
    """What the board's signature and SHA-256 checks of an update cost on the ESP32, by bench/chip.py's method."""
    import shutil
    from pathlib import Path

    import chip
    if not shutil.which("valgrind"):
        print("  the board's checks: valgrind not installed (apt-get install valgrind); skipped")
        return
    slot = image.slot_files(image.app_files(chip="esp32"))
    data = update.package(slot, 1, BOARD, KEY)
    n = int.from_bytes(data[:4], "little")
    largest = max(slot, key=lambda p: len(slot[p]))
    with tempfile.TemporaryDirectory() as work:
        Path(work, "manifest").write_bytes(data[4:4 + n])
        for path, content in slot.items():
            Path(work, path).parent.mkdir(parents=True, exist_ok=True)
            Path(work, path).write_bytes(content)
        Path(work, "files").write_text("\n".join(slot) + "\n")
        total = sum(len(c) for c in slot.values()) + n
        rows = [("update_begin's sig (HMAC-SHA256 of its text, in one scan)", ("begin",), SIGN_RUNS["begin"], 0),
                ("the manifest's tag (HMAC-SHA256 of %d bytes + its brackets counted)" % n, ("manifest",),
                 SIGN_RUNS["manifest"], n),
                ("the largest file's SHA-256 at its last chunk (%s, %d bytes)" % (largest, len(slot[largest])),
                 ("file", largest), SIGN_RUNS["file"], len(slot[largest]))]
        measured = [(what, check_instructions(work, *args, runs=runs), hashed) for what, args, runs, hashed in rows]
        steps, step_heap = step_instructions(work)
        c_per_byte = check_instructions(work, "sha", str(65536), runs=5)[0] / 65536
    cycles = chip.PESSIMISTIC_CYCLES
    hz = chip.board_hz()
    print("  the board's checks of an update (doce/update.py; callgrind on the unix port, bench/update_sign.py; ESP32")
    print("    at %d MHz and %.0f cycles a unix-port instruction, the pessimistic end of bench/chip.py's band):"
          % (hz / 1e6, cycles))
    for what, (instructions, allocated), hashed in measured:
        c_part = min(instructions, c_per_byte * hashed)
        print("    %s:" % what)
        print("      %.2f M instructions: %.1f ms at most; %.1f ms of it the Python, the rest hashlib's SHA-256 (C)"
              % (instructions / 1e6, chip.esp32_ms(instructions, cycles=cycles),
                 chip.esp32_ms(instructions - c_part, cycles=cycles)))
        print("      heap: at most %d bytes (all it allocates, the collector off; unix port, 64-bit)" % allocated)
    longest = max(steps)
    print("    update_commit's read-back: %d bytes (the manifest and every file) through 2 SHA-256s, a part a scan"
          % total)
    print("      (doce/update.py STEP, %d bytes, and at most one file ended a scan): %d scans. The longest, %.2f M"
          % (board_step(), len(steps), longest / 1e6))
    print("      instructions: %.1f ms at most (the scan it holds); all of them, %.2f M: %.1f ms (in one scan before)"
          % (chip.esp32_ms(longest, cycles=cycles), sum(steps) / 1e6, chip.esp32_ms(sum(steps), cycles=cycles)))
    print("      heap: at most %d bytes a scan (the collector off; unix port, 64-bit)" % step_heap)
    print("    hashlib's SHA-256 is C (on the chip mbedTLS, which may use the ESP32's SHA accelerator): charged here")
    print("      at the bytecode's %.0f cycles for each of its %.1f unix-port instructions a byte (one call on 64 KB in"
          % (cycles, c_per_byte))
    print("      memory), far above a C loop's cost: the times above are upper bounds, the Python parts the floor.")
    print("    flash reads are not in them (the simulated chip charges erases and programs only)")
