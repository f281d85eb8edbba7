"""Start the board on an ESP32 (MicroPython): real pins, ADC and NeoPixels.

Also used by the simulator, which puts its own `machine` and `neopixel` modules
on the path: these same lines then drive simulated hardware.
"""

import os
import select
import sys
import time

import machine
import neopixel

from . import board as boardfile
from .app import App, load_rules
from .link import Link

# After IDLE_AFTER_MS of quiet scans with the USB link idle, the board sleeps
# board.idle_scan_period_ms between scans instead of scan_period_ms, and the first change
# brings the full pace back. A die landing on an idle board waits that much longer for its
# light, so the idle period is charged in make bench's die-to-light time (goal 40 ms).
IDLE_AFTER_MS = 1000


def usb_link():
    """The USB serial port (the REPL's), as the link reads and writes it."""
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    return Link(None, sys.stdin.buffer, sys.stdout, poller, machine.reset)


def build(link=None, emit=None):
    """The App on this board's hardware, talking over `link` (default: the USB port)."""
    board = boardfile.load()
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
    if emit is not None:  # events to a collector, and no link (the simulator's lockstep mode)
        return App(board, sensors, strip, strip.write, load_rules(), emit)
    link = link or usb_link()
    app = App(board, sensors, strip, strip.write, load_rules(), link.event)
    link.app = app
    app.link = link
    if "net.json" in os.listdir():  # Wi-Fi set up (doce/net.py, loaded only then)
        from .net import start
        if start(app, link) and "remote.json" in os.listdir():  # paired with a friend's board
            from .remote import resume
            resume(app)
    return app


def run():
    app = build()
    emit = app.emit
    button = machine.Pin(app.board.pins["button"], machine.Pin.IN, machine.Pin.PULL_UP)
    period = app.board.scan_period_ms
    idle = app.board.idle_scan_period_ms
    link = app.link
    busy_at = time.ticks_ms()  # when something last moved
    while True:
        now = time.ticks_ms()
        try:
            app.step(now)
            app.button(button() == 0, now)  # pressed: pulled up, the switch goes to ground
        except Exception as e:  # a board at a café table reports a fault and plays on
            emit({"event": "error", "message": "%s: %s" % (type(e).__name__, e)})
            time.sleep_ms(100)
        if app.quiet():  # while a square moves, scan again at once: a sleep only delays its light
            if link.queue or link.n:  # a host talking: answer at full pace
                busy_at = now
            time.sleep_ms(period if time.ticks_diff(now, busy_at) < IDLE_AFTER_MS else idle)
        else:
            busy_at = now
