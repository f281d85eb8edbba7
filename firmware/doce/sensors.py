"""The hall sensor array: every sensor read into one preallocated buffer.

Hardware (see hardware/README.md): 16-input analog multiplexers, one per group of
sensors, all feeding one ADC1 pin. A 3-to-8 decoder picks the group: its output both
enables that multiplexer and switches on that group's sensors, so only one group draws
current at a time.

Pins come in as callables (`pin(1)` drives it) and the ADC as a callable returning
0-65535, so a machine.Pin and ADC.read_u16 fit, and so does a test's fake.
"""

import sys
import time
from array import array

if sys.implementation.name == "micropython":
    import micropython
else:  # CPython (where a package may take the name `micropython`): viper's decorator and casts do nothing
    from .native import micropython, ptr8, ptr16

sleep_us = getattr(time, "sleep_us", lambda us: time.sleep(us / 1e6))  # CPython has no sleep_us

# Multiplexer inputs in Gray-code order, so that one select pin changes per step:
# GRAY[i] is the i-th input read.
GRAY = b"\x00\x01\x03\x02\x06\x07\x05\x04\x0c\x0d\x0f\x0e\x0a\x0b\x09\x08"


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

    # Native code (viper): the select logic costs next to nothing, leaving the pin and
    # ADC calls. Inputs go in Gray-code order, and only the select pins whose bit
    # differs from the input selected last are driven: one a step over a whole group.
    @micropython.viper
    def _read_group(self, group: int, mask: int):
        enable = self.group_enable
        enable(0)
        select = self.group_select
        for bit in range(int(len(select))):
            select[bit]((group >> bit) & 1)
        enable(1)
        sleep_us(self.power_on_us)  # the group's sensors power up
        adc = self.adc
        raw = ptr16(self.raw)
        base = group * int(self.per_group)
        mux = self.mux_select
        s0 = mux[0]  # one by one: unpacking four would build a tuple
        s1 = mux[1]
        s2 = mux[2]
        s3 = mux[3]
        order = ptr8(GRAY)
        now = 15  # the select pins' levels are unknown: drive all four at the first input
        first = 1
        for k in range(int(self.per_group)):
            i = order[k]
            if not (mask >> i) & 1:
                continue
            flip = 15 if first else i ^ now
            first = 0
            if flip & 1:
                s0(i & 1)
            if flip & 2:
                s1((i >> 1) & 1)
            if flip & 4:
                s2((i >> 2) & 1)
            if flip & 8:
                s3((i >> 3) & 1)
            now = i
            raw[base + i] = int(adc())
