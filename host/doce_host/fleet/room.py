"""The organiser's view of a room of boards, over MQTT (paho-mqtt).

Every board publishes under <prefix>/<id>/ (doce/net.py, docs/protocol.md "MQTT"): a retained
status and state, QoS 1 events, and replies to commands sent on its cmd topic. A Room
subscribes to all of them and keeps, per board, the latest of each and the events in order:
an event the board sends again (QoS 1 is at least once: a lost PUBACK means a repeat) is
recognised by its seq and kept once. A game event also names its match and journal record
(`tag`, `record`): one the board makes again from its journal after a reboot (`again`) is
kept only if its first sending never arrived.
"""

import itertools
import json
import threading
import time

import paho.mqtt.client as mqtt

from .broker import BrokerError, parse_url

CONNECT_S = 10


class Board:
    def __init__(self, ident):
        self.id = ident
        self.name = ident
        self.online = None
        self.boot = None
        self.state = None
        self.seq = 0  # the last event kept, this boot
        self.events = []  # (boot, event), in the order the board numbered them
        self.repeats = 0  # events the board sent again, dropped here
        self.recorded = set()  # (tag, record, event) of each game event kept
        self.last_seen = None
        self.changed = 0  # the room's version at this board's last message

    def row(self):
        s = (self.state or {}).get("state") or {}
        return {"id": self.id, "name": self.name, "online": bool(self.online), "rules": s.get("rules"),
                "rules_checksum": s.get("rules_checksum"), "round": s.get("round"), "totals": s.get("totals"),
                "mode": s.get("mode"), "last_seen": self.last_seen, "events": len(self.events)}


class Room:
    def __init__(self, url, prefix="doce", user=None, password=None, session=None):
        """session: a name for a lasting session: the broker keeps what comes for this Room while
        it is away (a broker restart, a lost link) and hands it over when it is back."""
        self.host, self.port = parse_url(url)
        self.prefix = prefix
        self.boards = {}
        self.replies = []
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.ids = itertools.count(1)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=session or "doce-fleet-%d" % id(self),
                                  clean_session=session is None)
        self.client.reconnect_delay_set(0.2, 2)  # a broker back from a restart is used again at once
        if user:
            self.client.username_pw_set(user, password)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.refused = None
        self.on_event = None  # called (board id, event, its latest state) for each event kept
        self.on_change = None  # called (from paho's thread) after each message that moved the version on
        self.version = 0  # counts the boards' messages: a page waits for it to change
        self.joined = 0  # the version at which the last board new to the room appeared

    def connect(self, timeout=CONNECT_S):
        try:
            self.client.connect(self.host, self.port, keepalive=30)
        except OSError as e:
            raise BrokerError("cannot reach the broker at %s:%d (%s)" % (self.host, self.port, e)) from None
        self.client.loop_start()
        if not self.connected.wait(timeout) or self.refused:
            self.close()
            raise BrokerError("the broker at %s:%d %s" % (self.host, self.port, self.refused or "did not answer"))
        return self

    def _on_connect(self, client, userdata, flags, reason, properties=None):
        if reason.is_failure:
            self.refused = "refused the connection (%s)" % reason
        else:
            client.subscribe("%s/+/+" % self.prefix, qos=1)
        self.connected.set()

    def board(self, ident):
        if ident not in self.boards:
            self.boards[ident] = Board(ident)
        return self.boards[ident]

    def _on_message(self, client, userdata, msg):
        before = self.version
        self._take(msg)
        if self.version != before and self.on_change:
            self.on_change()

    def _take(self, msg):
        parts = msg.topic.split("/")
        if len(parts) < 3:
            return
        ident, kind = parts[-2], parts[-1]
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            return  # not a board's (a board sends JSON): nothing to keep
        if not isinstance(payload, dict):
            return
        with self.lock:
            if kind == "cmd":
                return
            new = ident not in self.boards
            b = self.board(ident)
            b.last_seen = time.time()
            self.version += 1
            b.changed = self.version
            if new:
                self.joined = self.version
            if kind == "status":
                b.online = payload.get("online") is True
                b.name = str(payload.get("name") or ident)
                if payload.get("boot") != b.boot:  # a new power-on: its seq starts again
                    b.boot = payload.get("boot")
                    b.seq = 0
            elif kind == "state":
                b.state = payload
            elif kind == "events":
                seq = payload.get("seq")
                key = (payload.get("tag"), payload.get("record"), payload.get("event"))
                if not isinstance(seq, int) or seq <= b.seq or (key[1] and key in b.recorded):
                    b.repeats += 1
                    return
                b.seq = seq
                if key[1]:
                    b.recorded.add(key)
                b.events.append((b.boot, payload))
                if self.on_event:
                    self.on_event(ident, payload, b.state)
            elif kind == "reply":
                self.replies.append((ident, payload))

    def command(self, ident, cmd, timeout=5.0, pump=None, **args):
        """Send a command to one board and wait (at most `timeout` s) for its reply, or None.
        `pump` is called while waiting (a lockstep simulator must scan to answer)."""
        request_id = "fleet-%d" % next(self.ids)
        args.update(cmd=cmd, id=request_id)
        # compact, as on USB: a command is one line of at most 200 bytes (docs/protocol.md)
        self.client.publish("%s/%s/cmd" % (self.prefix, ident), json.dumps(args, separators=(",", ":")), qos=1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                for i, (who, reply) in enumerate(self.replies):
                    if who == ident and reply.get("id") == request_id:
                        return self.replies.pop(i)[1]
            pump() if pump else time.sleep(0.02)
        return None

    def push_rules(self, ident, blob, force=False, timeout=5.0, pump=None):
        """Send rule tables to one board, as `doce rules push` does over USB: the commit's reply,
        or {"ok": false, "error": "no_answer"} if a step got none in time."""
        from ..link import begin, chunks
        steps = [begin(blob)]
        steps += list(chunks(blob)) + [dict(cmd="rules_commit", force=force)]
        for step in steps:
            reply = self.command(ident, step.pop("cmd"), timeout=timeout, pump=pump, **step)
            if reply is None:
                return {"ok": False, "error": "no_answer", "message": "no reply within %g s" % timeout}
            if not reply.get("ok"):
                return reply
        return reply

    def rows(self):
        with self.lock:
            return [self.boards[k].row() for k in sorted(self.boards)]

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()

    def __enter__(self):
        return self.connect()

    def __exit__(self, *exc):
        self.close()


def wait_until(condition, timeout, pump=None):
    """Wait for condition() (at most `timeout` s), calling pump() between looks. Its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        pump() if pump else time.sleep(0.02)
