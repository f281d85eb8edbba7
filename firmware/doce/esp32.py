"""Start the board on an ESP32 (MicroPython): real pins, ADC and NeoPixels.

Also used by the simulator, which puts its own `machine` and `neopixel` modules
on the path: these same lines then drive simulated hardware.
"""

import gc
import json
import os
import select
import sys
import time
from array import array

import esp
import machine
import neopixel

from . import board as boardfile
from .app import App, load_rules
from .heap import HEAP_FREE_AT_BOOT, grow_heap, has_psram
from .heap import free as heap_free
from .link import Link

# The CPU clock the board runs at, and the one make bench computes its times at. ESP32_GENERIC
# boots at ESP-IDF's default 160 MHz (its build leaves out sdkconfig.240mhz); machine.freq sets
# both ends of the power manager's range, so the clock stays there (ports/esp32/modmachine.c).
CPU_HZ = 240000000

# The watchdog: a loop held this long (a bug, a driver that never returns) resets the board, which
# comes back from its journal. The longest wait a scan has on purpose is far shorter: a
# calibration's 32 full reads (about 0.3 s), a flash sector erase (0.4 s at most, W25Q32 tSE).
WATCHDOG_MS = 5000
# Nothing stops an ESP32's watchdog (ports/esp32/machine_wdt.c): once the app is stopped for the
# REPL (Ctrl-C: mpremote, doce flash --app-only), it is given a day, not 5 s.
REPL_WATCHDOG_MS = 24 * 3600 * 1000

# After IDLE_AFTER_MS of quiet scans with the USB link idle, the board sleeps
# board.idle_scan_period_ms between scans instead of scan_period_ms, and the first change
# brings the full pace back. A die landing on an idle board waits that much longer for its
# light, so the idle period is charged in make bench's die-to-light time (goal 40 ms).
IDLE_AFTER_MS = 1000
# After a scan that met a fault: a fault at every scan then fills the link with its events no faster.
FAULT_PAUSE_MS = 100
# A slot whose faults hold the board still for a quarter of any FAULTED_MS (MOST_FAULTS of them, each pausing
# FAULT_PAUSE_MS) is not healthy, match or not: the board goes back to the slot before it, where there is one
# (firmware/slots.py give_up). Why time, not a share of scans: a good scan takes 1-2 ms and a fault 100 ms, so a
# version failing 1 scan in 3 stood still 97 % of the time and lit a die after 208 ms, against 6 ms (r43f S1);
# counted in any window, not one opened by a fault, so bursts cannot straddle it (r43f S2: 45 faults every 10 s
# were kept, a die lit after 4.5 s). A quarter is 2.5 s of 10 lost, far past a passing fault (a bad read, a
# glitch: a scan or a few), so a rare one never rolls a board back (1 in 400 scans is a fifth at the
# simulator's 1 ms scans, fewer on the chip). The window is as long as a trial's deadline waits for a match
# to end (slots.RECHECK_MS): a slot that faults at every scan is given up after MOST_FAULTS of them, 2.5 s.
FAULTED_MS = 10000
MOST_FAULTS = FAULTED_MS // FAULT_PAUSE_MS // 4


class BadBoardFile(Exception):
    pass


# Said at boot where ESP-IDF's heap shows no PSRAM (doce/heap.py has_psram), before the game is built. On
# internal RAM alone the Python heap stays at 112 KiB, and the game the USB link plays holds some 100 KB
# of it after boot (the simulator's 144,800 B at 64 bits, over the 1.38-1.49 measured: doce_host.sim
# WORD_FACTOR): less free than a die's landing must find (doce/app.py HEADROOM), so a collection would
# fall in a landing; Wi-Fi and TLS would not fit beside it at all (docs/building.md).
NO_PSRAM = ("no PSRAM on this board (a WROOM, or a WROVER whose PSRAM was not found at boot): the game needs "
            "the WROVER's (docs/building.md), and does not start; its journal is kept")


class NoPsram(Exception):
    pass


def usb_link():
    """The USB serial port (the REPL's UART), as the link reads and writes it."""
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    return link_on(sys.stdin, sys.stdout, poller)


def link_on(stdin, stdout, poller, reboot=machine.reset):
    """The link on the REPL's streams. It writes stdout.buffer, byte for byte: a text write to
    sys.stdout is "cooked" (mp_hal_stdout_tx_strn_cooked sends each \n as \r\n), a byte the
    link's count of the UART's FIFO would not know of."""
    return Link(None, stdin.buffer, stdout.buffer, poller, reboot)


def net_command(link, request):
    """wifi, mqtt and net over the link: doce/net.py, loaded only when first used. A change starts the
    network as the boot does (doce/offline.py: a start that fails waits for a retry)."""
    from .net import command
    from .offline import start_network
    return command(link, request, start_network)


def build(new_link=None, emit=None):
    """The App on this board's hardware, talking over the link new_link() makes (default: the USB port's),
    made once the board can play: its 8 KB of buffers after the heap's growth, as a board without PSRAM
    could not take them before it is told so."""
    machine.freq(CPU_HZ)
    # ESP-IDF's own log lines go to the same UART, at any moment: one would land inside a line of
    # the link. osdebug(None) only goes back to the boot level, ERROR (ports/esp32/modesp.c).
    esp.osdebug(0, esp.LOG_NONE)
    if not has_psram():
        raise NoPsram(NO_PSRAM)
    # The Python heap grown now, not in a landing, and first: each new area held by a pin of its own
    # (doce/heap.py), not by what the game or the network make as they start, some of it garbage soon.
    kept = grow_heap(HEAP_FREE_AT_BOOT)
    try:
        board = boardfile.load()
    except (OSError, ValueError) as e:  # doce flash installs only a board file it checked
        raise BadBoardFile("board.json: %s; the board cannot start on it" % e)
    pins = board.pins
    out = machine.Pin.OUT
    adc = machine.ADC(machine.Pin(pins["sensor_adc"]))
    if hasattr(adc, "atten"):
        adc.atten(machine.ADC.ATTN_11DB)  # the full 0-3.3 V range
    mux = [machine.Pin(n, out, value=0) for n in pins["mux_select"]]
    group = [machine.Pin(n, out, value=0) for n in pins["group_select"]]
    enable = machine.Pin(pins["group_enable"], out, value=0)
    from .sensors import HallArray
    sensors = HallArray(adc.read_u16, mux, group, enable, board)
    strip = neopixel.NeoPixel(machine.Pin(pins["leds"], out), board.led_count)
    show, power = strip.write, None
    if "led_power" in pins:  # revision B: the strip's supply switch, off until the first frame
        from .ledpower import LedPower
        power = LedPower(machine.Pin(pins["led_power"], out, value=0), strip.write)
        show = power.write
    supply = None
    if board.supply_cc_counts:  # revision B: the USB-C input's CC lines, read now and when Wi-Fi is asked for
        from .supply import Supply
        reads = []
        for n in pins["supply_cc"]:
            cc = machine.ADC(machine.Pin(n))
            if hasattr(cc, "atten"):
                cc.atten(machine.ADC.ATTN_11DB)
            reads.append(cc.read_u16)
        supply = Supply(reads, board.supply_cc_counts)
        supply.read()
    network = "net.json" in os.listdir()
    if network:  # loaded with the game: what catches the network's own failures must not be one (doce/offline.py)
        from .offline import start_network
    if emit is not None:  # events to a collector, and no link (the simulator's lockstep mode)
        app = App(board, sensors, strip, show, load_rules(), emit)
        app.led_power, app.supply, app.heap_kept = power, supply, kept
        return app
    link = (new_link or usb_link)()
    app = App(board, sensors, strip, show, load_rules(), link.event)
    app.led_power, app.supply, app.heap_kept = power, supply, kept
    link.app = app
    link.network = net_command
    app.link = link
    if network:  # Wi-Fi set up, and maybe a friend's match: as far as the heap lets them
        start_network(app, link)
    kept += grow_heap(HEAP_FREE_AT_BOOT)  # and again if the game and the network took it under that: pinned as well
    gc.collect()
    app.free_after_boot = heap_free()  # for doce bench --port
    return app


def start(new_link=None, out=None):
    """build(), or None once one line on the link's stream (the boot's only event, seq 1) has said why
    the board cannot play: a board without PSRAM, a board file copied by hand, or the game out of heap
    (the network's part is doce/offline.py's). The simulator boots through here too (sim/device/run.py),
    so it fails as a board does."""
    out = out or sys.stdout.buffer  # the link's stream (the USB port's), where the link is not made
    try:
        app = build(new_link)
        app.trial = on_trial(app)
        return app
    except (NoPsram, BadBoardFile) as e:  # one line, and the REPL for whoever puts it right
        out.write(json.dumps({"event": "error", "message": str(e), "seq": 1}).encode() + b"\n")
    except MemoryError as e:  # the game itself did not fit: one line, not a traceback, and the journal
        gc.collect()  # untouched for the next power-on
        out.write(json.dumps({"event": "error", "message": "out of memory starting the game (the board file, the "
                              "rules, the game from its journal) (MemoryError: %s): the board cannot play; its "
                              "journal is kept. Power it off and on" % e, "seq": 1}).encode() + b"\n")
    return None


def on_trial(app):
    """The app's slot (firmware/slots.py): a slot given up at this boot is reported; on trial, the
    health check the scans make (doce/trial.py, loaded only then), else None."""
    import slots
    told, lost = slots.reported()
    state = slots.state  # None where main.py chose no slot (a test's board): version 0, as an unknown one
    app.version = slots.version_of(state["slot"]) if state else 0
    app.update_ready = stored_update(slots)
    if lost:  # the slot pointer rebuilt from the slots (firmware/slots.py rebuilt)
        app.emit({"event": "warning", "message": lost})
    if told:
        app.emit({"event": "update", "stage": "rolled_back", "slot": told[0], "reason": told[1]})
    if not slots.on_trial():
        return None
    from .trial import Trial
    return Trial(app)


def stored_update(slots):
    """The slot of an update checked and stored before a reboot, waiting for the end of a match
    (doce/update.py), or None. Only a slot that holds one whole (its header and version) and newer than
    the version this board gave up: update.json may outlive a power cut in the slot's emptying, or the
    switch to it (doce/app.py)."""
    try:
        with open("update.json") as f:
            stored = json.load(f)
        slot = stored.get("slot") if stored.get("ready") is True else None
        if slot not in slots.SLOTS or slot == slots.state["slot"]:
            return None
        os.stat(slot + "/header")  # doce/update.py HEADER: written once the manifest is checked
        version = slots.version_of(slot)
        return slot if version > max(slots.given_up(), slots.version_of(slots.state["slot"])) else None
    except (OSError, ValueError, AttributeError):
        return None


class Scans:
    """The loop's one scan: the app's step, then the button. A fault is reported in one `error` event and
    play goes on, as a board at a café table must. The simulator scans through this too
    (sim/device/run.py), so a fault it meets is met as on a board, not as a traceback."""

    def __init__(self, app, button):
        self.app = app
        self.button = button
        self.fault = False  # the last scan's
        self.fault_at = array("i", bytes(4 * MOST_FAULTS))  # the last MOST_FAULTS faults' times, a ring
        self.faults = 0  # in it, up to MOST_FAULTS
        self.oldest = 0  # its oldest's place once full, the next to be written
        self.trial = app.trial  # a slot on trial: its health check, until it passes
        import slots
        state = slots.state  # a good slot's boot counted (slots.counted): scans, without a fault, before it is up
        self.coming = slots.UP_SCANS if state is not None and state.get("booted") and self.trial is None else 0
        self.proving = state is not None and state.get("unproven") is True  # (slots.UNPROVEN_MS)
        self.unproven_at = None  # the first scan it was watched at
        self.reached = False  # on the broker since: proven once the board is clear (_prove)

    def scan(self, now):
        self.fault = False
        with self:  # (not try/except ... as e: its two handlers would put the frame on the heap; doce/mqtt.py)
            self.app.step(now)
            self.app.button(self.button() == 0, now)  # pressed: pulled up, the switch goes to ground
            if self.trial is not None and self.trial.check(now):
                self._trial_over()
            if self.proving:
                self._prove(now)
        if not self.fault:
            if self.coming:
                self.coming -= 1
                if not self.coming:
                    self._up()
            return
        self.fault_at[self.oldest] = now
        self.oldest = (self.oldest + 1) % MOST_FAULTS
        self.faults = min(self.faults + 1, MOST_FAULTS)
        if self.faults == MOST_FAULTS and time.ticks_diff(now, self.fault_at[self.oldest]) < FAULTED_MS:
            self.faults = 0
            self._stuck()

    def _stuck(self):
        """MOST_FAULTS faults within FAULTED_MS: back to the slot before, on trial or once marked good (the board
        resets; firmware/slots.py). With none (doce flash's app), the board plays on saying each fault."""
        import slots
        slots.give_up("%d of its scans failed within %d s, the board held still a quarter of the time"
                      % (MOST_FAULTS, FAULTED_MS // 1000))

    def _up(self):
        """A good slot's boot is up and scanning: no longer counted (firmware/slots.py up)."""
        import slots
        slots.up()

    def _prove(self, now):
        """A slot marked good in a Wi-Fi outage (firmware/slots.py UNPROVEN_MS): proven on the broker (once the board
        is clear: a pointer write, doce/trial.py check says its cost), or given
        back after UNPROVEN_MS of play without it, once no match is in play and the board is clear. Its version is
        not recorded as given up, but update.key's floor has passed it: what comes again is a newer version."""
        import slots
        net = self.app.net
        if net is not None and net.up:
            self.reached = True
        if self.reached:  # its pointer write waits for a clear board, as marking it good did (doce/trial.py check)
            if not self.app.at_the_board():
                self.proving = False
                slots.proven()
        elif self.unproven_at is None:
            self.unproven_at = now
        elif (time.ticks_diff(now, self.unproven_at) >= slots.UNPROVEN_MS and not self.app.in_play()
              and self.app.clear()):  # nor reset under the last match's pieces, or a player setting up
            self.proving = False  # (a match is never stopped: boards kept in one outage would reset together)
            slots.give_up("not on the broker after %d min of play since it was kept in a Wi-Fi outage (the outage "
                          "lasted, or its own Wi-Fi code is broken; a newer version may be sent)"
                          % (slots.UNPROVEN_MS // 60000), refuse=False)

    def _trial_over(self):
        """The slot came up healthy: its check let go."""
        import slots
        from .loaded import forget
        self.proving = slots.state.get("unproven") is True
        self.trial = self.app.trial = None
        forget("doce.trial")
        if self.app.net is not None:
            self.app.net.status_due = True  # its retained status says trial no more

    def __enter__(self):
        return self

    def __exit__(self, kind, e, trace):
        if isinstance(e, Exception):
            self.fault = True
            self.app.emit({"event": "error", "message": "%s: %s" % (type(e).__name__, e)})
            return True
        return False


def run():
    try:  # (start() too: on a counted boot the watchdog runs from before it, firmware/slots.py guard)
        app = start()
        if app is None:  # said: the REPL, for whoever puts it right
            return
        loop(app)
    except KeyboardInterrupt:  # Ctrl-C: the REPL has the board now
        at_repl()
        raise


def at_repl():
    """The app stopped by Ctrl-C: the watchdog (the loop's, or a counted boot's TRIAL_MS) given REPL_WATCHDOG_MS, and
    a trial's deadline stopped, which would give the slot up and reset the board under whoever is at the REPL (the
    same as firmware/slots.py at_repl, which a board's slots.py from before it lacks: slots._timer it has)."""
    machine.WDT(timeout=REPL_WATCHDOG_MS)
    import slots
    if slots._timer is not None:
        slots._timer.deinit()


def loop(app):
    scans = Scans(app, machine.Pin(app.board.pins["button"], machine.Pin.IN, machine.Pin.PULL_UP))
    period = app.board.scan_period_ms
    idle = app.board.idle_scan_period_ms
    link = app.link
    busy_at = time.ticks_ms()  # when something last moved
    watchdog = machine.WDT(timeout=WATCHDOG_MS)  # fed once a scan
    usual = 1 << 29  # us a quiet step takes: the shortest, drifting up slowly (more dice, more reads)
    while True:
        watchdog.feed()
        now = time.ticks_ms()
        started = time.ticks_us()
        scans.scan(now)
        if scans.fault:
            time.sleep_ms(FAULT_PAUSE_MS)
        if app.quiet():  # while a square moves, scan again at once: a sleep only delays its light
            if link.backlog or link.n:  # a host talking: answer at full pace
                busy_at = now
            pause = period if time.ticks_diff(now, busy_at) < IDLE_AFTER_MS else idle
            # A step longer than a usual quiet one by its excess (a collection at rest,
            # doce/app.py: 5-15 ms, make bench) has kept the next read waiting already: the
            # sleep is shortened by the excess, so a die landing meanwhile waits for one or the
            # other, not both. User-class __del__ cannot tell of a collection: v1.28.0 allocates
            # instances without the finaliser bit (py/objtype.c mp_obj_new_instance; py/gc.c
            # gc_sweep calls __del__ only on such blocks), and weakref is not in the ESP32 build.
            spent = time.ticks_diff(time.ticks_us(), started)
            excess = max(0, spent - usual)
            usual = spent if spent < usual else usual + (excess >> 4)
            time.sleep_ms(max(0, pause - excess // 1000))
        else:
            busy_at = now
