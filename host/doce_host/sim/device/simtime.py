"""The ESP32's `time` module as the firmware sees it in the real-time simulator (serve.py puts
it in place of the unix port's before the firmware is imported): the unix port's, but for the
two waits, which pass the same time in fewer of the unix port's sleeps.

- sleep_us(us): the ESP32 busy-waits (ports/esp32/mphalport.c, mp_hal_delay_us), as it does for
  an ADC conversion: charged like one (machine.charge), slept in lumps of a millisecond or more.
- sleep_ms(ms): one sleep, with the hardware time owed (machine.sleep). The unix port's own naps
  500 us at a time (ports/unix/unix_mphal.c, mp_hal_delay_ms -> mp_event_wait_ms ->
  MICROPY_INTERNAL_WFE, usleep(500)): four wake-ups in an idle board's 2 ms between scans, and
  waking up is most of what an idle simulated board costs.
"""

from time import *  # noqa: F401,F403  ticks_ms, ticks_us, ticks_diff, ticks_add, time...

import machine


def sleep_us(us):
    machine.charge(us)


def sleep_ms(ms):
    machine.sleep(ms * 1000)
