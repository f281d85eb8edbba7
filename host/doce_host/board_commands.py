"""`doce status`, `doce monitor`, `doce play-board` and `doce flash`: a board on its serial port.
cli.py hands these their parsers."""

import json

from .commandline import UsageError, board_args, link_errors, open_link


@link_errors
def cmd_play_board(args):
    from .play import board_hint, play_board
    link, _ = open_link(args)
    with link:
        print(board_hint(link) if args.hint else play_board(link, args.level, args.colour, args.first))


@link_errors
def cmd_status(args):
    from . import view
    link, hello = open_link(args)
    with link:
        state = link.state()
    if args.json:
        print(json.dumps({"hello": hello, "state": state}))
        return
    print(view.printable("%s, firmware %s, rules %s (%s)" % (hello["board"], hello["firmware"], hello["rules"],
                                                           hello["rules_checksum"])))
    print("Who plays: %s" % view.who_plays(hello.get("versus")))
    print(view.draw(state))
    print(view.summary(state))


@link_errors
def cmd_monitor(args):
    from . import view
    from .game_log import FriendNews
    link, hello = open_link(args)
    news = FriendNews()  # the friend's board "is connected" once, not after each of its moves
    with link:
        if not args.json:
            print("%s on %s. Ctrl-C to stop." % (view.printable(hello["board"]), args.port))
            state = link.state()
            print(view.draw(state), view.summary(state), sep="\n")
        last_seq = None
        while True:
            event = link.next_event(timeout=3600)
            if event is None:
                continue
            if args.json:
                print(json.dumps(event), flush=True)
                continue
            if last_seq is not None and event.get("seq", 0) > last_seq + 1:
                print("(missed %d event(s); fetching the state)" % (event["seq"] - last_seq - 1))
            last_seq = event.get("seq", last_seq)
            if not news(event):
                continue
            print(view.describe(event), flush=True)
            if event["event"] not in ("warning",):
                state = link.state()
                print(view.draw(state), view.summary(state), sep="\n", flush=True)


@link_errors
def cmd_flash(args):
    from .flash import flash_size, install
    if not args.app_only and not args.firmware:
        raise UsageError("flash: --firmware MICROPYTHON.bin is needed for a full install (or use --app-only)")
    try:
        size = flash_size(args.flash_size) if args.flash_size is not None else None  # "" is no size
        install(args.port, args.firmware, chip=args.chip, app_only=args.app_only, rules=args.rules,
                dry_run=args.dry_run, size=size)
    except (ValueError, RuntimeError, OSError) as e:  # a bad image, an unknown chip, a missing tool
        raise UsageError("flash: %s" % e) from None


def add_flash(commands):
    from .micropython import RELEASE, firmware_file
    flash = commands.add_parser("flash", help="install MicroPython and the app on a board",
                                description="Erase a board and write MicroPython and the app in one esptool call, "
                                            "or with --app-only update just the app (keeping the game and "
                                            "calibration). Then check the board answers. The firmware must be "
                                            "MicroPython %s (%s for an ESP32)." % (RELEASE, firmware_file()))
    flash.add_argument("--port", required=True, help="the board's serial port")
    flash.add_argument("--firmware", metavar="MICROPYTHON.bin", help="the MicroPython image for the board")
    flash.add_argument("--chip", help="esp32, esp32s2, esp32s3, esp32c3 or esp32c6 (default: the image's)")
    flash.add_argument("--flash-size", metavar="SIZE",
                       help="the module's flash, e.g. 8MB, for a dry run (which otherwise assumes 4MB) or a "
                            "board whose flash chip does not say")
    flash.add_argument("--app-only", action="store_true", help="update only the app's files, with mpremote")
    flash.add_argument("--rules", default="standard", metavar="RULES", help="the rules to install")
    flash.add_argument("--dry-run", action="store_true", help="check the image and print the commands, run nothing")
    flash.set_defaults(run=cmd_flash)


def add_play_board(commands):
    play = commands.add_parser("play-board", help="play against a board: its opponent plays one colour",
                               description="Start a match against the board's own opponent (docs/opponent.md), "
                                           "or with --hint ask it for the strongest move for the player to move.")
    board_args(play)
    play.add_argument("--level", type=int, choices=range(4), default=3, help="0 (a child) to 3 (its strongest)")
    play.add_argument("--colour", choices=("white", "black"), default="black", help="its colour (default black)")
    play.add_argument("--first", choices=("white", "black"), help="who opens (default: the other than last match)")
    play.add_argument("--hint", action="store_true", help="only ask for a hint")
    play.set_defaults(run=cmd_play_board)


def add_status(commands):
    status = commands.add_parser("status", help="a board's hello and game state",
                                 description="Show a board's hello and the game as it stands.")
    board_args(status)
    status.set_defaults(run=cmd_status)


def add_monitor(commands):
    monitor = commands.add_parser("monitor", help="watch a board's events live",
                                  description="Watch a board's events live, with the board drawn after each.")
    board_args(monitor)
    monitor.set_defaults(run=cmd_monitor)
