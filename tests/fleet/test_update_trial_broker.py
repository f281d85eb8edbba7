"""A slot on trial on a board with a broker set up is healthy only once it is on the broker (doce/trial.py):
with the broker there, it is marked good when it connects; on the Wi-Fi with no broker to reach, the board
gives the slot up at its deadline (firmware/slots.py TRIAL_MS) and boots the one before; with the Wi-Fi
itself down, the slot is kept (an outage is not the version's fault)."""

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


def test_with_the_wifi_down_a_slot_scanning_well_is_marked_good_all_the_same(tmp_path):
    """The room's Wi-Fi down as the boards come back from an update is not the version's fault: a slot that
    scans with its station not joined is healthy once it has waited ROOM_MS for the broker (doce/trial.py)."""
    with on_trial(tmp_path, Nowhere) as sim:
        sim.command(do="wifi", up=False)  # the access point off the air
        sim.wait(2)
        assert updates(sim) == []  # booted and scanning, and it waits for the broker a while
        sim.run(scans=1, skip_ms=TRIAL_MS // 2)
        sim.run(scans=2)
        assert sim.resets == 0 and updates(sim) == [("done", "b")]
        sim.run(scans=1, skip_ms=TRIAL_MS)
        assert sim.resets == 0


def test_with_the_wifi_up_and_no_broker_reached_the_slot_is_given_up(tmp_path):
    """On the room's Wi-Fi, a version that does not reach the broker (its MQTT or TLS broken; here no broker
    listens) is not healthy: kept, no update could reach it again. Given up at its deadline."""
    with on_trial(tmp_path, Nowhere) as sim:
        sim.wait(2)
        sim.run(scans=1, skip_ms=TRIAL_MS // 2)
        sim.run(scans=2)
        assert sim.resets == 0 and updates(sim) == []  # past ROOM_MS, joined, no broker: not healthy
        sim.run(scans=1, skip_ms=TRIAL_MS)
        assert sim.resets == 1
        sim.settle()
        assert updates(sim) == [("rolled_back", "b")]
