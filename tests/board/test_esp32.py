"""What the ESP32 and its MicroPython port ask of the firmware, on the simulated board, which is
as strict as the port's source: the clock it runs at, its raw UART, its watchdog."""

import json
from waiting import Deadline, completed, stretched

from doce_host.paths import BOARD_FILE, FIRMWARE_DIR, SIM_DEVICE, tool
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
    with SimBoard(tmp_path, module="wrover") as sim:
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
    with SimBoard(tmp_path, module="wrover") as sim:
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


def test_a_board_whose_game_does_not_fit_at_boot_says_so_in_one_line(tmp_path):
    """Out of heap before the game is built (doce/sensors.py's import, made to run out by the simulator's
    no_room.py): one error event on its link, then the REPL, not a traceback; the journal is not touched.
    (Out of heap for the network or a friend's match, the board plays on: tests/fleet/test_boot_out_of_heap.py.)"""
    (tmp_path / "board.json").write_text(BOARD_FILE.read_text())
    (tmp_path / "journal").write_bytes(b"kept")
    script = ("import sys\nsys.path[:0] = [%r, %r]\nimport no_room\nno_room.install({'doce.sensors': 1})\n"
              "from doce import esp32\nesp32.run()\nprint('REPL')\n" % (str(SIM_DEVICE), str(FIRMWARE_DIR)))
    run = completed([tool("micropython"), "-c", script], cwd=tmp_path)
    lines = run.stdout.splitlines()
    assert run.returncode == 0 and len(lines) == 2 and lines[1] == "REPL", run.stdout + run.stderr
    event = json.loads(lines[0])
    assert event["event"] == "error" and event["message"].startswith("out of memory starting the game ")
    assert "MemoryError: memory allocation failed" in event["message"] and "journal is kept" in event["message"]
    assert (tmp_path / "journal").read_bytes() == b"kept"


def test_the_watchdog_counts_a_busy_hosts_wait_for_a_core_as_the_hosts_not_the_firmwares(tmp_path):
    """Held past its timeout by the wall clock alone, the simulated watchdog reset a board whose
    process waited for a core (a board check's step, at load 24 on two cores: CI). Past it by the
    host's load too, it resets; a loop stuck on purpose (stall) resets by its own time, however busy."""
    # Fed 150 ms ago by the clock, not by a sleep: a process waiting for a core (CI's load 25)
    # woke from a 150 ms sleep past 2.0 x 100 ms, so the hold is set and the load's stretch is wide.
    script = ("import sys, time\nsys.path[:0] = [%r]\nimport machine\nmachine.real_time = True\n"
              "machine.WDT(timeout=100)\nmachine.fed_us = time.ticks_add(time.ticks_us(), -150000)\n"
              "for busy in (50.0, 1.0):\n"
              "    machine._host_busy = lambda: busy\n"
              "    try:\n        machine._watch()\n        print('held', busy)\n"
              "    except SystemExit:\n        print('reset', busy)\n"
              "machine._host_busy = lambda: 50.0\nmachine.WDT(timeout=100)\n"
              "try:\n    machine.stall(150)\n    print('stalled')\nexcept SystemExit:\n    print('reset stalled')\n"
              % str(SIM_DEVICE))
    run = completed([tool("micropython"), "-c", script], cwd=tmp_path)
    assert run.stdout.split("\n")[:3] == ["held 50.0", "reset 1.0", "reset stalled"], run.stdout + run.stderr


def test_the_simulated_chip_says_why_it_reset_as_micropython_1_28_does(tmp_path):
    """v1.28.0's mp_machine_reset_cause (ports/esp32/modmachine.c): machine.reset() (esp_restart,
    ESP_RST_SW) is HARD_RESET and a brown-out PWRON_RESET, as a power cut. firmware/slots.py counts a
    trial boot failed on anything but PWRON_RESET, so a simulator that said SOFT_RESET for a brown-out
    (as it did) rolled back a version the chip would boot again and again."""
    script = tmp_path / "boot.py"
    script.write_text("import sys\nsys.path.insert(0, %r)\nimport machine\nprint(machine.reset_cause())\n"
                      "then = sys.argv[2]\n"
                      "if then == 'reset':\n    machine.reset()\n"
                      "elif then == 'brown-out':\n    machine.reset(machine.PWRON_RESET)\n" % str(SIM_DEVICE))
    flash = tmp_path / "flash.img"

    def boot(then):
        run = completed([tool("micropython"), str(script), str(flash), then], cwd=tmp_path)
        return int(run.stdout.split()[0])
    causes = [boot("reset"), boot("brown-out"), boot("-")]
    assert causes == [1, 2, 1]  # PWRON_RESET, then HARD_RESET after machine.reset(), then PWRON after the brown-out
    network = (SIM_DEVICE / "network.py").read_text()
    assert "Brownout detector was triggered" in network and "machine.reset(machine.PWRON_RESET)" in network
