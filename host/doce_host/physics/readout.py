"""From field to `read_u16` counts: the DRV5055 and the ESP32's ADC, each with its spread.

Sensor (datasheet SBAS640, 5.5 Electrical and 5.6 Magnetic Characteristics, A2 at 3.3 V):
the output is the quiescent voltage plus sensitivity x field, clipped at the linear range.
ADC (ESP32 at 11 dB): linear from `zero_V` with a per-chip slope (full_scale_V is where
a straight line would reach 4095), half as steep above `linear_to_V`, plus a per-chip
integral nonlinearity bow of up to `inl_lsb`; 12 bits widened to 16 as the port's
`read_u16` does (ports/esp32/machine_adc.c: raw << 4 | raw >> 8).
Noise is added per read by the device, or by the caller here.
"""

from dataclasses import dataclass

import numpy as np

RAW_MAX = 4095


@dataclass
class Parts:
    """The parts of one board as built: per-sensor quiescent voltage and sensitivity, and
    its ESP32's ADC."""
    quiescent: np.ndarray  # V, per sensor
    sensitivity: np.ndarray  # mV/mT, per sensor
    zero: float  # V where the ADC leaves 0
    full_scale: float  # V where its straight line would reach 4095
    inl: float  # LSB of bow at mid-scale

    @classmethod
    def nominal(cls, physics, n):
        s, a = physics["sensor"], physics["adc"]
        return cls(np.full(n, sum(s["quiescent_V"]) / 2), np.full(n, sum(s["sensitivity_mV_per_mT"]) / 2),
                   sum(a["zero_V"]) / 2, sum(a["full_scale_V"]) / 2, 0.0)

    @classmethod
    def draw(cls, physics, n, rng):
        """A board whose every part is somewhere within its datasheet limits."""
        s, a = physics["sensor"], physics["adc"]
        return cls(rng.uniform(*s["quiescent_V"], n), rng.uniform(*s["sensitivity_mV_per_mT"], n),
                   rng.uniform(*a["zero_V"]), rng.uniform(*a["full_scale_V"]),
                   rng.uniform(-1, 1) * a["inl_lsb"])


def volts(bz, parts, physics, noise=None):
    """The sensors' output voltages for fields `bz` (mT, one per sensor, or rows of them)."""
    limit = physics["sensor"]["linear_mT"]
    v = parts.quiescent + parts.sensitivity / 1000 * np.clip(bz, -limit, limit)
    if noise is not None:
        v = v + noise
    return v


def raw(v, parts, physics):
    """The ADC's 12-bit code for input voltages `v`."""
    a = physics["adc"]
    slope = RAW_MAX / (parts.full_scale - parts.zero)
    knee = a["linear_to_V"]
    code = np.where(v <= knee, (v - parts.zero) * slope, (knee - parts.zero) * slope + (v - knee) * slope / 2)
    code = code + parts.inl * np.sin(np.pi * np.clip(code, 0, RAW_MAX) / RAW_MAX)
    return np.clip(np.rint(code), 0, RAW_MAX).astype(np.int64)


def u16(code):
    """read_u16 of a 12-bit code, as the ESP32 port widens it."""
    return code << 4 | code >> 8


def counts(bz, parts, physics, noise=None):
    return u16(raw(volts(bz, parts, physics, noise), parts, physics))


def counts_per_mT(physics):
    """Nominal read_u16 counts per millitesla, to quote margins in mT."""
    parts = Parts.nominal(physics, 1)
    return float(counts(np.array([1.0]), parts, physics)[0] - counts(np.array([0.0]), parts, physics)[0])


def noise_volts(physics, shape, rng):
    """The sensor's own output noise (its rms over the 20 kHz bandwidth)."""
    return rng.normal(0, physics["sensor"]["noise_mV_rms"] / 1000, shape)
