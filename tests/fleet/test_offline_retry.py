"""doce/offline.py's Retry and doce/outbox.py's share of a scan, on CPython with small fakes: what a
simulated board cannot be made to do on purpose (a fault other than MemoryError in a retry), or what
needs counting byte by byte (a full outbox's burst)."""

import sys
import types

from doce import offline, outbox
OUT_ROOM = 2048  # doce/mqtt.py (which needs umqtt: not on CPython)


class FakeJournal:
    paired = b"\x7f\x3a\x01\xc2\x00"  # this board white: the friend black
    acked = 0


class FakeApp:
    def __init__(self):
        self.controller = types.SimpleNamespace(journal=FakeJournal(), versus=None, changed=False, unwritten=[])
        self.net = self.remote = self.later = None
        self.link = types.SimpleNamespace(app=self)
        self.events = []
        self.emit = self.events.append


def test_any_fault_in_a_retry_puts_the_guard_back_says_it_once_and_stays_armed(monkeypatch):
    """Retry.step took the Away off and let anything but a MemoryError escape: no guard, no retry, the
    friend's pieces went down here alone (a hostile review of issue 41, finding 5)."""
    app = FakeApp()
    faults = [MemoryError("memory allocation failed, allocating 1280 bytes")]  # the boot's, then the retries'
    failing = types.ModuleType("doce.net")

    def start(app, link):
        raise faults.pop(0) if faults else OSError(5, "EIO")
    failing.start = start
    monkeypatch.setitem(sys.modules, "doce.net", failing)
    monkeypatch.setattr(sys.modules["doce"], "net", failing, raising=False)
    offline.start_network(app, app.link)
    assert isinstance(app.controller.versus, offline.Away) and app.controller.versus.colour == 1
    assert app.controller.versus.paused == offline.PAUSED and "out of memory" in offline.PAUSED
    assert len(app.events) == 1
    for retry in range(3):
        later = app.later
        assert isinstance(later, offline.Retry)
        later.step(0)
        later.step(offline.RETRY_MS)  # the retry: an OSError now
        assert isinstance(app.controller.versus, offline.Away)
        assert app.later is offline.RETRY and app.later.at is None  # armed again, from its next scan
    # what `doce remote end` and the button are told names the fault: not out of memory (r41d finding 4)
    assert app.controller.versus.paused == offline.PAUSED_BY_FAULT and "out of memory" not in offline.PAUSED_BY_FAULT
    said = [e["message"] for e in app.events]
    assert len(said) == 2 and "OSError" in said[1] and "tries again" in said[1], said  # once, not at every retry


class FakeSession:
    def __init__(self):
        self.pipe = types.SimpleNamespace(out=bytearray(), room=OUT_ROOM)
        self.pid = 0

    def _publish(self, topic, payload, retain, qos):
        self.pid += 1
        self.pipe.out.extend(b"\x32\x00" + topic + b"\x00\x01" + payload)  # about as umqtt writes it
        return self.pid


def test_a_full_outbox_goes_out_a_pipe_room_at_a_time():
    """Outbox.send published every unsent event in one scan: a full outbox (64 events, some 5 KB) grew
    the pipe past OUT_ROOM and moved its buffer (a hostile review of issue 41, by reading)."""
    box = outbox.Outbox.__new__(outbox.Outbox)
    box.app = types.SimpleNamespace(controller=types.SimpleNamespace(unwritten=[]))
    box.journal = FakeJournal()
    box.topic = b"doce/b1/events"
    box.behind = None
    box.done = 0
    box.events = [[seq, b'{"event": "placed", "player": "white", "cell": "c3", "value": 4, "tag": "7f3a01c2", '
                        b'"record": %d, "seq": %d}' % (seq, seq), 0, seq] for seq in range(1, outbox.OUTBOX + 1)]
    session = FakeSession()
    scans = 0
    while any(not item[2] for item in box.events):
        box.send(session)
        assert len(session.pipe.out) <= OUT_ROOM
        session.pipe.out[:] = b""  # written to the socket
        scans += 1
        assert scans <= outbox.OUTBOX
    assert scans > 1
    assert [item[2] for item in box.events] == list(range(1, outbox.OUTBOX + 1))  # each once, in order


def test_a_radio_that_fails_to_set_up_is_turned_off_again():
    """Wifi.start turned the radio on, then set its power saving: a fault there left Net.__init__ unfinished,
    so start()'s cleanup had no Net to stop, and the radio stayed on with the LEDs back at the USB cap, the
    two over the USB budget (a hostile review of issue 41, r41d finding 4, by reading)."""
    from doce.wifi import Wifi

    class FakeWlan:
        PM_NONE = 0
        on = False

        def active(self, on):
            self.on = on

        def config(self, **settings):
            raise OSError(5, "EIO")  # as the port's esp_wifi_set_ps failing
    wlan = FakeWlan()
    try:
        Wifi(wlan, "club", "").start()
    except OSError:
        pass
    else:
        raise AssertionError("the fault was swallowed")
    assert wlan.on is False
