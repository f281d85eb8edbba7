"""The Python heap grown at boot on ESP32_GENERIC-SPIRAM (doce/heap.py), tested on a heap that starts
at 56 KiB, as that image's does.

The unix port the simulator runs cannot grow its heap (-X heapsize is fixed), so the heap here is a
model of MicroPython v1.28.0's py/gc.c with MICROPY_GC_SPLIT_HEAP_AUTO (ports/esp32/mpconfigport.h
sets it), as far as growth goes:
- gc_alloc looks for a run of free 16-byte blocks, first fit, area by area from the first (after a
  collection gc_last_free_area is the first area again: gc_collect_end);
- when none is found it collects, looks again, and only then calls gc_try_add_heap: a new area of
  max(the heap's size so far, the request + max(2048, request x 13/512)), if ESP-IDF's heap has a free
  block that big (gc_get_max_new_split, ports/esp32/gccollect.c);
- a collection frees what nothing holds, then every area but the first whose last used block is
  block 0 or none (gc_sweep_free_blocks: "Free any empty area, aside from the first one");
- a bytearray is two allocations: its object (one block) and its data (py/objarray.c, array_new);
- gc.mem_free() is the heap's free bytes plus the largest block ESP-IDF could add to it (py/modgc.c
  under MICROPY_GC_SPLIT_HEAP_AUTO), and esp32.idf_heap_info gives that block (ports/esp32/modesp32.c).
"""

import gc as python_gc
import weakref

import pytest

from doce import heap
from doce.app import HEADROOM

BLOCK = 16  # bytes a block on a 32-bit port (py/mpconfig.h, MICROPY_BYTES_PER_GC_BLOCK = 4 words)
KIB = 1024


class Held:
    """Something allocated on the model's heap; the heap frees its blocks once nothing holds it."""


class Heap:
    def __init__(self, start=56 * KIB, system=4 << 20):
        self.areas = [[None] * (start // BLOCK)]  # per block: the weakref of what holds it, or None
        self.system = system  # the largest free block of ESP-IDF's heap (PSRAM)

    # -- the gc module's face ----------------------------------------------------------------
    def heap_free(self):
        return sum(b is None for area in self.areas for b in area) * BLOCK

    def mem_free(self):  # the port's: what ESP-IDF could add counted in
        return self.heap_free() + self.system

    def idf_heap_info(self, caps):
        return [(4 << 20, self.system, self.system, self.system)]

    def mem_alloc(self):
        return sum(b is not None for area in self.areas for b in area) * BLOCK

    def collect(self):
        python_gc.collect()
        for area in self.areas:
            for i, owner in enumerate(area):
                if owner is not None and owner() is None:
                    area[i] = None
        self.areas = self.areas[:1] + [a for a in self.areas[1:] if any(b is not None for b in a[1:])]

    # -- allocation ----------------------------------------------------------------------------
    def _find(self, n):
        for area in self.areas:
            run = 0
            for i, owner in enumerate(area):
                run = run + 1 if owner is None else 0
                if run == n:
                    return area, i - n + 1
        return None

    def _alloc(self, nbytes, holder):
        n = -(-nbytes // BLOCK)
        for attempt in range(3):
            spot = self._find(n)
            if spot:
                area, at = spot
                area[at:at + n] = [weakref.ref(holder)] * n
                return
            if attempt == 0:
                self.collect()
            elif not self._add(nbytes):
                break
        raise MemoryError

    def _add(self, nbytes):
        needed = nbytes + max(2048, nbytes * 13 // 512)
        total = sum(len(a) for a in self.areas) * BLOCK
        size = min(self.system, max(total, needed))
        if size < needed:
            return False
        self.system -= size
        self.areas.append([None] * (size // BLOCK))
        return True

    def bytearray(self, nbytes):
        held = Held()
        self._alloc(BLOCK, held)  # the object
        self._alloc(nbytes, held)  # its data
        return held

    def total(self):
        return sum(len(a) for a in self.areas) * BLOCK


def port(monkeypatch, model):
    """doce/heap.py on the model, as on the chip: its gc and its esp32.idf_heap_info."""
    monkeypatch.setattr(heap, "gc", model)
    monkeypatch.setattr(heap, "idf_heap_info", model.idf_heap_info)
    monkeypatch.setattr(heap, "HEAP_DATA", 4, raising=False)


def test_the_heaps_free_bytes_leave_out_what_esp_idf_could_add(monkeypatch):
    """gc.mem_free() on the chip counts some 4 MiB of PSRAM: a grow loop or a threshold taken from it
    never grows or collects (a hostile review of the heap model)."""
    model = Heap()
    port(monkeypatch, model)
    assert model.mem_free() > 4 * KIB * KIB - 56 * KIB
    assert heap.free() == model.heap_free() == 56 * KIB


@pytest.fixture
def booted(monkeypatch):
    """A board just booted on a heap that started at 56 KiB: the app holds 48 KiB of it."""
    model = Heap()
    port(monkeypatch, model)
    live = [model.bytearray(512) for _ in range(48 * KIB // (512 + 2 * BLOCK))]
    model.collect()
    return model, live


def test_a_big_block_allocated_and_dropped_does_not_keep_the_heap_grown(booted):
    """Why doce/heap.py fills the heap with small pieces: a new area left empty is freed again."""
    model, live = booted
    big = model.bytearray(HEADROOM * 3)
    assert model.total() > 56 * KIB
    del big
    model.collect()
    assert model.total() == 56 * KIB and model.heap_free() < HEADROOM


def test_the_heap_grows_at_boot_until_headroom_and_traffic_fit_and_stays_grown(booted):
    model, live = booted
    assert model.heap_free() < HEADROOM  # as it boots: a landing would collect, and only then grow
    kept = heap.grow_heap(heap.HEAP_FREE_AT_BOOT, alloc=model.bytearray)
    for _ in range(3):  # collections at rest, as the app runs them
        model.collect()
    assert model.heap_free() >= heap.HEAP_FREE_AT_BOOT >= 3 * HEADROOM
    assert len(kept) == len(model.areas) - 1  # a piece in each new area holds it
    assert sum(len(a) for a in model.areas[1:]) * BLOCK <= 4 * model.total()  # doubled, not more
    assert len(kept) * (heap.GROW_CHUNK + BLOCK) < 2 * KIB  # what holding it costs


def test_a_heap_that_cannot_grow_is_left_as_it_is(booted):
    model, live = booted
    model.system = 2 * KIB  # ESP-IDF's heap has no free block as big as an area must be (2 KiB and more)
    free = model.heap_free()
    assert heap.grow_heap(heap.HEAP_FREE_AT_BOOT, alloc=model.bytearray) == []
    assert model.total() == 56 * KIB and model.heap_free() == free  # the pieces given back


@pytest.mark.parametrize("module", ["wrover", "wroom"])
def test_at_rest_the_board_collects_before_its_own_heap_runs_short(tmp_path, module):
    """The simulated port's gc.mem_free() counts ESP-IDF's largest free block in, as the chip's does
    (sim/device/simgc.py: some 4 MiB on a WROVER). The threshold a board sets at rest must come from
    its heap's own free bytes, or no collection ever falls at rest and the next one falls in a landing."""
    from doce_host.sim import SimBoard
    with SimBoard(tmp_path, module=module) as sim:
        sim.place("c3", "white 4")
        sim.run(20)  # at rest again: the threshold set
        heap = sim.command(do="heap")
        assert 0 < heap["threshold"] <= heap["free"], heap


@pytest.mark.parametrize("boot_kib", [17, 48, 96, 128, 160])
def test_a_wrover_has_at_least_the_simulators_heap_once_booted(monkeypatch, boot_kib):
    """The simulator gives a WROVER board 224 KiB and no more (doce_host.sim WROVER_HEAP_KB): no more than
    the heap reaches here once grown at boot, for a boot that holds anything past 16 KiB (at 16 KiB or
    less, 112 KiB already leaves 96 free). The board grows it again on demand; the simulator cannot."""
    from doce_host.sim import WROVER_HEAP_KB
    model = Heap()
    port(monkeypatch, model)
    live = [model.bytearray(512) for _ in range(boot_kib * KIB // (512 + 2 * BLOCK))]
    model.collect()
    kept = heap.grow_heap(heap.HEAP_FREE_AT_BOOT, alloc=model.bytearray)
    assert model.heap_free() >= heap.HEAP_FREE_AT_BOOT and live and len(kept) < len(model.areas)  # both held
    assert model.total() >= WROVER_HEAP_KB * KIB
    assert model.total() == WROVER_HEAP_KB * KIB or boot_kib > 128  # not more than it for a boot up to 128 KiB
