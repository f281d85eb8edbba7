"""Per-board credentials and access rules for a room's Mosquitto: `doce fleet secure DIR`.

They go to Mosquitto's dynamic-security plugin (shipped with Mosquitto 2.0, Debian package
mosquitto), in its own file format: each board's user name is its board id, and its user may
connect only with that id as its client id (the plugin's `clientid`), publish only under its
own <prefix>/<id>/ and read only its own cmd; only the organiser may write commands. Without
the binding, one board's password with another's client id made Mosquitto drop the other
(MQTT 3.1.1, 3.1.4-2). The organiser's user is bound to no id, so its tools run several at
once, each with its own random one (doce_host/fleet/room.py), which no board's user can take.

With --tls it also makes the room's own CA (kept and reused: every client that trusts it keeps
working) and a certificate for the broker, and the config gets a TLS listener on 8883.
"""

import base64
import datetime
import hashlib
import ipaddress
import json
import os
import secrets
import sysconfig
from pathlib import Path

from .topics import BOARD_ID as ID_PATTERN  # one rule for a board's id
from .topics import MAX_MESSAGE

ORGANISER = "organiser"
BOARD_TOPICS = ("state", "events", "reply", "status")


class SecurityError(ValueError):
    pass


DYNSEC = "dynamic-security.json"
PLUGIN = "mosquitto_dynamic_security.so"
# PBKDF2-SHA512 with a 12-byte salt and 101 iterations: what Mosquitto 2.0's own tools write
# (mosquitto_ctrl dynsec init, mosquitto_passwd: PW_DEFAULT_ITERATIONS), checked at every connection
HASH = "sha512"
SALT_BYTES = 12
ITERATIONS = 101


def plugin_path():
    """Where Mosquitto's dynamic-security plugin is installed (Debian puts it in the multiarch
    library folder), or SecurityError."""
    arch = sysconfig.get_config_var("MULTIARCH") or ""
    for folder in ("/usr/lib/" + arch, "/usr/lib", "/usr/lib64", "/usr/local/lib", "/opt/homebrew/lib",
                   "/usr/lib/mosquitto"):
        path = Path(folder) / PLUGIN
        if path.is_file():
            return path
    raise SecurityError("Mosquitto's dynamic-security plugin (%s) is not installed: it comes with Mosquitto "
                        "2.0 or later (Debian package mosquitto)" % PLUGIN)


def hashed(password):
    """A password as the plugin stores it."""
    salt = secrets.token_bytes(SALT_BYTES)
    digest = hashlib.pbkdf2_hmac(HASH, password.encode(), salt, ITERATIONS)
    return {"password": base64.b64encode(digest).decode(), "salt": base64.b64encode(salt).decode(),
            "iterations": ITERATIONS}


def allow(kind, topic):
    return {"acltype": kind, "topic": topic, "allow": True}


def access(prefix, credentials, clubs=None, bridged=()):
    """The dynamic-security plugin's config: the organiser reads and commands every board; each
    board, bound to its id, writes only its own topics and reads only its own cmd, besides a match
    with a friend's board among the room's or another club's (remote_access). `clubs`: {club: its
    board ids}, the other clubs whose boards may play this room's; each club not in `bridged` (those
    this broker bridges to itself) has a user of its own here, bound to its name as client id, for
    its broker's bridge (bridge_access). Nothing else is allowed to anyone."""
    clubs = clubs or {}
    users = [u for u in credentials if u != ORGANISER and u not in clubs]
    boards = sorted(set(users) | {b for ids in clubs.values() for b in ids})
    clients = [dict(username=ORGANISER, textname="the organiser's doce fleet tools",
                    roles=[{"rolename": ORGANISER}], **hashed(credentials[ORGANISER]))]
    roles = [{"rolename": ORGANISER, "acls": [allow("publishClientSend", prefix + "/#"),
                                              allow("publishClientReceive", prefix + "/#"),
                                              allow("subscribePattern", prefix + "/#"),
                                              allow("unsubscribePattern", prefix + "/#")]}]
    for club in sorted(c for c in clubs if c not in bridged):
        clients.append(dict(username=club, clientid=club, textname="club %s's bridge" % club,
                            roles=[{"rolename": "club-" + club}], **hashed(credentials[club])))
        roles.append({"rolename": "club-" + club, "acls": bridge_access(prefix, clubs[club],
                                                                        [b for b in boards if b not in clubs[club]])})
    for ident in sorted(users):
        cmd = "%s/%s/cmd" % (prefix, ident)
        clients.append(dict(username=ident, clientid=ident, textname="board " + ident,
                            roles=[{"rolename": "board-" + ident}], **hashed(credentials[ident])))
        roles.append({"rolename": "board-" + ident,
                      "acls": [allow("publishClientSend", "%s/%s/%s" % (prefix, ident, t)) for t in BOARD_TOPICS]
                      + [allow("subscribeLiteral", cmd), allow("publishClientReceive", cmd),
                         allow("unsubscribeLiteral", cmd)]
                      + remote_access(prefix, ident, [b for b in boards if b != ident])})
    return {"defaultACLAccess": {"publishClientSend": False, "publishClientReceive": False, "subscribe": False,
                                 "unsubscribe": False},
            "clients": clients, "groups": [], "roles": roles}


def remote_access(prefix, ident, friends):
    """A match with a friend's board (doce remote, docs/remote.md): a board writes to another only
    under its own name, and only to a board of the room (`friends`: each one topic, so what one
    board's credentials can keep retained is bounded: a made-up board id has none); it may clear
    what a friend left for it (an empty retained message on its own inbox), reads only what others
    write to it, and sees which boards are online."""
    inbox, status = "%s/%s/remote/+" % (prefix, ident), "%s/+/status" % prefix
    return ([allow("publishClientSend", "%s/%s/remote/%s" % (prefix, friend, ident)) for friend in friends]
            + [allow("publishClientSend", "%s/%s/remote/%s" % (prefix, ident, friend)) for friend in friends]
            + [allow(kind, topic) for topic in (inbox, status)
               for kind in ("subscribePattern", "publishClientReceive", "unsubscribePattern")])


def bridge_access(prefix, theirs, others):
    """What another club's broker may do here through its bridge (Mosquitto's, doce fleet secure
    --bridge there): carry its boards' remote messages to the boards here and their answers back, in
    both directions on each pair's two topics (each board clears its own inbox), its boards' status
    here and the others' there. Only those topics: the club's credentials can fill nothing else."""
    acls = []
    for board in theirs:
        for other in others:
            for topic in ("%s/%s/remote/%s" % (prefix, other, board), "%s/%s/remote/%s" % (prefix, board, other)):
                acls += [allow(kind, topic) for kind in ("publishClientSend", "subscribeLiteral",
                                                        "publishClientReceive", "unsubscribeLiteral")]
        acls.append(allow("publishClientSend", "%s/%s/status" % (prefix, board)))
    for other in others:
        acls += [allow(kind, "%s/%s/status" % (prefix, other))
                 for kind in ("subscribeLiteral", "publishClientReceive", "unsubscribeLiteral")]
    return acls


def bridge_lines(prefix, ours, theirs, bridge):
    """mosquitto.conf's bridge to another club's broker, or to one the clubs share (Mosquitto's
    bridge, mosquitto.conf(5) "Bridges"): each pair of a board here and one there, both its topics
    both ways, at QoS 1, retained messages as they are (try_private: the far broker knows the bridge,
    sends nothing back it sent, and keeps the retain flag); this room's boards' status out, theirs in.
    A bridge restarted, or its far broker, connects again within restart_timeout and the retained
    messages of both sides come again: nothing of a match is lost (tests/fleet/test_remote_bridge.py)."""
    host, port, tls = bridge["host"], bridge["port"], bridge["tls"]
    lines = ["", "# the bridge to the broker at %s:%d, where this club is user %s (doce fleet secure --bridge): "
                 "remote matches between this room's boards and its clubs'" % (host, port, bridge["user"]),
             "connection doce-%s" % bridge["user"], "address %s:%d" % (host, port),
             "remote_clientid %s" % bridge["user"], "remote_username %s" % bridge["user"],
             "remote_password %s" % bridge["password"], "bridge_protocol_version mqttv311", "try_private true",
             "cleansession true", "notifications false", "restart_timeout %d %d" % BRIDGE_RESTART_S]
    if tls:
        lines += ["bridge_cafile %s" % bridge["ca"], "bridge_tls_version tlsv1.2"]
    for board in ours:
        for other in theirs:
            lines += ["topic %s/%s/remote/%s both 1" % (prefix, other, board),
                      "topic %s/%s/remote/%s both 1" % (prefix, board, other)]
        lines.append("topic %s/%s/status out 1" % (prefix, board))
    lines += ["topic %s/%s/status in 1" % (prefix, other) for other in theirs]
    return lines


# The far broker asked again 1 s after the bridge dropped, then backing off to 10 s (mosquitto.conf(5),
# restart_timeout base cap): a club's broker back from a restart has its friends' messages within seconds
BRIDGE_RESTART_S = (1, 10)
CLUBS = "clubs.json"
MAX_CLUBS = 1 << 20


def load_clubs(folder):
    """{"clubs": {club: [board ids]}, "bridge": {...} or None} from an earlier run in folder."""
    path = Path(folder) / CLUBS
    if not path.exists():
        return {"clubs": {}, "bridge": None}
    from ..files import FileError, read_limited
    try:
        found = json.loads(read_limited(path, MAX_CLUBS, "the room's clubs"))
    except (FileError, ValueError, RecursionError) as e:
        raise SecurityError("%s: %s; move it away to start afresh" % (path, e)) from None
    clubs = found.get("clubs") if isinstance(found, dict) else None
    bridge = found.get("bridge") if isinstance(found, dict) else None
    if not isinstance(clubs, dict) or not all(
            isinstance(c, str) and ID_PATTERN.match(c) and isinstance(ids, list) and ids
            and all(isinstance(i, str) and ID_PATTERN.match(i) for i in ids) for c, ids in clubs.items()):
        raise SecurityError("%s: clubs: not a file doce fleet secure writes (each club's name and its boards' "
                            "ids: letters, digits, - and _); move it away to start afresh" % path)
    if bridge is not None:
        try:
            checked_bridge(bridge)
        except SecurityError as e:
            raise SecurityError("%s: %s; move it away to start afresh" % (path, e)) from None
    return {"clubs": clubs, "bridge": bridge}


BRIDGE_KEYS = ("url", "host", "port", "tls", "user", "password", "ca")
MAX_PASSWORD = 1024


def checked_bridge(bridge):
    """A bridge's settings ({"url", "host", ...}, bridge_lines) as mosquitto.conf can take them, or
    SecurityError naming the field: each goes into the conf on a line of its own, so none may hold a
    line end, nor a space that would make a second address, and each is of its type."""
    from .broker import BrokerError, parse_url
    if not isinstance(bridge, dict):
        raise SecurityError("bridge: an object of %s" % ", ".join(BRIDGE_KEYS))
    for key in BRIDGE_KEYS:
        if key not in bridge:
            raise SecurityError("bridge.%s: missing" % key)
    for key in bridge:
        if key not in BRIDGE_KEYS:
            raise SecurityError("bridge.%s: no field of a bridge (%s)" % (str(key)[:20], ", ".join(BRIDGE_KEYS)))
    for key, kind in (("url", str), ("host", str), ("tls", bool), ("user", str), ("password", str)):
        if type(bridge[key]) is not kind:
            raise SecurityError("bridge.%s: %s" % (key, "true or false" if kind is bool else "text"))
    if type(bridge["port"]) is not int or not 0 < bridge["port"] <= 65535:
        raise SecurityError("bridge.port: a number from 1 to 65535")
    if not ID_PATTERN.match(bridge["user"]):
        raise SecurityError("bridge.user: letters, digits, - and _ only")
    if not 0 < len(bridge["password"]) <= MAX_PASSWORD or not all("!" <= c <= "~" for c in bridge["password"]):
        raise SecurityError("bridge.password: printable ASCII without spaces (mosquitto.conf takes no other), "
                            "1 to %d characters" % MAX_PASSWORD)
    try:
        where = parse_url(bridge["url"], tls_ok=True)
    except BrokerError as e:
        raise SecurityError("bridge.url: %s" % e) from None
    if where != (bridge["host"], bridge["port"], bridge["tls"]):
        raise SecurityError("bridge.host, bridge.port and bridge.tls: not those of bridge.url")
    ca = bridge["ca"]
    if bridge["tls"] != (ca is not None) or ca is not None and (
            type(ca) is not str or not os.path.isabs(ca) or not all(" " <= c != "\x7f" for c in ca)):
        raise SecurityError("bridge.ca: with mqtts:// only, the absolute path of the other broker's CA, "
                            "no control character in it")
    return bridge


PLAIN_PORT = 1883
TLS_PORT = 8883
CA_DAYS = 3650
SERVER_DAYS = 825  # from today; run fleet secure --tls again to renew it: the CA stays, boards need nothing new
# Valid from before 2000: a board has no clock, and MicroPython's ESP32 port gives mbedTLS a time
# that starts at 2000-01-01 at every power-on (ports/esp32/main.c, platform_mbedtls_time), so a
# certificate valid only from today would be "not yet valid" to it.
NOT_BEFORE = datetime.datetime(1999, 12, 31, tzinfo=datetime.timezone.utc)
BOARD_CA_MAX = 2048  # bytes of DER a board stores (doce/netconfig.py MAX_CA)
MAX_CA_FILE = 64 * 1024  # a CA certificate or key is a few KB at most: read no further


def write_private(path, data):
    """A file only its owner reads, from the moment it exists (chmod after writing leaves a window),
    whole or not at all: written beside it, then renamed over it (a room's passwords survive a
    power cut or a full disk during a run)."""
    path = Path(path)
    new = path.with_name(path.name + ".new")
    if os.path.lexists(new):  # left by a run cut short, or a link put there: never written through
        os.unlink(new)
    fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), 0o600)  # an older file keeps its mode through O_CREAT
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(new, path)


def host_name(text):
    """A --host as a SubjectAlternativeName: an IP address, or a DNS name."""
    from cryptography import x509
    try:
        return x509.IPAddress(ipaddress.ip_address(text))
    except ValueError:
        pass
    from ..commandline import HOST_NAME
    if not HOST_NAME.match(text):
        raise SecurityError("%r is neither an IP address nor a host name" % text)
    return x509.DNSName(text)


def load_ca(folder):
    """The CA already in folder (cert, key), or None. Both files are read as untrusted."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    cert_path, key_path = folder / "ca.crt", folder / "ca.key"
    if not cert_path.exists() and not key_path.exists():
        return None
    if not (cert_path.exists() and key_path.exists()):
        raise SecurityError("%s: ca.crt and ca.key go together, and one is missing: not making another CA over it"
                            % folder)
    from ..files import FileError, read_limited
    try:
        cert = x509.load_pem_x509_certificate(read_limited(cert_path, MAX_CA_FILE, "a CA certificate"))
        key = serialization.load_pem_private_key(read_limited(key_path, MAX_CA_FILE, "a CA key"), password=None)
    except FileError as e:
        raise SecurityError("%s: cannot read the CA (%s)" % (folder, e)) from None
    except (ValueError, TypeError, OSError) as e:
        raise SecurityError("%s: cannot read the CA (%s)" % (folder, str(e).splitlines()[0] if str(e) else
                                                               type(e).__name__)) from None
    why = not_rsa(cert)
    if why:
        raise SecurityError("%s: the CA in ca.crt cannot be a board's: %s. Move ca.crt and ca.key away to make "
                            "a new one (every client then needs the new ca.crt)" % (folder, why))
    pub = serialization.PublicFormat.SubjectPublicKeyInfo
    enc = serialization.Encoding.DER
    if cert.public_key().public_bytes(enc, pub) != key.public_key().public_bytes(enc, pub):
        raise SecurityError("%s: ca.key is not the key of ca.crt" % folder)
    return cert, key


def write_tls(folder, hosts):
    """ca.crt/ca.key (made once, then reused) and server.crt/server.key for these host names or
    addresses. Returns True if the CA was reused."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    if not hosts:
        raise SecurityError("--tls needs --host: the name or address the clients reach the broker by")
    names = [host_name(h) for h in hosts]
    folder = Path(folder)
    now = datetime.datetime.now(datetime.timezone.utc)
    pem = serialization.Encoding.PEM
    plain_key = dict(encoding=pem, format=serialization.PrivateFormat.PKCS8,
                     encryption_algorithm=serialization.NoEncryption())  # Mosquitto reads it unattended
    existing = load_ca(folder)
    if existing:
        ca_cert, ca_key = existing
    else:
        ca_key = room_key()
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "doce fleet room CA")])
        ca_cert = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
                   .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(NOT_BEFORE).not_valid_after(now + datetime.timedelta(days=CA_DAYS))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                                key_encipherment=False, data_encipherment=False, key_agreement=False,
                                                key_cert_sign=True, crl_sign=True, encipher_only=False,
                                                decipher_only=False), critical=True)
                   .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
                   .sign(ca_key, hashes.SHA256()))
        write_private(folder / "ca.key", ca_key.private_bytes(**plain_key))
        (folder / "ca.crt").write_bytes(ca_cert.public_bytes(pem))
    key = room_key()
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0][:64])]))
            .issuer_name(ca_cert.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(NOT_BEFORE).not_valid_after(now + datetime.timedelta(days=SERVER_DAYS))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    write_private(folder / "server.key", key.private_bytes(**plain_key))
    (folder / "server.crt").write_bytes(cert.public_bytes(pem))
    return existing is not None


def room_key():
    """RSA-2048 for the CA and the broker: a board offers only RSA key exchange (doce/tls_paced.py
    TLS_CIPHERS), so it checks the broker's certificate and sends its key with two RSA public
    operations, which the ESP32 accelerates, instead of elliptic-curve steps of about a second."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def not_rsa(cert):
    """Why a board could not use this CA, or could only slowly, or None. Its key must be RSA
    (room_key) of 2048 to 4096 bits, mbedTLS's default profile (x509_crt.c,
    mbedtls_x509_crt_profile_default: RSA of at least 2048 bits), with the public exponent 65537:
    a board checks the broker's certificate with it at every connection, and a large exponent
    (any odd number is valid) would make that one call as long as a private-key operation."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric import rsa
    try:
        key = cert.public_key()
    except (UnsupportedAlgorithm, ValueError):
        key = None
    if not isinstance(key, rsa.RSAPublicKey):
        return "its key is not RSA, and a board checks the broker with RSA only"
    if not 2048 <= key.key_size <= 4096:
        return "its RSA key has %d bits; a board takes 2048 to 4096" % key.key_size
    if key.public_numbers().e != 65537:
        return "its RSA key's public exponent is not 65537, and a board would check with it slowly"
    return None


def board_ca(path):
    """The CA certificate in a file (PEM or DER, someone's file: checked) as the DER a board
    stores: one certificate, a CA's, small enough."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from ..files import FileError, read_limited
    try:
        data = read_limited(path, MAX_CA_FILE, "a CA certificate")
    except FileError as e:
        raise SecurityError(str(e)) from None
    try:
        found = x509.load_pem_x509_certificates(data) if b"-----BEGIN" in data else [
            x509.load_der_x509_certificate(data)]
    except ValueError:
        raise SecurityError("%s: not a certificate (PEM or DER)" % path) from None
    if len(found) != 1:
        raise SecurityError("%s holds %d certificates: give the room's CA alone" % (path, len(found)))
    cert = found[0]
    try:
        is_ca = cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except (x509.ExtensionNotFound, ValueError):
        is_ca = False
    if not is_ca:
        raise SecurityError("%s: not a CA certificate (the room's is ca.crt from doce fleet secure --tls)" % path)
    why = not_rsa(cert)
    if why:
        raise SecurityError("%s: %s (make the room's CA with doce fleet secure --tls)" % (path, why))
    der = cert.public_bytes(serialization.Encoding.DER)
    if len(der) > BOARD_CA_MAX:
        raise SecurityError("%s: %d bytes as DER, more than a board keeps (%d)" % (path, len(der), BOARD_CA_MAX))
    return der


def broker_conf(folder, tls=False, listen="127.0.0.1", port=PLAIN_PORT, tls_port=TLS_PORT, plugin=None, bridge=()):
    """mosquitto.conf: the users and their access (dynamic-security plugin) for every listener,
    a plain one and with tls a TLS one, on loopback unless told otherwise; `bridge`: its lines."""
    folder = Path(folder).resolve()
    lines = ["# doce fleet secure. Listeners on %s%s" % (listen, ": this computer only" if listen == "127.0.0.1"
                                                         else ""),
             # started by root, Mosquitto runs as this user: DIR's owner, the one who can read its
             # private files (else it runs as its own user, and refuses every password; fleet/refusal.py)
             "user %s" % owner(folder),
             "per_listener_settings false", *config_lines(folder, plugin), *persistence_lines(folder), NODELAY,
             SIZE_LIMIT, LIMITS,
             "# plain MQTT (boards set up with mqtt://)", "listener %d %s" % (port, listen)]
    if tls:
        lines += ["", "# MQTT over TLS with the room's CA (ca.crt: give it to every client)",
                  "listener %d %s" % (tls_port, listen), "cafile %s" % (folder / "ca.crt"),
                  "certfile %s" % (folder / "server.crt"), "keyfile %s" % (folder / "server.key"),
                  "tls_version tlsv1.2"]
    return "\n".join(lines + list(bridge)) + "\n"


def owner(folder):
    """The name of the user who owns `folder` (its uid, if it has no name here)."""
    import pwd
    uid = Path(folder).stat().st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


CREDENTIALS = "credentials.json"
MAX_CREDENTIALS = 1 << 20  # a room of a thousand boards is about 60 KB


def load_credentials(folder):
    """{user: password} from an earlier run in folder, or {} if there was none. A file that is not
    one this wrote is a SecurityError: new passwords are never written over a room's."""
    path = Path(folder) / CREDENTIALS
    if not path.exists():
        return {}
    from ..files import FileError, read_limited
    why = None
    try:
        found = json.loads(read_limited(path, MAX_CREDENTIALS, "the room's credentials"))
    except FileError as e:
        raise SecurityError(str(e)) from None
    except (ValueError, RecursionError):
        why = "not JSON"
    else:
        if not isinstance(found, dict) or ORGANISER not in found:
            why = "no organiser's password in it"
        elif not all((user == ORGANISER or ID_PATTERN.match(user)) and isinstance(password, str)
                     and 0 < len(password) <= 256 and password.isprintable() for user, password in found.items()):
            why = "a user or password no run of doce fleet secure writes"
    if why:
        raise SecurityError("%s: %s; not writing new passwords over the room's (move it away to start afresh)"
                            % (path, why))
    return found


def write_room(folder, board_ids, prefix="doce", tls_hosts=None, listen="127.0.0.1", port=PLAIN_PORT,
               tls_port=TLS_PORT, remove=(), clubs=None, bridge=None):
    """dynamic-security.json (the users and what each may do), mosquitto.conf, and
    credentials.json (keep it private: `doce config mqtt --user ID` needs each board's password
    from it); with tls_hosts the CA and the broker's certificate too. A room written before keeps
    its users and their passwords: board_ids are added, `remove` taken out. `clubs` {club: board
    ids}: other clubs whose boards may play this room's (added to those kept in clubs.json); each
    gets a user here for its broker's bridge, unless this broker bridges out (`bridge`: {"url", "host",
    "port", "tls", "user", "password", "ca"}, to the other club's broker or one the clubs share, as
    `user`): then it reaches every club through it. Returns (credentials {user: password}, whether an
    existing CA was reused (None without TLS), and what changed: {"kept": users, "added": boards,
    "removed": boards})."""
    for ident in list(board_ids) + list(remove):
        if not ID_PATTERN.match(ident) or ident == ORGANISER:
            raise SecurityError("%r cannot be a board id: letters, digits, - and _ only, at most 64" % ident)
    plugin = plugin_path()
    folder = Path(folder)
    before = load_credentials(folder)
    kept = load_clubs(folder)
    clubs = dict(kept["clubs"], **(clubs or {}))
    bridge = bridge or kept["bridge"]
    mine = set(board_ids) | {u for u in before if u != ORGANISER and u not in kept["clubs"]}
    for club, ids in clubs.items():
        if not ID_PATTERN.match(club) or club == ORGANISER or club in mine:
            raise SecurityError("%r cannot be a club's name: letters, digits, - and _ only, and no board's" % club)
        shared = mine.intersection(ids) or {b for other, theirs in clubs.items() if other != club
                                            for b in theirs}.intersection(ids)
        if shared:
            raise SecurityError("%s: a board of two rooms; each board id is one board's" % ", ".join(sorted(shared)))
    if bridge:
        checked_bridge(bridge)
    if bridge and bridge["user"] in clubs:
        raise SecurityError("--bridge-user %s is this club's name on the other broker, and --club %s another club's: "
                            "on a broker the clubs share, the two would be one user, each bridge putting the other "
                            "off" % (bridge["user"], bridge["user"]))
    if bridge and bridge["user"] in mine:
        raise SecurityError("--bridge-user %s is a board of this room: it is this club's name on the other broker"
                            % bridge["user"])
    both = [i for i in remove if i in board_ids]
    if both:
        raise SecurityError("%s: both added and removed: name a board in --boards or --remove" % ", ".join(both))
    unknown = [i for i in remove if i not in before]
    if unknown:
        raise SecurityError("%s: no board %s in this room to remove" % (folder, ", ".join(unknown)))
    if not before and not board_ids and not clubs:
        raise SecurityError("a new room needs its boards, or the clubs it joins: --boards ID,ID, --club NAME=ID,ID")
    folder.mkdir(parents=True, exist_ok=True)
    reused = write_tls(folder, tls_hosts) if tls_hosts is not None else None
    credentials = {user: password for user, password in before.items() if user not in remove}
    # Clubs whose brokers bridge to this one get a user each; a broker that bridges out reaches every
    # club through its bridge, and takes no other club's bridge
    bridged = tuple(clubs) if bridge else ()
    accepted = [c for c in clubs if c not in bridged]
    for user in [ORGANISER, *board_ids, *accepted]:
        credentials.setdefault(user, secrets.token_urlsafe(18))
    users = lambda names: sorted(names, key=lambda u: (u != ORGANISER, u))  # noqa: E731  the organiser first
    changes = {"kept": users(u for u in credentials if u in before), "added": users(u for u in credentials
                                                                                    if u not in before),
               "removed": users(remove)}
    write_private(folder / DYNSEC, (json.dumps(access(prefix, credentials, clubs, bridged), indent=1)
                                    + "\n").encode())
    lines = ()
    if bridge:  # this room's boards with every club's, through the bridge
        lines = bridge_lines(prefix, sorted(u for u in credentials if u != ORGANISER and u not in clubs),
                             sorted({b for c in clubs.values() for b in c}), bridge)
    conf = broker_conf(folder, tls_hosts is not None, listen, port, tls_port, plugin, lines).encode()
    if bridge:  # the bridge's password is in it
        write_private(folder / "mosquitto.conf", conf)
    else:
        (folder / "mosquitto.conf").write_bytes(conf)
    if clubs or bridge:
        write_private(folder / CLUBS, (json.dumps({"clubs": clubs, "bridge": bridge}, indent=1) + "\n").encode())
    write_private(folder / CREDENTIALS, (json.dumps(credentials, indent=1) + "\n").encode())
    return credentials, reused, changes


# Mosquitto sends to a client with Nagle's algorithm on unless told (mosquitto.conf(5),
# set_tcp_nodelay, default false): a message to the organiser then waits for the ACK of the one
# before, which the organiser's computer may hold back 40 ms (delayed ACK). With many boards,
# messages come that close together: p99 ~35 ms added at 8 publishers (measured here, loopback).
NODELAY = "# each message to a client at once (tournament page, fleet record)\nset_tcp_nodelay true\n"


# A message longer than any a board or the organiser sends is dropped at the broker
# (mosquitto.conf(5), message_size_limit: a QoS 1 one is acknowledged, and goes no further):
# a board passes over a command too big to be one, but it costs it scans (doce/mqtt.py SKIP_SCAN)
SIZE_LIMIT = "# no message longer than a room's (a board's state is about 2 KB)\nmessage_size_limit %d\n" % MAX_MESSAGE


# What one client, with credentials or none, can make Mosquitto hold (mosquitto.conf(5), 2.0.11):
# - a packet no longer than the longest this project sends (a message of MAX_MESSAGE under the longest
#   topic: prefix/id/remote/id, 64 + 64 + 64 + 8 characters, MQTT's 2-byte lengths, a 5-byte fixed header)
#   rounded up: longer, the client is cut at the packet's header. Without it a CONNECT announcing 256 MB
#   was read in, unauthenticated (20 such took Mosquitto from 25 to 230 MB);
# - a client's queue of QoS 1 messages beyond those in flight: the default 1000 messages, and 1000 of a
#   board's state (about 2 KB, the most the organiser's tools are sent) in bytes; past it they are dropped.
#   Without it a board's credentials queued 16 MB for themselves (1000 x 16 KB);
# - a kept session (clean session false; no board nor doce tool asks for one: umqtt.simple and
#   fleet/room.py connect clean) ends an hour after its client left, the shortest mosquitto.conf takes.
MAX_PACKET = MAX_MESSAGE + 1024
MAX_QUEUED_MESSAGES = 1000
MAX_QUEUED_BYTES = MAX_QUEUED_MESSAGES * 2048
SESSION_EXPIRY = "1h"
LIMITS = ("# what one client can make the broker hold: a packet, a queue, a session kept after it left\n"
          "max_packet_size %d\nmax_queued_messages %d\nmax_queued_bytes %d\npersistent_client_expiration %s\n"
          % (MAX_PACKET, MAX_QUEUED_MESSAGES, MAX_QUEUED_BYTES, SESSION_EXPIRY))


# Retained messages kept on disk (mosquitto.conf(5): persistence, persistence_location, autosave_interval):
# a board's news for a friend that is off (an end, a refusal: doce/remote_news.py) is forgotten by its
# sender once the broker has it, so a broker restart must not lose it. Saved as Mosquitto stops and
# every AUTOSAVE_S besides: a crash of the broker's computer loses at most that much.
AUTOSAVE_S = 60


def persistence_lines(folder):
    return ["# retained messages (a friend's news for a board that is off) kept through a restart",
            "persistence true", "persistence_location %s/" % Path(folder).resolve(),
            "autosave_interval %d" % AUTOSAVE_S]


def config_lines(folder, plugin=None):
    """Who may connect, as whom, and do what: the dynamic-security plugin with DIR's file."""
    folder = Path(folder).resolve()
    return ["# users, their client ids and their access: %s (doce fleet secure writes it)" % DYNSEC,
            "plugin %s" % (plugin or plugin_path()), "plugin_opt_config_file %s" % (folder / DYNSEC),
            "allow_anonymous false"]
