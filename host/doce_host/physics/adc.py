"""The ESP32's ADC1 at 11 dB as ESP-IDF characterises it (readout.py's docstring cites the
source): its constants, in plain Python, for the model (readout.py, arrays) and the
simulator's hands (doce_host.sim.fields) and the board check's levels (board_check.py), one
reading at a time."""

RAW_MAX = 4095
# ESP-IDF adc_cali_line_fitting.c, ADC1 at 11 dB: the line's scale and offset (mV), and the
# curves above raw LUT_FROM for chips of Vref 1000 mV (low) and 1200 mV (high), every 64 raw.
LINE_SCALE = 196602 / 4096 / 65536  # mV per raw count per mV of Vref
LINE_OFFSET_MV = 142
LUT_FROM, LUT_STEP = 2880, 64
LUT_LOW = (2240, 2297, 2352, 2405, 2457, 2512, 2564, 2616, 2664, 2709,
           2754, 2795, 2832, 2868, 2903, 2937, 2969, 3000, 3030, 3060)
LUT_HIGH = (2667, 2706, 2745, 2780, 2813, 2844, 2873, 2901, 2928, 2956,
            2982, 3006, 3032, 3059, 3084, 3110, 3135, 3160, 3184, 3209)
# The curve's knots: raw 0, then every 8 counts across ESP-IDF's blend from its line into its
# curves (LUT_FROM to LUT_FROM + LUT_STEP, a parabola), then the curves' own points.
INL_KNOTS = 9  # every 512 raw: a baseline and a seated die's reading (~800 raw apart) meet different ones
KNOTS = tuple(float(k) for k in [0] + list(range(LUT_FROM, LUT_FROM + LUT_STEP, 8))
              + [LUT_FROM + LUT_STEP * i for i in range(1, len(LUT_LOW))])


def u16(code):
    """read_u16 of a 12-bit code, as the ESP32 port widens it (ports/esp32/machine_adc.c)."""
    return code << 4 | code >> 8


def curve(vref):
    """ESP-IDF's millivolts at each of KNOTS for a chip of Vref `vref` (readout.curve, for one chip)."""
    nodes = [LUT_FROM + LUT_STEP * i for i in range(len(LUT_LOW))]
    out = []
    for k in KNOTS:
        line = k * vref * LINE_SCALE + LINE_OFFSET_MV
        if k < LUT_FROM:
            out.append(line)
            continue
        low, high = interpolate(k, nodes, LUT_LOW), interpolate(k, nodes, LUT_HIGH)
        on_lut = low + (vref - 1000) / 200 * (high - low)
        blend = min(1.0, max(0.0, (k - LUT_FROM) / LUT_STEP))
        out.append(line + (on_lut - line) * blend)
    return out


def interpolate(x, xs, ys, left=None, right=None):
    """numpy.interp for one x."""
    if x < xs[0]:
        return ys[0] if left is None else left
    if x > xs[-1]:
        return ys[-1] if right is None else right
    for i in range(1, len(xs)):
        if x <= xs[i]:
            lo, hi = xs[i - 1], xs[i]
            return ys[i] if x == hi else ys[i - 1] + (x - lo) / (hi - lo) * (ys[i] - ys[i - 1])
    return ys[-1]


def raw(volts, curve_mv, inl):
    """The ADC's 12-bit code for an input of `volts` on a chip of `curve_mv` (curve(vref)) and INL
    `inl` at each of INL_KNOTS (LSB): readout.raw, one reading at a time."""
    code = interpolate(volts * 1000, curve_mv, KNOTS, left=-1.0, right=RAW_MAX + 1.0)
    at = min(max(code, 0), RAW_MAX) / RAW_MAX * (INL_KNOTS - 1)
    i = min(int(at), INL_KNOTS - 2)
    code += inl[i] + (at - i) * (inl[i + 1] - inl[i])
    return min(max(round(code), 0), RAW_MAX)
