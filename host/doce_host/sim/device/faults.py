"""The PCB's faults in the simulated board: what a maker's soldering may leave wrong, for `doce check
board` to find (machine.py's ADC and pins, neopixel.py's strip consult it). Loaded only when the
simulator solders a fault in (side_channel.py, "fault"), so a sound board's simulator carries none of it.
"""

import machine


def installed():
    """The board's Faults, made at the first fault."""
    if machine.faults is None:
        machine.faults = Faults()
    return machine.faults


class Faults:
    """What a maker's soldering may leave wrong on the PCB, for `doce check board` to find: each one
    changes what the ADC reads, the strip shows or the button pin reads, as the copper would. Set by
    the simulator's side channel ("fault": Faults.set); a sound board has none, and its reads take
    read_u16's short path.

      dead         channels whose sensor's output is stuck at 0 V (dead, or its VCC pin open)
      unpowered    groups whose supply switch gives nothing (its P-MOSFET or gate resistor open)
      stuck        {select line: level} a multiplexer select net shorted to GND (0) or 3.3 V (1)
      swapped      (j, k): select nets j and k crossed between the ESP32 and the multiplexers
      open         channels whose multiplexer input is not connected: it floats
      shorted      {channel: "gnd" | "3v3" | channel}: bridged to ground, to 3.3 V (a sensor's OUT
                   to its VCC pin), or to a neighbouring channel (two inputs of a multiplexer)
      disabled     groups whose multiplexer is never enabled (its ~E pin not joined to the decoder)
      chain_break  the LED whose data input gets nothing: it and every LED after it stay dark
      led_swap     (i, j): LEDs i and j sit in each other's places
      button       "pressed" (bridged to ground) or "open" (never closes)
      led_fuse     the LED supply's fuse latched off (by a transient): the strip dark until
                   the firmware takes its EN low (machine.fuse_latched)
    """

    def __init__(self):
        self.clear()

    def clear(self):
        self.dead, self.unpowered, self.open, self.disabled = set(), set(), set(), set()
        self.stuck, self.shorted = {}, {}
        self.swapped = self.chain_break = self.led_swap = self.button = None
        self.any = False
        machine.forced.clear()
        machine.fuse_latched = False

    def set(self, kind, **a):
        if kind == "clear":
            return self.clear()
        if kind == "dead_sensor":
            self.dead.add(a["channel"])
        elif kind == "no_supply":
            self.unpowered.add(a["group"])
        elif kind == "address_stuck":
            self.stuck[a["line"]] = 1 if a["level"] else 0
        elif kind == "address_swap":
            self.swapped = tuple(a["lines"])
        elif kind == "open_channel":
            self.open.add(a["channel"])
        elif kind == "short_channel":
            self.shorted[a["channel"]] = a["to"]
            if type(a["to"]) is int:  # a bridge joins both
                self.shorted[a["to"]] = a["channel"]
        elif kind == "mux_off":
            self.disabled.add(a["group"])
        elif kind == "led_break":
            self.chain_break = a["led"]
        elif kind == "led_swap":
            self.led_swap = tuple(a["leds"])
        elif kind == "led_fuse":
            machine.fuse_latched = True
        elif kind == "button":
            self.button = a["stuck"]
            machine.forced[machine.spec["button"]] = 0 if a["stuck"] == "pressed" else 1
        else:
            raise ValueError("no such fault: %s" % kind)
        self.any = bool(self.dead or self.unpowered or self.stuck or self.swapped or self.open or self.shorted
                        or self.disabled)

    def address(self, commanded):
        """The multiplexer input the select nets pick when the ESP32 drives `commanded`."""
        levels = [(commanded >> k) & 1 for k in range(4)]
        if self.swapped:
            j, k = self.swapped
            levels[j], levels[k] = levels[k], levels[j]
        for k, level in self.stuck.items():
            levels[k] = level
        return levels[0] | levels[1] << 1 | levels[2] << 2 | levels[3] << 3

    def level(self, channel, group):
        """What sensor `channel`'s output is at while `group` is the one switched on."""
        if channel // 16 != group or group in self.unpowered or channel in self.dead:
            return 0  # unpowered (its group off, or no supply) or dead: its output sits at ground
        return machine.world.level[channel]

    def read(self, commanded, enabled):
        group = commanded >> 4
        if not enabled or group in self.disabled:
            return machine.world.noisy(machine.sense)  # no multiplexer drives SENSE: it holds
        channel = group << 4 | self.address(commanded & 15)
        if channel in self.open:
            return machine.world.noisy(machine.sense)
        to = self.shorted.get(channel)
        if to == "gnd":
            level = 0
        elif to == "3v3":
            level = 65535  # above the 11 dB range's top: the ADC reads full scale
        elif to is not None:  # two outputs bridged: each drives the pair to between their levels
            level = (self.level(channel, group) + self.level(to, group)) // 2
        else:
            level = self.level(channel, group)
        machine.sense = level
        return machine.world.noisy(level)

    def show(self, sent, buf):
        """What each LED's place shows after a write of `buf` (`sent`: what they showed before)."""
        swap = self.led_swap or (-1, -1)
        for i in range(len(buf) // 3):
            j = swap[1] if i == swap[0] else swap[0] if i == swap[1] else i  # the chain's LED in place i
            if self.chain_break is None or j < self.chain_break:  # past the break no data comes: it keeps its light
                sent[i * 3:i * 3 + 3] = buf[j * 3:j * 3 + 3]
