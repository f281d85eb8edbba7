"""A room of simulated boards on one broker: `doce sim --boards N --broker URL`.

Each board is the real firmware in its own MicroPython unix process (doce_host/sim/serial_sim.py),
with its own MAC, hence its own id; its Wi-Fi and broker are set over its serial port with the
same commands `doce config` sends, and its MQTT goes over real sockets to the broker.
"""

import time
from pathlib import Path

from ..link import BoardLink
from ..sim.serial_sim import SerialSim
from .broker import parse_url

SSID = "doce-sim-room"  # the simulated room's Wi-Fi (sim/device/network.py joins any)


def mac_of(n):
    return "0200000000%02x" % n  # locally administered, one per board


class SimRoom:
    def __init__(self, count, broker_url, rules="standard", folder=None, prefix=None, ca=None):
        """ca: with an mqtts:// broker, the room's CA, stored on each board as `doce config` does."""
        self.host, self.port, self.tls = parse_url(broker_url, tls_ok=True)
        self.url, self.ca = broker_url, ca
        from .commands import board_settings
        board_settings(broker_url, ca)  # a missing or bad CA is one line, before any board starts
        self.boards = []
        try:
            for n in range(1, count + 1):
                sim = SerialSim(Path(folder) / ("board%02d" % n) if folder else None, rules=rules, seed=n,
                                mac=mac_of(n))
                self.boards.append(sim)
                self.configure(sim, n, prefix)
        except BaseException:
            self.close()
            raise

    def configure(self, sim, n, prefix):
        from .commands import board_settings
        requests, settings = board_settings(self.url, self.ca)
        settings["name"] = "Sim %d" % n
        if prefix:
            settings["prefix"] = prefix
        with BoardLink(sim.path, timeout=10) as link:
            link.ask("wifi", ssid=SSID, password="")
            for request in requests:
                link.ask(request.pop("cmd"), **request)

    def ids(self):
        return [mac_of(n + 1) for n in range(len(self.boards))]

    def close(self):
        for sim in self.boards:
            sim.close()
        self.boards = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


MAX_BOARDS = 100  # a big tournament room (issue: ten to a hundred boards); each is a MicroPython process


def run(args):
    """doce sim --boards N [--broker URL]: until Ctrl-C."""
    from .broker import EmbeddedBroker
    from ..commandline import UsageError
    from .commands import EMBEDDED_PORT
    from .broker import BrokerError
    broker = None
    try:
        if not args.broker:
            broker = EmbeddedBroker(EMBEDDED_PORT).start()
        url = args.broker or broker.url
        with SimRoom(args.boards, url, rules=args.rules, folder=args.folder, ca=args.ca) as room:
            print("%d simulated boards on %s%s:" % (args.boards, url, " (embedded broker)" if broker else ""))
            for sim, ident in zip(room.boards, room.ids()):
                print("  %s  serial %s" % (ident, sim.path))
            print("doce fleet status --broker %s%s shows them. Ctrl-C to stop." % (
                url, " --ca %s" % args.ca if args.ca else ""), flush=True)
            while True:
                time.sleep(3600)
    except BrokerError as e:
        raise UsageError(str(e)) from None
    except KeyboardInterrupt:
        return
    finally:
        if broker:
            broker.stop()
