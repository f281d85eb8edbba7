"""The Python heap's free bytes, and the heap grown as the board boots on an ESP32 with PSRAM
(doce/esp32.py: only where esp32.idf_heap_info shows PSRAM, has_psram).

On ESP32_GENERIC-SPIRAM the heap starts at 56 KiB (ports/esp32/mpconfigport.h,
MICROPY_GC_INITIAL_HEAP_SIZE) and grows, by a new area as big as the heap so far, only when an
allocation still finds no room after a collection (py/gc.c, gc_alloc -> gc_try_add_heap). A board
that has just booted may so have little free: a landing's HEADROOM (doce/app.py) would then come
from a collection in its path, the heap growing only then. The board grows it as it boots instead.

The port's gc.mem_free() is no measure of that: it adds ESP-IDF's largest free block, which the heap
could grow into (py/modgc.c under MICROPY_GC_SPLIT_HEAP_AUTO; docs/library/esp32.rst), some 4 MiB on
a WROVER. free() takes it off.
"""

import gc

try:
    from esp32 import HEAP_DATA, idf_heap_info
except ImportError:  # CPython, and a port without it: gc.mem_free() is the heap's own
    idf_heap_info = None

# HEADROOM for a landing, and twice that for a host's or the network's traffic between the collections
# gc.threshold starts at rest (doce/app.py).
HEAP_FREE_AT_BOOT = 96 * 1024
# What holds a grown area: one tuple, one allocation (py/objtuple.c mp_obj_new_tuple, mp_obj_malloc_var)
# of 8 + 60 x 4 = 248 bytes, 16 blocks on the chip (16 bytes a block). It is the allocation that made
# the area, so it sits at the area's block 0, with 15 tail blocks behind it: py/gc.c v1.28.0 frees an
# area whose last used block is block 0 even when that block is a live object of one block
# (gc_sweep_free_blocks), so a one-block pin would be freed under the board's feet.
PIN_ITEMS = 60
GROW_CHUNK = 256  # bytes a pin takes on the chip, at most (for the count of pieces, grow_heap)


def pin():
    return (None,) * PIN_ITEMS


def has_psram():
    """Whether ESP-IDF's heap has a region as big as PSRAM (esp32.idf_heap_info: (total, free, largest
    free, least free) per region; a WROVER's 4 MiB of mapped PSRAM is one region, internal RAM some
    300 KB in all). Only there may the Python heap grow, and the game start (doce/esp32.py build): on a
    WROOM, or a WROVER whose PSRAM was not found at boot, the heap stays at 112 KiB of the internal RAM
    that Wi-Fi and TLS need, too little for a landing's room (docs/building.md)."""
    if idf_heap_info is None:
        return False
    for region in idf_heap_info(HEAP_DATA):
        if region[0] >= 1 << 20:
            return True
    return False


def free():
    """The Python heap's free bytes: gc.mem_free() less ESP-IDF's largest free block. That is read from
    every 8-bit region (esp32.HEAP_DATA), never less than the port's MALLOC_CAP_DEFAULT figure
    (ports/esp32/gccollect.c gc_get_max_new_split), so the heap's free bytes are never overstated."""
    n = gc.mem_free()
    if idf_heap_info is not None:
        largest = 0
        for region in idf_heap_info(HEAP_DATA):
            if region[2] > largest:
                largest = region[2]
        n -= largest
    return n


def grow_heap(want, alloc=pin):
    """Grow the Python heap until `want` bytes of it are free; return what keeps it grown.

    py/gc.c (v1.28.0) frees every area but the first that a collection leaves empty
    (gc_sweep_free_blocks: "Free any empty area"), so allocating a big block and dropping it grows
    the heap only until the next collection. Instead the free heap is filled with pins (alloc())
    until one lands in a new area; that pin is kept, and holds the area for good, at the cost of
    GROW_CHUNK bytes each time the heap doubles. Where the heap cannot grow (ESP-IDF's heap has no
    room for the area, or the unix port's heap is fixed), it stops there. doce/esp32.py calls it first
    in build(), before the game and the network make anything: an area that an allocation of theirs
    grew would be held by whatever they made there, and handed back once that is garbage."""
    keep = []
    while free() < want:
        gc.collect()
        total = free() + gc.mem_alloc()
        pieces = [None] * (free() // GROW_CHUNK + 16)  # made before filling: no list grows meanwhile
        grown = None
        try:
            for i in range(len(pieces)):
                pieces[i] = alloc()
                if free() + gc.mem_alloc() > total:  # this piece made a new area, and sits in it
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
