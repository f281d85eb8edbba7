"""From field to `read_u16` counts: the DRV5055 on its group's supply, and the ESP32's ADC.

Sensor (TI DRV5055 datasheet SBAS640, 5.5 Electrical and 5.6 Magnetic Characteristics,
A2 at VCC = 3.3 V): the quiescent voltage plus sensitivity x field, as far as its output
goes. It is linear from 0.2 V to VCC - 0.2 V (5.5, V_L, the linear output voltage range) and
saturates beyond, at a voltage the datasheet does not give: somewhere between there and its
rail, each sensor's own (board.json sensor.rail_headroom_V, 0-0.2 V short of each rail, drawn
or searched). Saturation is a voltage, not a field: a sensitive part with a high quiescent
voltage saturates at a weaker field than the 44 mT (B_L) the datasheet quotes for a typical
one. The output is ratiometric (6.3.4): it scales with the supply its group has at the moment
of the read (rail.py), and so do its rails. The ADC is not ratiometric.

ADC1 at 11 dB: each chip's transfer curve is ESP-IDF's own characterisation of the ESP32
(components/esp_adc/esp32/adc_cali_line_fitting.c, the constants below): below raw 2880 a
line, mV = raw x Vref x 196602 / 4096 / 65536 + 142, and above it the two 20-point
curves that ESP-IDF interpolates by Vref (the knee: the 11 dB range is only specified to
2450 mV). Vref differs chip to chip, 1000 to 1200 mV (ESP-IDF, ADC calibration driver:
"the true reference voltage can range from 1000 mV to 1200 mV among different chips");
board.json "physics.adc.vref_mV". On top, the chip's INL: the ESP32 datasheet (ADC characteristics)
bounds it at +-12 LSB at every code and says nothing of its shape, so it is a line through
INL_KNOTS points spread over the range, each anywhere within +-12 LSB (drawn or searched):
a baseline and a reading half a range apart may differ by 24 LSB, not the ~2 a smooth bow
gave. Then 12 bits widened to 16 as the port's
`read_u16` does (ports/esp32/machine_adc.c: raw << 4 | raw >> 8). Each read's noise is
added by the device, or by the caller here.
"""

from dataclasses import dataclass

import numpy as np

from .adc import INL_KNOTS, KNOTS, LINE_OFFSET_MV, LINE_SCALE, LUT_FROM, LUT_HIGH, LUT_LOW, LUT_STEP, RAW_MAX, u16
from .tolerances import Spread

__all__ = ["INL_KNOTS", "KNOTS", "RAW_MAX", "Parts", "volts", "curve", "raw", "inl", "u16", "counts", "counts_per_mT",
           "noise_volts"]

KNOTS = np.array(KNOTS)
STEPS = np.diff(KNOTS)


@dataclass
class Parts:
    """The parts of one board as built: per sensor its quiescent voltage and sensitivity
    (at 3.3 V) and the supply its group has when read; its ESP32's ADC (Vref, INL)."""
    quiescent: np.ndarray  # V
    sensitivity: np.ndarray  # mV/mT
    vref: np.ndarray  # mV, per chip (broadcasts over the sensors)
    inl: np.ndarray  # LSB of error at each of INL_KNOTS codes, per chip (..., INL_KNOTS), or 0
    supply: np.ndarray  # V at the sensor when it is read
    low: np.ndarray = 0.1  # V above ground where its output saturates (a north pole's field)
    high: np.ndarray = 0.1  # V below its supply where it saturates (a south pole's)

    def rows(self, rows):
        """The parts of sensor rows `rows` (a reading.Boards' squares)."""
        return Parts(*(np.asarray(v)[rows] if np.ndim(v) else v for v in
                       (self.quiescent, self.sensitivity, self.vref, self.inl, self.supply, self.low, self.high)))

    @classmethod
    def nominal(cls, physics, n):
        s, a = physics["sensor"], physics["adc"]
        return cls(np.full(n, sum(s["quiescent_V"]) / 2), np.full(n, sum(s["sensitivity_mV_per_mT"]) / 2),
                   np.float64(sum(a["vref_mV"]) / 2), np.float64(0.0), np.full(n, s["supply_V"]),
                   np.full(n, sum(s["rail_headroom_V"]) / 2), np.full(n, sum(s["rail_headroom_V"]) / 2))

    @classmethod
    def draw(cls, physics, n, rng, chips=None, prefix=""):
        """A board whose every part is somewhere within its datasheet limits. `n` sensors
        (an int or a shape); `chips`: the shape of the ADC draws (default: one chip); `rng`
        a generator or a tolerances.Spread (its pins named `prefix` + the part's name)."""
        s, a = physics["sensor"], physics["adc"]
        chips = () if chips is None else chips
        draw = Spread.of(rng)
        return cls(draw.uniform(*s["quiescent_V"], n, name=prefix + "quiescent"),
                   draw.uniform(*s["sensitivity_mV_per_mT"], n, name=prefix + "sensitivity"),
                   draw.uniform(*a["vref_mV"], chips, name=prefix + "vref"),
                   draw.uniform(-1, 1, tuple(chips) + (INL_KNOTS,), name=prefix + "inl") * a["inl_lsb"],
                   np.full(n, s["supply_V"]),
                   draw.uniform(*s["rail_headroom_V"], n, name=prefix + "saturation low"),
                   draw.uniform(*s["rail_headroom_V"], n, name=prefix + "saturation high"))


def volts(bz, parts, physics, noise=None):
    """The sensors' output voltages for fields `bz` (mT, one per sensor, or rows of them)."""
    s = physics["sensor"]
    v = parts.supply / s["supply_V"] * (parts.quiescent + parts.sensitivity / 1000 * np.asarray(bz, float))
    if noise is not None:
        v = v + noise
    return np.clip(v, parts.low, parts.supply - parts.high)


def curve(vref):
    """ESP-IDF's millivolts at each of KNOTS for chips of Vref `vref` (mV): shape (..., knots)."""
    vref = np.asarray(vref, float)[..., None]
    line = KNOTS * vref * LINE_SCALE + LINE_OFFSET_MV
    nodes = LUT_FROM + LUT_STEP * np.arange(len(LUT_LOW))
    low, high = np.interp(KNOTS, nodes, LUT_LOW), np.interp(KNOTS, nodes, LUT_HIGH)
    on_lut = low + (vref - 1000) / 200 * (high - low)  # ESP-IDF interpolates its curves by Vref
    blend = np.clip((KNOTS - LUT_FROM) / LUT_STEP, 0, 1)
    return np.where(KNOTS < LUT_FROM, line, line + (on_lut - line) * blend)


def raw(v, parts, physics=None):
    """The ADC's 12-bit code for input voltages `v` (V), each read by its chip's curve."""
    mv = np.asarray(v, float) * 1000
    knots = curve(parts.vref)  # once per chip, then read by each of its inputs
    if not np.ndim(parts.vref):
        code = np.interp(mv, knots, KNOTS, left=-1.0, right=RAW_MAX + 1.0)
    else:
        knots = np.broadcast_to(knots, np.shape(mv) + knots.shape[-1:])
        # each input on the one segment it lies on (a chip's knots rise: Vref 1000-1200 mV),
        # worked out there alone rather than on every segment and summed
        i = (knots[..., 1:-1] <= mv[..., None]).sum(-1)
        lo = np.take_along_axis(knots, i[..., None], -1)[..., 0]
        hi = np.take_along_axis(knots, i[..., None] + 1, -1)[..., 0]
        t = (mv - lo) / (hi - lo)
        code = np.where((t >= 0) & (t < 1), KNOTS[i] + t * STEPS[i], 0.0)
        code = np.where(mv < knots[..., 0], -1.0, np.where(mv >= knots[..., -1], RAW_MAX + 1.0, code))
    code = code + inl(code, parts.inl)
    return np.clip(np.rint(code), 0, RAW_MAX).astype(np.int64)


def inl(code, knots):
    """LSB of INL at each `code`: a line through the chip's `knots` (..., INL_KNOTS)."""
    knots = np.asarray(knots, float)
    if knots.ndim == 0:
        return knots
    at = np.clip(code, 0, RAW_MAX) / RAW_MAX * (INL_KNOTS - 1)
    i = np.minimum(at.astype(int), INL_KNOTS - 2)
    knots = np.broadcast_to(knots, np.shape(code) + (INL_KNOTS,))
    low = np.take_along_axis(knots, i[..., None], -1)[..., 0]
    high = np.take_along_axis(knots, i[..., None] + 1, -1)[..., 0]
    return low + (at - i) * (high - low)


def counts(bz, parts, physics, noise=None):
    return u16(raw(volts(bz, parts, physics, noise), parts, physics))


def counts_per_mT(physics, vref=None):
    """read_u16 counts per millitesla for a nominal sensor near zero field, on a chip of
    Vref `vref` (default: the middle of the spread), to quote margins in mT."""
    parts = Parts.nominal(physics, 1)
    if vref is not None:
        parts.vref = np.float64(vref)
    step = 2.0
    up, down = counts(np.array([step]), parts, physics)[0], counts(np.array([-step]), parts, physics)[0]
    return float(up - down) / (2 * step)


def noise_volts(physics, shape, rng):
    """The sensor's own output noise (its rms over the 20 kHz bandwidth)."""
    return rng.normal(0, physics["sensor"]["noise_mV_rms"] / 1000, shape)
