"""A remote match loses nothing (doce/remote.py, docs/remote.md "Faults"): Wi-Fi dropped on either
side, the broker restarted, a power cut at every journal write of a remote move on the sending and
the receiving board, and messages sent twice, late or out of order. After each, the match goes on
with every move applied exactly once on both boards. Two simulated boards on a real Mosquitto."""

import json
import random
import threading

import paho.mqtt.client as mqtt
import pytest
from remote_helpers import TICKS, Pair, events_of
from waiting import until

MOVES = [("c3", "white 4"), ("a1", "black 2"), ("e5", "white 1"), ("b4", "black 6"), ("d1", "white 3")]


@pytest.fixture
def pair(tmp_path, mosquitto):
    p = Pair(tmp_path, mosquitto)
    yield p
    p.close()


def played_once_each(pair, moves):
    """Both boards hold exactly these moves, agree on everything, and neither stopped."""
    assert pair.until(pair.boards_agree)
    for sim in (pair.a, pair.b):
        state = sim.state()
        assert state["board"] == dict(moves), state["board"]
        assert pair.remote(sim)["plays"] == len(moves) and pair.remote(sim)["mismatch"] is None
        assert not events_of(sim, "remote_mismatch")


def mover(pair, piece):
    return pair.a if piece.startswith("white") else pair.b


@pytest.mark.parametrize("side", ["mover", "friend"])
def test_wifi_dropped_on_either_side_mid_match_loses_nothing(pair, side):
    pair.pair()
    for cell, piece in MOVES[:2]:
        pair.play(mover(pair, piece), cell, piece)
    cell, piece = MOVES[2]
    board = mover(pair, piece)
    friend = pair.b if board is pair.a else pair.a
    off = board if side == "mover" else friend
    off.command(do="wifi", up=False)
    assert pair.until(lambda: not pair.remote(pair.a)["connected"] and not pair.remote(pair.b)["connected"])
    board.place(cell, piece)  # played while one of the two is off the air: it waits
    pair.pump(300)
    assert pair.remote(friend)["move"] is None
    off.command(do="wifi", up=True)
    assert pair.shown(friend) == {"cell": cell, "value": int(piece.split()[1])}
    friend.place(cell, piece)
    pair.play(mover(pair, MOVES[3][1]), *MOVES[3])
    played_once_each(pair, MOVES[:4])
    assert pair.a.ticks() < TICKS["b1"] and pair.b.ticks() < TICKS["b2"]  # both ran across the wrap


def test_a_broker_restart_mid_match_loses_nothing(pair, mosquitto):
    """Mosquitto here keeps nothing across a restart (persistence false): the retained messages
    go with it, and the boards say again what the other may lack once they are back."""
    pair.pair()
    pair.play(pair.a, *MOVES[0])
    mosquitto.stop()
    pair.b.place(*MOVES[1])  # played while the broker is down
    pair.pump(100)
    mosquitto.start()
    assert pair.until(lambda: pair.remote(pair.a)["connected"] and pair.remote(pair.b)["connected"])
    assert pair.shown(pair.a) == {"cell": "a1", "value": 2}
    pair.a.place(*MOVES[1])
    pair.play(pair.a, *MOVES[2])
    played_once_each(pair, MOVES[:3])


def flash_operations(sim):
    return sim.debug_state()["flash_operations"]


def remote_move_writes(tmp_path, broker, side):
    """How many flash operations one remote move costs the sending board (side "sender": its die
    written, and the broker's acknowledgement of its event) or the receiving one (the friend's die,
    put down, written; the acknowledgement)."""
    pair = Pair(tmp_path / "count", broker)
    try:
        pair.pair()
        pair.pump(50)
        sim = pair.a if side == "sender" else pair.b
        before = flash_operations(sim)
        pair.play(pair.a, *MOVES[0])
        pair.pump(300)
        return flash_operations(sim) - before
    finally:
        pair.close()


@pytest.mark.parametrize("side", ["sender", "receiver"])
def test_a_power_cut_at_every_journal_write_of_a_remote_move_loses_nothing(tmp_path, mosquitto, side):
    writes = remote_move_writes(tmp_path, mosquitto, side)
    assert writes >= 2  # the die's record and the acknowledgement's, at least
    for torn in (True, False):
        for k in range(1, writes + 1):
            pair = Pair(tmp_path / ("%s-%d-%s" % (side, k, torn)), mosquitto)
            try:
                pair.pair()
                pair.pump(50)
                cell, piece = MOVES[0]
                if side == "sender":
                    pair.a.cut_power_at_flash_write(after=k, torn=torn)
                    pair.a.place(cell, piece)
                    assert pair.until(lambda: pair.a.power_was_cut), (side, k, torn)
                    pair.pump(100)
                    pair.a.power_on()
                    assert pair.shown(pair.b) == {"cell": cell, "value": 4}, (side, k, torn)
                    pair.b.place(cell, piece)
                else:
                    pair.a.place(cell, piece)
                    assert pair.shown(pair.b)
                    pair.b.cut_power_at_flash_write(after=k, torn=torn)
                    pair.b.place(cell, piece, settle=False)
                    assert pair.until(lambda: pair.b.power_was_cut), (side, k, torn)
                    pair.pump(100)
                    pair.b.power_on()
                assert pair.until(pair.boards_agree), (side, k, torn)
                pair.play(pair.b, *MOVES[1])
                pair.play(pair.a, *MOVES[2])
                played_once_each(pair, MOVES[:3])
            finally:
                pair.close()


class Heard:
    """Every remote message on the broker, as a listener of the test's own hears it."""

    def __init__(self, broker):
        self.messages = []
        ready = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_subscribe = lambda *args: ready.set()
        self.client.on_message = lambda c, u, m: self.messages.append((m.topic, m.payload))
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        self.client.subscribe("doce/+/remote/+", 1)
        until(ready.is_set, what="the listener's subscription")

    def most(self, sender, receiver):
        """The highest n `sender` has said to `receiver`'s board so far (-1: none)."""
        topic = "doce/%s/remote/%s" % (receiver, sender)
        return max([json.loads(p)["n"] for t, p in self.messages if t == topic and p and b'"beat"' not in p]
                   or [-1])  # (a beat says no n: doce/remote.py)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


@pytest.mark.parametrize("side", ["mover", "taker"])
def test_no_play_is_said_to_the_friend_before_the_journal_holds_it(tmp_path, mosquitto, side):
    """A board's message to its friend's carries a play only once its journal has it: cut at each flash
    write from the play on (the mover's own die; the taker's put down before the friend's move came, so
    the move is taken in the very scan it arrives), and the die lifted while the board is off, the board
    forgets the play only if its friend was never told of it. Told and forgotten, the friend would count
    a play this board never makes again (on the mover's side, a mismatch at the next message)."""
    cell, piece = MOVES[0]
    for k in range(1, 9):
        pair = Pair(tmp_path / ("%s-%d" % (side, k)), mosquitto)
        heard = Heard(mosquitto)
        try:
            pair.pair()
            pair.pump(50)
            cut, ids = (pair.a, ("b1", "b2")) if side == "mover" else (pair.b, ("b2", "b1"))
            if side == "taker":
                pair.b.command(do="wifi", up=False)
                assert pair.until(lambda: not pair.remote(pair.a)["connected"])
                pair.a.place(cell, piece)  # its message waits on the broker, retained
                pair.pump(50)
                pair.b.place(cell, piece)  # before the move came: refused till it comes
            cut.cut_power_at_flash_write(after=k, torn=True)
            if side == "mover":
                pair.a.place(cell, piece, settle=False)
            else:
                pair.b.command(do="wifi", up=True)
            if not pair.until(lambda: cut.power_was_cut, scans=3000):
                assert k > 2, "the play costs at least its record and the broker's acknowledgement"
                break  # every write of the play was cut at
            pair.pump(300)  # the friend's board scans on; what the cut board sent reaches the listener
            told = heard.most(*ids)
            cut.hands.lift(cell)  # its player takes the die back while the board is off
            cut.power_on()
            kept = pair.remote(cut)["plays"]
            assert told <= kept, "play %d said to the friend's board, then forgotten (cut at write %d)" % (told, k)
        finally:
            heard.close()
            pair.close()


@pytest.mark.board_may_lie  # the test itself sends the boards old messages again
def test_moves_sent_twice_late_or_out_of_order_are_applied_once(pair, mosquitto):
    """Every message the two boards sent each other, kept by a listener, is sent to them again,
    shuffled, at each step of the match: twice, late, out of order. Each move counts once."""
    heard = []
    ready = threading.Event()
    listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    listener.on_subscribe = lambda *args: ready.set()
    listener.on_message = lambda c, u, m: heard.append((m.topic, m.payload))
    listener.connect(mosquitto.host, mosquitto.port)
    listener.loop_start()
    listener.subscribe("doce/+/remote/+", 1)
    until(ready.is_set, what="the listener's subscription")
    pair.pair()
    rng = random.Random(28)
    played = []
    try:
        for cell, piece in MOVES:
            sim = mover(pair, piece)
            friend = pair.b if sim is pair.a else pair.a
            sim.place(cell, piece)
            assert pair.shown(friend)
            again = list(heard)
            rng.shuffle(again)
            for topic, payload in again:  # while the move waits to be put down
                listener.publish(topic, payload, qos=1)
            pair.pump(100)
            assert pair.remote(friend)["move"] == {"cell": cell, "value": int(piece.split()[1])}
            friend.place(cell, piece)
            played.append((cell, piece))
            assert pair.until(pair.boards_agree)
            for topic, payload in again[:5] + heard[-2:]:  # and after it, the old ones and the newest
                listener.publish(topic, payload, qos=1)
            pair.pump(100)
            played_once_each(pair, played)
    finally:
        listener.loop_stop()
    assert len(heard) > 10
    assert {json.loads(p)["n"] for _, p in heard if b'"beat"' not in p} >= set(range(len(MOVES) + 1))


def test_a_slow_broker_keeps_the_friends_message_within_the_pipes_room(pair):
    """The friend's message went into the MQTT pipe unchecked: with the socket to the broker full (a slow
    or far broker: the outbox's events fill the pipe to its room, Pipe.room, and wait there), a move's
    message grew the pipe's buffer past its room and moved it. It waits for room now, and goes once the
    broker takes the pipe's bytes again: nothing is lost."""
    from fleet_helpers import link
    pair.pair()
    a = pair.a
    a.command(do="pipe")  # watched from here
    a.command(do="socket_full", on=True)
    out = [0]
    for _ in range(40):  # the friend's die, not its move: refused, and lifted: events, 93 and 51 B a packet
        a.place("a2", "black 6")
        a.lift("a2")
        out.append(link(a, cmd="net")["status"]["out"])
        if out[-1] == out[-2]:
            break  # the pipe holds all the outbox may put in it: less is left than an event (93 B)
    assert out[-1] == out[-2] > 1024, out
    cell, piece = MOVES[0]
    a.place(cell, piece)  # its message is due
    pair.pump(50)
    pipe = a.command(do="pipe")
    assert pipe["peak"] <= pipe["room"], pipe
    a.command(do="socket_full", on=False)
    assert pair.shown(pair.b) == {"cell": cell, "value": 4}
    pair.b.place(cell, piece)
    pair.play(pair.b, *MOVES[1])
    played_once_each(pair, MOVES[:2])
