"""`make bench`: print the benchmark figures. Nothing here asserts on time."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from conftest import micropython_path  # noqa: E402
from doce_host import rules  # noqa: E402
from web import web_figures  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(ROOT / "firmware"))


def run(cmd, mpy_dir=None):
    env = dict(ENV, MICROPYPATH=str(mpy_dir)) if mpy_dir else ENV
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def precompile(out):
    """Bytecode as a board would run it (.mpy), so the heap holds no compiler state."""
    cross = Path(micropython_path()).with_name("mpy-cross")
    (out / "doce").mkdir(parents=True)
    sources = [(p, out / "doce" / (p.stem + ".mpy")) for p in (ROOT / "firmware" / "doce").glob("*.py")]
    sources.append((ROOT / "bench" / "matches.py", out / "matches.mpy"))
    for src, dst in sources:
        subprocess.run([str(cross), "-o", str(dst), str(src)], check=True)
    return out


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
    from doce_host.paths import BOARD_FILE, SIM_DEVICE
    from doce_host.sim import SimBoard
    print("Board firmware (MicroPython unix port, .mpy, standard rules)")
    with SimBoard() as sim:
        sim.place("c3", "white 4")
        idle = sim.command(do="idle_allocation", scans=500)["bytes"]
    print("  allocated per idle scan: %d bytes (over 500 scans; goal 0)" % (idle // 500))
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(BOARD_FILE, os.path.join(work, "board.json"))
        Path(work, "rules.doct").write_bytes(rules.load_tables("standard").blob)
        shutil.copy(SIM_DEVICE / "world.py", mpy / "world.py")
        env = dict(ENV, MICROPYPATH=str(mpy))
        script = str(ROOT / "bench" / "board.py")

        def board_run(*args, heap="256K", prefix=()):
            out = subprocess.run([*prefix, micropython_path(), "-X", "heapsize=" + heap, script, *args],
                                 capture_output=True, text=True, env=env, cwd=work, timeout=900)
            if out.returncode:
                raise SystemExit(out.stdout + out.stderr)
            return out
        heap = json.loads(board_run("heap").stdout)
        total = heap["code"] + heap["app"] + heap["match_peak"]
        print("  heap over a whole match through the sensors, with the journal (goal <= 32 KB):")
        print("    firmware bytecode (.mpy; 0 when frozen with manifest.py): %6d bytes" % heap["code"])
        print("    the app's data after boot:                                %6d bytes" % heap["app"])
        print("    growth during the match, high-water:                      %6d bytes" % heap["match_peak"])
        print("    live high-water: %d bytes = %.1f KB (%.1f KB without bytecode)"
              % (total, total / 1024, (total - heap["code"]) / 1024))
        latency(board_run)


def instructions(board_run, *args):
    out = board_run(*args, prefix=("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"))
    for line in out.stderr.splitlines():
        if "Collected" in line:
            return int(line.split(":")[-1])
    raise SystemExit("no instruction count from callgrind:\n" + out.stderr)


# Assumptions for the ESP32 at 240 MHz, stated so the arithmetic can be checked.
ESP32_HZ = 240e6
CYCLES_PER_UNIX_INSTRUCTION = 3.0  # Xtensa runs ~1 instruction/cycle from cache; the same VM
# compiled for Xtensa takes ~1.5x the x86-64 instructions; x2 for flash-cache misses.
ADC_CONVERSION_US = 35.0  # one read_u16 on ESP32 ADC1, driver included: 30-40 us measured on ESP32s (toolchain note)
LED_US = 30.0  # per WS2812B LED (24 bits at 800 kHz, plus latch), RMT blocking


def latency(board_run):
    import shutil
    if not shutil.which("valgrind"):
        print("  latency: valgrind not installed (apt-get install valgrind); skipped")
        return
    from doce.board import load as load_board
    board = load_board(str(Path(__file__).resolve().parent.parent / "hardware" / "board.json"))
    read_base = instructions(board_run, "reads", "0")
    per_channel = (instructions(board_run, "reads", "400") - read_base) / 400 / board.channels
    base = instructions(board_run, "scans", "0")
    idle = instructions(board_run, "scans", "400")
    play = instructions(board_run, "scans", "400", "play")
    decide = (idle - base) / 400  # the scanner and app per idle scan; sensors are a ready buffer
    placement = play - idle  # everything a landing adds: settling c3, the rules, the lights
    to_us = CYCLES_PER_UNIX_INSTRUCTION / ESP32_HZ * 1e6
    c3 = 2 * board.grid + 2
    groups = {"idle": bin(board.watch_groups).count("1"),
              "settling": bin(board.watch_groups | board.groups_of_square[c3]).count("1")}

    def scan_us(n):
        channels = n * board.channels_per_group
        return (n * board.power_on_us + channels * ADC_CONVERSION_US
                + channels * per_channel * to_us + decide * to_us)
    idle_scan, settling_scan = scan_us(groups["idle"]), scan_us(groups["settling"])
    react = placement * to_us
    leds = board.led_count * LED_US
    worst = idle_scan + board.debounce_scans * settling_scan + react + leds
    print("  die landing to its light, ESP32 at 240 MHz (goal <= 40 ms):")
    print("    callgrind, unix port: %.0f instructions to read one sensor, %.0f to decide an idle scan,"
          % (per_channel, decide))
    print("      %.0f more for a die landing (settling its square, the rules, the lights)" % placement)
    print("    at %.1f ESP32 cycles per instruction: a sensor %.1f us, deciding %.0f us, the landing %.0f us"
          % (CYCLES_PER_UNIX_INSTRUCTION, per_channel * to_us, decide * to_us, react))
    for name, n in groups.items():
        print("    %-8s scan: %d groups x (%d us power-on + 16 x (%.0f us conversion + %.1f us)) + %.0f us = %.2f ms"
              % (name, n, board.power_on_us, ADC_CONVERSION_US, per_channel * to_us, decide * to_us,
                 scan_us(n) / 1000))
    print("    worst case = an idle scan (the die lands just after its centre was read)")
    print("               + %d settling scans (debounce) + the landing's work + %d LEDs x %.0f us"
          % (board.debounce_scans, board.led_count, LED_US))
    print("               = %.2f + %d x %.2f + %.2f + %.2f = %.1f ms"
          % (idle_scan / 1000, board.debounce_scans, settling_scan / 1000, react / 1000, leds / 1000,
             worst / 1000))
    print("    typical (the die lands mid-scan): %.1f ms" % ((worst - idle_scan / 2) / 1000))

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
    with tempfile.TemporaryDirectory() as folder, SerialSim(folder) as sim:
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
            reply = link.push_rules(blob)
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
        board_figures(mpy)
    link_figures()
    web_figures()


if __name__ == "__main__":
    main()
