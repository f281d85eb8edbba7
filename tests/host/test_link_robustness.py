"""Regressions from review: stale replies, an unread serial path, the raw-REPL flag across
a power cycle, dice moved while the power is off, and a command that fails on the board."""

import io
import os
import threading
import time

import serial
from waiting import BOOT_CPU_S, Deadline, booted, stretched, until, until_worked
from doce.link import PROTOCOL, Link
from doce_host.link import BoardLink, LinkError
from doce_host.sim import SimError
from doce_host.sim.serial_sim import SerialSim


def test_a_late_reply_to_another_connection_is_not_taken_for_ours(tmp_path):
    with SerialSim(tmp_path) as sim:
        booted(sim)  # hello waits 3 wall seconds at most (BoardLink.hello): for the answer, not for a boot
        with BoardLink(sim.path) as old:
            old.send_line(b'{"cmd": "state", "id": 1}')  # and leaves before the answer
        with BoardLink(sim.path) as new:
            assert new.hello()["protocol"] == PROTOCOL


def test_a_board_nobody_listens_to_does_not_stall(tmp_path):
    with SerialSim(tmp_path) as sim:
        for _ in range(300):  # far more events than a pseudo-terminal buffers
            sim.place("c3", "white 4")
            sim.lift("c3")
        sim.place("a1", "white 2")
        assert len(sim.leds()) == 31
        with BoardLink(sim.path) as link:
            assert link.hello()["ok"]


def test_after_a_power_cycle_a_reset_boots_the_app(tmp_path):
    with SerialSim(tmp_path) as sim:
        fd = os.open(sim.path, os.O_RDWR | os.O_NOCTTY)
        os.write(fd, b"\r\x03\r\x01")  # a tool stops the app and enters the raw REPL
        os.close(fd)
        sim.cut_power()
        sim.power_on()
        assert answers_hello(sim)  # booted
        with BoardLink(sim.path) as link:
            assert link.request("reboot")["ok"]  # the reply goes out, then the board restarts
        assert answers_hello(sim)  # the app came back, not the raw REPL


def answers_hello(sim):
    """Whether the board answers hello once it has had the CPU to boot: a request sent while it
    restarts is lost, as on a board, so ask again until then."""
    def hello():
        try:
            with BoardLink(sim.path, timeout=3) as link:
                return link.hello()["ok"]
        except LinkError:
            return False
    return until_worked(hello, lambda: sim.process and sim.process.pid, BOOT_CPU_S, what="an answer to hello")


def test_what_the_host_sends_while_the_power_is_off_never_reaches_the_next_boot(tmp_path):
    """A tool's Ctrl-C and Ctrl-A sent to a board that is off are lost, as on a board: they must not
    wait in the simulator and stop the app the next power-on starts."""
    with SerialSim(tmp_path) as sim:
        sim.cut_power()
        fd = os.open(sim.path, os.O_RDWR | os.O_NOCTTY)
        os.write(fd, b"\r\x03\r\x01")
        os.close(fd)
        sim.power_on()
        assert answers_hello(sim)  # the app, not the raw REPL


def test_dice_moved_while_the_power_is_off_are_there_when_it_returns(tmp_path):
    with SerialSim(tmp_path) as sim:
        sim.cut_power()
        sim.place("c3", "white 4")  # noted, not lost, and no error
        assert sim.leds() == [(0, 0, 0)] * 31
        sim.power_on()
        assert answers_hello(sim)  # booted
        until(lambda: any(sum(c) for c in sim.leds()), what="the die being felt and lit")


class BrokenApp:
    def calibrate(self):
        raise OSError(28, "no space left")


def test_a_command_that_fails_on_the_board_still_gets_its_reply_and_the_next_one_works():
    out = io.BytesIO()
    link = Link(BrokenApp(), None, out, None, None)
    for b in b'{"cmd": "calibrate", "id": 7}\n{"cmd": "nope", "id": 8}\n':
        link._byte(b)
    link.flush_all()
    replies = out.getvalue().decode().splitlines()
    assert '"error": "failed"' in replies[0] and '"id": 7' in replies[0]
    assert '"error": "unknown_command"' in replies[1] and '"id": 8' in replies[1]


def write_all(path, data, seconds=30):
    """Write `data` to the serial path as fast as it takes it, reading nothing back."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    deadline = Deadline(seconds)
    try:
        while data and not deadline.passed():
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                time.sleep(0.01)
    finally:
        os.close(fd)
    return data


def test_a_flood_while_the_board_replies_does_not_freeze_the_simulator(tmp_path):
    with SerialSim(tmp_path) as sim:
        flood = b'{"cmd": "rules_get"}\n' * 20 + b"x" * 20000 + b"\n"
        assert write_all(sim.path, flood) == b""  # the bridge kept taking it, at the line's pace
        assert answers_hello(sim)  # once the 20 replies (about 2.8 s at 115200 baud) have gone out


def test_a_partial_line_left_on_the_link_does_not_spoil_the_next_connection(tmp_path):
    with SerialSim(tmp_path) as sim:
        booted(sim)  # the arrow key goes to the app, and hello's 3 wall seconds are for its answer alone
        assert write_all(sim.path, b"\x1b[A") == b""  # an arrow key, typed without Enter
        with BoardLink(sim.path) as link:
            assert link.hello()["ok"]


def test_a_rules_push_in_real_time_arrives_whole(tmp_path):
    from doce_host import rules
    r = rules.load("standard")
    r.update(name="short-match", rounds=2)
    blob = rules.compile_tables(r)
    with SerialSim(tmp_path) as sim:
        with BoardLink(sim.path, timeout=stretched(10)) as link:
            assert link.push_rules(blob)["ok"]
            assert link.hello()["rules"] == "short-match"


def test_a_stray_ctrl_a_while_the_app_runs_does_not_count_as_the_raw_repl(tmp_path):
    with SerialSim(tmp_path) as sim:
        assert write_all(sim.path, b"\x01\n") == b""  # line noise: the app reads it as a byte
        assert answers_hello(sim)  # and has read past it
        with serial.Serial(sim.path, timeout=0.1) as port:
            port.write(b"\x03")  # stops the app: the friendly REPL
            seen = bytearray()
            until(lambda: seen.extend(port.read(256)) or b">>> " in seen, what="the friendly REPL's prompt")
            port.write(b"\x04")  # a soft reset there: a board runs main.py
        assert answers_hello(sim)


def test_ctrl_c_stops_the_app_and_the_simulator_knows_at_once(tmp_path):
    """After Ctrl-C the board is at its REPL, where nothing scans: asking the app says so
    straight away, and a soft reset brings the app back."""
    with SerialSim(tmp_path) as sim:
        assert answers_hello(sim)
        with serial.Serial(sim.path, timeout=0.1) as port:
            port.write(b"\x03")
            seen = bytearray()
            until(lambda: seen.extend(port.read(256)) or b">>> " in seen, what="the friendly REPL's prompt")
            until(lambda: not sim.app_running, what="the simulator to hear the app stopped")
            try:
                sim.state()
                raise AssertionError("the app answered from the REPL")
            except SimError as e:
                assert "not running" in str(e)  # not "went down before it answered", 10 s later
            port.write(b"\x04")
        assert answers_hello(sim)
        assert sim.app_running and sim.state()["mode"]


def test_a_reset_the_board_asks_for_lets_its_last_reply_out(tmp_path, monkeypatch):
    """ESP-IDF empties the UART FIFOs before a reset (esp_system_reset_modules_on_exit): the reply
    to reboot reaches the host. The simulator restarted the board as soon as it said so, and a
    host side slower than the board then lost that reply."""
    forward = SerialSim._to_host
    monkeypatch.setattr(SerialSim, "_to_host", lambda self, data: (time.sleep(0.2), forward(self, data))[1])
    with SerialSim(tmp_path) as sim:
        assert answers_hello(sim)
        with BoardLink(sim.path) as link:
            link.send_line(b'{"cmd": "state", "id": 1}')  # output on its way when the reset comes
            assert link.request("reboot", timeout=BOOT_CPU_S)["ok"]
        assert answers_hello(sim)


def test_what_the_bridge_took_just_before_a_power_cut_never_reaches_the_next_boot(tmp_path, monkeypatch):
    """The bridge checked the board was on, then a cut and a boot came before it kept the bytes (a
    thread preempted at load 12-19): a tool's Ctrl-C and Ctrl-A stopped the new boot's app."""
    took, kept = threading.Event(), threading.Event()
    keep = SerialSim._from_host

    def late(self, data):
        if b"\x03" in data:
            took.set()
            time.sleep(1.0)  # preempted between its check and keeping the bytes
        keep(self, data)
        if b"\x03" in data:
            kept.set()
    monkeypatch.setattr(SerialSim, "_from_host", late)
    with SerialSim(tmp_path) as sim:
        assert answers_hello(sim)
        fd = os.open(sim.path, os.O_RDWR | os.O_NOCTTY)
        os.write(fd, b"\r\x03\r\x01")
        os.close(fd)
        assert took.wait(10)
        sim.cut_power()
        sim.power_on()
        assert kept.wait(10)
        assert not sim.at_repl and not sim.raw_repl  # the new boot runs its app
        assert answers_hello(sim)
