"""The real-time simulator (sim/device/serve.py, `doce sim`, `doce sim --remote`) scans through the
firmware's own handler, as the stepped one does: a scan that raises is said in one `error` event and the
board plays on. The stepped simulator kept each such fault's traceback for the tests (tests/conftest.py
scan_faults_checked); the real-time one kept nothing, so a fault in a test run on it passed unseen."""

import pytest
from waiting import until

from doce_host.sim.serial_sim import SerialSim


@pytest.mark.scan_fault  # made on purpose
def test_a_fault_escaping_a_live_boards_scan_is_kept_with_its_traceback(tmp_path):
    with SerialSim(tmp_path) as sim:
        sim.cut_power()
        sim.no_room({"doce.app:App.step": [3]})  # as tests/fleet/test_boot_out_of_heap.py does on the stepped one
        sim.power_on()
        assert until(lambda: sim.scan_faults, what="the scan's fault kept")
        assert len(sim.scan_faults) == 1 and "MemoryError" in sim.scan_faults[0], sim.scan_faults
        assert "Traceback" in sim.scan_faults[0] and "esp32.py" in sim.scan_faults[0]  # where it was caught
        until(lambda: sim.state()["mode"] == "playing", what="the board starting its round")  # played on
        sim.place("c3", "white 4")
        assert until(lambda: sim.state()["board"] == {"c3": "white 4"}, what="the die read")
        assert len(sim.scan_faults) == 1


def test_the_tests_see_a_live_boards_scan_fault(tmp_path, monkeypatch):
    """The check every test runs under (scan_faults_checked) hears the real-time simulator's faults."""
    heard = []
    monkeypatch.setattr(SerialSim, "on_scan_fault", heard.append)
    with SerialSim(tmp_path) as sim:
        sim.cut_power()
        sim.no_room({"doce.app:App.step": [3]})
        sim.power_on()
        assert until(lambda: heard, what="the fault heard")
        sim.scan_faults.clear()  # (this test's fault is made on purpose: not this test's failure)
