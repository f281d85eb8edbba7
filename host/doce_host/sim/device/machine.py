"""A simulated `machine` module: the board's PCB around the ESP32, for the unix port.

Pins and the ADC behave as the firmware drives them on the real board: the ADC
reads the channel that the multiplexer select pins and the group decoder pick,
and nothing (0) when no group is switched on. The values come from the World.
"""


import time

pins = {}  # GPIO number -> current level
world = None  # set by the simulator: a world.World
spec = None  # the board file's pins
power = None  # the board file's power budget (hardware/board.json "power")
on_scan = None  # the real-time simulator's hook, called once per scan
on_reset = None  # how the real-time simulator resets the board
scans = 0  # scans so far (reads of the first channel): the board's pace, for a simulator's benchmarks
big_ints = 0  # values the firmware made that are big ints on the chip (simbinascii.py counts them)


# Hardware time: what the ESP32's drivers block the firmware for. The real-time simulator
# (serve.py) sets real_time and pays it in sleeps; the lockstep harness keeps its clock at
# scan_period_ms a scan and only counts it here, in `owed_us`, for anyone who asks.
# One ADC.read_u16 on an ESP32 (ports/esp32/machine_adc.c -> adc.c, adc_oneshot_read): 30-40 us
# measured on ESP32s (shared/notes/toolchain.md); the slow end, for a worst case.
ADC_READ_US = 40
real_time = False
owed_us = 0  # charged but not yet slept (real time), or the running total (lockstep)
spent_us = 0  # everything charged since start, in either mode


def charge(us):
    """The firmware waits `us` microseconds for the hardware."""
    global owed_us, spent_us
    spent_us += us
    owed_us += us
    # The unix port's sleep_us overshoots by tens of microseconds (a timer's slack), so
    # sleep in lumps of 1 ms or more and let the next lump make up for the overshoot.
    if real_time and owed_us >= 1000:
        _pay()


def _pay():
    global owed_us
    start = time.ticks_us()
    time.sleep_us(owed_us)
    owed_us -= time.ticks_diff(time.ticks_us(), start)
    _watch()


slept_us = 0  # the firmware's sleeps since start (time.sleep_ms): with spent_us, the time it has waited


def waited_us():
    """Time the firmware has waited on the hardware or slept, since start: what the LED supply's rise
    is measured against (a firmware that switches it on and sends at once waits nothing)."""
    return spent_us + slept_us


# The LED strip's supply (revision B, board.json pins.led_power): a TPS22918 load switch whose ON
# pin the firmware drives; a pull-down holds it off from reset. Off, the strip is dark and takes no
# frame; switched on, its output rises at the soft start's slew, 0.32 x CT + 13.7 us/V with CT =
# 10 nF (TI SLVSD76 8.3.3): 3.2 ms a volt, so it reaches the level shifter's least supply, 4.5 V
# (SN74AHCT1G125 datasheet; the WS2812B-2020 runs from 3.7 V), 14.5 ms after ON goes high. A frame
# sent before is lost. A board file without the pin (revision A) has the strip always powered.
LED_RISE_US = 14500
led_power = None  # its GPIO, or None
led_power_since = None  # waited_us() when ON went high, None while off
# The fuse before it, a TPS2553-1 on the same pin (its EN): latched off by an overcurrent, it stays
# off, whatever ON does, until EN goes low (TI SLVS841, FAULT response). Set by faults.py's "led_fuse".
fuse_latched = False


def leds_powered():
    if led_power is None:
        return True
    return not fuse_latched and led_power_since is not None and waited_us() - led_power_since >= LED_RISE_US


def _switch_leds(level):
    global led_power_since, fuse_latched
    if not level:
        led_power_since = None
        fuse_latched = False  # EN low resets the latch
    elif led_power_since is None:
        led_power_since = waited_us()


# The task watchdog (ports/esp32/machine_wdt.c): machine.WDT(timeout=ms) starts it, a second call
# sets a new timeout (esp_task_wdt_reconfigure), feed() resets it, and nothing stops it. A firmware
# held longer than the timeout resets the board (trigger_panic); the simulator looks at every wait
# of the firmware's it sees in real time, and at `stall`, its loop stuck on purpose.
watchdog_ms = 0  # 0: never started
fed_us = 0


class WDT:
    def __init__(self, id=0, timeout=5000):
        global watchdog_ms
        if id != 0:
            raise ValueError
        if timeout <= 0:
            raise ValueError("WDT timeout too short")
        watchdog_ms = timeout
        self.feed()

    def feed(self):
        global fed_us
        fed_us = time.ticks_us()


def _watch(stuck_us=0):
    """Reset once the firmware has held the watchdog past its timeout: a loop stuck on purpose
    (`stuck_us`, stall's) exactly; otherwise by the wall clock, stretched by the host's load. A
    process that waits for a core is not the firmware holding on (a board check's step missed 5 s at
    load 24 on two cores, and the board reset mid-check), and only a busy host stretches it."""
    if real_time and watchdog_ms:
        held = time.ticks_diff(time.ticks_us(), fed_us)
        limit = watchdog_ms * 1000
        if stuck_us > limit or held > limit and held > limit * _host_busy():
            reset(WDT_RESET)


def _host_busy():
    """The host's load per core over the last minute, at least 1 (/proc; read only when the
    watchdog is past its time)."""
    try:
        with open("/proc/loadavg") as f:
            load = float(f.read().split()[0])
        with open("/proc/stat") as f:
            cores = sum(1 for line in f if line.startswith("cpu")) - 1
        return max(1.0, load / max(1, cores))
    except (OSError, ValueError, IndexError):
        return 1.0


def stall(ms):
    """The firmware's loop is stuck for `ms` (the simulator's side channel asks, from inside a scan)."""
    start = time.ticks_ms()
    end = time.ticks_add(start, ms)
    while time.ticks_diff(end, time.ticks_ms()) > 0:
        time.sleep_ms(min(50, time.ticks_diff(end, time.ticks_ms())))
        _watch(time.ticks_diff(time.ticks_ms(), start) * 1000)


def sleep(us):
    """The firmware sleeps `us` microseconds (time.sleep_ms, in real time): slept at once, with the
    hardware time still owed, in one sleep of the unix port's; what it overshoots, the next owes less."""
    global owed_us, slept_us
    slept_us += us
    owed_us += us
    if owed_us > 0:
        _pay()


def attach(the_world, board, board_power):
    """Wire the simulated PCB: `board` a doce.board.Board, `board_power` its board file's "power"
    (what the supply can give, for the simulated brown-out: network.py)."""
    global world, spec, selected, enabled, power, led_power, led_power_since, fuse_latched
    world = the_world
    spec = board.pins
    power = board_power
    selected = enabled = 0
    led_power = spec.get("led_power")
    led_power_since = None
    fuse_latched = False
    _roles.clear()
    for i, n in enumerate(spec["mux_select"]):
        _roles[n] = 1 << i
    for i, n in enumerate(spec["group_select"]):
        _roles[n] = 16 << i
    _roles[spec["group_enable"]] = -1
    if led_power is not None:
        _roles[led_power] = -2
    for n, level in pins.items():  # pins set before
        _route(n, level)
    return world


# What the multiplexer select pins and the group decoder pick, kept up to date as the firmware
# drives them (each read then costs no look at the pins): channel group * 16 + input, and
# whether the decoder's enable is on.
selected = 0
enabled = 0
# The ADC pin's net (SENSE: the eight multiplexers' joined outputs) holds its last level while nothing
# drives it: every multiplexer off, or an input left open. Its capacitance, the eight CD74HC4067s'
# common pins (C_IO common, about 50-90 pF each off: CD74HC4067 datasheet SCHS209, 6.5) and the
# ESP32's pin, is some 500 pF; their off-leakage (typically nA, 0.1 uA at most at 25 C: 6.5, I_IZ)
# moves it a few mV in a millisecond, so a read just after another reads that one's level again.
sense = 0
_roles = {}  # GPIO number -> its weight in `selected` (1, 2, 4, 8 the inputs; 16, 32, 64 the group), -1: enable,
# -2: the LED supply's switch


def _route(n, level):
    global selected, enabled
    role = _roles.get(n)
    if role:
        if role == -2:
            _switch_leds(level)
        elif role < 0:
            enabled = level
        elif level:
            selected |= role
        else:
            selected &= ~role


class Pin:
    IN = 1
    OUT = 3
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        if value is not None:
            self(value)
        elif pull == Pin.PULL_UP:
            pins.setdefault(id, 1)
        else:
            pins.setdefault(id, 0)

    def __call__(self, value=None):
        global selected, enabled
        if value is None:
            return forced.get(self.id, pins[self.id])
        level = 1 if value else 0
        pins[self.id] = level
        role = _roles.get(self.id)  # _route(self.id, level), written out: a select pin changes every read
        if role:
            if role == -2:
                _switch_leds(level)
            elif role < 0:
                enabled = level
            elif level:
                selected |= role
            else:
                selected &= ~role

    value = __call__
    on = lambda self: self(1)  # noqa: E731
    off = lambda self: self(0)  # noqa: E731


# The USB-C input's CC lines (revision B, board.json pins.supply_cc): the mean read_u16 the simulated
# supply gives each (the host works it out from the ADC model: doce_host.sim SUPPLIES), 0 with none.
# Read without noise: the sensors' noise stream stays as it was, and the firmware's thresholds hold a
# read's noise already (tests/board/test_supply_cc.py reads them with it).
supply_cc = {}  # GPIO -> mean read_u16


class ADC:
    ATTN_0DB = 0
    ATTN_11DB = 3

    def __init__(self, pin, atten=None):
        self.pin = pin
        # a USB-C input's CC line, not SENSE (the Linux target's test passes no pin)
        if spec is not None and pin is not None and pin.id in spec.get("supply_cc", ()):
            self.read_u16 = lambda: charge(ADC_READ_US) or supply_cc.get(pin.id, 0)

    def atten(self, value):
        pass

    def read_u16(self):
        global owed_us, spent_us, scans, sense
        spent_us += ADC_READ_US  # charge(ADC_READ_US), written out: it is the most made call
        owed_us += ADC_READ_US
        if real_time and owed_us >= 1000:
            _pay()
        channel = selected
        if enabled and channel == 0:  # the first sensor of a scan: the world moves on
            scans += 1
            if on_scan:
                on_scan()
            if timers:
                _run_timers()
        if faults is not None and faults.any:
            return faults.read(channel, enabled)
        if not enabled:  # every multiplexer off: the ADC pin floats, holding what it was last driven to
            return world.noisy(sense)
        sense = world.reading(channel)
        return sense


# The CPU clock. ESP32_GENERIC boots at ESP-IDF's default, 160 MHz: its build takes sdkconfig.base and
# sdkconfig.ble only (ports/esp32/boards/ESP32_GENERIC/mpconfigboard.cmake), not sdkconfig.240mhz, and
# ESP-IDF's CONFIG_ESP_DEFAULT_CPU_FREQ_MHZ is 160 (components/esp_system/port/soc/esp32/Kconfig.cpu).
# machine.freq takes 20, 40, 80, 160 or 240 MHz and nothing else (ports/esp32/modmachine.c).
cpu_hz = 160000000
FREQS_MHZ = (20, 40, 80, 160, 240)


def freq(hz=None):
    global cpu_hz
    if hz is None:
        return cpu_hz
    if hz // 1000000 not in FREQS_MHZ:
        raise ValueError("frequency must be 20MHz, 40MHz, 80Mhz, 160MHz or 240MHz")
    cpu_hz = hz // 1000000 * 1000000


forced = {}  # GPIO number -> the level a fault holds it at, whatever drives it (Faults.button)


faults = None  # the PCB's faults (faults.py, loaded when the simulator solders one in): None, a sound board


# machine.Timer, one-shot (firmware/slots.py's trial deadline): on the ESP32 its callback is scheduled from
# the timer's interrupt (ports/esp32/machine_timer.c, mp_sched_schedule) and runs in the main task between
# bytecodes; here it runs at the first scan's first read at or after its time, so at most a scan late.
# clock_ms: the board's milliseconds since power-on (run.py's simulated clock; serve.py's real time).
clock_ms = None
timers = []


def _now_ms():
    return clock_ms() if clock_ms else time.ticks_ms()


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id, **kw):
        self.due = None
        self.callback = None
        if kw:
            self.init(**kw)

    def init(self, mode=ONE_SHOT, period=-1, callback=None):
        if mode != Timer.ONE_SHOT:
            raise ValueError("the simulator has one-shot timers only")
        self.deinit()
        self.due = _now_ms() + period
        self.callback = callback
        timers.append(self)

    def deinit(self):
        if self in timers:
            timers.remove(self)


def _run_timers():
    now = _now_ms()
    for t in timers[:]:
        if now >= t.due:
            t.deinit()
            t.callback(t)


# Why the board last started, as MicroPython v1.28.0 says it (ports/esp32/modmachine.c
# mp_machine_reset_cause, from esp_reset_reason()): ESP_RST_POWERON and ESP_RST_BROWNOUT are PWRON;
# the watchdogs WDT; ESP_RST_SW (machine.reset's esp_restart) and ESP_RST_PANIC HARD; SOFT only after a
# soft reset (Ctrl-D at the REPL). The board's reset leaves its cause in a file beside its flash image
# for the next boot, as the chip keeps it in an RTC register; without one the board was powered on.
PWRON_RESET, HARD_RESET, WDT_RESET, DEEPSLEEP_RESET, SOFT_RESET = 1, 2, 3, 4, 5


def _cause_file():
    import sys
    return sys.argv[1] + ".reset" if len(sys.argv) > 1 else None


def _read_cause():
    import os
    path = _cause_file()
    try:
        with open(path) as f:
            cause = int(f.read())
        os.remove(path)
        return cause
    except (OSError, TypeError, ValueError):
        return PWRON_RESET


_cause = _read_cause()


def reset_cause():
    return _cause


def leave_cause(cause=HARD_RESET):
    """The board resets itself: the next boot reads why."""
    path = _cause_file()
    if path:
        with open(path, "w") as f:
            f.write(str(cause))


def reset(cause=HARD_RESET):
    leave_cause(cause)
    if on_reset:
        on_reset()
    raise SystemExit("reset")


def idle():
    pass

