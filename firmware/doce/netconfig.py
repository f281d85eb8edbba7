"""A board's network settings, as the wifi, mqtt and mqtt_ca commands store them (docs/protocol.md,
"MQTT"): net.json (the Wi-Fi, and the room's broker and topics) and ca.der (the room's CA), and what
makes them valid. doce/net.py starts the network on them; doce/pairing.py and doce/remote.py check
a friend's board id here, without loading the network.
"""

import json
import os

from .arguments import BadArgument, base64_chunk

CONFIG = "net.json"
CA_FILE = "ca.der"  # the room's CA certificate, DER (mqtt_ca)
MAX_CA = 2048  # bytes: an RSA-2048 CA is about 800, an RSA-4096 one about 1400
WIFI_KEYS = ("ssid", "password")
MQTT_KEYS = ("broker", "port", "prefix", "board_id", "name", "user", "mqtt_password", "tls")
SECRET = ("password", "mqtt_password")


def load_config(path=CONFIG):
    try:
        with open(path) as f:
            config = json.load(f)
    except (OSError, ValueError):
        return {}
    return config if isinstance(config, dict) else {}


LEVEL_BYTES = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


def is_topic_level(text):
    """1 to 64 letters, digits, _ or -: never a wildcard, a separator or an empty level
    (the host's rule too: doce_host/fleet/topics.py)."""
    if not isinstance(text, str) or not 0 < len(text) <= 64:
        return False
    for c in text:
        if c not in LEVEL_BYTES:
            return False
    return True


def is_prefix(text):
    """1 to 4 topic levels separated by /, 64 characters at most."""
    if not isinstance(text, str) or len(text) > 64:
        return False
    levels = text.split("/")
    if len(levels) > 4:
        return False
    for level in levels:
        if not is_topic_level(level):
            return False
    return True


def is_address(text):
    """An IPv4 address, a.b.c.d. A board does no DNS: on the ESP32 a lookup waits in
    socket.getaddrinfo (lwip_getaddrinfo; mDNS for .local names, up to 5 s), and no die would be
    read meanwhile. `doce config mqtt` looks a name up on the host and gives the board its address."""
    if not isinstance(text, str) or len(text) > 15:
        return False
    parts = text.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not 0 < len(part) <= 3 or any(c not in "0123456789" for c in part) or int(part) > 255:
            return False
    return True


NOT_AN_ADDRESS = "the broker is given by its IP address (like 192.168.1.10): a board does no DNS"


def config_fault(config):
    """What makes stored settings unusable (a file no firmware of ours wrote), in words, or None."""
    if "prefix" in config and not is_prefix(config["prefix"]):
        return "its prefix is no MQTT topic level"
    if "board_id" in config and not is_topic_level(config["board_id"]):
        return "its board_id is no MQTT topic level"
    if not is_address(config.get("broker")):
        return "its broker %r is not an IP address (a board does no DNS)" % str(config.get("broker"))[:64]
    return None


def store(request, config):
    """wifi, mqtt: the request's settings checked, put in config and stored in net.json."""
    cmd = request["cmd"]
    keys = WIFI_KEYS if cmd == "wifi" else MQTT_KEYS
    for key, value in request.items():
        if key in ("cmd", "id"):  # the request's own, not settings
            continue
        if key not in keys:
            raise BadArgument("%s takes %s" % (cmd, ", ".join(keys)))
        if key == "port":
            if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 65536:
                raise BadArgument("port is a number from 1 to 65535")
        elif key == "tls":
            if not isinstance(value, bool):
                raise BadArgument("tls is true or false")
            if value and not has_ca():
                raise BadArgument("tls needs the broker's CA first (mqtt_ca)")
        elif key == "prefix" and not is_prefix(value):
            raise BadArgument("prefix is 1 to 4 topic levels of letters, digits, _ and -, separated by /, "
                              "64 characters at most")
        elif key == "board_id" and not is_topic_level(value):
            raise BadArgument("board_id is 1 to 64 letters, digits, _ or -")
        elif key == "broker" and not is_address(value):
            raise BadArgument(NOT_AN_ADDRESS)
        elif not isinstance(value, str) or len(value) > 64:
            raise BadArgument("%s is text of at most 64 characters" % key)
        config[key] = value
    with open(CONFIG + ".new", "w") as f:
        json.dump(config, f)
    os.rename(CONFIG + ".new", CONFIG)


def shown(config):
    """The settings as a reply shows them: a password never, only whether it is set."""
    settings = {k: v for k, v in config.items() if k not in SECRET}
    for key in SECRET:
        settings[key + "_set"] = bool(config.get(key))
    settings["ca_set"] = has_ca()
    return settings


_ca = [None, 0]  # the CA on its way: its bytes, and how many have come


def has_ca():
    try:
        return os.stat(CA_FILE)[6] > 0
    except OSError:
        return False


def ca_chunk(request):
    """One chunk of the CA certificate (DER, base64, at most 96 bytes a line like the rules').
    offset 0 begins it; the last stores it, once mbedTLS reads it as a certificate. True then."""
    size, offset, data = request.get("size"), request.get("offset"), request.get("data")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= MAX_CA:
        raise BadArgument("size is the CA certificate's length in bytes (DER), 1 to %d" % MAX_CA)
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise BadArgument("offset is a number of bytes")
    if offset == 0:
        _ca[0], _ca[1] = bytearray(size), 0
    blob, received = _ca
    if blob is None or offset != received or len(blob) != size:
        raise BadArgument("offset must be %d, the bytes received so far" % (received if blob else 0))
    chunk = base64_chunk(data)
    if received + len(chunk) > size:
        raise BadArgument("more bytes than size")
    blob[received:received + len(chunk)] = chunk
    _ca[1] = received + len(chunk)
    if _ca[1] < size:
        return False
    _ca[0] = None
    import tls
    try:
        tls.SSLContext(tls.PROTOCOL_TLS_CLIENT).load_verify_locations(bytes(blob))
        blob = bytes(blob)
    except (ValueError, OSError):  # mbedTLS could not parse it
        blob = None
    if blob is None:
        raise BadArgument("that is not a certificate (DER) this board can read")
    with open(CA_FILE + ".new", "wb") as f:
        f.write(blob)
    os.rename(CA_FILE + ".new", CA_FILE)
    return True


def ca_received():
    """Bytes of the CA on its way that have come."""
    return _ca[1]
