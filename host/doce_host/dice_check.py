"""`doce dice check`: a maker checks each face of a die against the die code, on a board.
cli.py hands it its parser."""

import json
import time

from .commandline import board_args, link_errors, open_link, seconds
from .paths import BOARD_FILE


PLACES = {"C": "centre", "N": "N", "E": "E", "S": "S", "W": "W"}


def magnet_problems(wrong):
    """[["E", "reversed"], ...] of a dice_face event as words: 'the E magnet is reversed'."""
    said = ["the %s magnet is %s" % (PLACES.get(where, where), what) for where, what in wrong]
    if len(said) > 1:
        said[-2:] = [said[-2] + " and " + said[-1]]
    return ", ".join(said)


def mirror_of(name, mirrors):
    """The piece a face read as `name` would be if its die were glued mirror-wise, or None."""
    return next((b if a == name else a for a, b in mirrors if name in (a, b)), None)


def describe_face(face, mirrors=()):
    """One line for a maker about a dice_face event (doce.dice.verdict): 'white 3: right',
    or what is wrong with the face, and with any other piece it is as near to. A face of a
    mirror pair (mirror_pairs) asks the maker to look at the face up."""
    if face["face"] is None:
        return "reads as no piece at all (reads %s)" % face["read"]
    if face["ok"]:
        other = mirror_of(face["face"], mirrors)
        if other:
            return "%s: right if its %s is up (if its %s is, the die is glued mirror-wise)" % (
                face["face"], face["face"].split()[1], other.split()[1])
        return "%s: right" % face["face"]
    line = "looks like %s, but %s" % (face["face"], magnet_problems(face["wrong"]))
    for other in face.get("or", ()):
        line += "; or %s, but %s" % (other["face"], magnet_problems(other["wrong"]))
    return line + " (reads %s)" % face["read"]


def mirror_pairs(dice):
    """[(piece, piece)] whose codes in the die table `dice` are each other's mirror images
    (E and W swapped: a face read from inside the die). A die glued mirror-wise reads each
    such pair swapped, and reads right: only the face up tells."""
    turns = {name: {code[0] + code[1:][t:] + code[1:][:t] for t in range(4)} for code, name in dice.items()}
    pairs = []
    for code, name in dice.items():
        mirrored = code[0] + code[1] + code[4] + code[3] + code[2]
        pairs += [(name, other) for other, codes in turns.items() if other != name and mirrored in codes
                  and (other, name) not in pairs]
    return pairs


class DiceTally:
    """Faces judged during a dice check, by piece: the latest verdict on each."""

    def __init__(self, pieces, mirrors=(), turned=()):
        """`turned`: the kinds of die ('white blocker') whose faces the dice sheet turns by a rule
        (board.json physics.magnet.toward), which a face read on its own cannot show."""
        self.mirrors = [pair for pair in mirrors if all(name in pieces for name in pair)]
        self.turned = set(turned)
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
            line = "%s: all %d faces and the blocker read right" % (colour, len(names) - 1)
            for a, b in (pair for pair in self.mirrors if pair[0] in names):
                line += ("\nCheck that %s was named with its %s up and %s with its %s up: a die glued "
                         "mirror-wise reads those two swapped" % (a, a.split()[1], b, b.split()[1]))
            kinds = [k if " " in k else k + " die" for k in sorted(self.turned) if k.split()[0] == colour]
            if kinds:
                line += ("\nCheck that every face of the %s is turned as hardware/dice/faces.svg says (its N to the "
                         "face named under it): a face read alone cannot show it, and turned otherwise a die "
                         "may read unsettled in its well" % " and of the ".join(kinds))
            return line
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
        spec = json.loads(BOARD_FILE.read_text())
        mirrors = mirror_pairs(spec["dice"])
        tally = DiceTally(reply["pieces"], mirrors, spec["physics"]["magnet"].get("toward", {}))
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
                other = event.get("ok") and mirror_of(event["face"], mirrors)
                if args.json and other:
                    event = dict(event, mirror_of=other)
                print(json.dumps(event) if args.json else describe_face(event, mirrors), flush=True)
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
    from .magnets import add_magnets
    add_magnets(actions, board_args, seconds)
