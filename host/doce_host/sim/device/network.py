"""The ESP32's `network` module, simulated: one station interface on a room's Wi-Fi.

The unix port has no `network` module; this one stands in for it. Joining takes a few
polls, as on a board where WLAN.connect() returns at once and the join goes on in the
background (docs.micropython.org, library/network.WLAN.html). The air itself is `air`:
the simulator takes it down and brings it back (side_channel.act, "wifi"), and a board that
was joined then reads as not connected, as after a real drop. Sockets are the unix
port's own, so MQTT goes to a real broker over real TCP.
"""

import os

STA_IF = 0
AP_IF = 1
STAT_IDLE = 1000  # ports/esp32/network_wlan.c: the STAT_* values it exposes
STAT_CONNECTING = 1001
STAT_GOT_IP = 1010
JOIN_POLLS = 3  # isconnected() calls before a join completes: it is not instant on a board

air = [True]  # the room's access point is on the air


def set_air(up):
    air[0] = bool(up)


def _mac():
    """This board's MAC: DOCE_SIM_MAC (12 hex digits) from the simulator, so each board of a
    room has its own; locally administered (02:...) by default."""
    text = os.getenv("DOCE_SIM_MAC") or "020000000001"
    return bytes(int(text[i:i + 2], 16) for i in range(0, 12, 2))


class WLAN:
    def __init__(self, interface=STA_IF):
        self._active = False
        self._ssid = None
        self._polls = 0

    def active(self, on=None):
        if on is None:
            return self._active
        self._active = bool(on)
        if not on:
            self._ssid = None

    def connect(self, ssid, key=None):
        if not self._active:
            raise OSError("Wifi Not Started")  # what the ESP32 port raises (network_wlan.c)
        self._ssid = ssid
        self._polls = 0

    def disconnect(self):
        self._ssid = None

    def isconnected(self):
        if not (self._active and self._ssid and air[0]):
            self._polls = 0
            return False
        if self._polls < JOIN_POLLS:
            self._polls += 1
            return False
        return True

    def status(self):
        if self.isconnected():
            return STAT_GOT_IP
        return STAT_CONNECTING if self._ssid else STAT_IDLE

    def config(self, name):
        if name == "mac":
            return _mac()
        if name == "ssid":
            return self._ssid
        raise ValueError("unknown config param")

    def ifconfig(self):
        return ("127.0.0.1", "255.0.0.0", "127.0.0.1", "127.0.0.1")
