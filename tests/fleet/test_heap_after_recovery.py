"""What a board makes that lasts, after its boot, is not made amid a burst's garbage (issue 41, `make
campaign`'s heap check). A non-moving collector leaves such an object where the burst left room, often
amid the free heap, splitting it for good: the power-cut campaign's boards came back with their largest
free block anywhere from 8 to 36 KB, lower late in a match. Heap maps after each recovery (micropython.
mem_info(1)) showed what split it: the MQTT pipe's `out` (1.1-1.8 KB, grown in the reconnection's first
burst) and doce/pairing.py (about 2 KB of code, loaded by a host's first `remote` question)."""

from pathlib import Path

from fleet_helpers import link
from remote_helpers import Pair

from doce_host.fleet.vendor import umqtt_simple

HERE = Path(__file__).parent


def test_a_connections_first_burst_moves_neither_buffer_of_the_pipe(micropython, tmp_path):
    (tmp_path / "umqtt").mkdir()
    (tmp_path / "umqtt" / "simple.py").write_bytes(umqtt_simple())
    run = micropython(HERE / "mp_pipe_heap.py", path=(tmp_path,), heap="256K")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True"], run.stdout


def test_asking_a_paired_board_where_it_stands_loads_no_pairing_code(tmp_path, mosquitto):
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        pair.b.power_on()  # the match resumed from remote.json and the journal: no pairing code
        assert pair.until(lambda: pair.remote(pair.b)["connected"])
        assert link(pair.b, cmd="remote")["remote"]["peer"] == "b1"
        assert "doce.pairing" not in pair.b.command(do="modules")["loaded"]
        assert link(pair.b, cmd="remote", peer=None)["remote"] is None  # ending it still needs it, and has it
    finally:
        pair.close()
