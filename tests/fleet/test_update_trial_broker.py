"""A slot on trial on a board with a broker set up is healthy only once it is on the broker (doce/trial.py):
with the broker there, it is marked good when it connects; with no broker to reach, the board gives the slot
up at its deadline (firmware/slots.py TRIAL_MS) and boots the one before."""

import json

from fleet_helpers import join, until_scanned

from doce_host import image
from doce_host.sim import SimBoard
from test_slots import TRIAL_MS


class Nowhere:
    host, port = "127.0.0.1", 9  # the discard port: nothing listens here


def on_trial(folder, broker):
    """A board set up for `broker`, then switched to slot b (the same app) on trial."""
    with SimBoard(folder, module="wrover") as sim:
        join(sim, broker)
    files = image.read(sim.flash.read_bytes())
    files.update({"b/" + p: d for p, d in image.slot_files(files).items()})
    files[image.POINTER] = json.dumps({"slot": "b", "good": "a", "tries": 0}).encode()
    sim.flash.write_bytes(image.build(files))
    return SimBoard(folder, module="wrover")


def updates(sim):
    return [(e["stage"], e["slot"]) for e in sim.events if e["event"] == "update"]


def test_on_the_broker_the_slot_is_marked_good(tmp_path, mosquitto):
    with on_trial(tmp_path, mosquitto) as sim:
        assert until_scanned(lambda: updates(sim), sim, step=50) == [("done", "b")]


def test_with_no_broker_to_reach_a_slot_scanning_well_is_marked_good_all_the_same(tmp_path):
    """The room's Wi-Fi or broker down as the boards come back from an update is not the version's fault: a slot
    that scans is healthy once it has waited ROOM_MS for the broker (doce/trial.py), not rolled back."""
    with on_trial(tmp_path, Nowhere) as sim:
        sim.wait(2)
        assert updates(sim) == []  # booted and scanning, and it waits for the broker a while
        sim.run(scans=1, skip_ms=TRIAL_MS // 2)
        sim.run(scans=2)
        assert sim.resets == 0 and updates(sim) == [("done", "b")]
        sim.run(scans=1, skip_ms=TRIAL_MS)
        assert sim.resets == 0
