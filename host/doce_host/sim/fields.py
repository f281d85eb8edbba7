"""What every sensor reads with the dice where the hands left them, in plain Python: the
simulator's share of the magnetic model, so that a player's install needs neither numpy nor
magpylib (about 250 MB with what they bring).

It is the model's own, one die at a time: the die's magnets come from the model's
physics.geometry (the same draws in the same order), each magnet's field from a table
magpylib made (physics.field_table: within its ERROR_MT, a few thousandths of a millitesla),
and the sensor and ADC are physics.readout's, reading by reading. tests/physics/
test_sim_fields.py holds every step to the model: the same die and pose put the magnets in
the same places as physics.dice, and the same board reads the same counts as physics.scene,
give or take one count where the table's error meets a rounding.

The simulator keeps one Scene per board. A hand changes a pose; `levels()` gives every
channel's mean `read_u16` (the device adds each read's noise). Each die's field at every
sensor is worked out once per pose and kept, so a scene of 25 dice costs a sum.
"""

import math
import random

from ..physics import adc, rail
from ..physics.field_table import Table
from ..physics.geometry import Pose, cross, face_down, frames, layout, sensor_places, square_centre, well_limits

__all__ = ["Scene", "Draw", "Parts", "place", "field_at", "counts"]

_table = None  # the field table, read once per process (about 0.7 MB)


def table():
    global _table
    if _table is None:
        _table = Table()
    return _table


class Draw:
    """physics.tolerances.Spread's draws, from Python's own generator: uniform within a range
    (a list for `size`), or the middle of it without a generator; `pins` fix one by name."""

    def __init__(self, rng=None, pins=None):
        self.rng, self.pins = rng, dict(pins or {})

    def uniform(self, low, high, size=None, name=None):
        pin = self.pins.get(name)
        n = 1 if size is None else size
        drawn = [low + (high - low) * self.rng.random() for _ in range(n)] if self.rng else None
        if pin is not None:
            drawn = [low + pin * (high - low)] * n
        elif drawn is None:
            drawn = [(low + high) / 2] * n
        return drawn[0] if size is None else drawn

    def integers(self, n, name=None):
        drawn = self.rng.randrange(n) if self.rng else 0
        return drawn if self.pins.get(name) is None else int(self.pins[name]) % n


class Parts:
    """readout.Parts for one board, as lists: per sensor its quiescent voltage (V) and
    sensitivity (mV/mT at 3.3 V) and supply (V); the ESP32's Vref (mV) and INL at each knot;
    per sensor how far short of each rail its output saturates (V; None: 0.1)."""

    def __init__(self, quiescent, sensitivity, vref, inl, supply, low=None, high=None):
        self.quiescent, self.sensitivity, self.vref, self.inl, self.supply = quiescent, sensitivity, vref, inl, supply
        self.low = low or [0.1] * len(quiescent)
        self.high = high or [0.1] * len(quiescent)
        self.curve = adc.curve(vref)

    @classmethod
    def draw(cls, physics, n, draw):
        s, a = physics["sensor"], physics["adc"]
        return cls(draw.uniform(*s["quiescent_V"], n, name="quiescent"),
                   draw.uniform(*s["sensitivity_mV_per_mT"], n, name="sensitivity"),
                   draw.uniform(*a["vref_mV"], name="vref"),
                   [x * a["inl_lsb"] for x in draw.uniform(-1, 1, adc.INL_KNOTS, name="inl")],
                   [s["supply_V"]] * n,
                   draw.uniform(*s["rail_headroom_V"], n, name="saturation low"),
                   draw.uniform(*s["rail_headroom_V"], n, name="saturation high"))


# -- a die in its pose ---------------------------------------------------------------------

def matrix_times(m, v):
    return (m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
            m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
            m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2])


def matrix_product(a, b):
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))


def seat(down, hand=0):
    """The rotation that puts face `down` on the board, its code's N towards +y (dice._seat)."""
    n, t = frames(hand)[down]
    e = cross(n, t)
    return (tuple(map(float, e)), tuple(map(float, t)), tuple(-float(c) for c in n))


def about(axis, degrees):
    """Rotation by `degrees` about the unit vector `axis` (Rodrigues)."""
    x, y, z = axis
    k = ((0.0, -z, y), (z, 0.0, -x), (-y, x, 0.0))
    kk = matrix_product(k, k)
    a = math.radians(degrees)
    s, c = math.sin(a), 1 - math.cos(a)
    return tuple(tuple((1.0 if i == j else 0.0) + s * k[i][j] + c * kk[i][j] for j in range(3)) for i in range(3))


def place(magnets, side, pose, centre=(0.0, 0.0)):
    """(positions, axes) of a die's magnets in the board frame: physics.dice.place for one pose
    (read it for the proud magnet and the pivot), `magnets` as geometry.layout gives them."""
    at0, axis0, _, size, _, proud_of, faces, recess, hand = magnets
    r = matrix_product(about((0.0, 0.0, 1.0), pose.turn), seat(pose.down, hand))
    proud = (proud_of or {}).get(pose.down, 0.0)
    shift = (centre[0] + pose.dx, centre[1] + pose.dy, side / 2 + pose.lift + proud)
    at = [tuple(p + s for p, s in zip(matrix_times(r, m), shift)) for m in at0]
    axis = [matrix_times(r, a) for a in axis0]
    a = math.radians(pose.tilt_to)
    u = (math.cos(a), math.sin(a), 0.0)
    b = math.radians(pose.tilt_to - pose.turn)
    far = side / 2 * (abs(math.cos(b)) + abs(math.sin(b)))
    pivot = (shift[0] + u[0] * far, shift[1] + u[1] * far, shift[2] - side / 2)
    if proud > 0:  # the die lower by as much as its lowest point, the pivot or a proud magnet's face
        t = math.radians(pose.tilt)
        below = []
        for m, n, (_, h), pips, sunk in zip(at0, axis0, size, faces, recess):
            if pips == pose.down and sunk < 0:
                tip = matrix_times(r, tuple(c + d * h / 2 for c, d in zip(m, n)))
                below.append((far - (tip[0] * u[0] + tip[1] * u[1])) * math.sin(t) + sunk * math.cos(t))
        drop = proud + min(0.0, min(below))
        at = [(x, y, z - drop) for x, y, z in at]
        pivot = (pivot[0], pivot[1], pivot[2] - drop)
    lean = about(cross((0.0, 0.0, 1.0), u), pose.tilt)
    at = [tuple(c + p for c, p in zip(matrix_times(lean, tuple(q - p for q, p in zip(m, pivot))), pivot)) for m in at]
    return at, [matrix_times(lean, a) for a in axis]


def field_at(at, axis, polarisation, size, sensors):
    """The vertical field (mT) at each sensor from every magnet, summed (physics.dice.bz)."""
    tab = table()
    total = [0.0] * len(sensors)
    for (cx, cy, cz), (ax, ay, az), pol, (d, h) in zip(at, axis, polarisation, size):
        aspect = h / d
        weights = tab.weights(aspect)
        for k, (sx, sy, sz) in enumerate(sensors):
            vx, vy, vz = (sx - cx) / d, (sy - cy) / d, (sz - cz) / d
            along = vx * ax + vy * ay + vz * az
            rx, ry, rz = vx - along * ax, vy - along * ay, vz - along * az
            rho = math.sqrt(rx * rx + ry * ry + rz * rz)
            b_rho, b_z = tab.field(rho, along, aspect, weights)
            total[k] += pol * (b_z * az + (b_rho * rz / rho if rho > 0 else 0.0))
    return total


# -- the sensor and the ADC (physics.readout, one reading at a time) -------------------------

def raw(volts, parts):
    """The ADC's 12-bit code for an input of `volts` (readout.raw)."""
    return adc.raw(volts, parts.curve, parts.inl)


def counts(bz, parts, physics):
    """Each sensor's read_u16 for fields `bz` (mT, one per sensor): readout.counts."""
    s = physics["sensor"]
    return [adc.u16(raw(min(max(supply / s["supply_V"] * (q + k / 1000 * b), low), supply - high), parts))
            for b, q, k, supply, low, high in zip(bz, parts.quiescent, parts.sensitivity, parts.supply, parts.low,
                                                  parts.high)]


# -- the board ------------------------------------------------------------------------------

class Scene:
    def __init__(self, spec, seed=1):
        """seed=None: every part nominal. Otherwise the board's sensors and ADC, and each
        die's magnets, are drawn within their tolerances (repeatably, from `seed`)."""
        self.spec = spec
        self.physics = spec["physics"]
        places = sensor_places(spec)
        self.channels = len(places)
        self.present = [ch for ch, p in enumerate(places) if p is not None]
        self.sensors = [places[ch] for ch in self.present]
        self.seed = seed
        rng = None if seed is None else random.Random("board %d" % seed)
        self.parts = Parts.draw(self.physics, len(self.sensors), Draw(rng))
        if rng:  # each sensor's supply below the rail: its switch and its tracks (physics.scene, rail.py)
            most = rail.sensor_drop(self.physics)
            self.parts.supply = [v - most * rng.random() for v in self.parts.supply]
        self.jitter = random.Random(None if seed is None else "hands %d" % seed)
        self.dice = {}  # square name -> (piece, Pose)
        self.held = {}  # square name -> (piece, Pose): a die in a hand above a square, not on it
        self.broken = {}  # channel -> the volts a failed sensor's output is stuck at
        self.cups = {}  # square name -> (fraction of remanence, face down "N" | "S"): a lone magnet in the cup
        self._built = {}  # 'white 1' (any white die) or 'white blocker' -> (magnets, side)
        self._cache = {}  # (square, piece, pose) -> field at every sensor

    # -- what is where ------------------------------------------------------------------

    def seated(self, square, piece, turn=0, down=None):
        """A die put into its well by hand: `turn` quarter turns, and wherever in the well
        the hand left it (drawn within the well's play)."""
        offset, twist = well_limits(self.physics)
        dx, dy = (self.jitter.uniform(-offset, offset) for _ in range(2))
        return Pose(down=down or face_down(piece), turn=90 * turn + self.jitter.uniform(-twist, twist),
                    dx=round(dx, 2), dy=round(dy, 2))

    def put(self, square, piece, pose):
        self.dice[square] = (piece, pose)

    def remove(self, square):
        self.dice.pop(square, None)

    def hold(self, square, piece, pose):
        self.held[square] = (piece, pose)

    def let_go(self):
        self.held = {}

    # -- what the sensors read ----------------------------------------------------------

    def field(self):
        """mT at every channel with a sensor, from every die on or above the board."""
        total = [0.0] * len(self.sensors)
        for square, (piece, pose) in list(self.dice.items()) + list(self.held.items()):
            total = [a + b for a, b in zip(total, self._die_field(square, piece, pose))]
        for square, (strength, down) in self.cups.items():
            total = [a + b for a, b in zip(total, self._cup_field(square, strength, down))]
        return total

    def levels(self):
        """Every channel's noiseless `read_u16` (0 where no sensor is wired)."""
        out = [0] * self.channels
        for ch, level in zip(self.present, counts(self.field(), self.parts, self.physics)):
            out[ch] = level
        for ch, volts in self.broken.items():
            out[ch] = adc.u16(raw(volts, self.parts))
        return out

    def die(self, kind):
        """The magnets of the board's die of `kind` ('white 1': its white dice), as built."""
        if kind not in self._built:
            rng = None if self.seed is None else random.Random("%s %d" % (kind, self.seed))
            self._built[kind] = layout(kind, self.spec["dice"], self.physics, Draw(rng),
                                       hole=self.spec["mechanics"]["jig"]["drill_mm"])
        return self._built[kind]

    def _cup_field(self, square, strength, down):
        """A lone magnet of nominal size and remanence, at `strength` of it, in the magnet check's
        cup on `square` (board.json sensing.magnet_check: its face cup_floor_mm over the well's
        floor, on the centre sensor's axis); N face down points its axis down."""
        m = self.physics["magnet"]
        x, y = square_centre(self.spec, square)
        h = m["height_mm"]
        at = [(x, y, self.spec["sensing"]["magnet_check"]["cup_floor_mm"] + h / 2)]
        axis = [(0.0, 0.0, -1.0 if down == "N" else 1.0)]
        return field_at(at, axis, [sum(m["remanence_mT"]) / 2 * strength], [(m["diameter_mm"], h)], self.sensors)

    def _die_field(self, square, piece, pose):
        key = (square, piece, pose)
        if key not in self._cache:
            magnets, side = self.die(piece if piece.endswith("blocker") else piece.split()[0] + " 1")
            at, axis = place(magnets, side, pose, square_centre(self.spec, square))
            if len(self._cache) > 2000:
                self._cache.clear()
            self._cache[key] = field_at(at, axis, magnets[2], magnets[3], self.sensors)
        return self._cache[key]
