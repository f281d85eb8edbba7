"""The ESP32 port's `gc` as the firmware sees it: gc.mem_free() is the Python heap's free bytes plus
ESP-IDF's largest free block (py/modgc.c gc_mem_free under MICROPY_GC_SPLIT_HEAP_AUTO, which
ports/esp32/mpconfigport.h sets; docs/library/esp32.rst: "the total of the current free and max new
split values"), some 4 MiB on a WROVER. A firmware that took it for the heap's free bytes would set
thresholds no collection ever reaches; the unix port's gc.mem_free() counts the heap only, so run.py
and serve.py hand the firmware this one."""

from gc import collect, disable, enable, isenabled, mem_alloc, threshold  # noqa: F401  the port's own
from gc import mem_free as heap_free

import esp32


def mem_free():
    return heap_free() + esp32.max_new_split()
