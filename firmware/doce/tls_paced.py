"""TLS to the room's broker, paced so that no scan waits on its crypto (docs/protocol.md, "MQTT
over TLS").

The socket is wrapped in MicroPython's `tls` (mbedTLS) once TCP is up, and the broker's
certificate must chain to the room's CA (ca.der, doce/netconfig.py) and name the broker's address.
The handshake goes on inside the same non-blocking reads and writes as the rest: no call waits on
the network. Its crypto is kept to one short public-key step a scan: the board offers only RSA key
exchange (no elliptic-curve step, which mbedTLS would run in one call of about a second on an
ESP32), and `Paced` hands mbedTLS one TLS record a scan.
"""

import io
import select

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


def client_context(ca):
    """A TLS client's context that trusts the room's CA (DER) alone and offers RSA key exchange only."""
    import tls
    context = tls.SSLContext(tls.PROTOCOL_TLS_CLIENT)  # a client's: CERT_REQUIRED
    context.load_verify_locations(ca)
    context.set_ciphers(TLS_CIPHERS)
    return context
