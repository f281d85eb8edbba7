# Freeze the app into a MicroPython firmware image (ESP32_GENERIC):
#   make -C ports/esp32 BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/firmware/manifest.py
# Frozen code runs from flash, leaving the heap to the game. board.json, rules.doct,
# the journal and calibration stay files on the board's file system.
include("$(PORT_DIR)/boards/manifest.py")
package("doce")
require("umqtt.simple")  # doce/mqtt.py's MQTT client, from micropython-lib
module("main.py")
module("slots.py")  # main.py's slot selector: fixed, never in a slot
