"""The board's circuit as built: which part (by its PCB designator) does what, read from the one
place that assigns them, the KiCad netlist hardware/schematic.py writes (hardware/doce.net), with
each kind of part's pin names from schematic.py's KINDS. Nothing here numbers a part itself: a new
revision of the circuit renames what this reports.

    circuit = load()
    circuit.sensor(37)       # 'H38': the DRV5055 on channel 37 (net HALL37)
    circuit.mux(2)           # 'U4': group 2's multiplexer
    circuit.group_switch(2)  # ('Q3', 'R14'): group 2's supply switch and its gate resistor
"""

import importlib.util
import re
from functools import lru_cache

from .paths import ROOT

NETLIST = ROOT / "hardware" / "doce.net"
SCHEMATIC = ROOT / "hardware" / "schematic.py"
_TOKEN = re.compile(r'\(|\)|"(?:[^"\\]|\\.)*"|[^\s()]+')


def sexpr(text):
    """A KiCad S-expression as nested lists of strings (quotes taken off)."""
    stack = [[]]
    for token in _TOKEN.findall(text):
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token[1:-1].replace('\\"', '"') if token.startswith('"') else token)
    return stack[0][0]


def _find(node, name):
    return [n for n in node[1:] if isinstance(n, list) and n and n[0] == name]


def _value(node, name):
    found = _find(node, name)
    return found[0][1] if found and len(found[0]) > 1 else None


class Circuit:
    def __init__(self, netlist_text, kinds):
        tree = sexpr(netlist_text)
        self.parts = {}  # ref -> {"value", "description", "fields"}
        for comp in _find(_find(tree, "components")[0], "comp"):
            fields = {}
            for block in _find(comp, "fields"):
                for field in _find(block, "field"):
                    name = _value(field, "name")
                    fields[name] = field[2] if len(field) > 2 and isinstance(field[2], str) else ""
            self.parts[_value(comp, "ref")] = {"value": _value(comp, "value"), "fields": fields,
                                               "description": _value(comp, "description")}
        self.nets = {}  # net name -> [(ref, pin number)]
        for net in _find(_find(tree, "nets")[0], "net"):
            self.nets[_value(net, "name")] = [(_value(n, "ref"), _value(n, "pin")) for n in _find(net, "node")]
        self.pin_names = {}  # mpn -> {pin number: name}
        for kind in kinds.values():
            self.pin_names[kind.mpn] = {num: name for num, name, _ in kind.pins}

    # -- looking things up ---------------------------------------------------------------------

    def on(self, net, mpn=None, pin=None):
        """The parts on `net` (of part number `mpn`, at pin name `pin`), in netlist order."""
        out = []
        for ref, number in self.nets.get(net, []):
            part = self.parts[ref]
            if mpn is not None and part["value"] != mpn and part["fields"].get("MPN") != mpn:
                continue
            if pin is not None and self.pin_name(ref, number) != pin:
                continue
            out.append(ref)
        return out

    def pin_name(self, ref, number):
        return self.pin_names.get(self.parts[ref]["fields"].get("MPN"), {}).get(number, number)

    def pin(self, ref, net):
        """'pin 2 (OUT)': where `ref` meets `net`."""
        for r, number in self.nets.get(net, []):
            if r == ref:
                name = self.pin_name(ref, number)
                return "pin %s" % number if name == number else "pin %s (%s)" % (number, name)
        raise KeyError("%s is not on %s" % (ref, net))

    def pin_called(self, ref, name):
        """'pin 6 (VOUT)': `ref`'s pin named `name`."""
        number = next(n for n, called in self.pin_names[self.kind(ref)].items() if called == name)
        return "pin %s (%s)" % (number, name)

    def one(self, net, mpn=None, pin=None):
        found = self.on(net, mpn, pin)
        if len(found) != 1:
            raise KeyError("%s: %d parts%s, not one" % (net, len(found), " " + mpn if mpn else ""))
        return found[0]

    # -- the board's parts, by what they do ------------------------------------------------------

    def kind(self, ref):
        return self.parts[ref]["fields"].get("MPN")

    def sensor(self, channel):
        """The hall sensor whose output is channel `channel`."""
        return self.one("HALL%d" % channel, pin="OUT")

    def mux(self, group):
        """The multiplexer that group `group`'s decoder output enables."""
        return self.one("GROUP%d_N" % group, pin="~E")

    def mux_input(self, channel, per_group=16):
        """(multiplexer, its pin) for channel `channel`."""
        group, i = divmod(channel, per_group)
        mux = self.mux(group)
        for number, name in self.pin_names[self.kind(mux)].items():
            if name == "I%d" % i:
                return mux, "pin %s (I%d)" % (number, i)
        raise KeyError(channel)

    def input_net(self, channel, per_group=16):
        """The net on channel `channel`'s multiplexer input: HALLn for a sensor, GND for an unused one."""
        mux, text = self.mux_input(channel, per_group)
        number = text.split()[1]
        return next((net for net, nodes in self.nets.items() if (mux, number) in nodes), None)

    def decoder(self):
        return self.one("GROUP_ENABLE", pin="G1")

    def group_switch(self, group):
        """(the P-MOSFET that powers group `group`'s sensors, the resistor from the decoder to its gate)."""
        fet = self.one("+3V3_GROUP%d" % group, pin="D")
        gate = "GROUP%d_GATE" % group
        resistor = [r for r in self.on(gate) if r != fet and r in self.on("GROUP%d_N" % group)]
        return fet, resistor[0] if resistor else None

    def select_line(self, line):
        """(net, the devkit's pin name on it, the multiplexers' pin number) of select line `line`."""
        net = "MUX_S%d" % line
        pins = dict(self.nets[net])
        devkit = self.devkit()
        return net, self.pin_name(devkit, pins[devkit]), pins[self.mux(0)]

    def led(self, index):
        """The LED at chain position `index` (0: the first, fed by the level shifter)."""
        return self.one("LED_DIN%d" % index, pin="DIN")

    def led_supply(self):
        """The strip's 5 V path, in the order it turns on: {"fuse": the current limit on LED_POWER's EN
        pin, "limit": its ILIM resistor, "switch": the soft start on its ON pin, "rise": that one's CT
        capacitor, "strip": the net it feeds, "pull_down": the resistor holding LED_POWER low at boot,
        "gpio": the devkit's pin}."""
        fuse, switch = self.one("LED_POWER", pin="EN"), self.one("LED_POWER", pin="ON")

        def net(ref, pin):
            number = next(n for n, name in self.pin_names[self.kind(ref)].items() if name == pin)
            return next(net for net, nodes in self.nets.items() if (ref, number) in nodes)

        def beside(ref, pin):  # the other part on `ref`'s pin named `pin`
            return next(r for r in self.on(net(ref, pin)) if r != ref)

        devkit = self.devkit()
        return {"fuse": fuse, "limit": beside(fuse, "ILIM"), "switch": switch, "rise": beside(switch, "CT"),
                "strip": net(switch, "VOUT"),
                "pull_down": next(r for r in self.on("LED_POWER") if r not in (fuse, switch, devkit)),
                "gpio": self.pin_name(devkit, dict(self.nets["LED_POWER"])[devkit])}

    def button(self):
        return self.one("BUTTON", pin="A")

    def devkit(self):
        """The ESP32 devkit: the part on the button's net that is not the button."""
        return [r for r in self.on("BUTTON") if r != self.button()][0]


@lru_cache(maxsize=1)
def load():
    spec = importlib.util.spec_from_file_location("doce_schematic", SCHEMATIC)
    schematic = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(schematic)  # its constants only: SKiDL is imported by its Board, not here
    return Circuit(NETLIST.read_text(), schematic.KINDS)
