"""Millisecond ticks, as MicroPython counts them. They wrap: at 2**30 on the ESP32
(extmod/modtime.c, MICROPY_PY_TIME_TICKS_PERIOD = MP_SMALL_INT_POSITIVE_MASK + 1), about every
12.4 days, and ticks_diff takes only values from ticks_ms or ticks_add (docs.micropython.org,
library/time.html): a deadline is always ticks_add(now, ms), never now + ms. On CPython (the
Linux target, the host's tests) plain numbers stand in.
"""

import time


def ticks_diff(a, b):
    """a - b for millisecond ticks; MicroPython's ticks wrap, so it must do the sum."""
    return time.ticks_diff(a, b) if hasattr(time, "ticks_diff") else a - b


def ticks_add(a, delta):
    """The tick `delta` ms after `a`, wrapped as MicroPython's ticks wrap."""
    return time.ticks_add(a, delta) if hasattr(time, "ticks_add") else a + delta
