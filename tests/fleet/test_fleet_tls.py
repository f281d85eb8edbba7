"""A room over TLS: `doce fleet secure --tls` makes a CA and the broker's certificate, a real
Mosquitto runs on the config it wrote, and the organiser connects with that CA only."""

import datetime
import io
import json
import socket
import ssl
import stat
import threading

import paho.mqtt.client as mqtt
import pytest
from cryptography import x509
from fleet_helpers import mosquitto_or_skip

from waiting import stretched, until, wait_until
from doce_host.cli import main
from doce_host.fleet.broker import BrokerError, Mosquitto, free_port
from doce_host.fleet.room import Room

WAIT_S = 20


def secure(folder, *more):
    return main(["fleet", "secure", str(folder), "--boards", "b1,b2", "--tls", *more])


@pytest.fixture
def tls_room(tmp_path):
    mosquitto_or_skip()
    plain, tls = free_port(), free_port()
    room = tmp_path / "room"
    # only "localhost" in the certificate: 127.0.0.1 is then a host name it does not vouch for
    assert secure(room, "--host", "localhost", "--mqtt-port", str(plain), "--tls-port", str(tls)) == 0
    conf = (room / "mosquitto.conf").read_text().splitlines()
    assert "listener %d 127.0.0.1" % tls in conf and "listener %d 127.0.0.1" % plain in conf  # loopback only
    credentials = json.loads((room / "credentials.json").read_text())
    with Mosquitto(port=tls, folder=tmp_path / "broker", extra=conf, listeners=False) as broker:
        yield broker, room, credentials, plain


def tls_client(port, ca, user, password):
    """A plain paho client over TLS, standing in for a board (test_board_tls.py has the simulated one)."""
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user)  # a board connects as its id
    c.username_pw_set(user, password)
    c.tls_set_context(ssl.create_default_context(cafile=str(ca)))
    ready = threading.Event()
    c.on_connect = lambda cl, u, flags, reason, props=None: ready.set()
    c.connect("localhost", port)
    c.loop_start()
    until(ready.is_set, WAIT_S, what="the MQTT client's connection")
    return c


STATUS = {"online": True, "id": "b1", "name": "b1", "boot": "0000abcd", "seq": 0}  # whole, as a board's
PLACED = {"event": "placed", "seq": 1, "player": "white", "cell": "c3", "value": 4}


def test_the_organiser_sees_a_board_over_tls_with_the_rooms_ca(tls_room):
    broker, room_dir, credentials, _ = tls_room
    url = "mqtts://localhost:%d" % broker.port
    with Room(url, user="organiser", password=credentials["organiser"], ca=str(room_dir / "ca.crt")) as room:
        assert room.tls
        board = tls_client(broker.port, room_dir / "ca.crt", "b1", credentials["b1"])
        board.publish("doce/b1/status", json.dumps(STATUS), qos=1, retain=True)
        board.publish("doce/b1/events", json.dumps(PLACED), qos=1)
        try:
            assert wait_until(lambda: room.boards.get("b1") and room.boards["b1"].events, WAIT_S)
            assert room.boards["b1"].online
        finally:
            board.loop_stop()


def fleet_status(monkeypatch, capsys, url, ca, password="x"):
    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    code = main(["fleet", "status", "--broker", url, "--ca", str(ca), "--user", "organiser",
                 "--password-stdin", "--wait", "0", "--json"])
    err = capsys.readouterr().err
    return code, err


def test_another_ca_a_wrong_host_and_a_plain_port_are_one_line_errors(tls_room, tmp_path, monkeypatch, capsys):
    broker, room_dir, credentials, plain = tls_room
    assert secure(tmp_path / "other", "--host", "localhost") == 0  # another room: another CA
    capsys.readouterr()
    good = "mqtts://localhost:%d" % broker.port
    cases = [(good, tmp_path / "other" / "ca.crt", "does not vouch"),
             ("mqtts://127.0.0.1:%d" % broker.port, room_dir / "ca.crt", "does not vouch"),  # not its name
             ("mqtts://localhost:%d" % plain, room_dir / "ca.crt", "no TLS"),
             (good, room_dir / "dynamic-security.json", "as a CA"),  # a file that is no certificate
             (good, tmp_path / "missing.crt", "as a CA")]
    for url, ca, words in cases:
        code, err = fleet_status(monkeypatch, capsys, url, ca, credentials["organiser"])
        assert code == 2, (url, ca, err)
        assert words in err and err.count("\n") == 1 and "Traceback" not in err, err
    # the same command with the room's own CA gets through: the failures above are the CA's and the name's
    code, err = fleet_status(monkeypatch, capsys, good, room_dir / "ca.crt", credentials["organiser"])
    assert code == 0, err


def first_bytes_after_connect(port):
    """What a broker answers a plain MQTT CONNECT with (b"" if it closes without a word)."""
    connect = bytes([0x10, 12, 0, 4]) + b"MQTT" + bytes([4, 2, 0, 30, 0, 0])  # MQTT 3.1.1, clean, empty id
    with socket.create_connection(("127.0.0.1", port), timeout=stretched(5)) as s:
        s.sendall(connect)
        try:
            return s.recv(4)
        except (TimeoutError, ConnectionResetError):
            return b""


def test_a_plain_connect_to_the_tls_port_gets_no_connack(tls_room):
    broker, _, _, plain = tls_room
    assert first_bytes_after_connect(plain)[:1] == b"\x20"  # the plain port: a CONNACK (a refusal: no password)
    assert first_bytes_after_connect(broker.port)[:1] != b"\x20"


def test_a_second_run_keeps_the_ca_and_keys_are_private(tmp_path, capsys):
    mosquitto_or_skip()
    folder = tmp_path / "room"
    assert secure(folder, "--host", "192.168.1.10", "--host", "doce.local") == 0
    ca, ca_key, server = ((folder / n).read_bytes() for n in ("ca.crt", "ca.key", "server.crt"))
    for name in ("ca.key", "server.key", "credentials.json", "dynamic-security.json"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600, name
    capsys.readouterr()
    assert secure(folder, "--host", "192.168.1.11") == 0
    assert "kept the room's CA" in capsys.readouterr().out
    assert (folder / "ca.crt").read_bytes() == ca and (folder / "ca.key").read_bytes() == ca_key
    assert (folder / "server.crt").read_bytes() != server  # the broker's certificate follows --host
    (folder / "ca.crt").write_text("not a certificate\n")  # a damaged CA is reported, never replaced
    assert secure(folder, "--host", "192.168.1.11") == 2
    err = capsys.readouterr().err
    assert "cannot read the CA" in err and err.count("\n") == 1
    assert (folder / "ca.crt").read_text() == "not a certificate\n"
    (folder / "ca.crt").unlink()
    assert secure(folder, "--host", "192.168.1.11") == 2  # a key without its certificate: not replaced either
    assert (folder / "ca.key").read_bytes() == ca_key


def test_tls_needs_a_host_and_a_host_needs_tls(tmp_path, capsys):
    mosquitto_or_skip()
    assert secure(tmp_path / "a") == 2
    assert main(["fleet", "secure", str(tmp_path / "b"), "--boards", "b1", "--host", "x"]) == 2
    assert secure(tmp_path / "c", "--host", "no/such host") == 2
    assert not (tmp_path / "a" / "ca.key").exists()


def test_a_ca_is_for_mqtts_only():
    with pytest.raises(BrokerError):
        Room("mqtt://127.0.0.1:1883", ca="ca.crt")


def test_the_certificates_hold_on_a_board_without_a_clock(tmp_path):
    """A board's TLS reads the time as 2000-01-01 at every power-on (it has no clock):
    a certificate that starts later would be "not yet valid" to it."""
    mosquitto_or_skip()
    assert main(["fleet", "secure", str(tmp_path / "room"), "--boards", "b1", "--tls", "--host", "10.0.0.2"]) == 0
    power_on = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
    for name in ("ca.crt", "server.crt"):
        cert = x509.load_pem_x509_certificate((tmp_path / "room" / name).read_bytes())
        assert cert.not_valid_before_utc <= power_on < datetime.datetime.now(datetime.timezone.utc) < \
            cert.not_valid_after_utc, name


def other_ca(folder, key=None):
    """A room CA as another tool (or an older doce) would make it: on P-256 unless `key` is given."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    key = key or ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "some CA")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=9))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True).sign(key, hashes.SHA256()))
    folder.mkdir()
    (folder / "ca.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "ca.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption()))


def test_the_rooms_keys_are_rsa_and_a_ca_a_board_cannot_use_is_one_line(tmp_path, capsys):
    """A board offers RSA key exchange only (doce/tls_paced.py TLS_CIPHERS): the broker's certificate and
    the CA that signs it are RSA, and an elliptic-curve CA is refused, never used or replaced."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    mosquitto_or_skip()
    assert secure(tmp_path / "room", "--host", "10.0.0.2") == 0
    for name in ("ca.crt", "server.crt"):
        key = x509.load_pem_x509_certificate((tmp_path / "room" / name).read_bytes()).public_key()
        assert isinstance(key, rsa.RSAPublicKey) and key.key_size == 2048, name
    capsys.readouterr()
    other_ca(tmp_path / "old")
    before = (tmp_path / "old" / "ca.crt").read_bytes()
    assert secure(tmp_path / "old", "--host", "10.0.0.2") == 2
    err = capsys.readouterr().err
    assert "not RSA" in err and err.count("\n") == 1, err
    assert (tmp_path / "old" / "ca.crt").read_bytes() == before and not (tmp_path / "old" / "server.crt").exists()
    assert main(["config", "mqtt", "--port", str(tmp_path / "no-port"), "--broker", "mqtts://10.0.0.2",
                 "--ca", str(tmp_path / "old" / "ca.crt")]) == 2
    err = capsys.readouterr().err
    assert "not RSA" in err and err.count("\n") == 1, err


def test_a_ca_a_board_would_refuse_or_check_slowly_is_one_line(tmp_path, capsys):
    """mbedTLS's default profile wants RSA of 2048 bits or more; an exponent other than 65537 makes
    every check of the broker's certificate a long call; a key cryptography cannot even name."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    mosquitto_or_skip()
    other_ca(tmp_path / "short", rsa.generate_private_key(public_exponent=65537, key_size=1024))
    other_ca(tmp_path / "three", rsa.generate_private_key(public_exponent=3, key_size=2048))
    other_ca(tmp_path / "unknown")
    pem = (tmp_path / "unknown" / "ca.crt").read_bytes()
    der = x509.load_pem_x509_certificate(pem).public_bytes(serialization.Encoding.DER)
    ec_oid = bytes.fromhex("06072a8648ce3d0201")  # id-ecPublicKey (RFC 5480)
    assert ec_oid in der
    (tmp_path / "unknown" / "ca.der").write_bytes(der.replace(ec_oid, ec_oid[:-1] + b"\x09"))  # a key type no one knows
    (tmp_path / "big.pem").write_bytes((tmp_path / "short" / "ca.crt").read_bytes() + b"#" * (70 * 1024))
    for path, words in ((tmp_path / "short" / "ca.crt", "1024 bits"), (tmp_path / "three" / "ca.crt", "65537"),
                        (tmp_path / "unknown" / "ca.der", "not RSA"), (tmp_path / "big.pem", "over 64 KB")):
        assert main(["config", "mqtt", "--port", str(tmp_path / "no-port"), "--broker", "mqtts://10.0.0.2",
                     "--ca", str(path)]) == 2, path
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1 and "Traceback" not in err, err
    for folder, words in (("short", "1024 bits"), ("three", "65537")):
        assert secure(tmp_path / folder, "--host", "10.0.0.2") == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err
