"""Figures for the board's opponent (issues 12 and 27): printed, never asserted.

    python bench/opponent.py [--matches N]

- the strength ladder (bench/ladder.py): each level against the one below and against the
  baselines (bench/baselines.py), N matches a pairing (default 200), with 95% intervals;
- the strongest level's thinking time on an ESP32 at 240 MHz, worst case searched for from
  every position it moved from in those matches (bench/worst_move.py: ranked by work and by an
  instruction estimate, then a hill-climb over positions a match can reach, callgrind counting
  the unix port's instructions), and bench/chip.py turns instructions into ESP32 time, at the
  clock the firmware sets;
- the heap it needs while it thinks, on MicroPython.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))
sys.path.insert(0, str(ROOT / "tests"))

import chip  # noqa: E402
from compiled import precompile  # noqa: E402
from conftest import micropython_path  # noqa: E402
from doce.opponent import BUDGET, SLICE, STRONGEST  # noqa: E402
from ladder import MATCHES, ladder, tables_named  # noqa: E402
from worst_move import BATCH, instructions, search  # noqa: E402

GOAL_MS = 1000  # a move, worst case
MEDIAN_SAMPLE = 32  # positions of real matches, drawn at random, for the median move


def thinking(mpy, positions, name="standard"):
    """`positions`: (text, work) for each move of the strongest level, from ladder(). The worst
    move is searched for (bench/worst_move.py), from every one of them."""
    tables = tables_named(name)
    works = [w for _, w in positions]
    print("Opponent thinking, level %d, %d moves from the ladder's matches (%s rules)"
          % (STRONGEST, len(positions), name))
    print("  work a move (lines read or updated, faces weighed): median %d, most %d; its budget %d"
          " (a hard limit: it stops weighing answers before its work could pass it)"
          % (statistics.median(works), max(works), BUDGET))
    if not positions:
        return
    print("  the slowest move, searched for (bench/worst_move.py; callgrind, unix port, .mpy, %d positions a run):"
          % BATCH)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tfile = Path(tmp) / "rules.doct"
        tfile.write_bytes(tables.blob)
        real = list(dict.fromkeys(text for text, _ in positions))
        measured, covered = search(mpy, tables, tfile, real)
    rows = list(measured.values())
    print("    %d positions thought on CPython (%d of real matches, %d mutants), %d measured by callgrind"
          " (the same work on MicroPython as on CPython, each), %.0f min"
          % (covered, len(set(text for text, _ in positions)), covered - len(set(text for text, _ in positions)),
             len(rows), (time.perf_counter() - start) / 60))
    xs = [r[0] for r in rows]
    counts = [r[2] for r in rows]
    slope, intercept = _line(xs, counts)
    over = max(c - (intercept + slope * x) for x, c in zip(xs, counts))
    print("    instructions = %.0f + %.0f a unit of work (least squares over those measured; correlation %.3f);"
          " the most any move took over that line: %.1f M" % (intercept, slope, _correlation(xs, counts), over / 1e6))
    to_ms = chip.esp32_ms(1)
    worst_ms = chip.esp32_ms(1, cycles=chip.PESSIMISTIC_CYCLES)
    print("  ESP32 at %.0f MHz (the clock the firmware sets), SPIRAM image: %.2f cycles a unix-port instruction"
          % (chip.board_hz() / 1e6, chip.cycles_per_unix_instruction()))
    print("    (bench/chip.py: %d pystones/s at %.0f MHz, micropython issues 5673/6565; %d unix-port instructions"
          " a pystone, callgrind; x%.2f for the SPIRAM image, issue 8029); and at the pessimistic %.1f cycles"
          % (chip.PYSTONES, chip.PYSTONES_HZ / 1e6, chip.UNIX_INSTRUCTIONS_PER_PYSTONE, chip.SPIRAM_SLOWDOWN,
             chip.PESSIMISTIC_CYCLES))
    print("    (its weighing loops are viper native code, x86-64 here: charged at the same rate, an upper bound)")
    worst = max(measured, key=lambda x: measured[x][2])
    work, _, count, how = measured[worst]
    print("    WORST MOVE (searched, not sampled): %.1f M instructions = %.0f ms, %.0f ms at %.1f cycles (work %d;"
          " found by %s); goal <= %d ms at %.1f cycles"
          % (count / 1e6, count * to_ms, count * worst_ms, chip.PESSIMISTIC_CYCLES, work, how, GOAL_MS,
             chip.PESSIMISTIC_CYCLES))
    bound = intercept + slope * BUDGET + over
    print("    a move at its whole budget, by the line and its worst excess: %.1f M instructions = %.0f ms,"
          " %.0f ms at %.1f cycles" % (bound / 1e6, bound * to_ms, bound * worst_ms, chip.PESSIMISTIC_CYCLES))
    print("    the slowest position: %s" % worst)
    sample = random.Random(44).sample(real, min(MEDIAN_SAMPLE, len(real)))
    with tempfile.TemporaryDirectory() as tmp:
        tfile = Path(tmp) / "rules.doct"
        tfile.write_bytes(tables.blob)
        counts, _ = instructions(mpy, tfile, sample)
    middle = statistics.median(counts)
    print("    the median move, %d positions of those matches drawn at random: %.1f M instructions = %.0f ms,"
          " %.0f ms at %.1f cycles" % (len(sample), middle / 1e6, middle * to_ms, middle * worst_ms,
                                       chip.PESSIMISTIC_CYCLES))
    # The scan loop's pace while the board thinks: versus.py steps think() once a scan.
    costliest = sorted(measured, key=lambda x: -measured[x][2])[:BATCH] + sample
    with tempfile.TemporaryDirectory() as tmp:
        tfile = Path(tmp) / "rules.doct"
        tfile.write_bytes(tables.blob)
        steps, step_work = instructions(mpy, tfile, costliest, mode="steps")
    top = max(steps)
    print("    a step of thinking between two scans (SLICE %d work, or one weighing of every die beyond it),"
          " %d steps of the %d costliest moves measured and those %d: median %.0f k instructions = %.1f ms,"
          " %.1f ms at %.1f cycles; the slowest %.2f M = %.0f ms, %.0f ms at %.1f cycles (work %d; a step"
          " may hold a collection)"
          % (SLICE, len(steps), min(BATCH, len(measured)), len(sample), statistics.median(steps) / 1e3,
             statistics.median(steps) * to_ms, statistics.median(steps) * worst_ms, chip.PESSIMISTIC_CYCLES,
             top / 1e6, top * to_ms, top * worst_ms, chip.PESSIMISTIC_CYCLES, step_work[steps.index(top)]))


def _line(xs, ys):
    """Least squares: (slope, intercept)."""
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return slope, my - slope * mx


def _correlation(xs, ys):
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx = sum((x - mx) ** 2 for x in xs) ** 0.5
    sy = sum((y - my) ** 2 for y in ys) ** 0.5
    return sxy / (sx * sy) if sx and sy else 0.0


def heap_figures(mpy, positions, name="standard"):
    """The heap the opponent takes on MicroPython while it thinks, on the slowest moves."""
    tables = tables_named(name)
    slowest = sorted(positions, key=lambda p: -p[1])[:3]
    script = str(ROOT / "bench" / "opponent_think.py")
    env = dict(os.environ, MICROPYPATH=str(mpy))
    with tempfile.TemporaryDirectory() as work:
        tfile = os.path.join(work, "rules.doct")
        Path(tfile).write_bytes(tables.blob)
        pfile = os.path.join(work, "positions")
        Path(pfile).write_text("\n".join(text for text, _ in slowest) + "\n")

        def run(*args, heap="256K"):
            return subprocess.run([micropython_path(), "-X", "heapsize=" + heap, script, tfile, pfile, *args],
                                  capture_output=True, text=True, env=env, timeout=900)
        out = run("heap")
        if out.returncode:
            raise SystemExit(out.stdout + out.stderr)
        heap = json.loads(out.stdout)

        def smallest(i, *stop):
            low, high = 1024, 256 * 1024
            while high - low > 64:
                mid = (low + high) // 2
                low, high = (low, mid) if run("one", str(i), *stop, heap=str(mid)).returncode == 0 else (mid, high)
            return high
        heap["live"] = max(smallest(i) - smallest(i, "stop") for i in range(len(slowest)))
    print("  heap on MicroPython (unix port, 64-bit: the ESP32's 32-bit objects are smaller):")
    print("    opponent bytecode (opponent.mpy, versus.mpy): %d bytes; its data: %d bytes"
          % (heap["code"], heap["data"]))
    print("    thinking, the three slowest moves: %d bytes more heap needed (smallest -X heapsize that"
          " completes, less the same without thinking)" % heap["live"])
    print("    allocated while thinking, collected as it goes (gc off, worst of them): %d bytes" % heap["thinking"])
    return heap


def opponent_figures(mpy=None, matches=MATCHES, board=None):
    """`board`: run.py's heap figures for the firmware over a match, to add the opponent to."""
    start = time.perf_counter()
    positions = ladder(matches, record=STRONGEST)
    print("  (the ladder took %.0f min)" % ((time.perf_counter() - start) / 60))
    if mpy is None:
        with tempfile.TemporaryDirectory() as tmp:
            return _figures(precompile(Path(tmp) / "mpy"), positions, board)
    return _figures(mpy, positions, board)


def _figures(mpy, positions, board):
    import shutil
    if shutil.which("valgrind"):
        thinking(mpy, positions)
    else:
        print("  ESP32 thinking time: valgrind not installed (apt-get install valgrind); skipped")
    heap = heap_figures(mpy, positions)
    if board:
        code = board["code"] + heap["code"]
        data = board["app"] + board["match_peak"] + heap["data"] + heap["live"]
        print("  the whole firmware with the opponent thinking (the board's high-water over a match, plus the")
        print("  opponent's bytecode, data and thinking): %d bytes here; 32-bit as on the ESP32 (bench/chip.py"
              " ratios) %.1f KB, %.1f KB without bytecode (frozen with manifest.py)"
              % (code + data, (code * chip.CODE_32_PER_64 + data * chip.DATA_32_PER_64) / 1024,
                 data * chip.DATA_32_PER_64 / 1024))
        print("    (the opponent is imported only when chosen)")
    return heap


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=MATCHES, help="matches a pairing (default %(default)s)")
    args = ap.parse_args()
    opponent_figures(matches=args.matches)


if __name__ == "__main__":
    main()
