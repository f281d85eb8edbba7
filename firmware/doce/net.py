"""The board on Wi-Fi and MQTT: one room of boards on one broker (docs/protocol.md, "MQTT").

Loaded only on a board whose Wi-Fi is set up (net.json), so a board on USB alone pays nothing.
Topics, under the organiser's prefix and this board's id:
  <prefix>/<id>/state    retained: the same state as the USB `state` reply
  <prefix>/<id>/events   QoS 1: the same events as on USB, with their seq
  <prefix>/<id>/cmd      the same commands as on USB, handled by the same code (doce/link.py)
  <prefix>/<id>/reply    their replies
  <prefix>/<id>/status   retained: online, or offline (the broker's last will)

Net is the board's MQTT session (doce/mqtt.py) on the Wi-Fi (doce/wifi.py), its events kept in
an outbox until the broker has them (doce/outbox.py); the settings are doce/netconfig.py's.
"""

import json
import os

from .mqtt import Session
from .netconfig import ca_chunk, ca_received, config_fault, load_config, shown, store
from .outbox import KEEP_FREE, Outbox, fits
from .ticks import ticks_add, ticks_diff
from .wifi import Wifi, board_id

STATE_MS = 500  # the retained state at most this often: it is a few hundred bytes of JSON


class Net(Session):
    def __init__(self, app, link, config, network):
        self.app = app
        self.link = link
        wlan = network.WLAN(network.STA_IF)  # (its radio starts below, last)
        Session.__init__(self, config, config.get("board_id") or board_id(wlan))
        base = "%s/%s/" % (config.get("prefix") or "doce", self.id)
        self.topics = {k: (base + k).encode() for k in ("state", "events", "cmd", "reply", "status")}
        self.outbox = Outbox(app, link, self.topics["events"])
        self.state_due = True
        self.state_at = None
        self.status_due = False  # the status changed, and could not be said then: work() says it
        self.commands = []  # payloads from cmd, handled one a scan
        self.boot = "%08x" % int.from_bytes(os.urandom(4), "big")
        self.remote = None  # a match with a friend's board (doce/remote.py): its own topics ride on ours
        self.news = None  # an end or a refusal for a friend's board, till the broker has it (doce/remote.py News)
        self.now = 0  # this scan's ticks, for __exit__
        self.wifi = Wifi(wlan, config.get("ssid", ""), config.get("password", ""))
        # The LEDs' cap drops, and the strip shows it, before the radio starts: strip and radio must fit
        # in USB power together (hardware/README.md, power budget; hardware/board.json). Last, once the
        # rest is made: a start that runs out of heap leaves the USB cap as it was (start() undoes it).
        board = app.board
        board.brightness_cap = board.brightness_cap_wifi
        app.set_brightness(app.lights.brightness)
        app.show_lights()
        self.wifi.start()

    # -- what the board sends ------------------------------------------------------

    def event(self, event):
        """An event the link just numbered: it waits in the outbox until the broker has it."""
        event = self.outbox.add(event)
        self.state_due = True
        if self.remote:
            self.remote.event(event)

    def reply(self, message):
        """A command's reply, into an empty pipe (work). One longer than the pipe's room (the board check's
        sensors, 3.4 KB) would grow its buffer past it and move it: refused in a short reply instead."""
        if not self.up:
            return
        topic = self.topics["reply"]
        payload = json.dumps(message).encode()
        if len(payload) + len(topic) + 7 > self.pipe.room - KEEP_FREE:  # (as outbox.fits counts a packet's bytes)
            short = {"re": message.get("re"), "ok": False, "error": "too_long",
                     "message": "the reply is %d bytes, more than the board sends on MQTT at once (%d): ask "
                                "for it over USB" % (len(payload), self.pipe.room - KEEP_FREE)}
            if "id" in message:
                short["id"] = message["id"]
            payload = json.dumps(short).encode()
        self._publish(topic, payload, False, 0)

    # -- once a scan -------------------------------------------------------------

    def poll(self, now):
        """Never raises: whatever the network does, play goes on."""
        self.now = now
        with self:  # (not try/except ... as e: its two handlers put the frame on the heap; doce/mqtt.py)
            self._poll(now)
        if self.remote:
            self.remote.step(now)

    def __enter__(self):
        return self

    def __exit__(self, kind, e, trace):
        if isinstance(e, Exception):  # a broker's bad packet, a socket's odd error, a TLS refusal
            self.failed(e)
            self.drop(self.now)
            return True
        return False

    def _poll(self, now):
        wifi = self.wifi
        on = wifi.on(now)
        if not on and self.sock:
            self.drop(now)
        if wifi.fault:
            self.fault, wifi.fault = wifi.fault, None
        if not on:
            self.next_try = None  # the broker was not at fault: try it as soon as the Wi-Fi is back
            return
        self.step(now)

    # -- the hooks of the MQTT session (doce/mqtt.py) -------------------------------

    def will(self):
        return self.topics["status"], self._status(False)

    def _status(self, online):
        # boot: this power-on's own number, since seq starts again at every boot (docs/protocol.md)
        status = {"online": online, "id": self.id, "name": self.config.get("name") or self.id,
                  "boot": self.boot, "seq": self.link.seq, "version": self.app.version}
        if self.app.trial is not None:
            status["trial"] = True  # the room shows it on trial until the status says otherwise (doce/esp32.py)
        if online and getattr(self.app.controller.versus, "paused", False):
            status["away"] = True  # paired, its match not running here (doce/offline.py): away to the friend's board
        return json.dumps(status).encode()

    def said_status(self):
        """The status again, what it says changed (a friend's match running here now). Never raises: a
        match that runs must not count as failed for its status (doce/remote.py begin). Out of heap, or of
        room in the pipe (a slow broker), the status is due, and work() says it at a later scan."""
        self.status_due = False
        if not self.up:
            return  # connected() says it
        out = self.pipe.out
        before = len(out)
        try:
            status = self._status(True)
            if fits(self.pipe, self.topics["status"], status):
                self._publish(self.topics["status"], status, True, 1)
            else:
                self.status_due = True
        except Exception:  # noqa: BLE001  (out of heap)
            out[before:] = b""  # a packet half written is no packet: the broker would drop us for it
            self.status_due = True

    def connected(self, now):
        self.subscribe(self.topics["cmd"])
        self.said_status()
        if self.remote:
            self.remote.connected()
        if self.news:
            self.news.connected()
        self.state_due = True
        self.outbox.connected()

    def work(self, now):
        """A scan's publishing, within the pipe's room (Pipe.room: past it, its buffer would grow and move):
        the status and news for friends' boards if they fit, a command's reply, into an empty pipe (its size
        is known only once it is made), then the state if what is left has room for it, then as many events
        as fit in the rest (doce/outbox.py fits). The friend's message waits for room too (doce/remote.py)."""
        if self.status_due:
            self.said_status()
        if self.news:
            self.news.send(self)
        if self.commands and not self.pipe.out:
            self.handle(self.commands.pop(0))
        if self.state_due and due(now, self.state_at, STATE_MS):
            self.said_state(now)
        self.outbox.send(self)

    def said_state(self, now):
        """The retained state, if the pipe has room left for it this scan; else it stays due, and is made
        again STATE_MS later (the drain of a backlog fills the room only for a few scans)."""
        from .state import snapshot
        self.state_at = ticks_add(now, STATE_MS)
        state = json.dumps({"state": snapshot(self.app), "seq": self.link.seq}).encode()
        if fits(self.pipe, self.topics["state"], state):
            self.state_due = False
            self._publish(self.topics["state"], state, True, 0)

    def handle(self, payload):
        """A command from cmd: the USB link's handler, its reply sent to reply."""
        link = self.link
        link.to = self.reply
        try:
            if payload is None or len(payload) > 200:  # doce/link.py MAX_LINE: one protocol, one limit
                link.reply(None, None, error="line_too_long", message="a line is at most 200 bytes")
            else:
                link.handle(payload, len(payload))
        finally:
            link.to = None

    def incoming(self, topic, msg):
        # An empty message is how MQTT clears a retained one (the organiser's tools do): no command.
        # Only cmd is refused when retained: a friend's remote news is retained on purpose (remote.py).
        if topic == self.topics["cmd"]:
            if msg and not self.retained and len(self.commands) < 4:  # more would be a flood
                self.commands.append(msg)
        elif self.remote:
            self.remote.incoming(topic, msg)

    def passed_over(self, topic):
        """A PUBLISH too big to read, passed over: on cmd (or a topic not known yet) it is answered
        as a line too long; on a friend's topic it is a message from it refused (doce/remote.py)."""
        if self.remote and topic is not None and topic != self.topics["cmd"]:
            self.remote.too_long(topic)
        elif topic in (None, self.topics["cmd"]) and len(self.commands) < 4 and not self.retained:
            self.commands.append(None)

    def puback(self, pid):
        self.outbox.acked(pid)
        if self.remote:
            self.remote.puback(pid)
        if self.news:
            self.news.puback(self, pid)

    def stop(self):
        self.up = False  # we end it: no broker's fault
        self.drop(0)
        self.wifi.stop()
        usb(self.app)

    def status(self):
        stage = "up" if self.up else "mqtt" if self.client else "tcp" if self.sock else "wifi"
        return {"wifi": self.wifi.up(), "broker": self.up, "stage": stage, "out": len(self.pipe.out),
                "in": len(self.pipe.inbox), "board_id": self.id, "waiting": self.outbox.waiting(),
                "lost": self.outbox.lost, "connects": self.connects, "fault": self.fault}


def due(now, at, ahead):
    """Whether the time `at` has come (None: at once). A mark set at most `ahead` ms ahead that
    seems further ahead is stale, from before the ticks wrapped (on the ESP32 every 2^30 ms,
    about 12 days: ticks_diff then reads a mark over 2^29 ms old as in the future)."""
    return at is None or not 0 < ticks_diff(at, now) <= ahead


def start(app, link):
    """Wi-Fi and MQTT as net.json says, if it says enough; the Net, or None."""
    import gc
    gc.collect()  # the network's modules loaded: their garbage gone before what lasts (doce/app.py)
    config = load_config()
    if not config.get("ssid") or not config.get("broker"):
        return None
    fault = config_fault(config)
    if fault:  # never publish on a topic it did not mean, nor subscribe to a wildcard
        app.emit({"event": "warning", "message": "net.json: %s; not connecting (set it again: doce config mqtt)"
                                                  % fault})
        return None
    supply = app.supply
    if supply is not None and not supply.carries_wifi():  # read now: the board may have moved to a charger
        # a computer's port leaves no 10 % of its 500 mA with the radio on (hardware/power.py SUPPLIES)
        app.emit({"event": "warning", "message": supply.refusal()})
        return None
    import network
    net = None
    try:
        net = Net(app, link, config, network)
        gc.collect()  # the outbox's replay of the journal: its garbage gone before more lasts (doce/app.py)
        if "remote-news.json" in os.listdir():  # an end or a refusal for a friend's board, not yet told
            from .remote_news import load_news
            load_news(net)
        if app.remote:  # a match with a friend's board goes on over the new connection
            app.remote.attach(net)
    except BaseException:  # (out of heap, most likely): no radio, no lowered cap, no Net half made
        if net is not None:
            net.wifi.stop()
            net.remote = None
        usb(app)
        raise
    app.net = link.net = net  # only now: a start that failed above is all done again (doce/offline.py)
    return net


def usb(app):
    """The LEDs' cap back to the USB one (the radio off)."""
    board = app.board
    if board.brightness_cap != board.brightness_cap_usb:
        board.brightness_cap = board.brightness_cap_usb
        app.set_brightness(app.lights.brightness)


# -- the USB commands that set it up (doce/link.py hands them here) --------------------------


def command(link, request, start_network):
    """wifi, mqtt: store settings (a password is never sent back); mqtt_ca: the room's CA, in
    chunks; net: settings and status. A change starts the network again on the new settings, with
    start_network(app, link) (doce/offline.py's, as at boot); what did not start is in `waits`, said
    as its error event said it, and tried again later."""
    cmd = request["cmd"]
    config = load_config()
    if cmd == "mqtt_ca":
        if not ca_chunk(request):
            return {"received": ca_received()}
    elif cmd != "net":
        store(request, config)
    if cmd != "net":
        app = link.app
        if link.net:
            link.net.stop()
            app.net = link.net = None
        start_network(app, link)  # as at boot: a start that fails waits for a retry, the friend's pieces held
    result = {"config": shown(config)}
    supply = link.app.supply
    if supply is not None:  # what the board's USB-C input offers, and why Wi-Fi is off if it is for that
        from .supply import NAMES, WIFI_LEAST
        result["supply"] = NAMES[supply.kind]
        if not link.net and supply.kind < WIFI_LEAST and config.get("ssid") and config.get("broker"):
            result["refused"] = supply.refusal()
    if cmd == "mqtt_ca":
        result["received"] = ca_received()
    if link.net:
        result["status"] = link.net.status()
    if link.app.later is not None:  # the settings are kept, but the network or the match did not start
        result["waits"] = link.app.later.why
    return result
