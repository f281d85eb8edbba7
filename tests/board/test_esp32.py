"""What the ESP32 and its MicroPython port ask of the firmware, on the simulated board, which is
as strict as the port's source: the clock it runs at, its raw UART, its watchdog."""

import json
from waiting import Deadline, stretched

from doce_host.paths import BOARD_FILE
from doce_host.sim import SimBoard


def test_the_board_runs_at_240_mhz_from_boot(tmp_path):
    """ESP32_GENERIC boots at 160 MHz; make bench's times are for 240 (doce/esp32.py CPU_HZ)."""
    with SimBoard(tmp_path) as sim:
        assert sim.debug_state()["cpu_hz"] == 240_000_000
        sim.cut_power()
        sim.power_on()
        assert sim.debug_state()["cpu_hz"] == 240_000_000


def test_the_lights_dim_to_the_wifi_budget_before_the_radio_starts(tmp_path):
    """The simulated supply browns out if the radio starts while the strip draws more than the
    Wi-Fi budget (hardware/board.json power): the cap must drop, and the strip show it, first."""
    from hands import play
    from test_match import MATCH, clear
    budget = json.loads(BOARD_FILE.read_text())["power"]["led_budget_wifi_ma"]
    with SimBoard(tmp_path) as sim:
        for number, round_moves in enumerate(MATCH):
            play(sim, round_moves)
            if number < len(MATCH) - 1:
                clear(sim)
        assert sim.state()["mode"] == "match_over"  # every square pulses in the winner's colour
        assert send(sim, cmd="wifi", ssid="club", password="x")["ok"]
        for _ in range(500):  # the start of a pulse's brightest steps
            before = sim.command(do="radio")["strip_ma"]
            sim.run(1)
            if sim.command(do="radio")["strip_ma"] > budget >= before:
                break
        assert sim.command(do="radio")["strip_ma"] > budget
        assert send(sim, cmd="mqtt", broker="127.0.0.1", port=9)["ok"]  # the radio starts
        assert sim.command(do="radio")["strip_ma"] <= budget
        sim.wait(0.5)
        assert sim.command(do="radio")["strip_ma"] <= budget


def send(sim, **request):
    replies = sim.command(do="send", line=json.dumps(request) + "\n").get("link", [])
    assert len(replies) == 1, replies
    return replies[0]


def test_an_idf_log_line_never_lands_in_a_line_of_the_link(tmp_path):
    """ESP-IDF logs to the link's UART from its own tasks; the simulated Wi-Fi driver logs an
    ERROR line as it loses the access point, into the middle of the next line the board writes
    (sim/device/esp.py). At the boot level, or after esp.osdebug(None), it would go out."""
    with SimBoard(tmp_path) as sim:
        assert send(sim, cmd="wifi", ssid="club", password="x")["ok"]
        assert send(sim, cmd="mqtt", broker="127.0.0.1", port=9)["ok"]
        sim.run(10)
        sim.command(do="wifi", up=False)
        assert send(sim, cmd="state", id="after")["ok"]  # SimError if the line was garbled
        sim.place("c3", "white 4")
        assert any(e["event"] == "placed" for e in sim.take_events())


def test_the_link_writes_its_lines_byte_for_byte(tmp_path):
    """Not through sys.stdout, which sends each \\n as \\r\\n (the simulated port cooks text as the
    ESP32 port does): a byte the link's reckoning of the UART's FIFO would not count."""
    with SimBoard(tmp_path) as sim:
        reply = sim.command(do="send", line='{"cmd": "hello", "id": 1}\n')
        assert reply["link"][0]["re"] == "hello" and "garbled" not in reply


def test_a_stalled_loop_is_reset_by_the_watchdog_and_the_board_resumes_its_game(tmp_path):
    """The simulated watchdog is the port's: nothing feeds it but the firmware's scan loop, and a
    loop held past its timeout resets the board. The game comes back from the journal."""
    import time

    from doce_host.link import BoardLink
    from doce_host.sim.serial_sim import SerialSim
    with SerialSim(tmp_path) as sim, BoardLink(sim.path, timeout=stretched(30)) as link:
        link.wait_for("round_start")
        sim.place("c3", "white 4")
        link.wait_for("placed", cell="c3")
        timeout_s = sim.debug_state()["watchdog_ms"] / 1000
        assert 0 < timeout_s <= 10
        boots = sim.boots
        assert sim.stall(timeout_s / 2)  # within its timeout: the loop carries on
        assert sim.boots == boots
        assert not sim.stall(timeout_s + 1)  # held past it: reset
        deadline = Deadline(60)
        while sim.boots == boots and not deadline.passed():
            time.sleep(0.1)
        assert sim.boots == boots + 1
        link.wait_for("boot")
        assert link.request("state")["state"]["board"] == {"c3": "white 4"}
