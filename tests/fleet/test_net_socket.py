"""The board's MQTT session (doce/mqtt.py) on its socket to the broker: Nagle's algorithm off,
and what waits to go written in one call, so a board's state does not trail its event; and TLS
paced one record a scan (doce/tls_paced.py). On CPython, with a fake socket."""

import sys
import types

import pytest


class Socket:
    """What doce/mqtt.py asks of a socket, written down; it takes up to `room` bytes a write."""

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
def mqtt(monkeypatch):
    """doce/mqtt.py, the board's MQTT session, with umqtt.simple stubbed: the packets are not what
    is tested here."""
    simple = types.ModuleType("umqtt.simple")
    umqtt = types.ModuleType("umqtt")
    umqtt.simple = simple
    monkeypatch.setitem(sys.modules, "umqtt", umqtt)
    monkeypatch.setitem(sys.modules, "umqtt.simple", simple)
    for name in ("doce.mqtt", "doce.net"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import doce.mqtt as module
    yield module
    for name in ("doce.mqtt", "doce.net"):
        sys.modules.pop(name, None)


@pytest.fixture
def net(mqtt):
    import doce.net as module
    return module


@pytest.fixture
def tls_paced():
    import doce.tls_paced as module
    return module


def bare(module):
    """A Session with only what open() and send() use."""
    n = module.Session.__new__(module.Session)
    n.config = {"broker": "127.0.0.1", "port": 1883}
    n.next_try = None
    n.pipe = module.Pipe()
    n.sock = n.client = n.poller = None
    n.up = n.wrapped = False
    n.up_at = n.shorts = 0
    n.ended = False
    n.skip = n.wlen = 0
    n.scratch = bytearray(module.CHUNK)
    return n


def test_the_connection_to_the_broker_has_nagles_algorithm_off(mqtt, monkeypatch):
    made = []
    fake = types.SimpleNamespace(getaddrinfo=lambda host, port: [(0, 0, 0, "", (host, port))],
                                 socket=lambda: made.append(Socket()) or made[-1])
    monkeypatch.setattr(mqtt, "socket", fake)
    monkeypatch.setattr(mqtt, "select", types.SimpleNamespace(poll=Poll, POLLIN=1, POLLOUT=4))
    n = bare(mqtt)
    n.open(0)
    assert n.sock is made[0]
    assert (6, 1, 1) in made[0].options  # IPPROTO_TCP, TCP_NODELAY (Linux and lwIP alike)


def test_what_waits_goes_in_one_write_and_the_rest_at_the_next_scan(mqtt):
    n = bare(mqtt)
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


class Wire:
    """The raw socket under TLS: what the broker sent waits here; readinto gives at most `most`
    bytes a call (a short read, as TCP may give)."""

    def __init__(self, data=b"", most=1 << 20):
        self.data = bytearray(data)
        self.most = most
        self.closed = False

    def readinto(self, buf):
        if not self.data:
            return None  # a non-blocking socket with nothing yet
        n = min(len(buf), len(self.data), self.most)
        buf[:n] = self.data[:n]
        self.data[:n] = b""
        return n

    def close(self):
        self.closed = True


class ReadyPoll:
    """select.poll over the raw socket: it is always readable and writable."""

    def register(self, sock, flags):
        self.sock = sock

    def ipoll(self, timeout):
        yield self.sock, 1 | 4


def record(kind, body):
    return bytes([kind, 3, 3, len(body) >> 8, len(body) & 0xFF]) + body


def message(kind, body):
    """A handshake message (RFC 5246, 7.4): its type, 3 bytes of length, its body."""
    return bytes([kind]) + len(body).to_bytes(3, "big") + body


def certificates(*ders):
    """A Certificate message's body: the list's length, then each certificate with its own."""
    listed = b"".join(len(d).to_bytes(3, "big") + d for d in ders)
    return len(listed).to_bytes(3, "big") + listed


ROOM_CA = b"r" * 800
HELLO, CERTIFICATE, DONE = message(2, b"h" * 70), message(11, certificates(b"c" * 900)), message(14, b"")


def read_exactly(paced, size):
    """size bytes, read until whole, or None where the first read would block."""
    buf = bytearray(size)
    have = 0
    while have < size:
        n = paced.readinto(memoryview(buf)[have:])
        if n is None:
            assert have == 0, "stopped inside a record"
            return None
        if n < 0:
            return n  # an errno: refused
        have += n
    return bytes(buf)


def mbedtls_reads(paced):
    """The records read whole, as mbedTLS reads (ssl_msg.c, mbedtls_ssl_fetch_input): a 5-byte
    header, then exactly the body it announces, until a read would block."""
    got = []
    while True:
        header = read_exactly(paced, 5)
        if header is None:
            return got
        body = header if isinstance(header, int) else read_exactly(paced, header[3] << 8 | header[4])
        if isinstance(body, int):
            return got + [body]  # refused, with this errno
        got.append(header + body)


def test_tls_records_reach_mbedtls_one_a_scan(tls_paced, monkeypatch):
    """The broker's first flight (ServerHello, Certificate, ServerHelloDone) arrives at once; the
    board's TLS gets one record a scan, so checking the certificate and making the key exchange
    fall in different scans (docs/protocol.md, "MQTT over TLS")."""
    monkeypatch.setattr(tls_paced, "select", types.SimpleNamespace(poll=ReadyPoll, POLLIN=1, POLLOUT=4, POLLERR=8,
                                                             POLLHUP=16))
    flight = [record(22, HELLO), record(22, CERTIFICATE), record(22, DONE), record(20, b"\x01"),
              record(22, b"\x0b" * 40),  # encrypted (its Finished): not read as a message
              record(23, b""), record(23, b"x" * 300)]
    for most in (1 << 20, 3, 1):  # the socket hands over everything, or a few bytes a read
        paced = tls_paced.Paced(Wire(b"".join(flight), most=most), ROOM_CA)
        for scan, expected in enumerate(flight):
            assert mbedtls_reads(paced) == [expected], (most, scan)
            assert paced.ioctl(3, 1 | 4) == 4  # polled: writable, and nothing more to read this scan
            paced.scan()
            assert paced.ioctl(3, 1 | 4) == 1 | 4
        assert mbedtls_reads(paced) == []  # nothing left: would block


def test_the_socket_under_tls_reports_errors_as_numbers_and_closes(tls_paced, monkeypatch):
    """MicroPython's io.IOBase reads a negative return as an errno: an exception would unwind
    through mbedTLS's own C code."""
    monkeypatch.setattr(tls_paced, "select", types.SimpleNamespace(poll=ReadyPoll, POLLIN=1, POLLOUT=4, POLLERR=8,
                                                             POLLHUP=16))

    class Reset(Wire):
        def readinto(self, buf):
            raise OSError(104)  # ECONNRESET

        def write(self, buf):
            raise OSError(32)  # EPIPE

    wire = Reset()
    paced = tls_paced.Paced(wire, ROOM_CA)
    assert paced.readinto(bytearray(5)) == -104 and paced.write(b"abc") == -32
    assert paced.ioctl(99, 0) == -22
    assert paced.ioctl(4, 0) == 0 and wire.closed


class Broker:
    """The socket to a broker that is up: what it has sent waits in `data`."""

    def __init__(self):
        self.data = b""

    def readinto(self, buf, n):
        data, self.data = self.data[:n], self.data[n:]
        buf[:len(data)] = data
        return len(data) or None

    def close(self):
        pass


def test_a_broker_that_stops_answering_is_left_and_said_so(mqtt, monkeypatch):
    """Up, the board pings every half keepalive; a broker that sends nothing (not even PINGRESP)
    for a whole keepalive is gone, though TCP never says so (MQTT 3.1.1, 3.1.2.10)."""
    monkeypatch.setattr(mqtt, "select", types.SimpleNamespace(POLLIN=1, POLLOUT=4, POLLERR=8, POLLHUP=16))
    n = bare(mqtt)
    n.paced = n.fault = None
    n.heard = False
    n.process = lambda: True
    n.work = n.send = lambda now: None
    sock = Broker()
    n.sock, n.client, n.up, n.deadline = sock, object(), True, mqtt.QUIET_MS
    n.ping_at = 3 * mqtt.QUIET_MS  # no ping due: the broker's silence is what is tested
    n.poller = types.SimpleNamespace(ipoll=lambda timeout: iter([(sock, 1)] if sock.data else []))
    sock.data = b"\xd0\x00"  # a PINGRESP, a little before the deadline: the broker is there
    n.step(mqtt.QUIET_MS - 100)
    assert n.sock is sock and n.deadline == 2 * mqtt.QUIET_MS - 100
    n.step(2 * mqtt.QUIET_MS - 101)
    assert n.sock is sock and n.fault is None
    n.step(2 * mqtt.QUIET_MS - 100)  # then nothing for a whole keepalive
    assert n.sock is None and n.fault == "the broker stopped answering"


def test_a_broker_that_sends_a_chain_of_certificates_is_refused_before_mbedtls_checks_it(tls_paced, monkeypatch):
    """mbedTLS checks every signature of a chain in the one call that reads it, with keys the
    sender chose: a chain of eight made-up RSA-4096 intermediates stopped one scan for half a
    second on this machine (hostile review). The room's broker sends its own certificate, and
    the room's CA after it (OpenSSL adds it from Mosquitto's cafile), nothing else."""
    monkeypatch.setattr(tls_paced, "select", types.SimpleNamespace(poll=ReadyPoll, POLLIN=1, POLLOUT=4, POLLERR=8,
                                                             POLLHUP=16))
    for chain in (message(11, certificates(b"c" * 900, b"i" * 800)),  # another certificate than the CA
                  message(11, certificates(b"c" * 900, ROOM_CA, ROOM_CA)),
                  message(11, certificates(b"c" * 900, ROOM_CA[:-1])),
                  message(11, certificates(b"c" * 5000)),  # over CERTIFICATES_MAX: not read into RAM
                  message(11, certificates()),
                  message(11, (904).to_bytes(3, "big") + certificates(b"c" * 900)[3:])):  # lengths that disagree
        check_refused(tls_paced, chain)
    with_ca = message(11, certificates(b"c" * 900, ROOM_CA))
    for good in (CERTIFICATE, with_ca):
        one = [record(22, HELLO), record(22, good[:5]), record(22, good[5:] + DONE)]
        paced = tls_paced.Paced(Wire(b"".join(one)), ROOM_CA)
        for expected in one:
            assert mbedtls_reads(paced) == [expected] and paced.refused is None
            paced.scan()


def check_refused(tls_paced, chain):
    for most in (1 << 20, 1):
        # in records of their own; packed in one record; a chain split over two records
        for flight in ([record(22, HELLO), record(22, chain)], [record(22, HELLO + chain + DONE)],
                       [record(22, HELLO), record(22, chain[:7]), record(22, chain[7:])]):
            paced = tls_paced.Paced(Wire(b"".join(flight), most=most), ROOM_CA)
            read = []
            for _ in flight:
                read += mbedtls_reads(paced)
                paced.scan()
            refused = read[-1]
            assert refused == -71 and paced.refused, (most, flight)


def test_the_handshake_is_followed_with_bounded_work_whatever_comes(tls_paced, monkeypatch):
    """A record of 16 KB of empty handshake messages cost 3 ms of header reading in one scan on this
    machine (hostile review): a broker sends four messages before encryption at most."""
    monkeypatch.setattr(tls_paced, "select", types.SimpleNamespace(poll=ReadyPoll, POLLIN=1, POLLOUT=4, POLLERR=8,
                                                             POLLHUP=16))
    paced = tls_paced.Paced(Wire(record(22, message(0, b"") * 4096)), ROOM_CA)
    assert mbedtls_reads(paced) == [-71] and "more handshake messages" in paced.refused
    assert paced.messages == tls_paced.MESSAGES_MAX + 1
    big = message(11, certificates(b"c" * 900, b"r" * (tls_paced.CERTIFICATES_MAX - 900)))
    paced = tls_paced.Paced(Wire(record(22, HELLO) + record(22, big)), ROOM_CA)
    mbedtls_reads(paced)
    paced.scan()
    assert mbedtls_reads(paced) == [-71] and "over %d bytes" % tls_paced.CERTIFICATES_MAX in paced.refused
    assert paced.certificates is None  # never allocated


def test_a_mark_from_before_the_ticks_wrapped_is_due(net):
    """The retained state waited up to 6 days after 6 days of no change: ticks_diff reads a mark
    over 2^29 ms old as in the future (the ESP32's ticks wrap every 2^30 ms)."""
    assert net.due(100, None, 500) and net.due(100, 100, 500) and net.due(100, 40, 500)
    assert not net.due(100, 101, 500) and not net.due(100, 600, 500)
    assert net.due(100, 601, 500) and net.due(100, 100 + 2 ** 29, 500)


def test_an_address_the_board_cannot_connect_to_is_said(mqtt, monkeypatch):
    def lookup(host, port):
        raise OSError(-2)  # what getaddrinfo says of a name it cannot resolve
    monkeypatch.setattr(mqtt, "socket", types.SimpleNamespace(getaddrinfo=lookup))
    n = bare(mqtt)
    n.config["broker"] = "nosuchhost.invalid"
    n.fault = None
    n.open(0)
    assert n.sock is None and "nosuchhost.invalid" in n.fault


def test_a_connection_ended_just_after_it_was_accepted_waits_long_and_names_the_likely_cause(mqtt, monkeypatch):
    """Two boards set to one id take the connection from each other (the broker drops the older,
    MQTT 3.1.1 3.1.4-2): each reconnected every 2 s for ever, and nothing said why."""
    monkeypatch.setattr(mqtt, "select", types.SimpleNamespace(POLLIN=1, POLLOUT=4, POLLERR=8, POLLHUP=16))
    n = bare(mqtt)
    n.paced = n.fault = None
    n.heard = False
    n.id = "b7"
    n.shorts, n.ended = 0, False
    for up_for, wait, words in ((3000, mqtt.RETRY_MS, "closed"),  # once: a broker restarting, say
                                (3000, mqtt.TLS_RETRY_MS, "2 times just after accepting us: does another board use "
                                 "the id b7"),
                                (3000, mqtt.TLS_RETRY_MS, "3 times"),
                                (mqtt.STABLE_MS, mqtt.RETRY_MS, "closed"),  # up long enough: all is well again
                                (3000, mqtt.RETRY_MS, "closed"),  # so a short one is a first again
                                (3000 - 2 ** 30, mqtt.RETRY_MS, "closed")):  # up for 12 days: ticks wrapped
        sock = Broker()
        n.sock, n.client, n.up, n.up_at, n.deadline = sock, object(), True, 1000, 1000 + mqtt.QUIET_MS
        n.poller = types.SimpleNamespace(ipoll=lambda timeout: iter([(sock, 1 | 16)]))  # readable: the end
        sock.read = lambda size: b""
        n.step(1000 + up_for)
        assert n.sock is None and words in n.fault, (up_for, n.fault)
        assert n.next_try == 1000 + up_for + wait


def test_only_connections_the_broker_ended_count_towards_a_twin(mqtt, monkeypatch):
    """Two short Wi-Fi drops, then one broker restart: a plain 2 s retry, no word of a twin."""
    monkeypatch.setattr(mqtt, "select", types.SimpleNamespace(POLLIN=1, POLLOUT=4, POLLERR=8, POLLHUP=16))
    n = bare(mqtt)
    n.fault = None
    n.id = "b7"
    for ended in (False, False, True):
        n.sock, n.client, n.up, n.up_at, n.ended = Broker(), object(), True, 1000, ended
        n.fault = "the broker closed the connection" if ended else "Wi-Fi"
        n.drop(3000)
    assert n.shorts == 1 and n.next_try == 3000 + mqtt.RETRY_MS and "another board" not in n.fault
