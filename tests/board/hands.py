"""What a player's eyes and hands do at the board, and what a host says to it over USB, for
the board tests."""

import json

from casebook import piece_of
from doce.lights import BLUE, PURPLE, VERMILLION, YELLOW

NAMED = {"yellow": YELLOW, "blue": BLUE, "purple": PURPLE, "vermillion": VERMILLION}


def looks(rgb):
    """What a player would call this light: off, or the nearest palette colour by hue."""
    if max(rgb) == 0:
        return "off"

    def distance(name):
        ref = NAMED[name]
        scale = max(rgb) / max(ref)
        return sum((a - b * scale) ** 2 for a, b in zip(rgb, ref))
    return min(NAMED, key=distance)


def ask(sim, cmd, **args):
    """Send one request over the simulated USB port; return the board's one reply to it."""
    args["cmd"] = cmd
    replies = sim.command(do="send", line=json.dumps(args) + "\n").get("link", [])
    assert len(replies) == 1, replies
    return replies[0]


def ask_later(sim, cmd, limit=20000, **args):
    """A request whose reply comes in a later scan (hint): (the reply, scans it took)."""
    args["cmd"] = cmd
    replies = sim.command(do="send", line=json.dumps(args) + "\n").get("link", [])
    scans = 1
    while not replies:
        assert scans < limit, "no reply to %s in %d scans" % (cmd, limit)
        replies = sim.run(10).get("link", [])
        scans += 10
    assert len(replies) == 1, replies
    return replies[0], scans


def send_raw(sim, data):
    """Bytes as they come down the cable; the board's replies to them."""
    return sim.command(do="send", hex=data.hex()).get("link", [])


def light(sim, cell):
    return sim.leds()[sim.led(cell)]


def blink(sim, cell, ms=800):
    """What the light under `cell` shows over `ms`, looked at every 20 ms, as a set of names."""
    seen = set()
    for _ in range(ms // 20):
        sim.wait(0.02)
        seen.add(looks(light(sim, cell)))
    return seen


def events(sim, kind=None):
    """The events since last asked (of one kind, if given), without their sequence numbers."""
    taken = sim.take_events()
    for e in taken:
        e.pop("seq", None)
    return [e for e in taken if kind is None or e["event"] == kind]


def play(sim, moves):
    """Put each recorded move's piece on the board, as a player would."""
    for m in moves:
        sim.place(m["cell"], piece_of(m))
