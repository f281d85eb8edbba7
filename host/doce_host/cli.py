"""The `doce` command."""

import argparse
import json
import signal
import sys
import time

from doce.referee import referee

from .commandline import (UsageError, board_args, link_errors, load_tables, open_link, page_args, read_json,
                          rules_arg, seconds, write_file)
from .view import printable


def cmd_referee(args):
    from .recorded import GameFileError, match_of
    try:
        match, moves = match_of(read_json(args.game), rules=args.rules)
    except GameFileError as e:
        raise UsageError("%s: %s" % (args.game, e)) from None
    for event in referee(match, moves):
        print(json.dumps(event))


def cmd_rules_validate(args):
    for name in args.rules:
        t = load_tables(name)
        if args.json:
            print(json.dumps({"rules": name, "ok": True, "name": t.name, "lines": t.line_count,
                              "size": len(t.blob), "checksum": "%08x" % t.checksum}))
        else:
            print("%s: ok (%s, %d lines, tables %d bytes, checksum %08x)"
                  % (name, t.name, t.line_count, len(t.blob), t.checksum))


def cmd_rules_compile(args):
    t = load_tables(args.rules)
    out = args.output or t.name + ".doct"
    write_file(out, t.blob)
    if args.json:
        print(json.dumps({"file": out, "size": len(t.blob), "checksum": "%08x" % t.checksum}))
    else:
        print("%s: %d bytes, checksum %08x" % (out, len(t.blob), t.checksum))


def cmd_play(args):
    from .play import play
    play(load_tables(args.rules), sys.stdin, sys.stdout, vs=args.vs, colour=("white", "black").index(args.colour),
         seed=args.seed)


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
    link, hello = open_link(args)
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
            print(view.describe(event), flush=True)
            if event["event"] not in ("warning",):
                state = link.state()
                print(view.draw(state), view.summary(state), sep="\n", flush=True)


@link_errors


def cmd_rules_push(args):
    t = load_tables(args.rules)
    link, _ = open_link(args)
    with link:
        reply = link.push_rules(t.blob, force=args.force)
    if args.json:
        print(json.dumps(reply))
    if not reply["ok"]:
        raise UsageError("%s: the board kept its rules: %s" % (args.port, reply["message"]))
    if not args.json:
        print("%s: now playing %s (%08x), %d bytes sent" % (args.port, t.name, t.checksum, len(t.blob)))


PLACES = {"C": "centre", "N": "N", "E": "E", "S": "S", "W": "W"}


def magnet_problems(wrong):
    """[["E", "reversed"], ...] of a dice_face event as words: 'the E magnet is reversed'."""
    said = ["the %s magnet is %s" % (PLACES.get(where, where), what) for where, what in wrong]
    if len(said) > 1:
        said[-2:] = [said[-2] + " and " + said[-1]]
    return ", ".join(said)


def describe_face(face):
    """One line for a maker about a dice_face event (doce.dice.verdict): 'white 3: right',
    or what is wrong with the face, and with any other piece it is as near to."""
    if face["face"] is None:
        return "reads as no piece at all (reads %s)" % face["read"]
    if face["ok"]:
        return "%s: right" % face["face"]
    line = "looks like %s, but %s" % (face["face"], magnet_problems(face["wrong"]))
    for other in face.get("or", ()):
        line += "; or %s, but %s" % (other["face"], magnet_problems(other["wrong"]))
    return line + " (reads %s)" % face["read"]


class DiceTally:
    """Faces judged during a dice check, by piece: the latest verdict on each."""

    def __init__(self, pieces):
        self.colours = {}
        for name in pieces:
            self.colours.setdefault(name.split()[0], []).append(name)
        self.latest = {}  # piece name -> the dice_face event (or one of its alternatives)

    def add(self, event):
        """Record a face; a wrong one as near to pieces of two colours counts for the colour
        being checked (the one with most faces seen), as the maker has that die in hand."""
        options = [o for o in [event] + event.get("or", []) if isinstance(o.get("face"), str)]
        if not options:  # face null: the reading is near no piece at all
            return None
        seen = {c: sum(name in self.latest for name in names) for c, names in self.colours.items()}
        chosen = max(options, key=lambda o: seen.get(o["face"].split()[0], 0))
        self.latest[chosen["face"]] = dict(chosen, ok=event["ok"], read=event["read"])
        return chosen["face"].split()[0]

    def complete(self, colour):
        return colour is not None and all(name in self.latest for name in self.colours.get(colour, []))

    def wrong(self):
        return [v for v in self.latest.values() if not v["ok"]]

    def summary(self, colour):
        names = self.colours.get(colour, [])
        wrong = [self.latest[n] for n in names if n in self.latest and not self.latest[n]["ok"]]
        missing = [n for n in names if n not in self.latest]
        if not wrong and not missing:
            return "%s: all %d faces and the blocker read right" % (colour, len(names) - 1)
        line = "%s: %d of %d seen" % (colour, len(names) - len(missing), len(names))
        if missing:
            line += " (not yet: %s)" % ", ".join(missing)
        if wrong:
            line += "; %d wrong: %s" % (len(wrong), "; ".join("%s (%s)" % (w["face"], magnet_problems(w["wrong"]))
                                                             for w in wrong))
        return line


@link_errors


def cmd_dice_check(args):
    link, _ = open_link(args)
    with link:
        reply = link.ask("dice_check", on=True)
        tally = DiceTally(reply["pieces"])
        if not args.json:
            print("Dice check on %s: put each face of a die on %s in turn, then its blocker. "
                  "Ctrl-C to stop." % (reply["cell"], reply["cell"]), flush=True)
        done, interrupted, colour = None, False, None
        deadline = time.monotonic() + args.wait if args.wait else None
        try:
            while done is None:
                wait = 3600 if deadline is None else deadline - time.monotonic()
                if wait <= 0:
                    break
                event = link.next_event(timeout=wait)
                if event is None:
                    continue
                if event["event"] == "dice_check" and not event.get("on"):
                    break  # someone pressed the board's button
                if event["event"] != "dice_face":
                    continue
                colour = tally.add(event)
                print(json.dumps(event) if args.json else describe_face(event), flush=True)
                if tally.complete(colour):
                    done = colour
        except KeyboardInterrupt:
            interrupted = True
        off = link.request("dice_check", on=False)
    colours = [done] if done else [c for c in tally.colours if any(n in tally.latest for n in tally.colours[c])]
    if args.json:
        wrong = [{"face": w["face"], "wrong": w["wrong"], "read": w["read"]} for w in tally.wrong()]
        print(json.dumps({"complete": done is not None, "colour": done, "wrong": wrong}))
    else:
        for c in colours:
            print(tally.summary(c))
        if off.get("leaving"):
            print("Take the die off %s: the game resumes then." % reply["cell"])
    if tally.wrong():
        return 1
    if done is None:
        return 130 if interrupted else 1
    return 0


def board_tables(args):
    """The rule tables a board plays by, checked."""
    from doce.tables import Tables
    link, _ = open_link(args)
    with link:
        blob = link.pull_rules()
    try:
        return Tables(blob)
    except ValueError as e:
        raise UsageError("%s: %s" % (args.port, e)) from None


def file_name(board_string):
    """A file name in this folder made of a name a board sent: no separator, no '..', no
    control character survives (a board naming its rules '../x' must not choose the place)."""
    import re
    return re.sub(r"[^A-Za-z0-9_-]", "_", board_string)[:64] or "rules"


@link_errors


def cmd_rules_pull(args):
    from .view import printable
    t = board_tables(args)
    blob = t.blob
    out = args.output or file_name(t.name) + ".doct"
    write_file(out, blob)
    if args.json:
        print(json.dumps({"file": out, "rules": t.name, "checksum": "%08x" % t.checksum, "size": len(blob)}))
    else:
        print("%s: %s (%08x), %d bytes" % (printable(out), printable(t.name), t.checksum, len(blob)))


@link_errors


def cmd_rules_diff(args):
    from doce.tables import PARAMS

    from .view import printable
    mine = load_tables(args.rules)
    theirs = board_tables(args)
    fields = ("name",) + tuple(p for p in PARAMS if p != "flags") + ("diagonals", "opponent_end")
    differences = {f: {"board": getattr(theirs, f), "file": getattr(mine, f)}
                   for f in fields if getattr(theirs, f) != getattr(mine, f)}
    if args.json:
        print(json.dumps({"same": theirs.blob == mine.blob, "differences": differences}))
    elif theirs.blob == mine.blob:
        print("the board plays exactly these rules (%08x)" % mine.checksum)
    else:
        for f, d in differences.items():
            print(printable("%-22s board %-14s file %s" % (f, d["board"], d["file"])))


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
    try:
        sim = SerialSim(args.folder, rules=args.rules)
    except FlashDamaged as e:
        raise UsageError(str(e)) from None
    except OSError as e:  # --folder is a file, or a place we cannot write
        raise UsageError("--folder %s: cannot keep the board's flash there (%s)"
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
                                        "it on %s (--serial-only leaves that free for other tools)." % sim.path)


@link_errors


def cmd_web(args):
    link, hello = open_link(args)  # a wrong port is one line here, not a page that never fills
    link.close()
    from .view import printable
    serve_page(args, args.port, None, "Watching %s on %s." % (printable(hello["board"]), args.port))


def serve_page(args, port, world, what):
    from .web.server import serve

    def ready(url):
        print("%s\nOpen %s in a browser to see the board. Ctrl-C stops." % (what, url), flush=True)
        if args.open and can_open_a_browser():
            import webbrowser
            webbrowser.open(url)
    try:
        serve(port, world, host=args.listen, http_port=args.http, ready=ready, timeout=getattr(args, "timeout", 3.0))
    except OSError as e:
        raise UsageError("cannot serve the page on %s:%d (%s)" % (args.listen, args.http, e.strerror)) from None


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


def add_referee(commands):
    referee = commands.add_parser("referee", help="score a recorded game",
                                  description="Score a recorded game. Prints one JSON event per line.")
    referee.add_argument("game", metavar="GAME.json", help="the recorded game, or - for stdin")
    referee.add_argument("--rules", metavar="FILE", help="rules to play by (overrides the game's \"rules\")")
    referee.set_defaults(run=cmd_referee)


def add_rules(commands):
    rules = commands.add_parser("rules", help="validate and compile rules files",
                                description="Validate and compile rules files.")
    actions = rules.add_subparsers(dest="action", required=True, metavar="ACTION")
    for add in (add_rules_validate, add_rules_compile, add_rules_push, add_rules_pull, add_rules_diff):
        add(actions)


def add_rules_validate(actions):
    validate = actions.add_parser("validate", help="check rules files", description="Check rules files.")
    validate.add_argument("rules", nargs="+", metavar="RULES", help="a shipped name or a .json file")
    validate.add_argument("--json", action="store_true", help="print JSON for scripts")
    validate.set_defaults(run=cmd_rules_validate)


def add_rules_compile(actions):
    compile_ = actions.add_parser("compile", help="compile rules into board tables",
                                  description="Compile a rules file into the tables the board plays from.")
    rules_arg(compile_)
    compile_.add_argument("-o", "--output", metavar="FILE", help="where to write (default NAME.doct)")
    compile_.add_argument("--json", action="store_true", help="print JSON for scripts")
    compile_.set_defaults(run=cmd_rules_compile)


def add_rules_push(actions):
    push = actions.add_parser("push", help="send rules to a board",
                              description="Compile rules and send them to a board. The board checks them and "
                                          "keeps its old rules if anything is wrong; it refuses mid-match.")
    rules_arg(push)
    push.add_argument("--force", action="store_true", help="change rules mid-match (abandons the match)")
    board_args(push)
    push.set_defaults(run=cmd_rules_push)


def add_rules_pull(actions):
    pull = actions.add_parser("pull", help="fetch the rule tables a board plays",
                              description="Fetch the rule tables a board plays by.")
    pull.add_argument("-o", "--output", metavar="FILE", help="where to write (default NAME.doct)")
    board_args(pull)
    pull.set_defaults(run=cmd_rules_pull)


def add_rules_diff(actions):
    diff = actions.add_parser("diff", help="compare a board's rules with a rules file",
                              description="Show how a board's rules differ from a rules file.")
    rules_arg(diff)
    board_args(diff)
    diff.set_defaults(run=cmd_rules_diff)


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
                     help="a room of N boards on an MQTT broker, each with its page (on --http, --http + 1, ...)")
    sim.add_argument("--remote", action="store_true",
                     help="two boards paired for a match through a broker, each with its page (docs/remote.md)")
    sim.add_argument("--broker", metavar="mqtt[s]://HOST:PORT",
                     help="the room's broker (with --boards or --remote, default: an embedded one); alone, one "
                          "board and its page join the room on it")
    sim.add_argument("--ca", metavar="FILE", help="with an mqtts:// broker: the room's CA (ca.crt)")
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


def add_dice(commands):
    dice = commands.add_parser("dice", help="check dice on a board", description="Check dice on a board.")
    actions = dice.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser("check", help="check each face of a die against the die code",
                               description="Put the board in its dice check: put each face of one die, then its "
                                           "blocker, on the centre square in turn. Prints what each face reads "
                                           "as, naming any magnet reversed, missing, extra or weak, and a summary "
                                           "once all seven are seen. Exits 0 if all were right, 1 if any was "
                                           "wrong. The game waits meanwhile and resumes as it was.")
    board_args(check)
    check.add_argument("--wait", type=seconds, metavar="S", help="stop after S seconds (default: until done or Ctrl-C)")
    check.set_defaults(run=cmd_dice_check)


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


def parser():
    from .fleet.commands import add_config, add_fleet
    from .fleet.remote import add_remote
    top = argparse.ArgumentParser(prog="doce", description="Tools for the electronic DOCE board.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (add_referee, add_rules, add_flash, add_play_board, add_status, add_monitor, add_sim, add_web,
                add_snapshot, add_dice, add_play, add_config, add_fleet, add_remote):
        add(commands)
    return top


def interrupted(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    args = parser().parse_args(argv)
    if argv is None:  # the doce command itself: `kill` ends it as Ctrl-C does, its boards and pages with it
        signal.signal(signal.SIGTERM, interrupted)
    try:
        code = args.run(args)
    except UsageError as e:
        print("doce: %s" % printable(e), file=sys.stderr)  # it may quote a board, a file or a broker
        return 2
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        return 130
    return code or 0


if __name__ == "__main__":
    sys.exit(main())
