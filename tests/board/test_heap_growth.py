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
- a bytearray is two allocations: its object (one block) and its data (py/objarray.c, array_new); a
  tuple is one (py/objtuple.c, mp_obj_new_tuple);
- gc.mem_free() is the heap's free bytes plus the largest block ESP-IDF could add to it (py/modgc.c
  under MICROPY_GC_SPLIT_HEAP_AUTO), and esp32.idf_heap_info gives that block (ports/esp32/modesp32.c).
"""

import gc as python_gc
import weakref

import pytest

from doce import heap
from doce.app import HEADROOM
from doce_host.sim import WROVER_HEAP_KB

BLOCK = 16  # bytes a block on a 32-bit port (py/mpconfig.h, MICROPY_BYTES_PER_GC_BLOCK = 4 words)
KIB = 1024


class Held:
    """Something allocated on the model's heap; the heap frees its blocks once nothing holds it."""


class Heap:
    def __init__(self, start=56 * KIB, system=4 << 20):
        self.areas = [[None] * (start // BLOCK)]  # per block: (the weakref of what holds it, its allocation), or None
        self.system = system  # the largest free block of ESP-IDF's heap (PSRAM)
        self.allocations = 0

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
                if owner is not None and owner[0]() is None:
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
                self.allocations += 1
                area[at:at + n] = [(weakref.ref(holder), self.allocations)] * n
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

    def pin(self):
        """doce/heap.py's pin: one tuple of PIN_ITEMS, on a 32-bit port (a 4-byte word)."""
        held = Held()
        self._alloc(8 + 4 * heap.PIN_ITEMS, held)
        return held

    def one_block(self):
        """An object of one block (a float, a small int's box, a cell): one allocation."""
        held = Held()
        self._alloc(BLOCK, held)
        return held

    def holds(self, held):
        """Whether any area still has blocks for `held`: a live object without them is a use after free."""
        return any(b is not None and b[0]() is held for area in self.areas for b in area)

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
    kept = heap.grow_heap(heap.HEAP_FREE_AT_BOOT, alloc=model.pin)
    for _ in range(3):  # collections at rest, as the app runs them
        model.collect()
    assert model.heap_free() >= heap.HEAP_FREE_AT_BOOT >= 3 * HEADROOM
    assert len(kept) == len(model.areas) - 1  # a piece in each new area holds it
    assert sum(len(a) for a in model.areas[1:]) * BLOCK <= 4 * model.total()  # doubled, not more
    assert len(kept) * heap.GROW_CHUNK < 2 * KIB  # what holding it costs


def test_a_heap_that_cannot_grow_is_left_as_it_is(booted):
    model, live = booted
    model.system = 2 * KIB  # ESP-IDF's heap has no free block as big as an area must be (2 KiB and more)
    free = model.heap_free()
    assert heap.grow_heap(heap.HEAP_FREE_AT_BOOT, alloc=model.pin) == []
    assert model.total() == 56 * KIB and model.heap_free() == free  # the pieces given back


def test_at_rest_the_board_collects_before_its_own_heap_runs_short(tmp_path):
    """The simulated port's gc.mem_free() counts ESP-IDF's largest free block in, as the chip's does
    (sim/device/simgc.py: some 4 MiB on a WROVER). The threshold a board sets at rest must come from
    its heap's own free bytes, or no collection ever falls at rest and the next one falls in a landing."""
    from doce_host.sim import SimBoard
    with SimBoard(tmp_path, module="wrover") as sim:  # the board that plays (tests/board/test_needs_psram.py)
        sim.place("c3", "white 4")
        sim.run(20)  # at rest again: the threshold set
        heap = sim.command(do="heap")
        assert 0 < heap["threshold"] <= heap["free"], heap


@pytest.mark.parametrize("boot_kib", [17, 48, 96, 128, 160])
def test_a_wrover_has_at_least_the_simulators_heap_once_booted(monkeypatch, boot_kib):
    """The simulator gives a WROVER board 224 KiB and no more (doce_host.sim WROVER_HEAP_KB): no more than
    the heap reaches here once grown at boot, for a boot that holds anything past 16 KiB (at 16 KiB or
    less, 112 KiB already leaves 96 free). The board grows it again on demand; the simulator cannot."""
    model = Heap()
    port(monkeypatch, model)
    live = [model.bytearray(512) for _ in range(boot_kib * KIB // (512 + 2 * BLOCK))]
    model.collect()
    kept = heap.grow_heap(heap.HEAP_FREE_AT_BOOT, alloc=model.pin)
    assert model.heap_free() >= heap.HEAP_FREE_AT_BOOT and live and len(kept) < len(model.areas)  # both held
    assert model.total() >= WROVER_HEAP_KB * KIB
    assert model.total() == WROVER_HEAP_KB * KIB or boot_kib > 128  # not more than it for a boot up to 128 KiB


def test_py_gc_hands_back_an_area_whose_only_live_object_is_one_block_at_block_0(monkeypatch):
    """MicroPython v1.28.0's gc_sweep_free_blocks frees an area when its last used block is block 0, which
    a live object of one block there also gives (py/gc.c:691, 720, 729): the allocation that grew the heap
    is the one at block 0. The model keeps that rule, so a pin of one block would be freed while held."""
    model = Heap()
    port(monkeypatch, model)
    first = model.bytearray(56 * KIB - 3 * BLOCK)  # the first area full: its object, its data, 2 blocks left
    rest = [model.one_block(), model.one_block()]
    lone = model.one_block()  # no room: a collection, then a new area, and it goes to its block 0
    assert len(model.areas) == 2 and model.areas[1][0] is not None and model.areas[1][1] is None
    model.collect()
    assert len(model.areas) == 1 and not model.holds(lone)  # held, and its area handed back: a use after free
    pinned = model.pin()  # doce/heap.py's pin instead: one allocation with tails
    assert len(model.areas) == 2 and model.areas[1][0][1] == model.areas[1][1][1]
    model.collect()
    assert len(model.areas) == 2 and model.holds(pinned) and first and rest


def test_each_area_grown_at_boot_is_held_by_a_pin_at_its_block_0_with_tails(booted):
    model, live = booted
    assert 1 < -(-(8 + 4 * heap.PIN_ITEMS) // BLOCK) and 8 + 4 * heap.PIN_ITEMS <= heap.GROW_CHUNK
    assert isinstance(heap.pin(), tuple) and len(heap.pin()) == heap.PIN_ITEMS  # one allocation (py/objtuple.c)
    kept = heap.grow_heap(heap.HEAP_FREE_AT_BOOT, alloc=model.pin)
    model.collect()
    assert len(model.areas) > 1
    for area in model.areas[1:]:
        assert area[0] is not None and area[1] is not None and area[0][1] == area[1][1]  # one allocation
        assert any(area[0][0]() is k for k in kept)


def boot(model, grow_first):
    """A boot that makes 40 KiB that lasts and 45 KiB that is garbage once it is over (the journal's replay,
    a module's import), with the heap grown first (doce/esp32.py build) or only after them."""
    kept = heap.grow_heap(heap.HEAP_FREE_AT_BOOT, alloc=model.pin) if grow_first else []
    lasting = [model.bytearray(512) for _ in range(40 * KIB // 512)]
    boot_only = [model.bytearray(512) for _ in range(45 * KIB // 512)]
    kept += heap.grow_heap(heap.HEAP_FREE_AT_BOOT, alloc=model.pin)
    boot_only = None
    for _ in range(3):  # collections at rest
        model.collect()
    return lasting, kept, boot_only


def test_the_heap_grown_before_the_game_is_built_stays_grown_once_the_boots_garbage_is_gone(monkeypatch):
    """Grown after the game and the network started, the heap had areas that the boot's own allocations made
    and held, handed back once they were garbage: 224 KiB became 168 (hostile review of the heap model, 6)."""
    after = Heap()
    port(monkeypatch, after)
    held = boot(after, grow_first=False)
    assert after.total() < WROVER_HEAP_KB * KIB  # what growing after the boot left
    first = Heap()
    port(monkeypatch, first)
    held = boot(first, grow_first=True)
    assert first.total() >= WROVER_HEAP_KB * KIB and first.heap_free() >= heap.HEAP_FREE_AT_BOOT and held


@pytest.fixture
def firmware_esp32(monkeypatch):
    """doce/esp32.py on CPython: the port's machine, esp and neopixel faked, enough for build() to start."""
    import sys
    import types
    machine = types.SimpleNamespace(freq=lambda hz: None, reset=lambda: None)
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "neopixel", types.SimpleNamespace())
    monkeypatch.setitem(sys.modules, "esp", types.SimpleNamespace(osdebug=lambda *a: None, LOG_NONE=0))
    monkeypatch.delitem(sys.modules, "doce.esp32", raising=False)
    import doce.esp32 as module
    yield module
    sys.modules.pop("doce.esp32", None)


def test_a_board_with_psram_grows_its_heap_before_it_builds_the_game_or_starts_the_network(firmware_esp32,
                                                                                          monkeypatch):
    esp32 = firmware_esp32
    calls = []

    def grow(want, alloc=None):
        calls.append("grow")
        return []

    def load():
        calls.append("board file")
        raise OSError("stop here")
    monkeypatch.setattr(heap, "grow_heap", grow)
    monkeypatch.setattr(esp32, "grow_heap", grow, raising=False)
    monkeypatch.setattr(esp32, "has_psram", lambda: True)
    monkeypatch.setattr(esp32.boardfile, "load", load)
    with pytest.raises(esp32.BadBoardFile):
        esp32.build()
    assert calls == ["grow", "board file"]


def test_a_board_without_psram_refuses_before_it_grows_the_heap_or_reads_the_board_file(firmware_esp32,
                                                                                        monkeypatch):
    """Nothing of the game is made on a board that cannot play (doce/esp32.py NO_PSRAM): its journal and
    flash are untouched, and the REPL gets the heap."""
    esp32 = firmware_esp32
    calls = []
    monkeypatch.setattr(esp32, "grow_heap", lambda want, alloc=None: calls.append("grow") or [], raising=False)
    monkeypatch.setattr(esp32.boardfile, "load", lambda: calls.append("board file"))
    monkeypatch.setattr(esp32, "has_psram", lambda: False)
    with pytest.raises(esp32.NoPsram, match="no PSRAM"):
        esp32.build()
    assert calls == []
