"""The board file's check (hardware/board.json): every field the firmware reads, of the type and in
the range it needs, and every pin a GPIO a DOCE board can use as it uses it. doce/board.py runs it
once, at boot (and doce_host/board_file.py before any command uses the file), and lets it go.
"""

from .squares import square_name


# The ESP32's GPIOs (ESP32 Series datasheet, "Pin Definitions"; hardware/README.md, "ESP32 pin map"):
# 0-39 but 20, 24 and 28-31; 34-39 are inputs only, without pull-ups; ADC1 (32-39) is the ADC that
# works with Wi-Fi on. None the module already uses (6-11 its flash, 16 and 17 the WROVER's PSRAM,
# 1 and 3 the USB serial) nor that decides how the chip boots (strapping pins 0, 2, 5, 12, 15).
NO_GPIO = (20, 24, 28, 29, 30, 31)
TAKEN_GPIO = (0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17)
ADC1 = (32, 39)
PINS = ("sensor_adc", "mux_select", "group_select", "group_enable", "leds", "button")


def need(ok, field, why):
    if not ok:
        raise ValueError("board file: %s: %s" % (field, why))


def whole(value, low, high):
    """An int from low to high (JSON's true and 1.0 are not)."""
    return type(value) is int and low <= value <= high


def check_pins(pins):
    """Every pins.* a GPIO a DOCE board can use, and as it is used: machine.Pin takes any number,
    and a board given another would not boot, or would read and light nothing."""
    need(type(pins) is dict and all(name in pins for name in PINS), "pins", "an object naming " + ", ".join(PINS))
    used = []
    for name in sorted(pins):
        value = pins[name]
        numbers = value if type(value) is list and value else [value]
        for n in numbers:
            field = "pins." + name
            need(whole(n, 0, 39) and n not in NO_GPIO, field, "%r is no ESP32 GPIO (0-39, no 20, 24 or 28-31)" % (n,))
            need(n not in TAKEN_GPIO, field, "GPIO %d is the module's own (its flash, PSRAM, USB serial) or decides "
                                             "how the chip boots" % n)
            if name in ("sensor_adc", "supply_cc"):
                need(ADC1[0] <= n <= ADC1[1], field, "GPIO %d is not on ADC1 (GPIO 32-39), the ADC that works with "
                                                     "Wi-Fi on" % n)
            else:
                need(n < 34, field, "GPIO %d is an input without pull-up: it can drive nothing, nor read a button" % n)
            used.append(n)
    need(len(set(used)) == len(used), "pins", "no GPIO used twice")
    need(type(pins["mux_select"]) is list and len(pins["mux_select"]) == 4, "pins.mux_select",
         "the 4 multiplexer select pins")
    need(type(pins["group_select"]) is list and len(pins["group_select"]) >= 1, "pins.group_select",
         "a list of the group select pins")
    if "supply_cc" in pins:  # revision B: the USB-C input's CC1 and CC2 (doce/supply.py)
        need(type(pins["supply_cc"]) is list and len(pins["supply_cc"]) == 2, "pins.supply_cc",
             "the USB-C input's two CC lines")


def check(spec, sensors_per_square):
    """Raise ValueError naming the first field of a board file that cannot be right (KeyError or
    TypeError for one missing or of another type than its neighbours')."""
    need(type(spec) is dict, "the file", "a JSON object")
    name = spec["board"]
    need(type(name) is str and 0 < len(name) <= 64 and all(" " <= c != "\x7f" for c in name), "board",
         "the board's name: 1 to 64 characters, none a control character")
    g = spec["grid"]
    s = spec["sensing"]
    need(whole(g, 2, 15), "grid", "2 to 15 squares a side")
    for field in ("groups", "channels_per_group", "debounce_scans", "quiet_wait_scans", "absent_below",
                  "absent_opposite_below", "present_above", "baseline_spread"):
        need(whole(s[field], 0, 65535), "sensing." + field, "a whole number")
    need(whole(s["power_on_us"], 0, 100000), "sensing.power_on_us", "the sensors' power-on wait, 0 to 100000 us")
    need(whole(s["baseline"], 1, 65535), "sensing.baseline", "an empty sensor's reading, 1 to 65535")
    need(whole(s["scan_period_ms"], 1, 1000), "sensing.scan_period_ms", "1 to 1000 ms")
    need(whole(s["idle_scan_period_ms"], s["scan_period_ms"], 1000), "sensing.idle_scan_period_ms",
         "scan_period_ms to 1000 ms")
    check_pins(spec["pins"])
    need(s["channels_per_group"] == 16, "sensing.channels_per_group", "16, read through 4 select pins")
    need(1 <= s["groups"] <= min(8, 1 << len(spec["pins"]["group_select"])), "sensing.groups",
         "1 to 8, and no more than the group select pins can pick")
    need(1 <= s["debounce_scans"] <= s["quiet_wait_scans"] <= 255, "sensing.debounce_scans",
         "1 to 255, and no more than quiet_wait_scans (at most 255)")
    need(0 < s["absent_below"] <= s["absent_opposite_below"] < s["present_above"], "sensing.absent_opposite_below",
         "at least absent_below and below present_above")
    need(type(s["fringe_percent"]) is int and 0 < s["fringe_percent"] < 100, "sensing.fringe_percent",
         "a whole percent of the centre's reading, 1 to 99")
    # above absent_below over present_above, a magnet fading with a just-present centre would
    # still count as gone under absent_below: the rule would never apply
    need(type(s["gone_percent"]) is int and 0 < s["gone_percent"] * s["present_above"] < s["absent_below"] * 100,
         "sensing.gone_percent", "a whole percent of the centre's reading, above 0 and below absent_below's "
         "percent of present_above")
    need(type(s["strict_gone_percent"]) is int and 0 < s["strict_gone_percent"] <= s["gone_percent"],
         "sensing.strict_gone_percent", "a whole percent of the centre's reading, above 0 and at most gone_percent")
    dice = spec["dice"]
    need(type(dice) is dict and sorted(dice.values()) == sorted(
        "%s %s" % (c, f) for c in ("white", "black") for f in ("1", "2", "3", "4", "5", "6", "blocker")),
        "dice", "one code for each of the 14 pieces: white 1 to 6, black 1 to 6 and each blocker")
    least = s["check_above"]
    need(type(least) is dict and sorted(least) == sorted(dice) and all(
        type(v) is list and len(v) == sensors_per_square and all(
            whole(n, s["present_above"], 65535) if c != "0" else n == 0 for c, n in zip(code, v))
        for code, v in least.items()), "sensing.check_above",
        "for each die code, five counts: at least present_above (at most 65535) where it has a magnet, 0 where not")
    need(0 < s["baseline_spread"] < s["present_above"], "sensing.baseline_spread",
         "above 0 and below present_above, or a die left on a square would calibrate away")
    names = [square_name(g, sq) for sq in range(g * g)]
    for field in ("squares", "leds.squares"):
        table = spec["squares"] if field == "squares" else spec["leds"]["squares"]
        need(sorted(table) == sorted(names), field,
             "one entry for each of %s..%s, no more" % (names[0], names[-1]))
    channels = [ch for name in names for ch in spec["squares"][name]]
    need(all(len(spec["squares"][n]) == sensors_per_square for n in names), "squares",
         "five channels for each square: C, N, E, S, W")
    need(all(whole(ch, 0, s["groups"] * 16 - 1) for ch in channels) and len(set(channels)) == len(channels),
         "squares", "every channel on a multiplexer input, and none used twice")
    # doce/board.py keeps each LED's index in a byte
    need(whole(spec["leds"]["count"], 1, 256), "leds.count", "1 to 256 LEDs")
    turn = spec["leds"]["turn"]
    need(type(turn["white"]) is list and type(turn["black"]) is list, "leds.turn", "a list of LEDs for each side")
    leds = list(spec["leds"]["squares"].values()) + turn["white"] + turn["black"]
    need(all(whole(i, 0, spec["leds"]["count"] - 1) for i in leds) and len(set(leds)) == len(leds),
         "leds", "every LED index below leds.count, and none used twice")
    for field in ("brightness_cap", "brightness_cap_wifi"):
        cap = spec["power"][field]
        need(type(cap) in (int, float) and 0 < cap <= 1, "power." + field, "above 0, at most 1")
    if "supply_cc" in spec["pins"]:
        t = spec["power"]["supply_cc_counts"]
        need(type(t) is list and len(t) == 3 and all(whole(v, 1, 65535) for v in t) and t[0] < t[1] < t[2],
             "power.supply_cc_counts", "three read_u16 thresholds, rising: a source there, 1.5 A, 3 A")
