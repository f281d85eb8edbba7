"""The 3.3 V rail a sensor group is read on.

A group switches on when the 74HC138 pulls its AO3401A's gate low: the switch closes in
microseconds, and the group's decoupling (16 sensors, each with its capacitor) charges
from the devkit's 3.3 V rail at once. Before its regulator answers, the charge comes from
the rail's own capacitance, so the rail dips by charge sharing,

    dip = 3.3 V x C_group / (C_group + C_bulk),

and the regulator then restores it. The DRV5055 is ratiometric and the ESP32's ADC is
not, so a supply still off when the group is read would move every reading of the group
(by half the supply error at zero field). Numbers from board.json "physics.rail":

- C_bulk: the devkit's 3.3 V rail holds at least the 10 uF its AMS1117 needs to be stable
  (AMS1117 datasheet: a 10 uF tantalum or 22 uF aluminium output capacitor); taken 10 uF,
  the smallest, which dips most. The board's own 10 uF on 3.3 V (C170) is left out: it
  only makes the dip smaller.
- C_group: 16 x the sensors' decoupling, 10 nF each, the DRV5055's recommended minimum
  (SBAS640, 7.4 Power Supply Recommendations: at least 0.01 uF). With the 100 nF the board
  had, 16 x 100 nF against 10 uF dipped the rail by 0.45 V, to 2.85 V: below the ESP32's
  3.0 V minimum supply, and a large step to recover from. With 10 nF: 52 mV.
- recovery: the regulator's load-transient time constant, taken 50 us (pessimistic: the
  AMS1117 datasheet's load-transient figure settles within tens of microseconds).
- the group is read `power_on_us` after it switches on (board.json sensing: 400 us, for
  the DRV5055's power-on time of 330 us at most, SBAS640 5.5 t_ON); what is left of the
  dip then is exp(-400 / 50) of it.
- the rail itself: the devkit's AMS1117-3.3 (ESP32-DevKitC V4 schematic, U2) holds 3.3 V
  to 3.235-3.365 V over its load, input and temperature, +-2 %: the AMS1117 datasheet
  (Advanced Monolithic Systems; read here as the copy at datasheet.eeworld.com.cn) trims its
  reference to 1 % and bounds line regulation at 0.2 % and load regulation at 0.4 %, which sum
  to 1.6 %; its table's +-2 % for the whole range is taken as it stands, not read here (versions
  of the sheet say 1.5 % trim: 2.1 % in all, 0.1 % more than modelled); board.json
  "rail.regulator_V". A board's sensors
  and its ADC's reference then disagree by up to 2 %: the DRV5055's output and its zero
  scale with the rail, the ADC's counts do not. Calibration takes it out of the baseline,
  and mostly out of the thresholds (they scale by the board's median empty reading, which
  moves with the rail too); what is left is searched with the rest (search.BOARD "supply").
- what stays: the regulator's load regulation (AMS1117: 0.4 % at most) as the board's
  load changes between a baseline and a read, and each sensor's supply drop: its group's switch
  (its sensors' current through the AO3401A's on-resistance), different group to group, and its
  own share of the group's tracks (hardware/supply.py), different sensor to sensor.
"""

import math


def dip(physics):
    """Volts the rail drops when a group switches on, before its regulator answers."""
    r = physics["rail"]
    group = r["group_sensors"] * r["sensor_decoupling_nF"] / 1000  # uF
    return physics["sensor"]["supply_V"] * group / (group + r["bulk_uF"][0])


def left_at_read(physics, power_on_us):
    """Volts of that dip still there when the group's first sensor is read."""
    return dip(physics) * math.exp(-power_on_us / physics["rail"]["recovery_us"])


def supply(physics, draw, shape):
    """Each board's 3.3 V rail as its regulator holds it (a tolerances.Spread `draw`)."""
    return draw.uniform(*physics["rail"]["regulator_V"], shape, name="supply")


def drift(physics):
    """Volts the supply may move between a baseline and a read: the regulator's load
    regulation as the board's load changes (radio, LEDs, the group read)."""
    return physics["sensor"]["supply_V"] * physics["rail"]["load_regulation"]


def track_drop(physics):
    """Most volts a sensor loses in its group's tracks, between its switch and its VCC pin: the
    routed copper solved as a resistor network, every sensor of the group at 10 mA
    (hardware/supply.py; board.json physics.rail.track_mV, held to the board by
    tests/hardware/test_supply.py). It differs sensor to sensor, from nearly 0 to this."""
    return physics["rail"].get("track_mV", 0.0) / 1000


def sensor_drop(physics):
    """Most volts a sensor's supply sits below the rail: its group's switch and its own tracks.
    Each sensor's is drawn from 0 to this (reading.Boards, search's "switch drop"): a board's
    calibration takes the offset it gives out of the baseline, not the gain it costs."""
    return switch_drop(physics) + track_drop(physics)


def switch_drop(physics):
    """Most volts a group's sensors lose across its switch: 16 sensors at 10 mA at most
    each (SBAS640 5.5 I_CC) through the AO3401A's 85 mOhm at most (its datasheet, at
    V_GS = -2.5 V; the 74HC138 drives -3.3 V). It differs group to group, from 0 to this."""
    r = physics["rail"]
    return r["group_sensors"] * physics["sensor"]["supply_mA"][1] / 1000 * r["switch_mohm"] / 1000
