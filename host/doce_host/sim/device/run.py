"""The simulated board: the real firmware, from a real LittleFS image, on simulated hardware.

    micropython run.py FLASH_IMAGE LEVELS

Runs under the MicroPython unix port. The firmware files are read from the flash
image, as on a board; this folder adds only the simulated `machine` and `neopixel`
modules, the world of dice and the flash chip. The simulator drives it with one JSON
command per line on stdin and gets one JSON reply per line on stdout (see
doce_host/sim/__init__.py for the commands). Time is simulated: each scan advances
the clock by the scan period, so every run is repeatable.
"""

import binascii
import gc
import json
import sys

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
sys.path.insert(0, HERE)

import flash  # noqa: E402

chip = flash.mount(sys.argv[1])

import machine  # noqa: E402
import table  # noqa: E402
import micropython  # noqa: E402
import neopixel  # noqa: E402
from doce import board as boardfile  # noqa: E402
from doce import esp32  # noqa: E402
from doce.game import PLAYER_NAMES, square_name  # noqa: E402
from doce.link import Link  # noqa: E402
from world import World  # noqa: E402

board = boardfile.load()
world = machine.attach(World(board, table.start_levels(sys.argv[2])), board)
events = []  # events the link sent since the last reply
replies = []  # replies the link sent since the last reply
clock = [0]
app = None


class Loopback:
    """The USB serial port, looped back to this harness: bytes in, lines out."""

    def __init__(self):
        self.incoming = bytearray()
        self.at = 0
        self.line = ""

    # the board's side
    def readinto(self, buf):
        if self.at >= len(self.incoming):
            return 0
        buf[0] = self.incoming[self.at]
        self.at += 1
        return 1

    def ipoll(self, timeout):
        return (self,) if self.at < len(self.incoming) else ()

    def write(self, text):
        self.line += text
        while "\n" in self.line:
            done, self.line = self.line.split("\n", 1)
            message = json.loads(done)
            (events if "event" in message else replies).append(message)

    # the host's side
    def send(self, data):
        if self.at >= len(self.incoming):
            self.incoming = bytearray()
            self.at = 0
        self.incoming.extend(data)


serial = Loopback()
rebooted = []

def reply(summary=False, **fields):
    fields["events"] = events[:]
    del events[:]
    if summary:  # how many replies of each kind, rather than every reply
        counts = {}
        for r in replies:
            key = ("ok " + str(r.get("re"))) if r["ok"] else r["error"]
            counts[key] = counts.get(key, 0) + 1
        fields["link_summary"] = counts
    elif replies:
        fields["link"] = replies[:]
    del replies[:]
    sys.stdout.write(json.dumps(fields))
    sys.stdout.write("\n")



def run_scans(n):
    period = board.scan_period_ms
    for _ in range(n):
        world.tick()
        clock[0] += period
        app.step(clock[0])



def state():
    c = app.controller
    g = c.game
    t = g.tables
    return {
        "mode": c.mode, "round": g.round, "to_move": PLAYER_NAMES[g.to_move],
        "board": list(g.board), "settled": list(app.scanner.settled), "reading": list(app.scanner.reading),
        "problems": {square_name(t, sq): p for sq, p in enumerate(c.problems) if p},
        "scores": [list(r.points) for r in g.rounds], "match_over": g.match_over,
        "zone": [square_name(t, sq) for sq in g.no_play_zone(g.to_move)],
        "writes": neopixel.strips[0].writes, "flash_operations": chip.operations,
    }


def idle_allocation(scans):
    """Bytes allocated by `scans` scans of an unchanging board (micropython.mem_total)."""
    run_scans(board.debounce_scans + board.quiet_wait_scans)  # let everything settle
    gc.collect()
    before = micropython.mem_total()
    run_scans(scans)
    return micropython.mem_total() - before


def handle(cmd):
    do = cmd["do"]
    if do == "run":
        run_scans(cmd.get("scans", 1))
        return {}
    result = table.act(world, cmd)
    if result is not None:
        if do == "frames":
            run_scans(len(world.frames))
        return result
    if do == "state":
        return {"state": state()}
    elif do == "send":  # bytes from the host over the serial port, then one scan
        serial.send(cmd["line"].encode() if "line" in cmd else binascii.unhexlify(cmd["hex"]))
        while serial.at < len(serial.incoming) and not rebooted:
            run_scans(1)  # the link takes a bounded number of bytes per scan
        run_scans(cmd.get("scans", 1))
        if cmd.get("summary"):
            return {"summary": True}
        if rebooted:
            reply(rebooted=True)
            sys.exit(4)
    elif do == "new_match":
        app.controller.new_match(PLAYER_NAMES.index(cmd.get("first", "white")))
    elif do == "calibrate":
        return {"error": app.calibrate(cmd.get("scans", 32))}
    elif do == "cut_power":
        chip.cut_after(cmd["after"], cmd.get("torn", True))
    elif do == "idle_allocation":
        return {"bytes": idle_allocation(cmd.get("scans", 100))}
    elif do == "heap":
        gc.collect()
        return {"alloc": gc.mem_alloc(), "free": gc.mem_free(), "peak": micropython.mem_peak()}
    else:
        raise ValueError("unknown command %r" % do)
    return {}


def main():
    global app
    try:
        app = esp32.build(link=Link(None, serial, serial, serial, lambda: rebooted.append(1)))
        reply(ready=True)
        while True:
            gc.collect()  # the harness's own big strings need room, not the firmware
            line = sys.stdin.readline()
            if not line:
                break
            try:
                result = handle(json.loads(line))
            except (ValueError, KeyError, TypeError) as e:
                reply(error="%s: %s" % (type(e).__name__, e))
                continue
            reply(summary=result.pop("summary", False), **result)
    except flash.PowerCut as e:
        reply(power_cut=str(e))
        sys.exit(3)


main()
