"""Play on the simulated board at a terminal: you are the hands, the firmware referees.

Every command moves dice in the simulated world; what you see is what the firmware
made of it: the lights as the strip received them, and the events it reported.
"""

from doce.lights import BLUE, PURPLE, VERMILLION, YELLOW

HELP = """Put a die down: "c3 w4" (white, 4 up), "c3 b2" (black, 2 up), "c3 x" (the mover's
blocker; "c3 wx" or "c3 bx" for a given player's).
"lift c3", "slide c3 d4", "turn c3 5", "wait 500" (ms), "cut" (the power fails, then
returns), "new" (a new match), "help", "quit". a1 is white's left corner."""

NAMES = {YELLOW: "yellow", BLUE: "blue", PURPLE: "purple", VERMILLION: "red"}


def describe(rgb):
    """The palette colour an LED shows, by hue: what a player would call it."""
    if max(rgb) == 0:
        return None
    return min(NAMES, key=lambda ref: sum((a - b * max(rgb) / max(ref)) ** 2 for a, b in zip(rgb, ref)))


def cell_text(piece):
    if piece is None:
        return " . "
    if piece.endswith("blocker"):
        return " #" + piece[0].upper()
    colour, face = piece.split()
    return " %s%s" % (colour[0].upper(), face)


def draw(sim, ansi):
    leds = sim.leds()
    rows = []
    for row in range(5, 0, -1):
        cells = []
        for col in "abcde":
            cell = col + str(row)
            text = cell_text(sim.pieces.get(cell, (None,))[0]).ljust(4)
            ref = describe(leds[sim.led(cell)])
            if ansi and ref:
                text = "\x1b[48;2;%d;%d;%dm\x1b[30m%s\x1b[0m" % (*ref, text)
            elif ref:
                text = text[:3] + NAMES[ref][0]
            cells.append(text)
        rows.append("%d %s" % (row, "".join(cells)))
    rows.append("   a   b   c   d   e")
    return "\n".join(rows)


def status(sim):
    s = sim.state()
    totals = [sum(p[i] for p in s["scores"]) for i in (0, 1)]
    line = "Round %d  white %d : %d black  %s" % (s["round"], totals[0], totals[1], {
        "playing": "%s to move" % s["to_move"], "correcting": "put the board right",
        "clearing": "clear the board", "match_over": "match over: press new"}[s["mode"]])
    if s["problems"]:
        line += "  problems: " + ", ".join("%s %s" % kv for kv in sorted(s["problems"].items()))
    return line


def tell(event):
    kind = event["event"]
    if kind == "placed":
        what = "the blocker" if event.get("blocker") else "a %d" % event["value"]
        return "%s put %s on %s" % (event["player"], what, event["cell"])
    if kind == "illegal":
        return "not allowed (%s): %s" % (event["reason"].replace("_", " "), " ".join(event["cells"]))
    if kind == "round_end":
        return "round %d: %s (%s), points white %d, black %d" % (
            event["round"], event["result"], event["reason"].replace("_", " "),
            event["points"]["white"], event["points"]["black"])
    if kind == "match_end":
        m = event["match"]
        return "match over: white %d, black %d, %s" % (m["white"], m["black"], m["winner"])
    if kind in ("boot", "round_start", "corrected", "new_match"):
        return {"boot": "the board starts", "corrected": "the board matches the game again",
                "new_match": "new match", "round_start": "round %s begins" % event.get("round")}[kind]
    return str(event)


def act(sim, words):
    """Do one typed command to the world. Returns an error text or None."""
    if words[0] == "lift" and len(words) == 2:
        sim.lift(words[1])
    elif words[0] == "slide" and len(words) == 3:
        sim.slide(words[1], words[2])
    elif words[0] == "turn" and len(words) == 3 and words[2].isdigit():
        sim.turn(words[1], int(words[2]))
    elif words[0] == "wait" and len(words) == 2 and words[1].isdigit():
        sim.wait(int(words[1]))
    elif words == ["cut"]:
        sim.restart()
        sim.settle()
    elif words == ["new"]:
        sim.command(do="new_match", first="white")
        sim.settle()
    elif len(words) == 2 and len(words[1]) in (1, 2):
        piece = {"w": "white", "b": "black"}.get(words[1][0])
        if words[1] == "x":
            piece = sim.state()["to_move"] + " blocker"
        elif piece and len(words[1]) == 2 and words[1][1] in "123456x":
            piece += " blocker" if words[1][1] == "x" else " " + words[1][1]
        else:
            return "type a square and a die, like \"c3 w4\""
        if words[0] in sim.pieces:
            return "there is a die on %s already: lift it first" % words[0]
        sim.place(words[0], piece)
    else:
        return "unknown command; type help"
    return None


def play(sim, stdin, out, ansi=False):
    def say(*lines):
        print(*lines, sep="\n", file=out, flush=True)
    sim.settle()
    say("The DOCE board, simulated: the real firmware on simulated sensors and lights.", HELP, "")
    say(*[tell(e) for e in sim.take_events()], draw(sim, ansi), status(sim))
    for line in stdin:
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
        except Exception as e:  # a bad square name, for one: tell, and carry on
            problem = str(e)
        if problem:
            say(problem)
            continue
        sim.wait(300)  # let blinking and pulsing lights show a frame
        say(*[tell(e) for e in sim.take_events()], draw(sim, ansi), status(sim))
