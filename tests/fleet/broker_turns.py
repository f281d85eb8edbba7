"""A pump for `doce fleet update` (doce_host/fleet/update.py run) on lockstep simulated boards that scans them only
when it is of use: once what the organiser sent has reached them, and not again before the organiser has answered
what they said.

A board's scans are its CPU (and pytest's, the harness's). A pump that scans every board each pass and then gives
the broker a fixed 2 ms meets a command still on its way with idle scans, more of them the busier the machine
(hs6: test_fleet_update_room took 451 CPU-s under load, 30 alone). Here the waits are on events instead:
- the Room subscribes to the boards' cmd topics too, so its copy of a command sent says Mosquitto has passed it on,
  to the board's socket as well: the boards are run once every command sent has come back so (or ECHO_S on);
- after a reply (or any word from a board) the update loop takes it and sends the next request in its next
  pass, so that pass's pump does not scan (once): a scan then would find nothing come yet.
The waits are only pacing, capped in wall seconds: if one runs out the boards scan as before, so a test is slower
for it, never wrong."""

import threading

ECHO_S = 0.5  # a command's copy back through a local broker takes a few ms, far more only on a loaded machine
REPLY_S = 0.05  # a board's reply to what it took in its scans: also ms; on, not wrong, if it takes longer


class Turns:
    def __init__(self, room, step):
        """`step()` scans the boards (each as the test likes); the pump is the object, called."""
        self.room, self.step = room, step
        self.changed = threading.Condition()
        self.sent = self.echoed = self.heard = 0
        self.skip_at = None  # `sent` when a word came: the next pass does not scan unless more was sent since
        sent, taken = room.send, room.client.on_message

        def send(*args, **kwargs):
            with self.changed:
                self.sent += 1
            return sent(*args, **kwargs)

        def on_message(client, userdata, msg):  # (paho's thread)
            taken(client, userdata, msg)
            with self.changed:
                if msg.topic.endswith("/cmd"):
                    # (an empty one clears a retained command; a copy late after ECHO_S must not run ahead)
                    self.echoed = min(self.echoed + bool(msg.payload), self.sent)
                else:
                    self.heard += 1
                self.changed.notify_all()
        room.send, room.client.on_message = send, on_message

    def asking(self):
        """True while a request sent has had no reply."""
        with self.room.lock:
            return any(reply is None for _, reply in self.room.asked.values())

    def __call__(self):
        with self.changed:
            if not self.changed.wait_for(lambda: self.echoed >= self.sent, ECHO_S):
                self.echoed = self.sent  # a copy that never comes (a broker that keeps it from us) costs one wait
            if self.skip_at is not None and self.skip_at == self.sent:
                self.skip_at = None
                return
            self.skip_at, heard = None, self.heard
        self.step()
        asking = self.asking()  # (a reply may have come already, as the boards scanned)
        with self.changed:
            if self.changed.wait_for(lambda: self.heard > heard, REPLY_S if asking else 0):
                self.skip_at = self.sent
