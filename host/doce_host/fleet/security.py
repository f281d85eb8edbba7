"""Per-board credentials and a Mosquitto ACL for a room: `doce fleet secure DIR`.

Each board's MQTT user name is its board id, so one ACL pattern (%u, Mosquitto's user name)
lets a board publish only under its own <prefix>/<id>/ and read only its own cmd; only the
organiser may write commands. The password file is made by mosquitto_passwd (Debian
mosquitto), which hashes the passwords as Mosquitto reads them.
"""

import json
import re
import secrets
import shutil
import subprocess
from pathlib import Path

ORGANISER = "organiser"
BOARD_TOPICS = ("state", "events", "reply", "status")
ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # a topic level with no wildcard or separator


class SecurityError(ValueError):
    pass


def acl(prefix):
    lines = ["# doce fleet secure: the organiser reads and commands every board",
             "user %s" % ORGANISER, "topic readwrite %s/#" % prefix, "",
             "# each board (its user name is its id) writes only its own topics, reads only its own cmd"]
    lines += ["pattern write %s/%%u/%s" % (prefix, t) for t in BOARD_TOPICS]
    lines.append("pattern read %s/%%u/cmd" % prefix)
    return "\n".join(lines) + "\n"


def write_room(folder, board_ids, prefix="doce"):
    """passwords (mosquitto_passwd), acl, mosquitto.conf lines, and credentials.json (keep it
    private: `doce config mqtt --user ID` needs each board's password from it). Returns the
    credentials {user: password}."""
    for ident in board_ids:
        if not ID_PATTERN.match(ident) or ident == ORGANISER:
            raise SecurityError("%r cannot be a board id: letters, digits, - and _ only, at most 64" % ident)
    tool = shutil.which("mosquitto_passwd")
    if not tool:
        raise SecurityError("mosquitto_passwd is not installed (Debian package mosquitto)")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    credentials = {user: secrets.token_urlsafe(18) for user in [ORGANISER, *board_ids]}
    passwords = folder / "passwords"
    passwords.write_text("")
    passwords.chmod(0o600)
    for user, password in credentials.items():
        subprocess.run([tool, "-b", str(passwords), user, password], check=True, capture_output=True, timeout=30)
    (folder / "acl").write_text(acl(prefix))
    (folder / "mosquitto.conf").write_text(
        "# include in Mosquitto's config; the listener stays the organiser's choice\n"
        "allow_anonymous false\npassword_file %s\nacl_file %s\n" % (passwords.resolve(), (folder / "acl").resolve())
        + NODELAY)
    secret = folder / "credentials.json"
    secret.write_text(json.dumps(credentials, indent=1) + "\n")
    secret.chmod(0o600)
    return credentials


# Mosquitto sends to a client with Nagle's algorithm on unless told (mosquitto.conf(5),
# set_tcp_nodelay, default false): a message to the organiser then waits for the ACK of the one
# before, which the organiser's computer may hold back 40 ms (delayed ACK). With many boards,
# messages come that close together: p99 ~35 ms added at 8 publishers (measured here, loopback).
NODELAY = "# each message to a client at once (tournament page, fleet record)\nset_tcp_nodelay true\n"


def config_lines(folder):
    folder = Path(folder).resolve()
    return ["password_file %s" % (folder / "passwords"), "acl_file %s" % (folder / "acl"), "allow_anonymous false"]
