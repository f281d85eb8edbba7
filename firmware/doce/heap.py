"""The Python heap on an ESP32 with PSRAM, grown as the board boots (doce/esp32.py: only where
esp32.idf_heap_info shows PSRAM, has_psram; this module is loaded only then).

On ESP32_GENERIC-SPIRAM the heap starts at 56 KiB (ports/esp32/mpconfigport.h,
MICROPY_GC_INITIAL_HEAP_SIZE) and grows, by a new area as big as the heap so far, only when an
allocation still finds no room after a collection (py/gc.c, gc_alloc -> gc_try_add_heap). A board
that has just booted may so have little free: a landing's HEADROOM (doce/app.py) would then come
from a collection in its path, the heap growing only then. The board grows it as it boots instead.
"""

import gc

# HEADROOM for a landing, and twice that for a host's or the network's traffic between the collections
# gc.threshold starts at rest (doce/app.py).
HEAP_FREE_AT_BOOT = 96 * 1024
GROW_CHUNK = 256  # bytes a piece while filling the heap (grow_heap)


def grow_heap(free, alloc=bytearray):
    """Grow the Python heap until `free` bytes of it are free; return what keeps it grown.

    py/gc.c (v1.28.0) frees every area but the first that a collection leaves empty
    (gc_sweep_free_blocks: "Free any empty area"), so allocating a big block and dropping it grows
    the heap only until the next collection. Instead the free heap is filled with small pieces until
    one lands in a new area; that piece is kept, and holds the area for good, at the cost of
    GROW_CHUNK bytes each time the heap doubles. Where the heap cannot grow (ESP-IDF's heap has no
    room for the area, or the unix port's heap is fixed), it stops there."""
    keep = []
    while gc.mem_free() < free:
        gc.collect()
        total = gc.mem_free() + gc.mem_alloc()
        pieces = [None] * (gc.mem_free() // GROW_CHUNK + 16)  # made before filling: no list grows meanwhile
        grown = None
        try:
            for i in range(len(pieces)):
                pieces[i] = alloc(GROW_CHUNK)
                if gc.mem_free() + gc.mem_alloc() > total:  # this piece made a new area, and sits in it
                    grown = pieces[i]
                    break
        except MemoryError:
            pass
        pieces = None
        if grown is None:
            break
        keep.append(grown)
    gc.collect()
    return keep
