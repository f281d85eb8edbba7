"""A slot on trial (firmware/slots.py): it is marked good once it is healthy, that is booted and
scanning and, on a board whose network started, on the broker. The room's Wi-Fi may be down as the boards
come back from an update: that is not the new version's fault, and an outage must not roll a whole room
back, so a slot scanning ROOM_MS with the station not joined to the Wi-Fi (doce/wifi.py not up) is healthy
without the broker, provisionally (slots.UNPROVEN_MS: this version's own Wi-Fi code may be what is down,
r43e F5). With the Wi-Fi joined and the broker not reached, it is not: a version whose MQTT or TLS
is broken would else be kept for good, and no update could reach it again; the slot's deadline gives it up.
Nor is a slot whose own network code raised as it started (doce/offline.py holds a retry, app.net stays
None): that is the version's fault, said at the deadline unless a retry starts it. A board that starts no
network at all (none set up, or refused: no PSRAM, a supply too weak for the radio) has no broker to wait for.
Loaded only on a trial boot; its deadline never resets a board while a match is in play (slots.busy)."""

import slots

from .ticks import ticks_diff

# Scans before the slot counts as scanning: 100 or more ms of them (the board file scans every 1-2 ms),
# so the scanner, the lights and the link have each run many times over. One number with a good slot's (slots.py).
HEALTHY_SCANS = slots.UP_SCANS
# How long a board scanning well waits for the broker before it is healthy without it: a board joins the
# Wi-Fi and the broker in seconds (doce/mqtt.py RETRY_MS, 2 s, between tries), well inside this; half of
# slots.TRIAL_MS, so a slot that stops scanning is still given up in time.
ROOM_MS = slots.TRIAL_MS // 2


class Trial:
    def __init__(self, app):
        self.app = app
        self.scans = 0
        self.since = None  # the first scan's time
        slots.busy = app.in_play  # the deadline waits for a match's end

    def check(self, now):
        """Once a scan that did not raise: True once the slot is marked good (said in an `update` event)."""
        self.scans += 1
        if self.since is None:
            self.since = now
        if self.scans < HEALTHY_SCANS:
            return False
        app = self.app
        net = app.net
        if net is None and app.later is not None:  # the network's start raised: a retry waits (doce/offline.py)
            if slots.why is None:  # (once: no string made at every scan)
                slots.why = "its network did not start (%s)" % app.later.kind.__name__
            return False
        slots.why = None  # (a retry started it)
        if net is not None and not net.up and (ticks_diff(now, self.since) < ROOM_MS or net.wifi.up()):
            return False  # the broker not reached: excused after ROOM_MS only by a Wi-Fi outage
        slots.mark_good(unproven=net is not None and not net.up)  # excused as an outage: provisional
        self.app.emit({"event": "update", "stage": "done", "slot": slots.state["slot"], "version": self.app.version})
        slots.busy = None
        return True

    def restarting(self):
        """The app resets the board on purpose (a reboot command): that boot on trial did not crash, and
        is not counted (slots.choose counts a boot marked `booted` that ended in a reset)."""
        p = slots.read()
        if p.get("booted") and p["slot"] != p["good"]:
            del p["booted"]
            slots.write(p)
