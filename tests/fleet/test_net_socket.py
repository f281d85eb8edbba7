"""doce/net.py on its socket to the broker: Nagle's algorithm off, and what waits to go written in
one call, so a board's state does not trail its event. On CPython, with a fake socket."""

import sys
import types

import pytest


class Socket:
    """What net.py asks of a socket, written down; it takes up to `room` bytes a write."""

    def __init__(self, room=1 << 20):
        self.options = []
        self.writes = []
        self.room = room

    def setblocking(self, flag):
        self.blocking = flag

    def setsockopt(self, level, option, value):
        self.options.append((level, option, value))

    def connect(self, addr):
        raise OSError(115)  # EINPROGRESS: it goes on in the background

    def write(self, data):
        taken = bytes(data[:self.room])
        self.writes.append(taken)
        return len(taken)

    def close(self):
        pass


class Poll:
    def register(self, sock, flags):
        pass


@pytest.fixture
def net(monkeypatch):
    simple = types.ModuleType("umqtt.simple")  # not used here: the MQTT packets are not what is tested
    umqtt = types.ModuleType("umqtt")
    umqtt.simple = simple
    monkeypatch.setitem(sys.modules, "umqtt", umqtt)
    monkeypatch.setitem(sys.modules, "umqtt.simple", simple)
    monkeypatch.delitem(sys.modules, "doce.net", raising=False)
    import doce.net as module
    yield module
    sys.modules.pop("doce.net", None)


def bare(module):
    """A Net with only what open() and send() use."""
    n = module.Net.__new__(module.Net)
    n.config = {"broker": "127.0.0.1", "port": 1883}
    n.next_try = None
    n.pipe = module.Pipe()
    n.sock = n.client = n.poller = None
    n.up = False
    n.skip = 0
    return n


def test_the_connection_to_the_broker_has_nagles_algorithm_off(net, monkeypatch):
    made = []
    fake = types.SimpleNamespace(getaddrinfo=lambda host, port: [(0, 0, 0, "", (host, port))],
                                 socket=lambda: made.append(Socket()) or made[-1])
    monkeypatch.setattr(net, "socket", fake)
    monkeypatch.setattr(net, "select", types.SimpleNamespace(poll=Poll, POLLIN=1, POLLOUT=4))
    n = bare(net)
    n.open(0)
    assert n.sock is made[0]
    assert (6, 1, 1) in made[0].options  # IPPROTO_TCP, TCP_NODELAY (Linux and lwIP alike)


def test_what_waits_goes_in_one_write_and_the_rest_at_the_next_scan(net):
    n = bare(net)
    event, state = b"\x32" + b"e" * 120, b"\x31" + b"s" * 800  # a QoS 1 event and the state after it
    n.pipe.out.extend(event + state)
    n.sock = Socket()
    n.send(0)
    assert n.sock.writes == [event + state] and not n.pipe.out  # one scan, one write: both on their way
    n.pipe.out.extend(state)
    n.sock.room = 300  # the socket's buffer is nearly full: it takes what it can
    n.send(1)
    n.sock.room = 1 << 20
    n.send(2)
    assert n.sock.writes[1:] == [state[:300], state[300:]] and not n.pipe.out
