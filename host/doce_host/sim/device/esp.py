"""The ESP32 port's `esp` module, simulated: ESP-IDF's log output on the REPL's UART.

ESP-IDF's components log through esp_log to UART0, the same UART as MicroPython's REPL and so
the board's USB link, from their own tasks, whenever they have something to say: a line can land
in the middle of one of the firmware's lines. MicroPython boots with the level at ERROR, and
esp.osdebug sets it (ports/esp32/modesp.c): osdebug(None) goes back to ERROR, osdebug(0, level)
sets `level`, and only osdebug(0, esp.LOG_NONE) silences it. Here the simulated Wi-Fi driver
(network.py) logs an ERROR line when it loses the access point; serial_port.py puts what is
pending into the middle of the next write.
"""

LOG_NONE = 0  # esp_log_level_t (components/log/include/esp_log_level.h)
LOG_ERROR = 1
LOG_WARNING = 2
LOG_INFO = 3
LOG_DEBUG = 4
LOG_VERBOSE = 5
MAXIMUM = LOG_INFO  # sdkconfig.base: CONFIG_LOG_MAXIMUM_LEVEL_INFO

level = [LOG_ERROR]
pending = []  # log lines waiting for the UART


def osdebug(uart, lvl=MAXIMUM):
    level[0] = LOG_ERROR if uart is None else min(lvl, MAXIMUM)


def log(lvl, tag, text, ms=0):
    """An ESP-IDF component logs (ESP_LOGE and kin): the line goes out if the level lets it."""
    if lvl <= level[0]:
        pending.append(("%s (%d) %s: %s\n" % ("?EWIDV"[lvl], ms, tag, text)).encode())
