"""The ESP32 port's `esp32` module, simulated: what ESP-IDF's heap holds, by module (DOCE_SIM_MODULE).

esp32.idf_heap_info(caps) gives one (total, free, largest free block, least free) per ESP-IDF heap
region (ports/esp32/modesp32.c). The firmware reads two things from it: whether a region is PSRAM
(doce/heap.py has_psram) and the largest free block, which the port's gc.mem_free() adds to the
Python heap's own free bytes (py/modgc.c with MICROPY_GC_SPLIT_HEAP_AUTO: "max_new_split", what
an allocation that finds no room may add to the heap; simgc.py).
- Internal RAM, both modules: 20 KiB largest free with Wi-Fi up, the low end micropython#14421
  shows for an ESP32_GENERIC board (bench/chip.py WROOM_LARGEST_FREE_KIB).
- A WROVER's PSRAM: ESP-IDF maps 4 MiB of it on an ESP32 (its 8 MB part included), and the SPIRAM
  image gives it to malloc (boards/sdkconfig.spiram CONFIG_SPIRAM_USE_MALLOC), the Python heap's
  first 56 KiB out of it (mpconfigport.h MICROPY_GC_INITIAL_HEAP_SIZE; past
  CONFIG_SPIRAM_MALLOC_ALWAYSINTERNAL, 8 KiB).
The simulator's Python heap itself cannot grow (the unix port's -X heapsize): only the figures are here.
"""

import os

HEAP_DATA = 4  # MALLOC_CAP_8BIT (esp_heap_caps.h), as modesp32.c exports it
HEAP_EXEC = 1  # MALLOC_CAP_EXEC
KIB = 1024
MODULE = os.getenv("DOCE_SIM_MODULE") or "wrover"  # doce_host.sim DEFAULT_MODULE
# Only a region's size (PSRAM or not) and its largest free block are read; its free and least-free
# bytes are set to the largest free block, the least the region can hold beside it.
INTERNAL = (160 * KIB, 20 * KIB, 20 * KIB, 20 * KIB)  # 160 KiB: under has_psram's 1 MiB, any internal region
PSRAM = (4096 * KIB, 4040 * KIB, 4040 * KIB, 4040 * KIB)
REGIONS = [INTERNAL, PSRAM] if MODULE == "wrover" else [INTERNAL]


def idf_heap_info(caps):
    return list(REGIONS) if caps == HEAP_DATA else []


def max_new_split():
    """heap_caps_get_largest_free_block(MALLOC_CAP_DEFAULT) (ports/esp32/gccollect.c gc_get_max_new_split)."""
    return max(region[2] for region in REGIONS)
