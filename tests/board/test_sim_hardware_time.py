"""The simulated device charges the time the ESP32's drivers block for: each ADC read, each NeoPixel
write and each flash program and erase (counted in the lockstep harness, slept in real time)."""

import importlib.util
import sys

import pytest

from doce.board import Board, load_spec
from doce_host.paths import BOARD_FILE, SIM_DEVICE


def load(name):
    spec = importlib.util.spec_from_file_location("sim_" + name, SIM_DEVICE / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class World:
    def __init__(self):
        self.asked = []

    def reading(self, channel):
        self.asked.append(channel)
        return 1000 + channel

    def noisy(self, level):
        return level


@pytest.fixture
def device(monkeypatch):
    machine = load("machine")
    monkeypatch.setitem(sys.modules, "machine", machine)
    neopixel = load("neopixel")
    spec = load_spec(str(BOARD_FILE))
    board = Board(spec)
    world = World()
    machine.attach(world, board, spec["power"])
    return machine, neopixel, board, world


def test_each_adc_read_costs_its_conversion_time(device):
    machine, neopixel, board, world = device
    adc = machine.ADC(machine.Pin(board.pins["sensor_adc"]))
    machine.Pin(board.pins["group_enable"], machine.Pin.OUT, value=1)
    select = [machine.Pin(n, machine.Pin.OUT, value=0) for n in board.pins["mux_select"]]
    select[0](1)
    before = machine.spent_us
    readings = [adc.read_u16() for _ in range(3)]
    assert machine.spent_us - before == 3 * machine.ADC_READ_US
    assert 30 <= machine.ADC_READ_US <= 40  # the range measured on ESP32s
    assert readings == [1001] * 3 and world.asked == [1] * 3  # what it reads is the world's


def test_a_strip_write_costs_30_us_an_led_and_the_rmt_setup(device):
    machine, neopixel, board, world = device
    strip = neopixel.NeoPixel(machine.Pin(board.pins["leds"]), board.led_count)
    before = machine.spent_us
    strip.write()
    took = machine.spent_us - before
    assert took == board.led_count * 30 + neopixel.RMT_SETUP_US
    assert 1000 <= took <= 1300  # 31 LEDs: 1.0-1.3 ms on an ESP32


def test_lockstep_counts_the_time_and_never_sleeps(device, monkeypatch):
    machine, neopixel, board, world = device

    def no_sleep(us):
        raise AssertionError("the lockstep harness slept")
    monkeypatch.setattr(machine.time, "sleep_us", no_sleep, raising=False)
    machine.charge(5000)
    assert machine.owed_us >= 5000


def test_the_adc_reads_the_channel_the_select_pins_and_the_group_decoder_pick(device):
    machine, neopixel, board, world = device
    adc = machine.ADC(machine.Pin(board.pins["sensor_adc"]))
    mux = [machine.Pin(n, machine.Pin.OUT, value=0) for n in board.pins["mux_select"]]
    group = [machine.Pin(n, machine.Pin.OUT, value=0) for n in board.pins["group_select"]]
    enable = machine.Pin(board.pins["group_enable"], machine.Pin.OUT, value=0)
    assert adc.read_u16() == 0 and world.asked == []  # no group switched on: nothing read (the pin at 0 V)
    enable(1)
    for pin, level in zip(group, (0, 1, 0)):  # group 2
        pin(level)
    for pin, level in zip(mux, (1, 0, 1, 0)):  # input 5
        pin(level)
    assert adc.read_u16() == 1000 + 2 * 16 + 5
    mux[0].off()
    group[2].on()
    assert adc.read_u16() == 1000 + 6 * 16 + 4 and world.asked == [37, 100]
    enable(0)  # every multiplexer off: nothing drives the ADC's pin, which holds its last level
    assert adc.read_u16() == 1000 + 6 * 16 + 4 and world.asked == [37, 100]


class Clock:
    """The unix port's time, as the simulated device uses it: a sleep overshoots by `slack` us."""

    def __init__(self, slack):
        self.now = 0
        self.slack = slack
        self.sleeps = []

    def ticks_us(self):
        return self.now

    def ticks_diff(self, a, b):
        return a - b

    def sleep_us(self, us):
        self.sleeps.append(us)
        self.now += us + self.slack


def test_in_real_time_a_wait_of_the_firmware_is_one_sleep_with_the_hardware_time_owed(device, monkeypatch):
    machine, neopixel, board, world = device
    clock = Clock(slack=60)
    monkeypatch.setattr(machine, "time", clock)
    monkeypatch.setattr(machine, "real_time", True)
    monkeypatch.setitem(sys.modules, "machine", machine)
    simtime = load("simtime")  # the firmware's `time` in real time (serve.py)
    simtime.sleep_us(400)  # a group's sensors powering up: the ESP32 busy-waits, as for the ADC
    assert clock.sleeps == [] and machine.owed_us == 400
    simtime.sleep_us(700)
    assert clock.sleeps == [1100] and machine.owed_us == -60  # a lump; its overshoot comes off the next
    simtime.sleep_us(300)
    simtime.sleep_ms(2)  # the loop's idle pace: one sleep of the unix port's, not four 500 us naps
    assert clock.sleeps == [1100, 2240] and clock.now == 1100 + 60 + 2240 + 60
    assert machine.owed_us == -60  # over the whole: 3400 us asked, 3460 slept


def test_each_flash_erase_and_program_holds_the_firmware_as_long_as_the_chip_takes(device, tmp_path):
    """A 4 KB sector erase tSE and a page program tPP of a W25Q64JV (typical), a program charged per
    64-byte command as ESP-IDF sends them, never across a 256-byte page: the simulated chip held the
    firmware for nothing, so an update's per-chunk erases kept the scan's pace in the simulator only."""
    machine, neopixel, board, world = device
    flash = load("flash")
    image = tmp_path / "flash.img"
    image.write_bytes(b"\xff" * 4 * 4096)
    chip = flash.FlashChip(str(image))
    chip.charge = machine.charge
    assert flash.ERASE_US == (45000, 400000) and flash.PROGRAM_US == (400, 3000)  # W25Q64JV rev. I, 9.6
    before = machine.spent_us
    chip.ioctl(6, 1)
    assert machine.spent_us - before == 45000 and chip.erases == 1
    before = machine.spent_us
    chip.writeblocks(1, bytes(128), 192)  # bytes 192-319 of the block: 64 to the page's end, then 64
    chip.writeblocks(1, bytes(16), 300)  # one command
    chip.writeblocks(2, bytes(4096))  # a whole block: 64 commands
    assert chip.programs == 2 + 1 + 64
    assert machine.spent_us - before == (2 + 1 + 64) * 400 == chip.busy_us - 45000
    assert image.read_bytes()[4096 + 192:4096 + 320] == bytes(128)
