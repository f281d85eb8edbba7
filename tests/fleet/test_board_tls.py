"""The board over TLS (doce/tls_paced.py, MicroPython's tls module): the real firmware in the
unix port, the room's CA sent to it over USB as `doce config mqtt --ca` sends it, and a real Mosquitto on
the config `doce fleet secure --tls` wrote."""

import json
import socket
import threading

import pytest
from fleet_helpers import link, mosquitto_or_skip, room_command, until_scanned

from waiting import stretched, wait_until
from doce_host.cli import UsageError, main
from doce_host.fleet.broker import Mosquitto, free_port
from doce_host.fleet.commands import ca_requests
from doce_host.fleet.room import Room
from doce_host.fleet.security import BOARD_CA_MAX, board_ca
from doce_host.link import encode

WAIT_S = 20
SCANS = 400  # scans a board gets to connect where it must not: its join and a handshake take a few dozen


def secured_room(tmp_path, host):
    """A secured room listening on 127.0.0.1, its broker's certificate naming `host`."""
    mosquitto_or_skip()
    plain, tls = free_port(), free_port()
    room = tmp_path / "room"
    assert main(["fleet", "secure", str(room), "--boards", "b1,b2", "--tls", "--host", host,
                 "--mqtt-port", str(plain), "--tls-port", str(tls)]) == 0
    conf = (room / "mosquitto.conf").read_text().splitlines()
    credentials = json.loads((room / "credentials.json").read_text())
    with Mosquitto(port=tls, folder=tmp_path / "broker", extra=conf, listeners=False) as broker:
        yield broker, room, credentials, plain


@pytest.fixture
def tls_broker(tmp_path):
    """A secured room with TLS for 127.0.0.1 (a board connects to an address, not a name)."""
    yield from secured_room(tmp_path, "127.0.0.1")


@pytest.fixture
def misnamed_broker(tmp_path):
    """The same room, its broker's certificate naming another address than the one it is reached at."""
    yield from secured_room(tmp_path, "127.0.0.2")


def configure(sim, ca, broker="127.0.0.1", port=None, user="b1", password=None, board_id="b1"):
    """What `doce config wifi` and `doce config mqtt --broker mqtts://... --ca ca.crt` send."""
    assert link(sim, cmd="wifi", ssid="club", password="x")["ok"]
    for request in ca_requests(board_ca(ca)):
        reply = link(sim, **request)
        assert reply["ok"], reply
    assert reply["config"]["ca_set"]
    reply = link(sim, cmd="mqtt", broker=broker, port=port, board_id=board_id, tls=True)
    assert reply["ok"], reply
    if password:
        assert link(sim, cmd="mqtt", user=user, mqtt_password=password)["ok"]


def organiser(broker, room_dir, credentials):
    return Room("mqtts://127.0.0.1:%d" % broker.port, user="organiser", password=credentials["organiser"],
                ca=str(room_dir / "ca.crt"))


def test_a_board_joins_over_tls_and_its_events_and_replies_arrive(sim, tls_broker):
    broker, room_dir, credentials, _ = tls_broker
    with organiser(broker, room_dir, credentials) as room:
        configure(sim, room_dir / "ca.crt", port=broker.port, password=credentials["b1"])
        assert until_scanned(lambda: room.boards.get("b1") and room.boards["b1"].online, sim)
        sim.place("c3", "white 4")
        b = room.boards["b1"]
        assert until_scanned(lambda: any(e["event"] == "placed" for _, e in b.events), sim)
        placed = next(e for _, e in b.events if e["event"] == "placed")
        assert (placed["cell"], placed["value"], placed["player"]) == ("c3", 4, "white")
        hello = room_command(room, sim, "b1", "hello")
        assert hello and hello["ok"]
        shown = link(sim, cmd="net")
        assert shown["config"]["tls"] is True and shown["config"]["ca_set"] is True
        assert shown["status"]["broker"] is True and shown["status"]["fault"] is None


def never_online(sim, room, ident="b1"):
    for _ in range(SCANS // 2):
        sim.run(2)
        if room.boards.get(ident) and room.boards[ident].online:
            return False
    return True


def test_a_board_refuses_a_broker_its_ca_does_not_vouch_for_and_plays_on(sim, tls_broker, tmp_path):
    broker, room_dir, credentials, _ = tls_broker
    assert main(["fleet", "secure", str(tmp_path / "other"), "--boards", "b1", "--tls", "--host", "127.0.0.1"]) == 0
    with organiser(broker, room_dir, credentials) as room:
        configure(sim, tmp_path / "other" / "ca.crt", port=broker.port, password=credentials["b1"])
        assert never_online(sim, room)
        status = link(sim, cmd="net")["status"]
        assert not status["broker"] and "CA" in (status["fault"] or ""), status
        sim.take_events()
        sim.place("c3", "white 4")  # the network's trouble is not the game's
        assert any(e["event"] == "placed" for e in sim.take_events())


def test_a_board_refuses_a_certificate_that_does_not_name_its_broker(sim, misnamed_broker):
    broker, room_dir, credentials, plain = misnamed_broker
    with Room("mqtt://127.0.0.1:%d" % plain, user="organiser", password=credentials["organiser"]) as room:
        # 127.0.0.1 reaches the broker, whose certificate names 127.0.0.2 only
        configure(sim, room_dir / "ca.crt", port=broker.port, password=credentials["b1"])
        assert never_online(sim, room)
        status = link(sim, cmd="net")["status"]
        assert not status["broker"] and "CN" in (status["fault"] or ""), status


def test_a_board_set_for_tls_never_speaks_plain_mqtt(sim, tls_broker):
    broker, room_dir, credentials, plain = tls_broker
    with Room("mqtt://127.0.0.1:%d" % plain, user="organiser", password=credentials["organiser"]) as room:
        configure(sim, room_dir / "ca.crt", port=plain, password=credentials["b1"])  # TLS to the plain port
        assert never_online(sim, room)
        assert not link(sim, cmd="net")["status"]["broker"]


def test_a_broker_that_never_answers_the_handshake_holds_nothing_up(sim, tmp_path):
    """A peer that takes the TCP connection and the board's first TLS bytes, then says nothing: the
    board scans on, and a die put down is read and reported as ever."""
    assert main(["fleet", "secure", str(tmp_path / "room"), "--boards", "b1", "--tls", "--host", "127.0.0.1"]) == 0
    heard = bytearray()
    over = threading.Event()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.settimeout(stretched(WAIT_S))

        def silent():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(stretched(WAIT_S))
                try:
                    while len(heard) < 5:
                        data = conn.recv(64)
                        if not data:
                            return
                        heard.extend(data)
                    over.wait()  # held open, silent, until the test is over, however long it takes
                except OSError:
                    pass
        thread = threading.Thread(target=silent, daemon=True)
        thread.start()
        try:
            configure(sim, tmp_path / "room" / "ca.crt", port=server.getsockname()[1])
            assert until_scanned(lambda: len(heard) >= 5, sim)
            assert heard[0] == 0x16  # a TLS handshake record (RFC 5246, 6.2.1), not an MQTT CONNECT (0x10)
            sim.take_events()
            sim.place("c3", "white 4")
            assert any(e["event"] == "placed" for e in sim.take_events())
            status = link(sim, cmd="net")["status"]
            assert status["stage"] == "mqtt" and not status["broker"]  # still in its handshake
            sim.wait(10)  # ANSWER_MS: then the board gives up on it, says why, and tries again later
            status = link(sim, cmd="net")["status"]
        finally:
            over.set()
        assert status["stage"] != "mqtt" and "no answer from the broker" in (status["fault"] or ""), status


def handshake_with(sim, tmp_path, ciphers):
    """A TLS server (CPython's ssl) with the room's certificate, offering these OpenSSL cipher
    suites, that the board is set to reach. What it saw: the suite agreed and the suites the two
    shared, or the error the handshake ended with."""
    import ssl
    room = tmp_path / "room"
    assert main(["fleet", "secure", str(room), "--boards", "b1", "--tls", "--host", "127.0.0.1"]) == 0
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.maximum_version = ssl.TLSVersion.TLSv1_2  # Mosquitto's listener: tls_version tlsv1.2
    context.set_ciphers(ciphers)
    context.load_cert_chain(room / "server.crt", room / "server.key")
    seen = {}
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.settimeout(stretched(WAIT_S))

        def serve():
            try:
                conn, _ = server.accept()
                with context.wrap_socket(conn, server_side=True) as tls:
                    seen["cipher"], seen["shared"] = tls.cipher()[0], [c[0] for c in tls.shared_ciphers()]
            except (OSError, ssl.SSLError) as e:
                seen["error"] = str(e)
        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        configure(sim, room / "ca.crt", port=server.getsockname()[1])
        assert until_scanned(lambda: seen, sim)
    return seen


def test_the_board_offers_rsa_key_exchange_only(sim, tmp_path):
    """No elliptic-curve step on the board: with a broker that would take anything, the suites the
    two share all send the key with RSA (OpenSSL's names for kRSA begin with AES)."""
    seen = handshake_with(sim, tmp_path, "ALL")
    assert seen.get("cipher") == "AES128-GCM-SHA256", seen
    assert seen["shared"] and all(name.startswith("AES") for name in seen["shared"]), seen


def test_a_broker_that_wants_an_elliptic_curve_key_exchange_is_refused_and_play_goes_on(sim, tmp_path):
    seen = handshake_with(sim, tmp_path, "ECDHE+AESGCM")
    assert "cipher" not in seen and "no shared cipher" in seen.get("error", ""), seen
    # why is shown (it went unsaid): the broker's alert, or its closing if the alert was not read first
    def told():
        fault = link(sim, cmd="net")["status"]["fault"] or ""
        return "ALERT" in fault or "closed" in fault
    assert until_scanned(told, sim), link(sim, cmd="net")["status"]
    sim.take_events()
    sim.place("c3", "white 4")
    assert any(e["event"] == "placed" for e in sim.take_events())


def test_the_ca_is_checked_before_it_is_stored(sim, tmp_path):
    assert link(sim, cmd="mqtt", tls=True)["error"] == "bad_argument"  # no CA yet: no TLS
    junk = bytes(range(256)) * 2
    for request in ca_requests(junk)[:-1]:
        assert link(sim, **request)["ok"]
    refused = link(sim, **ca_requests(junk)[-1])
    assert refused["error"] == "bad_argument" and "certificate" in refused["message"]
    for bad in ({"size": BOARD_CA_MAX + 1, "offset": 0, "data": "AAAA"},
                {"size": 10, "offset": 3, "data": "AAAA"},  # not where the transfer is
                {"size": 10, "offset": 0, "data": "!!"},
                {"size": 2, "offset": 0, "data": "AAAA"},  # 3 bytes for 2
                {"size": True, "offset": 0, "data": "AAAA"}):
        assert link(sim, cmd="mqtt_ca", **bad)["error"] == "bad_argument", bad
    assert link(sim, cmd="net")["config"]["ca_set"] is False
    assert link(sim, cmd="mqtt", tls="yes")["error"] == "bad_argument"


def test_every_line_of_the_ca_fits_the_link():
    biggest = bytes(BOARD_CA_MAX)
    lines = [encode(dict(r, id=10 ** 6)) for r in ca_requests(biggest)]
    assert max(len(line) for line in lines) < 200  # doce/link.py MAX_LINE
    assert b"".join(__import__("binascii").a2b_base64(json.loads(line)["data"]) for line in lines) == biggest


def test_config_mqtt_checks_the_ca_file_before_it_opens_the_port(tmp_path, capsys):
    assert main(["fleet", "secure", str(tmp_path / "room"), "--boards", "b1", "--tls", "--host", "10.0.0.2"]) == 0
    capsys.readouterr()
    port = str(tmp_path / "no-such-port")
    for args, words in ((["--broker", "mqtts://10.0.0.2"], "needs --ca"),
                        (["--broker", "mqtt://10.0.0.2", "--ca", str(tmp_path / "room" / "ca.crt")], "mqtts://"),
                        (["--broker", "mqtts://10.0.0.2", "--ca", str(tmp_path / "room" / "server.crt")], "not a CA"),
                        (["--broker", "mqtts://10.0.0.2", "--ca", str(tmp_path / "room" / "dynamic-security.json")],
                         "not a certificate"),
                        (["--broker", "mqtts://10.0.0.2", "--ca", str(tmp_path / "missing")], "cannot read")):
        assert main(["config", "mqtt", "--port", port, *args]) == 2, args
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1 and "Traceback" not in err, err
    # a good CA gets as far as the port (here, none)
    assert main(["config", "mqtt", "--port", port, "--broker", "mqtts://10.0.0.2",
                 "--ca", str(tmp_path / "room" / "ca.crt")]) == 2
    assert "no such port" in capsys.readouterr().err



def test_doce_sim_boards_join_an_mqtts_broker_with_the_rooms_ca(tmp_path, capsys):
    """`doce sim --boards N --broker mqtts://... --ca ca.crt`: boards in real time, each sent the CA
    as `doce config` sends it (a TLS listener alone, open to anyone: the CA is what is tested)."""
    from doce_host.fleet.simroom import SimRoom, mac_of
    mosquitto_or_skip()
    room_dir = tmp_path / "room"
    assert main(["fleet", "secure", str(room_dir), "--boards", "b1", "--tls", "--host", "127.0.0.1"]) == 0
    port = free_port()
    listener = ["listener %d 127.0.0.1" % port] + ["%s %s" % (key, (room_dir / name).resolve()) for key, name in
                                                   (("cafile", "ca.crt"), ("certfile", "server.crt"),
                                                    ("keyfile", "server.key"))]
    url = "mqtts://127.0.0.1:%d" % port
    with Mosquitto(port=port, folder=tmp_path / "broker", extra=listener, listeners=False):
        with pytest.raises(UsageError, match="needs --ca"):
            SimRoom(1, url, folder=tmp_path / "none")
        assert not (tmp_path / "none").exists()  # refused before any board started
        with Room(url, ca=str(room_dir / "ca.crt")) as room, \
                SimRoom(1, url, folder=tmp_path / "sims", ca=str(room_dir / "ca.crt")) as sims:
            ident = mac_of(1)
            assert wait_until(lambda: room.boards.get(ident) and room.boards[ident].online, WAIT_S)
            sims.boards[0].place("c3", "white 4")
            assert wait_until(lambda: any(e["event"] == "placed" for _, e in room.boards[ident].events), WAIT_S)


class MbedtlsWrites:
    """A TLS socket's write() as MicroPython makes it of mbedtls_ssl_write: a record of at most
    RECORD bytes at a time; one that cannot all go stays half sent (the call would block) and the
    next call flushes it, which mbedTLS requires to pass the same data, of the same length."""

    RECORD = 64

    def __init__(self, rnd):
        self.rnd = rnd
        self.wire = bytearray()
        self.pending = None

    def _ssl_write(self, buf):
        n = min(len(buf), self.RECORD)
        if self.pending is None:
            self.pending = bytes(buf[:n])
        elif bytes(buf[:n]) != self.pending:
            raise AssertionError("called again with other data or another length than the half-sent record")
        if self.rnd.random() < 0.4:
            return None  # MBEDTLS_ERR_SSL_WANT_WRITE
        self.wire += self.pending
        self.pending = None
        return n

    def write(self, buf):
        done = 0  # py/stream.c mp_stream_rw: on until one would block; None if nothing went
        while done < len(buf):
            n = self._ssl_write(memoryview(bytes(buf))[done:])
            if n is None:
                return done or None
            done += n
        return done


def test_a_tls_write_that_would_block_is_offered_again_with_the_same_bytes(monkeypatch):
    """Session.send under mbedTLS's rule, with more to send arriving between scans."""
    import random
    import sys
    import types
    stub = types.ModuleType("umqtt")  # doce.mqtt imports umqtt.simple, a board's module
    stub.simple = types.ModuleType("umqtt.simple")
    monkeypatch.setitem(sys.modules, "umqtt", stub)
    monkeypatch.setitem(sys.modules, "umqtt.simple", stub.simple)
    monkeypatch.delitem(sys.modules, "doce.mqtt", raising=False)
    from doce.mqtt import Session

    rnd = random.Random(5)
    sock = MbedtlsWrites(rnd)
    net = types.SimpleNamespace(pipe=types.SimpleNamespace(out=bytearray()), sock=sock, wlen=0)
    net.drop = lambda now: pytest.fail("dropped")
    net._write = lambda now: Session._write(net, now)
    sent = bytearray()
    for scan in range(3000):
        if scan < 2500 and rnd.random() < 0.5:
            more = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 300)))
            net.pipe.out += more
            sent += more
        Session.send(net, scan)
    assert not net.pipe.out and bytes(sock.wire) == bytes(sent)
