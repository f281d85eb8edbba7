"""A simulated `neopixel` module: MicroPython's NeoPixel interface, capturing what a
WS2812 strip would receive (GRB bytes) instead of clocking it out of a pin."""

strips = []  # every strip made; the simulator reads strips[0].buf, the bytes last sent


class NeoPixel:
    ORDER = (1, 0, 2, 3)  # GRB, as the WS2812B wants it

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.sent = bytearray(n * bpp)  # what the strip received at the last write
        self.writes = 0
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
        self.sent[:] = self.buf
        self.writes += 1
