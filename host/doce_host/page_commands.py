"""`doce sim`, `doce web`, `doce snapshot` and `doce play`: a board (simulated or real) on a page
or in the terminal, its picture, and a match at one terminal. cli.py hands these their parsers."""

import sys
import time

from .commandline import UsageError, board_args, link_errors, load_tables, open_link, page_args, seconds


def cmd_play(args):
    from .play import play
    play(load_tables(args.rules), sys.stdin, sys.stdout, vs=args.vs, colour=("white", "black").index(args.colour),
         seed=args.seed)


def cmd_sim(args):
    if args.remote:  # two boards paired through a broker, a page each (doce_host/fleet/simpair.py)
        if args.boards is not None or args.terminal or args.serial_only:
            raise UsageError("--remote runs two boards with a page each: not with --boards, --terminal or "
                             "--serial-only")
        load_tables(args.rules)
        from .fleet.simpair import run
        return run(args)
    if args.boards is not None or args.broker:  # boards in a room on MQTT, each with its page (fleet/simroom.py)
        from .fleet.simroom import MAX_BOARDS, run
        if args.boards is not None and not 1 <= args.boards <= MAX_BOARDS:
            raise UsageError("--boards is a number of boards from 1 to %d" % MAX_BOARDS)
        if args.terminal or args.serial_only:
            raise UsageError("--terminal and --serial-only are for one board on its own, not in a room")
        return run(args)
    if args.ca:  # else it would be ignored: one board on its page, no broker
        raise UsageError("--ca is for a board in a room: give --broker mqtts://HOST:PORT too")
    from .sim import FlashDamaged
    from .sim.serial_sim import SerialSim
    load_tables(args.rules)  # an unknown name or a bad file is one line, before any board starts
    # the page's port before the board: a port given and taken is refused at once, not after a boot
    sock = None if args.serial_only or args.terminal else page_socket(args)
    try:
        # the reference board's module: a player may set up Wi-Fi on it (doce config)
        sim = SerialSim(args.folder, rules=args.rules, module="wrover", supply=args.supply)
    except (FlashDamaged, OSError) as e:
        if sock:
            sock.close()
        if isinstance(e, FlashDamaged):
            raise UsageError(str(e)) from None
        raise UsageError("--folder %s: cannot keep the board's flash there (%s)"  # a file, or out of reach
                         % (args.folder, e.strerror or e)) from None
    with sim:
        if args.serial_only:
            print(sim.path, flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return
        if args.terminal:
            from .sim.terminal import play
            play(sim, sys.stdin, sys.stdout, ansi=sys.stdout.isatty())
            return
        serve_page(args, sim.path, sim, "A simulated board (the real firmware) is running; the page talks to "
                                        "it on %s (--serial-only leaves that free for other tools)." % sim.path, sock)


@link_errors
def cmd_web(args):
    link, hello = open_link(args)  # a wrong port is one line here, not a page that never fills
    link.close()
    from .view import printable
    serve_page(args, args.port, None, "Watching %s on %s." % (printable(hello["board"]), args.port), page_socket(args))


def page_socket(args):
    """The page's socket, on --http (web/server.py listen_on: a port given is used or refused), or UsageError."""
    from .web.server import PortTaken, listen_on
    try:
        return listen_on(args.listen, args.http)
    except OSError as e:  # PortTaken says it in one line
        raise UsageError(str(e) if isinstance(e, PortTaken) else "cannot serve the page on %s:%d (%s)"
                         % (args.listen, args.http, e.strerror)) from None


def serve_page(args, port, world, what, sock):
    from .web.server import serve

    def ready(url):
        print("%s\nOpen %s in a browser to see the board. Ctrl-C stops." % (what, url), flush=True)
        if args.open and can_open_a_browser():
            import webbrowser
            webbrowser.open(url)
    serve(port, world, ready=ready, timeout=getattr(args, "timeout", 3.0), sock=sock)


def can_open_a_browser():
    """Only where a browser can show a page: never a text browser taking over the terminal."""
    import os
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


MAX_PICTURE = 1 << 20  # a board's picture is about 20 KB


def page_picture(url, timeout):
    """The picture a page shows now. A page just started has none until it has heard its board
    (503): asked again until `timeout` seconds have passed."""
    import time
    import urllib.error
    import urllib.request
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/board.svg", timeout=timeout) as r:
                svg = r.read(MAX_PICTURE + 1).decode()
            if len(svg) > MAX_PICTURE:
                raise ValueError("a picture over %d KB" % (MAX_PICTURE // 1024))
            return svg
        except urllib.error.HTTPError as e:
            if e.code != 503 or time.monotonic() > deadline:
                raise UsageError("%s: no picture from the page (%s)" % (url, e.reason)) from None
            time.sleep(0.2)
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise UsageError("%s: no picture from the page (%s)" % (url, getattr(e, "reason", e))) from None


@link_errors
def cmd_snapshot(args):
    from .web import picture
    if args.url:
        svg = page_picture(args.url, args.timeout)
    else:
        link, _ = open_link(args)
        with link:
            svg = picture.draw(link.state())
    out = args.png or args.svg
    try:
        if args.png:
            picture.write_png(svg, out)
        else:
            with open(out, "w", encoding="utf-8") as f:
                f.write(svg)
    except OSError as e:
        raise UsageError("%s: cannot write (%s)" % (out, e.strerror or e)) from None
    except picture.NoPNG as e:
        raise UsageError(str(e)) from None
    print(out)


def add_sim(commands):
    sim = commands.add_parser("sim", help="play on a simulated board (the real firmware) in a browser",
                              description="Play on a simulated board: the real firmware in the MicroPython "
                                          "unix port, on simulated sensors and lights. A web page shows the "
                                          "board; you move the dice by clicking.")
    sim.add_argument("--rules", default="standard", metavar="RULES", help="a shipped name or a .json file")
    sim.add_argument("--folder", metavar="DIR",
                     help="keep the board's flash here, so the game survives quitting (default: forget it)")
    page_args(sim)
    sim.add_argument("--boards", type=int, metavar="N",
                     help="a room of N boards on an MQTT broker, each with its page (Sim 1 on --http + 1, Sim 2 "
                          "on --http + 2...: 8001, 8002... by default)")
    sim.add_argument("--remote", action="store_true",
                     help="two boards paired for a match through a broker, each with its page (docs/remote.md)")
    sim.add_argument("--broker", metavar="mqtt[s]://HOST:PORT",
                     help="the room's broker (with --boards or --remote, default: an embedded one); alone, one "
                          "board and its page join the room on it")
    sim.add_argument("--ca", metavar="FILE", help="with an mqtts:// broker: the room's CA (ca.crt)")
    from .sim import SUPPLIES, SUPPLY
    sim.add_argument("--supply", choices=list(SUPPLIES), default=SUPPLY,
                     help="what the board's USB-C power input has: none (the devkit's micro-USB alone, a "
                          "computer's port), usb (a charger showing Default USB, 500 mA), 1.5A or 3A (a "
                          "charger); Wi-Fi starts only on 1.5A or 3A (default %s)" % SUPPLY)
    how = sim.add_mutually_exclusive_group()
    how.add_argument("--terminal", action="store_true", help="play in the terminal instead of a browser")
    how.add_argument("--serial-only", action="store_true",
                     help="print the serial path and run until Ctrl-C, for tools and scripts")
    sim.set_defaults(run=cmd_sim)


def add_web(commands):
    web = commands.add_parser("web", help="watch a real board in a browser",
                              description="Serve a page that shows a board live: dice, lights, scores, events.")
    board_args(web)
    page_args(web)
    web.set_defaults(run=cmd_web)


def add_snapshot(commands):
    snapshot = commands.add_parser("snapshot", help="save a picture of a board",
                                   description="Save the board as it is now, as SVG or PNG, from its serial port "
                                               "or from a running doce sim / doce web page.")
    source = snapshot.add_mutually_exclusive_group(required=True)
    source.add_argument("--port", help="the board's serial port")
    source.add_argument("--url", help="a running page, like http://127.0.0.1:8000")
    kind = snapshot.add_mutually_exclusive_group(required=True)
    kind.add_argument("--svg", metavar="FILE", help="write SVG")
    kind.add_argument("--png", metavar="FILE", help="write PNG (needs the cairo library)")
    snapshot.add_argument("--timeout", type=seconds, default=5.0, metavar="S", help="seconds to wait for an answer")
    snapshot.set_defaults(run=cmd_snapshot, json=False)


def add_play(commands):
    from doce.opponent import LEVELS
    play = commands.add_parser("play", help="play a match in the terminal",
                               description="Play a match of DOCE at one terminal: two players, or one against "
                                           "the board's opponent (--vs LEVEL).")
    play.add_argument("--rules", default="standard", metavar="RULES", help="a shipped name or a .json file")
    play.add_argument("--vs", type=int, choices=range(LEVELS), metavar="LEVEL",
                      help="play the board's opponent, level 0 (a child) to %d (its strongest)" % (LEVELS - 1))
    play.add_argument("--colour", choices=("white", "black"), default="black", help="its colour (default black)")
    play.add_argument("--seed", type=int, default=1, help="the opponent's seed: the same moves for the same game")
    play.set_defaults(run=cmd_play)
