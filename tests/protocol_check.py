"""Every message a board sends in the test runs is checked against docs/protocol.schema.json.

tests/conftest.py wraps the places where the host side takes a board's messages in (the
serial link, the step-by-step simulator, the MQTT room) and fails the test at its end if
any message did not have the schema's shape. A test that feeds a host deliberately wrong
messages (a port that lies) is marked `board_may_lie`.
"""

import json

from doce_host.protocol import problem


class Checked:
    def __init__(self):
        self.count = 0
        self.problems = []

    def check(self, message, kind="from_board", where=""):
        self.count += 1
        found = problem(message, kind)
        if found and len(self.problems) < 5:
            self.problems.append("%s %s\n    %s" % (where, found, json.dumps(message)[:300]))

    def wrap_link(self, monkeypatch):
        from doce_host.link import BoardLink
        original = BoardLink._messages

        def _messages(link, wait=True):
            for message in original(link, wait):
                self.check(message, where="serial:")
                yield message
        monkeypatch.setattr(BoardLink, "_messages", _messages)

    def wrap_sim(self, monkeypatch):
        from doce_host.sim import SimBoard
        original = SimBoard._read

        def _read(sim):
            before = len(sim.events)
            reply = original(sim)
            for event in sim.events[before:]:
                self.check(event, where="sim event:")
            for message in reply.get("link", ()):
                self.check(message, where="sim reply:")
            return reply
        monkeypatch.setattr(SimBoard, "_read", _read)

    def wrap_room(self, monkeypatch):
        from doce_host.fleet.room import Room
        original = Room._on_message
        kinds = {"status": "mqtt_status", "state": "mqtt_state", "events": "from_board", "reply": "from_board"}

        def _on_message(room, client, userdata, msg):
            kind = kinds.get(msg.topic.rsplit("/", 1)[-1])
            if kind and msg.payload:  # an empty payload clears a retained message
                try:
                    payload = json.loads(msg.payload)
                except ValueError:
                    payload = msg.payload.decode("utf-8", "replace")
                self.check(payload, kind, where="mqtt %s:" % msg.topic)
            return original(room, client, userdata, msg)
        monkeypatch.setattr(Room, "_on_message", _on_message)
