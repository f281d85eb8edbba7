"""The board on the room's Wi-Fi: joined once, then watched through WLAN.status().

The port keeps the board on the Wi-Fi once it has joined, joining again by itself after every
drop (ports/esp32/network_wlan.c, WIFI_EVENT_STA_DISCONNECTED), and a second connect() while it
does raises (esp_wifi_set_config: ESP_ERR_WIFI_STATE). Only a join that raised is asked for again.
"""

from .ticks import ticks_add, ticks_diff

JOIN_MS = 10000  # before asking again after a connect() that raised
STAT_GOT_IP = 1010  # WLAN.status() (ports/esp32/network_wlan.c): joined, with an address
STAT_CONNECTING = 1001
# Why the port says it cannot join, for status.fault. MicroPython v1.28's WLAN.status()
# (ports/esp32/network_wlan.c, network_wlan_status, lines 367-400) passes on only these of ESP-IDF's
# wifi_err_reason_t: 201 NO_AP_FOUND, 210-212 NO_AP_FOUND_W_COMPATIBLE_SECURITY, _IN_AUTHMODE_THRESHOLD
# and _IN_RSSI_THRESHOLD, 202 AUTH_FAIL (also for CONNECTION_FAIL); every other reason, while the join
# is asked for, reads 1001, joining.
WIFI_FAULTS = {201: "no access point named %s", 202: "the Wi-Fi password is wrong",
               210: "no access point named %s with a security the board can use",
               211: "no access point named %s with a security the board can use",
               212: "no access point named %s with a strong enough signal"}
# A wrong WPA2 password mostly ends each try in a 4-way handshake timeout (reason 15, or 204), which
# status() does not pass on: the board reads "joining" for ever. A join takes seconds; after this long
# the board says what it most likely is.
JOIN_SLOW_MS = 30000


def board_id(wlan):
    """The id a board has until the organiser gives it one: its MAC, as 12 hex digits.

    Read before the radio starts (doce/net.py: Wifi.start comes last), and the same as after it: in
    MicroPython v1.28.0 (ports/esp32/network_wlan.c) network.WLAN() itself initialises the driver
    (esp_initialise_wifi, esp_wifi_init), and config("mac") is esp_wifi_get_mac, which needs the driver
    initialised, not started; the station's MAC it returns is the one ESP-IDF derives from the factory base
    MAC in eFuse, the same at every boot. (The simulator's WLAN gives DOCE_SIM_MAC whatever its state: this
    holds on an ESP32 only, and no test here can show it.)"""
    return "".join("%02x" % b for b in wlan.config("mac"))


class Wifi:
    def __init__(self, wlan, ssid, password):
        self.wlan = wlan  # network.WLAN(network.STA_IF): its radio starts with start()
        self.ssid = ssid
        self.password = password
        self.joined = False  # connect() was asked once, and took: the port does the rest
        self.join_at = None  # when to ask again after a connect() that raised
        self.fault = None  # why the board is not on the Wi-Fi, when a join or the port says: for status.fault
        self.joining_since = None  # when the port began to read "joining" (asked, or after a drop)
        self.slow_said = False  # JOIN_SLOW_MS passed, and said, in this join

    def start(self):
        self.wlan.active(True)
        # Modem sleep off: with it (the port's default, WIFI_PS_MIN_MODEM) the radio wakes only for
        # the access point's DTIM beacons, so a command from the organiser waits 100 ms or more.
        # The radio then listens all the time: the power budget already counts it transmitting.
        try:
            self.wlan.config(pm=self.wlan.PM_NONE)
        except BaseException:  # the radio off again: the Net is not made, so nothing else would stop it
            self.wlan.active(False)
            raise

    def on(self, now):
        """Whether the board is on the Wi-Fi, with an address (asking the port to join first)."""
        if not self.joined:
            self.join(now)
        status = self.wlan.status()
        if status == STAT_GOT_IP:
            self.joining_since = None
            return True
        if status in WIFI_FAULTS:
            said = WIFI_FAULTS[status]
            self.fault = said % self.ssid if "%s" in said else said
        if status != STAT_CONNECTING:
            self.joining_since = None
        elif self.joining_since is None:
            self.joining_since, self.slow_said = now, False
        elif not self.slow_said and ticks_diff(now, self.joining_since) >= JOIN_SLOW_MS:
            self.slow_said = True
            self.fault = ("still joining %s after %d s: check the Wi-Fi password (a wrong one shows only as "
                          "joining) and that the board is in reach of the access point" % (self.ssid,
                                                                                            JOIN_SLOW_MS // 1000))
        return False

    def join(self, now):
        """Ask the port to join the Wi-Fi: once, unless the asking itself raised."""
        if self.join_at is not None and ticks_diff(now, self.join_at) < 0:
            return
        try:
            self.wlan.connect(self.ssid, self.password)
        except OSError as e:
            self.fault = "Wi-Fi: %s" % (e.args[0] if e.args else type(e).__name__)
            self.join_at = ticks_add(now, JOIN_MS)
            return
        self.joined = True

    def up(self):
        return self.wlan.status() == STAT_GOT_IP

    def stop(self):
        self.wlan.active(False)
