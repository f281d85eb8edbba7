"""The board on the room's Wi-Fi: joined once, then watched through WLAN.status().

The port keeps the board on the Wi-Fi once it has joined, joining again by itself after every
drop (ports/esp32/network_wlan.c, WIFI_EVENT_STA_DISCONNECTED), and a second connect() while it
does raises (esp_wifi_set_config: ESP_ERR_WIFI_STATE). Only a join that raised is asked for again.
"""

from .ticks import ticks_add, ticks_diff

JOIN_MS = 10000  # before asking again after a connect() that raised
STAT_GOT_IP = 1010  # WLAN.status() (ports/esp32/network_wlan.c): joined, with an address
# why the port says it cannot join (WLAN.status(): ESP-IDF's wifi_err_reason_t), for status.fault
WIFI_FAULTS = {200: "the access point stopped answering", 201: "no access point with that name",
               202: "the Wi-Fi password is wrong", 203: "the access point refused the board",
               204: "the Wi-Fi handshake timed out"}


def board_id(wlan):
    """The id a board has until the organiser gives it one: its MAC, as 12 hex digits."""
    return "".join("%02x" % b for b in wlan.config("mac"))


class Wifi:
    def __init__(self, network, ssid, password):
        self.wlan = wlan = network.WLAN(network.STA_IF)
        wlan.active(True)
        # Modem sleep off: with it (the port's default, WIFI_PS_MIN_MODEM) the radio wakes only for
        # the access point's DTIM beacons, so a command from the organiser waits 100 ms or more.
        # The radio then listens all the time: the power budget already counts it transmitting.
        wlan.config(pm=wlan.PM_NONE)
        self.ssid = ssid
        self.password = password
        self.joined = False  # connect() was asked once, and took: the port does the rest
        self.join_at = None  # when to ask again after a connect() that raised
        self.fault = None  # why the board is not on the Wi-Fi, when a join or the port says: for status.fault

    def on(self, now):
        """Whether the board is on the Wi-Fi, with an address (asking the port to join first)."""
        if not self.joined:
            self.join(now)
        status = self.wlan.status()
        if status == STAT_GOT_IP:
            return True
        if status in WIFI_FAULTS:
            self.fault = WIFI_FAULTS[status]
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
