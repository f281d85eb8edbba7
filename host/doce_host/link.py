"""Talk to a DOCE board over its serial port: the host side of docs/protocol.md.

    with BoardLink("/dev/ttyUSB0") as board:
        board.hello()                     # checks it is a DOCE board speaking our protocol
        board.request("state")["state"]
        board.next_event(timeout=5)

Works the same with a real board and with `doce sim`'s path.
"""

import binascii
import collections
import errno
import json
import random

import serial

from doce.link import MAX_LINE, PROTOCOL  # the firmware's own numbers: one copy, no drift

from .core_time import Deadline
from .protocol import problem
from .view import printable

# A board's longest line is its state, about 2 KB; one far longer is not a board's
MAX_PENDING = 65536
CHUNK = 96  # bytes of rule tables per rules_chunk: 128 of base64, a line of about 190 bytes


class LinkError(Exception):
    """Something a person can act on, in one line."""


class BoardLink:
    def __init__(self, port, baudrate=115200, timeout=5.0):
        self.port = port
        self.timeout = timeout
        try:
            self.serial = serial.Serial(port, baudrate, timeout=0.05, exclusive=True)
        except serial.SerialException as e:
            raise LinkError(describe_open_error(port, e)) from None
        self.pending = b""
        self.skipping = False  # inside a line too long to be a board's
        self.events = collections.deque()
        # End whatever partial line an earlier program left on the board (a typed arrow
        # key), so it cannot glue itself to our first request.
        try:
            self.send_line(b"")
        except LinkError:
            self.serial.close()
            raise
        # Ids start anywhere, so a late reply to an earlier connection's request cannot
        # pass for the answer to one of ours.
        self.next_id = random.randrange(1, 1 << 30)

    def close(self):
        self.serial.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- lines ------------------------------------------------------------------------

    def _messages(self, wait=True):
        """The JSON objects that have arrived; other lines (the REPL's) are skipped.
        With `wait`, a read waits a little (the port's timeout) for a first byte."""
        try:
            waiting = self.serial.in_waiting
            if waiting or wait:
                self.pending += self.serial.read(waiting or 1)
        except (serial.SerialException, OSError) as e:
            raise LinkError("%s: the connection was lost (%s)" % (self.port, e)) from None
        if len(self.pending) > MAX_PENDING and b"\n" not in self.pending:
            self.pending = b""  # a line longer than any a board sends: dropped, not kept growing
            self.skipping = True
        while b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            if self.skipping:  # the rest of that line
                self.skipping = False
                continue
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(message, dict):
                yield message

    def send_line(self, data):
        """One line to the board. It must fit the board's line (docs/protocol.md: the
        ESP32's receive buffer holds about one line), and the caller waits for its reply."""
        if len(data.rstrip(b"\n")) > MAX_LINE:
            raise LinkError("%s: a line of %d bytes; the board takes at most %d" % (self.port, len(data), MAX_LINE))
        try:
            self.serial.write(data if data.endswith(b"\n") else data + b"\n")
        except (serial.SerialException, OSError) as e:
            raise LinkError("%s: the connection was lost (%s)" % (self.port, e)) from None

    # -- requests and events ------------------------------------------------------------

    def request(self, cmd, timeout=None, **args):
        """Send a request and return its reply (with ok false, if the board refused it).
        The reply has the protocol's shape (docs/protocol.schema.json), or LinkError says
        where it does not: a board is untrusted, so callers can read its fields."""
        return self._checked(self._request(cmd, timeout, args), "its reply to %s" % cmd)

    def _checked(self, message, what):
        found = problem(message)
        if found:
            raise LinkError("%s: the board sent %s that does not fit the protocol (%s)"
                            % (self.port, what, printable(found)))
        return message

    def _request(self, cmd, timeout, args):
        ident = self.next_id
        self.next_id += 1
        args.update(cmd=cmd, id=ident)
        self.send_line(encode(args))
        timeout = self.timeout if timeout is None else timeout
        deadline = Deadline(timeout)
        while not deadline.passed():
            for message in self._messages():
                if "event" in message:
                    self.events.append(message)
                elif message.get("id") == ident and message.get("re") == cmd:
                    return message
        raise LinkError("%s: timeout: no answer to %r within %.0f s" % (self.port, cmd, timeout))

    def ask(self, cmd, **args):
        """A request that must succeed: its reply, or LinkError with the board's reason."""
        reply = self.request(cmd, **args)
        if not reply.get("ok"):
            raise LinkError("%s: %s: %s" % (self.port, cmd, reply.get("message") or reply.get("error")))
        return reply

    def hello(self):
        """The board's hello, after checking it is a DOCE board speaking this protocol."""
        try:
            reply = self._request("hello", min(self.timeout, 3), {})
        except LinkError:
            raise LinkError("%s: not a DOCE board, or its app is not running (no answer to hello); "
                            "press reset, or install it with doce flash" % self.port) from None
        if not isinstance(reply.get("protocol"), int) or isinstance(reply.get("protocol"), bool):
            raise LinkError("%s: not a DOCE board (its hello names no protocol number)" % self.port)
        if reply.get("protocol") != PROTOCOL:
            raise LinkError("%s: the board speaks protocol %s, this doce speaks %d: update the %s"
                            % (self.port, reply.get("protocol"), PROTOCOL,
                               "board (doce flash --app-only)" if (reply.get("protocol") or 0) < PROTOCOL
                               else "host tools"))
        return self._checked(reply, "a hello")

    def next_event(self, timeout=None):
        """The next event, or None if none came within `timeout` seconds (of a core's time)."""
        deadline = Deadline(self.timeout if timeout is None else timeout)
        while not self.events:
            late = deadline.passed()
            for message in self._messages(wait=not late):
                if "event" in message:
                    self.events.append(message)
            if late and not self.events:
                return None
        return self._checked(self.events.popleft(), "an event")

    def wait_for(self, kind, timeout=None, **match):
        """Events until one of `kind` (with the given fields); returns it and what came before."""
        seen = []
        deadline = Deadline(self.timeout if timeout is None else timeout)
        while not deadline.passed():
            event = self.next_event(deadline.left())
            if event is None:
                break
            seen.append(event)
            if event["event"] == kind and all(event.get(k) == v for k, v in match.items()):
                return event, seen
        raise LinkError("%s: timeout: no %s event within %.0f s (saw %s)"
                        % (self.port, kind, self.timeout if timeout is None else timeout,
                           ", ".join(e["event"] for e in seen) or "nothing"))

    def state(self):
        return self.ask("state")["state"]

    # -- rules --------------------------------------------------------------------------

    def push_rules(self, blob, force=False, chunk=CHUNK):
        """Send rule tables; the commit's reply (ok false and an error if the board kept its
        old rules). Raises LinkError if a step before the commit fails."""
        if not blob:
            raise LinkError("%s: no rule tables to send" % self.port)
        self.ask(**begin(blob))
        for request in chunks(blob, chunk):
            self.ask(request.pop("cmd"), **request)
        return self.request("rules_commit", force=force)

    def pull_rules(self):
        try:
            return binascii.a2b_base64(self.ask("rules_get")["tables"])
        except (KeyError, ValueError, binascii.Error):
            raise LinkError("%s: the board sent rule tables that are not base64" % self.port) from None


def encode(request):
    """A request as the line the board reads: compact JSON, so it fits in MAX_LINE."""
    return json.dumps(request, separators=(",", ":")).encode()


def begin(blob):
    """The rules_begin request for `blob`: its checksum is the tables' own (all but their last 4
    bytes), the one hello and state report."""
    return {"cmd": "rules_begin", "size": len(blob), "checksum": "%08x" % binascii.crc32(blob[:-4])}


def chunks(blob, chunk=CHUNK):
    """The rules_chunk requests that carry `blob`: each line well within MAX_LINE."""
    for at in range(0, len(blob), chunk):
        yield {"cmd": "rules_chunk", "offset": at, "data": binascii.b2a_base64(blob[at:at + chunk]).decode().strip()}


def describe_open_error(port, error):
    code = getattr(error, "errno", None)
    text = str(error)
    if code == errno.ENOENT or "No such file" in text or "could not open port" in text and "FileNotFound" in text:
        return "%s: no such port (is the board plugged in? doce sim --serial-only prints its path)" % port
    if code in (errno.EBUSY, errno.EAGAIN) or "busy" in text.lower() or "temporarily unavailable" in text:
        return "%s: port busy: another program has it open (a monitor, mpremote, an IDE?)" % port
    if code == errno.EACCES or "Permission denied" in text:
        return "%s: permission denied (on Linux, join the dialout group)" % port
    return "%s: cannot open (%s)" % (port, text)
