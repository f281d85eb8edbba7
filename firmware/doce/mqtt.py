"""One MQTT session with the room's broker, over a non-blocking socket (TLS too: doce/tls_paced.py).

The MQTT packets are umqtt.simple's (micropython-lib, MIT; put in the image from its registry
package by doce_host/image.py). It reads and writes a socket and waits for the broker; here it
reads and writes two buffers instead (Pipe), and a Session moves them to and from a non-blocking
socket a little every scan: nothing here waits on the network.

A Session connects, stays connected and reconnects; what goes over it is its subclass's
(doce/net.py's Net), which gives the hooks: will() (the last will's topic and message),
connected(now), work(now) (a scan's share while connected), incoming(topic, msg), puback(pid),
and passed_over(topic) (a PUBLISH too big to read, and its topic if known).
"""

import select
import socket

from umqtt import simple

from .netconfig import CA_FILE
from .ticks import ticks_add, ticks_diff
from .tls_paced import Paced, client_context

KEEPALIVE_S = 60  # the broker drops us after 1.5x this without a packet (MQTT 3.1.1, 3.1.2.10)
RETRY_MS = 2000  # between attempts to reach the broker
ANSWER_MS = 10000  # TCP, TLS and CONNACK must be done by then: a peer that takes the connection and
# says nothing (or stops in the middle of a record) would otherwise hold the board in "mqtt" for ever
QUIET_MS = KEEPALIVE_S * 1000  # up, nothing from the broker this long, though it answers our pings
# within it (one every half keepalive): it is gone (MQTT 3.1.1, 3.1.2.10: the client closes)
TLS_RETRY_MS = 30000  # after a failed TLS handshake: a broker that refuses us is not asked every 2 s
# The second connection in a row that the broker ends this soon after accepting it waits TLS_RETRY_MS
# too: two boards set to one id take the connection from each other (MQTT 3.1.1, 3.1.4-2: the
# broker drops the older). Once may be a broker restarting. Longer than TLS_RETRY_MS, or the board
# that waited it out would find its own connection old enough when the other takes it back.
STABLE_MS = 2 * TLS_RETRY_MS
CHUNK = 256  # bytes read a scan, at most (commands are short), but for a packet passed over
# Nagle's algorithm off (setsockopt(IPPROTO_TCP, TCP_NODELAY, 1)): the same numbers in lwIP, the
# ESP32's (ports/esp32/modsocket.c passes TCP_NODELAY on), and in Linux, the simulator's. With it
# on, a write made while an earlier one waits for its ACK is held until that ACK comes, and the
# broker's stack may hold its ACK back 40 ms (delayed ACK) for a packet it has no answer to: the
# retained state, QoS 0, reached the room tens of ms after its event.
IPPROTO_TCP = 6
TCP_NODELAY = 1
MAX_IN = 1024  # an incoming packet larger than this is not a command: it is passed over unread
# A packet too big to be a command goes past at up to this many bytes a scan, as much as has come:
# copied through a buffer of CHUNK bytes, a few microseconds a scan, never a wait. A broker set up by
# doce fleet secure lets no message over 16 KB through (message_size_limit): two scans at most.
SKIP_SCAN = 8192
EAGAIN = 11  # Linux and lwIP (py/mperrno.h MP_EAGAIN)
# CONNACK's return codes (MQTT 3.1.1, 3.2.2.3), said in status.fault
REFUSALS = ("accepted", "unacceptable protocol version", "client id rejected", "server unavailable",
            "bad user name or password", "not authorized")


class Pending(Exception):
    """umqtt.simple asked for a reply that has not come yet: it comes later, in poll()."""


# The pipe's buffers, made whole with the session (at boot, the heap just collected) and never
# moved: a bytearray keeps the room it grew to, and grown in a connection's first burst, among its
# garbage, `out` (1.1-1.8 KB: CONNECT, subscriptions, status, state, the friend's message) lay
# wherever that left room, often amid the free heap, splitting it for the session's life (the
# power-cut campaign: the largest free block after a recovery 8 to 36 KB as it fell; issue 41).
OUT_ROOM = 2048
IN_ROOM = MAX_IN + CHUNK  # the largest packet read whole, and a scan's read behind it


def emptied(room):
    """An empty bytearray with `room` bytes made for it: extended within them, it stays put."""
    buf = bytearray(room)
    buf[:] = b""  # (the length goes, the allocation stays: py/objarray.c keeps it as `free`)
    return buf


class Pipe:
    """What umqtt.simple takes for its socket: writes go to `out`, reads come from `inbox`."""
    room = OUT_ROOM  # what `out` holds without its buffer moving (doce/outbox.py sends no more a scan)

    def __init__(self):
        self.out = emptied(OUT_ROOM)
        self.inbox = emptied(IN_ROOM)
        self.hold = False  # inside a request: its reply is read by poll(), not by umqtt

    def write(self, data, n=None):
        self.out.extend(data if n is None else memoryview(data)[:n])

    def read(self, n):
        if self.hold or len(self.inbox) < n:
            raise Pending
        data = bytes(self.inbox[:n])
        self.inbox[:n] = b""
        return data

    def setblocking(self, flag):
        pass

    def connect(self, addr):
        pass

    def close(self):
        pass


class _Sockets:
    """Stands for the socket module inside umqtt.simple: its socket is our Pipe."""

    def __init__(self, pipe):
        self.pipe = pipe

    def socket(self):
        return self.pipe

    def getaddrinfo(self, host, port):
        return ((0, 0, 0, "", None),)


def packet_size(buf):
    """The whole length of the MQTT packet that starts buf: 0 if its header is not all here
    yet, -1 if the header is not MQTT's (MQTT 3.1.1, 2.2.3: at most 4 length bytes)."""
    size = 0
    for i in range(1, 5):
        if i >= len(buf):
            return 0
        size |= (buf[i] & 0x7F) << (7 * (i - 1))
        if not buf[i] & 0x80:
            return size + i + 1
    return -1


def topic_at(buf):
    """Where the topic of the PUBLISH that starts buf begins (MQTT 3.1.1, 3.3.2.1: after its two
    length bytes); the packet id, if it has one, follows the topic (3.3.2.2). 0 if not here yet."""
    i = 1
    while buf[i] & 0x80:  # the remaining length's bytes (packet_size has checked there are <= 4)
        i += 1
    return i + 3 if len(buf) >= i + 3 else 0


class Session:
    def __init__(self, config, client_id):
        self.config = config
        self.id = client_id
        self.pipe = Pipe()
        self.client = None
        self.sock = None
        self.poller = None
        self.context = None  # the TLS context with the room's CA, made at the first connection
        self.ca = None  # the room's CA (DER), read with it
        self.paced = None  # the socket under TLS (Paced)
        self.wrapped = False  # this connection is TLS (its handshake may not be over)
        self.wlen = 0  # bytes a write that would block left: the next write offers exactly these
        self.deadline = 0  # the broker must have answered by then (ANSWER_MS, then QUIET_MS)
        self.heard = False  # bytes came from the broker this scan
        self.more = False  # the last read filled its chunk: more may be waiting in the socket
        self.up = False  # the broker has accepted us
        self.up_at = 0  # when it did
        self.shorts = 0  # connections in a row the broker ended within STABLE_MS of accepting them
        self.ended = False  # the broker ended this one (closed() said so)
        self.next_try = None
        self.ping_at = None
        self.skip = 0  # bytes still to come of a packet too big to read
        self.scratch = bytearray(CHUNK)  # what a scan reads from the socket
        self.ack = bytearray(b"\x40\x02\x00\x00")  # a PUBACK for a message passed over
        self.retained = False  # the PUBLISH being read is a retained one
        self.connects = 0
        self.fault = None  # the last thing that went wrong, for `net`

    def subscribe(self, topic):
        """QoS 1; its SUBACK comes later, in step()."""
        self.pipe.hold = True
        try:
            self.client.subscribe(topic, 1)
        except Pending:
            pass
        finally:
            self.pipe.hold = False

    def _publish(self, topic, payload, retain, qos):
        if self.client.pid > 65000:  # packet ids are 16 bits, and umqtt.simple counts on
            self.client.pid = 0
        self.pipe.hold = True
        try:
            self.client.publish(topic, payload, retain, qos)
        except Pending:  # a QoS 1 publish: its PUBACK comes later
            pass
        finally:
            self.pipe.hold = False
        return self.client.pid

    def failed(self, e):
        if self.paced and self.paced.refused:
            self.fault = self.paced.refused
        else:
            self.fault = "%s: %s" % (type(e).__name__, " ".join(str(e).split()))  # mbedTLS's text spans lines

    # -- once a scan, on the Wi-Fi ------------------------------------------------

    # Each of the scan's functions keeps its frame within the 11 words MicroPython puts on the C stack
    # (py/objfun.c VM_MAX_STATE_ON_STACK; more goes on the heap at every call): the rare branches, and
    # a try's 3 words (py/bc.h mp_exc_stack_t), are helpers of their own. At rest nothing is allocated.
    def step(self, now):
        """Connect, read, act, write: a scan's share, never a wait."""
        if self.paced:
            self.paced.scan()
        if self.sock is None:
            if self._due(now):
                self.open(now)
        elif self._polled(now):
            self._answered(now)

    def _polled(self, now):
        """What the socket says this scan. False: the connection is over (dropped)."""
        for entry in self.poller.ipoll(0):
            flags = entry[1]
            if flags & self.HUNG_UP:
                return self._hung_up(now)
            if flags & select.POLLIN and self.client and not self.receive(now):
                return self.drop(now)
            if flags & select.POLLOUT and self.client is None:
                self._opened()
        return True

    HUNG_UP = select.POLLERR | select.POLLHUP

    def _hung_up(self, now):
        if self.client:
            self.closed(now, "the connection to the broker closed")
            self.receive(now)  # its last words (a TLS alert) say why, if they came
        else:
            self.fault = "no connection to the broker (refused or unreachable)"
        return self.drop(now)

    def _opened(self):
        if self.config.get("tls"):
            self.secure()
        self.hello()

    def _answered(self, now):
        if self.heard and self.up:
            self.deadline = ticks_add(now, QUIET_MS)
        self.heard = False
        if ticks_diff(now, self.deadline) >= 0:
            return self._silent(now)
        if self.client is None:
            return
        if not self.up and len(self.pipe.inbox) >= 4:
            self.connack(now)
        if self.up:
            if (self.pipe.inbox or self.skip) and not self.process():
                return self.drop(now)
            self.work(now)
            if ticks_diff(now, self.ping_at) >= 0:
                self.ping_at = ticks_add(now, KEEPALIVE_S * 500)
                self.client.ping()
        self.send(now)

    def _silent(self, now):
        self.fault = "the broker stopped answering" if self.up else "no answer from the broker in %d s" % (
            ANSWER_MS // 1000)
        return self.drop(now)

    def _due(self, now):
        return self.next_try is None or ticks_diff(now, self.next_try) >= 0

    def open(self, now):
        """Start a TCP connection to the broker; step() sees it finish (or fail)."""
        self.next_try = ticks_add(now, RETRY_MS)
        self.deadline = ticks_add(now, ANSWER_MS)
        c = self.config
        try:
            # an IP address, checked as it was stored: getaddrinfo makes no lookup of it
            addr = socket.getaddrinfo(c.get("broker", ""), c.get("port", 1883))[0][-1]
            sock = socket.socket()
            sock.setblocking(False)
            sock.setsockopt(IPPROTO_TCP, TCP_NODELAY, 1)
            try:
                sock.connect(addr)
            except OSError as e:
                if e.args[0] not in (115, 119):  # EINPROGRESS (Linux, lwIP): it goes on in the background
                    sock.close()
                    raise
        except (OSError, IndexError) as e:
            self.fault = "cannot connect to the broker's address %r (%s)" % (c.get("broker", ""), " ".join(
                str(e).split()) or type(e).__name__)
            return
        self.sock = sock
        self.poller = select.poll()
        self.poller.register(sock, select.POLLIN | select.POLLOUT)

    def secure(self):
        """TCP is up: TLS over it. The handshake is carried on by the reads and writes of the
        scans that follow (do_handshake_on_connect=False), as the CONNECT waits to go."""
        if self.context is None:
            with open(CA_FILE, "rb") as f:
                ca = f.read()
            self.context = client_context(ca)
            self.ca = ca
        self.poller.unregister(self.sock)
        self.wrapped = True  # from here a failure costs the long retry
        self.paced = Paced(self.sock, self.ca)
        # server_hostname: the certificate must name the broker's address (an IP: no DNS on a board)
        self.sock = self.context.wrap_socket(self.paced, server_hostname=self.config.get("broker", ""),
                                             do_handshake_on_connect=False)
        self.poller.register(self.sock, select.POLLIN)

    def hello(self):
        """Connected: umqtt.simple writes its CONNECT, with the last will."""
        c = self.config
        self.pipe.out[:] = b""
        self.pipe.inbox[:] = b""
        simple.socket = _Sockets(self.pipe)
        user = c.get("user")
        client = simple.MQTTClient(self.id.encode(), "", user=user.encode() if user else None,
                                   password=(c.get("mqtt_password") or "").encode(), keepalive=KEEPALIVE_S)
        client.set_callback(self.incoming)
        topic, message = self.will()
        client.set_last_will(topic, message, True, 1)
        self.pipe.hold = True
        try:
            client.connect()
        except Pending:
            pass
        finally:
            self.pipe.hold = False
        self.client = client
        self.poller.modify(self.sock, select.POLLIN)

    def connack(self, now):
        answer = self.pipe.read(4)
        if answer[0] != 0x20 or answer[3] != 0:  # refused: bad credentials, say
            self.fault = ("the broker refused us: %s" % REFUSALS[answer[3]] if answer[0] == 0x20 and answer[3] < 6
                          else "the broker's first answer is not MQTT's CONNACK")
            tls = self.wrapped
            self.drop(now)
            self.next_try = ticks_add(now, TLS_RETRY_MS if tls else RETRY_MS * 5)  # each try a handshake
            return
        self.up = True
        self.up_at = now
        self.deadline = ticks_add(now, QUIET_MS)
        self.connects += 1
        self.ping_at = ticks_add(now, KEEPALIVE_S * 500)
        self.connected(now)

    # -- bytes to and from the socket ----------------------------------------------------

    def closed(self, now, why):
        """The broker ended the connection: why, for status.fault."""
        self.fault = why
        self.ended = True

    def receive(self, now):
        """Take what has arrived. False: the connection is over."""
        left = SKIP_SCAN
        while self.skip and not self.pipe.inbox and left:  # a packet too big to be a command: passed over
            got = self.read(now, min(self.skip, left, CHUNK))  # (never past its end: the next packet is after)
            if not got:
                return got is not False
            self.skip -= got
            left -= got
        if left < SKIP_SCAN:
            return True
        got = self.read(now, CHUNK)
        self.more = got == CHUNK
        if got:
            self.pipe.inbox.extend(memoryview(self.scratch)[:got])
        return got is not False

    def drained(self):
        """All the broker has sent is read and acted on, as far as the board can tell (off the
        broker: nothing more comes from the connection that was)."""
        return not self.up or not self.more and not self.pipe.inbox and not self.skip

    def read(self, now, n):
        """At most n bytes into scratch: how many, None if none have come, False if the connection is over."""
        try:
            got = self.sock.readinto(self.scratch, n)
        except OSError as e:
            if e.args[0] == EAGAIN:
                return None  # nothing yet, as some ports say it
            self.failed(e)  # the connection reset, or TLS refused (an alert from the broker)
            return False
        if got is None:
            return None  # nothing yet
        if not got:
            self.closed(now, "the broker closed the connection")
            return False
        self.heard = True
        return got

    def process(self):
        """Act on each whole packet that has arrived. False: the broker sent nonsense."""
        pipe = self.pipe
        while True:
            if self.skip:  # the rest of a packet too big to be a command: let it pass
                n = min(self.skip, len(pipe.inbox))
                pipe.inbox[:n] = b""
                self.skip -= n
                if self.skip:
                    return True
            size = packet_size(pipe.inbox)
            if size <= 0:
                return size == 0  # 0: its header is not all here yet; -1: not MQTT
            # A retained PUBLISH (MQTT 3.1.1, 3.3.1.3) is one the broker kept for whoever subscribes:
            # handed over again at every reconnect, it is no command to act on
            self.retained = pipe.inbox[0] & 0xF1 == 0x31
            if size > MAX_IN:
                waiting = self._skip(pipe.inbox, size)
                if waiting is not None:
                    return waiting
                continue
            if len(pipe.inbox) < size:
                return True
            kind = pipe.inbox[0] & 0xF0
            try:
                if kind == 0x30:  # PUBLISH: umqtt.simple reads it and answers its PUBACK
                    self.client.wait_msg()
                else:
                    self.acked(kind, pipe.read(size))
            except (Pending, AssertionError, IndexError):
                return False
        return True

    def _skip(self, buf, size):
        """Pass over the packet too big to be a command that starts buf: None once it is under way;
        while its header is still coming, what process() returns (False: a header longer than a
        command, no topic of ours). Its own frame, so process()'s stays within the C stack's."""
        topic = None
        if buf[0] & 0xF0 == 0x30:
            at = topic_at(buf)
            end = at and at + (buf[at - 2] << 8 | buf[at - 1])
            qos1 = buf[0] & 0x06 == 0x02
            if not at or len(buf) < end + 2 * qos1:
                return not at or end + 2 <= MAX_IN
            topic = bytes(buf[at:end])  # (a rare packet: the copy costs nothing at rest)
            if qos1:  # acknowledged though unread: the broker sends no more QoS 1 while 20 wait for
                # theirs (mosquitto.conf(5) max_inflight_messages), and the board would hear nothing
                # more until it reconnected (MQTT 3.1.1, 3.4: PUBACK, 0x40 2, the packet id)
                self.ack[2] = buf[end]
                self.ack[3] = buf[end + 1]
                self.pipe.out.extend(self.ack)
        self.skip = size
        self.passed_over(topic)
        return None

    def acked(self, kind, packet):
        if kind == 0x40:  # PUBACK (the broker sends them in order: MQTT 3.1.1, 4.6)
            self.puback(packet[2] << 8 | packet[3])

    def send(self, now):
        """Write what waits: the socket, non-blocking, takes what its buffer has room for, so a
        state and its event leave in the same scan (no copy is made to write them)."""
        if self.pipe.out:
            self._write(now)

    def _write(self, now):
        out = self.pipe.out
        size = self.wlen or len(out)
        try:
            # a copy only to offer again exactly what a write that would block left (below)
            n = self.sock.write(out if size == len(out) else out[:size])
        except OSError as e:
            if e.args[0] != EAGAIN:  # EAGAIN: the socket's buffer is full; the rest goes next scan
                self.failed(e)
                self.drop(now)
            return
        # What did not go is offered again, no more: a TLS write that would block may leave a record
        # half sent, and mbedTLS must then be called with the same length (mbedtls_ssl_write's doc)
        self.wlen = size - (n or 0)
        if n:
            out[:n] = b""

    def drop(self, now):
        """The connection is over: the next try comes in RETRY_MS (a TLS handshake that failed, or
        a connection the broker ended just after accepting it: TLS_RETRY_MS)."""
        if self.sock:
            self.sock.close()  # the only call a TLS socket takes after it failed
        if self.up:  # only what the broker ended counts: a Wi-Fi drop is no sign of a twin
            short = self.ended and 0 <= ticks_diff(now, self.up_at) < STABLE_MS  # (a wrapped age is old)
            self.shorts = self.shorts + 1 if short else 0
        fight = self.up and self.shorts >= 2
        if fight and self.ended:
            self.fault = "the broker dropped us %d times just after accepting us: does another board use the id %s?" % (
                self.shorts, self.id)
        self.ended = False
        self.next_try = ticks_add(now, TLS_RETRY_MS if self.wrapped and not self.up or fight else RETRY_MS)
        self.sock = self.client = self.poller = self.paced = None
        self.up = self.wrapped = False
        self.skip = self.wlen = 0
