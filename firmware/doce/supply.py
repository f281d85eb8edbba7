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

Read at boot and when Wi-Fi is asked for (doce/net.py), never in the scan loop; it allocates nothing.
"""

NONE, USB, A1_5, A3 = 0, 1, 2, 3
NAMES = ("none", "usb", "1.5A", "3A")
WIFI_LEAST = A1_5  # the least source the budget claims Wi-Fi on (hardware/power.py SUPPLIES)
READS = 4  # per line; the lowest counts: noise never lifts a reading into a higher class
FIX = "plug the board's USB-C power input into a charger of 1.5 A or more"
SAID = ("no USB-C charger on the board's USB-C input", "the USB-C source offers only USB's 500 mA",
        "a USB-C charger offering 1.5 A", "a USB-C charger offering 3 A")


class Supply:
    """`reads`: one read_u16 per CC line; `thresholds`: board.json power.supply_cc_counts."""

    def __init__(self, reads, thresholds):
        self.reads = reads
        self.thresholds = thresholds
        self.kind = NONE
        self.counts = 0

    def read(self):
        """The source's class now (NONE, USB, A1_5, A3), kept in `kind`."""
        most = 0
        for read in self.reads:
            low = 65535
            for _ in range(READS):
                v = read()
                if v < low:
                    low = v
            if low > most:
                most = low
        self.counts = most
        kind = NONE
        for t in self.thresholds:
            if most >= t:
                kind += 1
        self.kind = kind
        return kind

    def carries_wifi(self):
        return self.read() >= WIFI_LEAST

    def refusal(self):
        """The one message that says why Wi-Fi stays off, and the fix."""
        return "Wi-Fi not started: %s; %s" % (SAID[self.kind], FIX)
