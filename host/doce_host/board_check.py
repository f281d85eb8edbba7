"""The board check's verdicts: from what the board measured of itself (firmware/doce/bringup.py) to
each faulty part, named by its designator on the PCB (doce_host/circuit.py, from hardware/doce.net),
with what to check. Pure: the `doce check board` command (check_command.py) asks the board and
the maker, and hands the answers here.

What tells the faults apart, on an empty board:
- a sensor's quiescent reading against the DRV5055's spread (`quiescent_band`);
- an input nothing drives (open, or its multiplexer never enabled) reads what SENSE, the joined
  multiplexer outputs, held: low after a grounded input was read, high after a sensor. A sensor
  reads its own level either way; a dead one, or one whose group has no supply, reads 0 V;
- the multiplexers' select lines: a line stuck high or low makes two addresses read one input
  (both read alike, to the ADC's noise, where two sensors differ by their VQ spread), and moves
  which addresses read the inputs tied to ground (the unused ones: hardware/schematic.py);
  two lines swapped read every input at another address, which the grounded inputs show for four
  of the six pairs. The other two (S0 with S1, S2 with S3) move no grounded input: a die on the
  check square (`DIE_SQUARE`) shows them, its centre magnet seen at another square's address.
Each reading of an address is then put down to the input the chosen select-line hypothesis says
it reaches, so a line's fault is not also reported as sixteen faulty sensors.
"""

import itertools
import math

from .physics import adc

# The square the maker puts a die on for the select lines' last two swaps: its centre sensor's
# input (channel 6, 0110) has S0 != S1 and S2 != S3, so either swap moves it to another square's
# centre (a2 or a3). doce/board.py: a square's centre is channel (its index), group 0 or 1.
DIE_SQUARE = "b2"
SIGMAS = 6  # two means of one input differ by less than this many of their noise's sigma
AFTER_READS = 4  # firmware/doce/bringup.py: reads of an input just after SENSE was left high or low
MOVED_COUNTS = 4000  # a die's magnet moves its sensor's reading by more (a seated one: 9,000 and up)


def volts_to_counts(physics, volts, vref, inl=0.0):
    """read_u16 of `volts` on an ESP32 of Vref `vref` (mV) with `inl` LSB of error (readout.py)."""
    return adc.u16(adc.raw(volts, adc.curve(vref), [inl] * adc.INL_KNOTS))


def counts_to_volts(physics, counts):
    """The input voltage a mean reading stands for, on a chip in the middle of the Vref spread."""
    vref = sum(physics["adc"]["vref_mV"]) / 2
    lo, hi = 0.0, 3.3
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if volts_to_counts(physics, mid, vref) < counts else (lo, mid)
    return (lo + hi) / 2


def quiescent_band(physics):
    """(lowest, highest) mean reading of a sound DRV5055 with no field: its quiescent voltage,
    1.591-1.709 V at VCC = 3.3 V (TI DRV5055 datasheet SBAS640, 5.5 Electrical Characteristics, VQ,
    A2; board.json physics.sensor.quiescent_V), ratiometric to its supply (6.3.4), which the devkit's
    regulator holds within physics.rail.regulator_V; read by an ESP32 whose ADC reference is anywhere
    in 1000-1200 mV (ESP-IDF's ADC calibration: "the true reference voltage can range from 1000 mV to
    1200 mV among different chips"; physics.adc.vref_mV) with +-12 LSB of INL (ESP32 datasheet, ADC
    characteristics; physics.adc.inl_lsb). The figures are readout.py's, read the way the simulator
    reads them."""
    s, a, rail = physics["sensor"], physics["adc"], physics["rail"]["regulator_V"]
    low_v = s["quiescent_V"][0] * rail[0] / s["supply_V"]
    high_v = s["quiescent_V"][1] * rail[1] / s["supply_V"]
    return (volts_to_counts(physics, low_v, a["vref_mV"][1], -a["inl_lsb"]),
            volts_to_counts(physics, high_v, a["vref_mV"][0], a["inl_lsb"]))


class Levels:
    """The lines between what a mean reading says, in counts, for one board file, and the noise its
    ADC showed (`ranges`: each input's most less least read, if the board gave them)."""

    def __init__(self, physics, reads, ranges=None):
        self.band = quiescent_band(physics)
        a = physics["adc"]
        self.ground = volts_to_counts(physics, 0.3, a["vref_mV"][0])  # at most this: driven to 0 V
        self.supply = volts_to_counts(physics, 2.5, a["vref_mV"][1])  # at least this: at the 3.3 V rail
        # A read's noise: +-noise_counts peak, triangular (board.json; sim/device/world.py): sigma = peak /
        # sqrt(6); or what this board showed, if more: the range of 32 reads is about 4 sigma (normal noise;
        # 3.4 for this triangle), the median input's taken
        sigma_read = a["noise_counts"] / math.sqrt(6)
        if ranges:
            sigma_read = max(sigma_read, sorted(ranges)[len(ranges) // 2] / 4)
        sigma = sigma_read / math.sqrt(max(1, reads))
        self.alike = SIGMAS * math.sqrt(2) * sigma  # two means of one input
        # SENSE left at two levels this far apart shows an input that follows them (bringup.AFTER_READS
        # reads each): twice the most that two means of AFTER_READS of one driven input differ by
        self.follows = 2 * SIGMAS * math.sqrt(2) * sigma_read / math.sqrt(AFTER_READS)
        margin = 5 * sigma
        self.band = (self.band[0] - margin, self.band[1] + margin)


class Fault:
    """One faulty part: `part` the designator to look at first, `parts` every one named (marked on
    the picture), `says` what the board saw, `check` what to check."""

    def __init__(self, kind, part, says, check, parts=None, where=None):
        self.kind, self.part, self.says, self.check = kind, part, says, check
        self.parts = parts or [part]
        self.where = where

    def line(self):
        return "%s%s %s: %s" % (self.part, " (%s)" % self.where if self.where else "", self.says, self.check)

    def as_json(self):
        return {"kind": self.kind, "part": self.part, "parts": self.parts, "where": self.where,
                "says": self.says, "check": self.check}

    def __repr__(self):
        return "Fault(%s)" % self.line()


# -- the select lines ----------------------------------------------------------------------------

class Hypothesis:
    """What the four select nets do to the address the ESP32 drives: nothing, one stuck at a
    level, or two crossed."""

    def __init__(self, stuck=None, swapped=None):
        self.stuck, self.swapped = stuck, swapped  # (line, level), (j, k)

    def input(self, address):
        bits = [(address >> k) & 1 for k in range(4)]
        if self.swapped:
            j, k = self.swapped
            bits[j], bits[k] = bits[k], bits[j]
        if self.stuck:
            bits[self.stuck[0]] = self.stuck[1]
        return bits[0] | bits[1] << 1 | bits[2] << 2 | bits[3] << 3

    @property
    def sound(self):
        return not self.stuck and not self.swapped

    def __repr__(self):
        return "stuck %s" % (self.stuck,) if self.stuck else "swapped %s" % (self.swapped,) if self.swapped else "sound"


HYPOTHESES = ([Hypothesis()] + [Hypothesis(stuck=(k, v)) for k in range(4) for v in (0, 1)]
              + [Hypothesis(swapped=pair) for pair in itertools.combinations(range(4), 2)])


class Judge:
    """The verdicts on one board: its board file `spec`, its circuit, and the `sensors` step's reply."""

    def __init__(self, spec, circuit, sensors, die=None):
        self.spec, self.circuit = spec, circuit
        s = spec["sensing"]
        self.groups, self.per = s["groups"], s["channels_per_group"]
        self.channels = self.groups * self.per
        self.levels = Levels(spec["physics"], sensors["reads"], sensors.get("ranges"))
        self.m = sensors["means"]
        self.lo, self.hi = sensors["after_low"], sensors["after_high"]
        self.low_ref, self.high_ref = sensors["low"][1], sensors["high"][1]
        self.off = sensors["off"]
        self.where = {}  # channel -> "c4, ring E"
        self.square_of = {}
        ring = {"C": "centre", "N": "ring N", "E": "ring E", "S": "ring S", "W": "ring W"}
        for square, channels in spec["squares"].items():
            for name, ch in zip("CNESW", channels):
                self.where[ch] = "%s, %s" % (square, ring[name])
                self.square_of[ch] = square
        self.grounded = {ch for ch in range(self.channels)
                         if ch not in self.where and circuit.input_net(ch, self.per) == "GND"}
        self.die = die  # (square, means with a die on it) or None
        self.untold = "the die on %s tells them apart (leave out --no-die)" % DIE_SQUARE  # why, if no die
        self.faults, self.notes = [], []

    # -- what one reading is ------------------------------------------------------------------

    @property
    def can_tell_open(self):
        """Whether the two levels SENSE was left at differ enough to show an input nothing drives."""
        return self.high_ref - self.low_ref > self.levels.follows

    def floats(self, a):
        return self.can_tell_open and self.hi[a] - self.lo[a] > (self.high_ref - self.low_ref) / 2

    def at_ground(self, a):
        return not self.floats(a) and self.m[a] <= self.levels.ground

    def sensor_like(self, a):
        return not self.floats(a) and self.levels.ground < self.m[a] < self.levels.supply

    # -- the verdicts -------------------------------------------------------------------------

    def run(self):
        if self.die is not None:
            self._die_where()
        if self.can_tell_open and not self._floats_when_off():
            self.faults.append(self._decoder_stuck_on())
        dead_groups = self._groups()
        working = [g for g in range(self.groups) if g not in dead_groups]
        h = self._select_lines(working)
        self._channels(working, h)
        if self.die is not None:
            self._strays(working, h)
        if not self.can_tell_open:
            self.notes.append("open inputs could not be told from sound ones: every input read alike, so SENSE "
                              "could not be left at two levels")
        return self.faults

    def _die_where(self):
        """Whether the die moved b2's sensors: none moved (no die put there), or exactly another
        square's (the die put there instead) is said, and the die then tells nothing."""
        square, with_die = self.die
        moved = {ch for ch in range(self.channels) if abs(with_die[ch] - self.m[ch]) > MOVED_COUNTS}
        if moved & set(self.spec["squares"][square]):
            return
        if not moved:
            self.untold = "nothing moved on %s: put a die there and check again" % square
            self.die = None
            return
        for other, channels in self.spec["squares"].items():
            if moved <= set(channels) and len(moved) >= 3:
                self.notes.append("the die is on %s, not %s: put it on %s and check again (%s's sensors moved, "
                                  "none of %s's)" % (other, square, square, other, square))
                self.untold = "the die on %s tells them apart" % square
                self.die = None
                return

    def _floats_when_off(self):
        after_high, after_low = self.off
        return after_high - after_low > (self.high_ref - self.low_ref) / 2

    def _decoder_stuck_on(self):
        c = self.circuit
        dec = c.decoder()
        return Fault("decoder_on", dec, "keeps a multiplexer on with the group enable low",
                     "check that %s's G1 (%s) follows the devkit's GPIO %d and is pulled down (%s)"
                     % (dec, c.pin(dec, "GROUP_ENABLE"), self.spec["pins"]["group_enable"],
                        ", ".join(r for r in c.on("GROUP_ENABLE") if r.startswith("R"))),
                     where="the group decoder")

    def _groups(self):
        """Groups that read nothing at all: their multiplexer never on, or their sensors unpowered."""
        c = self.circuit
        used = {g: [ch for ch in range(g * self.per, (g + 1) * self.per) if ch in self.where]
                for g in range(self.groups)}
        floating = [g for g in range(self.groups) if used[g] and all(self.floats(ch) for ch in used[g])]
        dark = [g for g in range(self.groups) if used[g] and g not in floating
                and all(self.m[ch] <= self.levels.ground for ch in used[g])]
        if floating and len(floating) == self.groups:
            dec = c.decoder()
            self.faults.append(Fault(
                "decoder_off", dec, "enables no multiplexer: every input reads what SENSE held",
                "check %s's supply (pin 16 to 3.3 V, pin 8 to ground), its G1 (%s) from the devkit's GPIO %d, "
                "and the devkit's GPIO %s to its A, B, C" % (
                    dec, c.pin(dec, "GROUP_ENABLE"), self.spec["pins"]["group_enable"],
                    ", ".join(str(p) for p in self.spec["pins"]["group_select"])), where="the group decoder"))
            return set(floating)
        for g in floating:
            mux = c.mux(g)
            dec = c.decoder()
            self.faults.append(Fault(
                "mux_off", mux, "is never enabled: all %d of group %d's inputs read what SENSE held" % (
                    len(used[g]), g),
                "check %s %s to %s %s (net GROUP%d_N), and %s's supply (pin 24 to 3.3 V, pin 12 to ground) and "
                "its COM (pin 1) to the devkit's GPIO %d" % (
                    mux, c.pin(mux, "GROUP%d_N" % g), dec, c.pin(dec, "GROUP%d_N" % g), g, mux,
                    self.spec["pins"]["sensor_adc"]),
                parts=[mux, dec], where="group %d's multiplexer" % g))
        for g in dark:
            fet, gate = c.group_switch(g)
            self.faults.append(Fault(
                "no_supply", fet, "gives group %d's %d sensors no supply: every one reads 0 V" % (g, len(used[g])),
                "check %s's joints (%s to 3.3 V, %s to the group's sensors, net +3V3_GROUP%d) and its gate "
                "resistor %s" % (fet, c.pin(fet, "+3V3"), c.pin(fet, "+3V3_GROUP%d" % g), g, gate),
                parts=[fet] + ([gate] if gate else []), where="group %d's supply switch" % g))
        return set(floating) | set(dark)

    def _select_lines(self, working):
        """The hypothesis about the select lines that explains the readings best (HYPOTHESES)."""
        if not working:
            return HYPOTHESES[0]
        alike = self.levels.alike
        usable = [g for g in working]
        pairs = []  # (group, a, b): single-bit neighbours both read as driven, mid-range levels
        for g in usable:
            for a in range(self.per):
                for k in range(4):
                    b = a ^ (1 << k)
                    if a < b and self.sensor_like(g * self.per + a) and self.sensor_like(g * self.per + b):
                        pairs.append((g, a, b))
        equal = {(g, a, b): abs(self.m[g * self.per + a] - self.m[g * self.per + b]) < alike for g, a, b in pairs}
        # how often two different sensors read alike by chance: pairs two or more bits apart, which
        # no single fault of a select line makes read one input
        far = [abs(self.m[g * self.per + a] - self.m[g * self.per + b]) < alike
               for g in usable for a in range(self.per) for b in range(a + 1, self.per)
               if bin(a ^ b).count("1") >= 2 and self.sensor_like(g * self.per + a)
               and self.sensor_like(g * self.per + b)]
        chance = min(0.5, max(0.01, sum(far) / len(far))) if far else 0.5
        impossible = math.log(1000)

        def cost(h):
            total = 0.0
            for (g, a, b), same in equal.items():
                if h.input(a) == h.input(b):
                    total += 0 if same else impossible
                else:
                    total += -math.log(chance) if same else -math.log(1 - chance)
            for g in usable:  # the grounded inputs: read where h says, and nowhere else
                for a in range(self.per):
                    ch = g * self.per + a
                    if self.floats(ch):
                        continue
                    grounded = g * self.per + h.input(a) in self.grounded
                    if grounded != (self.m[ch] <= self.levels.ground):
                        total += math.log(50)  # a dead sensor could read 0 V too, but rarely just there
            if self.die is not None:
                total += self._die_cost(h, impossible)
            return total

        scored = sorted(((cost(h), i, h) for i, h in enumerate(HYPOTHESES)), key=lambda t: (round(t[0], 6), t[1]))
        best_cost, _, best = scored[0]
        ties = [h for c, _, h in scored if abs(c - best_cost) < 1e-6]
        if best.sound:
            if self.die is None:
                self.notes.append("select lines S0 and S1, or S2 and S3, crossed would read as a sound board here: "
                                  + self.untold)
            elif any(h.swapped for h in ties):
                self.notes.append(self._untold_swaps([h.swapped for h in ties if h.swapped], working))
            return best
        c = self.circuit
        self.notes.append("the check tells one select-line fault at a time: once this one is mended, check again")
        if best.stuck:
            line = best.stuck[0]
            net, io, mux_pin = c.select_line(line)
            level = "high (to 3.3 V)" if best.stuck[1] else "low (to ground)"
            if any(h.stuck == (line, 1 - best.stuck[1]) for h in ties):
                level = "high or low (no grounded input shows which)"
            muxes = [c.mux(g) for g in range(self.groups)]
            self.faults.append(Fault(
                "select_stuck", net, "is stuck %s: the multiplexers' S%d does not follow the devkit's %s" % (
                    level, line, io),
                "look for a solder bridge on %s: at the devkit's %s and at pin %s of %s" % (
                    net, io, mux_pin, ", ".join(muxes)),
                parts=[c.devkit()] + muxes, where="select line S%d" % line))
        else:
            j, k = best.swapped
            net_j, io_j, pin_j = c.select_line(j)
            net_k, io_k, pin_k = c.select_line(k)
            self.faults.append(Fault(
                "select_swapped", "%s/%s" % (net_j, net_k), "are crossed: the devkit's %s reaches the multiplexers' "
                "S%d and %s their S%d" % (io_j, k, io_k, j),
                "check board.json's pins.mux_select against the PCB (%s on %s, %s on %s), and the tracks to pins "
                "%s and %s of each multiplexer" % (net_j, io_j, net_k, io_k, pin_j, pin_k),
                parts=[c.devkit()] + [c.mux(g) for g in range(self.groups)], where="select lines S%d and S%d" % (j, k)))
        return best

    def _untold_swaps(self, swaps, working):
        square = self.die[0]
        centre = self.spec["squares"][square][0]
        g = centre // self.per
        why = ("is in group %d, which reads nothing" % g if g not in working
               else "reads no working sensor at the addresses that could reach it")
        return ("select lines %s crossed could not be told from a sound board: %s's centre sensor (%s) %s, and the "
                "die moves it to tell them: check again once the faults above are mended" % (
                    " or ".join("S%d and S%d" % pair for pair in swaps), square, self.circuit.sensor(centre), why))

    def _die_cost(self, h, impossible):
        square, with_die = self.die
        mine = set(self.spec["squares"][square])
        centre = self.spec["squares"][square][0]
        total = 0.0
        moved = [ch for ch in range(self.channels) if abs(with_die[ch] - self.m[ch]) > MOVED_COUNTS]
        for ch in moved:
            g, a = divmod(ch, self.per)
            if g * self.per + h.input(a) not in mine:
                total += impossible
        g0, p0 = divmod(centre, self.per)
        seen_at = [g0 * self.per + a for a in range(self.per) if h.input(a) == p0]
        # where h says the centre is read, a working sensor must have moved; where a dead, open or dark
        # input is read instead, that is the centre's own fault and tells nothing about h
        if seen_at and not any(ch in moved for ch in seen_at) and all(self.sensor_like(a) for a in seen_at):
            total += impossible
        return total

    def _strays(self, working, h):
        """Inputs that moved with the die on its square though no sensor of that square is on them:
        bridged to a neighbouring input that is (a solder bridge between two multiplexer pins)."""
        c = self.circuit
        square, with_die = self.die
        mine = self.spec["squares"][square]
        for g in working:
            for a in range(self.per):
                ch = g * self.per + h.input(a)
                address = g * self.per + a
                if ch in mine or abs(with_die[address] - self.m[address]) <= MOVED_COUNTS:
                    continue
                mux, pin = c.mux_input(ch, self.per)
                beside = [m for m in mine if m // self.per == g and self._pins_adjacent(ch, m)]
                if beside:
                    other_mux, other_pin = c.mux_input(beside[0], self.per)
                    self.faults.append(Fault(
                        "bridged", mux, "%s and %s are bridged: %s (%s) moved with the die on %s" % (
                            pin, other_pin, c.sensor(ch), self.where.get(ch, "unused"), square),
                        "look for solder between %s's %s and %s" % (mux, pin, other_pin),
                        parts=[mux, c.sensor(ch), c.sensor(beside[0])], where="group %d's multiplexer" % g))
                else:
                    self.faults.append(Fault(
                        "stray", c.sensor(ch) if ch in self.where else mux,
                        "moved with a die on %s, which is not over it" % square,
                        "look for a bridge between its track (%s %s) and %s's" % (mux, pin, square),
                        where=self.where.get(ch)))

    def _pins_adjacent(self, a, b):
        """Whether inputs a and b sit on neighbouring pins of their multiplexer (SOIC: 1-12 one side)."""
        pa = int(self.circuit.mux_input(a, self.per)[1].split()[1])
        pb = int(self.circuit.mux_input(b, self.per)[1].split()[1])
        half = 12
        return abs(pa - pb) == 1 and (pa <= half) == (pb <= half)

    def _channels(self, working, h):
        """Each sensor, read at the address h says reaches it."""
        c = self.circuit
        unreached = []
        for g in working:
            reached = {}
            for a in range(self.per):
                reached.setdefault(g * self.per + h.input(a), g * self.per + a)
            for ch in range(g * self.per, (g + 1) * self.per):
                if ch not in reached:
                    if ch in self.where:
                        unreached.append(c.sensor(ch))
                    continue
                a = reached[ch]
                if ch in self.where:
                    fault = self._sensor(ch, a)
                elif ch in self.grounded and not self.at_ground(a):
                    mux, pin = c.mux_input(ch, self.per)
                    fault = Fault("ground_open", mux, "%s should read ground and reads %s" % (pin, self._reads(a)),
                                  "check %s %s's joint to ground" % (mux, pin), where="unused input")
                else:
                    fault = None
                if fault:
                    self.faults.append(fault)
        if unreached:
            self.notes.append("%d sensors (%s) cannot be reached until the select lines are mended: check them "
                              "again then" % (len(unreached), ", ".join(unreached)))

    def _reads(self, a):
        return "%.2f V" % counts_to_volts(self.spec["physics"], self.m[a])

    def _sensor(self, ch, a):
        c, lv = self.circuit, self.levels
        h = c.sensor(ch)
        net = "HALL%d" % ch
        mux, mux_pin = c.mux_input(ch, self.per)
        where = self.where[ch]
        g = ch // self.per
        if self.floats(a):
            return Fault("open", h, "is not connected: its input of %s reads whatever was read before it" % mux,
                         "check %s %s and %s %s, and the track between them (net %s)" % (
                             h, c.pin(h, net), mux, mux_pin, net), parts=[h, mux], where=where)
        if self.m[a] <= lv.ground:
            return Fault("dead", h, "reads 0 V", "check its solder joints (%s on +3V3_GROUP%d, %s, %s to ground) and "
                         "for a bridge from its OUT to ground; if they are good, replace it" % (
                             c.pin(h, "+3V3_GROUP%d" % g), g, c.pin(h, net), c.pin(h, "GND")), where=where)
        if self.m[a] >= lv.supply:
            return Fault("high", h, "reads %s: its output is at the supply" % self._reads(a),
                         "look for a solder bridge between %s and %s of %s" % (
                             c.pin(h, "+3V3_GROUP%d" % g), c.pin(h, net), h), where=where)
        if not lv.band[0] <= self.m[a] <= lv.band[1]:
            low, high = (counts_to_volts(self.spec["physics"], x) for x in lv.band)
            return Fault("out_of_band", h, "reads %s, outside a DRV5055's quiescent %.2f-%.2f V" % (
                self._reads(a), low, high), "take any magnet away from it; else check its part number (%s) and "
                "joints" % c.kind(h), where=where)
        return None


def judge(spec, circuit, sensors, die=None):
    """(faults, notes) for the `sensors` step's reply; `die`: (square, the `read` step's means with a
    die on that square), if the maker put one there."""
    j = Judge(spec, circuit, sensors, die)
    return j.run(), j.notes


# -- the lights and the button ----------------------------------------------------------------------

def led_places(spec):
    """{chain index: the place a maker names}: a square ('c3'), or an edge light ('white c')."""
    leds = spec["leds"]
    places = {i: square for square, i in leds["squares"].items()}
    files = leds["turn_files"]
    for player, idx in leds["turn"].items():
        # the chain reaches black's edge from e5 and runs there east to west (hardware/layout.py)
        order = files[::-1] if player == "black" else files
        for i, f in zip(idx, order):
            places[i] = "%s %s" % (player, f)
    return places


def judge_leds(spec, circuit, seen, dark_onwards=None):
    """Faults from the LED walk: `seen` {chain index: the place the maker saw it light, or None},
    for the LEDs walked (in chain order, up to the first dark one); `dark_onwards`: whether, with
    that dark LED and every one after it lit, none lit."""
    places = led_places(spec)
    where_is = {p: i for i, p in places.items()}
    faults = []
    swapped = set()
    for i, place in sorted(seen.items()):
        if place is None or place == places[i] or i in swapped:
            continue
        j = where_is.get(place)
        led, other = circuit.led(i), circuit.led(j) if j is not None else None
        if j is not None and seen.get(j) == places[i]:
            swapped |= {i, j}
            faults.append(Fault("led_swap", led, "lights %s and %s lights %s: the two are in each other's places" % (
                place, other, places[i]), "check board.json's leds map against the PCB: the chain reaches %s (for %s) "
                "before %s (for %s)" % (led, places[i], other, places[j]), parts=[led, other], where=places[i]))
        else:
            faults.append(Fault("led_place", led, "lights %s, not %s" % (place, places[i]),
                                "check board.json's leds map against where %s sits on the PCB" % led, where=places[i]))
    dark = [i for i, place in sorted(seen.items()) if place is None]
    if dark:
        i = dark[0]
        led = circuit.led(i)
        if dark_onwards and i == 0:
            faults.append(dark_strip(spec, circuit, places[i]))
        elif dark_onwards:
            feed = "LED_DIN%d" % i
            before = [r for r in circuit.on(feed) if r != led]
            faults.append(Fault(
                "led_break", led, "and every LED after it stay dark: the chain's data stops there",
                "check %s %s and %s %s, and the track between them (net %s); then %s's 5 V and ground" % (
                    before[0], circuit.pin(before[0], feed), led, circuit.pin(led, feed), feed, led),
                parts=[led] + before[:1], where=places[i]))
        else:
            faults.append(Fault("led_dark", led, "stays dark while the LEDs after it light",
                                "check its 5 V (VDD) and ground (VSS) joints; if they are good, replace it",
                                where=places[i]))
    return faults


def dark_strip(spec, circuit, where):
    """The whole strip dark: on revision B its 5 V comes through a current limit and a soft start
    that the firmware switches on (hardware/README.md, The LED supply), the likelier cause; then
    the data's way to the first LED."""
    s = circuit.led_supply()
    led = circuit.led(0)
    feed = "LED_DIN0"
    (damper,) = [r for r in circuit.on(feed) if r != led]
    shifter = circuit.one("LED_DATA_3V3", pin="A")
    fuse, switch = s["fuse"], s["switch"]
    return Fault(
        "led_break", led, "and every LED after it stay dark: the strip gets no 5 V or no data",
        "with the app running, measure the strip's 5 V (net %s) at %s %s. None: check the supply's way, "
        "%s (the current limit: latched off by a short on the strip, or %s, its limit resistor, open), "
        "%s (the soft start, its rise-time capacitor %s), %s (LED_POWER's pull-down: a bridge holds it low) "
        "and the devkit's GPIO %d (%s) to %s %s and %s %s; 5 V there: check the data's way, "
        "%s, %s %s and %s %s (net %s)" % (
            s["strip"], switch, circuit.pin_called(switch, "VOUT"),
            fuse, s["limit"], switch, s["rise"], s["pull_down"], spec["pins"]["led_power"], s["gpio"],
            fuse, circuit.pin(fuse, "LED_POWER"), switch, circuit.pin(switch, "LED_POWER"),
            shifter, damper, circuit.pin(damper, feed), led, circuit.pin(led, feed), feed),
        parts=[led, fuse, s["limit"], switch, s["rise"], s["pull_down"], damper, shifter], where=where)


def judge_button(spec, circuit, at_rest, pressed):
    """at_rest: the button read down with nobody on it; pressed: the maker's press was seen (down, then up)."""
    sw = circuit.button()
    gpio = spec["pins"]["button"]
    if at_rest:
        return [Fault("button_stuck", sw, "reads pressed with nobody on it",
                      "look for a solder bridge across %s's legs (the devkit's GPIO %d to ground)" % (sw, gpio))]
    if not pressed:
        return [Fault("button_open", sw, "was never read pressed",
                      "check %s's four legs' joints and the track to the devkit's GPIO %d (net BUTTON)" % (sw, gpio))]
    return []
