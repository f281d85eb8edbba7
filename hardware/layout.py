"""Where every part of the board sits, from board.json: the one place that turns its numbers
into positions and heights, for the PCB (pcb.py), the mechanics (mechanics.py) and the tests.

Board frame, millimetres: a1's centre is the origin, x runs along the files (a..e, east), y
along the ranks (1..5, north, towards black's side). Heights z are from the PCB's top face up.
Plain Python (no numpy): KiCad's own Python runs it too.
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
BOARD_FILE = HERE / "board.json"
RING = "CNESW"
DEVKIT_ROWS_MM = 25.4  # ESP32-DevKitC V4: its two 19-pin rows are 1 inch apart, 2.54 mm pitch
# The devkit's antenna end: its board reaches 7.62 mm beyond the pin-1 row (the ESP32-DevKitC V4
# outline, 27.9 x 56.6 mm, with 3V3 at 7.62 mm from that end: Wokwi's board definition,
# wokwi/wokwi-boards boards/esp32-devkit-c-v4/board.json). The ESP32-WROVER-E's PCB antenna lies
# across that end, as wide as the module: 18.0 mm (ESP32-WROVER-E datasheet, physical dimensions:
# 18.00 x 31.40 mm), centred between the rows, from 1.12 to 7.01 mm beyond the pin-1 row: the
# antenna's outline in Espressif's own footprint of the devkit (espressif/kicad-libraries,
# footprints/Espressif.pretty/ESP32-DevKitC.kicad_mod, F.SilkS rectangle x 3.73-21.71, y -1.12 to
# -7.01 mm from pin 1, 3V3). The module's own footprint agrees (ESP32-WROVER-E.kicad_mod there: its
# "Antenna Area" 6.31 mm deep at the module's end, its edge 1.13 mm beyond pad 1's row).
DEVKIT_END_MM = 7.62
MODULE_WIDTH_MM = 18.0
ANTENNA_FROM_PIN1_MM = (1.12, 7.01)
# How high the antenna stands over our top copper: our socket 8.5, the devkit header's spacer
# 2.54, the devkit's 1.6 mm board (mechanics.py's USB figures) and the module's own board,
# taken as nothing (the least)
ANTENNA_ABOVE_MM = 8.5 + 2.54 + 1.6
# Espressif's ESP32 Hardware Design Guidelines (PCB Layout Design, "Positioning a Module on a Base
# Board"; figure "Keepout Zone for ESP32 Module's Antenna"): no copper under the module's antenna,
# a clearance area at least 15 mm beside it, and "a clearance of at least 15 mm ... in all
# directions"
ANTENNA_CLEARANCE_MM = 15.0
# Under the antenna, on its fourth side (towards the module's body, where Espressif's figure has the
# module itself): no copper within this much of its outline in the board's plane. As much as the
# sockets' pin-1 pads allow: they lie 2.85 mm beside the antenna's span (1.7 mm pads on the rows,
# the antenna 3.7 mm in from each), and a track needs a clearance and half its width past them.
ANTENNA_UNDER_MARGIN_MM = 2.0
GRID_MM = 0.5  # the router's grid (router.py): every pad 0.5 mm or more across holds a grid point
STEP = {"C": (0, 0), "N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}


class Layout:
    def __init__(self, spec):
        self.spec = spec
        ph, me = spec["physics"], spec["mechanics"]
        self.physics, self.mech = ph, me
        self.pitch, self.grid = ph["square_mm"], spec["grid"]
        half, far = self.pitch / 2, (self.grid - 1) * self.pitch + self.pitch / 2
        b = me["border_mm"]
        self.grid_box = (-half, -half, far, far)
        self.plate_box = (-half - b, -half - b, far + b, far + b)  # the floor plate and the well sheet
        x0, y0, x1, y1 = self.plate_box
        self.pcb_box = (x0, y0, x1 + me["strip_mm"], y1)  # the plate's area, and a strip east of it
        self.strip_box = (x1, y0, x1 + me["strip_mm"], y1)

    # --- the squares and what is under them ------------------------------------------------
    def square_centre(self, name):
        return (ord(name[0]) - ord("a")) * self.pitch, (int(name[1:]) - 1) * self.pitch

    def sensors(self):
        """{channel: (square, 'C'|'N'|'E'|'S'|'W', x, y)}: each hall sensor's centre."""
        ring, out = self.physics["ring_mm"], {}
        for square, channels in self.spec["squares"].items():
            cx, cy = self.square_centre(square)
            for where, ch in zip(RING, channels):
                sx, sy = STEP[where]
                out[ch] = (square, where, cx + sx * ring, cy + sy * ring)
        return out

    def leds(self):
        """{chain index: (what it serves, x, y)}: a square's LED at leds.offset_mm from its centre,
        the turn LEDs in the plate's border on each player's edge, under the files turn_files."""
        leds, out = self.spec["leds"], {}
        dx, dy = leds["offset_mm"]
        for square, i in leds["squares"].items():
            cx, cy = self.square_centre(square)
            out[i] = ("under " + square, cx + dx, cy + dy)
        x0, y0, x1, y1 = self.grid_box
        b = self.mech["border_mm"]
        xs = [self.square_centre(f + "1")[0] for f in leds["turn_files"]]
        # the chain reaches black's edge (north) from e5, so it runs there east to west
        for player, y, files in (("black", y1 + b / 2, xs[::-1]), ("white", y0 - b / 2, xs)):
            for i, x in zip(leds["turn"][player], files):
                out[i] = ("%s's edge" % player, x, y)
        return out

    def wells(self):
        """(x, y, side) of every well in the well sheet."""
        side = self.physics["well_mm"][0]
        return [self.square_centre(sq) + (side,) for sq in self.spec["squares"]]

    # --- the strip east of the plate: every part too tall to sit under it -------------------
    def _snap(self, v):
        return round(v / GRID_MM) * GRID_MM

    def strip(self):
        """{ref: (x, y, degrees)} for the parts in the strip, by the references schematic.py
        keeps stable: U1 devkit, U2-U9 multiplexers (Q and R of the same group beside each),
        U10 decoder, U11 level shifter, U12 soft start, SW1 the button. The multiplexers stand
        in a column ordered by where their groups' sensors are (north first), so the sensors'
        tracks cross as little as they can; the LED supply's parts sit low in the east column,
        over the inner layer's 5 V plane (pcb.py)."""
        x0, y0, x1, y1 = self.strip_box
        groups, per = self.spec["sensing"]["groups"], self.spec["sensing"]["channels_per_group"]
        step = (y1 - y0 - 10) / groups
        ys = {g: [] for g in range(groups)}
        for ch, (_, _, _, y) in self.sensors().items():
            ys[ch // per].append(y)
        north_first = sorted(range(groups), key=lambda g: (-sum(ys[g]) / max(1, len(ys[g])), g))
        out = {}
        for slot, g in enumerate(north_first):
            y = self._snap(y1 - 12 - slot * step)
            out["U%d" % (g + 2)] = (self._snap(x0 + 14), y, 0)
            out["Q%d" % (g + 1)] = (self._snap(x0 + 24), y + 3, 0)
            out["R%d" % (g + 1)] = (self._snap(x0 + 24), y - 2, 90)
        out["U1"] = (self._snap(x0 + 30), self._snap(y0 + 8 + 18 * 2.54), 0)  # pin 1; pin 19 (5V, USB) south
        col = self._snap(x0 + 63)  # east of the devkit
        out["U10"] = (col, self._snap(y1 - 15), 0)
        out["R10"] = (col, self._snap(y1 - 28), 90)
        out["U11"] = (col, self._snap(y0 + 45), 0)
        out["R11"] = (col, self._snap(y0 + 51), 90)
        out["U12"] = (col, self._snap(y0 + 30), 0)
        out["U13"] = (col, self._snap(y0 + 23.5), 0)  # the LED supply's current limit, before the soft start
        out["SW1"] = (self._snap(x0 + 45), self._snap(y1 - 12), 0)
        return out

    def antenna(self):
        """(x0, y0, x1, y1): the devkit's WROVER antenna as seen from above, where Espressif's
        footprint of the devkit draws it beyond the pin-1 row (ANTENNA_FROM_PIN1_MM), as wide as
        the module."""
        x, y, _ = self.strip()["U1"]
        mid = x + DEVKIT_ROWS_MM / 2
        near, far = ANTENNA_FROM_PIN1_MM
        return (mid - MODULE_WIDTH_MM / 2, y + near, mid + MODULE_WIDTH_MM / 2, y + far)

    def antenna_keepout(self):
        """(x0, y0, x1, y1): no copper on any layer (pcb.py). North of the devkit's pin-1 pads, and
        ANTENNA_CLEARANCE_MM beside the antenna to the north and east; to the west only as far as
        the group switches' column, which leaves every copper edge at least ANTENNA_CLEARANCE_MM
        from the antenna in space (the antenna stands ANTENNA_ABOVE_MM over it)."""
        ax0, ay0, ax1, ay1 = self.antenna()
        pin1 = self.strip()["U1"][1]
        c = ANTENNA_CLEARANCE_MM
        west = max(ax0 - c, self.strip()["Q1"][0] + 1.5)  # the switches' pads end 1.25 mm east of their centres
        pad = 1.7 / 2 + 0.5  # the sockets' pin-1 pads, and room for a track's clearance
        return (west, pin1 + pad, min(ax1 + c, self.pcb_box[2] - 3.0), ay1 + c)

    def antenna_under(self):
        """(x0, y0, x1, y1): no copper on any layer either: the antenna's outline and
        ANTENNA_UNDER_MARGIN_MM round it, between the sockets' rows, down past its south edge
        (the module's side) to where antenna_keepout() begins north of the pin-1 pads."""
        ax0, ay0, ax1, _ = self.antenna()
        m = ANTENNA_UNDER_MARGIN_MM
        return (ax0 - m, ay0 - m, ax1 + m, self.antenna_keepout()[1] + 1.0)

    def antenna_keepouts(self):
        """Both boxes where no copper goes: beside and beyond the antenna, and under its south edge."""
        return [self.antenna_keepout(), self.antenna_under()]

    def devkit_usb(self):
        """Where the devkit's USB socket reaches the PCB's south edge."""
        x, _, _ = self.strip()["U1"]
        return x + DEVKIT_ROWS_MM / 2, self.pcb_box[1]

    def usb_c(self):
        """Where the board's USB-C power input (J1, revision B) meets the PCB's south edge: under the
        devkit's USB end (the devkit stands 8.5 mm up on its sockets), as near its west socket row
        as the courtyards allow (pcb.py: the row's 1.52 mm, the receptacle's 6.55 mm, 0.4 mm
        between), so its VBUS has a short way to the devkit's 5V pin (19, that row's south end);
        its cable's opening in the south wall is the devkit's USB notch's, widened (mechanics.py)."""
        x, _, _ = self.strip()["U1"]
        return self._snap(x + 1.52 + 6.55 + 0.4), self.pcb_box[1]

    # --- holes ------------------------------------------------------------------------------
    def plate_holes(self):
        """M3 holes through the well sheet, the plate, its spacers and the PCB: the plate's
        corners, the middles of its west and east edges, and two on each of the north and south
        edges, on the ribs either side of the middle file: halfway between the turn LEDs, which
        sit in the same border (hardware/floor.py: how far a press bows the plate)."""
        x0, y0, x1, y1 = self.plate_box
        i = self.mech["hole_inset_mm"]
        mid = self.square_centre(self.spec["leds"]["turn_files"][1] + "1")[0]
        ribs = (mid - self.pitch / 2, mid + self.pitch / 2)
        return [(x0 + i, y0 + i), (x1 - i, y0 + i), (x1 - i, y1 - i), (x0 + i, y1 - i),
                (x0 + i, (y0 + y1) / 2), (x1 - i, (y0 + y1) / 2)] + [
                (x, y) for y in (y0 + i, y1 - i) for x in ribs]

    def pcb_holes(self):
        """Every hole in the PCB: the plate's, and two at the strip's far corners (standoffs only)."""
        x0, y0, x1, y1 = self.pcb_box
        i = self.mech["hole_inset_mm"]
        return self.plate_holes() + [(x1 - i, y0 + i), (x1 - i, y1 - i)]

    # --- heights ----------------------------------------------------------------------------
    # z = 0 is the PCB laminate's top face. A sensor stands on its pads, the floor on shims that
    # stand on solder mask over bare laminate (no copper within 4 mm of a hole: pcb.KEEPOUT_MM).
    # Each term is board.json mechanics, (low, high) or one value:
    # - pad_copper_mm 0.035: 1 oz finished outer copper, the fab's (JLCPCB capabilities:
    #   "finished outer layer copper 1 oz (35 um)"; README: order 1 oz outer);
    # - solder_mm 0.03-0.09: the joint under each lead, estimated from the stencil (no standard
    #   gives it; IPC-A-610 asks only for a wetted fillet). The paste's finished height on a
    #   land is stencil x aperture/pad x solder volume 0.55 x shape 1.4 (Klein Wassink,
    #   Manufacturing Techniques for Surface Mount Assemblies): a 0.10-0.12 mm stencil with
    #   apertures 0.7-1.0 of the SOT-23 pad (JLCPCB's aperture rule: 45-60 % of the pitch)
    #   gives 0.054-0.092 mm, the high end; the lead sinks into its paste, to about half the
    #   thinnest print (our estimate) at the low end. HASL on the pads melts into the joint;
    # - sensor_height_mm 0.89-1.12: the SOT-23 above its seating plane (JEDEC TO-236, A);
    # - mask_mm 0.01-0.03: LPI solder mask on bare laminate under a shim (typically 0.02 mm,
    #   about 0.8 mil; no fab specifies it: our range);
    # - spacer_mm: the DIN 988 shims (mechanical.shims), each ring within its thickness tolerance:
    #   spacer_tol_mm for the stack, +-0.03 mm for the 1.0 mm ring and +-0.01 mm for the 0.2 mm one
    #   (the tolerances suppliers' DIN 988 tables give; the standard's own table not read here).
    def sensor_top_range(self):
        """(lowest, highest) z of a sensor's top: pad copper + solder joint + package."""
        me = self.mech
        return tuple(me["pad_copper_mm"] + s + h for s, h in zip(me["solder_mm"], me["sensor_height_mm"]))

    def floor_bottom_range(self):
        """(lowest, highest) z of the floor's underside: the mask under the shims + the shims, each
        end of both ranges."""
        lo, hi = self.mech["mask_mm"]
        spacer, tol = self.mech["spacer_mm"], self.mech["spacer_tol_mm"]
        return lo + spacer - tol, hi + spacer + tol

    def stack(self):
        """z of each level above the PCB's top face, nominal parts (each range's middle)."""
        me, ph = self.mech, self.physics
        bottom = sum(self.floor_bottom_range()) / 2
        floor = bottom + ph["floor_mm"][0]
        return {"pcb_bottom": -me["pcb_mm"], "sensor_top": sum(self.sensor_top_range()) / 2,
                "floor_bottom": bottom, "floor_top": floor, "wells_top": floor + ph["well_depth_mm"],
                "enclosure_floor": -me["pcb_mm"] - me["standoff_mm"]}

    def air_range(self):
        """(least, most) air between the floor and a sensor's top: the lowest floor over the
        highest sensor, the highest floor over the lowest. Where a sensor stands higher than
        the floor's underside the floor rests on it: 0 (how far it props the floor up:
        `overlap`)."""
        lo, hi = self.floor_bottom_range()
        top_lo, top_hi = self.sensor_top_range()
        return max(0.0, lo - top_hi), hi - top_lo

    def overlap(self):
        """How far the highest sensor stands above the lowest floor (0 if it never does)."""
        return max(0.0, self.sensor_top_range()[1] - self.floor_bottom_range()[0])

    def nominal_air(self):
        """The air over a sensor with every part at the middle of its range."""
        s = self.stack()
        return s["floor_bottom"] - s["sensor_top"]

    def hall_depth(self, sensor_top, floor_bottom):
        """How far below the floor's top the Hall element of a sensor whose top is at z =
        sensor_top sits, under a floor whose underside is at floor_bottom (the floor resting on
        the sensor where it stands higher)."""
        air = max(0.0, floor_bottom - sensor_top)
        return self.physics["floor_mm"][0] + air + self.physics["sensor"]["hall_depth_mm"][0]


def load(path=BOARD_FILE):
    return Layout(json.loads(Path(path).read_text()))
