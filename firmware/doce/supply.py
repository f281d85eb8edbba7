"""What the board's supply can give, read from its USB-C input's CC lines (revision B: J1 with its
pull-downs R22, R23 on GPIO 34 and 35, board.json pins.supply_cc; hardware/README.md, "Power budget").

A USB-C source pulls each CC line up through its Rp, and the board's Rd (5.1 kOhm) to ground makes a
voltage that says what current the source offers (USB Type-C Cable and Connector Specification,
"Voltage on Sink CC Pins (Multiple Source Current Advertisements)"): a source is there above
vRd-Connect's 0.2 V; it offers Default USB power up to 0.66 V, 1.5 A up to 1.23 V, 3.0 A above. The
cable joins one CC line; the other reads about 0 V, so the higher line counts. No source (the board
on the devkit's micro-USB: a computer's port, or a charger the firmware cannot tell from one) reads
0 V on both.

ADC1 at 11 dB reads them (read_u16 counts). board.json power.supply_cc_counts holds the three
thresholds: each where the specification's threshold voltage reads on the chip that reads highest
(ADC reference 1000 mV, +12 LSB of INL: board.json physics.adc, ESP-IDF's and the ESP32 datasheet's
figures) plus a read's noise (physics.adc.noise_counts). A reading at or past a threshold comes from
a voltage past the specification's on any chip, so the board never takes a source for more than it
offers; a voltage between two thresholds reads as the lower class (a 1.5 A source whose CC sits low
may read as Default USB on a chip that reads low: Wi-Fi refused, never a brown-out).
tests/board/test_supply_cc.py derives the thresholds from the ADC model and searches every chip.

A USB PD charger also talks on the CC line the cable joins: it sends its Source_Capabilities in BMC
(0 V to about 1.1 V) for a few seconds after it is plugged in, which would read as a lower class.
So each line is read STEPS times, SPACE_US apart, and a threshold counts when more than half the
reads reach it (the median read): a message is at most 1.6 ms long (7 power objects, 429 bits at
fBitRate's least, 270 kbit/s), shorter than SPACE_US, so it covers one read at most; unanswered (the
board speaks no PD), a message is sent nRetryCount + 1 times, at most 4 (PD 2.0: nRetryCount 3), then
not again for tTypeCSendSourceCap (100-200 ms) (USB Power Delivery specification: fBitRate,
tReceive, nRetryCount, tTypeCSendSourceCap). So at most 4 of the 15 reads fall on traffic; 7 may
before the median moves (the 3 more are our margin, for other traffic such as a cable's messages,
not a figure of the specification). A read on traffic never counts for more than the line offers
(BMC stays under 1.23 V). tests/board/test_supply_cc.py searches the traffic's every phase.

Read at boot and when Wi-Fi is asked for (doce/net.py), never in the scan loop; it allocates nothing
after it is made.
"""

import time

NONE, USB, A1_5, A3 = 0, 1, 2, 3
NAMES = ("none", "usb", "1.5A", "3A")
WIFI_LEAST = A1_5  # the least source the budget claims Wi-Fi on (hardware/power.py SUPPLIES)
STEPS, SPACE_US = 15, 2000  # reads of each line and the time between them: 28 ms in all
FIX = "plug the board's USB-C power input into a charger of 1.5 A or more"
SAID = ("no USB-C charger on the board's USB-C input", "the USB-C charger shows only Default USB power",
        "a USB-C charger offering 1.5 A", "a USB-C charger offering 3 A")


class Supply:
    """`reads`: one read_u16 per CC line; `thresholds`: board.json power.supply_cc_counts."""

    def __init__(self, reads, thresholds):
        self.reads = reads
        self.thresholds = thresholds
        self.kind = NONE
        self.tally = [0] * (len(reads) * len(thresholds))  # per line and threshold: the reads reaching it

    def read(self):
        """The source's class now (NONE, USB, A1_5, A3), kept in `kind`: the higher line's, each
        line's the highest threshold more than half its reads reach (the thresholds rise, so a
        read past one is past those under it)."""
        tally = self.tally
        for i in range(len(tally)):
            tally[i] = 0
        for step in range(STEPS):
            if step:
                time.sleep_us(SPACE_US)
            i = 0
            for read in self.reads:
                v = read()
                for t in self.thresholds:
                    if v >= t:
                        tally[i] += 1
                    i += 1
        kind, n = NONE, len(self.thresholds)
        for i in range(len(tally)):
            if 2 * tally[i] > STEPS and i % n >= kind:
                kind = i % n + 1
        self.kind = kind
        return kind

    def carries_wifi(self):
        return self.read() >= WIFI_LEAST

    def refusal(self):
        """The one message that says why Wi-Fi stays off, and the fix."""
        return "Wi-Fi not started: %s; %s" % (SAID[self.kind], FIX)
