"""Play on the simulated board at a terminal: you are the hands, the firmware referees.

Every command moves dice in the simulated world; what you see is what a player would:
the dice, and the lights as the strip received them, and the board's events as they go
by on its serial line. That line stays free for doce monitor, doce status or mpremote.
"""

import json
import time

from doce.lights import BLUE, PURPLE, VERMILLION, YELLOW
from doce.squares import square_name

from ..paths import BOARD_FILE
from . import SimError
from ..view import describe

HELP = """Put a die down: "c3 w4" (white, 4 up), "c3 b2" (black, 2 up), "c3 wx" or "c3 bx"
(white's or black's blocker). "lift c3", "slide c3 d4", "wait 500" (ms), "cut" (the power
fails, then returns), "press" (the board's button; "press 3000" holds it 3 s), "help", "quit".
a1 is white's left corner. After a match, press for the next; before its first piece, press to
see who plays and again to choose; during a match, press for a hint (docs/opponent.md).
The board: W4 a white die showing 4, B2 a black 2, #W #B the blockers, . an empty square; each
square's light is its background colour (without colours, a letter after it: y yellow, b blue,
p purple, r red)."""

NAMES = {YELLOW: "yellow", BLUE: "blue", PURPLE: "purple", VERMILLION: "red"}
_SPEC = json.loads(BOARD_FILE.read_text())
LED_OF = _SPEC["leds"]["squares"]
GRID = _SPEC["grid"]
DICE = set(_SPEC["dice"].values())  # the pieces the board's die code reads: what a hand can put down
TURN = _SPEC["leds"]["turn"]


def colour_of(rgb):
    """The palette colour an LED shows, by hue: what a player would call it."""
    if max(rgb) == 0:
        return None
    return min(NAMES, key=lambda ref: sum((a - b * max(rgb) / max(ref)) ** 2 for a, b in zip(rgb, ref)))


def cell_text(piece):
    if piece is None:
        return " . "
    colour, what = piece.split()
    return " #" + colour[0].upper() if what == "blocker" else " %s%s" % (colour[0].upper(), what)


def draw(sim, leds, ansi):
    rows = []
    for row in range(GRID, 0, -1):
        cells = []
        for col in range(GRID):
            cell = square_name(GRID, (row - 1) * GRID + col)
            text = cell_text(sim.pieces.get(cell, (None,))[0]).ljust(4)
            ref = colour_of(leds[LED_OF[cell]])
            if ansi and ref:
                text = "\x1b[48;2;%d;%d;%dm\x1b[30m%s\x1b[0m" % (*ref, text)
            elif ref:
                text = text[:3] + NAMES[ref][0]
            cells.append(text)
        rows.append("%d %s" % (row, "".join(cells)))
    rows.append("   " + "   ".join(square_name(GRID, col)[0] for col in range(GRID)))
    return "\n".join(rows)


def status(leds, scores):
    """What the edge lights and the round ends so far say."""
    white_edge, black_edge = colour_of(leds[TURN["white"][0]]), colour_of(leds[TURN["black"][0]])
    text = "white %d : %d black" % (scores["white"], scores["black"])
    if VERMILLION in (white_edge, black_edge):
        return text + "   put the board right"
    mover = "white" if white_edge == YELLOW else "black" if black_edge == BLUE else None
    return text + ("   %s to move" % mover if mover else "")


def act(sim, words):
    """Do one typed command to the world. Returns an error text or None."""
    if words[0] == "lift" and len(words) == 2:
        sim.lift(words[1])
    elif words[0] == "slide" and len(words) == 3:
        sim.slide(words[1], words[2])
    elif words[0] == "wait" and len(words) == 2 and words[1].isdigit():
        time.sleep(int(words[1]) / 1000)
    elif words[0] == "press" and (len(words) == 1 or len(words) == 2 and held_ms(words[1])):
        sim.press(int(words[1]) / 1000 if len(words) == 2 else 0.1)
        time.sleep(0.6)  # a second press may follow within 0.5 s: only then does the board act
    elif words == ["cut"]:
        sim.cut_power()
        time.sleep(0.3)
        sim.power_on()
    elif len(words) == 2 and typed_piece(words[1]):
        if words[0] in sim.pieces:
            return "there is a die on %s already: lift it first" % words[0]
        sim.place(words[0], typed_piece(words[1]))
    elif len(words) == 2:
        return 'type a square and a die, like "c3 w4"'
    else:
        return "unknown command; type help"
    return None


def held_ms(word):
    """How long "press N" holds the button: N ms, up to 10 s; None for anything else."""
    return int(word) if word.isascii() and word.isdigit() and 0 < int(word) <= 10000 else None


def typed_piece(short):
    """'w4' -> 'white 4', 'bx' -> 'black blocker': a piece of this board's dice, or None."""
    colour = {"w": "white ", "b": "black "}.get(short[:1])
    name = colour and colour + ("blocker" if short[1:] == "x" else short[1:])
    return name if name in DICE else None


def settle(sim, answer_within=0.3, quiet=0.1, longest=2.0, reading=15.0):
    """Wait until the board has answered a move: it has read the dice where the hands left them
    and said all it has to say (at most `reading` s: a busy computer can hold the board back for
    a while), then its lights and events stop changing (`quiet` s after a change), or nothing
    has changed `answer_within` s on."""
    end = time.monotonic() + reading
    while not sim.caught_up() and time.monotonic() < end:
        time.sleep(0.02)
    start = last_change = time.monotonic()
    seen, changed = (sim.leds(), len(sim.heard)), False
    while time.monotonic() - start < longest:
        time.sleep(0.02)
        now = (sim.leds(), len(sim.heard))
        if now != seen:
            seen, changed, last_change = now, True, time.monotonic()
        elif time.monotonic() - last_change >= (quiet if changed else answer_within):
            return


def ready(sim, longest=10.0):
    """Wait until the board is ready for a die: a new board calibrates itself at its first
    empty board before its round starts (firmware/doce/app.py), a few hundred scans after boot.
    Ready once a round has started, or the board is in any mode but waiting for an empty board,
    or has pieces on it to clear first."""
    end = time.monotonic() + longest
    while time.monotonic() < end:
        if any(e.get("event") == "round_start" for e in sim.heard):
            return
        state = sim.state()
        if state["mode"] != "clearing" or state["board"] or state["seen"]:
            return
        time.sleep(0.05)


def play(sim, stdin, out, ansi=False, prompt=None):
    """`prompt`: ask for each command with a prompt (default: when `stdin` is a terminal)."""
    scores = {"white": 0, "black": 0}
    if prompt is None:
        prompt = getattr(stdin, "isatty", lambda: False)()
    lines = iter(stdin)

    def say(*lines):
        print(*[line for line in lines if line], sep="\n", file=out, flush=True)

    def show():
        settle(sim)
        heard = sim.take_events()
        for event in heard:
            if event["event"] == "round_end":
                for p in scores:
                    scores[p] += event["points"][p]
            elif event["event"] == "new_match":
                scores.update(white=0, black=0)
        leds = sim.leds()
        state = sim.state() if any(e["event"] == "illegal" for e in heard) else None  # what was refused
        say(*[describe(e, state) for e in heard if e["event"] != "boot"], draw(sim, leds, ansi), status(leds, scores))

    say("The DOCE board, simulated: its real firmware on simulated sensors and lights.",
        "Its USB serial port is %s (for doce monitor, doce status, mpremote)." % sim.path, HELP, "")
    ready(sim)
    show()
    while True:
        if prompt:
            out.write('your hands (like "c3 w4", "lift c3", "press"; help, quit)> ')
            out.flush()
        line = next(lines, None)
        if line is None:
            break
        words = line.lower().split()
        if not words:
            continue
        if words[0] in ("quit", "exit", "q"):
            break
        if words[0] == "help":
            say(HELP)
            continue
        try:
            problem = act(sim, words)
        except (ValueError, SimError) as e:  # a bad square name, for one: say so, and carry on
            problem = str(e)
        if problem:
            say(problem)
            continue
        show()
