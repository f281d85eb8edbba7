"""`doce dice magnets`: each magnet checked alone, before it is glued (issue 40).

The maker drops magnets one at a time into the printed cup on the dice check's square. The
board's check mode reads every input's mean of 32 reads (its `read` step: firmware/doce/
bringup.py); the centre sensor's, less the empty cup's, at the board file's gain (the median
empty sensor over sensing.baseline, as calibration.scaled scales), is the magnet's level.
Each magnet is compared with the median of its batch read the same face down, and refused
under mechanics.magnet_check.keep_percent of it (doce_host/physics/magnet_check.py searches
that line). cli.py hands it its parser (dice_check.add_dice)."""

import json
import math
import time

from .check_command import check_shape
from .commandline import UsageError, link_errors, open_link
from .link import LinkError
from .paths import BOARD_FILE
from .physics.geometry import sensor_places, square_centre
from .view import printable

STUCK = "the cup does not read empty: take the magnet out"
NEAR = "hold still, and put the stack, dice and tools down away from the board"
# The sigma of a read step's mean of one input reading empty, counts at the board file's gain, on the board
# noisiest at it (gain 0.78: magnet_check.lowest): one read's is 158.0, the ADC's +-250 triangular (130.9 at
# the gain), the DRV5055's 0.9 mV rms (21.0), the supply's load regulation (85.8) and the 12-bit code's
# rounding (5.9), over the 32 reads of a step (bringup READS): magnet_check.step_sigma, which
# tests/host/test_magnets_command.py holds this to (24.8 on the nominal board; 23.3 before hm5 left out the gain).
STEP_SIGMA = 27.9
# A lone magnet's mean field at the four sensors around the cup (magnet_check.around: 19 mm off) over its
# field at the centre: -0.01226 to -0.00784, searched (magnet_check.fringe over every magnet corner and the
# board's tolerances), widened by the sensors' own sensitivities (28.5-31.5 mV/mT, a ratio 0.905-1.105).
# A stack held near reaches them too: 3.9 % of the weakest magnet's level at 10 mm over the cup, where it
# adds 23 % at the centre (magnet_check.stack, r40n finding 3).
FRINGE = (-0.0136, -0.0070)
POLL_S = 0.1  # between reads (a read takes about 0.15 s on the board: 128 inputs x 32 reads)
FACES = {1: "N face up", -1: "N face down"}  # the DRV5055 reads a south pole's field as positive (readout.py)


def three_sigma(*reads):
    """3 sigma of a difference of means of `reads` read steps each (one input's)."""
    return 3 * STEP_SIGMA * math.sqrt(sum(1 / n for n in reads))


def empty_agrees(check):
    """How far an empty spell's centre less the board's median may sit from the start's (counts): 3 sigma
    of two spells of empty_reads steps, of two inputs each. The median is one input's reading, or between
    two near ones: up to one input's noise (14.5 of 23.3 counts on the simulator's board, seed 1, hm4), so the
    difference carries up to sqrt 2 of one input's: 59 counts (STEP_SIGMA 27.9, 8 steps). With one
    input's (then 35 counts), 1.6 % of empty spells were refused at the model's noise: "the cup does not
    read empty" with the cup empty (tests/host/test_magnets_command.py measures it)."""
    return math.sqrt(2) * three_sigma(check["empty_reads"], check["empty_reads"])


def floor1(percent):
    """A percentage to one decimal, rounded down: a magnet refused as weak never shows the line it missed."""
    return "%.1f" % (math.floor(percent * 10) / 10)


def ceil1(percent):
    """Rounded up: one refused over the upper line never shows that line (145.04 is 145.1, not 145.0)."""
    return "%.1f" % (math.ceil(percent * 10) / 10)


class Batch:
    """Magnets read so far, and what each is worth against its batch (pure: no board).

    Each face's median is taken once, when judge_from magnets of that face are in, and kept:
    a verdict once printed never changes. The magnets read before then are set aside in
    order and judged, by number, at that moment."""

    def __init__(self, check):
        """`check`: board.json mechanics.magnet_check."""
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
            return head + ": put it aside in order, judged once %d are in %s" % (self.judge_from, FACES[self.face(i)])
        p = floor1(self.percent(i))
        if not self.right_median(self.face(i)):
            return head + ": refuse: the batch's median is no right magnet's (below)"
        if self.percent(i) > self.most:
            return head + ": refuse: two magnets? %s %% of the batch, over %d %%" % (ceil1(self.percent(i)), self.most)
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

    def unjudged(self):
        """The magnets of a face with too few to judge (numbered from 1): neither kept nor refused."""
        return [i + 1 for i in range(len(self.levels)) if not self.judged(i)]

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
            # r40n finding 4: a trusted magnet among the first five proves nothing (a right one reads
            # down to 0.704 of a right batch, so up to 141 % of a bag at 50 %): the limit is said, no remedy
            lines.append("A whole batch is named weak only when its median is under %d counts: on every board a "
                         "batch at %d %% of a right magnet's strength or less. The median is the middle one of a "
                         "face's first %d: if three of a face's first %d are weaker than right but stronger than "
                         "that, the weak ones are kept and right ones may be refused as \"two magnets?\". This check "
                         "compares a bag's magnets with each other; it does not tell a bag a little weak from a right "
                         "one."
                         % (self.low, 100 * self.low // self.high, self.judge_from, self.judge_from))
        return lines, right


def around(spec, cell):
    """The channels of the sensor of each square next to `cell` nearest it (19 mm off its centre): a
    lone magnet in the cup reads about -1 % of itself there, the stack held near much more (FRINGE)."""
    x, y = square_centre(spec, cell)
    off = spec["physics"]["square_mm"] - spec["physics"]["ring_mm"]
    return [ch for ch, p in enumerate(sensor_places(spec))
            if p is not None and abs(math.hypot(p[0] - x, p[1] - y) - off) < 0.01]


class Cup:
    """The centre sensor of the check square, read through the board check's `read` step."""

    def __init__(self, link, spec, timeout):
        self.link, self.spec, self.timeout = link, spec, timeout
        g = spec["grid"]
        check = spec["mechanics"]["magnet_check"]
        self.cell = chr(97 + g // 2) + str(g // 2 + 1)  # the dice check's square (doce/dice.py), c3 on 5x5
        self.channel = spec["squares"][self.cell][0]
        self.sensors = sorted({ch for chs in spec["squares"].values() for ch in chs})
        self.around = around(spec, self.cell)
        first = self.means()
        median = self.middle(first)
        self.gain = median / spec["sensing"]["baseline"]
        if not 0.5 < self.gain < 2:  # calibration.py refuses such a board too
            raise UsageError("the board's empty sensors read %d counts, not near %d: is it a DOCE board?"
                             % (self.gain * spec["sensing"]["baseline"], spec["sensing"]["baseline"]))
        # A magnet left in the cup would be read as its empty level. Against the board's median: two
        # healthy sensors differ by up to 2,730 counts (firmware/doce/calibration.py: parts at either
        # end of VQ, the steepest ADC), so one lies about half that from the median of 128 (the middle
        # of the parts' spread), its tracks' drop adding under 240; a magnet moves it by at least
        # level_range's low (5,300): half that low (2,650) tells them, some 1,000 counts either side.
        apart = (first[self.channel] - median) / self.gain
        if abs(apart) >= check["level_range"][0] / 2:
            raise UsageError("the cup on %s must be empty at the start: its sensor reads %d counts from the board's "
                             "median (a magnet, or the stack held near?); take it out and start again (if the cup was "
                             "empty, that sensor sits far from the others: check it with doce check board)"
                             % (self.cell, apart))
        reads = [first] + [self.means() for _ in range(check["empty_reads"] - 1)]
        self.zero = sum(r[self.channel] for r in reads) / len(reads)
        self.zero_around = sum(self.mean_around(r) for r in reads) / len(reads)
        # the start's empty level less the board's median: every later one must agree with it
        self.apart = sum((r[self.channel] - self.middle(r)) / self.gain for r in reads) / len(reads)
        self.agrees = empty_agrees(check)

    def means(self):
        return check_shape(self.spec, "read", self.link.ask("board_check", step="read", timeout=self.timeout))["means"]

    def middle(self, means):
        return sorted(means[ch] for ch in self.sensors)[len(self.sensors) // 2]

    def mean_around(self, means):
        return sum(means[ch] for ch in self.around) / len(self.around)

    def level(self):
        """(level, around, apart) now: the centre sensor's counts from the empty cup, the four
        around it's mean from theirs, both at the board file's gain, and the centre less the
        board's median, less the start's."""
        m = self.means()
        return ((m[self.channel] - self.zero) / self.gain, (self.mean_around(m) - self.zero_around) / self.gain,
                (m[self.channel] - self.middle(m)) / self.gain - self.apart)

    def rezero(self, reads):
        """The cup read empty `reads` (from level()) in a row: its empty level, and the four around
        it's, move to their mean, so that a drift of the board (warm-up, its supply) does not build
        up. Only while the centre, less the board's median, agrees with the start's within the
        reads' noise: else False (the stack brought slowly near is a field, not an empty level)."""
        if abs(sum(r[2] for r in reads) / len(reads)) > self.agrees:
            return False
        self.zero += self.gain * sum(r[0] for r in reads) / len(reads)
        self.zero_around += self.gain * sum(r[1] for r in reads) / len(reads)


def magnets(cup, batch, say, check, count=None, deadline=None):
    """Read magnets as the maker drops them in and takes them out, until `count` are read or
    `deadline` (time.monotonic) passes; a magnet is read once check's steady_reads reads in a
    row agree (a hand still lowering it moves the level by more), as their mean, if the sensors
    around the cup read what a lone magnet gives there (else the stack, or a hand, is near: said,
    and read again); the cup is read again empty (empty_reads in a row) between magnets."""
    # seen: 5 % of the least right magnet's level (265 counts), some 3 times a read's noise (84 counts, 3 sigma
    # of a mean of 32 at the noisiest gain: magnet_check.read_sigma), so a dead magnet (or a chip of one) gets its line
    there = max(batch.low // 20, 1)
    noise = three_sigma(4 * check["steady_reads"], 4 * check["empty_reads"])  # the four around's mean
    recent, empties, out, held, off, near = [], [], True, None, False, False
    while (count is None or len(batch.levels) < count) and (deadline is None or time.monotonic() < deadline):
        read = cup.level()
        now = read[0]
        if abs(now) < there:
            out, recent, near = True, [], False
            empties.append(read)
            if len(empties) == check["empty_reads"]:
                taken = cup.rezero(empties) is not False
                if not taken and not off:  # once, until the empty level is taken again
                    say("the cup does not read empty: " + NEAR + " (the cup's sensor reads off its empty level at "
                        "the start, the board's others do not; if nothing is near, stop (Ctrl-C) and start again)")
                off, empties = not taken, []
            time.sleep(POLL_S)
            continue
        empties = []
        recent = [r for r in recent[-check["steady_reads"]:] if abs(now - r[0]) <= 0.01 * abs(now) + there / 4] + [read]
        if len(recent) < check["steady_reads"]:
            pass
        elif out:
            level = sum(r[0] for r in recent) / len(recent)
            around = sum(r[1] for r in recent) / len(recent)
            lo, hi = sorted(f * level for f in FRINGE)
            if not lo - noise <= around <= hi + noise:
                # r40n finding 3: the stack held still over the cup while a magnet settles is read with it;
                # its field reaches the sensors around the cup, a lone magnet's hardly: no line, read again
                if not near:
                    say(NEAR + ": a field reaches the sensors around the cup (%+d counts, a lone magnet gives %+d to "
                        "%+d); reading the magnet again" % (around, lo, hi))
                near, recent = True, []
            else:
                for line in batch.add(level):
                    say(line)
                out, recent, held, near = False, [], None, False
        elif abs(now - (held if held is not None else batch.levels[-1])) > 0.01 * abs(now) + there:
            # steady at another level since the last line, never empty between: a magnet left in at
            # the start (its line a phantom) or the empty level stepped; no magnet gets a line until
            # the cup reads empty again, so the maker is told (once a level) rather than left to bin good
            # ones. Moved by more than the empty test (265 counts), not a read's noise: a magnet held in
            # the cup while the board warms does not set it off
            held = now
            if abs(now - batch.levels[-1]) > 0.01 * abs(now) + there:
                say(STUCK + ": no magnet is read until it does; if the cup is empty, stop (Ctrl-C) and start again")
        time.sleep(POLL_S)


def leave(link):
    """Ask the board back to its game, twice if it refuses or does not answer: None, or the
    UsageError that tells the maker how to get it back (it leaves a check that hears nothing for
    5 minutes by itself: firmware/doce/bringup.py QUIET_MS)."""
    for _ in range(2):
        try:
            reply = link.request("board_check", step="end")
        except LinkError as e:  # no answer in time, or the port went away
            why = str(e)
            continue
        if reply.get("ok"):
            return None
        why = reply.get("message") or reply.get("error") or "refused"
    return UsageError("the board was not seen to leave its check (%s): it goes back to its game by itself after "
                      "5 minutes with no word from this computer, or unplug it and plug it in again" % printable(why))


def report(batch, as_json):
    """What was judged: the summary's lines, or the --json object."""
    lines, right = batch.summary()
    if as_json:
        print(json.dumps({"levels": [round(v) for v in batch.levels], "refused": batch.refused(),
                          "not_judged": batch.unjudged(), "right": right, "summary": lines}), flush=True)
    else:
        for line in lines:
            print(line, flush=True)
    return right


@link_errors
def cmd_dice_magnets(args):
    spec = json.loads(BOARD_FILE.read_text())
    check = spec["mechanics"]["magnet_check"]
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
            if not isinstance(lost, LinkError):  # a port dead before Ctrl-C, or a refusal: said after the summary
                left = leave(link)
                if left is not None:
                    lost = left if lost is None else UsageError("%s; and %s" % (lost, left))
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
