"""The LED strip's supply switch (revision B): the TPS22918's ON pin on a GPIO, board.json
pins.led_power.

Off from reset: a pull-down holds ON low until the firmware drives it (hardware/README.md,
LED supply), so a strip latched at full white by noise on its data line before the firmware
runs (31 x 60 mA = 1.86 A) draws nothing. The first frame switches it on and waits for the
supply to rise before it is sent: the TPS22918's soft start takes 16 ms to reach 5 V (CT 10 nF:
0.32 x CT + 13.7 us/V, TI SLVSD76 8.3.3), and a frame sent before the LEDs (3.7 V at least,
WS2812B-2020 datasheet) and the level shifter (4.5 V, SN74AHCT1G125 datasheet) are up is lost.
"""

import time

RISE_MS = 20  # the 16 ms rise, with CT's 10 % and room


class LedPower:
    """`write()` sends the strip's frame with `send`, switching the supply on with `pin` first."""

    def __init__(self, pin, send, sleep_ms=None):
        self.pin = pin
        self.send = send
        self.sleep_ms = sleep_ms or time.sleep_ms
        self.on = False
        pin(0)

    def write(self):
        if not self.on:
            self.pin(1)
            self.sleep_ms(RISE_MS)
            self.on = True
        self.send()

    def off(self):
        """The strip dark and drawing nothing, until the next frame."""
        self.pin(0)
        self.on = False
