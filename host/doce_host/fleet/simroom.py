"""A room of simulated boards on one broker, each with its page: `doce sim --boards N [--broker
URL]`, or one board joining a room already running: `doce sim --broker URL`.

Each board is the real firmware in its own MicroPython unix process (doce_host/sim/serial_sim.py),
with its own MAC, hence its own id; its Wi-Fi and broker are set over its serial port with the
same commands `doce config` sends, and its MQTT goes over real sockets to the broker. Each then
gets the simulator's page (doce_host/web/server.py: click dice, Cut power, Press the button), and
the room is told where that page is: a retained `<prefix>/<id>/sim` message, {"page": URL}, that
the tournament page links from the board's tile (docs/protocol.md, "MQTT").
"""

import hashlib
import json
import os
import socket
import ssl
import threading
from pathlib import Path

import paho.mqtt.client as mqtt

from ..core_time import Deadline
from ..link import BoardLink
from ..sim import SUPPLY
from ..sim.serial_sim import SerialSim
from .broker import parse_url

SSID = "doce-sim-room"  # the simulated room's Wi-Fi (sim/device/network.py joins any)
CONNECT_S = 10  # s of a core's time for the broker to answer and hand over the room as it is


def mac_of(n):
    return "0200000000%02x" % n  # locally administered, one per board


def joining_mac(folder=None):
    """The MAC of one board joining a room others started: locally administered and unlike theirs
    (mac_of), the same each time for a board kept in `folder`, else new each run."""
    seed = str(Path(folder).resolve()).encode() if folder else os.urandom(8)
    return "06" + hashlib.sha256(seed).hexdigest()[:10]


class SimRoom:
    def __init__(self, count, broker_url, rules="standard", folder=None, prefix=None, ca=None, macs=None,
                 folders=None, supply=SUPPLY):
        """ca: with an mqtts:// broker, the room's CA, stored on each board as `doce config` does.
        macs: the boards' MACs (hence their ids), mac_of(1), mac_of(2)... unless given.
        folders: where each board keeps its flash; else `folder`/board01, board02..., or none."""
        self.host, self.port, self.tls = parse_url(broker_url, tls_ok=True)
        self.url, self.ca = broker_url, ca
        from .commands import board_settings
        board_settings(broker_url, ca)  # a missing or bad CA is one line, before any board starts
        self.boards = []
        self.macs = macs or [mac_of(n) for n in range(1, count + 1)]
        folders = folders or [Path(folder) / ("board%02d" % n) if folder else None for n in range(1, count + 1)]
        self.prefix = prefix or "doce"
        try:
            for n, (mac, where) in enumerate(zip(self.macs, folders), 1):
                sim = SerialSim(where, rules=rules, module="wrover", seed=n, mac=mac, supply=supply)  # on Wi-Fi: PSRAM
                self.boards.append(sim)
                self.configure(sim, "Sim %d" % n if macs is None else "Sim %s" % mac[-4:], prefix)
        except BaseException:
            self.close()
            raise

    def configure(self, sim, name, prefix):
        from .commands import board_settings
        requests, settings = board_settings(self.url, self.ca)
        settings["name"] = name
        if prefix:
            settings["prefix"] = prefix
        with BoardLink(sim.path, timeout=10) as link:
            link.ask("wifi", ssid=SSID, password="")
            for request in requests:
                link.ask(request.pop("cmd"), **request)

    def ids(self):
        return self.macs[:len(self.boards)]

    def close(self):
        for sim in self.boards:
            sim.close()
        self.boards = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class PageNotices:
    """Tells the room where each simulated board's page is: a retained `<prefix>/<id>/sim` message,
    {"page": URL}, told again each time the broker is back (a broker without persistence forgets
    its retained messages when it restarts), and cleared when the boards stop, unless another
    process has told that topic since (docs/protocol.md, "MQTT").

    It also sees which boards are in the room already (their retained status), so that a board
    started here never takes the id of one online: the broker would close the older connection,
    and the two boards would throw each other off for as long as both run."""

    def __init__(self, broker_url, ca=None, prefix="doce", timeout=CONNECT_S):
        host, port, tls = parse_url(broker_url, tls_ok=True)
        self.prefix = prefix
        self.told = {}  # topic -> the payload told there
        self.heard = {}  # topic -> the last payload the broker has for it, from anyone
        self.online = set()  # the ids of the boards the room has online
        self.lock = threading.Lock()
        self.probe = "doce-sim-probe/%s" % os.urandom(6).hex()  # outside the room's prefix: no board's
        self.seen = threading.Event()  # the room as the broker holds it has come
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="doce-sim-pages-%s" % os.urandom(4).hex())
        self.client.reconnect_delay_set(0.2, 2)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        if tls:
            self.client.tls_set_context(ssl.create_default_context(cafile=ca))
        self.client.connect(host, port, keepalive=30)
        self.client.loop_start()
        deadline = Deadline(timeout)  # of a core's time: the embedded broker shares this computer's cores
        while not self.seen.wait(min(0.2, deadline.left())) and not deadline.passed():
            pass
        if not self.seen.is_set():
            self.close()
            raise OSError("no answer from the broker in %d s" % timeout)

    def _on_connect(self, client, userdata, flags, reason, properties=None):
        if reason.is_failure:
            return
        client.subscribe([("%s/+/status" % self.prefix, 1), ("%s/+/sim" % self.prefix, 1), (self.probe, 1)])
        with self.lock:
            told = list(self.told.items())
        for topic, payload in told:  # the broker may have forgotten them
            client.publish(topic, payload, qos=1, retain=True)

    def _on_subscribe(self, client, userdata, mid, reasons, properties=None):
        # the broker sends the retained messages of a subscription before it reads what comes next
        client.publish(self.probe, b"?", qos=1)

    def _on_message(self, client, userdata, msg):
        if msg.topic == self.probe:
            self.seen.set()
            return
        parts = msg.topic.split("/")
        with self.lock:
            if parts[-1] == "sim":
                self.heard[msg.topic] = msg.payload
            elif parts[-1] == "status":
                try:
                    online = json.loads(msg.payload).get("online") is True
                except (ValueError, AttributeError, RecursionError):
                    online = False
                (self.online.add if online else self.online.discard)(parts[-2])

    def in_room(self, idents):
        """Those of `idents` the room has online now."""
        with self.lock:
            return [i for i in idents if i in self.online]

    def tell(self, ident, page):
        topic = "%s/%s/sim" % (self.prefix, ident)
        payload = json.dumps({"page": page}).encode()
        with self.lock:
            self.told[topic] = payload
        self.client.publish(topic, payload, qos=1, retain=True)

    def close(self):
        for topic, payload in self.told.items():  # a board that is gone has no page to open
            with self.lock:
                someone_else = self.heard.get(topic, payload) != payload
            if not someone_else:
                self.client.publish(topic, b"", qos=1, retain=True).wait_for_publish(timeout=5)
        self.client.loop_stop()
        self.client.disconnect()


def reachable(url, broker_host):
    """A page's address as the room reaches it: a page served on every address (0.0.0.0) is
    named by this computer's address on the way to the broker."""
    if not url.startswith("http://0.0.0.0:"):
        return url
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect((broker_host, 9))  # no packet is sent: the route picks the address
        address = probe.getsockname()[0]
    except OSError:
        address = "127.0.0.1"
    finally:
        probe.close()
    return url.replace("0.0.0.0", address, 1)


MAX_BOARDS = 100  # a big tournament room (issue: ten to a hundred boards); each is a MicroPython process


def run(args):
    """doce sim --boards N [--broker URL], or doce sim --broker URL (one board joining): the
    boards and their pages, until Ctrl-C."""
    from ..commandline import UsageError
    from ..web.server import PortTaken, serve_several
    from .broker import BrokerError, EmbeddedBroker
    from .commands import EMBEDDED_PORT, board_settings
    joining = args.boards is None  # one board, into a room someone else runs
    count = 1 if joining else args.boards
    broker = notices = None
    try:
        if not args.broker:
            broker = EmbeddedBroker(EMBEDDED_PORT).start()
        url = args.broker or broker.url
        board_settings(url, args.ca)  # a bad URL or CA is one line, before anything connects
        try:
            notices = PageNotices(url, args.ca)
        except (OSError, ssl.SSLError) as e:
            raise BrokerError("cannot reach the broker at %s to tell it the pages (%s)" % (url, e)) from None
        if joining:
            folders = [args.folder]
        else:
            folders = [Path(args.folder) / ("board%02d" % n) if args.folder else None for n in range(1, count + 1)]
        # a broker of our own has only our boards; one that is given may have another room's
        macs = [joining_mac(where) for where in folders] if args.broker else None
        taken = notices.in_room(macs or [])
        if taken:
            raise UsageError("board %s is already in the room at %s: is another doce sim running with %s?"
                             % (taken[0], url, "--folder %s" % args.folder if args.folder else "the same folder"))
        with SimRoom(count, url, rules=args.rules, ca=args.ca, macs=macs, folders=folders,
                     supply=getattr(args, "supply", SUPPLY)) as room:
            def ready(pages):
                pages = [reachable(page, room.host) for page in pages]
                print("%s on %s%s:" % ("1 simulated board with its page" if count == 1 else
                                       "%d simulated boards, each with its page," % count,
                                       url, " (embedded broker)" if broker else ""))
                for sim, ident, page in zip(room.boards, room.ids(), pages):
                    notices.tell(ident, page)
                    print("  %s  page %s  serial %s" % (ident, page, sim.path))
                print("doce fleet web --broker %s%s shows the room, each board's page a click from its tile. "
                      "Ctrl-C to stop." % (url, " --ca %s" % args.ca if args.ca else ""), flush=True)
            try:
                # Sim n's page on --http + n (8001 for Sim 1...), so a tile's number is its port's last
                # digits, and a lone `doce sim` keeps 8000
                serve_several([(sim.path, sim) for sim in room.boards], host=args.listen, http_port=args.http,
                              ready=ready, first=0 if joining else 1)
            except OSError as e:  # a port typed and taken: web/server.py PortTaken says so in one line
                raise UsageError(str(e) if isinstance(e, PortTaken) else "cannot serve the boards' pages on %s (%s)"
                                 % (args.listen, e.strerror or e)) from None
    except BrokerError as e:
        raise UsageError(str(e)) from None
    except KeyboardInterrupt:
        return
    finally:
        if notices:
            notices.close()
        if broker:
            broker.stop()
