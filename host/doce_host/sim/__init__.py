"""The simulated board: the real firmware in the MicroPython unix port, on simulated hardware.

    from doce_host.sim import SimBoard
    with SimBoard() as board:
        board.place("c3", "white 4")       # a hand puts a die down, 4 up
        board.leds()[board.led("c3")]      # the colour under c3, as the strip received it
        board.events                       # what the firmware reported

The board's flash is a LittleFS image file, so a game survives `cut_power()` and
`power_on()` exactly as it would on a board.

Two simulators share one set of verbs (`SimulatedBoard`): `SimBoard` steps the firmware
scan by scan in simulated time, for tests; `serial_sim.SerialSim` runs it in real time on a
serial path, for `doce sim` and the hardware-in-the-loop tests. Both take seconds for time,
give the protocol's `state()` (docs/protocol.md) and a `debug_state()` for what only a
simulator knows, and raise `SimError`.
"""

import json
import os
import subprocess
import tempfile
from pathlib import Path

from .. import image
from .hands import Hands
from ..paths import BOARD_FILE, SIM_DEVICE, tool

# The heap the firmware gets here, by module (hardware/bom.csv U1: the reference board's WROVER; on a WROOM
# the firmware does not start, doce/esp32.py NO_PSRAM). MicroPython v1.28's ESP32 port starts the heap at
# 56 KiB (ports/esp32/mpconfigport.h MICROPY_GC_INITIAL_HEAP_SIZE) and adds an area when an allocation
# finds no room after a collection (MICROPY_GC_SPLIT_HEAP_AUTO; py/gc.c gc_try_add_heap: at least the
# heap's size so far, so the total doubles, 56 -> 112 -> 224 KiB, out of
# heap_caps_get_largest_free_block(MALLOC_CAP_DEFAULT), ports/esp32/gccollect.c gc_get_max_new_split).
# - A WROOM has internal RAM only, which Wi-Fi and TLS need: the port's initial size is chosen so the
#   heap "can grow once (double it)" and still start Wi-Fi, so 112 KiB. The game played over USB leaves
#   less of that free after boot than a landing's HEADROOM (doce/app.py), so the firmware refuses to
#   start there (tests/board/test_needs_psram.py boots one to see it say so).
# - The WROVER's SPIRAM image puts its PSRAM in ESP-IDF's malloc (boards/sdkconfig.spiram,
#   CONFIG_SPIRAM_USE_MALLOC=y): an allocation that finds no room after a collection grows the heap out
#   of some 4 MiB, and the firmware grows it at boot until 96 KiB are free (doce/heap.py; test_heap_growth
#   holds that to a model of py/gc.c: at least 224 KiB for any boot past 16 KiB, though an area emptied
#   later is handed back). The unix port's heap cannot grow, so the simulator gives it 224 KiB and no
#   more: a budget well under what that board grows into, and so harder to please; a firmware that
#   needs more, or a heap split so that a block it needs is not there (a qstr pool of 14 KB as a module
#   loads: the power-cut campaign), fails here. Every board that plays is tested on it.
# Both report ESP-IDF's heap as the chip does (sim/device/esp32.py), and the firmware's gc.mem_free()
# counts its largest free block in, as the port's does (sim/device/simgc.py).
WROOM_HEAP_KB = 112
WROVER_HEAP_KB = 224
MODULE_HEAP_KB = {"wroom": WROOM_HEAP_KB, "wrover": WROVER_HEAP_KB}
ESP32_HEAP_KB = WROVER_HEAP_KB
# A simulated board that does not say its module is the reference WROVER: the only one the firmware plays on.
DEFAULT_MODULE = "wrover"
# The unix port is a 64-bit build: an mp_obj_t and every object slot are 8 bytes, not 4, and a GC block
# is 32 bytes, not 16 (py/mpconfig.h: MICROPY_BYTES_PER_GC_BLOCK = 4 * MP_BYTES_PER_OBJ_WORD). Text and
# bytecode do not double. Measured 2026-11-22 on v1.28.0's unix port built with MICROPY_FORCE_32BIT=1
# against the 64-bit one, `board.py heap` on the same .mpy files (bench/chip.py takes its ratios from
# here): the firmware's bytecode 34,816 vs 48,192 bytes (x1.38), its data after boot 6,240 vs 9,312
# (x1.49). The firmware gets the module's heap times the smaller, so that whatever its mix of code and
# data it has no more here than on the chip (2, the upper bound this was before, gave it 61-75 KiB more
# than a WROOM has, and hid that the game does not fit one: doce/esp32.py NO_PSRAM).
CODE_BYTES_32, CODE_BYTES_64 = 34816, 48192
DATA_BYTES_32, DATA_BYTES_64 = 6240, 9312
WORD_FACTOR = min(CODE_BYTES_64 / CODE_BYTES_32, DATA_BYTES_64 / DATA_BYTES_32)
# The simulator's own share, on top of the board's: run.py counts what it holds before the firmware
# boots (gc.mem_alloc, the firmware's own modules left out; the "heap" command's "harness"): 52.1 KB on
# the unix port 1.28: the interpreter and run.py 8 KB, the simulated drivers and world (flash, machine,
# esp, esp32, neopixel, network, serial_port, side_channel, simgc, simtime, world) 27 KB, its own copy of the board's
# tables 6 KB, the wire buffer 8 KB (run.py WIRE_BYTES); and the line buffer 8 KB (run.py LINE_BYTES), 61 KB
# in all; 64 KB with a test's no_room.py (SimBoard.no_room: 2 KB, loaded before the firmware so that a board,
# which has none, is not charged its code and qstrs). On top, COMMAND_ROOM for one command at a
# time: its line (at most a CHUNK of data, JSON-escaped), the parsed command and the reply it sends.
# tests/host/test_sim_interface.py checks that the harness stays inside this, so the firmware's share
# is ESP32_HEAP_KB * WORD_FACTOR and no more. Revision B's USB-C input (its CC levels, machine.ADC's
# reads of them, side_channel's supply) took the harness about 1.5 KB further (53,568 bytes measured
# against 52.1 before it), and the simulated esp32 and gc 0.7 KB: with a test's no_room.py, 68,480 bytes
# measured, within 80 less COMMAND_ROOM. A board booted again on a slot kept in a Wi-Fi outage, after the dice
# check's per-place levels (board.json check_above, the harness's own Board holds them), held 70,624 (CI), over
# that 69,632 by 1 KB: 84 leaves it 3 KB.
HARNESS_KB = 84
COMMAND_ROOM_KB = 12
# Both harnesses (run.py, serve.py) pad what they hold to this before the firmware boots
# (side_channel.ballast): the firmware gets the same heap from either. Unpadded, the real-time one held
# 38 KB and the stepped one 52 KB: the firmware had 14 KB more in doce sim than in the tests.
SHARE = "--share=%d" % ((HARNESS_KB - COMMAND_ROOM_KB) * 1024)


def heap_for(module):
    """micropython -X heapsize for a board on `module` ("wrover", "wroom"): its heap at 64 bits, and the harness's."""
    return "%dK" % (MODULE_HEAP_KB[module] * WORD_FACTOR + HARNESS_KB)


HEAP = heap_for("wrover")
# A board resets itself at boot only on a slot on trial that crashes or resets (firmware/slots.py MAX_TRIES,
# MAX_BOOTS), then boots its good slot: more resets in a row than that are a simulator fault, not a board's.
RESETS_AT_BOOT = 8
CHUNK = 1024  # the longest piece of a send the harness takes in one command line (run.py)
_images = {}  # rules name -> a fresh image, built once per process


def prepare_flash(folder, rules):
    """(temporary dir or None, folder, flash image path): a board's flash, kept in `folder`."""
    tmp = None if folder else tempfile.TemporaryDirectory(prefix="doce-sim-")
    folder = Path(folder or tmp.name)
    folder.mkdir(parents=True, exist_ok=True)
    flash = folder / "flash.img"
    if not flash.exists():
        if rules not in _images:
            _images[rules] = image.build(image.app_files(rules, chip="host"))  # native code for the unix port
        flash.write_bytes(_images[rules])
    else:
        check_flash(flash)
    return tmp, folder, flash


class FlashDamaged(RuntimeError):
    """A kept flash.img the board cannot boot from, in one line."""


def check_flash(flash):
    """A kept flash must be a LittleFS image of the simulator's size holding main.py: else the
    board would never come up (the unix port has no inisetup.py to format it)."""
    from ..files import read_limited
    try:
        data = read_limited(flash, image.BLOCK_SIZE * image.BLOCK_COUNT, "a simulated board's flash")
        if len(data) != image.BLOCK_SIZE * image.BLOCK_COUNT:
            raise ValueError("%d bytes, not %d" % (len(data), image.BLOCK_SIZE * image.BLOCK_COUNT))
        if "main.py" not in image.read(data):
            raise ValueError("no main.py on it")
    except Exception as e:  # littlefs's LittleFSError, or ours: the image is not a board's flash
        raise FlashDamaged("%s: the board's flash is damaged (%s); delete it (the game kept there is lost) "
                           "to start a fresh board" % (flash, str(e) or type(e).__name__)) from None


class SimError(RuntimeError):
    """The simulated board could not do what was asked (it is off, or it stopped)."""


# The supply a simulated board runs on, as its USB-C input's CC lines show it (revision B, J1;
# firmware/doce/supply.py): each line's voltage through the board's 5.1 kOhm Rd from a source's Rp
# to 5 V (USB Type-C specification, Rp for Default USB power, 1.5 A and 3.0 A: 56, 22 and 10 kOhm),
# on CC1, the line the cable joins (CC2 reads 0 V); "none": the devkit's micro-USB alone, a
# computer's port. The default keeps Wi-Fi and remote play working, as on a 1.5 A USB-C charger.
RD_KOHM = 5.1
SUPPLIES = {"none": None, "usb": 56.0, "1.5A": 22.0, "3A": 10.0}
SUPPLY = "1.5A"


def cc_volts(kind):
    """The CC line's volts from a source of `kind` (SUPPLIES), or 0 with none."""
    if kind not in SUPPLIES:
        raise SimError("no such supply: %s (one of %s)" % (kind, ", ".join(SUPPLIES)))
    rp = SUPPLIES[kind]
    return 0.0 if rp is None else 5.0 * RD_KOHM / (rp + RD_KOHM)


def cc_counts(volts, parts):
    """The mean read_u16 of a CC line at `volts` on this board's ESP32 (its ADC's Vref and INL: fields.Parts)."""
    from .fields import raw
    from ..physics import adc
    return adc.u16(raw(volts, parts))


class SimulatedBoard:
    """The verbs both simulators share: each is one thing a hand does to the dice on the
    table, worked out by the physics in `Hands` and told to the board by `_move`."""

    supply_kind = SUPPLY

    def supply(self, kind, volts=None):
        """The board on another supply (SUPPLIES: "none", "usb", "1.5A", "3A"), or its CC line at `volts`
        (a source anywhere in the specification's ranges). A running board reads it when Wi-Fi is next
        asked for (doce/net.py); it lasts through power cuts, as a charger stays plugged in."""
        volts = cc_volts(kind) if volts is None else float(volts)
        self.supply_kind, self.supply_volts = kind, volts
        self._write_supply()
        self._tell_supply({"do": "supply", "cc": self._supply_cc()})

    def _supply_cc(self):
        volts = getattr(self, "supply_volts", None)
        volts = cc_volts(self.supply_kind) if volts is None else volts
        return [cc_counts(volts, self.hands.scene.parts), 0]

    def _write_supply(self):
        (self.folder / "supply.json").write_text(json.dumps({"cc": self._supply_cc()}))

    def _tell_supply(self, cmd):
        raise NotImplementedError

    def _move(self, how, *args):
        raise NotImplementedError

    @property
    def pieces(self):
        """{cell: (piece, quarter turns)}: the dice on the table."""
        return self.hands.pieces

    def place(self, cell, piece, turn=0):
        """Put a die into its well: piece is 'white 4', 'black 1' or 'white blocker'."""
        return self._move("place", cell, piece, turn)

    def lift(self, cell):
        return self._move("lift", cell)

    def slide(self, start, end):
        """Lift the die on `start` out of its well and carry it across to `end`."""
        return self._move("slide", start, end)

    def cup(self, cell, strength=1.0, down="N"):
        """Drop a lone magnet into the magnet check's cup on `cell` (strength 0: take it out)."""
        return self._move("cup", cell, strength, down)

    def tilt(self, cell, degrees=3):
        """Leave the die on `cell` leaning on one edge, `degrees` off flat."""
        return self._move("tilt", cell, degrees)

    def hover(self, cell, mm):
        """Hold the die on `cell` `mm` above its well."""
        return self._move("hover", cell, mm)

    def drop(self, cell):
        """The die on `cell` drops back into its well (after tilt or hover)."""
        return self._move("settle", cell)

    def pass_over(self, cell, mm=8.0):
        """A die in a hand, `mm` above `cell`; clear_stray() takes it away."""
        return self._move("pass_over", cell, mm)

    def clear_stray(self):
        return self._move("clear_stray")

    def turn(self, cell, face, seconds_in_hand=0.003):
        """Pick the die on `cell` up a little, turn it to `face`, put it back. The default is
        a quick hand: three scans at the board's 1 ms pace, shorter than the debounce."""
        piece, turn = self.pieces[cell]
        self.hover(cell, 6)
        self.wait(seconds_in_hand)
        return self.place(cell, "%s %d" % (piece.split()[0], face), turn + 1)

    @property
    def led_of(self):
        """{cell: LED index}, from the board file."""
        return self.hands.spec["leds"]["squares"]

    def led(self, cell):
        """The index in leds() of the LED under `cell`."""
        return self.led_of[cell]

    def button(self, down):
        """A finger on the board's button (down) or off it."""
        raise NotImplementedError

    def press(self, seconds=0.1):
        """Press the board's button for `seconds` (3 s or more: a long press)."""
        self.button(True)
        self.wait(seconds)
        self.button(False)

    def break_sensor(self, cell, which="C", volts=0.0):
        """Sensor `which` (C, N, E, S or W) under `cell` fails, its output stuck at `volts`."""
        return self._move("break_sensor", cell, which, volts)

    # -- the PCB as soldered (sim/device/machine.py, Faults) --------------------------------------
    FAULTS = ("dead_sensor", "no_supply", "address_stuck", "address_swap", "open_channel", "short_channel",
              "mux_off", "led_break", "led_swap", "button", "led_fuse", "clear")

    def fault(self, kind, **where):
        """A part of the PCB soldered wrong, or failed; it stays through power cuts, as copper does.
          dead_sensor(channel)         its output at 0 V
          no_supply(group)             the group's sensors get no 3.3 V
          address_stuck(line, level)   multiplexer select line 0-3 held at 0 or 1
          address_swap(lines=[j, k])   two select lines crossed
          open_channel(channel)        a multiplexer input left unconnected
          short_channel(channel, to)   bridged to "gnd", "3v3" or another channel
          mux_off(group)               the group's multiplexer never enabled
          led_break(led)               the chain's data stops before LED `led` (chain index)
          led_swap(leds=[i, j])        two LEDs in each other's places
          button(stuck)                "pressed" or "open"
          led_fuse()                   the LED supply's fuse latched off by a transient: the strip
                                       dark until the firmware takes LED_POWER low (not copper: a
                                       power cut resets it)
          clear                        a sound board again"""
        if kind not in self.FAULTS:
            raise SimError("no such fault: %s (one of %s)" % (kind, ", ".join(self.FAULTS)))
        faults = [] if kind == "clear" else self._faults() + ([] if kind == "led_fuse" else [dict(where, kind=kind)])
        (self.folder / "faults.json").write_text(json.dumps(faults))
        self._tell_fault(dict(where, do="fault", kind=kind))

    def noise(self, counts):
        """Each read's noise, +-`counts` peak (board.json physics.adc.noise_counts by default): an ADC
        noisier than the board file says."""
        self._tell_fault({"do": "noise", "level": int(counts)})

    def no_room(self, modules):
        """From the next power-on, on every one: importing each module (a full name, doce.remote), or
        calling each function (doce.remote:Remote.attach), runs out of heap this many times before it
        fits ({module or module:function: failures}; for a function, a list of the calls that fail,
        counted from 1; {} to end it; sim/device/no_room.py)."""
        (self.folder / "no_room.json").write_text(json.dumps(modules))

    def _faults(self):
        path = self.folder / "faults.json"
        return json.loads(path.read_text()) if path.exists() else []

    def _tell_fault(self, cmd):
        raise NotImplementedError


class SimBoard(SimulatedBoard):
    """A simulated board stepped scan by scan: time passes only when asked (`wait`, `run`),
    and a hand's place, lift and slide wait for the board to settle unless told not to."""

    def __init__(self, folder=None, rules="standard", module=DEFAULT_MODULE, seed=1, ticks=None, supply=SUPPLY,
                 settle=True):
        """seed: which board and dice, as built within their tolerances (None: all nominal);
        module: the ESP32 module, whose heap the firmware gets ("wrover", "wroom": MODULE_HEAP_KB);
        ticks: the board's time.ticks_ms at each power-on (they wrap at 2**30, as on an ESP32);
        supply: what its USB-C input has (SUPPLIES);
        settle=False: return before the board's first scans (as power_on), so one that stops at boot is seen."""
        cc_volts(supply)
        self.supply_kind = supply
        self._tmp, self.folder, self.flash = prepare_flash(folder, rules)
        self.heap = heap_for(module)
        self.env = dict(os.environ, DOCE_SIM_MODULE=module, **({} if ticks is None else {"DOCE_SIM_TICKS": str(ticks)}))
        self.events = []
        self.scan_faults = []  # tracebacks of scans that raised (a board says each in an `error` event, plays on)
        self.power_was_cut = False
        self.resets = 0  # times the board reset itself (firmware/slots.py: a slot on trial given up)
        self.stopped = False  # it said at boot why it cannot play, and sits at the REPL (doce/esp32.py start)
        self.console = []  # what the device printed besides replies
        self.hands = Hands(seed)  # the dice on the table: they stay put through a power cut
        self.process = None
        spec = json.loads(BOARD_FILE.read_text())
        self.debounce = spec["sensing"]["debounce_scans"]
        self.quiet = spec["sensing"]["quiet_wait_scans"]
        self.period_ms = spec["sensing"]["scan_period_ms"]
        self.start(settle)

    # -- the process ------------------------------------------------------------

    def start(self, settle=True):
        levels = self.folder / "levels.json"
        levels.write_text(json.dumps(self.hands.levels()))
        self._write_supply()
        for _ in range(RESETS_AT_BOOT):
            self.process = subprocess.Popen(
                [tool("micropython"), "-X", "heapsize=" + self.heap, str(SIM_DEVICE / "run.py"), str(self.flash),
                 str(levels), SHARE],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
            ready = self._read()
            if not ready.get("reset"):
                break
            self.resets += 1  # the board reset itself as it booted (firmware/slots.py): it boots again
            self.stop()
        else:
            raise SimError("the simulated board reset itself at each of %d boots" % RESETS_AT_BOOT)
        self.stopped = bool(ready.get("stopped"))
        if settle:
            self.settle()  # the board scans once it is on, before anyone moves a die

    def _read(self):
        """The next reply. Anything else the device prints (a traceback) is kept in .console."""
        while True:
            line = self.process.stdout.readline()
            if not line:
                err = self.process.stderr.read()
                self.process.wait()
                raise SimError("the simulated board stopped:\n%s%s" % ("".join(self.console[-40:]), err))
            if line.startswith("{"):
                break
            self.console.append(line)
        reply = json.loads(line)
        self.events.extend(reply.pop("events", []))
        self.scan_faults.extend(reply.pop("scan_faults", []))
        if reply.get("garbled"):  # on a real host these would be lost or misread
            raise SimError("the board's link carried lines that are not its JSON: %r" % reply["garbled"][:4])
        return reply

    def command(self, **cmd):
        if cmd["do"] == "send" and not cmd.get("paced"):
            self._send_ahead(cmd)
        self.process.stdin.write(json.dumps(cmd) + "\n")
        self.process.stdin.flush()
        reply = self._read()
        if "error" in reply and reply["error"] and cmd["do"] != "calibrate":
            raise SimError(reply["error"])
        if "power_cut" in reply:  # the board runs nothing more (run.py power_gone): it is ended here
            self.process.kill()
            self.process.wait()
            self.power_was_cut = True
        elif reply.get("reset") or reply.get("rebooted"):  # it reset itself (firmware/slots.py, a trial's
            # deadline; doce/update.py, an update switched to; a reboot command): it boots again
            self.resets += 1 if reply.get("reset") else 0
            self.stop()
            self.start(settle=False)
        return reply

    def _send_ahead(self, cmd):
        """Put all but the last CHUNK of a long send on the wire first, a command each: the clock
        stands still between commands, so the board sees one burst, and the harness never reads a
        line longer than a chunk (run.py, WIRE_BYTES)."""
        field = "line" if "line" in cmd else "hex"
        data, step = cmd[field], CHUNK * (2 if field == "hex" else 1)
        while len(data) > step:
            self.command(do="send", more=True, **{field: data[:step]})
            data = data[step:]
        cmd[field] = data

    def power_on(self, settle=True):
        """Power on again (after cut_power, or as a reset). The dice stay where they are.
        settle=False: return before the board's first scans."""
        self.stop()
        self.power_was_cut = False
        self.start(settle)

    def stop(self):
        if self.process:
            if self.process.poll() is None:
                self.process.stdin.close()
                self.process.wait(timeout=30)
            self.process.stdout.close()
            self.process.stderr.close()
        self.process = None

    def close(self):
        self.stop()
        if self._tmp:
            self._tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- hands ------------------------------------------------------------------

    def run(self, scans=1, skip_ms=0):
        """Let the board scan `scans` times (each after the pause its loop takes: scan_period_ms, or
        idle_scan_period_ms at rest, doce/esp32.py loop), after `skip_ms` of its time in which nothing happens."""
        return self.command(do="run", scans=scans, skip_ms=skip_ms)

    def wait(self, seconds):
        """Let `seconds` of simulated time pass (a scan's period at least), scanning at the board's own pace."""
        return self.command(do="run", scans=0, ms=max(self.period_ms, round(seconds * 1000)))

    def settle(self):
        """Scan until a change has settled: the debounce and a little more."""
        return self.run(self.debounce + 2)

    def _move(self, how, *args, settle=False):
        if how == "slide":
            self.command(do="frames", frames=self.hands.slide(*args))
            return self.settle()
        changes = getattr(self.hands, how)(*args)
        if changes:
            self.command(do="sense", set=changes)
        return self.settle() if settle else None

    def place(self, cell, piece, turn=0, settle=True):
        return self._move("place", cell, piece, turn, settle=settle)

    def lift(self, cell, settle=True):
        return self._move("lift", cell, settle=settle)

    def button(self, down):
        self.command(do="button", down=bool(down))

    def _tell_fault(self, cmd):
        if self.process and self.process.poll() is None:
            self.command(**cmd)

    _tell_supply = _tell_fault

    # -- power ------------------------------------------------------------------

    def cut_power(self):
        """The power goes now. The dice stay where they are."""
        if self.process and self.process.poll() is None:
            self.process.kill()
        self.stop()
        self.power_was_cut = True

    def cut_power_at_flash_write(self, after=1, torn=True):
        """The power goes during the `after`-th flash write from now (torn: that write half done)."""
        return self.command(do="cut_power", after=after, torn=torn)

    # -- what the board shows -----------------------------------------------------

    def leds(self):
        """[(r, g, b)] per LED index, as the strip last received them."""
        return [tuple(c) for c in self.command(do="leds")["leds"]]

    def state(self):
        """The game as the board reports it to a host (docs/protocol.md, `state`)."""
        return self.command(do="state")["state"]

    def debug_state(self):
        """What only a simulator can see: the board as cell codes, the scanner's readings,
        the LED writes and flash operations so far."""
        return self.command(do="debug_state")["state"]

    def ticks(self):
        """The board's time.ticks_ms now."""
        return self.command(do="ticks")["ticks"]

    def take_events(self):
        taken, self.events = self.events, []
        return taken
