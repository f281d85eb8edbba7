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

    def read(self):
        """Read every channel into self.raw. Allocates nothing."""
        raw = self.raw
        adc = self.adc
        s0, s1, s2, s3 = self.mux_select
        for group in range(self.groups):
            self.group_enable(0)
            for bit in range(len(self.group_select)):
                self.group_select[bit]((group >> bit) & 1)
            self.group_enable(1)
            sleep_us(self.power_on_us)  # the group's sensors power up
            base = group * self.per_group
            for i in range(self.per_group):
                s0(i & 1)
                s1((i >> 1) & 1)
                s2((i >> 2) & 1)
                s3((i >> 3) & 1)
                raw[base + i] = adc()
        self.group_enable(0)
        return raw
