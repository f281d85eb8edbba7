"""What the board says when it cannot join the Wi-Fi, from WLAN.status() as MicroPython v1.28's
ports/esp32/network_wlan.c gives it (network_wlan_status, lines 367-400): only 1010 (joined), 201
and 210-212 (no access point found), 202 (WIFI_REASON_AUTH_FAIL or CONNECTION_FAIL: a wrong
password), 1000 (idle) and 1001 (joining). A wrong WPA2 password mostly ends in a 4-way handshake
timeout (reason 15), which it does not pass through: the board shows "joining" for ever, and must
say what that likely means."""

import pytest

from doce import wifi


class FakeWLAN:
    PM_NONE = 0

    def __init__(self, interface=0):
        self.code = 1001  # STAT_CONNECTING

    def active(self, on=None):
        return True

    def config(self, *args, **kwargs):
        return b"\x02\x00\x00\x00\x00\x01"

    def connect(self, ssid, password):
        pass

    def status(self):
        return self.code


def joining(code, seconds):
    w = wifi.Wifi(FakeWLAN(), "room", "secret")
    w.wlan.code = code
    for ms in range(0, int(seconds * 1000) + 1, 100):
        w.on(ms)
    return w


def test_joining_for_ever_says_the_password_may_be_wrong():
    w = joining(1001, wifi.JOIN_SLOW_MS / 1000 + 1)
    assert "password" in w.fault and "room" in w.fault


def test_joining_a_little_while_is_no_fault():
    assert joining(1001, wifi.JOIN_SLOW_MS / 1000 - 1).fault is None


@pytest.mark.parametrize("code, says", [
    (202, "the Wi-Fi password is wrong"),
    (201, "no access point named room"),
    (210, "no access point named room with a security the board can use"),
    (211, "no access point named room with a security the board can use"),
    (212, "no access point named room with a strong enough signal"),
])
def test_each_status_the_port_gives_is_said(code, says):
    assert joining(code, 0.2).fault == says


def test_no_status_the_port_never_gives_is_listed():
    # network_wlan.c of v1.28 never returns 200, 203 or 204 from status()
    assert set(wifi.WIFI_FAULTS) == {201, 202, 210, 211, 212}
