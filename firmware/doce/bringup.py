"""The board check (`doce check board`): the assembled board's parts tested on the board itself,
in a maker's first hour. Loaded only when a host asks for it (the link's `board_check`), never
at boot: while it runs the game waits, untouched, and the lights are the check's.

The board measures; the host names the parts (doce_host/board_check.py reads the circuit,
hardware/doce.net, for every designator). One step a request:

  start    into the check: the game waits, the strip goes dark, its supply switched off and on
           again (a fuse latched off by a transient is reset: doce/ledpower.py)
  sensors  every multiplexer input's mean reading and its spread, its group switched on (every
           address walked, all four select lines driven at each); then each input read again just
           after SENSE, the multiplexers' joined outputs, was left low and high (by the lowest- and
           the highest-reading input: one tied to ground, a sensor): an input nothing drives reads
           what SENSE held. And SENSE with every group switched off, which should hold it too.
  read     every input's mean reading only (a die put down: which inputs it moved)
  led      LED `index` of the chain lit alone; with "from", it and every LED after it, dim
  button   the button as read now, and whether it was seen down, and up, since last asked
  storage  a file written, read back and removed; the file system's size and free space
  network  Wi-Fi and the broker, when set up (doce/net.py)
  end      back to the game, as it was

The sensors step takes about a quarter of a second (128 inputs x 42 reads of 30-40 us, and 256
group switches of power_on_us), well inside the watchdog's 5 s.
"""

import os
import time

from .arguments import BadArgument, CommandError
from .lights import OFF, scaled
from .ticks import ticks_diff

READS = 32  # reads averaged per input: the ADC's noise (+-250 counts peak) down to some 18 counts rms
AFTER_READS = 4  # just after SENSE was left high or low: enough to see a floating input follow two sensors
WHITE = (255, 255, 255)
TEST_FILE = "check.tmp"
# No request this long and the computer is gone (killed, unplugged, its terminal closed): the board
# goes back to the game by itself. A maker's answer at the terminal (an LED walk) takes far less.
QUIET_MS = 300000
sleep_us = getattr(time, "sleep_us", lambda us: time.sleep(us / 1e6))  # CPython has no sleep_us


class BringUp:
    def __init__(self, app):
        self.app = app
        self.hall = app.sensors  # doce.sensors.HallArray: its ADC and pins
        self.down = self.seen_down = self.seen_up = False
        self.heard = None  # ticks of the step after the last request (None: one came since)

    # -- the mode --------------------------------------------------------------------------

    def start(self):
        if self.app.led_power is not None:
            self.app.led_power.restart()
        self.dark()
        return {"leds": self.app.board.led_count, "groups": self.app.board.groups,
                "per_group": self.app.board.channels_per_group, "reads": READS}

    def step(self, now_ms):
        """A scan of the board while in the check: the sensors are read as at play (the game sees
        nothing of it), the host is answered, the network keeps going."""
        app = self.app
        if self.heard is None:
            self.heard = now_ms
        elif ticks_diff(now_ms, self.heard) > QUIET_MS:
            app.emit({"event": "warning", "message": "the board check ended: no word from the computer in %d minutes"
                      % (QUIET_MS // 60000)})
            return leave(app)
        app.scanner.scan()
        if app.link:
            app.link.poll(now_ms)
        if app.net:
            app.net.poll(now_ms)

    def button(self, down):
        self.down = down
        if down:
            self.seen_down = True
        else:
            self.seen_up = True

    # -- the sensors -----------------------------------------------------------------------

    def switch(self, group, address):
        """Group `group`'s sensors and multiplexer on, at input `address`: the address is set
        while every group is off, so no other input drives SENSE meanwhile."""
        hall = self.hall
        hall.group_enable(0)
        for bit in range(len(hall.group_select)):
            hall.group_select[bit]((group >> bit) & 1)
        self.at(address)
        hall.group_enable(1)
        sleep_us(hall.power_on_us)  # the group's sensors power up

    def at(self, address):
        mux = self.hall.mux_select
        for bit in range(len(mux)):
            mux[bit]((address >> bit) & 1)

    def means(self, reads=READS, ranges=None):
        """Every input's mean reading, group by group; and into `ranges`, if given, the spread of its
        reads (most less least: the ADC's noise on this board, as the host needs it)."""
        board, adc = self.app.board, self.hall.adc
        per = board.channels_per_group
        out = [0] * board.channels
        for group in range(board.groups):
            self.switch(group, 0)
            for address in range(per):
                self.at(address)
                total, most, least = 0, 0, 65535
                for _ in range(reads):
                    v = adc()
                    total += v
                    if v > most:
                        most = v
                    if v < least:
                        least = v
                out[group * per + address] = total // reads
                if ranges is not None:
                    ranges[group * per + address] = most - least
        self.hall.group_enable(0)
        return out

    def after(self, ref, channel):
        """Read `ref` (SENSE driven to its level), then the mean of AFTER_READS of `channel` just after
        its group is switched on: an input nothing drives reads what SENSE held, read after read."""
        per = self.app.board.channels_per_group
        self.switch(ref // per, ref % per)
        adc = self.hall.adc
        adc()
        self.switch(channel // per, channel % per)
        total = 0
        for _ in range(AFTER_READS):
            total += adc()
        return total // AFTER_READS

    def sensors(self):
        board, hall = self.app.board, self.hall
        ranges = [0] * board.channels
        means = self.means(ranges=ranges)
        # SENSE left low and high: by the lowest-reading input (an unused one, tied to ground:
        # hardware/schematic.py) and the highest. With no grounded input to read (the last group's
        # multiplexer off, a select line that never reaches them) these are two sensors, some 2,000
        # counts apart by the DRV5055's quiescent spread: enough still to see an input follow them.
        low = min(range(board.channels), key=lambda ch: means[ch])
        high = max(range(board.channels), key=lambda ch: means[ch])
        after_low = [self.after(low, ch) for ch in range(board.channels)]
        after_high = [self.after(high, ch) for ch in range(board.channels)]
        off = []
        for ref in (high, low):  # every group off: SENSE should hold what it was left at
            self.after(ref, ref)
            hall.group_enable(0)
            total = 0
            for _ in range(AFTER_READS):
                total += hall.adc()
            off.append(total // AFTER_READS)
        hall.group_enable(0)
        return {"means": means, "ranges": ranges, "after_low": after_low, "after_high": after_high,
                "low": [low, means[low]], "high": [high, means[high]], "off": off, "reads": READS}

    # -- the lights and the button -----------------------------------------------------------

    def dark(self):
        lights = self.app.lights
        for i in range(self.app.board.led_count):
            lights.pixels[i] = OFF
        lights.show()

    def led(self, index, onwards=False):
        """LED `index` lit alone, white at the game's brightest; onwards: it and every one after it,
        dim (the whole chain lit stays within the strip's power budget, board.json "power")."""
        board, lights = self.app.board, self.app.lights
        colour = scaled(WHITE, 1 if onwards else 8, board.brightness_cap)
        for i in range(board.led_count):
            lights.pixels[i] = colour if i == index or onwards and i > index else OFF
        lights.show()

    def button_state(self):
        seen = {"down": self.down, "pressed": self.seen_down, "released": self.seen_up}
        self.seen_down = self.seen_up = False
        return seen

    # -- storage and network -------------------------------------------------------------------

    def storage(self):
        # 4 KB (a flash block) in 256-byte pieces: a board mid-match has no 4 KB in one piece to spare
        data = bytes(range(256))
        back = bytearray(256)
        error = None
        try:
            with open(TEST_FILE, "wb") as f:
                for _ in range(16):
                    f.write(data)
            with open(TEST_FILE, "rb") as f:
                same = all(f.readinto(back) == 256 and back == data for _ in range(16)) and not f.read(1)
            if not same:
                error = "a file read back differs from what was written"
            os.remove(TEST_FILE)
        except OSError as e:
            error = "a file could not be written and read back (%s)" % e
        result = {"storage_error": error}
        try:
            st = os.statvfs(".")  # the volume the app runs from: "/" on the ESP32 (the simulator mounts it elsewhere)
            result["size_kb"] = st[0] * st[2] // 1024
            result["free_kb"] = st[0] * st[3] // 1024
        except (OSError, AttributeError):
            pass
        return result

    def network(self):
        net = self.app.net
        if net is None:
            return {"set_up": "net.json" in os.listdir()}
        status = net.status()
        return {"set_up": True, "wifi": status["wifi"], "broker": status["broker"], "fault": status["fault"]}


STEPS = ("start", "sensors", "read", "led", "button", "storage", "network", "end")


def leave(app):
    """Back to the game, as it was."""
    app.bringup = None
    app.pressed_at = app.released_at = None  # presses in the check were the check's
    app.controller.changed = True  # the game's lights again
    app.controller.reconcile(app.scanner.settled)  # the game as it was, against the board as it is


def command(link, request):
    """The link's board_check: one step (see the top)."""
    step = request.get("step")
    app = link.app
    if step not in STEPS:
        raise BadArgument("step is one of " + ", ".join(STEPS))
    if step == "start":
        if app.checking:
            raise CommandError("not_free", "the dice check is on: leave it first")
        if app.bringup is None:
            app.bringup = BringUp(app)
        app.bringup.heard = None
        return app.bringup.start()
    if step == "end":
        if app.bringup is not None:
            leave(app)
        return None
    check = app.bringup
    if check is None:
        raise CommandError("no_check", "start the board check first (the board leaves one that hears "
                           "nothing for %d minutes)" % (QUIET_MS // 60000))
    check.heard = None
    if step == "sensors":
        return check.sensors()
    if step == "read":
        return {"means": check.means()}
    if step == "led":
        index = request.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < app.board.led_count:
            raise BadArgument("index is an LED of the chain, 0 to %d" % (app.board.led_count - 1))
        check.led(index, request.get("from") is True)
        return None
    if step == "button":
        return check.button_state()
    if step == "storage":
        return check.storage()
    return check.network()
