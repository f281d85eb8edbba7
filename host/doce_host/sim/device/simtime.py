"""The ESP32's `time` module as the firmware sees it in the simulator (serve.py and run.py put it
in place of the unix port's before the firmware is imported): the unix port's, but for the ticks,
which wrap as the ESP32's do, and the two waits, which pass the same time in fewer of the unix
port's sleeps.

- ticks_ms, ticks_us, ticks_add, ticks_diff: the ESP32 is a 32-bit port, so its ticks wrap at 2**30 ms,
  about 12.4 days (extmod/modtime.c: MICROPY_PY_TIME_TICKS_PERIOD = MP_SMALL_INT_POSITIVE_MASK + 1),
  where the unix port's wrap at 2**62 and no test would ever see it. A board's ticks start at
  DOCE_SIM_TICKS (default 0) at power-on, so a test can start them just before the wrap. Past the
  wrap, now + ms is no small int on the chip, and ticks_diff reads garbage from it
  (MP_OBJ_SMALL_INT_VALUE of a long int): here any value that is not a tick raises instead.

- sleep_us(us): the ESP32 busy-waits (ports/esp32/mphalport.c, mp_hal_delay_us), as it does for
  an ADC conversion: charged like one (machine.charge), slept in lumps of a millisecond or more.
- sleep_ms(ms): one sleep, with the hardware time owed (machine.sleep). The unix port's own naps
  500 us at a time (ports/unix/unix_mphal.c, mp_hal_delay_ms -> mp_event_wait_ms ->
  MICROPY_INTERNAL_WFE, usleep(500)): four wake-ups in an idle board's 2 ms between scans, and
  waking up is most of what an idle simulated board costs.
"""

import os
import time as _unix
from time import *  # noqa: F401,F403  ticks_us, time...

import machine

PERIOD = 1 << 30
HALF = PERIOD >> 1
MASK = PERIOD - 1
start = int(os.getenv("DOCE_SIM_TICKS") or 0) & MASK  # the board's ticks_ms at power-on
_zero = _unix.ticks_ms() if hasattr(_unix, "ticks_ms") else 0
_zero_us = _unix.ticks_us() if hasattr(_unix, "ticks_us") else 0


def board_ticks(ms):
    """The board's ticks_ms `ms` after power-on (run.py's simulated clock)."""
    return (start + ms) & MASK


def ticks_ms():
    return (start + _unix.ticks_ms() - _zero) & MASK


def ticks_us():
    """Microseconds, wrapping at 2**30 as ticks_ms do (the same MICROPY_PY_TIME_TICKS_PERIOD)."""
    return (start * 1000 + _unix.ticks_us() - _zero_us) & MASK


def _tick(value):
    if not isinstance(value, int) or not 0 <= value <= MASK:
        raise ValueError("%r is not a ticks value (ESP32 ticks are 0 to 2**30 - 1: use ticks_add)" % (value,))
    return value


def ticks_add(ticks, delta):
    if not isinstance(delta, int) or not -HALF <= delta < HALF:
        raise ValueError("ticks_add: %r is no delta" % (delta,))
    return (_tick(ticks) + delta) & MASK


def ticks_diff(a, b):
    return ((_tick(a) - _tick(b) + HALF) & MASK) - HALF


def sleep_us(us):
    machine.charge(us)


def sleep_ms(ms):
    machine.sleep(ms * 1000)
