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

from hands import events
from remote_helpers import Pair

from doce_host import image
from doce_host.sim.serial_sim import SerialSim

DATA = Path(__file__).parent / "data" / "cut_in_recovery"
KEPT = ("journal", "remote.json", "net.json", "calibration.bin")


def test_a_board_cut_during_recovery_resumes_its_remote_match(tmp_path):
    files = image.app_files("standard", chip="host")
    for name in KEPT:
        files[name] = (DATA / name).read_bytes()
    (tmp_path / "flash.img").write_bytes(image.build(files))
    with SerialSim(tmp_path, module="wrover") as sim:
        remote = sim.state()["remote"]  # the boot starts the match, or pauses it, before the app answers
        assert remote is not None, "the friend's match did not start (paused: out of memory)"
        assert remote["peer"] == "sim1" and remote["colour"] == "white"


def test_the_friends_blocker_and_die_put_down_while_the_board_was_off_are_its_move(tmp_path, mosquitto):
    """The friend's move as lit, a blocker and a die, put down while the board rebooted: taken from the
    squares, not two_at_once till the die is lifted and put back (a hostile review of issue 41, finding 4)."""
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        a, b = pair.a, pair.b
        pair.play(a, "c3", "white 4")
        b.place("c4", "black blocker")
        assert pair.shown(a) == {"blocker": "c4"}  # lit on a: its blocker first
        b.place("a1", "black 3")
        a.cut_power()
        a.hands.place("c4", "black blocker", 0)  # a's player puts the friend's move down as it was lit
        a.hands.place("a1", "black 3", 0)
        a.power_on()
        assert pair.until(lambda: pair.plays(a) == pair.plays(b) == 3), (pair.remote(a), pair.remote(b))
        assert pair.boards_agree()
        assert not [e for e in events(a, "illegal") if e["reason"] == "two_at_once"]
        assert a.state()["mode"] == "playing" and a.state()["to_move"] == "white"
    finally:
        pair.close()


def test_a_blocker_and_die_put_down_together_agree_play_by_play(tmp_path, mosquitto):
    """The pair taken in one reading: the blocker's play is checked against the friend's board with the
    blocker alone on the board, then the die's. Both taken at once, the blocker's position had the die
    in it, and both boards stopped with remote_mismatch (r41e's cut match, seed 8)."""
    pair = Pair(tmp_path, mosquitto)
    try:
        pair.pair()
        a, b = pair.a, pair.b
        pair.play(a, "c3", "white 4")
        b.place("c4", "black blocker", settle=False)  # the player's own turn, in one reading
        b.place("a1", "black 3", settle=False)
        b.settle()
        assert pair.until(lambda: pair.remote(a)["move"] == {"blocker": "c4", "cell": "a1", "value": 3})
        a.place("c4", "black blocker", settle=False)  # and the friend's, as lit
        a.place("a1", "black 3", settle=False)
        a.settle()
        assert pair.until(lambda: pair.plays(a) == pair.plays(b) == 3), (pair.remote(a), pair.remote(b))
        assert pair.boards_agree()
        assert pair.remote(a)["mismatch"] is None and pair.remote(b)["mismatch"] is None
        assert not [e for e in events(a, "illegal") if e["reason"] == "two_at_once"]
    finally:
        pair.close()
