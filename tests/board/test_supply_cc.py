"""The USB-C input's reading (doce/supply.py): board.json power.supply_cc_counts derived from the USB
Type-C specification's sink thresholds and the ESP32 ADC's spread, a worst case searched over every
chip corner and the read's noise, and the classes as the firmware takes them."""

import json
import time

import pytest

from doce import supply as supply_module
from doce.supply import A1_5, A3, NONE, USB, WIFI_LEAST, Supply
from doce_host.board_check import volts_to_counts
from doce_host.paths import BOARD_FILE

SPEC = json.loads(BOARD_FILE.read_text())
PHYSICS = SPEC["physics"]
ADC = PHYSICS["adc"]
THRESHOLDS = SPEC["power"]["supply_cc_counts"]
# USB Type-C Cable and Connector Specification, "Voltage on Sink CC Pins (Multiple Source Current
# Advertisements)": the sink's thresholds (a source there, 1.5 A, 3.0 A) and each class's range
THRESHOLD_V = (0.2, 0.66, 1.23)
RANGES = {USB: (0.25, 0.61), A1_5: (0.70, 1.16), A3: (1.31, 2.04)}
# a source's Rp to 5 V (the same specification: 56, 22, 10 kOhm) through the board's 5.1 kOhm Rd
TYPICAL = {USB: 5 * 5.1 / 61.1, A1_5: 5 * 5.1 / 27.1, A3: 5 * 5.1 / 15.1}
CHIPS = [(vref, inl) for vref in ADC["vref_mV"] for inl in (-ADC["inl_lsb"], ADC["inl_lsb"])]
NOISE = ADC["noise_counts"]


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    """The reads' spacing (doce/supply.py SPACE_US) costs no time here; the traffic test keeps its own clock."""
    monkeypatch.setattr(time, "sleep_us", lambda us: None, raising=False)  # CPython's time has none


def reads(volts):
    """Every mean reading of `volts` over the chip corners (Vref 1000-1200 mV, INL +-12 LSB)."""
    return [volts_to_counts(PHYSICS, volts, vref, inl) for vref, inl in CHIPS]


def classify(counts):
    return Supply([lambda: counts], THRESHOLDS).read()


def test_each_threshold_is_where_the_specifications_reads_on_the_chip_that_reads_highest():
    assert THRESHOLDS == [max(reads(v)) + NOISE for v in THRESHOLD_V]


def test_no_source_is_ever_taken_for_more_than_it_offers():
    """Searched: every 5 mV of each class's range, every chip corner, the noise at its peak up."""
    for kind, (low, high) in RANGES.items():
        v = low
        while v <= high + 1e-9:
            assert max(classify(c + NOISE) for c in reads(v)) <= kind, (kind, v)
            v += 0.005


def test_a_typical_source_reads_its_class_on_every_chip():
    for kind, volts in TYPICAL.items():
        assert {classify(c + n) for c in reads(volts) for n in (-NOISE, NOISE)} == {kind}, kind


@pytest.mark.parametrize("volts, lower", [(0.1, NONE), (0.63, USB), (0.655, USB), (1.18, A1_5), (1.225, A1_5)])
def test_a_cc_voltage_between_the_thresholds_reads_as_the_lower_class(volts, lower):
    """Between a class's range and the next threshold (0.61-0.66 V, 1.16-1.23 V; under 0.2 V no
    source): on every chip, with the noise either way, the lower class."""
    assert {classify(c + n) for c in reads(volts) for n in (-NOISE, 0, NOISE)} == {lower}


def test_the_median_read_counts_and_the_higher_line_wins():
    """A threshold counts when more than half a line's reads reach it (the median read); the cable
    joins one CC line, the other reads 0 V."""
    steps = supply_module.STEPS
    half = steps // 2
    for low, kind in ((half, A3), (half + 1, A1_5)):  # that many reads under the 3 A threshold
        line = iter([23000] * low + [40000] * (steps - low))
        assert Supply([lambda: 0, lambda: next(line)], THRESHOLDS).read() == kind
    assert Supply([lambda: 0, lambda: 30000], THRESHOLDS).carries_wifi()
    assert not Supply([lambda: 5000, lambda: 0], THRESHOLDS).carries_wifi()
    assert WIFI_LEAST == A1_5 and classify(0) == NONE and classify(THRESHOLDS[2]) == A3


# A USB PD charger's Source_Capabilities on the CC line the cable joins (USB Power Delivery
# specification): BMC at fBitRate 270-330 kbit/s, at most 429 bits (preamble 64, SOP 20, header 20,
# 7 power objects 280, CRC 40, EOP 5: 1.59 ms at 270 kbit/s), sent again tReceive (0.9-1.1 ms) after
# each with no GoodCRC (the board answers none), nRetryCount + 1 = 4 times (PD 2.0's 3 retries), the
# next burst tTypeCSendSourceCap (100-200 ms) on. On the line, BMC swings 0 V to vSwing (1.05-1.2 V).
MESSAGE_US = (300, 1589)  # a short message and the longest
GAP_US = (900, 1100)
SENDS, REPEAT_US = 4, 100_000
ADC_US = 40  # one read_u16 (the simulator's ADC_READ_US, host/doce_host/sim/device/machine.py)


def test_a_pd_chargers_messages_on_cc_never_change_the_class_it_reads():
    """Searched: the burst starting at every 50 us across the reads' whole span, each message length
    and gap; on traffic the line reads BMC's low (0 V) or its high (1.2 V), whichever is worse. Before
    the median over STEPS reads SPACE_US apart, one read on a message dropped a 3 A charger's class."""
    span = 40_000  # longer than the reads take (doce/supply.py: STEPS x SPACE_US, 28 ms)
    for kind, volts in TYPICAL.items():
        level = reads(volts)[0]
        for bmc in (0, reads(1.2)[0]):
            for message in MESSAGE_US:
                for gap in GAP_US:
                    for start in range(-SENDS * (message + gap), span, 50):
                        clock = [0]

                        def busy(t):
                            t = (t - start) % REPEAT_US
                            return t < SENDS * (message + gap) and t % (message + gap) < message

                        def read(line_level):
                            def once():
                                v = bmc if line_level and busy(clock[0]) else line_level
                                clock[0] += ADC_US
                                return v
                            return once

                        time.sleep_us = lambda us: clock.__setitem__(0, clock[0] + us)
                        got = Supply([read(level), read(0)], THRESHOLDS).read()
                        assert got == kind, (kind, bmc, message, gap, start)


def test_the_sims_supplies_read_their_class_on_a_nominal_chip():
    from doce_host.sim import SUPPLIES, cc_volts
    kinds = {"none": NONE, "usb": USB, "1.5A": A1_5, "3A": A3}
    assert set(SUPPLIES) == set(kinds)
    for name, kind in kinds.items():
        assert {classify(c) for c in reads(cc_volts(name))} == {kind}, name
