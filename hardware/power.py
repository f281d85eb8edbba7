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
# The supplies the board is built for, each with what it claims there: (supply, mA, the radio on).
# With the module transmitting flat out (240 mA) and every other part at its most, the parts alone
# draw 459 mA, past USB_MA less SPARE (450 mA) before any light: no brightness cap leaves 10 % of a
# computer's port, so remote play asks a USB-C charger on the board's own input (J1). A USB 3 port
# gives the devkit no more than a USB 2 one: its CP2102N is a USB 2.0 device, and 900 mA (6 unit
# loads of 150 mA) is for SuperSpeed devices only (USB 3.2 specification, unit loads). A USB-C source
# says on CC what it offers (USB Type-C specification, Rp: Default USB, 1.5 A or 3.0 A) and the
# firmware reads it (firmware/doce/supply.py): Wi-Fi starts only on 1.5 A or more. A charger on the
# devkit's micro-USB socket says nothing the firmware can read, so it counts as a computer's port.
TYPEC_MA = 1500  # the least of the two advertisements the firmware accepts (1.5 A, 3.0 A)
SUPPLIES = (
    ("a computer's USB port, Wi-Fi off", USB_MA, False),
    ("a USB-C charger offering 1.5 A or 3 A on the board's USB-C input, Wi-Fi on (remote play)", TYPEC_MA, True),
)
# What the firmware reads on CC (doce/supply.py), the classes in order, and the least current each
# lets the board draw: "none" (no USB-C source: the devkit's micro-USB, a computer's port at best),
# Default USB power (a USB 2.0 port's 500 mA), 1.5 A, 3.0 A (USB Type-C specification, Rp).
CC_CLASSES = (("none", USB_MA), ("usb", USB_MA), ("1.5A", 1500), ("3A", 3000))

# The voltage: the devkit's 3.3 V comes from its AMS1117-3.3, a linear regulator, which holds its
# output only while its input is above it by its dropout: 1.3 V at most at 800 mA, 1.1 V typical,
# less at lower currents (AMS1117 datasheet, Advanced Monolithic Systems, electrical
# characteristics). Below MIN_VBUS_V at the devkit the 3.3 V rail, and with it the sensors' supply
# that the ADC reads against, follows the load.
RAIL_V, DROPOUT_V = 3.3, 1.3
MIN_VBUS_V = RAIL_V + DROPOUT_V
# A USB 2.0 port's VBUS at its connector, 4.75-5.25 V (USB 2.0 specification, 7.2.1; a bus-powered
# hub's port only 4.4 V)
PORT_MIN_V = 4.75
# The cable's loop: VBUS out and ground back, each conductor's copper (the AWG table: 28 AWG
# 0.2129 Ohm/m, 24 AWG 0.0842 Ohm/m, annealed copper at 20 C), and four mated contacts, VBUS and
# ground at each end, 30 mOhm each at most (USB 2.0 specification, chapter 6, contact resistance).
# The devkit's own way from its socket to its regulator (its schematic not read here) is not counted.
WIRE_OHM_PER_M = {28: 0.2129, 24: 0.0842, 20: 0.0333}
CONTACT_OHM = 0.030
CABLE = (1.0, 24)  # the cable the guide asks for: 1 m at most, 24 AWG power conductors
# The devkit's micro-USB reaches its regulator through its own Schottky diode D3, BAT760-7, between
# the socket's VBUS and EXT_5V, the AMS1117's input (ESP32-DevKitC V4 schematic, Espressif). Its
# forward voltage at most, (mA, V) at 25 C: Diodes Incorporated BAT760 datasheet (DS30498 Rev. 7-2),
# electrical characteristics. The board's own USB-C input (J1) reaches EXT_5V past it.
D3_VF_MAX = ((10, 0.27), (100, 0.35), (1000, 0.55))

# The USB-C input's way to the devkit's 5V pin (revision B): the source's least voltage, a USB-C
# cable (the same model, 30 mOhm a contact: a USB-C plug's two to four VBUS and ground contacts in
# parallel make it less), then the board's copper and the ideal diode U14 into the devkit's 5V pin.
VSAFE5V_MIN = 4.75  # USB Type-C specification, vSafe5V: 4.75-5.5 V at the source, whatever Rp it shows
TYPEC_CABLE = (0.5, 20)  # the cable the guide asks for there: 0.5 m at most, 20 AWG power conductors
# LM66100 (TI SLVSEZ8): R_ON 110 mOhm at most at VIN 5 V (79 typical, the headline figure), as other
# designs quote its electrical characteristics; every other term here is a worst case too
IDEAL_DIODE_OHM = 0.110
# J1 to U14 (VBUS_C, 10.6 mOhm) and U14 to the devkit's pin 19 (VBUS, 4.9 mOhm): the routed copper
# solved as a resistor network at hardware/supply.py's worst (1 oz less 10 %, 50 C), rounded up;
# ground returns through the inner plane, not counted (tests/hardware/test_power_budget.py)
BOARD_OHM = 0.016

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
    "LM66100DCKR": [
        ("ideal diode, the USB-C input's", 0.01, 0.01, None,
         "our round figure, on the safe side: the LM66100 datasheet (TI SLVSEZ8) gives its quiescent "
         "current in microamps"),
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
         "our round figure, on the safe side: the WS2812B-2020 datasheet (Worldsemi) gives its "
         "quiescent current as under 0.6 mA"),
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
    """A strip latched at full white: every channel of every LED at its full current, by the board
    file's led_ma_per_channel: 20 mA, the 5050 WS2812B's figure, on the safe side (the
    WS2812B-2020 datasheet gives 12 mA a channel: 1.12 A for the strip)."""
    return spec["leds"]["count"] * 3 * spec["power"]["led_ma_per_channel"]


def fuse(spec):
    """(R_ILIM kOhm, I_OS min, I_OS max mA): the lowest limit whose least trip clears the strip's
    most by FUSE_MARGIN, so a latched strip is cut as early as the table allows."""
    need = strip_most_ma(spec) * (1 + FUSE_MARGIN)
    for r, low, high in FUSE_TABLE:
        if low >= need:
            return r, low, high
    raise ValueError("no R_ILIM in the table trips above %.0f mA" % need)


def cable_drop_v(ma, metres, awg):
    """The volts a USB cable of `metres` with `awg` power conductors drops at `ma`, both ways and
    its four contacts."""
    return ma / 1000 * (2 * metres * WIRE_OHM_PER_M[awg] + 4 * CONTACT_OHM)


def devkit_v(source_v, ma, metres, awg):
    """VBUS at the devkit's socket: the supply's least, less the cable's drop."""
    return source_v - cable_drop_v(ma, metres, awg)


def d3_vf(ma):
    """The devkit's D3 at `ma`, at most: the datasheet's maximums joined straight in log(current).
    A diode's forward voltage (log term plus series resistance) is convex in log(current), so
    between two points it stays under that line: a bound, not a typical figure."""
    import math

    pts = D3_VF_MAX
    if ma <= pts[0][0]:
        return pts[0][1]
    for (i0, v0), (i1, v1) in zip(pts, pts[1:]):
        if ma <= i1:
            return v0 + (v1 - v0) * math.log(ma / i0) / math.log(i1 / i0)
    raise ValueError("%g mA is past D3's datasheet figures" % ma)


def regulator_v(source_v, ma, metres, awg):
    """The AMS1117's input on the devkit's micro-USB: VBUS at its socket less D3's drop."""
    return devkit_v(source_v, ma, metres, awg) - d3_vf(ma)


def typec_v(ma, metres, awg):
    """The devkit's 5V pin on the USB-C input: a source at vSafe5V's least, less the cable's drop, the
    board's copper and the ideal diode's."""
    return VSAFE5V_MIN - cable_drop_v(ma, metres, awg) - ma / 1000 * (BOARD_OHM + IDEAL_DIODE_OHM)
