"""Start the board on a Linux computer in the box (CPython with Adafruit Blinka).

The same App as on the ESP32: the multiplexer and group pins are Blinka pins (the
board file's "linux_pins"), the ADC is an MCP3008 on SPI, and the LEDs go through
adafruit-circuitpython-neopixel. Run it with `python -m doce.linux` in a folder
holding board.json and rules.doct (the journal and calibration are kept there).
"""

import json
import time

import board as pins  # Blinka's pin names for this computer
import digitalio
import neopixel

from . import board as boardfile
from .app import App, load_rules


def emit(event):
    print(json.dumps(event), flush=True)


def output(name):
    """A Blinka pin as the callable the firmware drives: pin(1), pin(0)."""
    io = digitalio.DigitalInOut(getattr(pins, name))
    io.direction = digitalio.Direction.OUTPUT
    return lambda value: setattr(io, "value", bool(value))


def mcp3008(chip_select):
    """The sensor ADC: channel 0 of an MCP3008 on SPI0, read as 0-65535."""
    import busio
    from adafruit_mcp3xxx.analog_in import AnalogIn
    from adafruit_mcp3xxx.mcp3008 import MCP3008, P0
    spi = busio.SPI(clock=pins.SCK, MISO=pins.MISO, MOSI=pins.MOSI)
    channel = AnalogIn(MCP3008(spi, digitalio.DigitalInOut(getattr(pins, chip_select))), P0)
    return lambda: channel.value


def pressed(name):
    """The button as a callable: true while pressed (pulled up, the switch goes to ground)."""
    io = digitalio.DigitalInOut(getattr(pins, name))
    io.switch_to_input(pull=digitalio.Pull.UP)
    return lambda: not io.value


def build(adc, pin=output, strip=neopixel.NeoPixel, led_pin=None, emit=emit):
    """The App on Blinka. `adc`, `pin` and `strip` are there so a test can pass its own."""
    from .sensors import HallArray
    board = boardfile.load()
    names = boardfile.load_spec()["linux_pins"]
    sensors = HallArray(adc, [pin(n) for n in names["mux_select"]], [pin(n) for n in names["group_select"]],
                        pin(names["group_enable"]), board)
    # Brightness 1.0: the firmware scales its own colours, so both targets send the same bytes.
    pixels = strip(led_pin or getattr(pins, names["leds"]), board.led_count, brightness=1.0,
                   auto_write=False, pixel_order=neopixel.GRB)
    return App(board, sensors, pixels, pixels.show, load_rules(), emit)


def run():
    names = boardfile.load_spec()["linux_pins"]
    app = build(mcp3008(names["sensor_adc_cs"]))
    button = pressed(names["button"])
    start = time.monotonic()
    while True:
        now = int((time.monotonic() - start) * 1000)
        app.step(now)
        app.button(button(), now)
        if app.quiet():  # while a square moves, scan again at once
            time.sleep(app.board.scan_period_ms / 1000)


if __name__ == "__main__":
    run()
