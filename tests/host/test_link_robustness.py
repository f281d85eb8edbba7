"""Regressions from review: stale replies, an unread serial path, the raw-REPL flag across
a power cycle, dice moved while the power is off, and a command that fails on the board."""

import io
import os
import time

from doce.link import Link
from doce_host.link import BoardLink
from doce_host.sim.serial_sim import SerialSim


def test_a_late_reply_to_another_connection_is_not_taken_for_ours(tmp_path):
    with SerialSim(tmp_path) as sim:
        with BoardLink(sim.path) as old:
            old.send_line(b'{"cmd": "state", "id": 1}')  # and leaves before the answer
        with BoardLink(sim.path) as new:
            assert new.hello()["protocol"] == 1


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
        with BoardLink(sim.path) as link:
            assert link.hello()["ok"]
            link.send_line(b'{"cmd": "reboot"}')
        with BoardLink(sim.path, timeout=10) as link:
            assert link.hello()["ok"]  # the app came back, not the raw REPL


def test_dice_moved_while_the_power_is_off_are_there_when_it_returns(tmp_path):
    with SerialSim(tmp_path) as sim:
        sim.cut_power()
        sim.place("c3", "white 4")  # noted, not lost, and no error
        assert sim.leds() == [(0, 0, 0)] * 31
        sim.power_on()
        with BoardLink(sim.path) as link:
            link.hello()
            time.sleep(0.5)  # a few scans, and the die is felt
        assert any(sum(c) for c in sim.leds())


class BrokenApp:
    def calibrate(self):
        raise OSError(28, "no space left")


def test_a_command_that_fails_on_the_board_still_gets_its_reply_and_the_next_one_works():
    out = io.StringIO()
    link = Link(BrokenApp(), None, out, None, None)
    for b in b'{"cmd": "calibrate", "id": 7}\n{"cmd": "nope", "id": 8}\n':
        link._byte(b)
    replies = out.getvalue().splitlines()
    assert '"error": "failed"' in replies[0] and '"id": 7' in replies[0]
    assert '"error": "unknown_command"' in replies[1] and '"id": 8' in replies[1]
