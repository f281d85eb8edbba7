"""`doce dice magnets`: each magnet checked alone, before it is glued (issue 40).

The maker drops magnets one at a time into the printed cup on the dice check's square. The
board's check mode reads every input's mean of 32 reads (its `read` step: firmware/doce/
bringup.py); the centre sensor's, less the empty cup's, at the board file's gain (the median
empty sensor over sensing.baseline, as calibration.scaled scales), is the magnet's level.
Each magnet is compared with the median of its batch read the same face down, and refused
under sensing.magnet_check.keep_percent of it (doce_host/physics/magnet_check.py searches
that line). cli.py hands it its parser (dice_check.add_dice)."""

import json
import time

from .check_command import check_shape
from .commandline import UsageError, link_errors, open_link
from .paths import BOARD_FILE

POLL_S = 0.1  # between reads (a read takes about 0.15 s on the board: 128 inputs x 32 reads)
STEADY = 3  # reads in a row within 1 % (and a quarter of the least level seen) of each other
FACES = {1: "N face up", -1: "N face down"}  # the DRV5055 reads a south pole's field as positive (readout.py)


class Batch:
    """Magnets read so far, and what each is worth against its batch (pure: no board)."""

    def __init__(self, check):
        """`check`: board.json sensing.magnet_check."""
        self.keep = check["keep_percent"]
        self.judge_from = check["judge_from"]
        self.low, self.high = check["level_range"]
        self.levels = []  # counts at the board file's gain, signed

    def face(self, i):
        return 1 if self.levels[i] > 0 else -1

    def same_face(self, i):
        return [abs(v) for v in self.levels if (v > 0) == (self.levels[i] > 0)]

    def median(self, i):
        """The median level of the magnets read the same face down as magnet i."""
        values = sorted(self.same_face(i))
        n = len(values)
        return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2

    def percent(self, i):
        return 100 * abs(self.levels[i]) / self.median(i)

    def kept(self, i):
        return self.percent(i) >= self.keep

    def line(self, i):
        """One line for magnet i, judged against its batch as it stands."""
        head = "magnet %d: %d counts, %s" % (i + 1, abs(self.levels[i]), FACES[self.face(i)])
        if len(self.same_face(i)) < self.judge_from:
            return head + " (judged once %d are in this face down)" % self.judge_from
        if self.kept(i):
            return head + ": keep (%.0f %% of the batch)" % self.percent(i)
        return head + ": refuse: weak, %.0f %% of the batch" % self.percent(i)

    def add(self, level):
        """A new magnet's level: the lines to print (every magnet of its face at once when the
        batch reaches judge_from)."""
        self.levels.append(level)
        i = len(self.levels) - 1
        if len(self.same_face(i)) == self.judge_from:
            return [self.line(j) for j in range(len(self.levels)) if self.face(j) == self.face(i)]
        return [self.line(i)]

    def refused(self):
        """The magnets refused against their batch's final median (numbered from 1)."""
        return [i + 1 for i in range(len(self.levels))
                if len(self.same_face(i)) >= self.judge_from and not self.kept(i)]

    def summary(self):
        """(lines, all right): each face's batch, what was refused, and whether its median is a
        right magnet's on this board at all (a batch all weak, or of another size, is named)."""
        lines, right = [], bool(self.levels)
        for sign, name in FACES.items():
            ones = [i for i in range(len(self.levels)) if self.face(i) == sign]
            if not ones:
                continue
            median = self.median(ones[0])
            line = "%s: %d magnets, median %d counts" % (name, len(ones), median)
            if len(ones) < self.judge_from:
                line += ": too few to judge (%d needed)" % self.judge_from
                right = False
            else:
                refused = [i + 1 for i in ones if not self.kept(i)]
                line += ": refuse %s" % ", ".join("magnet %d" % n for n in refused) if refused else ": all kept"
                right = right and not refused
            if not self.low <= median <= self.high:
                line += ("\n  the median is %s any right magnet's on this board (%d to %d counts): the whole batch "
                         "is %s" % ("under" if median < self.low else "over", self.low, self.high,
                                    "weak, or smaller than 3.175 x 1.5875 mm" if median < self.low
                                    else "stronger or larger than 3.175 x 1.5875 mm"))
                right = False
            lines.append(line)
        return lines, right


class Cup:
    """The centre sensor of the check square, read through the board check's `read` step."""

    def __init__(self, link, spec, timeout):
        self.link, self.spec, self.timeout = link, spec, timeout
        g = spec["grid"]
        self.cell = chr(97 + g // 2) + str(g // 2 + 1)  # the dice check's square (doce/dice.py), c3 on 5x5
        self.channel = spec["squares"][self.cell][0]
        sensors = sorted({ch for chs in spec["squares"].values() for ch in chs})
        self.empty = self.means()
        self.gain = sorted(self.empty[ch] for ch in sensors)[len(sensors) // 2] / spec["sensing"]["baseline"]
        if not 0.5 < self.gain < 2:  # calibration.py refuses such a board too
            raise UsageError("the board's empty sensors read %d counts, not near %d: is it a DOCE board?"
                             % (self.gain * spec["sensing"]["baseline"], spec["sensing"]["baseline"]))

    def means(self):
        return check_shape(self.spec, "read", self.link.ask("board_check", step="read", timeout=self.timeout))["means"]

    def level(self):
        """The centre sensor's level now, counts from the empty cup at the board file's gain."""
        return (self.means()[self.channel] - self.empty[self.channel]) / self.gain


def magnets(cup, batch, say, count=None, deadline=None):
    """Read magnets as the maker drops them in and takes them out, until `count` are read or
    `deadline` (time.monotonic) passes; a magnet is read once STEADY reads in a row agree (a
    hand still lowering it moves the level by more)."""
    there = max(batch.low // 10, 1)  # a magnet at a tenth of the least right one's level is still seen
    recent, out = [], True
    while (count is None or len(batch.levels) < count) and (deadline is None or time.monotonic() < deadline):
        now = cup.level()
        if abs(now) < there:
            out, recent = True, []
        elif out:
            recent = [v for v in recent if abs(now - v) <= 0.01 * abs(now) + there / 4] + [now]
            if len(recent) >= STEADY:
                for line in batch.add(sum(recent) / len(recent)):
                    say(line)
                out, recent = False, []
        time.sleep(POLL_S)


@link_errors
def cmd_dice_magnets(args):
    spec = json.loads(BOARD_FILE.read_text())
    batch = Batch(spec["sensing"]["magnet_check"])
    link, _ = open_link(args)
    interrupted = False
    with link:
        check_shape(spec, "start", link.ask("board_check", step="start"))
        try:
            cup = Cup(link, spec, args.timeout)
            if abs(cup.level()) >= batch.low // 10:
                raise UsageError("the cup on %s must be empty at the start: take the magnet out" % cup.cell)
            if not args.json:
                print("Magnet check on %s: drop each magnet into the cup, wait for its line, take it out. Each is "
                      "judged against the magnets read the same face down, once %d are in. Ctrl-C to stop."
                      % (cup.cell, batch.judge_from), flush=True)
            say = (lambda line: None) if args.json else (lambda line: print(line, flush=True))
            magnets(cup, batch, say, args.count,
                    time.monotonic() + args.wait if args.wait else None)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            link.request("board_check", step="end")
    lines, right = batch.summary()
    if args.json:
        print(json.dumps({"levels": [round(v) for v in batch.levels], "refused": batch.refused(), "right": right,
                          "summary": lines}))
    for line in [] if args.json else lines:
        print(line)
    if right:
        return 0
    return 130 if interrupted and not batch.levels else 1


def add_magnets(actions, board_args, seconds):
    """The `magnets` action of `doce dice`."""
    m = actions.add_parser("magnets", help="check magnets one by one before they are glued",
                           description="Put the board in its check: drop each magnet, alone, into the printed cup "
                                       "(hardware/dice/cup.stl) on the centre square, wait for its line, and take it "
                                       "out. Each is judged against the median of the magnets read the same face "
                                       "down, and refused under board.json's keep_percent of it. Exits 0 if every "
                                       "magnet was kept, 1 otherwise.")
    board_args(m)
    m.add_argument("--count", type=int, metavar="N", help="stop after N magnets (default: Ctrl-C)")
    m.add_argument("--wait", type=seconds, metavar="S", help="stop after S seconds")
    m.set_defaults(run=cmd_dice_magnets)
