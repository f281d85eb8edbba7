"""What the `doce` commands share: the one-line error for bad input, their common
arguments, reading a JSON or rules file, writing a file, and opening a board's link.
The command modules (cli.py, rules_commands.py, board_commands.py, dice_check.py,
page_commands.py, fleet/) import it; it imports none of them."""

import argparse
import ipaddress
import math
import re

from . import rules as rulesfiles


# A DNS name (RFC 1035, 2.3.4: 253 characters, labels of 63): what a listener or a certificate names
HOST_NAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]"
                       r"([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$")


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


MAX_GAME = 1 << 20  # a recorded match is about 10 KB


def read_json(path):
    from .files import FileError, read_text
    try:
        text = read_text(path, MAX_GAME, "a recorded game")
    except FileError as e:
        raise UsageError(str(e)) from None
    try:
        return rulesfiles.parse_json(text)
    except ValueError as e:
        raise UsageError("%s: %s" % (path, e)) from None


def load_tables(name):
    try:
        return rulesfiles.load_tables(name)
    except rulesfiles.RulesError as e:
        raise UsageError(str(e)) from None


def write_file(out, data):
    """Write `data` to `out`; a missing folder, a directory or a full disk is one line."""
    try:
        with open(out, "wb") as f:
            f.write(data)
    except OSError as e:
        raise UsageError("%s: cannot write (%s)" % (out, e.strerror or e)) from None


def open_link(args):
    from .link import BoardLink, LinkError
    try:
        link = BoardLink(args.port, timeout=args.timeout)
        hello = link.hello()
    except LinkError as e:
        raise UsageError(str(e)) from None
    return link, hello


def link_errors(run):
    """Turn a LinkError from a board command into a one-line error."""
    def wrapped(args):
        from .link import LinkError
        try:
            return run(args)
        except LinkError as e:
            raise UsageError(str(e)) from None
    return wrapped


def seconds(text):
    """A time given on the command line: a number of seconds above 0 (not nan, inf, 0 or -5)."""
    return _seconds(text, False, "above 0")


def duration(text):
    """A time to wait: a number of seconds, 0 or more (not -1, nan or inf)."""
    return _seconds(text, True, "0 or more")


def _seconds(text, zero_too, said):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and (value >= 0 if zero_too else value > 0)):
        raise argparse.ArgumentTypeError("%r: give a number of seconds %s, like 5" % (text, said))
    return value


def port_number(text):
    """A TCP port to connect to or to listen on: 1 to 65535."""
    return _port(text, 1)


def port_or_any(text):
    """A port to listen on, 0 for any free one."""
    return _port(text, 0)


def _port(text, lowest):
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not lowest <= port <= 65535:
        raise argparse.ArgumentTypeError("%r: a port is a number from %d to 65535%s" % (
            text, lowest, " (0: any free one)" if lowest == 0 else ""))
    return port


def listen_address(text):
    """Where a listener listens: an IP address, or a host name that gives one (0.0.0.0: everywhere)."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    if not HOST_NAME.match(text):
        raise argparse.ArgumentTypeError("%r: give an IP address or a host name, like 192.168.1.10 (no port)" % text)
    return text



def board_args(command):
    """The arguments of every command that talks to a board over USB."""
    command.add_argument("--port", required=True,
                         help="the board's serial port (doce sim --serial-only prints its path)")
    command.add_argument("--timeout", type=seconds, default=5.0, metavar="S", help="seconds to wait for an answer")
    command.add_argument("--json", action="store_true", help="print JSON for scripts")


class DefaultPort(int):
    """A page's port nobody typed: another free one will do if it is taken (one typed is used or
    refused: web/server.py listen_on)."""


def page_args(command, default=8000):
    """The arguments of every command that serves a page."""
    command.add_argument("--http", type=port_or_any, default=DefaultPort(default), metavar="PORT",
                         help="the page's port (default %d, or another free one if it is taken; a port given "
                              "is used, or refused if taken; 0: any free one)" % default)
    command.add_argument("--listen", default="127.0.0.1", metavar="ADDRESS",
                         help="where the page is served (default this computer only; 0.0.0.0 for the room)")
    command.add_argument("--open", action="store_true", help="open the page in a browser")


def rules_arg(command):
    command.add_argument("rules", metavar="RULES", help="a shipped name or a .json file")
