"""What hands do at the simulated table, as commands: shared by both harnesses.

A command is a dict like {"do": "sense", "set": [12, 41230, 73, 18004]}: the host works out
the fields (doce_host.sim.hands) and sends each changed channel's level. `act` carries out
the ones about the world and the lights, and returns None for others.
"""

import gc
import json
import select
import socket
import struct
import sys
import time

import machine
import neopixel


def act(world, cmd):
    do = cmd["do"]
    if do == "leds":
        strip = neopixel.strips[0]
        sent = strip.shown()  # what its LEDs show (dark while their supply is off)
        return {"leds": [[sent[i * 3 + 1], sent[i * 3], sent[i * 3 + 2]] for i in range(strip.n)],
                "bytes": "".join("%02x" % b for b in sent)}
    if do == "sense":  # a die moved: the host's physics says what each channel now reads
        if "packed" in cmd:  # hex, 3 bytes a channel: one string on the heap, not a list of 200 numbers
            import binascii
            world.set_packed(binascii.unhexlify(cmd["packed"]))
        else:
            world.set(cmd["set"])
    elif do == "frames":  # a movement, one frame of changes per scan
        world.queue(cmd["frames"])
    elif do == "button":  # a finger on the board's button: pulled up, so pressed reads 0
        machine.Pin(world.board.pins["button"])(0 if cmd["down"] else 1)
    elif do == "noise":
        world.noise = cmd["level"]
    elif do == "fault":  # a part of the PCB soldered wrong, or failed (faults.py)
        import faults
        faults.installed().set(cmd["kind"], **{k: v for k, v in cmd.items() if k != "do" and k != "kind"})
        if cmd["kind"] == "led_break" and neopixel.strips:  # as from power-on: past the break none ever lit
            lit = neopixel.strips[0].lit
            lit[cmd["led"] * 3:] = bytes(len(lit) - cmd["led"] * 3)
    elif do == "supply":  # the board moved to another supply: each CC line's mean read_u16
        start_supply(None, cmd["cc"])
    elif do == "wifi":  # the room's Wi-Fi goes off the air or comes back, or misbehaves (network.py)
        import network
        network.set_air(**{k: cmd[k] for k in ("up", "stuck", "join_raises") if k in cmd})
    elif do == "radio":  # what the firmware asked of the Wi-Fi, and what the strip draws
        import network
        return {"joins": network.joins[0], "pm": network.pm[0], "strip_ma": network.strip_ma()}
    else:
        return None
    return {}


def drivers(here):
    """The simulator's own modules loaded so far (those in its folder, `here`): before the firmware boots,
    each harness (run.py, serve.py) has loaded the same ones, every simulated driver among them."""
    return sorted(name for name, module in sys.modules.items()
                  if getattr(module, "__file__", "").startswith(here + "/"))


def ballast(base):
    """What pads the harness's share (gc.mem_alloc() less `base`: what the interpreter and the firmware's
    own modules hold) to the --share=BYTES the simulator gave it: both harnesses then leave the firmware
    the same heap, whatever each needs of its own (doce_host.sim SHARE). None without --share."""
    share = None
    for arg in sys.argv:
        if arg.startswith("--share="):
            share = int(arg[8:])
    if share is None:
        return None
    size = share - (gc.mem_alloc() - base)
    if size < 0:
        raise ValueError("the harness holds %d bytes, more than its share of %d" % (share - size, share))
    while size > 0:  # (the object's own block, and its data's rounding: measured, not guessed)
        pad = None
        gc.collect()
        pad = bytearray(size)
        gc.collect()
        over = gc.mem_alloc() - base - share
        if over <= 0:
            return pad
        size -= over
    return None


def start_levels(path):
    """Every channel's level at power-on, from the file the host wrote (the dice on the
    board as it boots); None if there is none."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError:
        return None


def beside(path, name):
    """The JSON file `name` in the folder of the levels' file `path` (the simulator writes it before
    a power-on), or None if there is none."""
    try:
        with open(path.rsplit("/", 1)[0] + "/" + name if "/" in path else name) as f:
            return json.load(f)
    except OSError:
        return None


def start_faults(path):
    """The PCB's faults, from faults.json beside the levels' file `path`: soldered in again at
    every power-on, as they outlast a power cut (after machine.attach: a fault names pins)."""
    faults = beside(path, "faults.json")
    if faults:
        import faults as pcb
        for fault in faults:
            pcb.installed().set(fault.pop("kind"), **fault)


def start_supply(path, cc=None):
    """The USB-C input's CC lines read `cc` (a mean read_u16 each, CC1 then CC2), or at power-on what
    supply.json beside the levels' file `path` says (the host writes it: doce_host.sim
    SimulatedBoard.supply); none (0 V) without it."""
    if cc is None:
        cc = (beside(path, "supply.json") or {}).get("cc", ())
    machine.supply_cc.clear()
    for pin, level in zip(machine.spec.get("supply_cc", ()), cc):
        machine.supply_cc[pin] = level


def start_no_room(path):
    """Modules whose import runs out of heap at this power-on (no_room.json beside the levels' file:
    {module: failures}; doce_host.sim SimBoard.no_room)."""
    modules = beside(path, "no_room.json")
    if modules:
        import no_room
        no_room.install(modules)


def debug_state(app, chip):
    """What only a simulator sees: cell codes, the scanner's readings, LED writes, flash operations."""
    from doce.game import PLAYER_NAMES
    from doce.squares import square_name
    c = app.controller
    g = c.game
    t = g.tables
    return {
        "mode": c.mode, "round": g.round, "to_move": PLAYER_NAMES[g.to_move],
        "board": list(g.board), "settled": list(app.scanner.settled), "reading": list(app.scanner.reading),
        "problems": {square_name(t.grid, sq): p for sq, p in enumerate(c.problems) if p},
        "scores": [list(r.points) for r in g.rounds], "match_over": g.match_over,
        "zone": [square_name(t.grid, sq) for sq in g.no_play_zone(g.to_move)],
        "writes": neopixel.strips[0].writes, "frames_lost": neopixel.strips[0].lost,
        "flash_operations": chip.operations, "flash_erases": chip.erases, "flash_programs": chip.programs,
        "flash_busy_us": chip.busy_us, "scans": machine.scans,
        "cpu_hz": machine.freq(), "watchdog_ms": machine.watchdog_ms, "big_ints": machine.big_ints,
    }


class Control:
    """The simulator's side channel, while the firmware runs in real time: a UNIX socket
    read once per scan (from the simulated ADC), one JSON command per line."""

    def __init__(self, path, world, chip, app_of):
        self.world = world
        self.chip = chip
        self.app_of = app_of  # the running App, or None before main.py has built it
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(struct.pack("<H", socket.AF_UNIX) + path.encode() + b"\x00")
        self.poller = select.poll()
        self.poller.register(self.sock, select.POLLIN)
        self.pending = b""
        self.harness = None  # {"harness": bytes it holds, "drivers": its modules}: serve.py sets it

    def service(self):
        """Called once per scan: the world moves on, and commands are carried out."""
        self.world.tick()
        for _ in self.poller.ipoll(0):
            data = self.sock.recv(256)  # commands are short; a big buffer each scan would fragment the heap
            if not data:
                self.hang()  # the simulator has gone: so has the power
            self.pending += data
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                self.answer(json.loads(line))

    def answer(self, cmd):
        try:
            do = cmd["do"]
            if do == "stall":  # the firmware's loop stuck, here inside its scan
                machine.stall(cmd["ms"])
                result = {}
            elif do == "heap":  # as run.py's "heap" command: after a collection
                gc.collect()
                result = dict(self.harness, alloc=gc.mem_alloc(), free=gc.mem_free())
            elif do == "cut_power":
                self.chip.cut_after(cmd["after"], cmd.get("torn", True))
                result = {}
            elif do in ("state", "debug_state"):
                app = self.app_of()
                if app is None:
                    result = {"error": "the app has not started yet"}
                elif do == "state":
                    from doce.state import snapshot
                    # said: the events it has numbered, for a view that waits until they have come by
                    result = {"state": snapshot(app), "said": app.link.seq if app.link else 0}
                else:
                    result = {"state": debug_state(app, self.chip)}
            else:
                result = act(self.world, cmd)
                if result is None:
                    result = {"error": "unknown command %r" % cmd["do"]}
        except (ValueError, KeyError, TypeError) as e:
            result = {"error": "%s: %s" % (type(e).__name__, e)}
        self.send(result)

    def send(self, message):
        self.sock.send(json.dumps(message).encode() + b"\n")

    def hang(self, notice=None):
        """The power goes (or the board resets): tell the simulator, which ends this process."""
        if notice:
            try:
                self.send(notice)
            except OSError:
                pass
        while True:
            time.sleep(1)
