"""Per-sensor baselines and thresholds, measured on an empty board.

Stored on the board as calibration.bin: MAGIC, then the three tables as 16-bit
values, then a CRC-32. Without a file, the board file's nominal values apply, except
the baseline: `Calibration.centre` takes it from the board's own first read. That is
only good enough to see the board empty: the App reads no piece on it, and calibrates
itself at the first empty board (doce/app.py).
`measure` re-runs calibration (the board must be empty).

Why the median, not 32768: an ESP32's ADC at 11 dB reads half of 3.3 V anywhere from
about 27,460 to 32,950 `read_u16` counts, chip to chip (ESP-IDF's characterisation of the
ESP32's ADC for its Vref of 1000-1200 mV: hardware/README.md, the magnetic model), and each
DRV5055's quiescent output differs too. One ADC reads every sensor, so the chip's offset
moves all of them together; what tells a faulty sensor or a magnet is its distance from
the board's median. How far a healthy sensor may sit from it is the board file's
`sensing.baseline_spread`:
  - DRV5055 at VCC = 3.3 V: VQ 1.591 V to 1.709 V (datasheet SBAS640, 5.5 Electrical
    Characteristics), 118 mV between two parts at its limits;
  - each group's switch drops its sensors' supply by up to 14 mV (16 x 10 mA through the
    AO3401A's 85 mOhm), which moves VQ, ratiometric, by up to 7 mV; each sensor's tracks drop
    it by up to the routed copper's worst (hardware/supply.py: under 21.7 mV, half the margin
    below, which that check holds);
  - ESP32 ADC at 11 dB, the steepest chip (Vref 1000 mV): 1.365 codes a mV below the knee,
    x16 for read_u16: 21,840 counts/V;
  - so two healthy sensors differ by at most 0.125 x 21,840 = 2,730 counts. 3200 adds
    about 15% for drift between parts and the ADC's bow.
  - It must also stay below present_above less those 2,730 counts: a magnet the scanner
    would read as present then always stands out, whatever its sensor's own offset.
The ADC's gain: the thresholds follow it. The board file's are for a board whose empty
sensors read `sensing.baseline` (32768); a board's own are scaled by its median over
that, as the median is half the supply (the DRV5055's quiescent output is ratiometric)
read through this chip's ADC, whose counts per volt differ by +-9 % chip to chip (Vref).
Unscaled, a fixed threshold had to sit both below a seated magnet on the flattest chip and
above a lifted one on the steepest: a die held tilted on its way down read as another
piece (issue 23). `opposite` is the scaled absent_opposite_below, one for the board.
Gain: each sensor's sensitivity is 28.5-31.5 mV/mT (SBAS640, 5.6 Magnetic
Characteristics, A2 at 3.3 V), +-5%. An empty board cannot show it and it is not
measured: `make physics` draws every sensor's sensitivity within that spread and checks
the thresholds hold. Calibrating gain with a reference die on each square is the way to
go only if that model ever finds the margins too thin.
"""

import binascii
import os
import struct
from array import array

from .board import NO_SQUARE, SENSORS_PER_SQUARE
from .squares import square_name

PATH = "calibration.bin"
MAGIC = b"DOCC"
TABLES = ("baseline", "absent_below", "present_above")


class CalibrationError(Exception):
    pass


def filled(typecode, n, value):
    """array(typecode) of n copies of value, built without a temporary list of n."""
    a = array(typecode)
    for _ in range(n):
        a.append(value)
    return a


class Calibration:
    def __init__(self, board):
        self.board = board
        self.baseline = filled("H", board.channels, board.baseline)
        self.absent_below = filled("H", board.channels, board.absent_below)
        self.present_above = filled("H", board.channels, board.present_above)
        self.opposite = array("H", [board.absent_opposite_below])  # not stored: it follows the baselines
        self.measured = False

    def load(self, path=PATH):
        """Use stored values if there are any. A damaged file is reported and ignored."""
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None  # never calibrated: nominal values
        size = 2 * len(self.baseline)
        if (len(data) != len(MAGIC) + len(TABLES) * size + 4 or data[:4] != MAGIC
                or struct.unpack("<I", data[-4:])[0] != binascii.crc32(data[:-4])):
            return "calibration file damaged; using nominal values until recalibrated"
        for i, name in enumerate(TABLES):
            start = len(MAGIC) + i * size
            getattr(self, name)[:] = array("H", data[start:start + size])
        self.opposite[0] = scaled(self.board, median(self.board, self.baseline), self.board.absent_opposite_below)
        self.measured = True
        return None

    def save(self, path=PATH):
        """Write-then-rename, so a power cut leaves the old file or the new one."""
        body = MAGIC + b"".join(bytes(getattr(self, name)) for name in TABLES)
        with open(path + ".new", "wb") as f:
            f.write(body)
            f.write(struct.pack("<I", binascii.crc32(body)))
        os.rename(path + ".new", path)

    def centre(self, raw):
        """Never calibrated: make the nominal baseline the median of one read of every
        sensor, `raw` (most see no magnet), instead of the board file's 32768, which a
        chip's ADC may miss by 3000 counts. Called once at boot. A note if the median
        cannot be half the supply (the nominal stays then)."""
        if self.measured:
            return None
        levels = sorted([raw[ch] for ch in self.board.square_channels])
        middle = levels[len(levels) // 2]  # the median
        note = level_problem(self.board, middle)
        if note:
            return note
        for ch in range(len(self.baseline)):
            self.baseline[ch] = middle
            self.absent_below[ch] = scaled(self.board, middle, self.board.absent_below)
            self.present_above[ch] = scaled(self.board, middle, self.board.present_above)
        self.opposite[0] = scaled(self.board, middle, self.board.absent_opposite_below)
        return None


def scaled(board, middle, threshold):
    """A board file threshold for a board whose median empty reading is `middle`."""
    return threshold * middle // board.baseline


def median(board, levels):
    """The median of `levels` over the squares' channels."""
    return sorted([levels[ch] for ch in board.square_channels])[len(board.square_channels) // 2]


def measure(sensors, board, scans=32):
    """A new Calibration from `scans` reads of an empty board; CalibrationError if it isn't."""
    n = board.channels
    total = filled("L", n, 0)
    low = filled("H", n, 65535)
    high = filled("H", n, 0)
    for _ in range(scans):
        raw = sensors.read()
        for ch in range(n):
            v = raw[ch]
            total[ch] += v
            low[ch] = min(low[ch], v)
            high[ch] = max(high[ch], v)
    means = [total[ch] // scans for ch in board.square_channels]  # square by square, C N E S W
    middle = sorted(means)[len(means) // 2]  # the median
    note = level_problem(board, middle)
    if note:
        raise CalibrationError(note)
    far = [k for k in range(len(means)) if abs(means[k] - middle) > board.baseline_spread]
    if far:
        raise CalibrationError(outliers(board, far, means, middle))
    cal = Calibration(board)
    present = scaled(board, middle, board.present_above)
    for k in range(len(means)):
        ch = board.square_channels[k]
        noise = high[ch] - low[ch]
        absent = max(scaled(board, middle, board.absent_below), 3 * noise)
        if absent >= present:
            raise CalibrationError("square %s is too noisy to read (%s sensor: %d counts)"
                                   % (square_name(board.grid, k // SENSORS_PER_SQUARE),
                                      "CNESW"[k % SENSORS_PER_SQUARE:][:1], noise))
        cal.baseline[ch] = means[k]
        cal.absent_below[ch] = absent
        cal.present_above[ch] = present
    for ch in range(n):
        if board.square_of_channel[ch] == NO_SQUARE:
            cal.baseline[ch] = middle  # a spare multiplexer input: never classified
    cal.opposite[0] = scaled(board, middle, board.absent_opposite_below)
    cal.measured = True
    return cal


def level_problem(board, middle):
    """A note if the board's median reading cannot be half the supply: every sensor
    unpowered, or the ADC pin loose. The ADC's chip spread and VQ's together stay within
    about 4,500 counts of 32768; a quarter of the range is a fault, not a tolerance."""
    if abs(middle - board.baseline) > board.baseline // 4:
        return ("the sensors read %d on average, far from half the supply (about %d): "
                "check the sensors' power and the ADC pin" % (middle, board.baseline))
    return None


def outliers(board, far, means, middle):
    """Name every square with a sensor far from the board's median (at most three).
    Letters are sliced from "CNESW", not indexed: indexing would intern them as qstrs."""
    squares = []
    for k in far:
        if k // SENSORS_PER_SQUARE not in squares:
            squares.append(k // SENSORS_PER_SQUARE)
    notes = []
    for sq in squares[:3]:
        mine = [k for k in far if k // SENSORS_PER_SQUARE == sq]
        which = ", ".join("CNESW"[k % SENSORS_PER_SQUARE:][:1] for k in mine)
        reads = ", ".join("%s reads %d" % ("CNESW"[k % SENSORS_PER_SQUARE:][:1], means[k]) for k in mine)
        plural = len(mine) > 1
        if all(means[k] < 656 for k in mine):  # under 1% of the ADC's range: nothing connected
            notes.append("square %s: its %s sensor%s read%s nothing (%s): not powered, or not connected"
                         % (square_name(board.grid, sq), which, "s" if plural else "", "" if plural else "s", reads))
        else:
            notes.append("square %s is not empty, or its %s sensor%s faulty (%s; the board's median is %d)"
                         % (square_name(board.grid, sq), which, "s are" if plural else " is", reads, middle))
    if len(squares) > 3:
        notes.append("and %d more squares" % (len(squares) - 3))
    return "; ".join(notes)
