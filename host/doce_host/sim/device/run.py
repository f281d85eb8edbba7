"""The simulated board: the real firmware, from a real LittleFS image, on simulated hardware.

    micropython run.py FLASH_IMAGE LEVELS [--share=BYTES]

Runs under the MicroPython unix port. The firmware files are read from the flash
image, as on a board; this folder adds only the simulated `machine` and `neopixel`
modules, the world of dice and the flash chip. The simulator drives it with one JSON
command per line on stdin and gets one JSON reply per line on stdout (see
doce_host/sim/__init__.py for the commands). Time is simulated: each scan advances
the clock by the pause the chip's loop would take before it (run_scans, paced), so every run is repeatable.
"""

import gc

gc.collect()
_counted = gc.mem_alloc()  # the interpreter and this script: the harness's share starts here

import binascii  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import select  # noqa: E402
import sys  # noqa: E402

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, HERE)

import flash  # noqa: E402

chip = flash.mount(sys.argv[1])

import machine  # noqa: E402
chip.charge = machine.charge  # a program or erase holds the firmware (flash.py)
import side_channel  # noqa: E402
import simtime  # noqa: E402
from serial_port import NS_PER_BYTE, Port  # noqa: E402  (its clock is the unix port's time, not simtime)

import simbinascii  # noqa: E402
sys.modules["binascii"] = simbinascii  # for the firmware: crc32's big ints on the chip counted (simbinascii.py)
sys.modules["time"] = simtime  # for the firmware: the ESP32's ticks, wrapping at 2**30 (simtime.py)
import simgc  # noqa: E402
sys.modules["gc"] = simgc  # for the firmware: the port's gc.mem_free(), ESP-IDF's largest free block in it (simgc.py)
import micropython  # noqa: E402
import network  # noqa: E402, F401  the simulated driver (a C module on the chip), loaded here to count it with the harness



def reset_said():
    """The board resets itself (firmware/slots.py: a slot on trial that crashed or was not healthy in
    time): the simulator powers it on again (doce_host.sim SimBoard)."""
    sys.stdout.write('{"reset":true}\n')


clock = [0]  # the simulated clock, in microseconds
machine.on_reset = reset_said
machine.clock_ms = lambda: clock[0] // 1000
gc.collect()
_before_firmware = gc.mem_alloc()
import slots  # noqa: E402
try:
    slots.choose()  # as main.py does: the slot to boot, first on the path (the firmware's own code, from here)
    from doce import board as boardfile  # noqa: E402
    from doce import esp32  # noqa: E402
    from doce.game import PLAYER_NAMES  # noqa: E402
    from doce.state import snapshot  # noqa: E402
except Exception:  # a slot on trial that cannot even load: main.py's crash
    slots.crashed()
    raise

gc.collect()
_firmware_modules = gc.mem_alloc() - _before_firmware  # the board loads these too: its share, not ours
from world import World  # noqa: E402

board_spec = boardfile.load_spec()  # board.json on the board's own flash (flash.mount)
board = boardfile.Board(board_spec)  # the harness's own copy, for its world; the firmware makes its own
world = machine.attach(World(board, side_channel.start_levels(sys.argv[2])), board, board_spec["power"])
side_channel.start_faults(sys.argv[2])
side_channel.start_supply(sys.argv[2])
del board_spec
button = machine.Pin(board.pins["button"], machine.Pin.IN, machine.Pin.PULL_UP)  # side_channel presses it
events = []  # events the link sent since the last reply
faults = []  # the tracebacks of scans that raised (esp32.Scans said each in an `error` event) since the last reply
garbled = []  # lines on the link that are not the firmware's JSON, byte for byte
replies = []  # replies the link sent since the last reply
app = None
scans = None  # esp32.Scans, once the app is built


# The host's bytes on their way to the board, at most this many at once: the longest burst a test
# sends (tests/board/test_link.py, 4.5 KB) with room. Allocated once, before the firmware boots: the
# firmware's heap is in small pieces by then (micropython.mem_info: about 8 KB its largest free run
# after boot), and the harness's big buffers must not need a run the board's own objects have split.
# The host sends long data in pieces, a "send" with "more" each (on the wire, the clock standing
# still: doce_host.sim SimBoard._send_ahead), so no command line needs a long run of free heap either.
WIRE_BYTES = 8192
# The board's line being received, made whole the same way: the longest line a board sends (rules_get, some
# 5.5 KB: doce/link.py) with room. Grown a piece at a time as bytes came, a long line (the board check's
# sensors, 3.4 KB) needed a run of free heap its length, and a board's split heap, under load, had none: the
# harness's MemoryError came out of the firmware's scan as a fault (tests/conftest.py scan_faults_checked).
LINE_BYTES = 8192


class Line(io.IOBase):
    """The line received so far (its first n bytes), read by json.load where it lies: no copy of it."""

    def __init__(self):
        self.buf = bytearray(LINE_BYTES)
        self.n = 0
        self.at = 0

    def readinto(self, b):
        k = min(len(b), self.n - self.at)
        b[:k] = memoryview(self.buf)[self.at:self.at + k]
        self.at += k
        return k


class Loopback(Port):
    """The USB serial port, looped back to this harness on the simulated clock: the host's
    bytes arrive one every 86.8 us from when they are sent, into the port's ring buffer
    (dropped when it is full); the board's lines come back whole."""

    def __init__(self):
        super().__init__(lambda: clock[0], self._hold, self._out)
        self.incoming = bytearray(WIRE_BYTES)  # bytes on the wire, arriving one by one
        self.end = 0  # how many bytes are on it
        self.at = 0  # how many of them have arrived
        self.since = 0  # when incoming[0] started to arrive
        self.line = Line()
        self.handing_over = False
        self.spent = None  # bytes _out allocates, counted while a number (run.py's landing)

    def write(self, data):
        if self.handing_over:
            self.fifo_ns = 0
            self._out(data)
            return len(data)
        return super().write(data)

    def _hold(self, us):
        clock[0] += us  # the firmware waited: simulated time passes

    def _out(self, data):
        if self.spent is not None:  # the harness's share of a landing's allocations
            before = gc.mem_free()
            self._read(data)
            self.spent += max(0, before - gc.mem_free())
        else:
            self._read(data)

    def _read(self, data):
        line = self.line
        buf = line.buf
        for b in data:
            if b == 10:
                self._line(line)
                line.n = 0
            else:
                if line.n < LINE_BYTES:
                    buf[line.n] = b
                line.n += 1

    def _line(self, line):
        n = line.n
        line.at = 0
        try:  # byte for byte the link's JSON: a \r from cooked output, or a log line in it, is not
            if n > LINE_BYTES or n and line.buf[n - 1] == 13:
                raise ValueError
            message = json.load(line)
        except ValueError:
            garbled.append(bytes(line.buf[:min(n, LINE_BYTES)]).decode("utf-8", "replace"))
            return
        (events if "event" in message else replies).append(message)

    def take_in(self):
        if self.at >= self.end:
            return
        arrived = (clock[0] - self.since) * 1000 // NS_PER_BYTE
        while self.at < self.end and self.at < arrived:
            self.receive(self.incoming[self.at])
            self.at += 1

    # the host's side
    def send(self, data):
        """Bytes from the host, starting now (or once those already on the wire are through)."""
        if self.at >= self.end:
            self.end = self.at = 0
            self.since = clock[0]
        if self.end + len(data) > WIRE_BYTES:
            raise ValueError("the harness's wire holds %d bytes at once (WIRE_BYTES)" % WIRE_BYTES)
        self.incoming[self.end:self.end + len(data)] = data
        self.end += len(data)

    def waiting(self):
        """Whether bytes are still on their way or in the ring, unread."""
        return self.at < self.end or self.get != self.put


serial = Loopback()
rebooted = []
# Installed (and compiled from source) here, so the harness's share holds it: a board has no such
# module, and loaded after the ballast its code and qstrs took 1.7 KB of the firmware's free heap after
# boot and moved where the firmware's qstr pools fall (tests/host/test_sim_interface.py)
side_channel.start_no_room(sys.argv[2])  # (after the harness's own imports: only the firmware's fail)
gc.collect()
padding = side_channel.ballast(_counted + _firmware_modules)  # the same share as serve.py's
gc.collect()
harness_bytes = gc.mem_alloc() - _counted - _firmware_modules  # all the harness holds (the "heap" command)
drivers = side_channel.drivers(HERE)  # its own modules (side_channel.drivers: serve.py's are the same)
del _counted, _before_firmware, _firmware_modules

def reply(summary=False, **fields):
    hand_over()  # the clock stands still between commands: what waits to go out goes now
    fields["events"] = events[:]
    del events[:]
    if garbled:
        fields["garbled"] = garbled[:]
        del garbled[:]
    if faults:  # for the tests: a fault a board plays on through must not pass unseen (tests/conftest.py)
        fields["scan_faults"] = faults[:]
        del faults[:]
    if summary:  # how many replies of each kind, rather than every reply
        counts = {}
        for r in replies:
            key = ("ok " + str(r.get("re"))) if r["ok"] else r["error"]
            counts[key] = counts.get(key, 0) + 1
        fields["link_summary"] = counts
    elif replies:
        fields["link"] = replies[:]
    del replies[:]
    # Written piece by piece: events and replies one at a time, each as json.dump writes it, a token at a
    # time, so that no string of them (6 KB for a burst of states, 3.4 KB for the board check's sensors)
    # needs a free block that size in a heap the firmware shares.
    write = sys.stdout.write
    sep = "{"
    for key, value in fields.items():
        write(sep)
        sep = ","
        write(json.dumps(key))
        write(":")
        if type(value) is list:
            write("[")
            for i, item in enumerate(value):
                if i:
                    write(",")
                json.dump(item, sys.stdout)
            write("]")
        else:
            json.dump(value, sys.stdout)
    write("}\n")



low = [None]  # the least free heap at the end of a scan since the "heap" command last asked


# The loop's pace (doce/esp32.py loop): [ms before the next scan, when something last moved, when this scan
# began] (ms of the clock). A module list, not locals of run_scans (below: its frame would go on the heap).
pace = [0, 0, 0]


def run_scans(n):
    for _ in range(n):
        if rebooted:  # the board restarts at once (machine.reset): nothing more scans
            return
        world.tick()
        clock[0] += pace[0] * 1000
        pace[2] = clock[0] // 1000
        flash_before()
        scans.scan(simtime.board_ticks(pace[2]))  # esp32.run's own scan: a fault said, play goes on
        flash_after()
        if scans.fault:
            clock[0] += esp32.FAULT_PAUSE_MS * 1000  # and its pause after it
        paced()
        note_free()


def paced():
    """The pause before the next scan, by esp32.loop's rule: scan_period_ms, or idle_scan_period_ms once the
    board has been quiet, its USB link idle, for IDLE_AFTER_MS. Where the chip scans again at once (a square
    moving), the full pace: a scan's own time is not simulated, so none would pass at all."""
    now = pace[2]
    link = app.link
    if not app.quiet() or link.backlog or link.n:
        pace[1] = now
    pace[0] = app.board.scan_period_ms if now - pace[1] < esp32.IDLE_AFTER_MS else app.board.idle_scan_period_ms


# The flash's programs and erases hold a scan (sim/device/flash.py): the board's ticks go on meanwhile, so
# the clock moves on by them. Kept in module lists and functions: a local more in run_scans would put its
# frame on the heap (below).
flash_most = [0, 0, 0]  # the scan the flash held longest since the "flash" command asked: us, erases, programs
flash_worst = [0, 0, 0]  # the same at the chip's datasheet maximum times (another scan, it may be)
_flash_at = [0, 0, 0]  # the chip's busy_us, erases and programs before the scan


def flash_before():
    _flash_at[0] = chip.busy_us
    _flash_at[1] = chip.erases
    _flash_at[2] = chip.programs


def flash_after():
    us = chip.busy_us - _flash_at[0]
    if us:
        clock[0] += us
        if us > flash_most[0]:
            flash_most[0] = us
            flash_most[1] = chip.erases - _flash_at[1]
            flash_most[2] = chip.programs - _flash_at[2]
        us = (chip.erases - _flash_at[1]) * flash.ERASE_US[1] + (chip.programs - _flash_at[2]) * flash.PROGRAM_US[1]
        if us > flash_worst[0]:
            flash_worst[0] = us
            flash_worst[1] = chip.erases - _flash_at[1]
            flash_worst[2] = chip.programs - _flash_at[2]


# Its own small function: a local more in run_scans would put its frame on the heap (MicroPython
# keeps frames of up to 11 slots on the C stack), which the idle-allocation count would see.
def note_free():
    free = gc.mem_free()  # (the allocation table's walk, in C: nothing allocated)
    if low[0] is None or free < low[0]:
        low[0] = free


def largest_free():
    """The largest block the heap can give now, after a collection: the most any one allocation
    (a message's text, a buffer grown) can have in a fragmented heap. Found by asking for it."""
    gc.collect()
    lo, hi = 0, gc.mem_free()
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            bytearray(mid)
            lo = mid
        except MemoryError:
            hi = mid - 1
    return lo



def run_for(ms):
    """Scan until `ms` of the board's time has passed: as many scans as its pace gives (paced)."""
    end = clock[0] + ms * 1000
    while clock[0] < end and not rebooted:
        run_scans(1)


def drain(output=True, limit=20000):
    """Scan until the host's bytes are all read and (output) the board's output has gone out."""
    for _ in range(limit):
        if rebooted or not (serial.waiting() or output and app.link.backlog):
            return
        run_scans(1)


def hand_over():
    """What the link has still to send, handed over whole and not charged to the loop."""
    if app is not None and app.link.backlog:
        serial.handing_over = True
        app.link.flush_all()
        serial.handing_over = False


def idle_allocation(scans):
    """Bytes allocated by `scans` scans of an unchanging board (micropython.mem_total)."""
    run_scans(board.debounce_scans + board.quiet_wait_scans)  # let everything settle
    gc.collect()
    before = micropython.mem_total()
    run_scans(scans)
    return micropython.mem_total() - before


def landing(changes, leave, traffic):
    """A die put down (`changes`, as "sense" takes them) while the host's requests (`traffic`) arrive,
    the heap first filled with garbage, as traffic at rest leaves it, to `leave` bytes free if nothing
    collects. For each scan from the die's first read until the board rests and has read the host's
    bytes: [bytes the free heap grew by in the scan, the same up to its first LED write (None: no
    write), whether the board is quiet after it]. The free heap grows only by a collection (bar a
    realloc's old block, a few hundred bytes). The harness's own work in the scans (the link's lines
    parsed in Loopback._out) allocates too: the heap is harder pressed here than on a board."""
    for _ in range(board.debounce_scans + board.quiet_wait_scans):  # what moved before has settled
        run_scans(1)
    # Small pieces, dropped at once (garbage, as a reply's strings are): a run of free heap is found
    # for each however split the heap is, so only a threshold (doce/app.py) collects here. `budget`
    # bytes in all, counted as the free heap shrinks (a collection spends nothing).
    free = gc.mem_free()
    budget, spent = free - leave, 0
    while spent < budget:
        bytearray(16)
        now = gc.mem_free()
        spent += max(0, free - now)
        free = now
    serial.send(traffic)
    world.set(changes)
    strip = side_channel.neopixel.strips[0]
    lit = [None]

    def probe():
        if lit[0] is None:
            lit[0] = gc.mem_free()
    strip.on_write = probe
    scans = []
    allocated = None  # from the die's first read to its light, the harness's reply parsing left out
    serial.spent = 0
    start = free = gc.mem_free()
    try:
        for _ in range(1000):
            lit[0] = None
            run_scans(1)
            now = gc.mem_free()
            if allocated is None and lit[0] is not None:
                allocated = start - lit[0] - serial.spent
            scans.append([now - free, None if lit[0] is None else lit[0] - free, app.quiet()])
            free = gc.mem_free()  # after the harness's own append
            start += free - now
            if app.quiet() and not serial.waiting():
                break
    finally:
        strip.on_write = None
        serial.spent = None
    return {"scans": scans, "allocated": allocated}


watched = [None, 0]  # the MQTT pipe watched (doce/mqtt.py Pipe), and its `out` at its longest since asked


def pipe_peak():
    """The most bytes the MQTT pipe's `out` held at once since last asked (its writes watched from the
    first ask: the harness's allocation, not the board's), against its room (Pipe.room): past it, its
    buffer grew and moved. None with no network."""
    net = app.net
    if net is None:
        return None
    pipe = net.pipe
    if watched[0] is not pipe:
        watched[0], watched[1] = pipe, len(pipe.out)
        write = pipe.write

        def watch(data, n=None):
            write(data, n)
            watched[1] = max(watched[1], len(pipe.out))
        pipe.write = watch
    seen, watched[1] = watched[1], len(pipe.out)
    return seen


class Full:
    """The board's socket to the broker with its send buffer full, as a slow or far broker leaves it: a write
    takes nothing (EAGAIN, as lwIP and Linux say it), the rest is the socket's own."""

    def __init__(self, sock):
        self.sock = sock

    def write(self, data):
        raise OSError(11)  # EAGAIN

    def __getattr__(self, name):
        return getattr(self.sock, name)


def full(on):
    net = app.net
    if net is None or net.sock is None:
        raise ValueError("the board has no connection to a broker")
    if on and not isinstance(net.sock, Full):
        net.sock = Full(net.sock)
    elif not on and isinstance(net.sock, Full):
        net.sock = net.sock.sock


def handle(cmd):
    do = cmd["do"]
    if do == "run":
        # skip_ms: time in which nothing happens, passed before the scans, so a timeout of minutes
        # is tested without the minutes of scans that would only repeat (as a stalled loop's would)
        clock[0] += cmd.get("skip_ms", 0) * 1000
        run_scans(cmd.get("scans", 1))
        run_for(cmd.get("ms", 0))
        if rebooted:  # the board restarts itself (an update applied once a match is over: doce/update.py)
            reply(rebooted=True)
            sys.exit(4)
        return {}
    result = side_channel.act(world, cmd)
    if result is not None:
        if do == "frames":
            run_scans(len(world.frames))
        return result
    if do == "state":  # as a host gets it over the link
        return {"state": snapshot(app)}
    if do == "debug_state":
        return {"state": side_channel.debug_state(app, chip)}
    elif do == "send":  # bytes from the host over the serial port
        data = cmd["line"].encode() if "line" in cmd else binascii.unhexlify(cmd["hex"])
        # paced: a host that waits for each line's reply before it sends the next. Each line
        # arrives whole while the board is busy (the hardest case for the ring: it must hold
        # the line), and the wait for the reply is skipped (the reply handed over whole).
        paced = cmd.get("paced")
        if cmd.get("more"):  # one piece of a long send: on the wire, the clock standing still
            serial.send(data)
            return {}
        for part in (data.split(b"\n") if paced else (data,)):
            serial.send(part + b"\n" if paced else part)
            clock[0] += cmd.get("busy_ms", 0) * 1000  # the board busy meanwhile (a flash erase)
            if paced:
                clock[0] += (len(part) + 1) * NS_PER_BYTE // 1000 + 1
            drain(output=not paced)
            if paced:
                hand_over()
            if rebooted:
                break
        run_scans(cmd.get("scans", 1))
        if cmd.get("summary"):
            return {"summary": True}
        if rebooted:
            reply(rebooted=True)
            sys.exit(4)
    elif do == "flash":  # the chip's operations since boot, and the scan it held longest since last asked
        most = {"us": flash_most[0], "erases": flash_most[1], "programs": flash_most[2]}
        worst = {"us": flash_worst[0], "erases": flash_worst[1], "programs": flash_worst[2]}
        flash_most[0] = flash_most[1] = flash_most[2] = flash_worst[0] = flash_worst[1] = flash_worst[2] = 0
        return {"erases": chip.erases, "programs": chip.programs, "busy_us": chip.busy_us, "longest_scan": most,
                "longest_scan_at_most": worst}
    elif do == "port":  # what the serial port went through since last asked
        figures = {"dropped": serial.dropped, "held_us": serial.held_us, "longest_hold_us": serial.longest_hold_us}
        serial.dropped = serial.held_us = serial.longest_hold_us = 0
        return figures
    elif do == "new_match":
        app.controller.new_match(PLAYER_NAMES.index(cmd.get("first", "white")))
    elif do == "calibrate":
        return {"error": app.calibrate(cmd.get("scans", 32))}
    elif do == "cut_power":
        chip.cut_after(cmd["after"], cmd.get("torn", True))
    elif do == "landing":
        return landing(cmd["set"], cmd.get("leave", 1024), cmd.get("traffic", "").encode())
    elif do == "idle_allocation":
        return {"bytes": idle_allocation(cmd.get("scans", 100))}
    elif do == "socket_full":  # the socket to the broker takes nothing more (a slow or far broker), or again
        full(cmd["on"])
    elif do == "pipe":
        return {"peak": pipe_peak(), "room": app.net.pipe.room if app.net else None}
    elif do == "modules":  # the firmware's modules loaded so far
        return {"loaded": sorted(name for name in sys.modules if name.startswith("doce"))}
    elif do == "ticks":  # the board's ticks_ms now
        return {"ticks": simtime.board_ticks(clock[0] // 1000)}
    elif do == "heap":
        # low: the least free heap at the end of a scan since last asked (the firmware's garbage
        # still in it), or None; largest: the largest block free after a collection
        seen, low[0] = low[0], None
        largest = largest_free() if cmd.get("largest") else None
        gc.collect()
        return {"alloc": gc.mem_alloc(), "free": gc.mem_free(), "peak": micropython.mem_peak(),
                "harness": harness_bytes, "drivers": drivers, "low": seen, "largest": largest,
                "threshold": gc.threshold()}
    else:
        raise ValueError("unknown command %r" % do)
    return {}


def power_gone(message):
    """The power goes at this flash operation (flash.py): the reply says so, and nothing more runs
    on the board, as on a real one; the simulator ends the process (doce_host.sim SimBoard). Unwound
    instead, the firmware ran on past the cut: a `with` closing its file left it half closed on the
    dead chip, a collection in this reply closed it again, LittleFS answered OSError 28, and the
    collector printed that into the reply's line (issue 41's power-cut campaign)."""
    reply(power_cut=message)
    select.poll().poll()  # for ever


chip.on_cut = power_gone


class Scans(esp32.Scans):
    """esp32.Scans, the fault's traceback kept besides for the simulator (its `error` event has only the
    message): allocated only when a scan raises."""

    def __exit__(self, kind, e, trace):
        if isinstance(e, Exception):
            kept(e)
        return esp32.Scans.__exit__(self, kind, e, trace)


# Its own function: in __exit__ its locals would take that frame past the 11 words MicroPython keeps on
# the C stack (py/objfun.c VM_MAX_STATE_ON_STACK), putting it on the heap at every scan.
def kept(e):
    import io
    text = io.StringIO()
    sys.print_exception(e, text)
    faults.append(text.getvalue())


def reboot():
    """machine.reset, from the link: the cause left for the next boot, and the board restarts."""
    machine.leave_cause()
    rebooted.append(1)


def main():
    global app, scans
    # As esp32.run boots: through its handlers, so a board file or a game that does not fit says so in one
    # line, as on a board, and the board then sits at the REPL (every command answered so)
    try:
        app = esp32.start(lambda: esp32.link_on(serial.sys_stdin, serial.sys_stdout, serial, reboot),
                          out=serial.sys_stdout.buffer)
    except Exception:  # main.py's crash: on trial, a reset
        slots.crashed()
        raise
    if app is None:
        reply(ready=True, stopped=True)
        for line in sys.stdin:
            reply(error="the board stopped at the REPL (its one line said why)")
        return
    scans = Scans(app, button)
    pace[0], pace[1] = app.board.scan_period_ms, clock[0] // 1000  # as esp32.loop starts: busy_at now
    reply(ready=True)
    # No collection before each command: it marked the whole heap, some 0.28 ms of the 0.42 ms a one-scan
    # command costs here (2,000 run commands: 0.84 s of this process's CPU with it, 0.27 s without; measured
    # 2026-12 on the unix port 1.28, x86-64, the firmware booted on the WROVER's heap, idle board). A
    # harness line that finds no room still gets it: py/gc.c gc_alloc collects and tries again before it
    # fails, as it does for the firmware on the chip, where nothing collects between scans either.
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        answer(line)


# Its own function, so that a command's result is garbage once it is said. Kept in main, it stayed live
# until the next command's was made, and a "heap" reading counted it: 1.3-1.6 KB after a "state"
# (tests/fleet/test_campaign_heap_reading.py). `result = None` after the reply was tried and still read
# 1.3 KB low: main's frame, past 11 words, lives on the heap (py/objfun.c VM_MAX_STATE_ON_STACK) and is
# scanned whole, so a spent slot of its value stack keeps what the reply's call was given.
def answer(line):
    try:
        result = handle(json.loads(line))
    except (ValueError, KeyError, TypeError) as e:
        reply(error="%s: %s" % (type(e).__name__, e))
        return
    reply(summary=result.pop("summary", False), **result)


main()
