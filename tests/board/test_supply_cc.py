"""The USB-C input's reading (doce/supply.py): board.json power.supply_cc_counts derived from the USB
Type-C specification's sink thresholds and the ESP32 ADC's spread, a worst case searched over every
chip corner and the read's noise, and the classes as the firmware takes them."""

import json

import pytest

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


def test_the_lowest_read_counts_and_the_higher_line_wins():
    """Noise never lifts a source into a higher class: of a line's reads the lowest counts; the cable
    joins one CC line, the other reads 0 V."""
    line = iter([40000, 23000, 40000, 40000])  # one read under the 3 A threshold
    supply = Supply([lambda: 0, lambda: next(line)], THRESHOLDS)
    assert supply.read() == A1_5 and supply.counts == 23000
    assert Supply([lambda: 0, lambda: 30000], THRESHOLDS).carries_wifi()
    assert not Supply([lambda: 5000, lambda: 0], THRESHOLDS).carries_wifi()
    assert WIFI_LEAST == A1_5 and classify(0) == NONE and classify(THRESHOLDS[2]) == A3


def test_the_sims_supplies_read_their_class_on_a_nominal_chip():
    from doce_host.sim import SUPPLIES, cc_volts
    kinds = {"none": NONE, "usb": USB, "1.5A": A1_5, "3A": A3}
    assert set(SUPPLIES) == set(kinds)
    for name, kind in kinds.items():
        assert {classify(c) for c in reads(cc_volts(name))} == {kind}, name
