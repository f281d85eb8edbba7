"""Why a broker refused a password: told apart on this computer, where doce can look.

Mosquitto answers "not authorised" to an MQTT 3.1.1 client both for a wrong password and for a
right one it could not check: its dynamic-security plugin could not read its users' file (started
by root without a `user` line, it runs as its own user, who cannot read a file only DIR's owner
reads), so it knows no user at all. Over the wire the two are one answer. A broker on this
computer (a loopback address) can be looked at: its process, the config it was started with,
the users' file that config names, whether the broker's user can read it, and whether the
password is the one that file holds (the plugin's own hash). Anywhere else, the line names both
causes and where the broker's log tells them apart.
"""

import base64
import hashlib
import json
import os
import pwd
import shlex
from pathlib import Path

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_CONF = 1 << 20


def why(host, port, user, password):
    """A sentence saying why the broker at host:port refused `user`, or the two causes it may be."""
    if host in LOOPBACK:
        for pid, conf in brokers_on(port):
            said = judged(pid, conf, user, password)
            if said:
                return said
    return ("a wrong password for %s, or a broker that could not read its users' file and so refuses every "
            "password (its log says 'Dynamic security plugin config: File is not readable')" % user)


def brokers_on(port):
    """(pid, its config file) of each Mosquitto on this computer whose config listens on `port`."""
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if not argv or not os.path.basename(argv[0].decode(errors="replace")).startswith("mosquitto"):
                continue
            args = [a.decode(errors="replace") for a in argv[1:] if a]
            conf = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-c", "--config-file")), None)
            if conf is None:
                continue
            conf = Path(os.readlink(entry / "cwd")) / conf
            if ("listener %d" % port) in " ".join(lines_of(conf)) or (port == 1883 and not listeners(conf)):
                found.append((int(entry.name), conf))
        except OSError:
            continue  # gone, or not ours to look at
    return found


def lines_of(conf):
    with open(conf, "rb") as f:
        return [line.strip() for line in f.read(MAX_CONF).decode(errors="replace").splitlines()]


def listeners(conf):
    return [line for line in lines_of(conf) if line.startswith("listener ")]


def judged(pid, conf, user, password):
    """What the broker `pid`, started with `conf`, makes of `user` and `password`; None if it cannot be told."""
    users = next((shlex.split(line)[1] for line in lines_of(conf) if line.startswith("plugin_opt_config_file ")),
                 None)
    if users is None:
        return None
    users = Path(users)
    uid = broker_uid(pid)
    try:
        st = users.stat()
    except OSError as e:
        return "the broker (mosquitto, pid %d) has no users' file %s (%s): it refuses every password" % (
            pid, users, e.strerror)
    said = password_is(users, user, password)
    if uid is not None and not readable(st, uid):
        yours = {"right": "the password is right (it is %s's in that file), but " % user,
                 "wrong": "the password is wrong too (not %s's in that file), and " % user}.get(said, "")
        return ("%sthe broker (mosquitto, pid %d, running as %s) cannot read its users' file %s (%s's, mode %o), "
                "so it refuses every password. Start it with the config doce fleet secure writes now (its 'user "
                "%s' line), or as %s" % (yours, pid, name_of(uid), users, name_of(st.st_uid), st.st_mode & 0o777,
                                         name_of(st.st_uid), name_of(st.st_uid)))
    if said == "wrong":
        return "a wrong password for %s: it is not the one in %s (doce fleet secure's credentials.json has it)" % (
            user, users)
    if said == "no user":
        return "no user %s in %s, the broker's users' file" % (user, users)
    return None  # right, or not for us to read: Mosquitto's log says the rest


def broker_uid(pid):
    try:
        for line in Path("/proc/%d/status" % pid).read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[2])  # the effective uid
    except (OSError, ValueError, IndexError):
        return None
    return None


def readable(st, uid):
    if uid == 0:
        return True
    if st.st_uid == uid:
        return bool(st.st_mode & 0o400)
    try:
        groups = os.getgrouplist(pwd.getpwuid(uid).pw_name, pwd.getpwuid(uid).pw_gid)
    except KeyError:
        groups = []
    return bool(st.st_mode & (0o040 if st.st_gid in groups else 0o004))


def name_of(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return "uid %d" % uid


def password_is(users, user, password):
    """"right" or "wrong" by the plugin's own hash (PBKDF2) of `user`'s password in its file, "no user",
    or None when the file cannot be read here."""
    try:
        clients = json.loads(users.read_text())["clients"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    for c in clients:
        if isinstance(c, dict) and c.get("username") == user:
            try:
                digest = hashlib.pbkdf2_hmac("sha512", (password or "").encode(), base64.b64decode(c["salt"]),
                                             int(c["iterations"]))
            except (KeyError, ValueError, TypeError):
                return None
            return "right" if base64.b64encode(digest).decode() == c["password"] else "wrong"
    return "no user"
