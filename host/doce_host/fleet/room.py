"""The organiser's view of a room of boards, over MQTT (paho-mqtt).

Every board publishes under <prefix>/<id>/ (doce/net.py's Net, docs/protocol.md "MQTT"): a retained
status and state, QoS 1 events, and replies to commands sent on its cmd topic. A Room
subscribes to all of them and keeps, per board, the latest of each and the events in order:
an event the board sends again (QoS 1 is at least once: a lost PUBACK means a repeat) is
recognised by its seq and kept once. A game event also names its match and journal record
(`tag`, `record`): one the board makes again from its journal after a reboot (`again`) is
kept only if its first sending never arrived.
"""

import collections
import itertools
import json
import secrets
import ssl
import threading
import time

import paho.mqtt.client as mqtt

from ..core_time import Deadline
from ..game_log import GameLog
from ..protocol import problem
from .broker import BrokerError, parse_url
from .update_stage import Stage, whole
from .topics import BOARD_ID, MAX_MESSAGE  # one rule for a board's id: it names its files (doce fleet record)

CONNECT_S = 10
MAX_PAYLOAD = MAX_MESSAGE
MAX_CA_FILE = 1 << 20  # a CA file (a bundle of several, say) is a few hundred KB at most
# What a room keeps is bounded whatever the boards send (a page runs all evening): a board's
# latest events (fleet record takes each as it comes) and lines in words (its page shows 20), the keys that tell its
# events made again (a match has about 400), the replies no request waits for, the requests
# waiting, and the boards themselves (a big tournament room has a hundred). A board that sends
# every message at MAX_PAYLOAD costs at most about 1.6 MB (its 20 lines in words up to 0.3 MB of it).
MAX_EVENTS = 64
MAX_KEYS = 1024
MAX_REPLIES = 64
MAX_ASKED = 256
MAX_BOARDS = 256
LINES_SHOWN = 20  # a board's lines in words kept, as many as its page shows (GameLog: one each)
SHAPES = {"status": "mqtt_status", "state": "mqtt_state", "events": "from_board", "reply": "from_board",
          "sim": "mqtt_sim"}


class Board:
    def __init__(self, ident):
        self.id = ident
        self.name = ident
        self.online = None
        self.boot = None
        self.state = None
        self.seq = 0  # the last event kept, this boot
        self.events = collections.deque(maxlen=MAX_EVENTS)  # (boot, event), the latest, as the board numbered them
        # (replaced, never changed in place, as each comes: Room._take)
        self.count = 0  # events kept, all told
        self.log = GameLog(LINES_SHOWN)  # what happened, in words, as the board's own page says it
        self.repeats = 0  # events the board sent again, dropped here
        self.recorded = {}  # (tag, record, event) of each game event kept, the latest MAX_KEYS (in order)
        self.last_seen = None
        self.changed = 0  # the room's version at this board's last message
        self.page = None  # a simulated board's page (doce sim --broker), where its hands are
        self.arrivals = 0  # statuses saying online: each is a connection of the board to the broker
        self.missed = 0  # events it numbered that never came here (a gap in seq)
        self.version = None  # its app's update version, as its status says (0: the app doce flash installed)
        self.update = Stage()  # where its app update stands (fleet/update_stage.py)

    def row(self):
        s = (self.state or {}).get("state") or {}
        return {"id": self.id, "name": self.name, "online": bool(self.online), "rules": s.get("rules"),
                "rules_checksum": s.get("rules_checksum"), "round": s.get("round"), "totals": s.get("totals"),
                "mode": s.get("mode"), "last_seen": self.last_seen, "events": self.count, "page": self.page,
                "version": self.version, "update": self.update.words()}


class Room:
    def __init__(self, url, prefix="doce", user=None, password=None, session=None, ca=None):
        """session: a name for a lasting session: the broker keeps what comes for this Room while
        it is away (a broker restart, a lost link) and hands it over when it is back.
        ca: with an mqtts:// url, the CA file the broker's certificate must chain to (default: the
        system's); its host name is checked either way."""
        self.host, self.port, self.tls = parse_url(url, tls_ok=True)
        self.ca = ca
        if ca and not self.tls:
            raise BrokerError("a CA is for an mqtts:// broker, not %r" % url)
        self.prefix = prefix
        self.boards = {}
        self.replies = collections.deque(maxlen=MAX_REPLIES)  # (board id, reply) no request of ours waits for
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.ids = itertools.count(1)
        self.levels = prefix.count("/") + 1
        self.cleared = 0  # retained commands found on boards' cmd topics, and cleared
        self.passed_over = 0  # messages no board would send: bad topic, not JSON, not the protocol's shape
        self.fault = None  # the last one that raised while kept, for the curious
        # A dot no board id has (topics.BOARD_ID), and a random part: no board's id can be one of ours
        self.client_id = session or "doce.fleet.%s" % secrets.token_hex(4)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.client_id,
                                  clean_session=session is None)
        self.connects = 0  # connections the broker accepted: more than one, it came back
        self.client.reconnect_delay_set(0.2, 2)  # a broker back from a restart is used again at once
        self.user, self.password, self.refused_password = user, password, False
        if user:
            self.client.username_pw_set(user, password)
        if self.tls:
            context = tls_context(ca)
            self.client.tls_set_context(context)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.up = False  # connected to the broker now
        self.asked = {}  # request id -> [the board it went to, its reply or None until it comes]
        self.refused = None
        self.on_event = None  # called (board id, event, its latest state) for each event kept
        self.on_change = None  # called (from paho's thread) after each message that moved the version on
        self.version = 0  # counts the boards' messages: a page waits for it to change
        self.joined = 0  # the version at which the last board new to the room appeared
        # Each shape's validator built and its references followed now: jsonschema does it at the
        # first message of a shape, about 80 ms that held up the first die a page showed
        for shape in set(SHAPES.values()):
            problem({}, shape)

    def connect(self, timeout=CONNECT_S):
        try:
            self.client.connect(self.host, self.port, keepalive=30)  # the TLS handshake too, bounded by paho
        except ssl.SSLCertVerificationError as e:
            raise BrokerError("the broker at %s:%d has a certificate %s does not vouch for (%s)" % (
                self.host, self.port, self.ca or "the system's CAs", e.verify_message)) from None
        except (ssl.SSLError, ConnectionResetError) as e:
            if not self.tls:
                raise BrokerError("cannot reach the broker at %s:%d (%s)" % (self.host, self.port, e)) from None
            # a plain broker reads the TLS hello as a bad MQTT packet and hangs up
            raise BrokerError("no TLS from the broker at %s:%d (%s): a plain MQTT port?" % (
                self.host, self.port, getattr(e, "reason", None) or e.strerror or e)) from None
        except OSError as e:
            raise BrokerError("cannot reach the broker at %s:%d (%s)" % (self.host, self.port, e)) from None
        self.client.loop_start()
        deadline = Deadline(timeout)  # of a core's time: a broker on this computer shares its cores
        while not self.connected.wait(min(0.2, deadline.left())) and not deadline.passed():
            pass
        if not self.connected.is_set() or self.refused:
            self.close()
            said = self.refused or "did not answer"
            if self.refused_password and self.user:  # a wrong password, or one the broker could not check
                from .refusal import why
                said += ": " + why(self.host, self.port, self.user, self.password)
            raise BrokerError("the broker at %s:%d %s" % (self.host, self.port, said))
        return self

    def _on_connect(self, client, userdata, flags, reason, properties=None):
        if reason.is_failure:
            self.refused = "refused the connection (%s)" % reason
            # MQTT 3.1.1's codes 4 and 5 (paho names them so): Mosquitto answers 5 to a wrong password
            self.refused_password = str(reason) in ("Not authorized", "Bad user name or password")
            self.connected.set()
        else:
            # connect() returns at the SUBACK, not here: a board's event published the moment we
            # return would otherwise reach the broker before our SUBSCRIBE and be lost
            client.subscribe("%s/+/+" % self.prefix, qos=1)
            self.connects += 1
            self.up = True

    def _on_subscribe(self, client, userdata, mid, reasons, properties=None):
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason, properties=None):
        self.up = False  # paho connects again by itself (reconnect_delay_set)

    def board(self, ident):
        if ident not in self.boards:
            self.boards[ident] = Board(ident)
        return self.boards[ident]

    def _on_message(self, client, userdata, msg):
        before = self.version
        try:
            self._take(msg)
        except Exception as e:  # noqa: BLE001  paho's thread must live on: a bad message costs only itself
            with self.lock:
                self.passed_over += 1
                self.fault = "%s: %s" % (type(e).__name__, e)
        if self.version != before and self.on_change:
            self.on_change()

    def _take(self, msg):
        """Keep what a board says; pass over what no board of ours would send (the broker is
        open to anyone with the organiser's prefix, and a payload is just bytes)."""
        parts = msg.topic.split("/")
        ident, kind = (parts[-2], parts[-1]) if len(parts) >= 3 else (None, None)
        if kind == "sim" and not msg.payload and ident in self.boards:  # the simulated board's page is gone
            with self.lock:
                self.boards[ident].page = None
                self.version += 1
                self.boards[ident].changed = self.version
            return
        if kind == "cmd" and msg.retain and msg.payload and len(parts) == self.levels + 2:
            # A command kept on a board's topic: handed to it again at every reconnect. The board
            # ignores it, and no Mosquitto ACL can refuse the retain flag on a topic: clear it
            self.client.publish(msg.topic, b"", qos=1, retain=True)
            with self.lock:
                self.cleared += 1
        if kind == "cmd" and ident in self.boards and 0 < len(msg.payload) <= MAX_PAYLOAD:
            self._command_seen(ident, msg.payload)
        if kind == "cmd" or not msg.payload:  # ours, or a retained message cleared
            return
        payload = None
        if kind in SHAPES and BOARD_ID.match(ident) and len(msg.payload) <= MAX_PAYLOAD:
            try:
                payload = json.loads(msg.payload)
            except (ValueError, RecursionError):
                payload = None
        if payload is None or problem(payload, SHAPES[kind]):
            with self.lock:
                self.passed_over += 1
            return
        with self.lock:
            new = ident not in self.boards
            if new and len(self.boards) >= MAX_BOARDS:
                self.passed_over += 1
                return
            b = self.board(ident)
            b.last_seen = time.time()
            self.version += 1
            b.changed = self.version
            if new:
                self.joined = self.version
            if kind == "status":
                if payload.get("online") is not True and b.online and payload.get("boot") != b.boot:
                    # The will of a boot that is over: a broker gives up a dead connection when it
                    # likes (at a takeover, or a keepalive later), maybe after the next boot is up
                    return
                b.version = payload.get("version") if whole(payload.get("version")) else None
                b.update.seen(kind, payload)
                b.arrivals += payload.get("online") is True
                b.online = payload.get("online") is True
                b.name = str(payload.get("name") or ident)
                if payload.get("boot") != b.boot:  # a new power-on: its seq starts again
                    b.boot = payload.get("boot")
                    b.seq = 0
            elif kind == "state":
                b.state = payload
                b.log.state(payload["state"], payload["seq"])
            elif kind == "events":
                seq = payload.get("seq")
                key = (payload.get("tag"), payload.get("record"), payload.get("event"))
                if not isinstance(seq, int) or seq <= b.seq or (key[1] and key in b.recorded):
                    b.repeats += 1
                    return
                if b.seq:
                    b.missed += seq - b.seq - 1
                b.seq = seq
                if key[1]:
                    b.recorded[key] = True
                    if len(b.recorded) > MAX_KEYS:
                        del b.recorded[next(iter(b.recorded))]  # the oldest
                # A new deque, not the one held changed: a reader on another thread (a page, a test)
                # iterates what it took, and a deque changed while iterated raises RuntimeError
                events = collections.deque(b.events, maxlen=MAX_EVENTS)
                events.append((b.boot, payload))
                b.events = events
                b.count += 1
                b.update.seen(kind, payload)
                shown = b.state or {}
                b.log.event(payload, shown.get("state"), shown.get("seq"))
                if self.on_event:
                    self.on_event(ident, payload, b.state)
            elif kind == "reply":
                b.update.seen(kind, payload)
                asked = self.asked.get(payload.get("id")) if isinstance(payload.get("id"), str) else None
                if asked and asked[0] == ident and asked[1] is None:  # from the board it was sent to
                    asked[1] = payload
                else:
                    self.replies.append((ident, payload))
            elif kind == "sim":
                b.page = payload["page"]

    def _command_seen(self, ident, payload):
        """A command on a board's cmd topic (ours, or another organiser tool's): an update_begin names the
        size its later replies' `received` counts towards (anyone may publish there: only a count is kept)."""
        try:
            cmd = json.loads(payload)
        except (ValueError, RecursionError):
            return
        if isinstance(cmd, dict) and cmd.get("cmd") == "update_begin":
            with self.lock:
                self.boards[ident].update.begun(cmd.get("size"))

    def send(self, ident, cmd, **args):
        """Send a command to one board without waiting: its request id, for reply()."""
        request_id = "fleet-%d" % next(self.ids)
        args.update(cmd=cmd, id=request_id)
        with self.lock:
            self.asked[request_id] = [ident, None]  # only that board's reply is its
            if len(self.asked) > MAX_ASKED:  # a caller that never came back for its replies
                del self.asked[next(iter(self.asked))]
        # compact, as on USB: a command is one line of at most 200 bytes (docs/protocol.md)
        self.client.publish("%s/%s/cmd" % (self.prefix, ident), json.dumps(args, separators=(",", ":")), qos=1)
        return request_id

    def reply(self, request_id, forget=False):
        """The reply to a request sent, or None if it has not come. forget: no longer wait for it."""
        with self.lock:
            reply = (self.asked.get(request_id) or (None, None))[1]
            if reply is not None or forget:
                self.asked.pop(request_id, None)
        return reply

    def command(self, ident, cmd, timeout=5.0, pump=None, **args):
        """Send a command to one board and wait (at most `timeout` s of a core's time) for its reply,
        or None. `pump` is called while waiting (a lockstep simulator must scan to answer)."""
        request_id = self.send(ident, cmd, **args)
        deadline = Deadline(timeout)
        while not deadline.passed():
            reply = self.reply(request_id)
            if reply is not None:
                return reply
            pump() if pump else time.sleep(0.02)
        self.reply(request_id, forget=True)
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


def tls_context(ca):
    """An SSL context that checks a broker against `ca` (PEM or DER; None: the system's CAs), or
    BrokerError in one line."""
    from ..files import FileError, read_limited
    try:
        cadata = read_limited(ca, MAX_CA_FILE, "a CA certificate") if ca else None  # (never a FIFO)
        if cadata and b"-----BEGIN" in cadata:
            cadata = cadata.decode("ascii", "replace")  # PEM: ssl takes it as text, DER as bytes
        return ssl.create_default_context(cadata=cadata)  # verifies the chain and the host name
    except FileError as e:
        raise BrokerError("cannot use %s as a CA (%s)" % (ca, e)) from None
    except (OSError, ValueError) as e:  # ssl.SSLError is an OSError: a file that is no CA
        raise BrokerError("cannot use %s as a CA (%s)" % (ca, getattr(e, "strerror", None) or e)) from None
