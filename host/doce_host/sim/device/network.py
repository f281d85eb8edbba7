"""The ESP32's `network` module, simulated: one station interface on a room's Wi-Fi, as strict as
ports/esp32/network_wlan.c of MicroPython v1.28 makes it.

- WLAN.connect() returns at once and the join goes on in the background (docs.micropython.org,
  library/network.WLAN.html): here it takes JOIN_POLLS looks at status() or isconnected().
- Once asked to join, the port stays on the Wi-Fi by itself: after a drop it joins again (the
  WIFI_EVENT_STA_DISCONNECTED handler calls esp_wifi_connect). While it is joining, a second
  connect() raises: esp_wifi_set_config answers ESP_ERR_WIFI_STATE, "Wifi Internal State Error".
- status() is STAT_CONNECTING while asked and not joined, STAT_GOT_IP once joined.
- The air is the simulator's (side_channel.act, "wifi"): the access point goes off and comes back,
  or misbehaves: `stuck`, a join that never ends; `join_raises`, the next connect() raises.
- Starting the radio draws current: if the LED strip, as last written, already takes more than
  the Wi-Fi budget of hardware/board.json, the supply browns out and the board resets.
Sockets are the unix port's own, so MQTT goes to a real broker over real TCP.
"""

import os
import sys

import esp
import machine
import neopixel

STA_IF = 0
AP_IF = 1
STAT_IDLE = 1000  # ports/esp32/network_wlan.c: the STAT_* values it exposes
STAT_CONNECTING = 1001
STAT_GOT_IP = 1010
JOIN_POLLS = 3  # looks at the interface before a join completes: it is not instant on a board

air = {"up": True, "stuck": False, "join_raises": False}  # the room's access point, as the simulator sets it
joins = [0]  # connect() calls that took
pm = [None]  # the power management mode set (None: the port's default, modem sleep)


def set_air(**how):
    for key, value in how.items():
        if key not in air:
            raise ValueError("the air is up, stuck or join_raises, not %s" % key)
        if key == "up" and air["up"] and not value:  # the driver says so on the UART (esp.py)
            esp.log(esp.LOG_ERROR, "wifi", "lost the access point (beacon timeout)")
        air[key] = bool(value)


def _mac():
    """This board's MAC: DOCE_SIM_MAC (12 hex digits) from the simulator, so each board of a
    room has its own; locally administered (02:...) by default."""
    text = os.getenv("DOCE_SIM_MAC") or "020000000001"
    return bytes(int(text[i:i + 2], 16) for i in range(0, 12, 2))


def strip_ma():
    """What the LED strip draws as last written: 20 mA a channel at full scale (board.json power)."""
    if not neopixel.strips or machine.spec is None:
        return 0
    per = machine.power["led_ma_per_channel"]
    return sum(neopixel.strips[0].shown()) * per / 255


class WLAN:
    PM_NONE = 0  # WIFI_PS_NONE
    PM_PERFORMANCE = 1  # WIFI_PS_MIN_MODEM: the port's default
    PM_POWERSAVE = 2  # WIFI_PS_MAX_MODEM

    def __init__(self, interface=STA_IF):
        self._active = False
        self._ssid = None
        self._polls = 0

    def active(self, on=None):
        if on is None:
            return self._active
        if on and not self._active and machine.power:
            budget = machine.power["led_budget_wifi_ma"]
            if strip_ma() > budget:  # the radio's start-up on top of a bright strip: a brown-out
                sys.stderr.write("Brownout detector was triggered: the strip drew %.0f mA (Wi-Fi budget %d mA) "
                                 "as the radio started\n" % (strip_ma(), budget))
                machine.reset(machine.PWRON_RESET)  # v1.28.0 says a brown-out is a power-on (machine.py)
        self._active = bool(on)
        if not on:
            self._ssid = None

    def connect(self, ssid, key=None):
        if not self._active:
            raise OSError("Wifi Not Started")  # network_common.c, ESP_ERR_WIFI_NOT_STARTED
        if air["join_raises"]:
            air["join_raises"] = False
            raise OSError("Wifi Internal State Error")
        if self._ssid is not None and not self._joined():
            raise OSError("Wifi Internal State Error")  # still joining: ESP_ERR_WIFI_STATE
        self._ssid = ssid
        self._polls = 0
        joins[0] += 1

    def disconnect(self):
        self._ssid = None

    def _joined(self):
        if not (self._active and self._ssid is not None and air["up"]) or air["stuck"]:
            self._polls = 0
            return False
        if self._polls < JOIN_POLLS:
            self._polls += 1
            return False
        return True

    def isconnected(self):
        return self._joined()

    def status(self):
        if self._joined():
            return STAT_GOT_IP
        return STAT_CONNECTING if self._ssid is not None else STAT_IDLE

    def config(self, name=None, **settings):
        if settings:
            for key, value in settings.items():
                if key != "pm":
                    raise ValueError("unknown config param")
                pm[0] = value
            return None
        if name == "mac":
            return _mac()
        if name == "ssid":
            return self._ssid
        if name == "pm":
            return WLAN.PM_PERFORMANCE if pm[0] is None else pm[0]
        raise ValueError("unknown config param")

    def ifconfig(self):
        return ("127.0.0.1", "255.0.0.0", "127.0.0.1", "127.0.0.1")
