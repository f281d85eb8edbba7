"""`doce sim --remote`: two simulated boards paired for a match through one broker
(docs/remote.md), each with its own page, as two friends far apart would each have their board.

Each board is the real firmware in real time (doce_host/sim/serial_sim.py) with its own MAC; its
Wi-Fi and broker are set over its serial port as `doce config` sets them, and the two are paired
over it as `doce remote invite` and `join` pair them. Their MQTT goes over real sockets.
"""

import asyncio
from pathlib import Path

from ..link import BoardLink
from ..sim import SUPPLY
from ..sim.serial_sim import SerialSim
from .remote import new_match, request
from .simroom import SSID, mac_of

BOARDS = (("sim1", "white"), ("sim2", "black"))  # board id, the colour its player plays


class SimPair:
    def __init__(self, broker_url, rules="standard", folder=None, ca=None, first="white", supply=SUPPLY):
        from .commands import board_settings
        board_settings(broker_url, ca)  # a bad broker or CA is one line, before any board starts
        self.boards = []
        try:
            for n, (ident, _) in enumerate(BOARDS, 1):
                sim = SerialSim(Path(folder) / ident if folder else None, rules=rules, module="wrover", seed=n,
                                mac=mac_of(n), supply=supply)  # on Wi-Fi: PSRAM
                self.boards.append(sim)
                self.configure(sim, ident, broker_url, ca)
            self.pair(first)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def configure(sim, ident, broker_url, ca):
        from .commands import board_settings
        requests, settings = board_settings(broker_url, ca)
        settings.update(board_id=ident, name="Sim %s" % ident[-1])
        with BoardLink(sim.path, timeout=10) as link:
            link.ask("wifi", ssid=SSID, password="")
            for r in requests:
                link.ask(r.pop("cmd"), **r)

    def pair(self, first):
        """Each board told of the other; boards kept in a --folder that are paired already go on."""
        links = [BoardLink(sim.path, timeout=10) for sim in self.boards]
        try:
            states = [link.request("remote").get("remote") for link in links]
            (a, colour_a), (b, _) = BOARDS
            if states[0] and states[1] and states[0]["peer"] == b and states[1]["peer"] == a \
                    and states[0]["match"] == states[1]["match"]:
                return  # the match kept in their flash goes on
            checksum = links[0].hello()["rules_checksum"]
            match = new_match()
            for link, (ident, colour), (peer, _) in zip(links, BOARDS, reversed(BOARDS)):
                r = request(peer, colour, first, match, checksum, force=True)
                link.ask(r.pop("cmd"), **r)
        finally:
            for link in links:
                link.close()

    def close(self):
        for sim in self.boards:
            sim.close()
        self.boards = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


async def serve_pages(servers, socks, ready):
    started = []

    def one_up():
        started.append(1)
        if len(started) == len(servers):
            ready()
    await asyncio.gather(*(server.run(sock, one_up) for server, sock in zip(servers, socks)))


# MQTT 3.1.1's CONNACK return codes (3.2.2.3), as a sentence
REFUSALS = {1: "it speaks no MQTT 3.1.1", 2: "it refuses their client ids", 3: "it says it is unavailable",
            4: "they have no user or password, and it wants them", 5: "it does not let them on without a user"}


def connect_packet(client_id):
    """MQTT 3.1.1 CONNECT (3.1): clean session, no user, a 60 s keepalive: as a simulated board connects."""
    ident = client_id.encode()
    body = b"\x00\x04MQTT\x04\x02\x00\x3c" + len(ident).to_bytes(2, "big") + ident
    return b"\x10" + bytes([len(body)]) + body


def reachable(url, ca=None, wait_s=None):
    """A given broker must take the simulated boards before any board starts: else both would wait, the
    pages saying only "not connected", with nothing to say why (doce sim --boards refuses the same way).
    It is asked as a board asks: an MQTT CONNECT with a board's client id, no user or password (as
    `doce config mqtt` leaves a simulated board), answered within wait_s (a broker's start, stretched
    on a busy computer); its CONNACK, or the lack of one, is one line."""
    import socket

    from ..commandline import UsageError
    from .broker import BrokerError, parse_url, start_s
    from .commands import board_settings
    from .room import tls_context
    board_settings(url, ca)  # mqtts:// without --ca, or --ca with mqtt://: the boards' own one line first
    try:
        host, port, tls = parse_url(url, tls_ok=True)
        context = tls_context(ca) if tls else None
    except BrokerError as e:
        raise UsageError(str(e)) from None
    wait_s = wait_s or start_s()
    try:
        sock = socket.create_connection((host, port), timeout=wait_s)
    except OSError as e:
        raise UsageError("no broker answers at %s (%s): start it first, or leave --broker out for an embedded "
                         "one on this computer" % (url, e.strerror or type(e).__name__)) from None
    try:
        sock.settimeout(wait_s)
        if context:
            sock = context.wrap_socket(sock, server_hostname=host)
        sock.sendall(connect_packet(BOARDS[0][0]))
        reply = b""
        while len(reply) < 4:
            got = sock.recv(4 - len(reply))
            if not got:
                break
            reply += got
    except socket.timeout:
        raise UsageError("the broker at %s takes a connection but gives no MQTT answer within %.0f s: is it an MQTT "
                         "broker, and is it up?" % (url, wait_s)) from None
    except OSError as e:  # TLS refused, the connection reset
        raise UsageError("the broker at %s took a connection, then failed: %s" % (url, e.strerror or e)) from None
    finally:
        sock.close()
    if len(reply) < 4 or reply[:2] != b"\x20\x02":
        raise UsageError("the broker at %s answered no MQTT CONNACK (%s): is it an MQTT broker?"
                         % (url, "it closed the connection" if not reply else "%d bytes of something else"
                            % len(reply)))
    if reply[3]:
        raise UsageError("the broker at %s refuses the simulated boards (MQTT return code %d: %s): they connect "
                         "without a user or password; use a broker that lets them on (not a doce fleet secure one), "
                         "or leave --broker out for an embedded one"
                         % (url, reply[3], REFUSALS.get(reply[3], "refused")))


def run(args):
    """doce sim --remote [--broker URL]: two boards, two pages, until Ctrl-C."""
    from ..commandline import UsageError
    from ..web.server import PortTaken, Server, listen_on, serve_until_stopped, url_of
    from .broker import BrokerError, EmbeddedBroker
    broker = None
    servers = []
    try:
        if not args.broker:
            broker = EmbeddedBroker().start()
        else:
            reachable(args.broker, args.ca)
        url = args.broker or broker.url
        with SimPair(url, rules=args.rules, folder=args.folder, ca=args.ca,
                     supply=getattr(args, "supply", SUPPLY)) as pair:
            socks = []
            for i in range(len(BOARDS)):
                try:
                    socks.append(listen_on(args.listen, type(args.http)(args.http + i) if args.http else 0))
                except OSError as e:  # a port typed and taken: PortTaken says so in one line
                    raise UsageError(str(e) if isinstance(e, PortTaken) else "cannot serve a page on %s (%s)"
                                     % (args.listen, e.strerror)) from None
            servers = [Server(sim.path, sim) for sim in pair.boards]

            def ready():
                print("Two simulated boards paired for a match through %s%s:" % (
                    url, " (an embedded broker)" if broker else ""))
                for (ident, colour), sock in zip(BOARDS, socks):
                    print("  %s (board %s): %s" % (colour, ident, url_of(sock)))
                print("Open each page in a browser (two windows, as two players far apart). Ctrl-C stops.",
                      flush=True)
                if args.open:
                    import webbrowser
                    for sock in socks:
                        webbrowser.open(url_of(sock))
            serve_until_stopped(serve_pages(servers, socks, ready))
    except BrokerError as e:
        raise UsageError(str(e)) from None
    except KeyboardInterrupt:
        return
    finally:
        for server in servers:
            server.watch.stop()
        if broker:
            broker.stop()
