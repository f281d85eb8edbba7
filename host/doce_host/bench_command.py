"""`doce bench --port P`: the chip's own figures, measured on the board, beside make bench's estimates.

The board times them itself with ticks_us (firmware/doce/meter.py) while a round is played on it to
its win: die-to-light for a play and for the winning die, the scan period at rest and while a die
lands, its free heap after boot and now (with Wi-Fi and TLS if it is connected), and the longest
collection with the match's live heap. Then, over the REPL on the same image, a CPU workload
(chip_workload.py, ours; and MicroPython's misc_pystone.py with --pystone FILE). The estimates are
make bench's (build/bench/estimates.json, bench/chip.py), each printed beside its measurement with
the ratio; --save FILE keeps the measurement, which make bench then prints as measured.

The person at the board is a `Player`: at a terminal it asks for each die; a test hands in one
that plays on a simulated board.
"""

import json
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from .commandline import UsageError, board_args, link_errors, open_link
from .files import FileError, check_writable, read_text
from .paths import ROOT, tool
from .view import printable

# The round played: white's ninth die, on d1, wins it with a row of four (bench/run.py's WIN).
ROUND = "a1 w2 a5 b1 c1 w4 c5 b1 e3 w1 e5 b1 b1 w3 a3 b1 d1 w3"
ESTIMATES = ROOT / "build" / "bench" / "estimates.json"
WORKLOAD = Path(__file__).resolve().parent / "chip_workload.py"
WORKLOAD_LOOPS = 500  # some 0.2 s on an ESP32 at 240 MHz
PYSTONE_LOOPS = 500
REST_S = 2.0  # the board left alone after the round: its idle pace (doce/esp32.py IDLE_AFTER_MS is 1 s)
MOVE_WAIT_S = 60.0
RESET_WAIT_S = 60.0  # a reset to the app answering: ESP32 ROM + MicroPython boot is 1-2 s, the app's replay more


class Player:
    def put(self, cell, piece):
        """Put `piece` ('white 2') on `cell`."""

    def clear(self, cells):
        """Take the dice off `cells`."""


class TerminalPlayer(Player):
    def __init__(self, out=sys.stdout, ask=input):
        self.out, self.ask = out, ask

    def _wait(self, text):
        print(text, file=self.out, flush=True)
        try:
            self.ask()
        except EOFError:
            raise UsageError("the bench needs you at the board, and Enter after each step") from None

    def put(self, cell, piece):
        print("Put %s on %s." % (piece, cell), file=self.out, flush=True)  # the board sees it: no Enter needed

    def clear(self, cells):
        self._wait("Take the dice off %s, then press Enter." % ", ".join(cells))


def piece_name(short):
    """'w4' -> 'white 4', 'bx' -> 'black blocker'."""
    colour = {"w": "white", "b": "black"}[short[0]]
    return "%s %s" % (colour, "blocker" if short[1] == "x" else short[1])


def play_round(link, player, timeout=MOVE_WAIT_S):
    """The round to its win, a die at a time: each put once the board has reported the last."""
    state = link.state()
    if state.get("remote"):  # its dice would be a friend's board's moves too
        raise UsageError("the board is in a match with a friend's board %s: the bench needs a match for two on "
                         "this board alone (doce remote end ends the pairing)" % printable(state["remote"].get("peer")))
    if state["mode"] != "playing" or state["board"] or state["seen"] or state["scores"] or state["round"] != 1:
        raise UsageError("the bench plays a round of its own on an empty board, from a match's first round: "
                         "finish this match, or start a new one (the board's button after a match)")
    if state.get("versus"):
        raise UsageError("the board plays one side itself: the bench needs a match for two")
    words = ROUND.split()
    if state["to_move"] == "black":  # the same round, the colours swapped
        words = [w if i % 2 == 0 else {"w": "b", "b": "w"}[w[0]] + w[1:] for i, w in enumerate(words)]
    for cell, piece in zip(words[0::2], words[1::2]):
        player.put(cell, piece_name(piece))
        link.wait_for("placed", timeout=timeout, cell=cell)
    link.wait_for("round_end", timeout=timeout)
    player.clear(words[0::2])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = link.state()
        if not state["board"] and not state["seen"]:
            return
        time.sleep(0.2)
    raise UsageError("the board still reads dice after the round: take them all off")


def measure(link, player, rest_s=REST_S):
    """The board's own figures over a round played to its win (the link's bench)."""
    link.ask("bench", step="start")
    try:
        time.sleep(rest_s)  # at rest first: the idle pace
        play_round(link, player)
        time.sleep(rest_s)
        return check_figures(link.ask("bench", step="figures", timeout=30))
    finally:
        link.request("bench", step="end")


def run_on_repl(port, code, timeout=120):
    """Run `code` on the board's MicroPython over its REPL (the app stops: mpremote soft-resets it into
    the raw REPL), then reset the board so the app boots again. The last line printed."""
    try:
        ran = subprocess.run([tool("mpremote"), "connect", port, "exec", code], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        raise UsageError("%s: the REPL did not answer within %d s" % (port, timeout)) from None
    finally:
        with interrupts_held():  # a Ctrl-C now would leave the app stopped: it is taken once it is back
            subprocess.run([tool("mpremote"), "connect", port, "reset"], capture_output=True, timeout=60,
                           start_new_session=True)  # the terminal's Ctrl-C does not reach it
            back_up(port)
    lines = ran.stdout.strip().splitlines()
    if ran.returncode or not lines:
        raise UsageError("%s: the workload did not run: %s" % (port, (ran.stderr or ran.stdout).strip()[-300:]))
    return lines[-1]


@contextmanager
def interrupts_held():
    """Ctrl-C, SIGTERM and SIGHUP kept until the block is done, then raised as KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    held = [s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    before = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in held}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    if caught:
        raise KeyboardInterrupt


def back_up(port, within=RESET_WAIT_S):
    """Wait for the app to answer a hello after a reset. What the host sends while the chip restarts
    is lost (its UART is held in reset; the USB-to-UART chip keeps no bytes for it), so a REPL
    session begun then loses its Ctrl-C, and mpremote waits for a raw REPL that never comes."""
    from .link import BoardLink, LinkError
    deadline = time.monotonic() + within
    while True:
        try:
            with BoardLink(port, timeout=2) as link:
                link.hello()
                return
        except LinkError:
            if time.monotonic() > deadline:
                raise UsageError("%s: the board did not come back within %d s of its reset" % (port, within)) from None
            time.sleep(0.2)


# After the workload's source: the clock set as the app sets it (doce/esp32.py, as it boots; a soft
# reset leaves ESP-IDF's default, 160 MHz), `call` timed, and what was measured printed as JSON.
TIMED = """
import sys, time
def _pystone(loops):
    Setup()
    start = time.ticks_us()
    Proc0(loops)
    return time.ticks_diff(time.ticks_us(), start)
try:
    import machine
    machine.freq(%d)
    hz = machine.freq()
except (ImportError, ValueError, AttributeError):
    hz = 0
us = %s
print('{"us": %%d, "hz": %%d, "machine": "%%s"}' %% (us, hz, getattr(sys.implementation, "_machine", "?")))
"""


def workload_code(source, call, hz):
    """`source`, then `call` timed at clock `hz`, printing microseconds, clock and machine as JSON."""
    return source + TIMED % (hz, call)


def timed(port, line, loops):
    """The REPL's last line, {"us", "hz", "machine"} as TIMED prints it, with `loops`; else UsageError."""
    try:
        got = json.loads(line)
    except ValueError:
        got = None
    if (not isinstance(got, dict) or not all(isinstance(got.get(k), int) and not isinstance(got.get(k), bool)
                                             for k in ("us", "hz"))
            or got["us"] <= 0 or got["hz"] < 0 or not isinstance(got.get("machine"), str)):
        raise UsageError("%s: the workload printed something this doce does not understand: %s"
                         % (port, printable(line[:200])))
    return dict(got, loops=loops)


def chip_workload(port, hz, loops=WORKLOAD_LOOPS):
    return timed(port, run_on_repl(port, workload_code(WORKLOAD.read_text(), "run(%d)" % loops, hz)), loops)


PYSTONE_LIMIT = 64 * 1024  # misc_pystone.py is some 7 KB


def read_pystone(path):
    """The text of MicroPython's misc_pystone.py at `path`, else UsageError in one line."""
    try:
        source = read_text(path, PYSTONE_LIMIT, "MicroPython's misc_pystone.py")
    except FileError as e:
        raise UsageError(str(e)) from None
    if "def Proc0" not in source or "def Setup" not in source:
        raise UsageError("%s: not MicroPython's misc_pystone.py (no Setup and Proc0)" % path)
    return source


def pystone(port, path, hz, loops=PYSTONE_LOOPS, source=None):
    """MicroPython's misc_pystone.py, from the file you have (it is not part of this project)."""
    source = source or read_pystone(path)
    return timed(port, run_on_repl(port, workload_code(source, "_pystone(%d)" % loops, hz)), loops)


def estimates():
    """make bench's estimates (build/bench/estimates.json), or {} if it has not run here."""
    try:
        return json.loads(ESTIMATES.read_text())
    except (OSError, ValueError):
        return {}


# What rows() reads from the board's figures: (path, kind)
FIGURE_FIELDS = ([(("die_to_light", k, w, f), "number") for k in ("play", "win") for w in ("from_seen", "from_settle")
                  for f in ("n", "most")]
                 + [(("scan_period", k, f), "number") for k in ("rest", "landing") for f in ("n", "mean")]
                 + [(("heap", f), "number") for f in ("free_after_boot", "free", "live")]
                 + [(("collection", f), "number") for f in ("n", "most", "live")]
                 + [(("network", f), "flag") for f in ("wifi", "tls")])


def check_figures(figures):
    """The bench's figures with every field rows() reads, else UsageError in one line (the protocol's
    schema only says each is an object)."""
    for path, kind in FIGURE_FIELDS:
        value = figures
        for i, key in enumerate(path):
            if not isinstance(value, dict) or key not in value:
                raise UsageError("the board's bench answered something this doce does not understand (no %s)"
                                 % "/".join(path[:i + 1]))
            value = value[key]
        fits = isinstance(value, bool) if kind == "flag" else (
            isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0)
        if not fits:
            raise UsageError("the board's bench answered something this doce does not understand (%s is not a %s)"
                             % ("/".join(path), kind))
    return figures


def rows(figures, est, work=None, stone=None):
    """(what, measured, its unit, estimate or None, note) for the table."""
    d = figures["die_to_light"]
    out = []
    for kind, said in (("play", "a play"), ("win", "the winning die")):
        seen, settle = d[kind]["from_seen"], d[kind]["from_settle"]
        out.append(("die-to-light, %s, from the scan that first read it (most of %d)" % (said, seen["n"]),
                    seen["most"] / 1000, "ms", est.get("die_to_light_%s_ms" % kind), "worst square, computed"))
        out.append(("die-to-light, %s, from the scan that settled it (most of %d)" % (said, settle["n"]),
                    settle["most"] / 1000, "ms", est.get("settle_to_light_%s_ms" % kind), ""))
    s = figures["scan_period"]
    out.append(("scan period at rest (mean of %d)" % s["rest"]["n"], s["rest"]["mean"] / 1000, "ms",
                est.get("scan_period_rest_ms"), "an idle scan and the idle sleep"))
    out.append(("scan period while a die lands (mean of %d)" % s["landing"]["n"], s["landing"]["mean"] / 1000, "ms",
                est.get("scan_period_landing_ms"), ""))
    h, c = figures["heap"], figures["collection"]
    net = figures["network"]
    out.append(("free heap after boot", h["free_after_boot"] / 1024, "KB", est.get("free_after_boot_kb"), ""))
    out.append(("free heap now%s" % (" (Wi-Fi, broker%s up)" % (" and TLS" if net["tls"] else "")
                                     if net["wifi"] else ", no Wi-Fi"), h["free"] / 1024, "KB", None, ""))
    heap_kib = (h["free"] + h["live"]) / 1024
    out.append(("longest collection, %.0f KB live in a %.0f KiB heap (%d timed)" % (c["live"] / 1024, heap_kib, c["n"]),
                c["most"] / 1000, "ms", est.get("gc_pause_ms"), "a match's live heap, re-derived"))
    if work:
        per_loop = work["us"] / work["loops"]
        cycles = per_loop * work["hz"] / 1e6
        instr = est.get("workload_unix_instructions_per_loop")
        out.append(("chip_workload.py, one loop (%d loops at %.0f MHz)" % (work["loops"], work["hz"] / 1e6),
                    per_loop, "us", instr * est["cycles_per_unix_instruction"] / work["hz"] * 1e6
                    if instr and work["hz"] else None, "make bench's cycles per instruction"))
        if instr:
            out.append(("ESP32 cycles per unix-port instruction, re-derived", cycles / instr, "",
                        est.get("cycles_per_unix_instruction"), "bench/chip.py"))
    if stone:
        rate = stone["loops"] / (stone["us"] / 1e6)
        out.append(("misc_pystone, pystones/s at %.0f MHz" % (stone["hz"] / 1e6), rate, "/s",
                    est.get("pystones_per_s"), "micropython issues 5673, 6565 (v1.12)"))
    return out


def measured_on(figures, work=None):
    """What ran the figures: "an ESP32", or what else it was (the simulator's unix port says linux)."""
    platform = figures.get("platform")
    machine = (work or {}).get("machine")
    if platform == "esp32":
        return "an ESP32"
    if platform or machine:
        return "the simulator (MicroPython's unix port: %s), not an ESP32: they time this computer" % printable(
            platform or machine)
    return "a board that does not say what it runs on (its firmware is older than this doce)"


def report(board, port, figures, est, work=None, stone=None, out=sys.stdout):
    check_figures(figures)
    hz = figures.get("cpu_hz") or (work or {}).get("hz") or 0
    on = measured_on(figures, work)
    if on != "an ESP32":
        print("These figures were measured on %s." % on, file=out)
    print("%s figures measured on %s (firmware %s) at %s, %s, beside make bench's estimates%s:" % (
        "Chip" if on == "an ESP32" else "Simulated" if on.startswith("the simulator") else "Board's",
        printable(board.get("board", "?")), printable(board.get("firmware", "?")), printable(port),
        "%.0f MHz" % (hz / 1e6) if hz else "clock unknown",
        "" if est else " (none here: run make bench first)"), file=out)
    if work:
        print("  (its MicroPython: %s)" % printable(work["machine"]), file=out)
    print("  %-72s %10s %10s %6s" % ("figure", "measured", "estimate", "ratio"), file=out)
    for what, value, unit, guess, note in rows(figures, est, work, stone):
        ratio = "%6.2f" % (value / guess) if guess else "     -"
        print("  %-72s %8.2f %-2s %8s %-2s %s%s" % (what, value, unit, "%.2f" % guess if guess else "-",
                                                   unit if guess else "", ratio, ("  " + note) if note and guess
                                                   else ""), file=out)


@link_errors
def cmd_bench(args):
    # the files named are checked before the round is played, not after
    try:
        source = read_pystone(args.pystone) if args.pystone else None
        if args.save:
            check_writable(args.save, "the measurement")
    except FileError as e:
        raise UsageError(str(e)) from None
    link, hello = open_link(args)
    player = TerminalPlayer(out=sys.stderr if args.json else sys.stdout)
    with link:
        figures = measure(link, player)
    work = stone = None
    if not args.no_workload:
        work = chip_workload(args.port, figures.get("cpu_hz") or 240000000)
        if source:
            stone = pystone(args.port, args.pystone, work["hz"] or 240000000, source=source)
    est = estimates()
    result = {"board": hello.get("board"), "firmware": hello.get("firmware"), "port": args.port,
              "date": time.strftime("%Y-%m-%d"), "platform": figures.get("platform"),
              "measured_on": measured_on(figures, work), "figures": figures, "workload": work,
              "pystone": stone}
    if args.json:
        print(json.dumps(dict(result, estimates=est)))
    else:
        report(hello, args.port, figures, est, work, stone)
    if args.save:  # after the figures are shown: a file that fails does not lose them
        try:
            Path(args.save).write_text(json.dumps(result, indent=1) + "\n")
        except OSError as e:
            raise UsageError("%s: cannot write (%s)" % (args.save, e.strerror or e)) from None
    return 0


def add_bench(commands):
    bench = commands.add_parser(
        "bench", help="measure the chip's own figures on a board",
        description="Measure the chip's own figures on the board, timed inside its firmware: die-to-light for a "
                    "play and a winning die, the scan period at rest and while a die lands, the free heap, the "
                    "longest collection; then a CPU workload over the REPL on the same image. You play one round "
                    "on the board as it asks (a new match, an empty board). Printed beside make bench's estimates.")
    board_args(bench)
    bench.add_argument("--pystone", metavar="FILE", help="also run MicroPython's tests/perf_bench/misc_pystone.py "
                                                         "from this file (not part of this project)")
    bench.add_argument("--no-workload", action="store_true", help="skip the REPL's CPU workload")
    bench.add_argument("--save", metavar="FILE", help="keep the measurement as JSON (make bench prints it)")
    bench.set_defaults(run=cmd_bench)

