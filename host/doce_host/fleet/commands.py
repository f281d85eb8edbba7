"""`doce config wifi|mqtt|show` (a board's network settings, over USB) and `doce fleet`
(a room of boards over MQTT). cli.py hands these their parsers."""

import binascii
import getpass
import json
import os
import sys
import time

from ..commandline import (DefaultPort, UsageError, board_args, duration, listen_address, load_tables, open_link,
                           port_number, port_or_any, seconds)
from ..micropython import MARCH
from .broker import LOOPBACK, BrokerError, EmbeddedBroker, listening, parse_url
from .topics import board_id_text, board_ids, topic_prefix

EMBEDDED_PORT = 1883  # MQTT's own port (OASIS MQTT 3.1.1, 4.8), on loopback
MAX_SECRET = 1024  # a password's characters on stdin: more is not a password (a device that never ends)


def read_secret(args, what):
    """A password: a line of stdin with --password-stdin, else asked for at a terminal, else none.
    Never an argument: those show in the process list."""
    if args.password_stdin:
        from ..files import FileError, read_line
        try:
            return read_line(sys.stdin, MAX_SECRET, "the %s on stdin" % what)
        except FileError as e:
            raise UsageError(str(e)) from None
    if sys.stdin.isatty():
        return getpass.getpass("%s (empty for none): " % what)
    return ""


def ask_board(args, requests):
    """Send each request to the board on --port; the last reply."""
    from ..link import LinkError
    link, _ = open_link(args)
    with link:
        try:
            for request in requests:
                reply = link.request(**request)
                if not reply.get("ok"):
                    raise UsageError("%s: %s: %s" % (args.port, request["cmd"], reply.get("message")))
        except LinkError as e:
            raise UsageError(str(e)) from None
    return reply


SUPPLY_WORDS = {"none": "none on the USB-C input (Wi-Fi off)", "usb": "USB-C charger, Default USB (Wi-Fi off)",
                "1.5A": "USB-C charger, 1.5 A", "3A": "USB-C charger, 3 A"}


def show(args, reply):
    if args.json:
        print(json.dumps({"config": reply["config"], "status": reply.get("status"), "waits": reply.get("waits"),
                          "supply": reply.get("supply"), "refused": reply.get("refused")}))
        return
    for key, value in sorted(reply["config"].items()):
        print("%-18s %s" % (key, value))
    status = reply.get("status")
    if status:
        print("%-18s %s" % ("connection", ", ".join("%s %s" % kv for kv in sorted(status.items()))))
    from ..view import printable
    if reply.get("supply") in SUPPLY_WORDS:  # revision B: what its USB-C power input offers (doce/supply.py)
        print("%-18s %s" % ("supply", SUPPLY_WORDS[reply["supply"]]))
    if reply.get("refused"):  # set up, but the supply cannot carry Wi-Fi: the fix
        print("%-18s %s" % ("not started", printable(reply["refused"])))
    if reply.get("waits"):  # stored, but not started (doce/offline.py): the board tries again
        print("%-18s %s" % ("not started", printable(reply["waits"])))


def cmd_config_wifi(args):
    password = read_secret(args, "Wi-Fi password")
    show(args, ask_board(args, [{"cmd": "wifi", "ssid": args.ssid, "password": password}]))


def ca_requests(der):
    """The mqtt_ca requests that carry a CA certificate (DER) to a board: 96 bytes a line, as the
    rules go, so that each line stays within the link's 200 bytes."""
    from ..link import CHUNK
    return [{"cmd": "mqtt_ca", "size": len(der), "offset": at,
             "data": binascii.b2a_base64(der[at:at + CHUNK]).decode().strip()} for at in range(0, len(der), CHUNK)]


def board_settings(url, ca=None):
    """The requests that point a board at a broker: with mqtts://, the CA first, then tls on.
    Returns (requests, the mqtt request, to which more settings may be added)."""
    from .security import SecurityError, board_ca
    try:
        host, port, secure = parse_url(url, tls_ok=True)
    except BrokerError as e:
        raise UsageError(str(e)) from None
    if secure and not ca:
        raise UsageError("a board on mqtts:// needs --ca FILE: the room's ca.crt, which it checks the broker against")
    if ca and not secure:
        raise UsageError("--ca is for an mqtts:// broker, not %s" % url)
    requests = []
    if secure:
        try:
            requests = ca_requests(board_ca(ca))
        except SecurityError as e:
            raise UsageError(str(e)) from None
    settings = {"cmd": "mqtt", "broker": board_address(host, port), "port": port, "tls": secure}
    return requests + [settings], settings


def board_address(host, port):
    """The broker's IPv4 address for a board, which does no DNS (doce/netconfig.py is_address): a name
    is looked up here, once, and said; an IPv6 address is refused (the board's link is IPv4)."""
    import ipaddress
    import socket
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None:
        if address.version != 4:
            raise UsageError("a board reaches its broker by an IPv4 address, not %s" % host)
        return str(address)
    try:
        found = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]
    except (OSError, IndexError) as e:
        raise UsageError("cannot look up the broker %s (%s): give its IPv4 address" % (host, e)) from None
    print("the broker %s is %s: the board is given the address (a board does no DNS)" % (host, found),
          file=sys.stderr)
    return found


def cmd_config_mqtt(args):
    requests, first = board_settings(args.broker, args.ca)
    for key in ("prefix", "board_id", "name"):
        if getattr(args, key) is not None:
            first[key] = getattr(args, key)
    # the board reads lines of at most 200 bytes: credentials go in a line of their own
    if args.user is not None:
        requests.append({"cmd": "mqtt", "user": args.user, "mqtt_password": read_secret(args, "MQTT password")})
    show(args, ask_board(args, requests))


def board_key(room, board):
    from ..update import load_keys
    from .security import SecurityError
    try:
        key = load_keys(room).get(board)
    except (SecurityError, OSError) as e:
        raise UsageError(str(e)) from None
    if key is None:
        raise UsageError("%s has no update key for %s: run doce fleet secure %s --boards %s" % (room, board, room,
                                                                                              board))
    return key


def signed(record, room, versions):
    """The versions about to be signed, in the room's record (doce_host/update.py record_signed)."""
    from .security import SecurityError
    try:
        record(room, versions)
    except (SecurityError, OSError) as e:
        raise UsageError(str(e)) from None


def version_of(args, boards):
    """--version, or the time now, above every version the room's record has for `boards`: a clock behind that
    record (a laptop set wrong) would else have each board refuse the package as a replay. Said on stderr."""
    from ..update import SIGNED, load_signed, version_for
    from .security import SecurityError
    try:
        record = load_signed(args.room)
    except (SecurityError, OSError) as e:
        raise UsageError(str(e)) from None
    recorded = max([record.get(b, 0) for b in boards] + [0])
    now = int(time.time())
    try:
        version = version_for(args.version, args.force, now=now, recorded=recorded)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.version is None and version > now:
        print("the clock (%d) is behind version %d, the highest %s records (%s): sending version %d"
              % (now, recorded, args.room, SIGNED, version), file=sys.stderr)
    return version


def cmd_config_update_key(args):
    from ..update import load_signed
    from .security import SecurityError
    key = board_key(args.room, args.board_id)
    request = {"cmd": "update_key", "board": args.board_id, "key": key}
    try:  # the highest version ever signed for it: after a reflash (version 0 again) no old package installs
        floor = load_signed(args.room).get(args.board_id, 0)
    except (SecurityError, OSError) as e:
        raise UsageError(str(e)) from None
    if floor:
        request["floor"] = floor
    reply = ask_board(args, [request])
    print(json.dumps({"board": reply["board"]}) if args.json else
          "%s: takes updates signed with %s's key from %s" % (args.port, reply["board"], args.room))


def cmd_update(args):
    """An update of the app over USB: built as doce flash builds it (or read from --package), sent, committed."""
    from ..link import LinkError
    from ..update import MAX_PACKAGE, Refused, TooBig, app_package, record_signed, send
    if not args.package and not (args.room and args.board_id):
        raise UsageError("give the room's folder and the board's id (--room DIR --board-id ID), or --package FILE")
    if args.package:
        from ..files import read_limited
        data = read_limited(args.package, MAX_PACKAGE, "an update package")
    else:
        key = board_key(args.room, args.board_id)
        version = version_of(args, [args.board_id])
        try:
            data = app_package(version, args.board_id, key, chip=args.chip)
        except TooBig as e:
            raise UsageError(str(e)) from None
        signed(record_signed, args.room, {args.board_id: version})
    link, _ = open_link(args)

    def progress(received, size):
        if not args.json and received % (100 * 96) < 96:
            print("%s: %d%%" % (args.port, received * 100 // size), file=sys.stderr)
    with link:
        try:
            reply = send(link, data, progress)
        except (LinkError, Refused) as e:
            raise UsageError("%s: update: %s" % (args.port, e)) from None
    if args.json:
        print(json.dumps({"version": reply["version"], "deferred": reply["deferred"]}))
    else:
        print("%s: version %d stored and checked; %s" % (args.port, reply["version"], "it boots once the match in "
              "play ends" if reply["deferred"] else "the board boots it now, on trial"))


def add_update(commands):
    update = commands.add_parser("update", help="update a board's app over USB, keeping its game and settings",
                                 description="Send the app doce flash installs to a board, signed with its update "
                                             "key (doce fleet secure, doce config update-key); the board checks "
                                             "it, boots it on trial and goes back by itself if it fails.")
    update.add_argument("--room", metavar="DIR", help="the room's folder (doce fleet secure): the board's key")
    update.add_argument("--board-id", type=board_id_text, help="the board's id: the package is for it alone")
    update.add_argument("--version", type=int, help="the package's version (default: the time now, in seconds, or "
                                                    "one more than the highest the room's record has for the board)")
    update.add_argument("--force", action="store_true", help="send a --version more than a day ahead of the clock")
    update.add_argument("--package", metavar="FILE", help="a package built before, instead")
    # (not asked of the board, as doce flash --app-only does with mpremote: that would stop its app)
    update.add_argument("--chip", default="esp32", choices=sorted(MARCH) + ["host"],
                        help="the board's chip, for the native code (default esp32; host: doce sim's board)")
    board_args(update)
    update.set_defaults(run=cmd_update)


def cmd_config_show(args):
    show(args, ask_board(args, [{"cmd": "net"}]))


def room_for(args):
    """(Room, broker or None): the room on --broker, or on an embedded broker started here."""
    from .room import Room
    broker = None
    url = args.broker
    try:
        if not url and listening(args.embedded_port):  # doce sim --boards or doce fleet broker runs one
            url = "mqtt://%s:%d" % (LOOPBACK, args.embedded_port)
            print("doce: no --broker: using the MQTT broker already listening on %s:%d" % (LOOPBACK,
                                                                                         args.embedded_port),
                  file=sys.stderr, flush=True)
        if not url:
            broker = EmbeddedBroker(args.embedded_port).start()
            print("doce: %s" % broker.said(), file=sys.stderr, flush=True)  # stdout may be --json
            url = broker.url
        room = Room(url, prefix=args.prefix, user=args.user, ca=args.ca,
                    password=read_secret(args, "MQTT password") if args.user else None).connect()
    except BrokerError as e:
        if broker:
            broker.stop()
        raise UsageError(str(e)) from None
    return room, broker


def cmd_fleet_status(args):
    from ..view import printable
    room, broker = room_for(args)
    try:
        time.sleep(args.wait)  # retained status and state come at once; boards joining a new broker, within it
        rows = room.rows()
    finally:
        room.close()
        if broker:
            broker.stop()
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return
    if not rows:
        print("no boards on %s under %s/ (waited %g s)" % (room.host + ":%d" % room.port, args.prefix, args.wait))
        return
    print("%-14s %-16s %-7s %-12s %-8s %-5s %-9s %-9s %-10s %s" % (
        "id", "name", "online", "rules", "checksum", "round", "score", "last seen", "version", "update"))
    for r in rows:
        totals = r["totals"] or {}
        score = "%s-%s" % (totals.get("white", "?"), totals.get("black", "?")) if totals else "-"
        seen = time.strftime("%H:%M:%S", time.localtime(r["last_seen"])) if r["last_seen"] else "-"
        print(printable("%-14s %-16s %-7s %-12s %-8s %-5s %-9s %-9s %-10s %s" % (
            r["id"], r["name"][:16], "yes" if r["online"] else "no", r["rules"] or "-", r["rules_checksum"] or "-",
            r["round"] or "-", score, seen, "-" if r["version"] is None else r["version"],
            r["update"] or "-")))  # names, rules and reasons are a board's strings: escapes escaped


def cmd_fleet_rules_push(args):
    """Rules to every board (or --boards): each board's result. A board offline, or in the middle
    of a round (unless --force), is tried again until --wait runs out."""
    tables = load_tables(args.rules)
    room, broker = room_for(args)
    results = {}
    try:
        time.sleep(min(args.wait, 1.0))  # the retained statuses: who is there
        wanted = args.boards  # a list of board ids, or None: every board
        deadline = time.monotonic() + args.wait
        while True:
            with room.lock:
                known = {i: b.online for i, b in room.boards.items()}
            for ident in wanted or sorted(known):
                if results.get(ident, {}).get("ok") or results.get(ident, {}).get("final"):
                    continue
                if not known.get(ident):
                    results[ident] = {"ok": False, "error": "offline", "message": "not on the broker"}
                    continue
                reply = room.push_rules(ident, tables.blob, force=args.force, timeout=args.timeout)
                final = reply.get("ok") or reply.get("error") not in ("mid_round", "no_answer")
                results[ident] = dict(reply, final=final)
            if all(r.get("ok") or r.get("final") for r in results.values()) or time.monotonic() >= deadline:
                break
            time.sleep(0.5)
    finally:
        room.close()
        if broker:
            broker.stop()
    failed = 0
    for ident in sorted(results):
        r = results[ident]
        failed += not r.get("ok")
        if args.json:
            print(json.dumps({"board": ident, "ok": bool(r.get("ok")), "error": r.get("error"),
                              "message": r.get("message"), "rules": tables.name,
                              "rules_checksum": "%08x" % tables.checksum}))
        else:
            print("%-14s %s" % (ident, "now playing %s (%08x)" % (tables.name, tables.checksum) if r.get("ok")
                                else "kept its rules: %s (%s)" % (r.get("message"), r.get("error"))))
    if not results and not args.json:
        print("no boards on the broker")
    return 1 if failed or not results else 0


def cmd_fleet_update(args):
    """The app doce flash installs, to every board of the room (or --boards), each signed with its own key: a
    line per board (done, deferred, waiting, refused and why, offline). --canary: that board first, healthy on
    trial. A board in a match is asked again until the match is over (--match-wait at most)."""
    from ..update import TooBig, load_keys, package, record_signed
    from .security import SecurityError
    from .update import update
    try:
        keys = load_keys(args.room)
    except (SecurityError, OSError) as e:
        raise UsageError(str(e)) from None
    wanted = list(args.boards or sorted(keys))
    if args.canary and args.canary not in wanted:
        wanted.insert(0, args.canary)
    missing = [b for b in wanted if b not in keys]
    if missing or not wanted:
        raise UsageError("%s has no update key for %s: run doce fleet secure %s --boards ID,ID" % (
            args.room, ",".join(missing) or "any board", args.room))
    from .. import image
    version = version_of(args, wanted)
    files = image.slot_files(image.app_files(chip=args.chip))  # the one builder doce flash uses (the app's part)
    try:
        packages = {b: package(files, version, b, keys[b]) for b in wanted}
    except TooBig as e:  # every board would refuse it
        raise UsageError(str(e)) from None
    signed(record_signed, args.room, {b: version for b in wanted})  # the boards' floor after a reflash
    room, broker = room_for(args)
    try:
        results = update(room, packages, args.wait, args.timeout, keys, canary=args.canary, trial_wait=args.trial,
                         **({} if args.match_wait is None else {"match_wait": args.match_wait}))
    finally:
        room.close()
        if broker:
            broker.stop()
    said = {"done": "version %d stored and checked: booting it on trial", "deferred":
            "version %d stored and checked: it boots once the match in play ends"}
    failed = 0
    for ident in wanted:
        outcome, message, got = results[ident]
        failed += outcome not in ("done", "deferred")
        if args.json:
            print(json.dumps({"board": ident, "outcome": outcome, "version": got, "message": message}))
        elif outcome in said:
            print("%-14s %s%s" % (ident, said[outcome] % got, "; " + message if message else ""))
        else:
            print("%-14s %s: %s" % (ident, outcome.replace("_", " "), message))
    return 1 if failed else 0


def cmd_fleet_secure(args):
    from .security import SecurityError, write_room
    if args.host and not args.tls:
        raise UsageError("--host names the broker in its TLS certificate: give --tls too")
    if args.tls and args.tls_port == args.mqtt_port:
        raise UsageError("--tls-port and --mqtt-port must differ: one listener each (%d)" % args.mqtt_port)
    names = [name for name, _ in args.club or []]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:  # the second would replace the first
        raise UsageError("--club %s given twice: give each club once, with all its boards (NAME=ID,ID)" % twice[0])
    bridge = bridge_settings(args)
    try:
        credentials, reused, changes = write_room(args.folder, args.boards or [], args.prefix,
                                                  tls_hosts=(args.host or []) if args.tls else None,
                                                  listen=args.listen, port=args.mqtt_port, tls_port=args.tls_port,
                                                  remove=args.remove or [], clubs=dict(args.club or []),
                                                  bridge=bridge)
        from ..update import write_keys
        from .security import ORGANISER
        clubs = dict(args.club or [])
        write_keys(args.folder, [u for u in credentials if u != ORGANISER and u not in clubs], args.remove or [])
    except SecurityError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError("%s: cannot write (%s)" % (args.folder, e.strerror or e)) from None
    if args.json:
        print(json.dumps({"folder": args.folder, "users": sorted(credentials), "tls": args.tls,
                          "ca_reused": reused, **{k: sorted(v) for k, v in changes.items()}}))
        return
    print("%s: mosquitto.conf, dynamic-security.json (users and access: private), credentials.json "
          "(passwords: private) and update-keys.json (each board's update key: private)" % args.folder)
    said = ["kept the passwords of %s" % ", ".join(changes["kept"])] if changes["kept"] else []
    said += ["%s: %s" % (k if k == "removed" else "new", ", ".join(changes[k])) for k in ("added", "removed")
             if changes[k]]
    print("; ".join(said) + ("; restart Mosquitto to use them" if changes["kept"] else ""))
    if args.tls:
        print("%s ca.crt and ca.key (private: keep it, it signs); a new server.crt and server.key (private) "
              "for %s; TLS on port %d" % ("kept the room's CA:" if reused else "a new CA:", ", ".join(args.host),
                                          args.tls_port))
    for line in next_steps(args):
        print(line)


def next_steps(args):
    """What to run next, as it is typed: the broker (as root or as DIR's owner: its config has a
    `user` line, security.broker_conf), the organiser's tools, each board."""
    from .security import owner
    if args.tls:
        broker = "mqtts://%s:%d --ca %s" % (args.host[0], args.tls_port, os.path.join(args.folder, "ca.crt"))
    else:
        here = args.listen if args.listen not in ("0.0.0.0", "::") else "THIS-COMPUTER'S-ADDRESS"
        broker = "mqtt://%s:%d" % ("[%s]" % here if ":" in here else here, args.mqtt_port)
    who = owner(args.folder)
    credentials = os.path.join(args.folder, "credentials.json")
    as_whom = ("as root (Mosquitto stays root: %s is root's, and only its owner can read its private files)"
               % args.folder if who == "root" else
               "as %s or as root (Mosquitto runs as %s, the owner of %s, who alone can read its private files)"
               % (who, who, args.folder))
    return ["Next, %s:" % as_whom,
            "  mosquitto -c %s" % os.path.join(args.folder, "mosquitto.conf"),
            "  doce fleet status --broker %s --user organiser      (its password: \"organiser\" in %s)"
            % (broker, credentials),
            "  doce config mqtt --port P --broker %s --board-id ID --user ID      (each board, on USB: its "
            "password is its ID's in %s)" % (broker, credentials)]


def bridge_settings(args):
    """--bridge URL --bridge-user NAME [--bridge-ca FILE]: this broker bridges to another club's (or a
    broker the clubs share) as NAME, its password asked for (or --password-stdin); None without."""
    if not args.bridge:
        if args.bridge_user or args.bridge_ca:
            raise UsageError("--bridge-user and --bridge-ca go with --bridge URL")
        return None
    try:
        host, port, tls = parse_url(args.bridge, tls_ok=True)
    except BrokerError as e:
        raise UsageError(str(e)) from None
    if not args.bridge_user:
        raise UsageError("--bridge needs --bridge-user: this club's name on the other broker (its doce fleet secure "
                         "--club NAME=...)")
    if tls != bool(args.bridge_ca):
        raise UsageError("mqtts:// and --bridge-ca go together: the other broker's CA, which the bridge checks it "
                         "against" if tls else "--bridge-ca is for an mqtts:// bridge")
    ca = None
    if tls:
        from ..files import FileError, read_limited
        try:
            read_limited(args.bridge_ca, 64 * 1024, "a CA certificate")
        except FileError as e:
            raise UsageError(str(e)) from None
        import os
        ca = os.path.abspath(args.bridge_ca)
    password = read_secret(args, "the bridge's password on %s" % args.bridge)
    if not password:
        raise UsageError("the bridge needs its password on the other broker (its credentials.json, user %s)"
                         % args.bridge_user)
    return {"url": args.bridge, "host": host, "port": port, "tls": tls, "user": args.bridge_user,
            "password": password, "ca": ca}


def club_boards(text):
    """--club NAME=ID,ID, checked (argparse type): (name, [board ids])."""
    import argparse
    name, _, ids = text.partition("=")
    if not ids:
        raise argparse.ArgumentTypeError("%r: a club is NAME=ID,ID: its name, then its boards' ids" % text)
    return board_id_text(name), board_ids(ids)


TICK_S = 0.5  # how often the recorder looks for what the boards may have to send again


def cmd_fleet_record(args):
    from ..view import printable
    from .record import Recorder
    try:
        recorder = Recorder(args.folder, say=lambda line: print(printable(line), flush=True))
    except OSError as e:  # a file there, a place no folder can be made
        raise UsageError("%s: cannot keep games there (%s)" % (args.folder, e.strerror or e)) from None
    room, broker = room_for(args)
    room.on_event = recorder.event  # in the MQTT client's thread, one event at a time
    print("recording every board's games into %s; Ctrl-C to stop" % args.folder, flush=True)
    end = None if args.wait is None else time.monotonic() + args.wait
    try:
        while end is None or time.monotonic() < end:
            recorder.tick(room)
            time.sleep(TICK_S if end is None else max(0, min(TICK_S, end - time.monotonic())))
    except KeyboardInterrupt:
        pass
    finally:
        room.close()
        if broker:
            broker.stop()
        recorder.finish()
    return 1 if recorder.disagreements else 0


def cmd_fleet_web(args):
    """The tournament page (fleet/tournament.py) until Ctrl-C."""
    from ..web.server import PortTaken, listen_on, url_of
    from .pairings import PairingsError, load_pairings
    from .standings import Tournament
    from .tournament import serve
    try:
        pairings = load_pairings(args.pairings) if args.pairings else None
    except PairingsError as e:
        raise UsageError(str(e)) from None
    if args.round is not None and (not pairings or args.round not in pairings):
        raise UsageError("--round %d: the pairings have rounds %s" % (
            args.round, ", ".join(map(str, sorted(pairings or {}))) or "none"))
    try:
        sock = listen_on(args.listen, args.http)
    except OSError as e:  # a port typed and taken: PortTaken says so in one line
        raise UsageError(str(e) if isinstance(e, PortTaken) else "cannot serve the page on %s:%d (%s)"
                         % (args.listen, args.http, e.strerror)) from None
    room, broker = room_for(args)
    tournament = Tournament(room, pairings, args.round)

    def ready():
        url = url_of(sock)
        if args.json:
            print(json.dumps({"url": url, "broker": "%s:%d" % (room.host, room.port), "round": tournament.round,
                              "pairings": len(tournament.pairs())}), flush=True)
        else:
            print("The tournament page is at %s (boards on %s:%d). Ctrl-C stops." % (url, room.host, room.port),
                  flush=True)
    try:
        serve(tournament, sock, ready)
    finally:
        room.close()
        if broker:
            broker.stop()


def cmd_fleet_broker(args):
    if listening(args.embedded_port):
        raise UsageError("a broker is already listening on %s:%d (doce sim --boards, doce fleet broker or a "
                          "Mosquitto): the fleet commands use it as it is" % (LOOPBACK, args.embedded_port))
    try:
        broker = EmbeddedBroker(args.embedded_port).start()
    except BrokerError as e:
        raise UsageError(str(e)) from None
    print("%s. Ctrl-C to stop." % broker.said(), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        broker.stop()


def add_config(commands):
    config = commands.add_parser("config", help="a board's Wi-Fi and MQTT settings, over USB",
                                 description="Store a board's Wi-Fi and MQTT settings on it, over USB. "
                                             "Passwords are read from a prompt or --password-stdin, and the "
                                             "board never sends them back.")
    actions = config.add_subparsers(dest="action", required=True, metavar="ACTION")
    wifi = actions.add_parser("wifi", help="the network the board joins")
    wifi.add_argument("--ssid", required=True, help="the network's name")
    wifi.add_argument("--password-stdin", action="store_true", help="read the password from a line of stdin")
    board_args(wifi)
    wifi.set_defaults(run=cmd_config_wifi)
    mqtt = actions.add_parser("mqtt", help="the broker the board talks to, and its name there")
    mqtt.add_argument("--broker", required=True, metavar="mqtt[s]://HOST:PORT",
                      help="the broker; give HOST as an IP address: a board resolving a name would wait on DNS. "
                           "mqtts:// (port 8883 unless given): TLS, with --ca")
    mqtt.add_argument("--ca", metavar="FILE", help="with mqtts://: the room's CA (ca.crt from doce fleet secure "
                                                   "--tls), stored on the board, which checks the broker against it")
    mqtt.add_argument("--prefix", type=topic_prefix, help="the organiser's topic prefix (default doce)")
    mqtt.add_argument("--board-id", type=board_id_text, help="this board's id in topics (default: from its MAC)")
    mqtt.add_argument("--name", help="a name people know the board by, like 'Table 4'")
    mqtt.add_argument("--user", help="this board's MQTT user name (its password is asked for)")
    mqtt.add_argument("--password-stdin", action="store_true", help="read the MQTT password from a line of stdin")
    board_args(mqtt)
    mqtt.set_defaults(run=cmd_config_mqtt)
    show = actions.add_parser("show", help="the settings (no passwords) and the connection")
    board_args(show)
    show.set_defaults(run=cmd_config_show)
    key = actions.add_parser("update-key", help="the key the board's updates are signed with (doce fleet secure)")
    key.add_argument("--room", required=True, metavar="DIR", help="the room's folder (doce fleet secure)")
    key.add_argument("--board-id", required=True, type=board_id_text, help="the board's id")
    board_args(key)
    key.set_defaults(run=cmd_config_update_key)


def broker_args(command):
    """The arguments of every fleet command: which broker, and who the organiser is on it."""
    command.add_argument("--broker", metavar="mqtt[s]://HOST:PORT", help="the broker (default: an embedded one)")
    command.add_argument("--ca", metavar="FILE", help="with mqtts://: the CA its certificate must chain to "
                                                      "(doce fleet secure --tls makes ca.crt)")
    command.add_argument("--embedded-port", type=port_number, default=EMBEDDED_PORT, metavar="PORT",
                         help="the embedded broker's port on 127.0.0.1 (default %d)" % EMBEDDED_PORT)
    command.add_argument("--prefix", default="doce", type=topic_prefix,
                         help="the topic prefix the boards use (default doce)")
    command.add_argument("--user", help="the organiser's MQTT user name (its password is asked for)")
    command.add_argument("--password-stdin", action="store_true", help="read the MQTT password from stdin")
    command.add_argument("--json", action="store_true", help="print JSON for scripts")


def add_fleet(commands):
    fleet = commands.add_parser("fleet", help="a room of boards on one MQTT broker",
                                description="Watch and run a room of boards over MQTT. Without --broker, an "
                                            "embedded broker (amqtt) runs on this computer's loopback.")
    actions = fleet.add_subparsers(dest="action", required=True, metavar="ACTION")
    for add in (add_fleet_status, add_fleet_rules, add_fleet_update, add_fleet_record, add_fleet_secure,
                add_fleet_web, add_fleet_broker):
        add(actions)


def add_fleet_status(actions):
    status = actions.add_parser("status", help="one row per board: id, name, online, rules, round, scores, last seen, "
                                "app version, where its update stands")
    broker_args(status)
    status.add_argument("--wait", type=duration, default=2.0, metavar="S",
                        help="seconds to listen before printing (default 2)")
    status.set_defaults(run=cmd_fleet_status)


def add_fleet_rules(actions):
    rules = actions.add_parser("rules", help="rule tables for every board at once")
    push = rules.add_subparsers(dest="rules_action", required=True, metavar="ACTION").add_parser(
        "push", help="send rules to every board, or --boards ID,ID",
        description="Send rules to every board on the broker, or to those named. Prints each board's result; "
                    "exits 1 if any kept its old rules. A board offline or mid-match is tried again until "
                    "--wait runs out.")
    push.add_argument("rules", metavar="RULES", help="a shipped name or a .json file")
    push.add_argument("--boards", type=board_ids, metavar="ID,ID", help="only these boards")
    push.add_argument("--force", action="store_true", help="change rules mid-match (abandons the match)")
    push.add_argument("--wait", type=duration, default=5.0, metavar="S",
                      help="seconds to keep trying boards offline or mid-match (default 5)")
    push.add_argument("--timeout", type=seconds, default=5.0, metavar="S", help="seconds to wait for each reply")
    broker_args(push)
    push.set_defaults(run=cmd_fleet_rules_push)


def add_fleet_update(actions):
    up = actions.add_parser("update", help="the app doce flash installs, to every board over MQTT",
                            description="Send every board of the room (or --boards) the app doce flash installs, "
                                        "signed with its own update key (doce fleet secure DIR); one board after "
                                        "another command, boards side by side; a board in a match takes it once "
                                        "the match is over. Prints each board's result: done (booting it on "
                                        "trial), deferred (stored by a board from before, booting when its match "
                                        "ends), waiting (a match in play, or a piece on the board, all of "
                                        "--match-wait), refused and why, "
                                        "offline. Exits 1 unless every board is done or deferred.")
    up.add_argument("room", metavar="DIR", help="the room's folder (doce fleet secure): the boards' update keys")
    up.add_argument("--boards", type=board_ids, metavar="ID,ID", help="only these boards (default: every board "
                                                                      "with a key in DIR)")
    up.add_argument("--canary", type=board_id_text, metavar="ID",
                    help="update this board first and send the rest only once it says it is healthy on trial")
    up.add_argument("--version", type=int, help="the version (default: the time now, in seconds, or one more than "
                                                 "the highest version the room's record has for the boards)")
    up.add_argument("--force", action="store_true", help="send a --version more than a day ahead of the clock")
    up.add_argument("--chip", default="esp32", choices=sorted(MARCH) + ["host"],
                    help="the boards' chip, for the native code (default esp32; host: doce sim's boards)")
    up.add_argument("--wait", type=duration, default=60.0, metavar="S",
                    help="seconds to keep trying a board offline, gone from the broker or not answering "
                         "(default 60)")
    up.add_argument("--match-wait", type=duration, metavar="S",
                    help="seconds to wait for a board's match to end before leaving it waiting (default 10800, "
                         "3 hours: a club's evening)")
    up.add_argument("--timeout", type=seconds, default=10.0, metavar="S", help="seconds to wait for each reply")
    up.add_argument("--trial", type=seconds, default=180.0, metavar="S",
                    help="with --canary: seconds to wait for it to say it is healthy (default 180: a board gives "
                         "a version up after 120 s)")
    broker_args(up)
    up.set_defaults(run=cmd_fleet_update)


def add_fleet_record(actions):
    record = actions.add_parser("record", help="every board's games as recorded-game files, refereed as they come",
                                description="Write every board's games into DIR as recorded-game files (doce "
                                            "referee reads them), and referee each round as it ends beside the "
                                            "board's own score. Exits 1 if they ever disagreed.")
    record.add_argument("folder", metavar="DIR", help="where the game files go")
    record.add_argument("--wait", type=duration, metavar="S", help="stop after S seconds (default: at Ctrl-C)")
    broker_args(record)
    record.set_defaults(run=cmd_fleet_record)


def add_fleet_secure(actions):
    secure = actions.add_parser("secure", help="per-board credentials and a Mosquitto ACL",
                                description="Write a Mosquitto password file and ACL for these boards: each "
                                            "board (user name = its id) may publish only its own topics and read "
                                            "only its own cmd; only the organiser may send commands; no "
                                            "anonymous access.")
    secure.add_argument("folder", metavar="DIR", help="where to write them (run again: the room's passwords stay)")
    secure.add_argument("--boards", type=board_ids, metavar="ID,ID",
                        help="the boards' ids (run again, the boards to add: the others stay)")
    secure.add_argument("--remove", type=board_ids, metavar="ID,ID",
                        help="boards to take out of the room: their passwords no longer work")
    secure.add_argument("--prefix", default="doce", type=topic_prefix, help="the topic prefix (default doce)")
    secure.add_argument("--tls", action="store_true",
                        help="also a CA (made once, then reused) and a certificate for the broker, and a TLS listener")
    secure.add_argument("--host", action="append", metavar="NAME_OR_IP",
                        help="a name or address clients reach the broker by, for its certificate (repeatable)")
    secure.add_argument("--listen", type=listen_address, default="127.0.0.1", metavar="ADDR",
                        help="the listeners' address (default 127.0.0.1: this computer only; 0.0.0.0: every network)")
    secure.add_argument("--mqtt-port", type=port_number, default=1883, metavar="PORT",
                        help="plain MQTT's port (default 1883)")
    secure.add_argument("--tls-port", type=port_number, default=8883, metavar="PORT",
                        help="MQTT over TLS's port (default 8883)")
    secure.add_argument("--club", type=club_boards, action="append", metavar="NAME=ID,ID",
                        help="another club whose boards may play this room's, through a bridge (docs/remote.md, "
                             "\"Two clubs\"); its broker bridges to this one as user NAME, unless this one "
                             "bridges out (--bridge) (repeatable)")
    secure.add_argument("--bridge", metavar="URL", help="bridge this broker to another club's, or to one the clubs "
                                                         "share (mqtt[s]://HOST:PORT)")
    secure.add_argument("--bridge-user", type=board_id_text, metavar="NAME",
                        help="this club's name there (its password is asked for, or --password-stdin)")
    secure.add_argument("--bridge-ca", metavar="FILE", help="with mqtts://: the other broker's CA")
    secure.add_argument("--password-stdin", action="store_true", help="read the bridge's password from stdin")
    secure.add_argument("--json", action="store_true", help="print JSON for scripts")
    secure.set_defaults(run=cmd_fleet_secure)


def add_fleet_web(actions):
    web = actions.add_parser("web", help="the tournament page: every board live, standings and pairings",
                             description="Serve the tournament page: every board on the broker live on one "
                                         "screen (a click opens its page), the standings by DOCE points and the "
                                         "round's pairings from a CSV (round,board,white,black). /room.json has "
                                         "the same as JSON.")
    web.add_argument("--pairings", metavar="FILE.csv", help="which players sit at which board, per round")
    web.add_argument("--round", type=int, metavar="N", help="the round on show (default: the pairings' last)")
    web.add_argument("--http", type=port_or_any, default=DefaultPort(8080), metavar="PORT",
                     help="the page's port (default 8080, or another free one if it is taken; a port given is "
                          "used, or refused if taken; 0: any)")
    web.add_argument("--listen", type=listen_address, default="127.0.0.1", metavar="ADDR",
                     help="the address to serve on (default 127.0.0.1: this computer only)")
    broker_args(web)
    web.set_defaults(run=cmd_fleet_web)


def add_fleet_broker(actions):
    broker = actions.add_parser("broker", help="run the embedded broker until Ctrl-C")
    broker_args(broker)
    broker.set_defaults(run=cmd_fleet_broker)
