"""The LED strip's supply switch (revision B): the TPS22918's ON pin on a GPIO, board.json
pins.led_power.

Off from reset: a pull-down holds ON low until the firmware drives it (hardware/README.md,
LED supply), so a strip latched at full white by noise on its data line before the firmware
runs (31 x 60 mA = 1.86 A) draws nothing. The first frame switches it on and waits for the
supply to rise before it is sent: the TPS22918's soft start takes 16 ms to reach 5 V (CT 10 nF:
0.32 x CT + 13.7 us/V, TI SLVSD76 8.3.3), and a frame sent before the LEDs (3.7 V at least,
WS2812B-2020 datasheet) and the level shifter (4.5 V, SN74AHCT1G125 datasheet) are up is lost.

The same pin enables the supply's fuse, a TPS2553-1, which latches off on an overcurrent and
stays off until its EN is toggled or its power cycled (TI SLVS841, FAULT response); its FAULT
output is not wired. `restart()` toggles it: the board check does so as it starts (doce/bringup.py),
so `doce check board` resets a fuse latched by a transient, and a strip still dark after it has a
fault that the check names (hardware/README.md, The LED supply).
"""

import time

RISE_MS = 20  # the 16 ms rise, with CT's 10 % and room
OFF_MS = 10  # EN held low, our margin over the switches' turn-off (microseconds to a few ms)


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

    def restart(self):
        """Off, long enough to reset a latched fuse; the next frame switches it on again."""
        self.off()
        self.sleep_ms(OFF_MS)
