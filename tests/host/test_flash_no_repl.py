"""Issue 14, item 12: `doce flash --app-only` on a port where nothing answers, or where
something else chatters, stops soon with one clear line (mpremote would wait for ever)."""

import os
import subprocess
import threading

import pytest
from devices import FakeDevice

from doce_host import flash
from doce_host.link import LinkError


class Chatter(FakeDevice):
    """Something that talks all the time and never gives a MicroPython prompt."""

    def __init__(self):
        super().__init__(lambda line: b"noise > > not a prompt\r\n")
        self.going = True
        threading.Thread(target=self.talk, daemon=True).start()

    def talk(self):
        while self.going:
            try:
                os.write(self.master, b"GPS $GPGGA,123519,4807.038,N*47\r\n")
            except OSError:
                return
            threading.Event().wait(0.01)

    def close(self):
        self.going = False
        super().close()


@pytest.mark.parametrize("device", [lambda: FakeDevice(lambda line: None), Chatter], ids=["silent", "chatter"])
def test_app_only_where_no_micropython_answers_is_one_clear_line(device, monkeypatch):
    monkeypatch.setattr(flash, "run", lambda command, timeout=None: pytest.fail("ran %s" % command))
    port = device()
    try:
        with pytest.raises(LinkError, match="no MicroPython prompt answers there"):
            flash.install(port.path, app_only=True, out=open(os.devnull, "w"))
    finally:
        port.close()


def test_a_tool_that_hangs_is_stopped():
    with pytest.raises(LinkError, match="did not finish within 1 s"):
        flash.run(["sleep", "30"], timeout=1)


def test_app_only_gives_mpremote_the_time_the_apps_bytes_take_not_five_minutes(monkeypatch):
    """A port that answers like a prompt and then chatters: mpremote is stopped once the app's
    bytes would long have gone, not after the five minutes a full esptool install may need."""
    given = []
    monkeypatch.setattr(flash, "repl_answers", lambda port: True)
    monkeypatch.setattr(flash, "verify", lambda port, out: {"ok": True})
    monkeypatch.setattr(flash, "run", lambda command, timeout: given.append((command[0], timeout))
                        or subprocess.CompletedProcess(command, 0))
    flash.install("/dev/null", chip="esp32", app_only=True, out=open(os.devnull, "w"))
    ((tool, seconds),) = given
    app = flash.image.app_files("standard", chip="esp32")
    assert tool.endswith("mpremote") and seconds == flash.copy_seconds(app)
    assert 30 < seconds < flash.TOOL_SECONDS / 2  # about a minute for the app's ~150 KB
