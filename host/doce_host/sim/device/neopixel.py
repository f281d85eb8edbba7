"""A simulated `neopixel` module: MicroPython's NeoPixel interface, capturing what a
WS2812 strip would receive (GRB bytes) instead of clocking it out of a pin."""

import machine

# What write() blocks for on an ESP32: micropython-lib's neopixel.py sends 24 bits an LED
# at 400 + 850 ns a bit (30 us an LED, as a WS2812B's 800 kbit/s wants), through
# ports/esp32/machine_bitstream.c, which installs the RMT driver, waits for the last bit
# (rmt_wait_tx_done) and uninstalls it at every write. That driver work is taken as 300 us,
# so 31 LEDs take 1.23 ms, the top of the 1.0-1.3 ms an ESP32 takes (issue 10). The
# strip then latches after a low of 50 us (WS2812B) to 280 us (WS2812B-V5 datasheet):
# later than write() returns, so not charged here.
LED_US = 30
RMT_SETUP_US = 300

strips = []  # every strip made; the simulator reads strips[0].buf, the bytes last sent


class NeoPixel:
    ORDER = (1, 0, 2, 3)  # GRB, as the WS2812B wants it

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.sent = bytearray(n * bpp)  # what the strip received at the last write
        self.lit = bytearray(n * bpp)  # what its LEDs show: dark while their supply is off (machine.py)
        self.writes = 0
        self.lost = 0  # frames sent while the LEDs' supply was off or still rising
        self.on_write = None  # a harness's probe, called as the strip is written (run.py's landing)
        strips.append(self)

    def __len__(self):
        return self.n

    def __setitem__(self, i, colour):
        # Unrolled, so tests measure the firmware's allocations, not this stand-in's.
        # (micropython-lib's driver loops over ORDER: a frame MicroPython puts on the heap,
        # so on a board every changed pixel costs a little garbage. Idle scans change none.)
        at = i * 3
        self.buf[at] = colour[1]
        self.buf[at + 1] = colour[0]
        self.buf[at + 2] = colour[2]

    def __getitem__(self, i):
        at = i * self.bpp
        return tuple(self.buf[at + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, colour):
        for i in range(self.n):
            self[i] = colour

    def write(self):
        machine.charge(self.n * LED_US + RMT_SETUP_US)
        self.sent[:] = self.buf
        if machine.leds_powered():  # unpowered, the LEDs take no frame
            faults = machine.faults
            if faults is None or faults.chain_break is None and faults.led_swap is None:
                self.lit[:] = self.buf
            else:  # what each LED's place shows, the chain as soldered (faults.py)
                faults.show(self.lit, self.buf)
        else:
            self.lost += 1
        self.writes += 1
        if self.on_write:
            self.on_write()

    def shown(self):
        """The bytes the LEDs show, GRB: the last frame they took, or nothing while their supply is
        off (a WS2812B comes back from a power cut dark, until it is sent a frame)."""
        if not machine.leds_powered():
            self.lit[:] = bytes(len(self.lit))
        return self.lit
