"""`doce dice magnets`: each magnet checked alone, before it is glued (issue 40).

The maker drops magnets one at a time into the printed cup on the dice check's square. The
board's check mode reads every input's mean of 32 reads (its `read` step: firmware/doce/
bringup.py); the centre sensor's, less the empty cup's, at the board file's gain (the median
empty sensor over sensing.baseline, as calibration.scaled scales), is the magnet's level.
Each magnet is compared with the median of its batch read the same face down, and refused
under sensing.magnet_check.keep_percent of it (doce_host/physics/magnet_check.py searches
that line). cli.py hands it its parser (dice_check.add_dice)."""

import json
import math
import time

from .check_command import check_shape
from .commandline import UsageError, link_errors, open_link
from .link import LinkError
from .paths import BOARD_FILE

POLL_S = 0.1  # between reads (a read takes about 0.15 s on the board: 128 inputs x 32 reads)
FACES = {1: "N face up", -1: "N face down"}  # the DRV5055 reads a south pole's field as positive (readout.py)


def floor1(percent):
    """A percentage to one decimal, rounded down: a refused magnet never shows the line it missed."""
    return "%.1f" % (math.floor(percent * 10) / 10)


class Batch:
    """Magnets read so far, and what each is worth against its batch (pure: no board).

    Each face's median is taken once, when judge_from magnets of that face are in, and kept:
    a verdict once printed never changes. The magnets read before then are set aside in
    order and judged, by number, at that moment."""

    def __init__(self, check):
        """`check`: board.json sensing.magnet_check."""
        self.keep = check["keep_percent"]
        self.most = check["most_percent"]
        self.judge_from = check["judge_from"]
        self.low, self.high = check["level_range"]
        self.levels = []  # counts at the board file's gain, signed
        self.medians = {}  # a face's sign: its median, fixed when judge_from of that face were in

    def face(self, i):
        return 1 if self.levels[i] > 0 else -1

    def ones(self, sign):
        return [i for i in range(len(self.levels)) if self.face(i) == sign]

    def judged(self, i):
        return self.face(i) in self.medians

    def percent(self, i):
        return 100 * abs(self.levels[i]) / self.medians[self.face(i)]

    def right_median(self, sign):
        return self.low <= self.medians[sign] <= self.high

    def kept(self, i):
        return self.right_median(self.face(i)) and self.keep <= self.percent(i) <= self.most

    def line(self, i):
        """One line for magnet i: its verdict once its face's median is fixed, else where to put it."""
        head = "magnet %d: %d counts, %s" % (i + 1, abs(self.levels[i]), FACES[self.face(i)])
        if not self.judged(i):
            return head + ": put it aside in order, judged once %d are in this face down" % self.judge_from
        p = floor1(self.percent(i))
        if not self.right_median(self.face(i)):
            return head + ": refuse: the batch's median is no right magnet's (below)"
        if self.percent(i) > self.most:
            return head + ": refuse: two magnets? %s %% of the batch, over %d %%" % (p, self.most)
        if self.kept(i):
            return head + ": keep (%s %% of the batch)" % p
        return head + ": refuse: weak, %s %% of the batch" % p

    def add(self, level):
        """A new magnet's level: the lines to print (when its face's batch reaches judge_from,
        the median line and every magnet of that face set aside so far, by number)."""
        self.levels.append(level)
        i = len(self.levels) - 1
        sign = self.face(i)
        ones = self.ones(sign)
        if sign in self.medians or len(ones) < self.judge_from:
            return [self.line(i)]
        values = sorted(abs(self.levels[j]) for j in ones)
        self.medians[sign] = values[len(values) // 2]  # judge_from is odd: a magnet's own level
        lines = ["%s: %d in, median %d counts, fixed for this batch; the ones set aside:"
                 % (FACES[sign], len(ones), self.medians[sign])]
        if not self.right_median(sign):
            lines.append("  " + self.median_note(sign))
        return lines + [self.line(j) for j in ones]

    def median_note(self, sign):
        m = self.medians[sign]
        return ("the median is %s any right magnet's on this board (%d to %d counts): the whole batch is %s"
                % ("under" if m < self.low else "over", self.low, self.high,
                   "weak, or smaller than 3.175 x 1.5875 mm" if m < self.low
                   else "stronger or larger than 3.175 x 1.5875 mm"))

    def refused(self):
        """The magnets refused (numbered from 1)."""
        return [i + 1 for i in range(len(self.levels)) if self.judged(i) and not self.kept(i)]

    def summary(self):
        """(lines, all right): each face's batch, what was refused, and whether its median is a
        right magnet's on this board at all (a batch all weak, or of another size, is named)."""
        lines, right = [], bool(self.levels)
        for sign, name in FACES.items():
            ones = self.ones(sign)
            if not ones:
                continue
            if sign not in self.medians:
                lines.append("%s: %d magnets: too few to judge (%d needed): not judged, not kept"
                             % (name, len(ones), self.judge_from))
                right = False
                continue
            refused = [i + 1 for i in ones if not self.kept(i)]
            line = "%s: %d magnets, median %d counts" % (name, len(ones), self.medians[sign])
            line += ": refuse %s" % ", ".join("magnet %d" % n for n in refused) if refused else ": all kept"
            if not self.right_median(sign):
                line += "\n  " + self.median_note(sign)
            right = right and not refused
            lines.append(line)
        if self.medians:
            lines.append("A whole batch is named weak only when its median is under %d counts: on every board a batch "
                         "at %d %% of a right magnet's strength or less. A bag mostly weaker than right but stronger "
                         "than that reads as a right batch: put a magnet you trust (from a die that passed) among a "
                         "bag's first five; if it is refused, the bag is weak."
                         % (self.low, 100 * self.low // self.high))
        return lines, right


class Cup:
    """The centre sensor of the check square, read through the board check's `read` step."""

    def __init__(self, link, spec, timeout):
        self.link, self.spec, self.timeout = link, spec, timeout
        g = spec["grid"]
        check = spec["sensing"]["magnet_check"]
        self.cell = chr(97 + g // 2) + str(g // 2 + 1)  # the dice check's square (doce/dice.py), c3 on 5x5
        self.channel = spec["squares"][self.cell][0]
        sensors = sorted({ch for chs in spec["squares"].values() for ch in chs})
        first = self.means()
        median = sorted(first[ch] for ch in sensors)[len(sensors) // 2]
        self.gain = median / spec["sensing"]["baseline"]
        if not 0.5 < self.gain < 2:  # calibration.py refuses such a board too
            raise UsageError("the board's empty sensors read %d counts, not near %d: is it a DOCE board?"
                             % (self.gain * spec["sensing"]["baseline"], spec["sensing"]["baseline"]))
        # A magnet left in the cup would be read as its empty level. Against the board's median: two
        # healthy sensors differ by up to 2,730 counts (firmware/doce/calibration.py: parts at either
        # end of VQ, the steepest ADC), so one lies about half that from the median of 128 (the middle
        # of the parts' spread), its tracks' drop adding under 240; a magnet moves it by at least
        # level_range's low (5,350): half that low (2,675) tells them, some 1,000 counts either side.
        apart = (first[self.channel] - median) / self.gain
        if abs(apart) >= check["level_range"][0] / 2:
            raise UsageError("the cup on %s must be empty at the start: its sensor reads %d counts from the board's "
                             "median (a magnet, or the stack held near?); take it out and start again (if the cup was "
                             "empty, that sensor sits far from the others: check it with doce check board)"
                             % (self.cell, apart))
        self.zero = sum(self.means()[self.channel] for _ in range(check["empty_reads"] - 1)) + first[self.channel]
        self.zero /= check["empty_reads"]

    def means(self):
        return check_shape(self.spec, "read", self.link.ask("board_check", step="read", timeout=self.timeout))["means"]

    def level(self):
        """The centre sensor's level now, counts from the empty cup at the board file's gain."""
        return (self.means()[self.channel] - self.zero) / self.gain

    def rezero(self, levels):
        """The cup read empty `levels` (from level()) in a row: its empty level moves to their mean,
        so that a drift (warm-up, a die set on another square) does not build up."""
        self.zero += self.gain * sum(levels) / len(levels)


def magnets(cup, batch, say, check, count=None, deadline=None):
    """Read magnets as the maker drops them in and takes them out, until `count` are read or
    `deadline` (time.monotonic) passes; a magnet is read once check's steady_reads reads in a
    row agree (a hand still lowering it moves the level by more), as their mean; the cup is
    read again empty (empty_reads in a row) between magnets."""
    # seen: 5 % of the least right magnet's level (267 counts), some 5 times a read's noise (55 counts,
    # 3 sigma of a mean of 32: magnet_check.noise), so a dead magnet (or a chip of one) still gets its line
    there = max(batch.low // 20, 1)
    recent, empties, out = [], [], True
    while (count is None or len(batch.levels) < count) and (deadline is None or time.monotonic() < deadline):
        now = cup.level()
        if abs(now) < there:
            out, recent = True, []
            empties.append(now)
            if len(empties) == check["empty_reads"]:
                cup.rezero(empties)
                empties = []
        elif out:
            empties = []
            recent = [v for v in recent if abs(now - v) <= 0.01 * abs(now) + there / 4] + [now]
            if len(recent) >= check["steady_reads"]:
                for line in batch.add(sum(recent) / len(recent)):
                    say(line)
                out, recent = False, []
        time.sleep(POLL_S)


def report(batch, as_json):
    """What was judged: the summary's lines, or the --json object."""
    lines, right = batch.summary()
    if as_json:
        print(json.dumps({"levels": [round(v) for v in batch.levels], "refused": batch.refused(), "right": right,
                          "summary": lines}), flush=True)
    else:
        for line in lines:
            print(line, flush=True)
    return right


@link_errors
def cmd_dice_magnets(args):
    spec = json.loads(BOARD_FILE.read_text())
    check = spec["sensing"]["magnet_check"]
    batch = Batch(check)
    link, _ = open_link(args)
    interrupted, lost = False, None
    with link:
        check_shape(spec, "start", link.ask("board_check", step="start"))
        try:
            cup = Cup(link, spec, args.timeout)
            if not args.json:
                print("Magnet check on %s: drop each magnet flat into the cup, alone, the stack put down at least "
                      "%d mm from the board; wait for its line, take it out. Each face's first %d are set aside in "
                      "order and judged together; every later one at once. Ctrl-C to stop."
                      % (cup.cell, check["stack_away_mm"], batch.judge_from), flush=True)
            say = (lambda line: None) if args.json else (lambda line: print(line, flush=True))
            magnets(cup, batch, say, check, args.count, time.monotonic() + args.wait if args.wait else None)
        except KeyboardInterrupt:
            interrupted = True
        except (LinkError, UsageError) as e:  # the port went away, or a reply is wrong: what was judged first
            lost = e
        finally:
            if not isinstance(lost, LinkError):
                link.request("board_check", step="end")
    right = report(batch, args.json) if batch.levels or lost is None else False
    if lost is not None:
        raise lost
    if right:
        return 0
    return 130 if interrupted and not batch.levels else 1


def add_magnets(actions, board_args, seconds):
    """The `magnets` action of `doce dice`."""
    m = actions.add_parser("magnets", help="check magnets one by one before they are glued",
                           description="Put the board in its check: drop each magnet, alone, into the printed cup "
                                       "(hardware/dice/cup.stl) on the centre square, wait for its line, and take it "
                                       "out. Each is judged against the median of the magnets read the same face "
                                       "down, fixed once judge_from of them are in, and refused under board.json's "
                                       "keep_percent of it (weak) or over its most_percent (two magnets?). Exits 0 if "
                                       "every magnet was kept, 1 otherwise.")
    board_args(m)
    m.add_argument("--count", type=int, metavar="N", help="stop after N magnets (default: Ctrl-C)")
    m.add_argument("--wait", type=seconds, metavar="S", help="stop after S seconds")
    m.set_defaults(run=cmd_dice_magnets)
