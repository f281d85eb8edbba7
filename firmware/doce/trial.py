"""A slot on trial (firmware/slots.py): it is marked good once it is healthy, that is booted, scanning
and, on a board with a broker set up, on the broker. Loaded only on a trial boot."""

import slots

# Scans before the slot counts as scanning: 100 or more ms of them (the board file scans every 1-2 ms),
# so the scanner, the lights and the link have each run many times over.
HEALTHY_SCANS = 100


class Trial:
    def __init__(self, app, network):
        self.app = app
        self.network = network  # the board has a broker set up: it must reach it
        self.scans = 0

    def check(self):
        """Once a scan: True once the slot is marked good (said in an `update` event)."""
        self.scans += 1
        if self.scans < HEALTHY_SCANS:
            return False
        net = self.app.net
        if self.network and (net is None or not net.up):
            return False
        slots.mark_good()
        self.app.emit({"event": "update", "stage": "done", "slot": slots.state["slot"]})
        return True
