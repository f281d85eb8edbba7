"""The board on Wi-Fi and MQTT: one room of boards on one broker (docs/protocol.md, "MQTT").

Loaded only on a board whose Wi-Fi is set up (net.json), so a board on USB alone pays nothing.
Topics, under the organiser's prefix and this board's id:
  <prefix>/<id>/state    retained: the same state as the USB `state` reply
  <prefix>/<id>/events   QoS 1: the same events as on USB, with their seq
  <prefix>/<id>/cmd      the same commands as on USB, handled by the same code (doce/link.py)
  <prefix>/<id>/reply    their replies
  <prefix>/<id>/status   retained: online, or offline (the broker's last will)

With "tls" set, the socket is wrapped in MicroPython's `tls` (mbedTLS) once TCP is up, and the
broker's certificate must chain to the CA stored in ca.der and name the broker's address. The
handshake goes on inside the same non-blocking reads and writes: no call waits on the network.
Its crypto is kept to one short public-key step a scan (docs/protocol.md, "MQTT over TLS"): the
board offers only RSA key exchange (no elliptic-curve step, which mbedTLS would run in one call of
about a second on an ESP32), and `Paced` hands mbedTLS one TLS record a scan.

The MQTT packets are umqtt.simple's (micropython-lib, MIT; put in the image from its registry
package by doce_host/image.py). It reads and writes a socket and waits for the broker; here it
reads and writes two buffers instead, and this module moves them to and from a non-blocking
socket a little every scan: nothing here waits on the network. Events wait in `outbox` until the
broker acknowledges them, and go again, in order, after a reconnect.

The game's events also survive a reboot: each is the event of one journal record (doce/journal.py;
round_end and match_end go with the play that ended it), so the journal holds them already. When
the broker has all the events of a record, an A record says so (one small append, at most one a
scan). At boot, the events of the records after the last A are made again from the journal, a few
at a time, and go before anything newer.
"""

import io
import json
import os
from binascii import hexlify
import select
import socket

from umqtt import simple

from .arguments import BadArgument, CommandError, base64_chunk
from .squares import square_name
from .ticks import ticks_add, ticks_diff

CONFIG = "net.json"
CA_FILE = "ca.der"  # the room's CA certificate, DER (mqtt_ca)
MAX_CA = 2048  # bytes: an RSA-2048 CA is about 800, an RSA-4096 one about 1400
CERTIFICATES_MAX = 4096  # the broker's Certificate message: its own (about 900 bytes) and the CA
# The broker's handshake messages before encryption: ServerHello, Certificate, CertificateRequest
# and ServerHelloDone at most (RFC 5246, 7.3). More is a peer making the board count headers.
MESSAGES_MAX = 4
# RSA key exchange only: the board's public-key work is then two RSA public operations (e = 65537,
# the ESP32's RSA accelerator: mbedTLS's CONFIG_MBEDTLS_HARDWARE_MPI, on in ESP-IDF and not turned
# off by MicroPython's ports/esp32/boards/sdkconfig.base), each in a scan of its own (Paced). ECDHE
# would add two P-256 scalar multiplications in one call, about a second on an ESP32 (no ECC
# accelerator; MicroPython issue micropython-esp32#131 measured 1.2 s a handshake). The cost is
# forward secrecy on the room's own network. Names as mbedTLS spells them (SSLContext.get_ciphers).
TLS_CIPHERS = ("TLS-RSA-WITH-AES-128-GCM-SHA256", "TLS-RSA-WITH-AES-128-CBC-SHA256")
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
# The Wi-Fi is joined once; the port then keeps the board on it, joining again by itself after every
# drop (ports/esp32/network_wlan.c, WIFI_EVENT_STA_DISCONNECTED), and a second connect() while it
# does raises (esp_wifi_set_config: ESP_ERR_WIFI_STATE). Only a join that raised is asked for again.
JOIN_MS = 10000
STAT_GOT_IP = 1010  # WLAN.status() (ports/esp32/network_wlan.c): joined, with an address
# why the port says it cannot join (WLAN.status(): ESP-IDF's wifi_err_reason_t), for status.fault
WIFI_FAULTS = {200: "the access point stopped answering", 201: "no access point with that name",
               202: "the Wi-Fi password is wrong", 203: "the access point refused the board",
               204: "the Wi-Fi handshake timed out"}
STATE_MS = 500  # the retained state at most this often: it is a few hundred bytes of JSON
OUTBOX = 64  # events kept for the broker while it is away (a round is about 30): ~5 KB of RAM
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
WIFI_KEYS = ("ssid", "password")
MQTT_KEYS = ("broker", "port", "prefix", "board_id", "name", "user", "mqtt_password", "tls")
SECRET = ("password", "mqtt_password")
EAGAIN = 11  # Linux and lwIP (py/mperrno.h MP_EAGAIN)


class Pending(Exception):
    """umqtt.simple asked for a reply that has not come yet: it comes later, in poll()."""


class Pipe:
    """What umqtt.simple takes for its socket: writes go to `out`, reads come from `inbox`."""

    def __init__(self):
        self.out = bytearray()
        self.inbox = bytearray()
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


class Paced(io.IOBase):
    """The socket under TLS, handing mbedTLS one TLS record a scan. mbedTLS goes as far through
    the handshake as the bytes it can read take it: given the broker's whole first flight at once,
    it would check the certificate and make the key exchange in one call. One record a scan puts
    each public-key step in a scan of its own (OpenSSL, Mosquitto's, sends each handshake message
    in a record of its own; a broker that packs them puts two in one scan at worst).

    It also reads the broker's handshake messages as they pass, before encryption starts, and
    refuses a Certificate message that holds anything but the broker's own certificate, and after
    it, byte for byte, the room's CA (OpenSSL sends it from Mosquitto's cafile): mbedTLS checks
    every signature of a chain in the one call that reads it, and a chain's keys are the sender's
    choice (an exponent as long as the key makes each check as slow as a private-key operation).
    The broker's own certificate is checked with the room's CA key, which the host holds to e = 65537.
    No handshake comes later, under encryption: MicroPython never turns mbedTLS's renegotiation on
    (mbedtls_ssl_config_defaults leaves it off).

    MicroPython's tls calls readinto, write and ioctl (py/modio.c, io.IOBase); None is "would
    block", a negative number an errno, never an exception through mbedTLS."""

    def __init__(self, sock, ca):
        self.sock = sock
        self.ca = ca  # the room's CA, DER
        self.poller = select.poll()
        self.poller.register(sock, select.POLLIN | select.POLLOUT)
        self.head = 0  # bytes of the record's 5-byte header read (RFC 5246, 6.2.1: length in 3-4)
        self.kind = 0  # the record's content type (its header's first byte)
        self.left = 0  # bytes of its body still to come
        self.spent = False  # this scan's record is read
        self.clear = True  # no ChangeCipherSpec yet: the handshake's messages are readable
        self.header = bytearray(4)  # a handshake message's type and length (RFC 5246, 7.4)
        self.got = 0  # bytes of it read
        self.size = 0  # the message's length
        self.have = 0  # bytes of its body read
        self.certificates = None  # a Certificate message's body, checked whole before mbedTLS gets its end
        self.messages = 0  # handshake messages begun
        self.refused = None  # why the broker's handshake was refused here, for status.fault

    def scan(self):
        self.spent = False

    def readinto(self, buf):
        if self.refused:
            return -71  # EPROTO, as when it was refused
        if self.spent:
            return None
        try:
            n = self.sock.readinto(buf)
        except OSError as e:
            return -e.args[0]
        i = 0
        while n and i < n:  # mbedTLS asks for a header, then exactly the body it announced
            if self.head < 5:
                if self.head == 0:
                    self.kind = buf[i]
                    if self.kind == 20:  # ChangeCipherSpec: what follows is encrypted
                        self.clear = False
                elif self.head == 3:
                    self.left = buf[i] << 8
                elif self.head == 4:
                    self.left |= buf[i]
                self.head += 1
                i += 1
            else:
                step = min(self.left, n - i)
                if self.kind == 22 and self.clear:
                    self.refused = self.handshake(buf, i, i + step)
                    if self.refused:
                        return -71  # EPROTO: mbedTLS gives up, and the connection with it
                self.left -= step
                i += step
            if self.head == 5 and not self.left:
                self.head = 0
                self.spent = True
        return n

    def handshake(self, buf, i, end):
        """Follow the broker's handshake messages through buf[i:end]: why they are refused, or
        None. The work is bounded whatever comes: at most MESSAGES_MAX headers, read a byte at
        a time, and a Certificate message of at most CERTIFICATES_MAX bytes copied."""
        header = self.header
        while i < end or self.got == 4 and self.have == self.size:
            if self.got < 4:
                if self.got == 0:
                    self.messages += 1
                    if self.messages > MESSAGES_MAX:
                        return "the broker sent more handshake messages than a broker does"
                header[self.got] = buf[i]
                self.got += 1
                i += 1
                if self.got == 4:
                    self.size = header[1] << 16 | header[2] << 8 | header[3]
                    self.have = 0
                    if header[0] == 11:
                        if self.size > CERTIFICATES_MAX:
                            return "the broker's certificates are over %d bytes" % CERTIFICATES_MAX
                        self.certificates = bytearray(self.size)
                continue
            if self.have == self.size:  # the message is whole
                self.got = 0
                if header[0] == 11 and not self.ours(self.certificates):
                    return "the broker sent certificates other than its own and the room's CA"
                self.certificates = None
                continue
            step = min(self.size - self.have, end - i)
            if header[0] == 11:
                self.certificates[self.have:self.have + step] = buf[i:i + step]
            self.have += step
            i += step
        return None

    def ours(self, body):
        """A certificate list (RFC 5246, 7.4.2) of the broker's own, then at most the room's CA."""
        listed = body[0] << 16 | body[1] << 8 | body[2] if len(body) >= 3 else -1
        at, n = 3, 0
        while at + 3 <= len(body):
            size = body[at] << 16 | body[at + 1] << 8 | body[at + 2]
            at += 3
            if n and body[at:at + size] != self.ca:
                return False
            at += size
            n += 1
        return at == len(body) == listed + 3 and 1 <= n <= 2

    def write(self, buf):
        try:
            return self.sock.write(buf)
        except OSError as e:
            return -e.args[0]

    def ioctl(self, request, arg):
        if request == 3:  # MP_STREAM_POLL (py/stream.h); the flags are select's
            for _, flags in self.poller.ipoll(0):
                if self.spent:
                    flags &= ~select.POLLIN  # nothing more to read this scan
                return flags & (arg | select.POLLERR | select.POLLHUP)
            return 0
        if request == 4:  # MP_STREAM_CLOSE
            self.sock.close()
            return 0
        return -22  # EINVAL: no other request is needed


class _Sockets:
    """Stands for the socket module inside umqtt.simple: its socket is our Pipe."""

    def __init__(self, pipe):
        self.pipe = pipe

    def socket(self):
        return self.pipe

    def getaddrinfo(self, host, port):
        return ((0, 0, 0, "", None),)


def load_config(path=CONFIG):
    try:
        with open(path) as f:
            config = json.load(f)
    except (OSError, ValueError):
        return {}
    return config if isinstance(config, dict) else {}


def board_id(wlan):
    """The id a board has until the organiser gives it one: its MAC, as 12 hex digits."""
    return "".join("%02x" % b for b in wlan.config("mac"))


class Net:
    def __init__(self, app, link, config, network):
        self.app = app
        self.link = link
        self.config = config
        # The LEDs' cap drops, and the strip shows it, before the radio starts: strip and radio
        # must fit in USB power together (hardware/README.md, power budget; hardware/board.json)
        from .board import load_spec
        self.cap = app.board.brightness_cap
        app.board.brightness_cap = load_spec()["power"]["brightness_cap_wifi"]
        app.set_brightness(app.lights.brightness)
        app.show_lights()
        self.wlan = network.WLAN(network.STA_IF)
        self.wlan.active(True)
        # Modem sleep off: with it (the port's default, WIFI_PS_MIN_MODEM) the radio wakes only for
        # the access point's DTIM beacons, so a command from the organiser waits 100 ms or more.
        # The radio then listens all the time: the power budget already counts it transmitting.
        self.wlan.config(pm=self.wlan.PM_NONE)
        self.id = config.get("board_id") or board_id(self.wlan)
        base = "%s/%s/" % (config.get("prefix") or "doce", self.id)
        self.topics = {k: (base + k).encode() for k in ("state", "events", "cmd", "reply", "status")}
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
        self.up = False  # the broker has accepted us
        self.up_at = 0  # when it did
        self.shorts = 0  # connections in a row the broker ended within STABLE_MS of accepting them
        self.ended = False  # the broker ended this one (closed() said so)
        self.joined = False  # connect() was asked once, and took: the port does the rest
        self.join_at = None  # when to ask again after a connect() that raised
        self.next_try = None
        self.outbox = []  # [seq, payload, packet id or 0 if not sent on this connection, record or 0]
        self.journal = app.controller.journal
        self.record = self.journal.moves + len(app.controller.unwritten)  # the last play's journal record
        self.done = 0  # the broker has the events of records up to this one
        self.behind = None  # events of the records the broker lacked at boot, made again from the journal
        self.old = True  # the journal's match is the one of the boot
        journal = self.journal
        if not journal.tag:  # a match begun before the Wi-Fi was set up
            try:
                journal.mark(os.urandom(4))
            except OSError:
                pass
        self.tag = hexlify(journal.tag or b"").decode()
        if journal.acked < journal.moves:
            self.replay(journal.acked)
        self.lost = 0  # events dropped from a full outbox (the state still shows the game)
        self.state_due = True
        self.state_at = None
        self.ping_at = None
        self.commands = []  # payloads from cmd, handled one a scan
        self.skip = 0  # bytes still to come of a packet too big to read
        self.scratch = bytearray(CHUNK)  # what a scan reads from the socket
        self.retained = False  # the PUBLISH being read is a retained one
        self.connects = 0
        self.fault = None  # the last thing that went wrong, for `net`
        self.boot = "%08x" % int.from_bytes(os.urandom(4), "big")

    # -- what the board sends ------------------------------------------------------

    def replay(self, after):
        """Make the events of the journal's records after the `after` first again (catch_up
        sends them), numbered before any new event. How many there are."""
        journal = self.journal
        try:
            with open(journal.path, "rb") as f:
                data = f.read()
        except OSError:
            data = b""
        n = 0
        for _ in replayed(self.app.tables, data, journal.moves, after, self.tag):
            n += 1
        if n:
            self.behind = replayed(self.app.tables, data, journal.moves, after, self.tag)
            self.behind_seq = self.link.seq + 1  # their numbers, taken before any new event's
            self.link.seq += n
            self.behind_end = self.link.seq
            self.old = True  # of the journal's match
        return n

    def resend(self, tag, after):
        """The `resend` command: the events of this match's records after `after` again, to the
        broker (a host that missed them while it was away: doce fleet record); of the whole
        match if `tag` is not this match's."""
        if not isinstance(tag, str) or len(tag) > 8:
            raise BadArgument("tag is a match's tag, 8 hex digits")
        if not isinstance(after, int) or isinstance(after, bool) or after < 0:
            raise BadArgument("after is a record number, 0 or more")
        if self.behind:
            raise CommandError("busy", "events of the journal are being sent again already")
        if tag != self.tag:
            after = 0
        return {"tag": self.tag, "records": self.journal.moves, "resent": self.replay(min(after, self.journal.moves))}

    def event(self, event):
        """An event the link just numbered: it waits in the outbox until the broker has it."""
        if len(self.outbox) >= OUTBOX:
            self.outbox.pop(0)
            self.lost += 1
        kind = event["event"]
        if kind == "new_match":  # a new journal: what waits from the old one is not its records
            self.record = self.done = 0
            self.old = False
            tag = os.urandom(4)
            self.journal.next_tag = tag  # written with the match's first record
            self.tag = hexlify(tag).decode()
            for item in self.outbox:
                item[3] = 0
        n = 0
        if kind in RECORDED or kind in ENDS:
            if kind in RECORDED:
                self.record += 1
            n = self.record
            event = dict(event)  # the USB line's stays as it was
            event["tag"] = self.tag
            event["record"] = n
        self.outbox.append([event["seq"], json.dumps(event).encode(), 0, n])
        self.state_due = True

    def reply(self, message):
        if self.up:
            self._publish(self.topics["reply"], json.dumps(message).encode(), False, 0)

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

    # -- once a scan -------------------------------------------------------------

    def poll(self, now):
        """Never raises: whatever the network does, play goes on."""
        try:
            self._poll(now)
        except Exception as e:  # noqa: BLE001  (a broker's bad packet, a socket's odd error, a TLS refusal)
            self.failed(e)
            self.drop(now)

    def failed(self, e):
        if self.paced and self.paced.refused:
            self.fault = self.paced.refused
        else:
            self.fault = "%s: %s" % (type(e).__name__, " ".join(str(e).split()))  # mbedTLS's text spans lines

    def _poll(self, now):
        if self.paced:
            self.paced.scan()
        if not self.joined:
            self.join(now)
        wifi = self.wlan.status()
        if wifi != STAT_GOT_IP:
            if self.sock:
                self.drop(now)
            self.next_try = None  # the broker was not at fault: try it as soon as the Wi-Fi is back
            if wifi in WIFI_FAULTS:
                self.fault = WIFI_FAULTS[wifi]
            return
        if self.sock is None:
            if self._due(now):
                self.open(now)
            return
        for _, flags in self.poller.ipoll(0):
            if flags & (select.POLLERR | select.POLLHUP):
                if self.client:
                    self.closed(now, "the connection to the broker closed")
                    self.receive(now)  # its last words (a TLS alert) say why, if they came
                else:
                    self.fault = "no connection to the broker (refused or unreachable)"
                return self.drop(now)
            if flags & select.POLLIN and self.client and not self.receive(now):
                return self.drop(now)
            if flags & select.POLLOUT and self.client is None:
                if self.config.get("tls"):
                    self.secure()
                self.hello()
        if self.heard and self.up:
            self.deadline = ticks_add(now, QUIET_MS)
        self.heard = False
        if ticks_diff(now, self.deadline) >= 0:
            self.fault = "the broker stopped answering" if self.up else "no answer from the broker in %d s" % (
                ANSWER_MS // 1000)
            return self.drop(now)
        if self.client is None:
            return
        if not self.up and len(self.pipe.inbox) >= 4:
            self.connack(now)
        if self.up:
            if not self.process():
                return self.drop(now)
            self.work(now)
        self.send(now)

    def join(self, now):
        """Ask the port to join the Wi-Fi: once, unless the asking itself raised."""
        if self.join_at is not None and ticks_diff(now, self.join_at) < 0:
            return
        try:
            self.wlan.connect(self.config.get("ssid", ""), self.config.get("password", ""))
        except OSError as e:
            self.fault = "Wi-Fi: %s" % (e.args[0] if e.args else type(e).__name__)
            self.join_at = ticks_add(now, JOIN_MS)
            return
        self.joined = True

    def _due(self, now):
        return self.next_try is None or ticks_diff(now, self.next_try) >= 0

    def open(self, now):
        """Start a TCP connection to the broker; poll() sees it finish (or fail)."""
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
        import tls
        if self.context is None:
            with open(CA_FILE, "rb") as f:
                ca = f.read()
            context = tls.SSLContext(tls.PROTOCOL_TLS_CLIENT)  # a client's: CERT_REQUIRED
            context.load_verify_locations(ca)
            self.ca = ca
            context.set_ciphers(TLS_CIPHERS)
            self.context = context
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
        client.set_last_will(self.topics["status"], self._status(False), True, 1)
        self.pipe.hold = True
        try:
            client.connect()
        except Pending:
            pass
        finally:
            self.pipe.hold = False
        self.client = client
        self.poller.modify(self.sock, select.POLLIN)

    def _status(self, online):
        # boot: this power-on's own number, since seq starts again at every boot (docs/protocol.md)
        return json.dumps({"online": online, "id": self.id, "name": self.config.get("name") or self.id,
                           "boot": self.boot, "seq": self.link.seq}).encode()

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
        self.pipe.hold = True
        try:
            self.client.subscribe(self.topics["cmd"], 1)
        except Pending:
            pass
        finally:
            self.pipe.hold = False
        self._publish(self.topics["status"], self._status(True), True, 1)
        self.state_due = True
        for item in self.outbox:
            item[2] = 0  # not acknowledged on the last connection: sent again, in order

    def work(self, now):
        if self.behind and len(self.outbox) < 4:
            self.catch_up()
        for item in self.outbox:  # in order; QoS 1 until acknowledged
            if self.behind and item[0] >= self.behind_seq:
                break  # newer than the events still to be made again
            if not item[2]:
                item[2] = self._publish(self.topics["events"], item[1], False, 1)
        if self.done > self.journal.acked and not self.app.controller.unwritten:
            try:
                self.journal.ack(self.done)
            except OSError:
                pass  # the next scan tries again; at worst, events go twice after a reboot
        if self.commands:
            self.handle(self.commands.pop(0))
        if self.state_due and due(now, self.state_at, STATE_MS):
            from .state import snapshot
            self.state_due = False
            self.state_at = ticks_add(now, STATE_MS)
            state = json.dumps({"state": snapshot(self.app), "seq": self.link.seq}).encode()
            self._publish(self.topics["state"], state, True, 0)
        if ticks_diff(now, self.ping_at) >= 0:
            self.ping_at = ticks_add(now, KEEPALIVE_S * 500)
            self.client.ping()

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
        # An empty message is how MQTT clears a retained one (the organiser's tools do): no command
        if topic == self.topics["cmd"] and msg and not self.retained and len(self.commands) < 4:  # more: a flood
            self.commands.append(msg)

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
        if got:
            self.pipe.inbox.extend(memoryview(self.scratch)[:got])
        return got is not False

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
                self.skip = size
                if len(self.commands) < 4 and not self.retained:
                    self.commands.append(None)  # answered as a line too long
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

    def acked(self, kind, packet):
        if kind == 0x40:  # PUBACK (the broker sends them in order: MQTT 3.1.1, 4.6)
            pid = packet[2] << 8 | packet[3]
            outbox = self.outbox
            for i, item in enumerate(outbox):
                if item[2] == pid:
                    outbox.pop(i)
                    # a record is done when its last event is (a play, then its round_end)
                    if i == 0 and item[3] and not (outbox and outbox[0][3] == item[3]):
                        self.done = item[3]
                    return

    def catch_up(self):
        """The next event made again from the journal, in its place before the newer ones."""
        event = next(self.behind, None)
        if event is None:
            self.behind = None
            return
        seq = self.behind_seq
        self.behind_seq += 1
        event["seq"] = seq
        event["again"] = True
        n = event["record"] if self.old else 0
        i = 0
        while i < len(self.outbox) and self.outbox[i][0] < seq:
            i += 1
        self.outbox.insert(i, [seq, json.dumps(event).encode(), 0, n])

    def send(self, now):
        """Write what waits: the socket, non-blocking, takes what its buffer has room for, so a
        state and its event leave in the same scan (no copy is made to write them)."""
        out = self.pipe.out
        if not out:
            return
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
        a connection the broker ended just after accepting it: TLS_RETRY_MS); the outbox stays."""
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

    def stop(self):
        self.up = False  # we end it: no broker's fault
        self.drop(0)
        self.wlan.active(False)
        self.app.board.brightness_cap = self.cap
        self.app.set_brightness(self.app.lights.brightness)

    def status(self):
        stage = "up" if self.up else "mqtt" if self.client else "tcp" if self.sock else "wifi"
        return {"wifi": self.wlan.status() == STAT_GOT_IP, "broker": self.up, "stage": stage, "out": len(self.pipe.out),
                "in": len(self.pipe.inbox), "board_id": self.id,
                "waiting": len(self.outbox) + (self.behind_end + 1 - self.behind_seq if self.behind else 0),
                "lost": self.lost, "connects": self.connects, "fault": self.fault}


def due(now, at, ahead):
    """Whether the time `at` has come (None: at once). A mark set at most `ahead` ms ahead that
    seems further ahead is stale, from before the ticks wrapped (on the ESP32 every 2^30 ms,
    about 12 days: ticks_diff then reads a mark over 2^29 ms old as in the future)."""
    return at is None or not 0 < ticks_diff(at, now) <= ahead


# CONNACK's return codes (MQTT 3.1.1, 3.2.2.3), said in status.fault
REFUSALS = ("accepted", "unacceptable protocol version", "client id rejected", "server unavailable",
            "bad user name or password", "not authorized")
RECORDED = ("new_match", "round_start", "placed", "round_restarted")  # one journal record each
ENDS = ("round_end", "match_end")  # after the play that ended them, of its record


def replayed(tables, data, moves, acked, tag):
    """The events of the journal's (data's) records after the `acked` first, up to `moves`, as
    the controller sent them, each with `tag` and `record`, its record's number."""
    from .game import PLAYER_NAMES, Game
    from .journal import ACK, DIE, NEW_MATCH, PUT_BLOCKER, ROUND, TAG, VERSUS, Journal, each_record
    from .referee import match_event, round_event
    game = None
    waiting = True
    n = 0
    for kind, payload, _ in each_record(data):
        if kind == ACK or kind == TAG or kind == VERSUS:
            continue
        n += 1
        if n > moves:
            return
        if kind == NEW_MATCH:
            first = payload[0]
            if n != 1 or int.from_bytes(payload[1:], "little") != tables.checksum:
                return
            game = Game(tables, first)
            event = {"event": "new_match", "first": PLAYER_NAMES[first]}
        else:
            ended = len(game.rounds)
            waiting = Journal._apply(game, waiting, kind, payload)
            if waiting is None:
                return
            if kind == ROUND:
                event = {"event": "round_start", "round": game.round, "first": PLAYER_NAMES[game.to_move]}
            elif kind == DIE or kind == PUT_BLOCKER:
                event = {"event": "placed", "player": PLAYER_NAMES[payload[0]],
                         "cell": square_name(tables.grid, payload[1])}
                if kind == DIE:
                    event["value"] = payload[2]
                else:
                    event["blocker"] = True
            else:
                event = {"event": "round_restarted", "round": payload[0]}
        if n <= acked:
            continue
        event["tag"] = tag
        event["record"] = n
        yield event
        if (kind == DIE or kind == PUT_BLOCKER) and len(game.rounds) > ended:
            event = round_event(game, game.rounds[-1])
            event["event"] = "round_end"
            event["tag"] = tag
            event["record"] = n
            yield event
            if game.match_over:
                event = match_event(game)
                event["event"] = "match_end"
                event["tag"] = tag
                event["record"] = n
                yield event


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


LEVEL_BYTES = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


def is_topic_level(text):
    """1 to 64 letters, digits, _ or -: never a wildcard, a separator or an empty level
    (the host's rule too: doce_host/fleet/topics.py)."""
    if not isinstance(text, str) or not 0 < len(text) <= 64:
        return False
    for c in text:
        if c not in LEVEL_BYTES:
            return False
    return True


def is_prefix(text):
    """1 to 4 topic levels separated by /, 64 characters at most."""
    if not isinstance(text, str) or len(text) > 64:
        return False
    levels = text.split("/")
    if len(levels) > 4:
        return False
    for level in levels:
        if not is_topic_level(level):
            return False
    return True


def is_address(text):
    """An IPv4 address, a.b.c.d. A board does no DNS: on the ESP32 a lookup waits in
    socket.getaddrinfo (lwip_getaddrinfo; mDNS for .local names, up to 5 s), and no die would be
    read meanwhile. `doce config mqtt` looks a name up on the host and gives the board its address."""
    if not isinstance(text, str) or len(text) > 15:
        return False
    parts = text.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not 0 < len(part) <= 3 or any(c not in "0123456789" for c in part) or int(part) > 255:
            return False
    return True


NOT_AN_ADDRESS = "the broker is given by its IP address (like 192.168.1.10): a board does no DNS"


def config_fault(config):
    """What makes stored settings unusable (a file no firmware of ours wrote), in words, or None."""
    if "prefix" in config and not is_prefix(config["prefix"]):
        return "its prefix is no MQTT topic level"
    if "board_id" in config and not is_topic_level(config["board_id"]):
        return "its board_id is no MQTT topic level"
    if not is_address(config.get("broker")):
        return "its broker %r is not an IP address (a board does no DNS)" % str(config.get("broker"))[:64]
    return None


def start(app, link):
    """Wi-Fi and MQTT as net.json says, if it says enough; the Net, or None."""
    config = load_config()
    if not config.get("ssid") or not config.get("broker"):
        return None
    fault = config_fault(config)
    if fault:  # never publish on a topic it did not mean, nor subscribe to a wildcard
        app.emit({"event": "warning", "message": "net.json: %s; not connecting (set it again: doce config mqtt)"
                                                  % fault})
        return None
    import network
    net = Net(app, link, config, network)
    app.net = link.net = net
    return net


# -- the USB commands that set it up (doce/link.py hands them here) --------------------------


def command(link, request):
    """wifi, mqtt: store settings (a password is never sent back); mqtt_ca: the room's CA, in
    chunks; net: settings and status."""
    cmd = request["cmd"]
    config = load_config()
    if cmd == "mqtt_ca":
        if not ca_chunk(request):
            return {"received": _ca[1]}
    elif cmd != "net":
        keys = WIFI_KEYS if cmd == "wifi" else MQTT_KEYS
        for key, value in request.items():
            if key in ("cmd", "id"):  # the request's own, not settings
                continue
            if key not in keys:
                raise BadArgument("%s takes %s" % (cmd, ", ".join(keys)))
            if key == "port":
                if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 65536:
                    raise BadArgument("port is a number from 1 to 65535")
            elif key == "tls":
                if not isinstance(value, bool):
                    raise BadArgument("tls is true or false")
                if value and not has_ca():
                    raise BadArgument("tls needs the broker's CA first (mqtt_ca)")
            elif key == "prefix" and not is_prefix(value):
                raise BadArgument("prefix is 1 to 4 topic levels of letters, digits, _ and -, separated by /, "
                                  "64 characters at most")
            elif key == "board_id" and not is_topic_level(value):
                raise BadArgument("board_id is 1 to 64 letters, digits, _ or -")
            elif key == "broker" and not is_address(value):
                raise BadArgument(NOT_AN_ADDRESS)
            elif not isinstance(value, str) or len(value) > 64:
                raise BadArgument("%s is text of at most 64 characters" % key)
            config[key] = value
        with open(CONFIG + ".new", "w") as f:
            json.dump(config, f)
        os.rename(CONFIG + ".new", CONFIG)
    if cmd != "net":
        app = link.app
        if link.net:
            link.net.stop()
            app.net = link.net = None
        start(app, link)
    shown = {k: v for k, v in config.items() if k not in SECRET}
    for key in SECRET:
        shown[key + "_set"] = bool(config.get(key))
    shown["ca_set"] = has_ca()
    result = {"config": shown}
    if cmd == "mqtt_ca":
        result["received"] = _ca[1]
    if link.net:
        result["status"] = link.net.status()
    return result


_ca = [None, 0]  # the CA on its way: its bytes, and how many have come


def has_ca():
    try:
        return os.stat(CA_FILE)[6] > 0
    except OSError:
        return False


def ca_chunk(request):
    """One chunk of the CA certificate (DER, base64, at most 96 bytes a line like the rules').
    offset 0 begins it; the last stores it, once mbedTLS reads it as a certificate. True then."""
    size, offset, data = request.get("size"), request.get("offset"), request.get("data")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= MAX_CA:
        raise BadArgument("size is the CA certificate's length in bytes (DER), 1 to %d" % MAX_CA)
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise BadArgument("offset is a number of bytes")
    if offset == 0:
        _ca[0], _ca[1] = bytearray(size), 0
    blob, received = _ca
    if blob is None or offset != received or len(blob) != size:
        raise BadArgument("offset must be %d, the bytes received so far" % (received if blob else 0))
    chunk = base64_chunk(data)
    if received + len(chunk) > size:
        raise BadArgument("more bytes than size")
    blob[received:received + len(chunk)] = chunk
    _ca[1] = received + len(chunk)
    if _ca[1] < size:
        return False
    _ca[0] = None
    import tls
    try:
        tls.SSLContext(tls.PROTOCOL_TLS_CLIENT).load_verify_locations(bytes(blob))
        blob = bytes(blob)
    except (ValueError, OSError):  # mbedTLS could not parse it
        blob = None
    if blob is None:
        raise BadArgument("that is not a certificate (DER) this board can read")
    with open(CA_FILE + ".new", "wb") as f:
        f.write(blob)
    os.rename(CA_FILE + ".new", CA_FILE)
    return True
