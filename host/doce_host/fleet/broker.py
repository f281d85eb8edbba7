"""Brokers for `doce fleet`: an embedded one (amqtt, pure Python) on loopback when none is
given, a Mosquitto the tests start, and the parsing of --broker URLs.

Every listener here is on 127.0.0.1: a board room's broker open to the whole network is a
decision for its organiser (a Mosquitto config), never a default.
"""

import asyncio
import getpass
import ipaddress
import logging
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from ..core_time import stretched

LOOPBACK = "127.0.0.1"
START_S = 10  # a broker that does not listen by then has failed, on a quiet computer (start_s())


def start_s():
    """START_S, stretched on a busy computer: a start is a share of a core's work, and with the
    last minute's load above the cores each task gets less of one (at load 24 on 2 cores, a
    tenth: the embedded broker missed 10 s)."""
    return stretched(START_S)


class BrokerError(RuntimeError):
    pass


def parse_url(url, tls_ok=False):
    """(host, port) from mqtt://host:port (port 1883 if left out); with tls_ok (host, port, tls),
    mqtts://host:port too (port 8883). Anything else is a BrokerError in one line."""
    schemes = ("mqtt", "mqtts") if tls_ok else ("mqtt",)
    shown = url.split("://", 1)[0] + "://" + url.rsplit("@", 1)[1] if "@" in url else url  # never a password
    form = "a broker is %s://HOST:PORT, not %r" % ("mqtt[s]" if tls_ok else "mqtt", shown)
    try:
        parts = urlsplit(url if "://" in url else "mqtt://" + url)
        host = parts.hostname
    except ValueError:  # mqtt://[::1: an address never closed
        raise BrokerError(form) from None
    try:
        port = parts.port
    except ValueError:
        port = 0
    if parts.scheme not in schemes or not host or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise BrokerError(form)
    if parts.username is not None or parts.password is not None:  # silently dropped, they would fail later
        raise BrokerError("give the broker's user with --user (the password is asked for), not in the address")
    # DNS limits (RFC 1035, 2.3.4): 253 characters, 63 a label; an address is never longer
    if len(host) > 253 or any(not 0 < len(label) <= 63 for label in host.rstrip(".").split(".")):
        raise BrokerError("%r is not a host name or address" % host[:80])
    # and of letters, digits and inner hyphens only: 'a.example b.evil.example' would be two
    # addresses in mosquitto.conf, '-x' an option to a command
    from ..commandline import HOST_NAME
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if not HOST_NAME.match(host.rstrip(".")):
            raise BrokerError("%r is not a host name or address" % host[:80]) from None
    if port == 0:  # written as 0, or no number from 1 to 65535
        raise BrokerError("a broker's port is a number from 1 to 65535: %r" % shown)
    port = port or (8883 if parts.scheme == "mqtts" else 1883)
    return (host, port, parts.scheme == "mqtts") if tls_ok else (host, port)


def free_port():
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def listening(port, host=LOOPBACK):
    """Whether something takes connections on host:port."""
    try:
        socket.create_connection((host, port), timeout=1).close()
        return True
    except OSError:
        return False


def wait_listening(host, port, process=None, timeout=None):
    timeout = timeout or start_s()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise BrokerError("the broker stopped as it started")
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise BrokerError("no broker listening on %s:%d after %d s" % (host, port, timeout))


class EmbeddedBroker:
    """amqtt's broker on loopback, in a thread of its own, for as long as the `with` lasts. It
    takes anyone, under any client id: what `doce fleet secure` guards against on a Mosquitto is
    open here, so it listens on loopback only and says so (`said`)."""

    def __init__(self, port=None):
        self.host = LOOPBACK
        self.port = port or free_port()
        self.url = "mqtt://%s:%d" % (self.host, self.port)
        self.loop = None
        self.broker = None
        self.thread = None
        self.failed = None

    def start(self):
        ready = threading.Event()
        self.loop = asyncio.new_event_loop()

        async def begin():
            from amqtt.broker import Broker
            config = {"listeners": {"default": {"type": "tcp", "bind": "%s:%d" % (self.host, self.port)}},
                      "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}}}
            self.broker = Broker(config)
            await self.broker.start()

        def run():
            asyncio.set_event_loop(self.loop)
            try:
                self.loop.run_until_complete(begin())
            except Exception as e:  # reported by start(), in the caller's thread
                self.failed = e
                ready.set()
                return
            ready.set()
            self.loop.run_forever()

        for name in ("amqtt", "transitions"):  # its logging is for its own developers: what fails is said below
            logging.getLogger(name).setLevel(logging.CRITICAL)
        self.thread = threading.Thread(target=run, name="doce-broker", daemon=True)
        self.thread.start()
        if not ready.wait(start_s()) or self.failed:
            why = self.failed.__cause__ or self.failed.__context__ or self.failed if self.failed else "timed out"
            raise BrokerError("the embedded broker cannot listen on %s:%d (%s)" % (
                self.host, self.port, getattr(why, "strerror", None) or why))
        return self  # listening: Broker.start() returns once its listeners are up

    def said(self):
        """One line for the user as it starts: what it is for."""
        return ("an embedded MQTT broker on %s, for this computer only: it takes anyone, under any client id "
                "(for a room of real boards: doce fleet secure and Mosquitto)" % self.url)

    def stop(self):
        if self.broker is not None and self.loop.is_running():
            future = asyncio.run_coroutine_threadsafe(self.broker.shutdown(), self.loop)
            try:
                future.result(start_s())
            except Exception:  # noqa: BLE001  a broker that will not stop cleanly still stops below
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(start_s())
        self.broker = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def mosquitto_binary():
    return shutil.which("mosquitto") or next((p for p in ("/usr/sbin/mosquitto",) if Path(p).exists()), None)


class Mosquitto:
    """A Mosquitto process on loopback with a config written here (tests; `doce fleet` users run
    their own). `extra` lines go into its config (password file, ACL). With listeners=False the
    extra lines bring their own listeners (a config `doce fleet secure` wrote), `port` one of them."""

    def __init__(self, port=None, extra=(), folder=None, listeners=True):
        self.binary = mosquitto_binary()
        if not self.binary:
            raise BrokerError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.host = LOOPBACK
        self.port = port or free_port()
        self.url = "mqtt://%s:%d" % (self.host, self.port)
        self.extra = list(extra)
        self.listeners = listeners
        self._tmp = None if folder else tempfile.TemporaryDirectory(prefix="doce-mosquitto-")
        self.folder = Path(folder or self._tmp.name)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = None

    def start(self):
        conf = self.folder / "mosquitto.conf"
        # as the user running this: started by root, Mosquitto would switch to its own user, which
        # cannot read this user's private files (the password file is 0600)
        lines = ["listener %d %s" % (self.port, self.host)] if self.listeners else []
        if not any(line.startswith("user ") for line in self.extra):  # doce fleet secure's config has its own
            lines.append("user %s" % getpass.getuser())
        if not any(line.startswith("persistence ") for line in self.extra):
            lines.append("persistence false")
        if not any(line.startswith(("password_file", "plugin ", "allow_anonymous")) for line in self.extra):
            lines.append("allow_anonymous true")
        if not any(line.startswith("set_tcp_nodelay") for line in self.extra):
            lines.append("set_tcp_nodelay true")  # as doce fleet secure's config says (security.NODELAY)
        conf.write_text("\n".join(lines + self.extra) + "\n")
        self.log = open(self.folder / "mosquitto.log", "ab")
        self.process = subprocess.Popen([self.binary, "-c", str(conf)], stdout=self.log, stderr=subprocess.STDOUT)
        wait_listening(self.host, self.port, self.process)
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(start_s())
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(start_s())
        self.process = None
        if getattr(self, "log", None):
            self.log.close()

    def close(self):
        self.stop()
        if self._tmp:
            self._tmp.cleanup()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
