"""hardware/board.json read as every `doce` command that uses it reads it: someone may have written it
by hand. A regular file of at most MAX_BYTES, JSON of any depth refused in one line, the firmware's own
check (doce/board.py: what a board needs to boot), and what only the host reads besides: the
magnetic model's and the mechanics' dimensions and the LEDs' currents (SHAPES: every field the simulator, the physics
model, `doce check board` and the drawings read, present, of its kind and in its range), and the
edge lights' files that `doce check board` names.
"""

import json
import math

from .files import read_text

MAX_BYTES = 256 * 1024  # the board file is about 8 KB
TEXT_KEYS = ("about", "part")  # the only words among the dimensions: what a section is, a part's name
DIMENSIONS = ("physics", "mechanics", "power")

# What each field the host reads must be: POSITIVE a number above 0, SIZE one of at least 0, COUNT a
# whole number above 0 (of things or reads: none would be no check), TOLERANCE [nominal above 0, tolerance
# at least 0], SPAN [low, high] with 0 <= low <= high
POSITIVE, SIZE, COUNT, TOLERANCE, SPAN = "positive", "size", "count", "tolerance", "span"
SHAPES = {
    "physics": {
        "square_mm": POSITIVE, "ring_mm": POSITIVE, "die_mm": TOLERANCE, "well_mm": TOLERANCE,
        "well_depth_mm": POSITIVE, "floor_mm": TOLERANCE, "air_mm": TOLERANCE,
        "magnet": {"diameter_mm": POSITIVE, "height_mm": POSITIVE, "size_tol_mm": SIZE, "remanence_mT": SPAN,
                   "place_tol_mm": SIZE, "pocket_mm": SPAN, "face_recess_mm": SPAN},
        "sensor": {"supply_V": POSITIVE, "supply_mA": SPAN, "hall_depth_mm": TOLERANCE,
                   "sensitivity_mV_per_mT": SPAN, "quiescent_V": SPAN, "rail_headroom_V": SPAN, "noise_mV_rms": SIZE},
        "adc": {"vref_mV": SPAN, "inl_lsb": SIZE, "noise_counts": SIZE},
        "rail": {"group_sensors": COUNT, "sensor_decoupling_nF": SIZE, "track_mV": SIZE, "bulk_uF": SPAN,
                 "recovery_us": POSITIVE, "load_regulation": SIZE, "switch_mohm": SIZE, "regulator_V": SPAN},
    },
    # the simulator's LED current limit (sim/device/network.py); the caps are the firmware's check's
    "power": {"led_budget_ma": POSITIVE, "led_ma_per_channel": POSITIVE, "led_budget_wifi_ma": POSITIVE},
    "mechanics": {
        "pcb_mm": POSITIVE, "pad_copper_mm": SIZE, "solder_mm": SPAN, "sensor_height_mm": SPAN, "mask_mm": SPAN,
        "spacer_mm": SIZE, "spacer_tol_mm": SIZE, "border_mm": SIZE, "strip_mm": POSITIVE, "hole_mm": POSITIVE,
        "hole_inset_mm": POSITIVE, "standoff_mm": POSITIVE, "wall_mm": POSITIVE,
        "jig": {"wall_mm": POSITIVE, "fit_mm": SIZE, "drill_mm": POSITIVE, "drill_point_deg": POSITIVE,
                "guide_mm": POSITIVE},
        "laser": {"kerf_wells_mm": SIZE, "taper_wells_mm": SIZE, "kerf_enclosure_mm": SIZE},
        # doce dice magnets (host/doce_host/magnets.py): the host's alone, so not in sensing, which the board gets
        "magnet_check": {"cup_floor_mm": POSITIVE, "pocket_mm": POSITIVE, "outside_mm": POSITIVE,
                         "keep_percent": POSITIVE, "judge_from": COUNT, "level_range": SPAN,
                         "refused_under_percent": SIZE, "most_percent": POSITIVE, "steady_reads": COUNT,
                         "empty_reads": COUNT, "stack_away_mm": POSITIVE},
    },
}


def load(path):
    """The board file at `path`, checked: its spec, or ValueError in one line (FileError is one)."""
    return load_text(read_text(path, MAX_BYTES, "a board file"))


def load_text(text):
    """A board file's text, checked (load)."""
    from doce.board import Board
    if text.startswith("\ufeff"):  # json.loads refuses it, and so would the board
        raise ValueError("board file: starts with a UTF-8 byte order mark: save it as UTF-8 without one")
    try:
        spec = json.loads(text, object_pairs_hook=one_each)
    except RecursionError:
        raise ValueError("board file: nested deeper than any board file is") from None
    Board(spec)
    for section in DIMENSIONS:
        if section not in spec:
            raise ValueError("board file: %s: missing" % section)
        if section == "physics" and type(spec[section]) is dict and type(spec[section].get("magnet")) is dict:
            toward(spec[section]["magnet"])
        dimensions(spec[section], section)
        shaped(spec[section], SHAPES[section], section)
    turn_files(spec)
    drawn(spec["leds"])
    # revision B's LED supply switch (doce/esp32.py lights the strip only through it; the firmware
    # still boots a revision A board without one, but this project's board, and its checks, have it)
    if "led_power" not in spec["pins"]:
        raise ValueError("board file: pins.led_power: missing (the GPIO of the LED strip's supply switch)")
    linux_pins(spec)
    return spec


TOWARD_KEYS = ("white", "black", "white blocker", "black blocker")


def toward(magnet):
    """physics.magnet.toward (optional): for a kind of die ("white", "black blocker", ...), the face each
    face's N is glued toward (physics/geometry.py glue_toward): a neighbour, never itself or its opposite.
    dimensions() would take any number in it."""
    rules = magnet.get("toward", {})
    if type(rules) is not dict or not all(kind in TOWARD_KEYS and type(rule) is dict and sorted(rule) == list("123456")
                                          and all(whole_face(rule[f]) and rule[f] not in (int(f), 7 - int(f))
                                                  for f in rule) for kind, rule in rules.items()):
        raise ValueError("board file: physics.magnet.toward: for each of %s, the face (1 to 6, a neighbour) "
                         "each face \"1\" to \"6\" points its N at" % ", ".join(TOWARD_KEYS))


def whole_face(value):
    return type(value) is int and 1 <= value <= 6


def one_each(pairs):
    """An object of JSON, every key in it once: which of two would count, the first or the last?"""
    found = {}
    for key, value in pairs:
        if key in found:
            raise ValueError("board file: the key %s appears twice in one object" % json.dumps(key)[:70])
        found[key] = value
    return found


def drawn(leds):
    """leds.offset_mm and package_mm, which the drawings and the mechanics read (hardware/layout.py)."""
    offset, package = leds.get("offset_mm"), leds.get("package_mm")
    if type(offset) is not list or len(offset) != 2 or not all(number(v) for v in offset):
        raise ValueError("board file: leds.offset_mm: a list of two numbers, a square's LED from its centre [x, y]")
    if type(package) is not list or len(package) != 3 or not all(number(v) and v > 0 for v in package):
        raise ValueError("board file: leds.package_mm: a list of three numbers above 0, the LED's width, length "
                         "and height")


LINUX_PINS = ("sensor_adc_cs", "mux_select", "group_select", "group_enable", "leds", "button")


def linux_pins(spec):
    """linux_pins: Blinka's names of the pins on the Linux target (doce/linux.py): each a short word."""
    pins = spec.get("linux_pins")
    if type(pins) is not dict:
        raise ValueError("board file: linux_pins: %s" % ("missing" if pins is None else
                                                         "an object of the Linux target's pin names"))
    for key in LINUX_PINS:
        if key not in pins:
            raise ValueError("board file: linux_pins.%s: missing" % key)
        value = pins[key]
        if key in ("mux_select", "group_select"):
            count = 4 if key == "mux_select" else len(spec["pins"]["group_select"])
            if type(value) is not list or len(value) != count or not all(pin_name(v) for v in value):
                raise ValueError("board file: linux_pins.%s: a list of %d pins' names, as pins.%s has GPIOs"
                                 % (key, count, key))
        elif not pin_name(value):
            raise ValueError("board file: linux_pins.%s: a pin's name (Blinka's board module: D18, CE0)" % key)


def pin_name(value):
    return type(value) is str and 0 < len(value) <= 16 and value.isascii() and value.replace("_", "").isalnum()


OBJECTS = ("toward",)  # the one object among the dimensions SHAPES does not list (toward() checks it)


def shaped(value, shape, field):
    """Each field of `shape` present in `value` (dimensions() has seen its numbers) and in its range."""
    if type(value) is not dict:
        raise ValueError("board file: %s: an object" % field)
    for key, item in value.items():  # a field no one here reads: a number or a list, as its neighbours
        if key not in shape and key not in OBJECTS and type(item) is dict:
            raise ValueError("board file: %s.%s: a number, not an object" % (field, key))
    for key, kind in shape.items():
        name = "%s.%s" % (field, key)
        if key not in value:
            raise ValueError("board file: %s: missing" % name)
        v = value[key]
        if type(kind) is dict:
            shaped(v, kind, name)
        elif kind == COUNT:
            if type(v) is not int or v < 1:
                raise ValueError("board file: %s: a whole number above 0, not %s" % (name, json.dumps(v)[:40]))
        elif kind in (POSITIVE, SIZE):
            if not number(v):  # dimensions() lets an object of numbers through: a section has them
                raise ValueError("board file: %s: a number, not %s" % (name, "a list" if type(v) is list else
                                                                          "an object" if type(v) is dict
                                                                          else json.dumps(v)[:40]))
            if not (v > 0 if kind == POSITIVE else v >= 0):
                raise ValueError("board file: %s: %s, not %s" % (name, "above 0" if kind == POSITIVE else "at least 0",
                                                                 json.dumps(v)))
        elif kind == TOLERANCE:
            if type(v) is not list or len(v) != 2 or not v[0] > 0 or not v[1] >= 0:
                raise ValueError("board file: %s: a list of two numbers [nominal, tolerance], the nominal above 0 "
                                 "and the tolerance at least 0" % name)
        elif type(v) is not list or len(v) != 2 or not 0 <= v[0] <= v[1]:
            raise ValueError("board file: %s: a list of two numbers [low, high], 0 <= low <= high" % name)


def turn_files(spec):
    """leds.turn_files: the file letter beside each edge light, as `doce check board` names them."""
    from doce.squares import square_name
    files = spec["leds"].get("turn_files")
    letters = [square_name(spec["grid"], i)[0] for i in range(spec["grid"])]
    if type(files) is not list or not all(type(f) is str and f in letters for f in files) or \
            any(len(files) != len(lights) for lights in spec["leds"]["turn"].values()):
        raise ValueError("board file: leds.turn_files: a list of file letters (%s..%s), one for each edge light "
                         "of a side" % (letters[0], letters[-1]))


def number(value):
    return type(value) in (int, float) and math.isfinite(value)


def dimensions(value, field):
    """Every value under `field` a finite number, a list of them ([nominal, tolerance], [low, high]),
    or an object of such; words only as TEXT_KEYS."""
    if type(value) is dict:
        for key, item in value.items():
            if key in TEXT_KEYS:
                if type(item) is not str:
                    raise ValueError("board file: %s.%s: words, a description" % (field, key))
            else:
                dimensions(item, "%s.%s" % (field, key))
    elif type(value) is list:
        if not value or not all(number(v) for v in value):
            raise ValueError("board file: %s: a list of numbers" % field)
    elif not number(value):
        raise ValueError("board file: %s: a number, not %s" % (field, json.dumps(value)[:40]))
