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
Healthy, it is kept only once its own update code has read back the package it came in, as a begin and a commit
of it would (doce/update.py check, a part a scan, between matches): a version whose updater refuses or fails
that could never be updated again (r43e F6), and is given up at once, its version refused. A MemoryError loading
that code is tried again at the next scan, the deadline the bound: a split heap is not the version's fault.
Loaded only on a trial boot; its deadline does not reset a board while a match is in play or a piece is on it
(slots.busy: an hour at most, slots.MAX_WAIT_MS), nor does marking it good write the pointer then (check)."""

import slots

from .arguments import CommandError
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
        self.reading = None  # the slot's own package read back by its own update code (updates), once begun
        self.updates_ok = False  # and read back whole
        self.healthy_at = None  # the scan's time it was first healthy: marked good once the board is clear (check)
        self.unproven = False  # healthy only as a Wi-Fi outage excuses it (slots.mark_good)
        slots.busy = app.at_the_board  # the deadline waits for a match's end and a clear board

    def check(self, now):
        """Once a scan that did not raise: True once the slot is marked good (said in an `update` event)."""
        if self.healthy_at is None:
            if not self._healthy(now):
                return False
            self.healthy_at = now
            slots.healthy = True  # its deadline gives it up no more (slots._expired)
        # Marking it good writes the pointer: some 3 ms of page programs, and in one write of ten or so a LittleFS
        # metadata compaction's sector erase as well, 51-100 ms (445-875 ms at the W25Q64JV's maximum times;
        # slots.up's write, 30 boots in the simulator). A die landing meanwhile waits for its light, so the write
        # waits for a clear board as an update's flash steps do (doce/link.py), slots.MAX_WAIT_MS at most.
        if self.app.at_the_board() and ticks_diff(now, self.healthy_at) < slots.MAX_WAIT_MS:
            return False
        slots.mark_good(unproven=self.unproven)  # excused as an outage: provisional
        self.app.emit({"event": "update", "stage": "done", "slot": slots.state["slot"], "version": self.app.version})
        slots.busy = None
        return True

    def _healthy(self, now):
        """Whether the slot is healthy (the module's docstring), at this scan; `unproven` then set."""
        self.scans += 1
        if self.since is None:
            self.since = now
        if self.scans < HEALTHY_SCANS:
            return False
        if not self.updates_ok and not self._updates():  # (while the network comes up, or the room's Wi-Fi)
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
        self.unproven = net is not None and not net.up
        return True

    def _updates(self):
        """A scan's part of the slot's own update code reading back the package it came in (doce/update.py
        check): True once it has; a refusal, or a fault in that code, gives the slot up (slots.give_up)."""
        if self.app.in_play():  # its reads wait for the match's end, as an update's do (doce/link.py)
            return False
        done = False
        try:
            if self.reading is None:
                from .update import check
                self.reading = check(self.app)
            done = self.reading.step() is not None
        except MemoryError:  # its module not loaded for want of a run of heap: again next scan (the deadline)
            self.reading = None
            slots.why = "its update code did not fit the heap to check the package it came in"
            return False
        except CommandError as e:
            self._refused(e.args[1])
        except Exception as e:  # noqa: BLE001  (its update code broken: it could not take an update either)
            self._refused("%s: %s" % (type(e).__name__, e))
        if not done:
            return False
        self.reading = None
        self.updates_ok = True
        from .loaded import forget
        forget("doce.update")
        return True

    def _refused(self, why):
        slots.why = None
        slots.give_up("its update code refused the package it came in (%s): it could take no update"
                      % str(why)[:120])

    def restarting(self):
        """The app resets the board on purpose (a reboot command): that boot on trial did not crash, and
        is not counted (slots.choose counts a boot marked `booted` that ended in a reset)."""
        p = slots.read()
        if p.get("booted") and p["slot"] != p["good"]:
            del p["booted"]
            slots.write(p)
