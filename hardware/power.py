"""The power budget: what each electronic row of bom.csv draws from USB at most, with its source.
schematic.py writes the figures into bom.csv (max_mA: Wi-Fi off, max_mA_wifi: the radio
transmitting); tests/hardware/test_power_budget.py adds them up with the LEDs' light at the
board file's caps (power.brightness_cap, brightness_cap_wifi) and holds the total to USB_MA less
SPARE. Each figure is at 3.3 or 5 V, through the devkit's linear regulator or straight from USB (a
linear regulator passes its load's current, so milliamps add up as they are): the datasheet's
maximum where it gives one; where it gives only a typical figure (the CP2102N's 9.5 mA, the
WROVER's 240 mA transmitting), that one, said so in its source; and our own estimates (the
PSRAM, the devkit's power LED) said to be ours.

A part not listed here draws nothing worth counting: resistors, capacitors, the button, the
mechanics. The sensors draw only while their group is on, and one group is on at a time.
"""

USB_MA = 500  # a USB 2.0 port, to a high-power device once configured (USB 2.0 specification, 7.2.1)
SPARE = 0.10  # kept free: the parts' spread beyond their datasheets, a cable's drop

# mpn: [(what, mA with Wi-Fi off, mA transmitting, how many draw at once (None: the row's qty), source)]
DRAW = {
    "ESP32-DEVKITC-VE": [
        ("ESP32, CPU at 240 MHz, radio off", 68, 0, 1,
         "ESP32 Series datasheet (Espressif), power consumption by power modes: modem-sleep, 240 MHz "
         "dual-core, 30-68 mA"),
        ("ESP32-WROVER-E transmitting, the module whole (CPU, flash, PSRAM)", 0, 240, 1,
         "ESP32-WROVER-E datasheet, current consumption depending on RF modes: TX 802.11b, 1 Mbps, "
         "+19.5 dBm, 240 mA typical (measured at the module, 50 % duty cycle)"),
        ("its 8 MB PSRAM, radio off", 20, 0, 1,
         "our estimate for a 64 Mbit QSPI PSRAM read at 80 MHz (no figure for it in the module's "
         "datasheet; inside the module's 240 mA when transmitting)"),
        ("CP2102N USB-serial bridge", 10, 10, 1,
         "CP2102N data sheet (Silicon Labs), features: 9.5 mA operating current (typical: no maximum given)"),
        ("AMS1117-3.3 regulator's own current", 10, 10, 1,
         "AMS1117 datasheet: quiescent current 10 mA at most"),
        ("the devkit's red power LED", 5, 5, 1,
         "our estimate: an indicator LED and its resistor from 5 V (ESP32-DevKitC V4 schematic)"),
    ],
    "DRV5055A2QDBZR": [
        ("hall sensors, one group of 16 on", 10, 10, 16,
         "DRV5055 datasheet, TI SBAS640, 5.5 Electrical Characteristics: I_CC 10 mA at most"),
    ],
    "CD74HC4067M96": [
        ("multiplexers, static", 0.16, 0.16, None,
         "CD74HC4067 datasheet (TI): I_CC 160 uA at most, over its whole temperature range"),
    ],
    "SN74HC138DR": [
        ("decoder, static", 0.16, 0.16, None,
         "SN74HC138 datasheet (TI): I_CC 160 uA at most, over its whole temperature range"),
    ],
    "SN74AHCT1G125DBVR": [
        ("level shifter, its input at 3.3 V", 1.5, 1.5, None,
         "SN74AHCT1G125 datasheet (TI): delta I_CC 1.35 mA at most with an input at VCC - 2.1 V"),
    ],
    "TPS22918DBVR": [
        ("soft-start switch, on", 0.1, 0.1, None,
         "TPS22918 datasheet (TI SLVSD76): quiescent current when on, microamps"),
    ],
    "TPS2553DBVR-1": [
        ("current limit, on", 0.13, 0.13, None,
         "TPS2553 datasheet (TI SLVS841): supply current when enabled, about 0.1 mA"),
    ],
    "AO3401A": [
        ("group switches", 0, 0, None, "a MOSFET's gate draws nothing steady"),
    ],
    "WS2812B-2020": [
        ("LEDs, dark (their drivers' own current)", 1, 1, None,
         "WS2812B-2020 datasheet (Worldsemi): about 1 mA each, lit or not"),
    ],
}


def row_draw(mpn, qty):
    """(mA Wi-Fi off, mA transmitting) a bom.csv row of `qty` parts `mpn` draws at most."""
    off = on = 0.0
    for _, a, b, at_once, _ in DRAW.get(mpn, ()):
        n = qty if at_once is None else at_once
        off += a * n
        on += b * n
    return off, on


def led_ma(leds, brightest, per_channel_ma):
    """The strip's light at its brightest colour: each channel's current scales with its value."""
    return leds * brightest * per_channel_ma / 255


# The LED supply's fuse (U13, TPS2553DBVR-1): R_ILIM sets its overcurrent trip. TI SLVS841, Table 1
# "Common R_ILIM resistor selections": (the 1 % resistor, kOhm; I_OS min and max, mA, the
# resistor's own 1 % counted), from the lowest limit up.
FUSE_TABLE = [(226, 101.3, 142.1), (133, 173.7, 233.9), (88.7, 262.1, 342.3), (66.5, 351.2, 448.7),
              (52.3, 448.3, 562.4)]
FUSE_MARGIN = 0.20  # the least trip over the strip's most: the LEDs' PWM and the parts' spread


def strip_most_ma(spec):
    """The most the strip's supply carries in play: the lit budget the palette is held to
    (power.led_budget_ma), every LED's own current dark, and the level shifter on that rail."""
    dark = sum(a for _, a, _, _, _ in DRAW["WS2812B-2020"]) * spec["leds"]["count"]
    shifter = sum(a for _, a, _, _, _ in DRAW["SN74AHCT1G125DBVR"])
    return spec["power"]["led_budget_ma"] + dark + shifter


def latched_ma(spec):
    """A strip latched at full white: every channel of every LED at its full current."""
    return spec["leds"]["count"] * 3 * spec["power"]["led_ma_per_channel"]


def fuse(spec):
    """(R_ILIM kOhm, I_OS min, I_OS max mA): the lowest limit whose least trip clears the strip's
    most by FUSE_MARGIN, so a latched strip is cut as early as the table allows."""
    need = strip_most_ma(spec) * (1 + FUSE_MARGIN)
    for r, low, high in FUSE_TABLE:
        if low >= need:
            return r, low, high
    raise ValueError("no R_ILIM in the table trips above %.0f mA" % need)
