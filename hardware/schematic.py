"""The DOCE board's circuit as code (SKiDL), built from board.json.

    python hardware/schematic.py      # writes hardware/doce.net (KiCad netlist) and hardware/bom.csv

The pin map, the sensor channels and the LED chain come from board.json, the same file the
firmware and the simulator read, so the circuit cannot disagree with them. Every part is
defined here with its own pins (SKiDL's tool-independent parts): no KiCad symbol library is
needed to run it. bom.csv is generated: the electronics from this circuit, then the mechanical
parts (dice, magnets, plate, screws...) from mechanical.py, sized by board.json. tests/hardware
checks both files are current and that the circuit passes SKiDL's electrical rules check (ERC).

A plain script next to board.json rather than a package module: only the tests and the
maker run it, and the tests load it by path.
"""

import contextlib
import csv
import io
import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import power  # noqa: E402  (what each part draws: bom.csv's max_mA columns)

BOARD_FILE = HERE / "board.json"
NETLIST_FILE = HERE / "doce.net"
BOM_FILE = HERE / "bom.csv"
BOM_COLUMNS = ["ref", "qty", "part", "manufacturer", "mpn", "package", "notes", "max_mA", "max_mA_wifi"]


def _skidl():
    import inspect
    import types

    import skidl  # imported late: the module's constants are usable without it
    from skidl import scriptinfo
    from skidl.logger import erc_logger, rt_logger

    # SKiDL notes where each part and net is made (scriptinfo.get_skidl_trace: each caller's file
    # and line) from inspect.stack(), which also reads each frame's source line, looking its
    # file up among all loaded modules every time; the lines are never used. stack(0) gives the
    # same files and lines without them: the circuit builds in a fraction of the time in a
    # process with many modules loaded (a test worker: 9 s of CPU a build).
    scriptinfo.inspect = types.SimpleNamespace(stack=lambda: inspect.stack(0)[1:])  # from its caller, as before

    # SKiDL opens a log file per logger in the working directory when imported: close and
    # remove them here, so nothing is left behind whatever the directory is later
    for log in (rt_logger, erc_logger):
        for handler in log.log_file_handlers[:]:
            name, handler.filename = handler.filename, None
            log.removeHandler(handler)
            handler.close()
            if name:
                with contextlib.suppress(OSError):
                    os.remove(name)
    return skidl


class Kind:
    """One kind of part: what the BOM says about it and its pins as (number, name, type)."""

    def __init__(self, prefix, part, manufacturer, mpn, package, footprint, pins, value=""):
        self.prefix, self.part, self.manufacturer, self.mpn = prefix, part, manufacturer, mpn
        self.package, self.footprint, self.pins, self.value = package, footprint, pins, value


def _pins(*spec):
    return [(str(num), name, kind) for num, name, kind in spec]


def _r0603(text, manufacturer, mpn, value):
    """A 1 % 0603 resistor: every one has the same package, footprint and two plain pins."""
    return Kind("R", "Resistor %s 1%%" % text, manufacturer, mpn, "0603", "Resistor_SMD:R_0603_1608Metric",
                _pins((1, "~", "PASSIVE"), (2, "~", "PASSIVE")), value)


def _esp32_pins():
    # ESP32-DevKitC header J2 (pins 1-19) and J3 (numbered 20-38 here), as printed on the board
    j2 = ["3V3", "EN", "IO36", "IO39", "IO34", "IO35", "IO32", "IO33", "IO25", "IO26", "IO27", "IO14",
          "IO12", "GND", "IO13", "IO9", "IO10", "IO11", "5V"]
    j3 = ["GND", "IO23", "IO22", "IO1", "IO3", "IO21", "GND", "IO19", "IO18", "IO5", "IO17", "IO16",
          "IO4", "IO0", "IO2", "IO15", "IO8", "IO7", "IO6"]
    # 5V: the devkit's USB socket's VBUS, and the board's way in from its own USB-C input (U14)
    kinds = {"3V3": "PWROUT", "5V": "PWROUT", "GND": "PASSIVE", "EN": "INPUT", "IO36": "INPUT", "IO34": "INPUT",
             "IO35": "INPUT"}
    return [(str(i), name, kinds.get(name, "BIDIR")) for i, name in enumerate(j2 + j3, 1)]


MUX_INPUT_PIN = [9, 8, 7, 6, 5, 4, 3, 2, 23, 22, 21, 20, 19, 18, 17, 16]  # CD74HC4067 I0..I15

KINDS = {
    "esp32": Kind("U", "ESP32 development board (ESP32-WROVER-E, 8 MB PSRAM; USB serial and 3.3 V regulator on board)",
                  "Espressif", "ESP32-DEVKITC-VE", "module", "doce:ESP32-DevKitC_2x19_socket", _esp32_pins()),
    "hall": Kind("H", "Linear hall sensor, ratiometric, 30 mV/mT at 3.3 V", "Texas Instruments",
                 "DRV5055A2QDBZR", "SOT-23", "Package_TO_SOT_SMD:SOT-23",
                 _pins((1, "VCC", "PWRIN"), (2, "OUT", "OUTPUT"), (3, "GND", "PWRIN"))),
    "mux": Kind("U", "16-channel analog multiplexer", "Texas Instruments", "CD74HC4067M96", "SOIC-24",
                "Package_SO:SOIC-24W_7.5x15.4mm_P1.27mm",
                _pins((1, "COM", "PASSIVE"), (10, "S0", "INPUT"), (11, "S1", "INPUT"), (14, "S2", "INPUT"),
                      (13, "S3", "INPUT"), (15, "~E", "INPUT"), (12, "GND", "PWRIN"), (24, "VCC", "PWRIN"),
                      *[(MUX_INPUT_PIN[i], "I%d" % i, "PASSIVE") for i in range(16)])),
    "decoder": Kind("U", "3-to-8 line decoder", "Texas Instruments", "SN74HC138DR", "SOIC-16",
                    "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm",
                    _pins((1, "A", "INPUT"), (2, "B", "INPUT"), (3, "C", "INPUT"), (4, "~G2A", "INPUT"),
                          (5, "~G2B", "INPUT"), (6, "G1", "INPUT"), (8, "GND", "PWRIN"), (16, "VCC", "PWRIN"),
                          *[(15 - y if y < 7 else 7, "~Y%d" % y, "OUTPUT") for y in range(8)])),
    "pfet": Kind("Q", "P-channel MOSFET, -30 V, logic level", "Alpha & Omega", "AO3401A", "SOT-23",
                 "Package_TO_SOT_SMD:SOT-23",
                 _pins((1, "G", "INPUT"), (2, "S", "PWRIN"), (3, "D", "PWROUT"))),
    "r10k": _r0603("10 kOhm", "Yageo", "RC0603FR-0710KL", "10k"),
    "r330": _r0603("330 Ohm", "Yageo", "RC0603FR-07330RL", "330"),
    "buffer": Kind("U", "Single buffer, TTL-level input (3.3 V in, 5 V out)", "Texas Instruments",
                   "SN74AHCT1G125DBVR", "SOT-23-5", "Package_TO_SOT_SMD:SOT-23-5",
                   _pins((1, "~OE", "INPUT"), (2, "A", "INPUT"), (3, "GND", "PWRIN"), (4, "Y", "OUTPUT"),
                         (5, "VCC", "PWRIN"))),
    # IN 1, GND 2, EN 3, FAULT 4, ILIM 5, OUT 6 (TI SLVS841, pin functions, DBV package); the -1
    # latches off on an overcurrent until EN is cycled
    "limit": Kind("U", "Current-limited power switch, adjustable limit, latch-off (LED supply fuse)",
                  "Texas Instruments", "TPS2553DBVR-1", "SOT-23-6", "Package_TO_SOT_SMD:SOT-23-6",
                  _pins((1, "IN", "PWRIN"), (2, "GND", "PWRIN"), (3, "EN", "INPUT"), (4, "~FAULT", "OPENCOLL"),
                        (5, "ILIM", "PASSIVE"), (6, "OUT", "PWROUT"))),
    "r88k7": _r0603("88.7 kOhm", "Yageo", "RC0603FR-0788K7L", "88.7k"),
    "switch": Kind("U", "Load switch 5.5 V 2 A, adjustable rise time (soft start)", "Texas Instruments",
                   "TPS22918DBVR", "SOT-23-6", "Package_TO_SOT_SMD:SOT-23-6",
                   _pins((1, "VIN", "PWRIN"), (2, "GND", "PWRIN"), (3, "ON", "INPUT"), (4, "CT", "PASSIVE"),
                         (5, "QOD", "PASSIVE"), (6, "VOUT", "PWROUT"))),
    # 2 x 2 mm and about 1 mm tall: it fits under the floor plate and between the wells (README)
    "led": Kind("LED", "RGB LED with WS2812 driver, 5 V, 2 x 2 mm", "Worldsemi", "WS2812B-2020", "2020",
                "LED_SMD:LED_WS2812B-2020_PLCC4_2.0x2.0mm",
                _pins((1, "DOUT", "OUTPUT"), (2, "VSS", "PWRIN"), (3, "DIN", "INPUT"), (4, "VDD", "PWRIN"))),
    "r100": _r0603("100 Ohm", "Yageo", "RC0603FR-07100RL", "100"),
    "c10u": Kind("C", "Capacitor 10 uF 25 V X5R", "Samsung", "CL21A106KAYNNNE", "0805",
                 "Capacitor_SMD:C_0805_2012Metric", _pins((1, "~", "PASSIVE"), (2, "~", "PASSIVE")), "10u"),
    "c100n": Kind("C", "Capacitor 100 nF 50 V X7R", "Samsung", "CL10B104KB8NNNC", "0603",
                  "Capacitor_SMD:C_0603_1608Metric", _pins((1, "~", "PASSIVE"), (2, "~", "PASSIVE")), "100n"),
    "c10n": Kind("C", "Capacitor 10 nF 50 V X7R", "Samsung", "CL10B103KB8NNNC", "0603",
                 "Capacitor_SMD:C_0603_1608Metric", _pins((1, "~", "PASSIVE"), (2, "~", "PASSIVE")), "10n"),
    "c1u": Kind("C", "Capacitor 1 uF 25 V X7R", "Samsung", "CL10B105KA8NNNC", "0603",
                "Capacitor_SMD:C_0603_1608Metric", _pins((1, "~", "PASSIVE"), (2, "~", "PASSIVE")), "1u"),
    "c100u": Kind("C", "Capacitor 100 uF 10 V electrolytic", "Panasonic", "EEU-FR1A101", "radial 5x11 mm",
                  "Capacitor_THT:CP_Radial_D5.0mm_P2.00mm", _pins((1, "+", "PASSIVE"), (2, "-", "PASSIVE")), "100u"),
    # revision B's 5 V input: a power-only USB-C receptacle (GCT drawing usb4135.pdf: A5/B5 CC1/CC2,
    # A9/B9 VBUS, A12/B12 GND, S1 the shell's four tabs), its sink pull-downs (Rd) and an ideal diode
    # into the devkit's 5V pin. LM66100 pins: VIN 1, GND 2, CE 3, N/C 4, ST 5, VOUT 6 (TI SLVSEZ8, pin
    # functions); CE tied to VOUT (through R24, 1 kOhm, so its pad needs no wide track) turns it off
    # whenever VOUT is above VIN: no current back into the input. ST (open drain) is left open.
    "typec": Kind("J", "USB Type-C receptacle, power only (6 pins), 3 A: the board's 5 V input", "GCT",
                  "USB4135-GF-A", "SMD", "Connector_USB:USB_C_Receptacle_GCT_USB4135-GF-A_6P_TopMnt_Horizontal",
                  _pins(("A5", "CC1", "PASSIVE"), ("B5", "CC2", "PASSIVE"), ("A9", "VBUS_A", "PWROUT"),
                        ("B9", "VBUS_B", "PASSIVE"), ("A12", "GND_A", "PASSIVE"), ("B12", "GND_B", "PASSIVE"),
                        ("S1", "SHIELD", "PASSIVE"))),
    "idiode": Kind("U", "Ideal diode 1.5 A, reverse current blocking (the USB-C input into the devkit's 5V)",
                   "Texas Instruments", "LM66100DCKR", "SC-70-6", "Package_TO_SOT_SMD:SOT-363_SC-70-6",
                   _pins((1, "VIN", "PWRIN"), (2, "GND", "PWRIN"), (3, "CE", "INPUT"), (4, "NC", "NOCONNECT"),
                         (5, "ST", "OPENCOLL"), (6, "VOUT", "PASSIVE"))),
    # A TVS across the USB-C input's VBUS, cathode (pad 1, the band) on VBUS_C: SMF5.0A, 5.0 V
    # stand-off, 6.40 V breakdown at the least (10 mA), 9.2 V clamping at its 21.7 A peak pulse
    # (10/1000 us), 200 W (the SMF family's electrical characteristics, as every maker of it lists
    # them; hongjiacheng's is LCSC C19077497, fab.py). It takes a live cable's plug-in ringing (hardware/README.md,
    # "Neither 5 V source feeds the other") off the ideal diode U14, 6 V at its absolute most.
    "tvs": Kind("D", "TVS diode, 5 V stand-off, unidirectional, 200 W (the USB-C input's VBUS)", "hongjiacheng",
                "SMF5.0A", "SOD-123FL", "Diode_SMD:D_SOD-123F", _pins((1, "K", "PASSIVE"), (2, "A", "PASSIVE")),
                "SMF5.0A"),
    "r1k": _r0603("1 kOhm", "UNI-ROYAL", "0603WAF1001T5E", "1k"),
    "r5k1": _r0603("5.1 kOhm", "UNI-ROYAL", "0603WAF5101T5E", "5.1k"),
    # four legs, numbered as KiCad's footprint does: both legs of a side are pad 1 (or 2), joined inside
    "button": Kind("SW", "Tactile switch 6x6 mm", "Omron", "B3F-1000", "THT",
                   "Button_Switch_THT:SW_TH_Tactile_Omron_B3F-10xx", _pins((1, "A", "PASSIVE"), (2, "B", "PASSIVE"))),
}

# The devkit is not soldered: it plugs into two 1x19 female headers (its footprint's pads). They are
# bought and placed, so they are BOM rows of their own, under the devkit's reference.
SOCKET = {"ref": "U1 (J2, J3)", "qty": "2", "part": "Female header 1x19, 2.54 mm, through hole (the devkit's sockets)",
          "manufacturer": "Sullins", "mpn": "PPTC191LFBN-RC", "package": "THT 1x19 P2.54 mm",
          "notes": "the ESP32 devkit plugs into these two, 25.4 mm apart (footprint doce:ESP32-DevKitC_2x19_socket)"}

RING = "CNESW"
DECOUPLING = "one at the supply pin of each LED, multiplexer, the decoder and the level shifter"
SENSOR_DECOUPLING = "one at the supply pin of each sensor (board.json physics.rail.sensor_decoupling_nF)"
SENSOR_CAPACITOR = {10: "c10n", 100: "c100n"}  # nF -> part


class Board:
    """The circuit of one board file. `circuit` is a SKiDL Circuit; `notes` says what each part is for."""

    def __init__(self, spec):
        sk = _skidl()
        self.sk = sk
        self.spec = spec
        self.circuit = sk.Circuit()
        self.circuit.no_files = True  # no .erc/.log files beside the caller
        self.notes = {}  # ref -> the BOM note of its row
        self.kind_of = {}  # ref -> its KINDS key
        self.count = {}  # prefix -> last number used
        self.nets = {}
        self._build()

    # --- helpers -------------------------------------------------------------------------
    def net(self, name):
        if name not in self.nets:
            self.nets[name] = self.sk.Net(name, circuit=self.circuit)
        return self.nets[name]

    def part(self, kind, note):
        sk, k = self.sk, KINDS[kind]
        self.count[k.prefix] = n = self.count.get(k.prefix, 0) + 1
        ref = "%s%d" % (k.prefix, n)
        p = sk.Part(tool=sk.SKIDL, name=k.mpn, ref_prefix=k.prefix, footprint=k.footprint,
                    circuit=self.circuit, ref=ref, tag=ref,
                    pins=[sk.Pin(num=num, name=name, func=getattr(sk.Pin.types, t)) for num, name, t in k.pins])
        p.value = k.value or k.mpn
        p.description = k.part
        p.fields["MPN"] = k.mpn
        p.fields["Manufacturer"] = k.manufacturer
        self.kind_of[ref] = kind
        self.notes[ref] = note
        return p

    def decouple(self, rail, note, at, kind="c100n"):
        """A capacitor (100 nF unless `kind` says) at part `at`'s supply pin (its "Decouples"
        field tells the PCB where)."""
        c = self.part(kind, note)
        c.fields["Decouples"] = at.ref
        c[1] += self.net(rail)
        c[2] += self.net("GND")
        return c

    # --- the circuit ---------------------------------------------------------------------
    def _build(self):
        # Parts are made in the order of the old hand-written BOM, so references keep their
        # meaning: U1 devkit, U2-U9 multiplexers, U10 decoder, U11 level shifter, H1-H125
        # sensors by channel, Q1-Q8 and R1-R8 the group switches, LED1-LED31 in chain order.
        s = self.spec
        pins, sensing = s["pins"], s["sensing"]
        groups, per_group = sensing["groups"], sensing["channels_per_group"]
        gnd, v33, vbus, vled = self.net("GND"), self.net("+3V3"), self.net("VBUS"), self.net("+5V_LED")
        gnd.drive = self.sk.POWER  # the devkit's ground: a supply, for the ERC

        # ESP32 development board: USB, its serial bridge and the 3.3 V regulator are on it
        esp = self.part("esp32", "a WROVER board for ESP32_GENERIC-SPIRAM (a WROOM, without PSRAM, does not play), "
                                 "GPIO 4, 13, 14, 19, 21-23, 25-27, 32, 34-36; its USB socket or the board's "
                                 "USB-C input (J1) powers the whole board")
        self.esp = esp
        esp["3V3"] += v33
        esp["5V"] += vbus
        for p in esp["GND"]:
            p += gnd
        sig = self.net("SENSE")  # the joined multiplexer outputs
        select = [self.net("MUX_S%d" % i) for i in range(4)]
        group = [self.net("GROUP_A%d" % i) for i in range(3)]
        enable, data, button = self.net("GROUP_ENABLE"), self.net("LED_DATA_3V3"), self.net("BUTTON")
        wiring = [(pins["sensor_adc"], sig), (pins["group_enable"], enable), (pins["leds"], data),
                  (pins["button"], button)]
        wiring += list(zip(pins["mux_select"], select)) + list(zip(pins["group_select"], group))
        for gpio, net in wiring:
            esp["IO%d" % gpio] += net

        where = {}  # channel -> "a1 C"
        for square, channels in s["squares"].items():
            for i, ch in enumerate(channels):
                where[ch] = "%s %s" % (square, RING[i])
        group_rail = [self.net("+3V3_GROUP%d" % g) for g in range(groups)]
        group_on = [self.net("GROUP%d_N" % g) for g in range(groups)]  # low: group g on

        # the multiplexers, one per group of 16 channels
        self.muxes = []
        for g in range(groups):
            m = self.part("mux", "one per group of 16 sensors; outputs joined to GPIO %d" % pins["sensor_adc"])
            m["COM"] += sig
            m["~E"] += group_on[g]
            for i in range(4):
                m["S%d" % i] += select[i]
            m["VCC"] += v33
            m["GND"] += gnd
            self.decouple("+3V3", DECOUPLING, m)
            self.muxes.append(m)

        # the decoder picks one group
        dec = self.part("decoder", "picks the group: enables its multiplexer and powers its sensors")
        for i, name in enumerate("ABC"):
            dec[name] += group[i]
        dec["G1"] += enable
        dec["~G2A"] += gnd
        dec["~G2B"] += gnd
        dec["VCC"] += v33
        dec["GND"] += gnd
        for g in range(groups):
            dec["~Y%d" % g] += group_on[g]
        self.decouple("+3V3", DECOUPLING, dec)

        buf = self.part("buffer", "LED data level shifter")

        # sensors: one DRV5055 per used channel, powered by its group's switch
        self.sensors = {}
        rail_nf = self.spec["physics"]["rail"]["sensor_decoupling_nF"]
        for ch in sorted(where):
            g, i = divmod(ch, per_group)
            h = self.part("hall", "5 per square: centre, N, E, S, W at %g mm from the centre, branded side up"
                          % self.spec["physics"]["ring_mm"])
            h.fields["Position"] = where[ch]
            out = self.net("HALL%d" % ch)
            h["OUT"] += out
            self.muxes[g]["I%d" % i] += out
            h["VCC"] += group_rail[g]
            h["GND"] += gnd
            # the DRV5055's recommended minimum, so a group switching on barely dips the rail
            # (doce_host/physics/rail.py: 16 x 100 nF took 0.45 V off it)
            self.decouple("+3V3_GROUP%d" % g, SENSOR_DECOUPLING, h, SENSOR_CAPACITOR[rail_nf])
            self.sensors[ch] = h
        for ch in range(groups * per_group):
            if ch not in where:  # an unused input reads ground, never a floating level
                self.muxes[ch // per_group]["I%d" % (ch % per_group)] += gnd

        # group supplies: the decoder's output drives its P-MOSFET's gate
        gate = [self.net("GROUP%d_GATE" % g) for g in range(groups)]
        for g in range(groups):
            q = self.part("pfet", "high-side switch for each group's sensor supply")
            q["G"] += gate[g]
            q["S"] += v33
            q["D"] += group_rail[g]
        for g in range(groups):
            r = self.part("r10k", "gate pull-ups: every group off while the ESP32 boots")
            r[1] += gate[g]
            r[2] += v33

        # the level shifter and the chain
        series = self.part("r330", "series resistor on the LED data line")
        for net in (enable, data):
            pull = self.part("r10k", "boot pull-downs: the 74HC138's G1 (GPIO %d floats until the firmware runs) "
                                     "and the level shifter's input (a floating data line can latch full white)"
                                     % pins["group_enable"])
            pull[1] += net
            pull[2] += gnd
        buf["A"] += data
        buf["~OE"] += gnd
        buf["VCC"] += vled
        buf["GND"] += gnd
        self.decouple("+5V_LED", DECOUPLING, buf)
        series[1] += buf["Y"]
        din = self.net("LED_DIN0")
        series[2] += din
        serves = {i: "under " + sq for sq, i in s["leds"]["squares"].items()}
        for player, idx in s["leds"]["turn"].items():
            for i in idx:
                serves[i] = "%s's edge" % player
        self.leds = []
        for i in range(s["leds"]["count"]):
            led = self.part("led", "25 at the squares' corners (serpentine), 3 on each player's edge")
            led.fields["Serves"] = serves.get(i, "spare")
            led["DIN"] += din
            led["VDD"] += vled
            led["VSS"] += gnd
            if i + 1 < s["leds"]["count"]:
                din = self.net("LED_DIN%d" % (i + 1))
                led["DOUT"] += din
            else:
                led["DOUT"] += self.circuit.NC
            self.decouple("+5V_LED", DECOUPLING, led)
            self.leds.append(led)

        # LED power: a current limit, then a soft-start load switch, between USB and the strip; both
        # switched by the firmware (LED_POWER, pulled down: off from reset until it drives the pin)
        vlim = self.net("VBUS_LED")  # USB after the current limit
        led_power = self.net("LED_POWER")
        esp["IO%d" % pins["led_power"]] += led_power
        sw = self.part("switch", "soft start for the LED supply: USB allows 10 uF at plug-in (see README)")
        sw["VIN"] += vlim
        sw["GND"] += gnd
        sw["ON"] += led_power
        sw["QOD"] += vled  # discharges the strip's supply when switched off
        sw["VOUT"] += vled
        ct = self.part("c10n", "sets the soft start's rise time (CT)")
        ct[1] += sw["CT"]
        ct[2] += gnd
        cin = self.part("c1u", "at the current limit's input, on USB")
        cin[1] += vbus
        cin[2] += gnd
        bulk = self.part("c100u", "across the LED 5 V supply at the strip's input, after the soft start")
        bulk[1] += vled
        bulk[2] += gnd

        sw1 = self.part("button", "new match (press after a match); hold 3 s on an empty board to recalibrate")
        sw1["A"] += button
        sw1["B"] += gnd

        # made last, so the references above keep their meaning: R12-R19, C170
        for g in range(groups):
            r = self.part("r100", "gate resistors: the decoder's output to its P-MOSFET's gate, so switching a "
                                  "group's %d sensors and their %g nF on rings less and loads the 74HC138 less"
                                  % (per_group, per_group * rail_nf))
            r[1] += group_on[g]
            r[2] += gate[g]
        bulk33 = self.part("c10u", "bulk on the 3.3 V rail at the multiplexers: a group's %d x %g nF is switched "
                                   "onto it at every group change" % (per_group, rail_nf))
        bulk33[1] += v33
        bulk33[2] += gnd

        # revision B, made last so the references above keep their meaning: R20, R21, U13, C171
        pull = self.part("r10k", "boot pull-down of the LED supply's switch: GPIO %d floats until the firmware "
                                 "drives it, and the strip stays off" % pins["led_power"])
        pull[1] += led_power
        pull[2] += gnd
        r_ilim, trip_min, trip_max = power.fuse(self.spec)
        (ilim_kind,) = [k for k, kind in KINDS.items() if kind.prefix == "R" and kind.value == "%gk" % r_ilim]
        ilim = self.part(ilim_kind, "sets the LED supply's current limit: %g-%g mA (TI SLVS841, R_ILIM %g kOhm)"
                         % (round(trip_min), round(trip_max), r_ilim))
        limit = self.part("limit", "the LED supply's fuse: a latched strip (1.86 A at full white) is cut off")
        limit["IN"] += vbus
        limit["GND"] += gnd
        limit["EN"] += led_power
        limit["ILIM"] += ilim[1]
        ilim[2] += gnd
        limit["OUT"] += vlim
        limit["~FAULT"] += self.circuit.NC
        cmid = self.part("c1u", "at the soft start's input, after the current limit")
        cmid[1] += vlim
        cmid[2] += gnd

        # revision B's USB-C 5 V input, made last so the references above keep their meaning: J1, R22,
        # R23, U14, C172. The sink's Rd on each CC line tells a source a sink is there (it then turns
        # VBUS on) and, read by ADC1, what current the source offers (firmware/doce/supply.py)
        vbus_c = self.net("VBUS_C")
        jc = self.part("typec", "the board's own 5 V input: a USB-C charger of 1.5 A or more for remote play "
                                "(the firmware reads the current it offers on CC1/CC2)")
        jc["VBUS_A"] += vbus_c
        jc["VBUS_B"] += vbus_c
        for name in ("GND_A", "GND_B", "SHIELD"):
            jc[name] += gnd
        for i in range(len(pins["supply_cc"])):
            cc = self.net("CC%d" % (i + 1))
            jc["CC%d" % (i + 1)] += cc
            rd = self.part("r5k1", "the USB-C input's Rd on CC1 and CC2: a sink, 5.1 kOhm to ground (USB Type-C "
                                   "specification); their voltage tells the current the source offers")
            rd[1] += cc
            rd[2] += gnd
        ideal = self.part("idiode", "the USB-C input into the devkit's 5V pin: neither 5 V source feeds the other "
                                    "(reverse current blocked, CE tied to VOUT through R24)")
        ideal["VIN"] += vbus_c
        ideal["VOUT"] += vbus
        ideal["GND"] += gnd
        ideal["ST"] += self.circuit.NC  # the status output (open drain) unused
        ideal["NC"] += self.circuit.NC
        cin_c = self.part("c1u", "at the USB-C input, before the ideal diode")
        cin_c[1] += vbus_c
        cin_c[2] += gnd
        ce = self.part("r1k", "ties U14's CE to its output: off whenever the devkit's side is the higher")
        ce[1] += vbus
        ce[2] += ideal["CE"]
        # each CC line reaches its ADC pin through 10 kOhm: with the devkit unpowered (J1 the only
        # source) the pin's protection diodes to the 3.3 V rail at 0 V would otherwise pull CC below
        # a 3 A source's vRa (0.8 V) and the source would never turn VBUS on; 10 kOhm in series
        # keeps CC above it (hardware/README.md, "The USB-C input") and limits a discharge's current
        # into the pin. GPIO 34 and 35 draw no current to speak of, so the ADC reads CC as it is.
        for i, gpio in enumerate(pins["supply_cc"]):
            sense = self.net("CC%d_ADC" % (i + 1))
            rs = self.part("r10k", "in series from each CC line to its ADC pin (GPIO 34, 35): an unpowered "
                                   "ESP32's pin cannot pull CC down to look like Ra")
            rs[1] += self.net("CC%d" % (i + 1))
            rs[2] += sense
            esp["IO%d" % gpio] += sense
        tvs = self.part("tvs", "across the USB-C input's VBUS: "
                               "a live cable's plug-in ringing kept off U14 (6 V at most)")
        tvs["K"] += vbus_c
        tvs["A"] += gnd

        # every devkit pin the board does not use is marked as such
        for p in esp.pins:
            if not p.nets:
                p += self.circuit.NC

    # --- outputs -------------------------------------------------------------------------
    def erc(self):
        """Run SKiDL's ERC; return (errors, warnings)."""
        from skidl.logger import erc_logger

        self.circuit.ERC()
        return erc_logger.error.count, erc_logger.warning.count

    def netlist(self):
        text = str(self.circuit.generate_netlist(tool=self.sk.KICAD, do_backup=False, track_src=False,
                                                 track_abs_path=False))
        text = re.sub(r'\(source "[^"]*"\)', '(source "hardware/schematic.py")', text)
        return re.sub(r'\(date "[^"]*"\)', '(date "")', text)  # the file changes only with the circuit

    def bom_rows(self):
        """One row per kind of part and purpose, in reference order."""
        rows = {}
        for p in self.circuit.parts:
            k = KINDS[self.kind_of[p.ref]]
            key = (k.mpn, self.notes[p.ref])
            rows.setdefault(key, (k, []))[1].append(p.ref)
        out = []
        for (mpn, note), (k, refs) in rows.items():
            numbers = sorted(int(r[len(k.prefix):]) for r in refs)
            off, on = power.row_draw(mpn, len(numbers))
            out.append((k.prefix, numbers[0], {
                "ref": _ranges(k.prefix, numbers), "qty": str(len(numbers)), "part": k.part,
                "manufacturer": k.manufacturer, "mpn": mpn, "package": k.package, "notes": note,
                "max_mA": "%g" % off if mpn in power.DRAW else "",
                "max_mA_wifi": "%g" % on if mpn in power.DRAW else ""}))
        order = ["U", "H", "Q", "R", "LED", "C", "D", "SW", "J"]
        out.sort(key=lambda r: (order.index(r[0]), r[1]))
        return [r[2] for r in out]

    def bom(self):
        """bom.csv's text: the electronics, then the mechanical parts (mechanical.py, from board.json)."""
        if str(HERE) not in sys.path:
            sys.path.insert(0, str(HERE))
        import layout
        import mechanical

        f = io.StringIO()
        w = csv.DictWriter(f, BOM_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(self.bom_rows())
        w.writerow(SOCKET)
        w.writerows(mechanical.rows(layout.Layout(self.spec)))
        return f.getvalue()


def _ranges(prefix, numbers):
    parts, start = [], numbers[0]
    for a, b in zip(numbers, numbers[1:] + [None]):
        if b != a + 1:
            parts.append("%s%d" % (prefix, start) if start == a else "%s%d-%s%d" % (prefix, start, prefix, a))
            start = b
    return " ".join(parts)


def load(path=BOARD_FILE):
    return Board(json.loads(Path(path).read_text()))


def main():
    board = load()
    errors, warnings = board.erc()
    NETLIST_FILE.write_text(board.netlist())
    BOM_FILE.write_text(board.bom())
    print("ERC: %d errors, %d warnings; wrote %s and %s" % (errors, warnings, NETLIST_FILE.name, BOM_FILE.name))
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
