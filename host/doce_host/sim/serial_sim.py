"""The simulated board in real time, on a serial path, like a board on USB.

    with SerialSim() as sim:
        print(sim.path)                  # /dev/pts/N: give it to doce, mpremote, pyserial
        sim.place("c3", "white 4")       # a hand puts a die down
        sim.cut_power(); sim.power_on()  # the dice stay; the board boots from its flash

The board runs its real main.py (host/doce_host/sim/device/serve.py) in the MicroPython
unix port. This object bridges the path to it, carries the world's commands to it over
a UNIX socket, and owns the power: a cut ends the process, power-on starts it again, and
a reset from the board (or mpremote's soft reset) restarts it by itself.
"""

import json
import os
import queue
import select
import socket
import subprocess
import threading
import time
import tty

from ..core_time import Deadline
from ..paths import BOARD_FILE, SIM_DEVICE, tool
from . import DEFAULT_MODULE, SHARE, SUPPLY, SimError, SimulatedBoard, cc_volts, heap_for, prepare_flash
from .hands import Hands

RAW_PROMPT = b"raw REPL; CTRL-B to exit\r\n"
BYTE_S = 10 / 115200  # one byte on the line at 115200 baud, 8N1 (ports/esp32/uart.h: MICROPY_HW_UART_REPL_BAUD)
# What the USB-to-UART chip holds on its way to the board: the CP2102's 640-byte transmit
# buffer (CP2102/9 datasheet, features). Past it, USB makes the host's write wait.
BRIDGE_BUFFER = 640
BOOT_S = 30  # of a core: MicroPython starts serve.py and it connects in about a second of one
STARTING = "the app has not started yet"  # sim/device/side_channel.py's answer while main.py builds it
LED_COUNT = json.loads(BOARD_FILE.read_text())["leds"]["count"]


def packed(changes):
    """[channel, level, ...] as the hex of 3 bytes a channel (side_channel.act, "sense"): a board's
    heap is shared with the harness here, and a list of some 200 numbers needed 2 KB of it in one
    piece, which a real-time board's fragmented heap did not always have."""
    return b"".join(bytes((changes[i], changes[i + 1] >> 8, changes[i + 1] & 0xFF))
                    for i in range(0, len(changes) - 1, 2)).hex()


class SerialSim(SimulatedBoard):
    on_scan_fault = None  # called with each scan fault's traceback as it comes (tests/conftest.py)

    def __init__(self, folder=None, rules="standard", module=DEFAULT_MODULE, seed=1, mac=None, ticks=None,
                 supply=SUPPLY):
        """module: the ESP32 module, whose heap the firmware gets (as SimBoard's);
        mac: this board's Wi-Fi MAC, 12 hex digits (sim/device/network.py), for a room of them;
        ticks: its time.ticks_ms at each power-on (they wrap at 2**30, as on an ESP32);
        supply: what its USB-C input has (doce_host.sim SUPPLIES)."""
        cc_volts(supply)
        self.supply_kind = supply
        self._tmp, self.folder, self.flash = prepare_flash(folder, rules)
        extra = {"DOCE_SIM_MODULE": module}
        if mac:
            extra["DOCE_SIM_MAC"] = mac
        if ticks is not None:
            extra["DOCE_SIM_TICKS"] = str(ticks)
        self.env = dict(os.environ, **extra)
        self.heap = heap_for(module)
        self.hands = Hands(seed)  # the dice on the table: they stay put through a power cut
        self.hands_lock = threading.Lock()
        self.replies = queue.Queue()
        self.process = None
        self.device = None  # our end of the device's serial line
        self.control = None
        self.wanted_on = False
        self.closing = False
        self.boots = 0
        self.generation = 0  # counts boots; a restart is for the boot it saw end
        self.reset_for = None  # the boot whose firmware asked for a reset, once its last bytes are out
        self.app_running = False
        self.raw_repl = False  # whether the host last put the board in the raw REPL
        self.at_repl = False  # whether the app has been stopped (Ctrl-C) since it booted
        self.hide_until = None  # output to hold back until this marker (a raw-REPL reboot)
        self.held = b""
        self.heard = []  # the events the board sent, as they passed by on the line
        self.scan_faults = []  # tracebacks of scans that raised (a board says each in an `error` event, plays on)
        self.heard_seq = 0  # the last event number that passed by since the board booted
        self.line = b""
        self.to_board = bytearray()  # the host's bytes, waiting for their turn on the line
        self.line_free = 0.0  # when the line to the board can carry the next byte
        self.moved_at = None  # when the last move's readings went to the board (time.monotonic()): its die landed
        self.control_path = str(self.folder / "control.sock")
        if os.path.exists(self.control_path):
            os.unlink(self.control_path)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.control_path)
        self.listener.listen(1)
        self.listener.settimeout(0.2)  # a look at the board's process between waits (_accepted)
        self.user, user_side = os.openpty()  # the path people open is user_side's
        tty.setraw(user_side)
        os.set_blocking(self.user, False)  # output nobody reads is lost, as on a serial line
        self.user_side = user_side
        self.path = os.ttyname(user_side)
        self.lock = threading.Lock()
        self.bridge = threading.Thread(target=self._bridge, daemon=True)
        self.bridge.start()
        self.power_on()

    # -- power ------------------------------------------------------------------------

    def power_on(self):
        with self.lock:
            self.wanted_on = True
            self.raw_repl, self.hide_until, self.held = False, None, b""  # a fresh start
            if self.device is None:
                self._drain_host()  # sent while it was off
            self._boot()

    def _boot(self, app=True):
        device, device_side = os.openpty()
        tty.setraw(device_side)
        levels = self.folder / "levels.json"
        levels.write_text(json.dumps(self.hands.levels()))
        self._write_supply()
        self.process = subprocess.Popen(
            [tool("micropython"), "-X", "heapsize=" + self.heap, "-i", str(SIM_DEVICE / "serve.py"),
             str(self.flash), self.control_path, str(levels), SHARE] + ([] if app else ["--no-app"]),
            stdin=device_side, stdout=device_side, stderr=subprocess.DEVNULL, close_fds=True, env=self.env)
        os.close(device_side)
        os.set_blocking(device, False)  # the bridge never waits on the board: it drops, or holds back
        self.device = device
        self.control = self._accepted()
        self.boots += 1
        self.heard_seq = 0  # a new boot numbers its events from 1 again
        self.generation += 1
        self.app_running = app  # without the app nothing scans, so the world waits for it
        self.at_repl = not app  # a stray Ctrl-A while the app runs is just a byte to it
        while not self.replies.empty():  # a late reply from before belongs to nobody now
            self.replies.get_nowait()
        threading.Thread(target=self._listen, args=(self.control, self.generation), daemon=True).start()

    def _accepted(self):
        """The booting board's control channel: it connects once MicroPython has started serve.py, a
        second or so of a core's work; SimError if the process ends first or takes BOOT_S of a core."""
        deadline = Deadline(BOOT_S)
        while True:
            try:
                return self.listener.accept()[0]
            except socket.timeout:
                if self.process.poll() is not None or deadline.passed():
                    raise SimError("the simulated board did not start (MicroPython %s)" % (
                        "ended with code %s" % self.process.returncode if self.process.poll() is not None
                        else "took more than %d s of a core's time" % BOOT_S)) from None

    def cut_power(self):
        """The power goes now. The dice stay where they are."""
        with self.lock:
            self.wanted_on = False
            self._halt()
            self._drain_host()
            self.to_board = bytearray()

    def _drain_host(self):
        """Drop what the host wrote that the bridge has not taken yet: it went to a board now off."""
        try:
            while os.read(self.user, 4096):
                pass
        except OSError:
            pass  # nothing more to read (non-blocking) or the path closed

    def _halt(self):
        self.app_running = False
        if self.process:
            self.process.kill()
            self.process.wait()
            self.process = None
        if self.device is not None:
            os.close(self.device)
            self.device = None
        if self.control:
            self.control.close()
            self.control = None

    def _restart(self, generation, soft):
        """Boot again after boot `generation` ended: a reset the firmware asked for starts
        the app; a soft reset (the process ending by itself) in the raw REPL comes back
        to the raw REPL without the app, as on a board."""
        with self.lock:
            if not self.wanted_on or self.closing or generation != self.generation:
                return  # the power went, or someone has booted it since
            self._halt()
            self._to_host(b"soft reboot\r\n")
            raw = soft and self.raw_repl
            self._boot(app=not raw)
            if raw:
                self.hide_until = RAW_PROMPT  # the unix port's banner is not a board's
                os.write(self.device, b"\x01")

    def close(self):
        self.closing = True
        self.cut_power()
        self.bridge.join(timeout=5)
        os.close(self.user)
        os.close(self.user_side)
        self.listener.close()
        if self._tmp:
            self._tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the serial line and the control channel ---------------------------------------

    def _bridge(self):
        """Copy bytes between the path people open and the board's serial line: towards the
        board at the baud rate (the board's serial_port.py drops what its ring cannot hold),
        taking from the host only what the USB-to-UART chip could hold."""
        while not self.closing:
            device = self.device
            readers = [] if device is None else [device]
            if len(self.to_board) < BRIDGE_BUFFER:
                readers.append(self.user)
            try:
                ready, _, _ = select.select(readers, [], [], 0.002 if self.to_board else 0.05)
            except (OSError, ValueError):
                continue  # a descriptor closed under us: power went off, or we are closing
            for fd in ready:
                boot, on = self.generation, self.device is not None  # before the read: see below
                try:
                    data = os.read(fd, BRIDGE_BUFFER - len(self.to_board) if fd == self.user else 4096)
                except OSError:
                    data = b""
                if fd == self.user:
                    # To a board that is off, bytes are lost, not kept for its next boot: the board
                    # must have been on, the same boot, from before the read (power_on drains what
                    # came while it was off) to after it; checked and kept under the power's lock,
                    # so a cut and a boot cannot come between the two
                    with self.lock:
                        if on and self.device is not None and self.generation == boot:
                            self._from_host(data)
                elif data:
                    self._to_host(data)
                elif self.process and self.process.poll() is not None:
                    self._restart(self.generation, soft=True)  # it ended by itself: a soft reset
            if self.reset_for is not None and device not in ready and self._quiet(device):
                generation, self.reset_for = self.reset_for, None
                self._restart(generation, soft=False)
            self._to_board()

    @staticmethod
    def _quiet(device):
        """Whether the board's line has nothing more to give: a reset waits for its last bytes, as
        ESP-IDF's does (esp_system_reset_modules_on_exit flushes the UART FIFOs before the reset)."""
        try:
            return device is None or not select.select([device], [], [], 0.05)[0]
        except (OSError, ValueError):
            return True

    def _from_host(self, data):
        if b"\x01" in data or b"\x02" in data or b"\x03" in data:
            for b in data:  # Ctrl-C stops the app; only then does Ctrl-A enter the raw REPL
                if b == 3:
                    self.at_repl = True
                elif b == 1 and self.at_repl:
                    self.raw_repl = True
                elif b == 2:
                    self.raw_repl = False
        if not self.to_board:
            self.line_free = max(self.line_free, time.monotonic())  # the line was idle till now
        self.to_board += data

    def _to_board(self):
        """Put on the line the bytes whose time has come, one every BYTE_S."""
        device = self.device
        if not self.to_board or device is None:
            return
        now = time.monotonic()
        due = min(len(self.to_board), int((now - self.line_free) / BYTE_S))
        if due <= 0:
            return
        try:
            sent = os.write(device, bytes(self.to_board[:due]))
        except BlockingIOError:
            sent = 0  # the board is not reading (its REPL is busy): hold them, as USB would
        except OSError:
            sent = due  # the board's line went away mid-write: the power is off, the bytes lost
        del self.to_board[:sent]
        self.line_free = self.line_free + sent * BYTE_S if sent == due else now

    def _to_host(self, data):
        data = self._shown(data)
        self._overhear(data)
        try:
            os.write(self.user, data)
        except OSError:
            pass  # nobody is reading the path and its buffer is full: the bytes are lost

    def _overhear(self, data):
        """Keep the events going past, so the simulator's own view can show them."""
        self.line += data
        while b"\n" in self.line:
            line, self.line = self.line.split(b"\n", 1)
            if line.startswith(b'{"') and b'"event"' in line:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                self.heard.append(event)
                if isinstance(event, dict) and isinstance(event.get("seq"), int):
                    self.heard_seq = max(self.heard_seq, event["seq"])

    def take_events(self):
        """The events the board sent since last asked, as they passed by on the line."""
        heard, self.heard = self.heard, []
        return heard

    def _shown(self, data):
        if self.hide_until is None:
            return data
        self.held += data
        at = self.held.find(self.hide_until)
        if at < 0:
            return b""
        data, self.held, self.hide_until = self.held[at:], b"", None
        return data

    def _listen(self, conn, generation):
        pending = b""
        while True:
            try:
                data = conn.recv(4096)
            except OSError:
                return
            if not data:
                return
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if "reset" in message:
                    self.reset_for = generation  # the bridge restarts it once the line is quiet
                elif "power_cut" in message:
                    threading.Thread(target=self.cut_power, daemon=True).start()
                elif "scan_fault" in message:  # unasked: serve.py's Scans
                    self.scan_faults.append(str(message["scan_fault"]))
                    if self.on_scan_fault:
                        self.on_scan_fault(self.scan_faults[-1])
                elif "app_stopped" in message:  # Ctrl-C: the board is at its REPL
                    self.app_running = False
                    self.replies.put({"error": "the app is not running"})  # for a question in flight
                else:
                    self.replies.put(message)

    def _ask(self, cmd, timeout=10):
        """One command on the control channel, and its reply within `timeout` s of a core's time;
        SimError if the board is off (or at its REPL, where nothing scans) or goes down before it answers."""
        control = self.control
        if not self.app_running or control is None:
            raise SimError("the simulated board is off" if not self.wanted_on else "the app is not running")
        deadline = Deadline(timeout)
        try:
            control.sendall(json.dumps(cmd).encode() + b"\n")
            while True:
                try:
                    reply = self.replies.get(timeout=min(0.2, deadline.left()))
                    break
                except queue.Empty:
                    if deadline.passed():
                        raise
        except (OSError, queue.Empty):
            raise SimError("the simulated board went down before it answered") from None
        if reply.get("error"):
            raise SimError(reply["error"])
        return reply

    # -- hands --------------------------------------------------------------------------

    def _move(self, how, *args):
        """One hand's move, worked out in the world and told to the board. Hands take
        turns (the page's clicks may come at once); the board hears them in order. With
        the board off, the dice are moved all the same, and it feels them when it boots."""
        with self.hands_lock:
            changes = getattr(self.hands, how)(*args)
            if not self.app_running or not changes:
                return
            try:
                self.moved_at = time.monotonic()  # the fields worked out: the die is down now, the board scans it next
                if how == "slide":
                    self._ask({"do": "frames", "frames": changes})
                else:
                    self._ask({"do": "sense", "packed": packed(changes)})
            except SimError:
                if self.app_running:
                    raise  # the board refused it
                # it went down meanwhile: the dice are where the hands left them

    def leds(self):
        """(r, g, b) per LED as the strip last received them; all dark while the power is off."""
        try:
            reply = self._ask({"do": "leds"})
        except SimError:
            return [(0, 0, 0)] * LED_COUNT
        return [tuple(c) for c in reply["leds"]]

    def caught_up(self):
        """Whether the board has read the dice where the hands left them, and every event it has
        numbered has passed by on the line since: what a view waits for before it shows a move.
        False while the board is off or still booting."""
        try:
            reply = self._ask({"do": "state"})
        except SimError:
            return False
        state = reply["state"]
        reads = dict(state["board"], **state["seen"])  # seen: where the sensors differ from the game
        world = {square: piece for square, (piece, _) in self.hands.pieces.items()}
        return {sq: p for sq, p in reads.items() if p is not None} == world and reply["said"] <= self.heard_seq

    def state(self):
        """The game as the board reports it to a host (docs/protocol.md, `state`)."""
        return self._ask_app("state")

    def debug_state(self):
        """What only a simulator can see (see SimBoard.debug_state)."""
        return self._ask_app("debug_state")

    def _ask_app(self, what, timeout=10):
        """Ask the firmware's app, waiting (at most `timeout` s of a core's time) while main.py is
        still building it."""
        deadline = Deadline(timeout)
        while True:
            try:
                return self._ask({"do": what})["state"]
            except SimError as e:
                if str(e) != STARTING or deadline.passed():
                    raise
            time.sleep(0.02)

    def button(self, down):
        self._ask({"do": "button", "down": bool(down)})

    def _tell_fault(self, cmd):
        if self.app_running:  # else the board reads faults.json as it boots
            self._ask(cmd)

    _tell_supply = _tell_fault  # (supply.json, as it boots)

    def wifi(self, up):
        """The room's Wi-Fi goes off the air (False), or comes back (True)."""
        self._ask({"do": "wifi", "up": up})

    def cut_power_at_flash_write(self, after=1, torn=True):
        self._ask({"do": "cut_power", "after": after, "torn": torn})

    def stall(self, seconds):
        """The firmware's loop stuck for `seconds`, inside a scan. True if it then carried on,
        False if the board reset meanwhile (its watchdog: doce/esp32.py WATCHDOG_MS)."""
        try:
            self._ask({"do": "stall", "ms": int(seconds * 1000)}, timeout=seconds + 10)
        except SimError:
            return False
        return True

    def heap_now(self):
        """The heap after a collection, as SimBoard's command(do="heap") gives it: alloc and free, the
        harness's share (harness, bytes) and the simulator's modules it loaded before the firmware (drivers)."""
        return self._ask({"do": "heap"})

    def wait(self, seconds):
        """Let `seconds` pass: in real time, as the board runs."""
        time.sleep(seconds)
