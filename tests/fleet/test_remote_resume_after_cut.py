"""A paired board cut during its recovery resumes its match at the next power-on (a hostile review of
issue 41, finding 1). data/cut_in_recovery holds what one such board kept (its journal of 18 plays,
remote.json, net.json, calibration.bin): a board cut at the 16th move, and again in the recovery that
followed. On the real-time simulator it booted with its match "paused: ran out of memory starting it",
at every retry and every power-on: the simulated `network` driver (a C module on the ESP32, whose heap
it costs nothing: ports/esp32/modnetwork.c) was compiled from source inside the firmware's boot, its
parse and its qstrs taking the one free block the friend's match needed (a qstr pool of 1,280 entries:
py/qstr.c reports its entries as the "bytes" of the MemoryError). The stepped simulator loaded it with
its harness, and booted the same flash fine."""

from pathlib import Path

from doce_host import image
from doce_host.sim.serial_sim import SerialSim

DATA = Path(__file__).parent / "data" / "cut_in_recovery"
KEPT = ("journal", "remote.json", "net.json", "calibration.bin")


def test_a_board_cut_during_recovery_resumes_its_remote_match(tmp_path):
    files = image.app_files("standard", chip="host")
    for name in KEPT:
        files[name] = (DATA / name).read_bytes()
    (tmp_path / "flash.img").write_bytes(image.build(files))
    with SerialSim(tmp_path) as sim:
        remote = sim.state()["remote"]  # the boot starts the match, or pauses it, before the app answers
        assert remote is not None, "the friend's match did not start (paused: out of memory)"
        assert remote["peer"] == "sim1" and remote["colour"] == "white"
