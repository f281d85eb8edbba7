"""The `doce` command: its parser, and each command handed to the module that runs it
(rules_commands.py, board_commands.py, dice_check.py, page_commands.py, fleet/)."""

import argparse
import difflib
import json
import os
import re
import signal
import sys

from doce.referee import referee

from .commandline import UsageError, read_json
from .view import printable


def cmd_referee(args):
    from .recorded import GameFileError, match_of
    try:
        match, moves = match_of(read_json(args.game), rules=args.rules)
    except GameFileError as e:
        raise UsageError("%s: %s" % (args.game, e)) from None
    for event in referee(match, moves):
        print(json.dumps(event))


def add_referee(commands):
    referee = commands.add_parser("referee", help="score a recorded game",
                                  description="Score a recorded game. Prints one JSON event per line.")
    referee.add_argument("game", metavar="GAME.json", help="the recorded game, or - for stdin")
    referee.add_argument("--rules", metavar="FILE", help="rules to play by (overrides the game's \"rules\")")
    referee.set_defaults(run=cmd_referee)


class Parser(argparse.ArgumentParser):
    """argparse's, with a guess at a mistyped command: "invalid choice: 'simm' ...; did you mean sim?"
    (its subcommands' parsers are of this class too: `doce fleet statsu` gets one)."""

    def error(self, message):
        wrong = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if wrong:
            choices = re.findall(r"'([^']*)'", wrong.group(2))
            near = difflib.get_close_matches(wrong.group(1), choices, n=1, cutoff=0.6)
            if near:
                message = "invalid choice: %r; did you mean %s? (%s --help lists them all)" % (
                    wrong.group(1), near[0], self.prog)
        super().error(message)


def parser():
    from .bench_command import add_bench
    from .board_commands import add_flash, add_monitor, add_play_board, add_status
    from .check_command import add_check
    from .dice_check import add_dice
    from .fleet.commands import add_config, add_fleet, add_update
    from .fleet.remote import add_remote
    from .page_commands import add_play, add_sim, add_snapshot, add_web
    from .rules_commands import add_rules
    top = Parser(prog="doce", description="Tools for the electronic DOCE board.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (add_referee, add_rules, add_flash, add_play_board, add_status, add_monitor, add_sim, add_web,
                add_snapshot, add_dice, add_check, add_bench, add_play, add_config, add_fleet, add_remote,
                add_update):
        add(commands)
    return top


# The commands that read hardware/board.json (to install it, to simulate a board, to draw one):
# a broken file is one clear line before any of them starts, never a traceback or a board that
# will not boot.
USES_BOARD_FILE = ("flash", "sim", "play", "web", "snapshot", "dice", "check", "fleet", "remote", "update")


def check_board_file():
    from . import paths
    from .board_file import load
    from .files import FileError
    try:
        load(paths.BOARD_FILE)
    except FileError as e:  # it names the file already
        raise UsageError(str(e)) from None
    except ValueError as e:  # json's errors are ValueErrors too
        raise UsageError("%s: %s" % (paths.BOARD_FILE, e)) from None


def interrupted(signum, frame):
    raise KeyboardInterrupt


class OutputLost(Exception):
    """Standard output could not be written: a full disk, /dev/full, a reader gone (| head)."""


class Output:
    """The doce command's standard output: a failed write says so as OutputLost, which no
    command's own `except OSError` (a file it could not write) mistakes for its file."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        try:
            return self.stream.write(text)
        except OSError as e:
            raise OutputLost(e) from None

    def flush(self):
        try:
            self.stream.flush()
        except OSError as e:
            raise OutputLost(e) from None

    def __getattr__(self, name):
        return getattr(self.stream, name)


def main(argv=None):
    if argv is None and not isinstance(sys.stdout, Output):
        sys.stdout = Output(sys.stdout)
    try:
        try:
            return run(argv)
        finally:
            sys.stdout.flush()  # what is buffered goes now, while a failure can still be said
    except KeyboardInterrupt:  # Ctrl-C anywhere, the parser's words and a command's last lines too
        return 130
    except OutputLost as lost:
        e = lost.args[0]
        try:  # pointed at /dev/null: Python's own flush at exit prints no traceback (its note on SIGPIPE)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        if not isinstance(e, BrokenPipeError):  # a reader that went away (| head) wants no word
            print("doce: the output could not be written (%s)" % (e.strerror or e), file=sys.stderr)
        return 1


def run(argv):
    args = parser().parse_args(argv)
    if argv is None:  # the doce command itself: `kill` ends it as Ctrl-C does, its boards and pages with it
        signal.signal(signal.SIGTERM, interrupted)
        if hasattr(signal, "SIGHUP"):  # and so does closing its terminal: a board in a check gets its end
            signal.signal(signal.SIGHUP, interrupted)
        # and Ctrl-C is its own even where it started ignored (a script's background job)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        if args.command in USES_BOARD_FILE:
            check_board_file()
        code = args.run(args)
    except UsageError as e:
        print("doce: %s" % printable(e), file=sys.stderr)  # it may quote a board, a file or a broker
        return 2
    return code or 0


if __name__ == "__main__":
    sys.exit(main())
