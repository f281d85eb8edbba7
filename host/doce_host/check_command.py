"""`doce check board --port P`: the assembled board checked part by part, on the board itself
(firmware/doce/bringup.py measures, board_check.py judges), in the order a maker meets them:
the sensors and multiplexers on the empty board, a die on one square for the select lines, the
button, the LED walk, the flash file system, and Wi-Fi and the broker when set up.

The maker's part (take the dice off, put one on b2, press the button, say where each LED lit) is a
`Maker`: at a terminal, `TerminalMaker` asks; a test hands in one that does it on a simulated board.
"""

import json
import sys
import time

from .board_check import DIE_SQUARE, judge, judge_button, judge_leds, led_places
from .commandline import UsageError, board_args, link_errors, open_link
from .files import FileError, check_writable
from .paths import BOARD_FILE
from .view import printable

BUTTON_WAIT_S = 15.0  # for the maker's press
CLEAR_WAIT_S = 5.0  # for the board to read the dice gone, once the maker says they are
SENSORS_TIMEOUT_S = 60.0  # the sensors step: under a second on a board, longer on a loaded simulator


class Maker:
    """The person at the board. Each method returns once they have done it."""

    def clear_board(self, squares):
        """Take every die off the board (the board reads some on `squares`)."""

    def put_die(self, square):
        """Put any die on `square`."""

    def take_die(self, square):
        """Take it off again."""

    def press_button(self):
        """Press the board's button once (the check watches for it)."""

    def where_lit(self, led, expected):
        """LED `led` of the chain is lit alone, meant for place `expected` ('c3', 'white c'): the place
        it lit, or None if none did."""
        return expected

    def any_lit(self):
        """Whether any LED is lit now."""
        return True


class TerminalMaker(Maker):
    def __init__(self, out=sys.stdout, ask=input):
        self.out, self.ask = out, ask

    def _say(self, text):
        print(text, file=self.out, flush=True)

    def _wait(self, text):
        self._say(text)
        try:
            return self.ask().strip().lower()
        except EOFError:
            raise UsageError("the check needs answers at the terminal (or --no-die --no-leds --no-button)") from None

    def clear_board(self, squares):
        try:
            self._wait("Take every die off the board (it reads dice on %s), then press Enter." % ", ".join(squares))
        except UsageError:  # no one to answer: the flags cannot help here, an empty board can
            raise UsageError("the board reads dice (or something like one) on %s: take them off and check again"
                             % ", ".join(squares)) from None

    def put_die(self, square):
        self._wait("Put any die on %s (any face up), then press Enter." % square)

    def take_die(self, square):
        self._wait("Take the die off %s, then press Enter." % square)

    def press_button(self):
        self._say("Press the board's button once, now.")

    def where_lit(self, led, expected):
        answer = self._wait("%s lights alone: Enter if it lit %s; else where it lit (a square like b2, an edge "
                            "light like 'white c'), or 'none'." % (led, expected))
        if answer == "":
            return expected
        return None if answer in ("none", "no", "n", "0", "-") else answer

    def any_lit(self):
        return self._wait("Every LED from there on is lit, dim: does any light? [y/n]") in ("y", "yes")


def dice_on(link):
    """The squares where the board reads a die (or anything)."""
    state = link.state()
    return sorted(sq for sq, piece in dict(state["board"], **state["seen"]).items() if piece)


def walk_leds(link, spec, circuit, maker):
    """Each LED lit alone in chain order, the maker saying where; at the first dark one, all from
    it on lit, to tell a broken chain from one dead LED. Faults, by board_check.judge_leds."""
    places = led_places(spec)
    seen, dark_onwards = {}, None
    for i in range(spec["leds"]["count"]):
        link.ask("board_check", step="led", index=i)
        place = maker.where_lit(circuit.led(i), places[i])
        seen[i] = place if place is None else str(place)
        if place is None:
            link.ask("board_check", step="led", index=i, **{"from": True})
            dark_onwards = not maker.any_lit()
            if dark_onwards:
                break
    return judge_leds(spec, circuit, seen, dark_onwards)


def check_button(link, spec, circuit, maker, wait=BUTTON_WAIT_S):
    at_rest = check_shape(spec, "button", link.ask("board_check", step="button"))["down"]
    pressed = released = False
    if not at_rest:
        maker.press_button()
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and not (pressed and released):
            state = check_shape(spec, "button", link.ask("board_check", step="button"))
            pressed |= state["pressed"]
            released |= state["released"] and pressed
            time.sleep(0.05)
    return judge_button(spec, circuit, at_rest, pressed and released)


def not_understood(what):
    return UsageError("the board's check answered something this doce does not understand (%s)" % what)


def check_shape(spec, step, reply):
    """A board_check reply with what this doce reads from it, sized for its board file (the protocol's
    schema holds the types; the lengths follow board.json), else UsageError in one line."""
    s = spec["sensing"]
    channels = s["groups"] * s["channels_per_group"]
    if step == "start":
        if (reply.get("groups"), reply.get("per_group")) != (s["groups"], s["channels_per_group"]):
            raise not_understood("the board reads %s groups of %s inputs, this doce's board.json %d of %d: install "
                                 "its firmware from this doce (doce flash --app-only)" % (
                                     reply.get("groups"), reply.get("per_group"), s["groups"],
                                     s["channels_per_group"]))
        return reply
    fields = {"sensors": ("means", "ranges", "after_low", "after_high", "low", "high", "off", "reads"),
              "read": ("means",), "button": ("down", "pressed", "released")}[step]
    for field in fields:
        if field not in reply:
            raise not_understood("no %s in its %s step" % (field, step))
    for field in ("means", "ranges", "after_low", "after_high"):
        if field in fields and len(reply[field]) != channels:
            raise not_understood("%s: %d readings expected, got %d" % (field, channels, len(reply[field])))
    if step == "sensors":
        if len(reply["off"]) != 2:
            raise not_understood("off: 2 readings expected, got %d" % len(reply["off"]))
        for field in ("low", "high"):
            if not reply[field][0] < channels:
                raise not_understood("%s: input %d of %d" % (field, reply[field][0], channels))
        if reply["reads"] < 1:
            raise not_understood("reads: %d" % reply["reads"])
    return reply


def run(link, spec, circuit, maker, die=True, leds=True, button=True, timeout=SENSORS_TIMEOUT_S):
    """The whole check on the board at `link`: {"faults": [Fault], "notes": [...], "storage": ..., "network": ...}."""
    from .board_check import Fault
    notes = []
    dice = dice_on(link)  # the sensors are checked on an empty board
    if dice:
        maker.clear_board(dice)
        deadline = time.monotonic() + CLEAR_WAIT_S
        while dice and time.monotonic() < deadline:
            time.sleep(0.1)
            dice = dice_on(link)
        if dice:  # a faulty sensor reads like a magnet: the check says which
            notes.append("the board read something on %s with the dice off: the faults above say why"
                         % ", ".join(dice))
    try:
        check_shape(spec, "start", link.ask("board_check", step="start"))
        sensors = link.request("board_check", step="sensors", timeout=timeout)
        if not sensors.get("ok"):
            raise UsageError("the board check's sensor step failed: %s" % sensors.get("message"))
        check_shape(spec, "sensors", sensors)
        reading = None
        if die:
            maker.put_die(DIE_SQUARE)
            reading = (DIE_SQUARE, check_shape(spec, "read", link.ask("board_check", step="read",
                                                                       timeout=timeout))["means"])
            maker.take_die(DIE_SQUARE)
        faults, judged = judge(spec, circuit, sensors, reading)
        notes = judged + notes
        if button:
            faults += check_button(link, spec, circuit, maker)
        if leds:
            faults += walk_leds(link, spec, circuit, maker)
        storage = link.ask("board_check", step="storage")
        if storage.get("storage_error"):
            faults.append(Fault("storage", circuit.devkit(), "flash: %s" % printable(storage["storage_error"]),
                                "install the firmware again (doce flash), which formats the file system"))
        network = link.ask("board_check", step="network")
        if network.get("set_up") and not network.get("wifi"):
            faults.append(Fault("wifi", circuit.devkit(), "is not on the Wi-Fi: %s" % printable(
                network.get("fault") or "it has not joined yet"), "check the name and password (doce config wifi)"))
        elif network.get("set_up") and not network.get("broker"):
            faults.append(Fault("broker", circuit.devkit(), "is on the Wi-Fi but not on the broker: %s" % printable(
                network.get("fault") or "not connected yet"), "check the broker's address and port (doce config mqtt)"))
    finally:
        link.request("board_check", step="end")
    return {"faults": faults, "notes": notes, "storage": storage, "network": network}


@link_errors
def cmd_check_board(args):
    from . import board_picture, circuit
    spec = json.loads(BOARD_FILE.read_text())
    for path in (args.svg, args.png):  # before the maker's part, not after it
        if path:
            try:
                check_writable(path, "the picture")
            except FileError as e:
                raise UsageError(str(e)) from None
    maker = TerminalMaker(out=sys.stderr if args.json else sys.stdout)
    link, _ = open_link(args)
    with link:
        result = run(link, spec, circuit.load(), maker, die=not args.no_die, leds=not args.no_leds,
                     button=not args.no_button, timeout=max(args.timeout, SENSORS_TIMEOUT_S))
    faults = result["faults"]
    show(result, args.json)
    if args.svg or args.png:  # after the faults are shown: a file that fails does not lose them
        centres = {sq: circuit.load().sensor(chs[0]) for sq, chs in spec["squares"].items()}
        svg = board_picture.draw(faults, squares=centres)
        try:
            if args.png:
                board_picture.write_png(svg, args.png)
            if args.svg:
                with open(args.svg, "w", encoding="utf-8") as f:
                    f.write(svg)
        except OSError as e:
            raise UsageError("%s: cannot write the picture (%s)" % (args.png or args.svg, e.strerror or e)) from None
    return 1 if faults else 0


def show(result, as_json):
    faults = result["faults"]
    if as_json:
        print(json.dumps({"faults": [f.as_json() for f in faults], "notes": result["notes"],
                          "storage": {k: v for k, v in result["storage"].items() if k not in ("re", "id", "ok")},
                          "network": {k: v for k, v in result["network"].items() if k not in ("re", "id", "ok")}}))
    else:
        for fault in faults:
            print(fault.line())
        for note in result["notes"]:
            print("Note: " + note)
        print("Board check: %s." % ("%d faults" % len(faults) if faults else "no fault found"))


def add_check(commands):
    check = commands.add_parser("check", help="check an assembled board", description="Check an assembled board.")
    what = check.add_subparsers(dest="what", required=True, metavar="WHAT")
    board = what.add_parser(
        "board", help="test every part of the board, on the board, and name each faulty one",
        description="Test the assembled board on the board itself: every sensor's quiescent reading, each group "
                    "and multiplexer, the select lines, the button, each LED in turn, the flash file system, and "
                    "Wi-Fi and the broker if set up. Prints one line per faulty part, named by its designator on "
                    "the PCB, with what to check; exits 1 if any. It asks you to take the dice off, put one die on "
                    "%s, press the button and say where each LED lit." % DIE_SQUARE)
    board_args(board)
    board.add_argument("--svg", metavar="FILE", help="also draw the board with the faulty parts marked (SVG)")
    board.add_argument("--png", metavar="FILE", help="... as PNG (needs the cairo library)")
    board.add_argument("--no-die", action="store_true", help="skip the die on %s (two select-line swaps then go "
                                                             "unseen)" % DIE_SQUARE)
    board.add_argument("--no-leds", action="store_true", help="skip the LED walk")
    board.add_argument("--no-button", action="store_true", help="skip the button")
    board.set_defaults(run=cmd_check_board)
