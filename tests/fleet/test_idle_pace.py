"""The board's loop (doce/esp32.py run) slows its scans after a quiet second, and is back to
full pace at the first change: what keeps an idle board, and an idle simulated board, cheap.
On CPython, with a clock that moves only when the loop sleeps or scans."""

import sys
import types

import pytest

from doce_host.paths import FIRMWARE_DIR


IDLE_MS = 2
COLLECTION_MS = 6  # a collection of the board's heap at rest (make bench: 5.5 ms an empty heap, up to 14 ms a live one)


class Stop(BaseException):
    pass


class Clock:
    def __init__(self, sleeps):
        self.now = 0
        self.sleeps = []
        self.limit = sleeps

    def ticks_ms(self):
        return self.now

    def ticks_us(self):
        return self.now * 1000

    def ticks_diff(self, a, b):
        return a - b

    def sleep_ms(self, ms):
        self.sleeps.append((self.now, ms))
        self.now += ms
        if len(self.sleeps) >= self.limit:
            raise Stop


class App:
    """Quiet except for 30 ms from each time in `moving` (ms): a die landing."""

    def __init__(self, clock, moving=(), link_busy=(), collecting=()):
        self.clock = clock
        self.moving = set(moving)
        self.collecting = set(collecting)
        self.link = types.SimpleNamespace(backlog=0, n=0)
        self.link_busy = set(link_busy)
        self.board = types.SimpleNamespace(pins={"button": 0}, scan_period_ms=1, idle_scan_period_ms=IDLE_MS)
        self.emit = lambda event: None
        self.changed = False

    def step(self, now):
        self.clock.now += 1  # a scan takes a while
        if any(t <= now < t + 1 + IDLE_MS for t in self.collecting):  # once, whichever scan it falls in
            self.collecting = set()
            self.clock.now += COLLECTION_MS
        self.changed = any(t <= now < t + 30 for t in self.moving)
        busy = any(t <= now < t + 30 for t in self.link_busy)
        self.link.backlog = 5 if busy else 0

    def button(self, pressed, now):
        pass

    def quiet(self):
        return not self.changed


@pytest.fixture
def esp32(monkeypatch):
    pin = types.SimpleNamespace(IN=0, OUT=1, PULL_UP=2)
    machine = types.SimpleNamespace(Pin=lambda *a, **k: (lambda: 1), reset=lambda: None,
                                    WDT=lambda **k: types.SimpleNamespace(feed=lambda: None))
    machine.Pin.IN, machine.Pin.OUT, machine.Pin.PULL_UP = pin.IN, pin.OUT, pin.PULL_UP
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "neopixel", types.SimpleNamespace())
    monkeypatch.setitem(sys.modules, "esp", types.SimpleNamespace(osdebug=lambda *a: None, LOG_NONE=0))
    monkeypatch.delitem(sys.modules, "doce.esp32", raising=False)
    # firmware/ as the board's root, where doce.esp32 finds slots.py: left to whichever test ran before
    # on this worker, the file failed alone ("No module named 'slots'")
    monkeypatch.syspath_prepend(str(FIRMWARE_DIR))
    import doce.esp32 as module
    yield module
    sys.modules.pop("doce.esp32", None)


def run(esp32, monkeypatch, sleeps, **app_args):
    clock = Clock(sleeps)
    app = App(clock, **app_args)
    monkeypatch.setattr(esp32, "time", clock)
    monkeypatch.setattr(esp32, "build", lambda link=None: app)
    with pytest.raises(Stop):
        esp32.run()
    return clock.sleeps


def pace_at(sleeps, t):
    """The sleep the loop chose at the first scan at or after t ms."""
    return next(ms for at, ms in sleeps if at >= t)


def test_the_loop_slows_after_a_quiet_second_and_is_back_at_full_pace_at_the_first_change(esp32, monkeypatch):
    sleeps = run(esp32, monkeypatch, 2500, moving=(3000,))
    idle, after = IDLE_MS, esp32.IDLE_AFTER_MS
    assert idle > 1 and pace_at(sleeps, 0) == 1 and pace_at(sleeps, after // 2) == 1
    assert pace_at(sleeps, after + 50) == idle  # a quiet second: the idle pace
    moved = next(i for i, (at, ms) in enumerate(sleeps) if at >= 3000)
    assert all(ms == 1 for _, ms in sleeps[moved:moved + 100])  # the change: full pace at once, for a second
    assert sleeps[-1][1] == idle  # and a quiet second later, the idle pace again


def test_a_host_talking_over_usb_keeps_the_full_pace(esp32, monkeypatch):
    sleeps = run(esp32, monkeypatch, 600, link_busy=range(0, 4000, 500))
    assert all(ms == 1 for _, ms in sleeps)


def test_a_step_that_collected_is_followed_by_no_sleep(esp32, monkeypatch):
    """A collection at rest (doce/app.py's gc.threshold) takes the idle sleep's place: a die landing
    just after the read waits for the collection or the sleep, not both (make bench charges only the
    collection's excess over the sleep)."""
    sleeps = run(esp32, monkeypatch, 1200, collecting=(2000,))
    collected = next(i for i, (at, ms) in enumerate(sleeps) if at >= 2000 + 1 + COLLECTION_MS)
    at, ms = sleeps[collected]
    assert ms == 0, sleeps[collected - 2:collected + 2]
    assert at - sleeps[collected - 1][0] == IDLE_MS + 1 + COLLECTION_MS  # the step that collected came next
    assert pace_at(sleeps, 1500) == IDLE_MS and all(ms == IDLE_MS for _, ms in sleeps[collected + 1:])
