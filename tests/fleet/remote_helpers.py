"""Two simulated boards on one broker, paired for a remote match (doce/remote.py): the helpers the
remote-play tests share."""

import json
import os

from fleet_helpers import REST_MS, WAIT_SCANS, join, link

from waiting import Deadline, HARD_CAP_S

from doce_host.sim import SimBoard

MATCH = "7f3a01c2"
WRAP = 2 ** 30  # an ESP32's ticks_ms wraps here (doce/ticks.py)
# Each board's ticks at power-on, a fraction of a second of its time before the wrap, and not the
# same on both (two boards' clocks never agree): every remote test runs across the wrap on both.
TICKS = {"b1": WRAP - 150, "b2": WRAP - 250}
# A condition looked at every 10 scans, then ever more seldom, up to every LOOK_SCANS (Pair.until): one that
# asks a board over USB costs it some 20 scans' work (the reply at the link's pace: 2.5 ms of a core for
# `remote`, against 0.13 ms a scan, 2026-12 probe), so a wait of seconds (a reconnect: doce/mqtt.py RETRY_MS)
# was mostly the looking. The boards scan at most 80 ms of their time past the moment it held.
LOOK_SCANS = 80


class Pair:
    """Board "b1" (white) and "b2" (black), each the real firmware in its own MicroPython process,
    stepped in turn; their MQTT goes over real sockets to the broker."""

    def __init__(self, folder, broker, rules=("standard", "standard"), credentials=None):
        self.folder = folder
        self.broker = broker
        self.credentials = credentials or {}
        self.a = SimBoard(folder / "b1", rules=rules[0], ticks=TICKS["b1"], module="wrover")
        self.b = SimBoard(folder / "b2", rules=rules[1], seed=2, ticks=TICKS["b2"], module="wrover")
        self.boards = {"b1": self.a, "b2": self.b}
        for ident, sim in self.boards.items():
            self.join(sim, ident)

    def join(self, sim, ident):
        extra = {}
        if ident in self.credentials:
            extra = {"user": ident, "mqtt_password": self.credentials[ident]}
        join(sim, self.broker, board_id=ident)
        if extra:
            assert link(sim, cmd="mqtt", **extra)["ok"]

    def pair(self, first="white", match=None):
        """Each board told of the other over USB, as `doce remote` does: b1 plays white. A match
        number of its own (as `doce remote` draws one), unless given: a test's boards on one broker
        would otherwise find the messages an earlier pair left retained there."""
        match = match or os.urandom(4).hex()
        checksum = link(self.a, cmd="hello")["rules_checksum"]
        replies = [link(self.a, cmd="remote", peer="b2", colour="white", first=first, match=match,
                        rules_checksum=checksum),
                   link(self.b, cmd="remote", peer="b1", colour="black", first=first, match=match,
                        rules_checksum=checksum)]
        for reply in replies:
            assert reply["ok"], reply
        assert self.until(lambda: self.remote(self.a)["connected"] and self.remote(self.b)["connected"])
        return replies

    def pump(self, scans=2, skip_ms=0):
        for sim in (self.a, self.b):
            if not sim.power_was_cut:  # a board whose power a test cut stays dark till it says
                sim.run(scans, skip_ms)

    def until(self, condition, scans=WAIT_SCANS, resting=False):
        """condition() once true (its value), the boards scanning meanwhile; its last value once
        they have scanned `scans` times (ms of their time) without it. resting: the boards left at
        rest meanwhile, a scan every REST_MS."""
        cap, done, step = Deadline(HARD_CAP_S), 0, 10
        while True:
            got = condition()
            if got or done >= scans or cap.passed():
                return got
            if resting:
                self.pump(1, skip_ms=REST_MS - 1)
                done += REST_MS
            else:
                self.pump(step)
                done += step
                step = min(2 * step, LOOK_SCANS)

    def rest(self, ms):
        """Both boards left at rest for `ms` of their time, a scan every REST_MS."""
        self.until(lambda: False, ms, resting=True)

    @staticmethod
    def remote(sim):
        return link(sim, cmd="remote")["remote"]

    def shown(self, sim):
        """The friend's move the board waits for (what `state` says), once it shows."""
        return self.until(lambda: self.remote(sim)["move"])

    def play(self, sim, cell, piece):
        """A player puts their own die down on `sim`, and the other board's player, shown it in light,
        puts it down for them there."""
        other = self.b if sim is self.a else self.a
        sim.place(cell, piece)
        move = self.shown(other)
        colour, what = piece.split()
        expected = {"blocker": cell} if what == "blocker" else {"cell": cell, "value": int(what)}
        assert move == expected or (what == "blocker" and move.get("blocker") == cell), (move, expected)
        other.place(cell, piece)
        assert self.until(lambda: self.plays(sim) == self.plays(other))

    def plays(self, sim):
        """The plays of the match on `sim`; None once its pairing has ended (a match over on both
        boards ends it: doce/remote.py)."""
        remote = self.remote(sim)
        return remote and remote["plays"]

    def boards_agree(self):
        sa, sb = self.a.state(), self.b.state()
        keys = ("board", "round", "to_move", "scores", "totals", "dice_left", "blockers_left", "last")
        return all(sa[k] == sb[k] for k in keys) and self.plays(self.a) == self.plays(self.b)

    def close(self):
        for sim in (self.a, self.b):
            sim.close()


def play_round(pair, moves):
    """Each recorded move put down on its player's board, then on the friend's from its light."""
    from casebook import piece_of
    for m in moves:
        pair.play(pair.a if m["player"] == "white" else pair.b, m["cell"], piece_of(m))


def clear_both(pair):
    """Both players lift every piece: the next round begins on each board."""
    for sim in (pair.a, pair.b):
        for cell in list(sim.pieces):
            sim.lift(cell)
    assert pair.until(lambda: pair.a.state()["mode"] == "playing" and pair.b.state()["mode"] == "playing")


def edges(sim):
    """The colours of each side's edge lights: {"white": [...], "black": [...]}."""
    from doce_host.paths import BOARD_FILE
    turn = json.loads(BOARD_FILE.read_text())["leds"]["turn"]
    leds = sim.leds()
    return {side: [leds[i] for i in turn[side]] for side in ("white", "black")}


def events_of(sim, kind):
    return [e for e in sim.take_events() if e["event"] == kind]


def publish(broker, topic, payload, retain=False, user=None, password=None):
    """One message on the broker, from a client of the test's own."""
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    if user:
        c.username_pw_set(user, password)
    c.connect(broker.host, broker.port)
    c.loop_start()
    info = c.publish(topic, payload if isinstance(payload, (bytes, str)) else json.dumps(payload), qos=1,
                     retain=retain)
    info.wait_for_publish(10)
    c.loop_stop()
    c.disconnect()


def retained(broker, password=None, pattern="doce/+/remote/+", wait=60):
    """{topic: payload} of every message the broker keeps retained under `pattern`, as the organiser
    (or, with no password, anyone) reads them: they come as it subscribes, before a message published
    after the subscription."""
    import threading

    import paho.mqtt.client as mqtt
    found, done = {}, threading.Event()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    if password:
        c.username_pw_set("organiser", password)

    def on_message(cl, u, m):
        if m.topic == "doce/organiser/remote/end":
            done.set()
        elif m.retain:
            found[m.topic] = m.payload
    c.on_message = on_message
    subscribed = threading.Event()
    c.on_subscribe = lambda *args: subscribed.set()
    c.connect(broker.host, broker.port)
    c.loop_start()
    try:
        c.subscribe(pattern, 1)
        assert subscribed.wait(wait)
        c.publish("doce/organiser/remote/end", b".", qos=1)
        assert done.wait(wait)
    finally:
        c.loop_stop()
        c.disconnect()
    return found
