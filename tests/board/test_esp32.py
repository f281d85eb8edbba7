"""What the ESP32 and its MicroPython port ask of the firmware, on the simulated board, which is
as strict as the port's source: the clock it runs at, its raw UART, its watchdog."""

from doce_host.sim import SimBoard


def test_the_board_runs_at_240_mhz_from_boot(tmp_path):
    """ESP32_GENERIC boots at 160 MHz; make bench's times are for 240 (doce/esp32.py CPU_HZ)."""
    with SimBoard(tmp_path) as sim:
        assert sim.debug_state()["cpu_hz"] == 240_000_000
        sim.cut_power()
        sim.power_on()
        assert sim.debug_state()["cpu_hz"] == 240_000_000
