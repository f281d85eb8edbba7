"""Default listeners are loopback only: what each broker `doce` starts or configures is bound to
127.0.0.1, read from the kernel's own table of listening sockets (not from our config)."""

from pathlib import Path

import pytest
from fleet_helpers import mosquitto_or_skip

from doce_host.cli import main
from doce_host.fleet.broker import EmbeddedBroker, Mosquitto, free_port

TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
LISTEN = "0A"  # TCP_LISTEN in include/net/tcp_states.h


def bound_addresses(port):
    """The local addresses with a socket listening on port (Linux's /proc/net/tcp{,6}), as hex."""
    if not TABLES[0].exists():
        pytest.skip("no /proc/net/tcp: not Linux")
    found = set()
    for table in TABLES:
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            address, at = fields[1].split(":")
            if int(at, 16) == port and fields[3] == LISTEN:
                found.add(address)
    return found


LOOPBACK = {"0100007F"}  # 127.0.0.1, as the kernel prints it (little-endian hex)


def test_the_embedded_broker_listens_on_loopback_only():
    with EmbeddedBroker() as broker:
        assert bound_addresses(broker.port) == LOOPBACK


def test_the_mosquitto_the_tests_start_listens_on_loopback_only(tmp_path):
    mosquitto_or_skip()
    with Mosquitto(folder=tmp_path) as broker:
        assert bound_addresses(broker.port) == LOOPBACK


def test_fleet_secures_listeners_are_on_loopback_unless_told(tmp_path):
    mosquitto_or_skip()
    plain, tls = free_port(), free_port()
    assert main(["fleet", "secure", str(tmp_path / "room"), "--boards", "b1", "--tls", "--host", "127.0.0.1",
                 "--mqtt-port", str(plain), "--tls-port", str(tls)]) == 0
    conf = (tmp_path / "room" / "mosquitto.conf").read_text().splitlines()
    with Mosquitto(port=tls, folder=tmp_path / "broker", extra=conf, listeners=False):
        assert bound_addresses(plain) == LOOPBACK and bound_addresses(tls) == LOOPBACK


def test_a_brokers_start_is_given_longer_on_a_busy_computer(monkeypatch):
    """The embedded broker missed a fixed 10 s at load 24 on two cores (a test's fixture): a
    start's deadline is a share of a core's work, as the load gives it."""
    from doce_host import core_time
    from doce_host.fleet import broker
    monkeypatch.setattr(core_time, "CORES", 2)
    monkeypatch.setattr(core_time.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    assert broker.start_s() == broker.START_S
    monkeypatch.setattr(core_time.os, "getloadavg", lambda: (24.0, 20.0, 10.0))
    assert broker.start_s() == 12 * broker.START_S
