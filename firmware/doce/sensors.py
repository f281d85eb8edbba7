"""The hall sensor array: every sensor read into one preallocated buffer.

Hardware (see hardware/README.md): 16-input analog multiplexers, one per group of
sensors, all feeding one ADC1 pin. A 3-to-8 decoder picks the group: its output both
enables that multiplexer and switches on that group's sensors, so only one group draws
current at a time.

Pins come in as callables (`pin(1)` drives it) and the ADC as a callable returning
0-65535, so a machine.Pin and ADC.read_u16 fit, and so does a test's fake.
"""

import time
from array import array

sleep_us = getattr(time, "sleep_us", lambda us: time.sleep(us / 1e6))  # CPython has no sleep_us

# Multiplexer inputs in Gray-code order, so that one select pin changes per step:
# GRAY[i] is the i-th input read, FLIPS[i] the select bit that changed to reach it.
GRAY = b"\x00\x01\x03\x02\x06\x07\x05\x04\x0c\x0d\x0f\x0e\x0a\x0b\x09\x08"
FLIPS = b"\x00\x00\x01\x00\x02\x00\x01\x00\x03\x00\x01\x00\x02\x00\x01\x00"


class HallArray:
    def __init__(self, adc, mux_select, group_select, group_enable, board):
        self.adc = adc
        self.mux_select = tuple(mux_select)
        self.group_select = tuple(group_select)
        self.group_enable = group_enable
        self.groups = board.groups
        self.per_group = board.channels_per_group
        self.power_on_us = board.power_on_us
        self.raw = array("H", [0] * board.channels)

    def read(self, groups=0xFFFF, masks=None):
        """Read the channels of the groups whose bits are set (all by default) into
        self.raw; the others keep their last readings. With `masks` (a 16-bit mask of
        channels a group), only those channels: each read costs an ADC conversion of
        30-40 us, so a scan reads only what it needs. Allocates nothing."""
        for group in range(self.groups):
            if groups >> group & 1:
                self._read_group(group, 0xFFFF if masks is None else masks[group])
        self.group_enable(0)
        return self.raw

    # The hot loops stay in small functions: MicroPython keeps a frame of at most
    # 11 slots (locals and stack) on the C stack, and puts a bigger one on the heap
    # at every call.
    def _read_group(self, group, mask):
        self.group_enable(0)
        for bit in range(len(self.group_select)):
            self.group_select[bit]((group >> bit) & 1)
        self.group_enable(1)
        sleep_us(self.power_on_us)  # the group's sensors power up
        if mask == 0xFFFF:
            self._read_inputs(group * self.per_group)
        else:
            self._read_some(group * self.per_group, mask)

    def _read_some(self, base, mask):
        """The inputs whose bits are set in `mask`, each selected directly."""
        i = 0
        while mask:  # a while, not a for over range: it keeps the frame small
            if mask & 1:
                self.mux_select[0](i & 1)
                self.mux_select[1](i >> 1 & 1)
                self.mux_select[2](i >> 2 & 1)
                self.mux_select[3](i >> 3 & 1)
                self.raw[base + i] = self.adc()
            mask >>= 1
            i += 1

    def _read_inputs(self, base):
        for pin in range(4):
            self.mux_select[pin](0)
        self.raw[base] = self.adc()
        for i in range(1, self.per_group):
            g = GRAY[i]
            self.mux_select[FLIPS[i]](g >> FLIPS[i] & 1)
            self.raw[base + g] = self.adc()
